"""``roofline-grade SUBMISSIONS [--out DIR] [--jobs N]``: autograde a folder or zip of submissions.

SUBMISSIONS is nbgrader's submitted layout, ``<student_id>/<problemN>/<problemN>.ipynb``, as a
folder or a .zip of one. DIR is the grading workspace (default: the course's git-ignored
``grading/``); it receives grades.csv, feedback/<student>.html, report.txt, and nbgrader's gradebook
and folders. The exit status is 0 when every submission was graded (bad submissions included: they
are graded and reported), 2 when SUBMISSIONS cannot be read.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

from .config import DEFAULT_CELL_TIMEOUT_S, DEFAULT_NOTEBOOK_TIMEOUT_S
from .course import Course
from .intake import IntakeError
from .release import ensure_scripts_on_path
from .sandbox import SandboxUnavailableError


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, got {text}")
    return value


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="roofline-grade",
        description=(
            "Autograde the course's problems with nbgrader, in parallel, with hidden tests judged "
            "outside the students' kernels. Writes grades.csv, a feedback page per student and a "
            "report of every submission that had a problem."
        ),
    )
    p.add_argument(
        "submissions", type=Path, help="folder or .zip: <student_id>/<problemN>/<problemN>.ipynb"
    )
    p.add_argument("--out", type=Path, help="grading workspace (default: grading/ in the course)")
    p.add_argument(
        "--jobs",
        type=_positive,
        default=os.cpu_count() or 1,
        help="worker processes (default: all cores)",
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
    from .runner import Options, grade_submissions  # nbgrader is imported here, after parsing

    try:
        course = Course(args.course.resolve()) if args.course else Course.find()
    except FileNotFoundError as exc:
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
    except (IntakeError, SandboxUnavailableError) as exc:
        print(f"roofline-grade: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            "\nroofline-grade: interrupted; run the same command again to finish", file=sys.stderr
        )
        return 130
    print(report.text(), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
