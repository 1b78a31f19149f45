"""One grading run, from a folder or zip of submissions to grades, feedback and a problem report.

1. Intake: find every student × assignment (:mod:`~roofline_grader.intake.discover`).
2. Template: record the assignments in a template gradebook, once per version of solutions/.
3. Resume: skip submissions the journal says are already graded with this grader and this input.
4. Grade the rest in parallel worker processes, each in its own scratch course
   (:mod:`~roofline_grader.run.pool`, :mod:`~roofline_grader.run.worker`), the longest expected first
   (:mod:`~roofline_grader.run.schedule`); with ``--cluster``, on the workers of a Dask cluster
   instead (:mod:`~roofline_grader.run.cluster`), reached before anything is written.
5. Store each result's notebooks as it arrives in nbgrader's ``submitted/`` and ``autograded/``
   folders, and merge the results into the master gradebook in batches, one transaction each,
   then into the journal (so that a killed run, rerun, loses nothing and grades nothing twice).
6. Write ``grades.csv``, the feedback pages (:mod:`~roofline_grader.outputs.feedback`) and a zip of them
   per student, release them to nbgrader's exchange if asked (:mod:`~roofline_grader.outputs.exchange`),
   and write the report of problems.

The workspace is ordinary nbgrader territory: after the run, an instructor can open the formgrader
on it (``make formgrader``, :mod:`~roofline_grader.handgrading.formgrader`) to grade the written answers by
hand, and rerunning ``roofline-grade`` on the same input only rewrites the grades, feedback and
report, now with the manual scores. The spreadsheet route (:mod:`~roofline_grader.handgrading.manual`) is part
of a run: ``--manual-scores`` is checked right after intake (a bad sheet stops the run before
anything is graded or written) and applied before step 6; ``--manual-sheet`` is written after it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from roofline_grader.course import Course
from roofline_grader.course.cells import ReleaseIndex
from roofline_grader.course.config import DEFAULT_CELL_TIMEOUT_S, DEFAULT_NOTEBOOK_TIMEOUT_S
from roofline_grader.course.rubric import HandPart, hand_parts
from roofline_grader.handgrading.manual import HandScore, apply_scores, read_scores, write_sheet
from roofline_grader.intake.discover import Intake, Task, discover
from roofline_grader.intake.roster import Roster, read_roster
from roofline_grader.kernel.sandbox import scratch_root, sweep_stale_scratch
from roofline_grader.outputs.classreport import scores_from_table, summarize, write_html
from roofline_grader.outputs.exchange import release_feedback, write_zips
from roofline_grader.outputs.exports import write_exports
from roofline_grader.outputs.feedback import OutputFailure, write_feedback
from roofline_grader.outputs.gradebook import (
    awaiting_by_hand,
    build_template,
    gradebook_scores,
    merge_all,
    open_master,
    solutions_fingerprint,
)
from roofline_grader.outputs.report import Report, grade_parts, grade_table, write_csv
from roofline_grader.outputs.standing import graded_problems, standings
from roofline_grader.outputs.tally import Tally
from roofline_grader.results import Status, SubmissionResult
from roofline_grader.run.engine import Engine, Job
from roofline_grader.run.journal import Journal, grader_fingerprint, grader_key, grader_packages
from roofline_grader.run.pool import ProcessPoolEngine
from roofline_grader.run.progress import Progress
from roofline_grader.run.schedule import longest_first, median_seconds
from roofline_grader.run.worker import Settings, missing_result

if TYPE_CHECKING:
    from nbgrader.api import Gradebook

    from roofline_grader.run.cluster import ClusterSpec


@dataclass(frozen=True)
class Options:
    """What the instructor asked for (see ``roofline-grade --help``)."""

    submissions: Path
    out: Path
    jobs: int = os.cpu_count() or 1
    cell_timeout_s: int = DEFAULT_CELL_TIMEOUT_S
    notebook_timeout_s: int = DEFAULT_NOTEBOOK_TIMEOUT_S
    sandbox: str = "on"
    force: bool = False
    progress: bool = True
    exchange: Path | None = None
    """nbgrader's exchange to release feedback to (Fetch Feedback); None: release nothing."""
    manual_sheet: Path | None = None
    """Where to write the sheet for grading by hand (roofline_grader.handgrading.manual); None: no sheet."""
    manual_scores: Path | None = None
    """A filled-in sheet whose hand scores go into the gradebook first; None: none."""
    roster: Path | None = None
    """The class roster (roofline_grader.intake.roster): maps LMS downloads to students; None: none."""
    problem: str | None = None
    """Every notebook of the submissions is this problem (an LMS download of one assignment)."""
    lms_zero_for_missing: bool = False
    """Write 0, not a blank, in the LMS files for a roster student with no submission."""
    cluster: ClusterSpec | None = None
    """Grade on a Dask cluster (roofline_grader.run.cluster.parse_cluster of 'local', 'local:N' or
    'tcp://HOST:PORT'); None: this machine's process pool, and Dask is not imported."""


@dataclass(frozen=True)
class Workspace:
    """The grading workspace: nbgrader's folders and gradebook, and the outputs of a run."""

    root: Path

    @property
    def gradebook(self) -> Path:
        return self.root / "gradebook.db"

    @property
    def submitted(self) -> Path:
        return self.root / "submitted"

    @property
    def autograded(self) -> Path:
        return self.root / "autograded"

    @property
    def feedback(self) -> Path:
        return self.root / "feedback"

    @property
    def feedback_zips(self) -> Path:
        return self.root / "feedback-zips"

    @property
    def grades_csv(self) -> Path:
        return self.root / "grades.csv"

    @property
    def report_txt(self) -> Path:
        return self.root / "report.txt"

    @property
    def state(self) -> Path:
        return self.root / ".roofline"


def _course_files(course: Course) -> list[Path]:
    return [*grader_packages(), course.solutions]


def open_engine(options: Options) -> Engine:
    """The engine ``options`` ask for: the Dask cluster of ``--cluster`` (reached now, so that a
    cluster that cannot be reached stops the run before anything is written: ClusterError), or
    this machine's process pool of ``--jobs`` workers."""
    if options.cluster is None:
        return ProcessPoolEngine(options.jobs)
    from roofline_grader.run.cluster import connect

    return connect(options.cluster, options.jobs)


def grade_submissions(course: Course, options: Options, engine: Engine | None = None) -> Report:
    """Run the whole pipeline; returns the report (already written to the workspace).

    ``engine`` grades the submissions (:mod:`~roofline_grader.run.engine`); by default the one
    :func:`open_engine` opens for ``options``, closed at the end. With a cluster, ClusterError
    when it is lost or refuses the work during the run (what was graded stays).
    """
    if engine is not None:
        return _grade(course, options, engine)
    opened = open_engine(options)
    try:
        return _grade(course, options, opened)
    finally:
        opened.close()


@dataclass(frozen=True)
class Plan:
    """What a run will do, decided before anything is graded or written (the run's first stage).

    Attributes:
        intake: the students, their tasks and the files not graded.
        roster: the class roster, if one was given.
        template_db: the template gradebook (one per version of solutions/).
        index: the release's grade cells per assignment.
        hand: the parts graded by hand, when a manual sheet is read or written.
        hand_scores: a filled-in sheet's scores, checked against the intake, or None.
        journal: the results of earlier runs with this grader and these settings.
        done: the tasks the journal already has a result for (empty with ``--force``).
        pending: the tasks to grade now, the longest expected first.
    """

    intake: Intake
    roster: Roster | None
    template_db: Path
    index: ReleaseIndex
    hand: dict[str, HandPart]
    hand_scores: list[HandScore] | None
    journal: Journal
    done: dict[str, SubmissionResult]
    pending: list[Task]


def plan_run(course: Course, options: Options, ws: Workspace) -> Plan:
    """Intake, roster, template, hand scores, journal and order: every check that can stop a run
    happens here, before anything is graded or written."""
    roster = read_roster(options.roster) if options.roster else None
    intake = discover(
        options.submissions.resolve(),
        course.assignments,
        ws.state / "input",
        roster=roster,
        problem=options.problem,
    )
    template_db, release = build_template(course, ws.state / "template")
    index = ReleaseIndex.read(release, course.assignments)
    hand = hand_parts(course) if options.manual_sheet or options.manual_scores else {}
    hand_scores = None
    if options.manual_scores:
        no_notebook = frozenset((t.student, t.assignment) for t in intake.tasks if not t.notebook)
        hand_scores = read_scores(options.manual_scores, intake.students, hand, no_notebook)
    settings_words = [
        f"cell_timeout={options.cell_timeout_s}",
        f"notebook_timeout={options.notebook_timeout_s}",
        f"sandbox={options.sandbox}",
        solutions_fingerprint(course),
    ]
    journal = Journal(ws.state / "results", grader_key(settings_words, _course_files(course)[:2]))
    done: dict[str, SubmissionResult] = {}
    pending: list[Task] = []
    for task in intake.tasks:
        record = None if options.force else journal.get(task)
        if record is None:
            pending.append(task)
        else:
            done[task.key] = record
    pending = longest_first(pending, median_seconds(journal.timings()), course.assignments)
    return Plan(intake, roster, template_db, index, hand, hand_scores, journal, done, pending)


def _grade(course: Course, options: Options, engine: Engine) -> Report:
    started = time.monotonic()
    ws = Workspace(options.out.resolve())
    ws.state.mkdir(parents=True, exist_ok=True)
    plan = plan_run(course, options, ws)
    engine.check_sandbox(options.sandbox)  # before anything is graded
    fresh_master = not ws.gradebook.exists()
    sweep_stale_scratch()  # what a run killed with SIGKILL left behind
    pid = os.getpid()
    scratch = Path(tempfile.mkdtemp(prefix=f"roofline-grade-{pid}-", dir=scratch_root()))
    kernels = Path(tempfile.mkdtemp(prefix=f"roofline-kernels-{pid}-run-", dir=scratch_root()))
    settings = Settings(
        template_db=str(plan.template_db),
        scratch=str(scratch),
        release_index=plan.index,
        cell_timeout_s=options.cell_timeout_s,
        notebook_timeout_s=options.notebook_timeout_s,
        sandbox=options.sandbox,
        hidden_paths=(str(ws.root), str(plan.intake.root), str(options.submissions.resolve())),
        kernel_root=str(kernels),
    )
    before = grader_key([], _course_files(course))
    gb = open_master(course, ws.gradebook, plan.template_db)
    try:
        if fresh_master:  # a deleted gradebook: the journal's results go back in
            merge_all(gb, list(plan.done.values()))
        job = Job(
            settings, plan.template_db, grader_fingerprint(), options.notebook_timeout_s + 120
        )
        progress = _progress(plan, gb) if options.progress else None
        done = _execute(plan, engine, job, gb, ws, progress)
        tampered = grader_key([], _course_files(course)) != before
        outputs = _write_outputs(plan, options, ws, gb, done)
        if progress:
            progress.finish(outputs.tally)
    finally:
        gb.close()
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.rmtree(kernels, ignore_errors=True)
        sweep_stale_scratch()  # the cgroups of workers that were killed
    return _write_report(plan, options, ws, engine, done, outputs, tampered, started)


MERGE_BATCH = 64
"""Results merged into the gradebook in one transaction, at most."""
MERGE_AFTER_S = 2.0
"""A result waits at most this long (until the next one arrives) before its batch is merged."""


def _progress(plan: Plan, gb: Gradebook) -> Progress:
    """The progress bar of a run, counting what earlier runs already graded."""
    already, scores = Tally(), gradebook_scores(gb)
    for record in plan.done.values():
        already = already.add(record, scores.awaiting(record.assignment, record.student))
    return Progress(len(plan.intake.tasks), already=already)


def _execute(
    plan: Plan,
    engine: Engine,
    job: Job,
    gb: Gradebook,
    ws: Workspace,
    progress: Progress | None,
) -> dict[str, SubmissionResult]:
    """Grade the plan's pending tasks on ``engine`` (the run's second stage); every task's result,
    the earlier runs' included.

    Each result's notebooks go into the workspace's folders as it arrives; results are merged
    into the gradebook in batches (:data:`MERGE_BATCH`, or what arrived within
    :data:`MERGE_AFTER_S`), one transaction each, and only then written to the journal. So a run
    killed at any point (even SIGKILL) has journaled only merged results: a rerun grades again
    exactly those whose merge was lost, and merging one again changes nothing. A task with no
    notebook (a roster student who handed nothing in) is recorded without the engine.
    """
    done = dict(plan.done)
    scratch = Path(job.settings.scratch)
    unmerged: list[SubmissionResult] = []
    oldest = 0.0

    def merge_unmerged() -> None:
        if not unmerged:
            return
        merge_all(gb, unmerged)
        for result in unmerged:
            plan.journal.put(result)
            if progress:
                waiting = (
                    []
                    if result.status is Status.MISSING  # nothing of it awaits a hand
                    else awaiting_by_hand(gb, result.assignment, result.student)
                )
                progress.advance(result, waiting)
        unmerged.clear()

    def on_result(result: SubmissionResult) -> None:
        nonlocal oldest
        _store_files(ws, result)
        done[result.key] = result
        shutil.rmtree(scratch / result.key, ignore_errors=True)
        (scratch / f"{result.key}.started").unlink(missing_ok=True)
        if not unmerged:
            oldest = time.monotonic()
        unmerged.append(result)
        if len(unmerged) >= MERGE_BATCH or time.monotonic() - oldest >= MERGE_AFTER_S:
            merge_unmerged()

    if progress:
        progress.start()
    try:
        engine.run([t for t in plan.pending if t.notebook is not None], job, on_result)
        for task in plan.pending:  # nothing to run: recorded here, no worker, no kernel
            if task.notebook is None:
                on_result(missing_result(task, job.settings))
    finally:  # what arrived before an interruption (Ctrl-C, a lost cluster) is kept
        merge_unmerged()
    return done


@dataclass(frozen=True)
class Outputs:
    """What the run's third stage wrote, for the report."""

    header: list[str]
    rows: list[list[Any]]
    pages: Any
    zips: list[Path]
    released: Any
    tally: Tally
    points: dict[tuple[str, str], float]
    hand_notes: list[str]
    intake_notes: list[str]
    graded: frozenset[str] = frozenset()
    """The problems graded so far (roofline_grader.outputs.standing.graded_problems)."""
    standing: dict[str, Any] = field(default_factory=dict)
    """For report.json: the problems not graded yet, the roster rows left out, the LMS files'
    blank cells."""
    failures: tuple[OutputFailure, ...] = ()
    """Outputs that could not be written for a student (the rest were)."""


def _write_outputs(
    plan: Plan, options: Options, ws: Workspace, gb: Gradebook, done: dict[str, SubmissionResult]
) -> Outputs:
    """Hand scores, grades.csv, the LMS files, feedback pages and zips, the exchange, the manual
    sheet (the run's third stage, after every result is merged)."""
    intake = plan.intake
    routine = Counter(u.why.words for u in intake.unplaced if u.why.routine)
    said = ", ".join(f"{n} {why}" for why, n in routine.items())
    intake_notes = [
        f"Input: {intake.layout} layout; {len(intake.unplaced)} file(s) not graded"
        + (f" (routine: {said})." if routine else ".")
    ]
    hand_notes: list[str] = []
    if options.manual_scores and plan.hand_scores is not None:
        hand_notes.append(apply_scores(gb, options.manual_scores, plan.hand_scores).words())
    by_task = {(t.student, t.assignment): done[t.key] for t in intake.tasks}
    graded_so_far = graded_problems(gb, by_task.values())
    scores = gradebook_scores(gb)  # once: every output below reads it
    standing = standings(scores, intake.students, plan.index, by_task, graded_so_far)
    header, rows = grade_table(standing, intake.students, plan.index)
    write_csv(ws.grades_csv, header, rows)
    not_yet = [a for a in plan.index.assignments if a not in graded_so_far]
    if not_yet:
        intake_notes.append(
            f"Not graded yet (no submission of them in this workspace; in no total or maximum): "
            f"{', '.join(not_yet)}."
        )
    if plan.roster is not None:
        if plan.roster.left_out:
            intake_notes.append(
                "Left out of grading, as the roster says (in no grade, share or LMS file): "
                + "; ".join(row.words() for row in plan.roster.left_out)
            )
        graded = list(dict.fromkeys(t.assignment for t in intake.tasks))
        exported = write_exports(
            ws.root, plan.roster, standing, plan.index, graded, options.lms_zero_for_missing
        )
        intake_notes += exported.words()
    pages = write_feedback(ws.feedback, scores, intake.students, plan.index, done, standing)
    if options.manual_sheet:
        sheet = write_sheet(options.manual_sheet, scores, intake.students, plan.hand, ws.autograded)
        hand_notes.append(sheet.words())
    zips, zip_failures = write_zips(pages, ws.feedback_zips)
    released = release_feedback(pages, options.exchange) if options.exchange else None
    tally = Tally()
    points: dict[tuple[str, str], float] = {}
    for task in intake.tasks:
        tally = tally.add(done[task.key], scores.awaiting(task.assignment, task.student))
        of_task = scores.of(task.assignment, task.student).values()
        points[(task.student, task.assignment)] = sum(g.get("score") or 0.0 for g in of_task)
    return Outputs(
        header,
        rows,
        pages,
        list(zips),
        released,
        tally,
        points,
        hand_notes,
        intake_notes,
        graded_so_far,
        {
            "not_graded_yet": not_yet,
            "left_out": [r.words() for r in plan.roster.left_out] if plan.roster else [],
            "lms_blank": [
                {"student": b.student, "assignment": b.assignment, "why": b.state.value}
                for b in (exported.blanks if plan.roster is not None else ())
            ],
        },
        (*pages.failures, *zip_failures),
    )


def _write_report(
    plan: Plan,
    options: Options,
    ws: Workspace,
    engine: Engine,
    done: dict[str, SubmissionResult],
    outputs: Outputs,
    tampered: bool,
    started: float,
) -> Report:
    """report.html (what the class got wrong), report.txt and report.json."""
    intake = plan.intake
    results = [done[t.key] for t in intake.tasks]
    class_summary = summarize(
        results,
        intake.students,
        [part for part in grade_parts(plan.index) if part[0] in outputs.graded],
        scores_from_table(outputs.header, outputs.rows),
    )
    write_html(ws.root / "report.html", class_summary, dict(outputs.pages.course_pages))
    released = outputs.released
    report = Report(
        workspace=ws.root,
        students=intake.students,
        results=results,
        graded_now=len(plan.pending),
        seconds=time.monotonic() - started,
        jobs=engine.workers,
        sandbox=engine.sandbox_note(),
        cluster_notes=engine.notes(),
        cluster=engine.as_json(),
        feedback_pages=len(outputs.pages.course_pages),
        feedback_notes=[
            f"  per student: index.html (the whole course) and <problem>/<problem>.html (one "
            f"problem: {len(outputs.pages.problem_pages)} in all)",
            f"  for an LMS, a zip per student: {ws.feedback_zips} ({len(outputs.zips)})",
            *(released.lines() if released else []),
        ],
        feedback_release=released.as_json() if released else None,
        tally=outputs.tally,
        points=outputs.points,
        tampered=tampered,
        class_summary=class_summary,
        hand_notes=outputs.hand_notes,
        intake_notes=outputs.intake_notes,
        unplaced=intake.unplaced,
        standing=outputs.standing,
        output_failures=outputs.failures,
    )
    ws.report_txt.write_text(report.text(), encoding="utf-8")
    report.write_json(ws.root / "report.json")
    return report


def _store_files(ws: Workspace, result: SubmissionResult) -> None:
    """nbgrader's layout in the workspace: the submitted and the autograded notebook."""
    student, assignment = result.student, result.assignment
    if result.notebook:
        folder = ws.submitted / student / assignment
        folder.mkdir(parents=True, exist_ok=True)
        source, target = Path(result.notebook), folder / f"{assignment}.ipynb"
        if not (target.exists() and target.samefile(source)):  # graded in place (nbgrader collect)
            shutil.copyfile(source, target)
            for name, text in (
                ("timestamp.txt", result.timestamp),
                ("submission_secret.txt", result.secret),
            ):
                if text:  # as nbgrader submit writes them: the secret is hashed as is
                    (folder / name).write_text(text)
    graded = ws.autograded / student / assignment
    shutil.rmtree(graded, ignore_errors=True)
    if result.autograded and Path(result.autograded).is_file():
        graded.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(result.autograded, graded / f"{assignment}.ipynb")
