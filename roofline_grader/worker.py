"""Grade one submission in a scratch course of its own, with nbgrader.

A scratch course holds only this submission and a copy of the template gradebook, so workers never
share files or a database. The worker reads the notebook (a file that is too big, not JSON or not a
notebook is reported and scores zero), puts back deleted grade cells, runs nbgrader's Autograde (with
the sealed executor) and returns a plain result: every grade, the findings of every part, and the
problems met along the way. The parent merges results into the master gradebook.
"""

from __future__ import annotations

import json
import logging
import shutil
import time
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
from nbgrader.converters import Autograde
from nbgrader.coursedir import CourseDirectory
from nbgrader.utils import parse_utc
from traitlets.config import Config

from .config import COURSE_ID, grading_config
from .execute import REPORT_SUFFIX
from .gradebook import read_scores, sqlite_url
from .integrity import (
    CellInfo,
    describe_changes,
    repair_cells,
    restore_deleted_grade_cells,
    unique_cell_ids,
)

SCRATCH_STUDENT = "student"
"""The student id inside a scratch course (the real id may hold characters nbgrader globs on)."""
MAX_NOTEBOOK_BYTES = 100 * 2**20
LOG = logging.getLogger("roofline_grader.worker")
LOG.propagate = False


@dataclass(frozen=True)
class Task:
    """One student × assignment to grade.

    Attributes:
        key: unique name of the task, safe as a file name.
        student: the student id.
        assignment: e.g. 'problem1'.
        notebook: path of the submitted notebook, or None when none was found.
        fingerprint: sha256 of the notebook's bytes ('missing' without one).
        timestamp: the contents of nbgrader's timestamp.txt, if any.
        secret: the contents of nbgrader's submission_secret.txt, if any (written by ``nbgrader
            submit``; Fetch Feedback finds a feedback page by a hash of it).
        problems: what intake already noticed (a misnamed notebook, say).
    """

    key: str
    student: str
    assignment: str
    notebook: str | None
    fingerprint: str
    timestamp: str | None = None
    secret: str | None = None
    problems: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Settings:
    """What every worker needs, the same for all tasks of a run."""

    template_db: str
    scratch: str
    release_index: dict[str, list[CellInfo]]
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


def _base_result(task: Task) -> dict[str, Any]:
    return {
        "key": task.key,
        "student": task.student,
        "assignment": task.assignment,
        "fingerprint": task.fingerprint,
        "timestamp": task.timestamp,
        "secret": task.secret,
        "notebook": task.notebook,
        "status": "graded",
        "problems": [{"kind": k, "grade_id": "", "detail": d} for k, d in task.problems],
        "grades": {},
        "comments": {},
        "verdicts": {},
        "events": [],
        "sandbox": {},
        "autograded": None,
        "seconds": 0.0,
    }


def failed_result(task: Task, settings: Settings, kind: str, detail: str) -> dict[str, Any]:
    """The result of a task the grader could not grade: every part at zero, with the reason."""
    result = _base_result(task)
    result["status"] = "error"
    result["problems"].append({"kind": kind, "grade_id": "", "detail": detail})
    result["grades"] = _zero_grades(settings.release_index[task.assignment])
    return result


def started_marker(task: Task, settings: Settings) -> Path:
    """The file a worker creates when it begins a task (so a crash can be traced to it)."""
    return Path(settings.scratch) / f"{task.key}.started"


def grade(task: Task, settings: Settings) -> dict[str, Any]:
    """Grade one task; never raises (a failure becomes the result's status and problems)."""
    started = time.monotonic()
    started_marker(task, settings).touch()
    result = _base_result(task)
    course = Path(settings.scratch) / task.key
    shutil.rmtree(course, ignore_errors=True)
    try:
        nb = _read(task, settings, result)
        if nb is not None:
            _autograde(task, settings, nb, course, result)
    except Exception as exc:  # the grader's own failure: report it, never lose the task
        result["status"] = "error"
        result["problems"].append(
            {"kind": "grader-error", "grade_id": "", "detail": f"{type(exc).__name__}: {exc}"}
        )
        result["traceback"] = traceback.format_exc()
    if result["status"] != "graded":
        result["grades"] = _zero_grades(settings.release_index[task.assignment])
    result["seconds"] = round(time.monotonic() - started, 3)
    return result


def _read(task: Task, settings: Settings, result: dict[str, Any]) -> nbformat.NotebookNode | None:
    def fail(status: str, kind: str, detail: str) -> None:
        result["status"] = status
        result["problems"].append({"kind": kind, "grade_id": "", "detail": detail})

    if task.notebook is None:
        fail("missing", "missing-notebook", f"no notebook was submitted for {task.assignment}")
        return None
    path = Path(task.notebook)
    size = path.stat().st_size
    if size > MAX_NOTEBOOK_BYTES:
        fail(
            "unreadable",
            "too-large",
            f"the notebook is {size / 2**20:.0f} MiB, over the {MAX_NOTEBOOK_BYTES // 2**20} MiB "
            "limit (clear its outputs)",
        )
        return None
    try:
        text = path.read_bytes().decode("utf-8")
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError) as exc:
        fail("unreadable", "invalid-json", f"the notebook is not valid JSON ({exc})")
        return None
    try:
        if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
            raise ValueError("it has no list of cells")
        nb = nbformat.reads(text, as_version=4, capture_validation_error={})
    except Exception as exc:
        fail("unreadable", "not-a-notebook", f"the file is JSON but not a notebook ({exc})")
        return None
    if size > 5 * 2**20:
        result["problems"].append(
            {
                "kind": "huge-output",
                "grade_id": "",
                "detail": f"the notebook is {size / 2**20:.0f} MiB, mostly stored output (cleared)",
            }
        )
    return nb


def _autograde(
    task: Task, settings: Settings, nb: nbformat.NotebookNode, course: Path, result: dict[str, Any]
) -> None:
    release = settings.release_index[task.assignment]
    result["problems"].extend(repair_cells(nb, release))
    result["problems"].extend(describe_changes(nb, release))
    restore_deleted_grade_cells(nb, release)
    unique_cell_ids(nb)
    _prepare_course(task, settings, nb, course, result)
    _run_nbgrader(_nbgrader_config(task, settings, course))
    _collect(task, course, result)


def _prepare_course(
    task: Task, settings: Settings, nb: nbformat.NotebookNode, course: Path, result: dict[str, Any]
) -> None:
    """The scratch course: the submission (outputs cleared), its timestamp, the template gradebook."""
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
            result["timestamp"] = None
            result["problems"].append(
                {"kind": "bad-timestamp", "grade_id": "", "detail": "timestamp.txt is unreadable"}
            )
        else:
            (submitted / "timestamp.txt").write_text(task.timestamp)
    shutil.copyfile(settings.template_db, course / "gradebook.db")


def _nbgrader_config(task: Task, settings: Settings, course: Path) -> Config:
    c = grading_config(
        cell_timeout_s=settings.cell_timeout_s,
        notebook_timeout_s=settings.notebook_timeout_s,
        sandbox=settings.sandbox,
        hidden_paths=(*settings.hidden_paths, settings.scratch),
    )
    c.SealedExecute.seed = settings.seed
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


def _collect(task: Task, course: Path, result: dict[str, Any]) -> None:
    """Scores from the scratch gradebook, findings and events from the executor's report."""
    autograded = course / "autograded" / SCRATCH_STUDENT / task.assignment
    report_path = autograded / f"{task.assignment}{REPORT_SUFFIX}"
    report = json.loads(report_path.read_text()) if report_path.is_file() else {}
    result["verdicts"] = report.get("verdicts", {})
    result["events"] = report.get("events", [])
    result["sandbox"] = report.get("sandbox", {})
    for event in result["events"]:
        if event["kind"] != "restarted":
            result["problems"].append(
                {"kind": event["kind"], "grade_id": event["grade_id"], "detail": event["detail"]}
            )
    db_url = sqlite_url(course / "gradebook.db")
    result["grades"], result["comments"] = read_scores(db_url, task.assignment, SCRATCH_STUDENT)
    result["autograded"] = str(autograded / f"{task.assignment}.ipynb")


def _zero_grades(release: list[CellInfo]) -> dict[str, dict[str, Any]]:
    """Every grade cell at zero, as nbgrader scores a missing notebook."""
    return {
        c["grade_id"]: {"auto_score": 0.0, "max_score": float(c["points"] or 0)}
        for c in release
        if c["grade"]
    }
