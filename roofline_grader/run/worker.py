"""Grade one submission in a scratch course of its own, with nbgrader.

A scratch course holds only this submission and a copy of the template gradebook, so workers never
share files or a database. The worker reads the notebook (a file that is too big, not JSON or not a
notebook is reported and scores zero), puts back deleted grade cells, runs nbgrader's Autograde (with
the sealed executor) and returns a typed result (:class:`~roofline_grader.results.SubmissionResult`):
every grade, the verdict on every part, and the problems met along the way. The parent merges
results into the master gradebook.
"""

from __future__ import annotations

import json
import logging
import shutil
import time
import traceback
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import nbformat
from nbgrader.converters import Autograde
from nbgrader.coursedir import CourseDirectory
from nbgrader.utils import parse_utc
from traitlets.config import Config

from roofline_grader.course.cells import CellInfo, ReleaseIndex
from roofline_grader.course.config import COURSE_ID, grading_config
from roofline_grader.intake.discover import Task
from roofline_grader.intake.integrity import (
    describe_changes,
    repair_cells,
    restore_deleted_grade_cells,
    unique_cell_ids,
)
from roofline_grader.kernel.execute import REPORT_SUFFIX, ExecutionReport
from roofline_grader.outputs.gradebook import read_scores, sqlite_url
from roofline_grader.results import (
    NO_NOTEBOOK,
    PartResult,
    ProblemKind,
    Status,
    SubmissionProblem,
    SubmissionResult,
)
from roofline_lib.selfcheck.language import notebook_language

SCRATCH_STUDENT = "student"
"""The student id inside a scratch course (the real id may hold characters nbgrader globs on)."""
MAX_NOTEBOOK_CELLS = 2_000
"""The most cells a graded notebook may have (each problem's has a few dozen): every cell costs
time outside the kernel (repair, nbgrader's preprocessors, about half a millisecond each), so a
notebook of 50,000 cells would spend half a minute before its first cell runs."""
MAX_NOTEBOOK_BYTES = 100 * 2**20
LOG = logging.getLogger("roofline_grader.run.worker")
LOG.propagate = False


@dataclass(frozen=True)
class Settings:
    """What every worker needs, the same for all tasks of a run."""

    template_db: str
    scratch: str
    release_index: ReleaseIndex
    cell_timeout_s: int
    notebook_timeout_s: int
    sandbox: str
    hidden_paths: tuple[str, ...]
    kernel_root: str = ""
    seed: str = ""


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def _base_result(
    task: Task, status: Status, problems: Iterable[SubmissionProblem] = ()
) -> SubmissionResult:
    """The result of ``task`` before anything was graded: what intake noticed, then ``problems``."""
    return SubmissionResult(
        key=task.key,
        student=task.student,
        assignment=task.assignment,
        fingerprint=task.fingerprint,
        status=status,
        timestamp=task.timestamp,
        secret=task.secret,
        notebook=task.notebook,
        problems=(*task.problems, *problems),
    )


def failed_result(
    task: Task, settings: Settings, kind: ProblemKind, detail: str
) -> SubmissionResult:
    """The result of a task the grader could not grade: every part at zero, with the reason."""
    result = _base_result(task, Status.ERROR, [SubmissionProblem(kind, detail)])
    return replace(result, parts=_zero_parts(settings.release_index.cells(task.assignment)))


def missing_result(task: Task, settings: Settings) -> SubmissionResult:
    """The result of a task with no notebook: missing, every part at zero, as nbgrader scores a
    missing notebook. Nothing runs for it, so the run records it without a worker."""
    problem = SubmissionProblem(
        ProblemKind.MISSING_NOTEBOOK, NO_NOTEBOOK.format(assignment=task.assignment)
    )
    result = _base_result(task, Status.MISSING, [problem])
    return replace(result, parts=_zero_parts(settings.release_index.cells(task.assignment)))


def started_marker(task: Task, settings: Settings) -> Path:
    """The file a worker creates when it begins a task (so a crash can be traced to it)."""
    return Path(settings.scratch) / f"{task.key}.started"


def grade(task: Task, settings: Settings) -> SubmissionResult:
    """Grade one task; never raises (a failure becomes the result's status and problems)."""
    if task.notebook is None:
        return missing_result(task, settings)
    started, began = time.monotonic(), time.time()
    started_marker(task, settings).touch()
    course = Path(settings.scratch) / task.key
    shutil.rmtree(course, ignore_errors=True)
    result = _base_result(task, Status.GRADED)
    try:
        nb, result = _read(task)
        if nb is not None:
            result = _repair(settings, nb, result)
            result = _prepare_course(task, settings, nb, course, result)
            _run_nbgrader(_nbgrader_config(task, settings, course, began))
            result = _collect(task, course, result)
    except Exception as exc:  # the grader's own failure: report it, never lose the task
        problem = SubmissionProblem(ProblemKind.GRADER_ERROR, f"{type(exc).__name__}: {exc}")
        result = replace(
            result,
            status=Status.ERROR,
            problems=(*result.problems, problem),
            traceback=traceback.format_exc(),
        )
    if result.status is not Status.GRADED:
        result = replace(result, parts=_zero_parts(settings.release_index.cells(task.assignment)))
    return replace(result, seconds=round(time.monotonic() - started, 3))


def _read(task: Task) -> tuple[nbformat.NotebookNode | None, SubmissionResult]:
    """The submitted notebook (None if there is none to grade) and the result so far."""

    def fail(status: Status, kind: ProblemKind, detail: str) -> tuple[None, SubmissionResult]:
        return None, _base_result(task, status, [SubmissionProblem(kind, detail)])

    assert task.notebook is not None, "a missing notebook is missing_result's"
    path = Path(task.notebook)
    size = path.stat().st_size
    if size > MAX_NOTEBOOK_BYTES:
        return fail(
            Status.UNREADABLE,
            ProblemKind.TOO_LARGE,
            f"the notebook is {size / 2**20:.0f} MiB, over the {MAX_NOTEBOOK_BYTES // 2**20} MiB "
            "limit (clear its outputs)",
        )
    try:
        text = path.read_bytes().decode("utf-8")
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError) as exc:
        return fail(
            Status.UNREADABLE, ProblemKind.INVALID_JSON, f"the notebook is not valid JSON ({exc})"
        )
    cells = data.get("cells") if isinstance(data, dict) else None
    if isinstance(cells, list) and len(cells) > MAX_NOTEBOOK_CELLS:
        return fail(
            Status.UNREADABLE,
            ProblemKind.TOO_LARGE,
            f"the notebook has {len(cells):,} cells, over the limit of {MAX_NOTEBOOK_CELLS:,} "
            "(the problem's notebook has a few dozen: hand in that one)",
        )
    try:
        if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
            raise ValueError("it has no list of cells")
        nb = nbformat.reads(text, as_version=4, capture_validation_error={})
    except Exception as exc:
        return fail(
            Status.UNREADABLE,
            ProblemKind.NOT_A_NOTEBOOK,
            f"the file is JSON but not a notebook ({exc})",
        )
    problems = []
    if size > 5 * 2**20:
        problems.append(
            SubmissionProblem(
                ProblemKind.HUGE_OUTPUT,
                f"the notebook is {size / 2**20:.0f} MiB, mostly stored output (cleared)",
            )
        )
    result = _base_result(task, Status.GRADED, problems)
    return nb, replace(result, language=notebook_language(nb))


def _repair(
    settings: Settings, nb: nbformat.NotebookNode, result: SubmissionResult
) -> SubmissionResult:
    """Repair broken cells and put back deleted grade cells; the result notes what was found."""
    release = settings.release_index.cells(result.assignment)
    found = [*repair_cells(nb, release), *describe_changes(nb, release)]
    restore_deleted_grade_cells(nb, release)
    unique_cell_ids(nb)
    return replace(result, problems=(*result.problems, *found))


def _prepare_course(
    task: Task,
    settings: Settings,
    nb: nbformat.NotebookNode,
    course: Path,
    result: SubmissionResult,
) -> SubmissionResult:
    """The scratch course: the submission (outputs cleared), its timestamp, the template gradebook.

    An unreadable timestamp is left out, and the result says so.
    """
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    submitted = course / "submitted" / SCRATCH_STUDENT / task.assignment
    submitted.mkdir(parents=True)
    (course / "source" / task.assignment).mkdir(parents=True)
    nbformat.write(nb, str(submitted / f"{task.assignment}.ipynb"))
    if task.timestamp:
        try:
            parse_utc(task.timestamp)
        except (ValueError, OverflowError):
            unreadable = SubmissionProblem(ProblemKind.BAD_TIMESTAMP, "timestamp.txt is unreadable")
            result = replace(result, timestamp=None, problems=(*result.problems, unreadable))
        else:
            (submitted / "timestamp.txt").write_text(task.timestamp)
    shutil.copyfile(settings.template_db, course / "gradebook.db")
    return result


def _nbgrader_config(task: Task, settings: Settings, course: Path, started_at: float) -> Config:
    """nbgrader's configuration for one task; ``started_at`` (``time.time()``) is when grading it
    began: the time spent before the kernel counts against the notebook's budget."""
    c = grading_config(
        cell_timeout_s=settings.cell_timeout_s,
        notebook_timeout_s=settings.notebook_timeout_s,
        sandbox=settings.sandbox,
        hidden_paths=(*settings.hidden_paths, settings.scratch),
    )
    c.SealedExecute.seed = settings.seed
    c.SealedExecute.started_at = started_at
    c.SealedExecute.student_id = task.student
    c.SealedExecute.kernel_root = settings.kernel_root
    c.SealedExecute.prestart = True  # each worker keeps the next kernel booting
    c.CourseDirectory.root = str(course)
    c.CourseDirectory.course_id = COURSE_ID
    c.CourseDirectory.db_url = sqlite_url(course / "gradebook.db")
    c.CourseDirectory.student_id = SCRATCH_STUDENT
    c.CourseDirectory.assignment_id = task.assignment
    c.Autograde.create_student = True
    c.Autograde.force = True
    return c


def _run_nbgrader(c: Config) -> None:
    """nbgrader's Autograde on the scratch course; its warnings and errors are collected."""
    warnings.filterwarnings("ignore", module="nbgrader")
    warnings.filterwarnings("ignore", message=".*not in session.*")
    collect = _Collect()
    LOG.addHandler(collect)
    try:
        Autograde(coursedir=CourseDirectory(config=c), config=c, log=LOG).start()
    except Exception as exc:
        causes = [m.strip().splitlines()[-1] for m in collect.messages if "Traceback" in m]
        detail = causes[-1] if causes else str(exc)
        raise RuntimeError(f"nbgrader could not autograde the notebook: {detail}") from exc
    finally:
        LOG.removeHandler(collect)


def _collect(task: Task, course: Path, result: SubmissionResult) -> SubmissionResult:
    """Scores from the scratch gradebook, findings and events from the executor's report."""
    autograded = course / "autograded" / SCRATCH_STUDENT / task.assignment
    report_path = autograded / f"{task.assignment}{REPORT_SUFFIX}"
    report = ExecutionReport.read(report_path)
    scores, comments = read_scores(
        sqlite_url(course / "gradebook.db"), task.assignment, SCRATCH_STUDENT
    )
    parts = tuple(
        PartResult(gid, score.auto_score, score.max_score, report.verdicts.get(gid))
        for gid, score in scores.items()
    )
    return replace(
        result,
        problems=(
            *result.problems,
            *(e.problem() for e in report.events if e.kind is not ProblemKind.RESTARTED),
        ),
        parts=parts,
        comments=comments,
        events=report.events,
        sandbox=report.sandbox,
        autograded=str(autograded / f"{task.assignment}.ipynb"),
    )


def _zero_parts(release: Sequence[CellInfo]) -> tuple[PartResult, ...]:
    """Every grade cell at zero, as nbgrader scores a missing notebook."""
    return tuple(PartResult(c.grade_id, 0.0, c.max_points) for c in release if c.grade)
