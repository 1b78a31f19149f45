"""``roofline-grade SUBMISSIONS [--out DIR] [--jobs N]``: autograde a folder or zip of submissions.

SUBMISSIONS is nbgrader's submitted layout, ``<student_id>/<problemN>/<problemN>.ipynb``, as a
folder or a .zip of one. DIR is the grading workspace (default: the course's git-ignored
``grading/``); it receives grades.csv, feedback/<student>/ (pages, see roofline_grader.outputs.feedback),
feedback-zips/<student>.zip, report.txt, and nbgrader's gradebook and folders. With
``--release-feedback`` each submission's page also goes to nbgrader's exchange, where the student's
Fetch Feedback finds it (roofline_grader.outputs.exchange). The exit status is 0 when every submission was
graded (bad submissions included: they are graded and reported), 2 when SUBMISSIONS cannot be read,
the exchange cannot be written, or a sheet of hand scores (``--manual-scores``) has a bad row
(roofline_grader.handgrading.manual; nothing is then graded or applied).

SUBMISSIONS may also be an LMS download (roofline_grader.intake): a Canvas
"Download Submissions" zip, a Moodle "Download all submissions" zip, a generic flat zip
(``<student>_<problemN>.ipynb``), or a folder of such zips (one per assignment). ``--roster CSV``
maps its files to students (roofline_grader.intake.roster) and adds canvas_grades.csv and
moodle_grades.csv to the workspace (roofline_grader.outputs.exports); ``--problem problemN`` says every
notebook is that problem. Every file not graded is listed in report.txt and report.json. An
earlier upload superseded by a later one (a resubmission) is routine: listed, exit status 0. Exit
statuses for the others (see EXIT_STATUSES): 3 when some files could not be placed to a student
and problem (the rest is graded and reported; the message says what would place each kind;
``--accept-unplaced``, ``make grade ACCEPT_UNPLACED=1``, makes that 0), 4 when no notebook could
be placed at all (nothing is graded; the message says what was seen), 2 for an unreadable roster.
Every submission graded and the report written, but some student's feedback pages or zip could not
be written (a file system's refusal, for that student alone): 6, and report.txt names each.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import warnings
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from roofline_grader.course import Course
from roofline_grader.course.config import (
    COURSE_ID,
    DEFAULT_CELL_TIMEOUT_S,
    DEFAULT_NOTEBOOK_TIMEOUT_S,
)
from roofline_grader.course.release import ensure_scripts_on_path
from roofline_grader.course.rubric import RubricError
from roofline_grader.handgrading.manual import ManualSheetError
from roofline_grader.intake.discover import IntakeError, NothingToGradeError, Unplaced
from roofline_grader.intake.roster import RosterError
from roofline_grader.kernel.sandbox import SandboxUnavailableError
from roofline_grader.outputs.exchange import (
    ExchangeUnavailableError,
    check_exchange,
    secure_feedback_folder,
    trusted_owners,
)
from roofline_grader.run.cluster import ClusterError, ClusterSpec, parse_cluster

EXIT_UNPLACED = 3
"""Some files of the submissions could not be placed (and --accept-unplaced was not given)."""
EXIT_NOTHING = 4
"""No notebook of the submissions could be placed: nothing was graded."""
EXIT_CLUSTER = 5
"""The Dask cluster (--cluster) could not be reached, or was lost or refused work during the run."""
EXIT_OUTPUTS = 6
"""Every submission was graded and the report written, but some student's output (feedback
pages, zip) could not be written; report.txt names each."""
EXIT_STATUSES = (
    "Exit status: 0 every submission graded (bad ones included: they are graded and reported; "
    "earlier uploads superseded by a resubmission are listed, not an error); "
    "2 SUBMISSIONS, the roster, the exchange or a hand-score sheet cannot be used (nothing "
    f"graded); {EXIT_UNPLACED} some files could not be placed to a student and problem (the rest "
    f"is graded; report.txt lists each file and why; --accept-unplaced gives 0); {EXIT_NOTHING} "
    f"no notebook could be placed at all (nothing graded); {EXIT_CLUSTER} the --cluster could not "
    "be reached (nothing written), or was lost or refused the work (what was graded is kept: "
    f"run again to finish); {EXIT_OUTPUTS} graded and reported, but some student's feedback "
    "pages or zip could not be written (report.txt names each and why); 130 interrupted."
)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, got {text}")
    return value


def _cluster(text: str) -> ClusterSpec:
    try:
        return parse_cluster(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix(f"--cluster {text!r}: ")) from exc


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="roofline-grade",
        description=(
            "Autograde the course's problems with nbgrader, in parallel, with hidden tests judged "
            "outside the students' kernels. Writes grades.csv, a feedback page per student and a "
            "report of every submission that had a problem."
        ),
        epilog=EXIT_STATUSES,
    )
    p.add_argument(
        "submissions",
        type=Path,
        help=(
            "folder or .zip: nbgrader's <student_id>/<problemN>/<problemN>.ipynb, a Canvas or "
            "Moodle download, a flat zip of <student>_<problemN>.ipynb, or a folder of such zips"
        ),
    )
    p.add_argument("--out", type=Path, help="grading workspace (default: grading/ in the course)")
    p.add_argument(
        "--jobs",
        type=_positive,
        default=os.cpu_count() or 1,
        help="worker processes (default: all cores)",
    )
    p.add_argument(
        "--cluster",
        type=_cluster,
        metavar="ADDRESS",
        help=(
            "grade on a Dask cluster: 'local' (--jobs worker processes), 'local:N', or a "
            "scheduler's address tcp://HOST:PORT (workers need the course's Python environment "
            "and bubblewrap; pip install '.[cluster]')"
        ),
    )
    p.add_argument(
        "--timeout",
        type=_positive,
        default=DEFAULT_CELL_TIMEOUT_S,
        help=f"seconds a cell may run (default {DEFAULT_CELL_TIMEOUT_S})",
    )
    p.add_argument(
        "--notebook-timeout",
        type=_positive,
        default=DEFAULT_NOTEBOOK_TIMEOUT_S,
        help=f"seconds a whole notebook may run (default {DEFAULT_NOTEBOOK_TIMEOUT_S})",
    )
    p.add_argument(
        "--no-sandbox",
        action="store_true",
        help=(
            "run students' kernels WITHOUT the bubblewrap sandbox (where it cannot run: macOS, "
            "no user namespaces); their code can then read and change everything you can"
        ),
    )
    p.add_argument("--force", action="store_true", help="regrade everything, ignoring earlier runs")
    p.add_argument("--course", type=Path, help="course root (default: found from here)")
    p.add_argument(
        "--roster",
        type=Path,
        help=(
            "class roster CSV (columns: student id, LMS id, name, email; a Canvas gradebook export "
            "will do): maps LMS files to students; also writes canvas_grades.csv and "
            "moodle_grades.csv"
        ),
    )
    p.add_argument(
        "--problem",
        metavar="PROBLEM",
        help=(
            "every notebook of SUBMISSIONS is this problem (e.g. problem1): for an LMS download "
            "of one assignment whose notebooks are all Untitled.ipynb (in nbgrader's layout the "
            "folders name the problem)"
        ),
    )
    p.add_argument(
        "--lms-zero-for-missing",
        action="store_true",
        help=(
            "with --roster: write 0, not a blank, in canvas_grades.csv and moodle_grades.csv for a "
            "student with no submission (a blank leaves the LMS's missing or excused as it is)"
        ),
    )
    p.add_argument(
        "--accept-unplaced",
        action="store_true",
        help=(
            f"exit 0, not {EXIT_UNPLACED}, when some files could not be placed to a student and "
            "problem (they are still listed); superseded uploads never give 3"
        ),
    )
    p.add_argument(
        "--release-feedback",
        action="store_true",
        help=(
            "also put each submission's feedback page in nbgrader's exchange, where the student's "
            "Fetch Feedback (JupyterLab's Assignments tab) finds it"
        ),
    )
    p.add_argument(
        "--exchange",
        type=Path,
        help=(
            "nbgrader's exchange for --release-feedback (default: $ROOFLINE_EXCHANGE, else "
            "<grading workspace>/exchange, as in nbgrader_config.py)"
        ),
    )
    p.add_argument(
        "--manual-sheet",
        type=Path,
        metavar="FILE",
        help=(
            "also write a CSV for grading the written answers by hand in a spreadsheet: one row "
            "per student and part, with the answer, the model answer, the rubric, and score and "
            "comment to fill in"
        ),
    )
    p.add_argument(
        "--manual-scores",
        type=Path,
        metavar="FILE",
        help=(
            "a filled-in --manual-sheet: its scores and comments go into the gradebook before "
            "grades.csv, feedback and report are written; every row is checked first, and one bad "
            "row applies nothing (exit status 2)"
        ),
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def _terminated(signum: int, frame: object) -> None:
    """SIGTERM and SIGHUP end the run as Ctrl-C does: workers stopped, scratch removed."""
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    logging.basicConfig(level=logging.ERROR, format="%(message)s")
    warnings.filterwarnings("ignore", message=".*not in session.*")  # nbgrader on SQLAlchemy 2
    ensure_scripts_on_path()
    from roofline_grader.run.runner import (  # nbgrader is imported here, after parsing
        Options,
        grade_submissions,
    )

    try:
        course = Course(args.course.resolve()) if args.course else Course.find()
    except FileNotFoundError as exc:
        print(f"roofline-grade: {exc}", file=sys.stderr)
        return 2
    if args.lms_zero_for_missing and not args.roster:
        print("roofline-grade: --lms-zero-for-missing only applies with --roster", file=sys.stderr)
        return 2
    if args.exchange and not args.release_feedback:
        print("roofline-grade: --exchange only applies with --release-feedback", file=sys.stderr)
        return 2
    exchange = (args.exchange or course.exchange).resolve() if args.release_feedback else None
    if exchange is not None:
        try:
            check_exchange(exchange)  # before grading, not after
            secure_feedback_folder(exchange, COURSE_ID, trusted_owners())
        except ExchangeUnavailableError as exc:
            print(f"roofline-grade: {exc}", file=sys.stderr)
            return 2
    options = Options(
        submissions=args.submissions,
        out=args.out or course.default_workspace,
        jobs=args.jobs,
        cell_timeout_s=args.timeout,
        notebook_timeout_s=args.notebook_timeout,
        sandbox="off" if args.no_sandbox else "on",
        force=args.force,
        progress=not args.quiet,
        lms_zero_for_missing=args.lms_zero_for_missing,
        exchange=exchange,
        manual_sheet=args.manual_sheet,
        manual_scores=args.manual_scores,
        roster=args.roster,
        problem=args.problem,
        cluster=args.cluster,
    )
    if args.no_sandbox:
        print(
            "roofline-grade: WARNING: grading WITHOUT a sandbox (--no-sandbox): a submission's "
            "code runs with all your rights, and can read, change or delete your files",
            file=sys.stderr,
        )
    signal.signal(signal.SIGTERM, _terminated)
    signal.signal(signal.SIGHUP, _terminated)
    try:
        report = grade_submissions(course, options)
    except NothingToGradeError as exc:
        print(f"roofline-grade: {exc}", file=sys.stderr)
        return EXIT_NOTHING
    except RosterError as exc:
        print(f"roofline-grade: {exc}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:
        if args.cluster is None or exc.name not in ("dask", "distributed"):
            raise
        print(
            f"roofline-grade: --cluster needs Dask's distributed ({exc}): pip install "
            "'.[cluster]' in the course's folder",
            file=sys.stderr,
        )
        return 2
    except ClusterError as exc:
        print(f"roofline-grade: {exc}", file=sys.stderr)
        return EXIT_CLUSTER
    except (IntakeError, SandboxUnavailableError, ManualSheetError, RubricError) as exc:
        print(f"roofline-grade: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            "\nroofline-grade: interrupted; run the same command again to finish", file=sys.stderr
        )
        return 130
    print(report.text(), end="")
    if report.output_failures:
        print(
            f"roofline-grade: {len(report.output_failures)} output(s) could not be written "
            f"(listed in {report.workspace / 'report.txt'}); every grade is in grades.csv",
            file=sys.stderr,
        )
        return EXIT_OUTPUTS
    needing = report.unplaced_needing_you()
    if needing and not args.accept_unplaced:
        print(unplaced_message(needing, report.workspace / "report.txt"), file=sys.stderr)
        return EXIT_UNPLACED
    return 0


def unplaced_message(needing: Sequence[Unplaced], report_txt: Path) -> str:
    """Why the run exits 3: how many files of each reason, and what would place each kind."""
    by_why = Counter(u.why for u in needing)
    reasons = "; ".join(f"{n} {why.words} ({why.advice})" for why, n in by_why.most_common())
    return (
        f"roofline-grade: {len(needing)} file(s) could not be placed to a student and problem "
        f"and were not graded (listed above and in {report_txt}): {reasons}. Once you have looked "
        "at them, --accept-unplaced (make grade ... ACCEPT_UNPLACED=1) exits 0."
    )


if __name__ == "__main__":
    raise SystemExit(main())
