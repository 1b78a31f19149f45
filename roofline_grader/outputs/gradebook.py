"""The gradebooks: a template for the workers, and the instructor's master gradebook.

Parallel workers never share a database. Each grades one submission in a scratch course whose
gradebook is a copy of the **template** (the assignments and their cells, recorded from solutions/
by nbgrader). The parent process alone writes the **master** gradebook of the workspace, merging
one result at a time in its own transaction: scores are set, never added, so merging a result twice
changes nothing, and a manual score already given by a grader is kept (nbgrader's rule: the
part is then flagged for review).
"""

from __future__ import annotations

import contextlib
import hashlib
import shutil
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nbgrader.api import (
    Assignment,
    BaseCell,
    Comment,
    Grade,
    Gradebook,
    MissingEntry,
    Student,
    SubmittedAssignment,
    SubmittedNotebook,
)
from nbgrader.utils import parse_utc

from roofline_grader.course import Course
from roofline_grader.course.config import COURSE_ID
from roofline_grader.course.release import generate
from roofline_grader.results import SubmissionResult


def sqlite_url(path: Path) -> str:
    return f"sqlite:///{path}"


def solutions_fingerprint(course: Course) -> str:
    """A hash of every file under solutions/: the assignments as the gradebook records them.

    The rubrics of the written answers (solutions/.rubrics.toml) are left out: they guide the
    person grading by hand, not the grader, so editing one regrades nothing."""
    from roofline_grader.course.rubric import RUBRICS_FILE

    digest = hashlib.sha256()
    for path in sorted(p for p in course.solutions.rglob("*") if p.is_file()):
        if ".ipynb_checkpoints" in path.parts or path == course.solutions / RUBRICS_FILE:
            continue
        digest.update(str(path.relative_to(course.solutions)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def build_template(course: Course, directory: Path) -> tuple[Path, Path]:
    """The template gradebook and its release, built in ``directory`` (reused when up to date).

    Returns (gradebook path, release directory).
    """
    key = solutions_fingerprint(course)[:16]
    db, release = directory / f"template-{key}.db", directory / f"release-{key}"
    if db.is_file() and release.is_dir():
        return db, release
    for stale in directory.glob("template-*.db"):
        stale.unlink()
    for stale in directory.glob("release-*"):
        shutil.rmtree(stale, ignore_errors=True)
    directory.mkdir(parents=True, exist_ok=True)
    partial = directory / f"partial-{key}.db"
    partial.unlink(missing_ok=True)
    stamp_schema_version(partial)
    generate(course, release, db_url=sqlite_url(partial))
    partial.replace(db)
    return db, release


def schema_version() -> str:
    """nbgrader's gradebook schema version: the head of its alembic migrations (read in this
    process, from the migrations nbgrader ships)."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory
    from nbgrader import dbutil

    config = Config()
    config.set_main_option("script_location", dbutil.ALEMBIC_DIR)
    head = ScriptDirectory.from_config(config).get_current_head()
    assert head is not None, f"nbgrader's migrations in {dbutil.ALEMBIC_DIR} have no head"
    return head


def stamp_schema_version(path: Path) -> None:
    """Start a new gradebook file stamped with its schema version, as nbgrader's ``Gradebook``
    stamps a new one, without the ``alembic heads`` command nbgrader runs for it (a second
    Python, a second or two, and FileNotFoundError where the venv's bin is not on PATH): the
    file then has a table, so nbgrader creates its own tables in it and keeps the stamp."""
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)")
        db.execute("INSERT INTO alembic_version (version_num) VALUES (?)", (schema_version(),))


def open_master(course: Course, path: Path, template: Path) -> Gradebook:
    """The workspace's gradebook, created from the template or brought up to date with solutions/."""
    stamp = path.with_suffix(".solutions")
    current = solutions_fingerprint(course)
    if not path.exists():  # copied whole or not at all: a run killed here leaves no half a file
        partial = path.with_name(path.name + ".partial")
        shutil.copyfile(template, partial)
        partial.replace(path)
    elif not stamp.is_file() or stamp.read_text().strip() != current:
        generate_into(course, path)
    stamp.write_text(current + "\n")
    return Gradebook(sqlite_url(path), course_id=COURSE_ID)


def generate_into(course: Course, path: Path) -> None:
    """Record the current assignments in an existing gradebook (release output discarded)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="roofline-release-") as tmp:
        generate(course, Path(tmp), db_url=sqlite_url(path))


@dataclass(frozen=True)
class CellScore:
    """A grade cell's score in a gradebook, in points.

    Attributes:
        auto_score: the automatic score; None for a part graded by hand.
        max_score: the points the cell is worth.
    """

    auto_score: float | None
    max_score: float


def read_scores(
    db_url: str, assignment: str, student: str
) -> tuple[dict[str, CellScore], dict[str, str | None]]:
    """One submission's scores and automatic comments, each by its cell's name."""
    grades: dict[str, CellScore] = {}
    comments: dict[str, str | None] = {}
    with Gradebook(db_url, course_id=COURSE_ID) as gb:
        submission = gb.find_submission(assignment, student)
        for notebook in submission.notebooks:
            for grade in notebook.grades:
                auto = grade.auto_score
                grades[str(grade.name)] = CellScore(
                    None if auto is None else float(auto), float(grade.max_score)
                )
            for comment in notebook.comments:
                text = comment.auto_comment
                comments[str(comment.name)] = None if text is None else str(text)
    return grades, comments


@contextmanager
def one_transaction(gb: Gradebook) -> Iterator[None]:
    """Every write to ``gb`` inside the block in one database transaction, committed when the
    block ends (rolled back if it raises). nbgrader's Gradebook commits after each change it
    makes; inside the block its commits only flush, so that merging a batch of results costs one
    commit (SQLite's journal and sync) rather than one a result."""
    commit = gb.db.commit
    gb.db.commit = gb.db.flush
    try:
        yield
    except BaseException:
        gb.db.commit = commit
        gb.db.rollback()
        raise
    gb.db.commit = commit
    gb.db.commit()


def merge_all(gb: Gradebook, results: Sequence[SubmissionResult]) -> None:
    """:func:`merge` each of ``results``, in one transaction (all of them or none).

    A missing notebook new to the gradebook is its student alone (no submission rows, as in
    nbgrader: a class of 10,000 with one notebook handed in writes one submission). A submission
    new to the gradebook is created whole with its scores (:func:`_create_all`:
    the rows nbgrader's ``add_submission`` creates, its grades and comments filled in at once,
    added together), which is most of a merge's cost when a class is graded for the first
    time; one the gradebook already has is updated by :func:`merge`. Either way the gradebook
    ends as merging each result in turn leaves it (tests/grading/test_unit_merge.py)."""
    with one_transaction(gb):
        existing = _existing_submissions(gb, results)
        new = [r for r in results if (r.assignment, r.student) not in existing]
        _create_students(gb, [r.student for r in new])
        _create_all(gb, [r for r in new if not r.is_missing])
        for result in results:
            if (result.assignment, result.student) in existing:
                merge(gb, result)


def _existing_submissions(
    gb: Gradebook, results: Sequence[SubmissionResult]
) -> set[tuple[str, str]]:
    """(assignment, student) of those of ``results`` whose submission the gradebook has."""
    students = {r.student for r in results}
    rows = (
        gb.db.query(Assignment.name, SubmittedAssignment.student_id)
        .join(Assignment, Assignment.id == SubmittedAssignment.assignment_id)
        .filter(SubmittedAssignment.student_id.in_(students))
    )
    return {(name, student) for name, student in rows}


def _create_students(gb: Gradebook, students: Sequence[str]) -> None:
    """The gradebook's rows of ``students`` that it does not have yet."""
    wanted = set(students)
    known = {sid for (sid,) in gb.db.query(Student.id).filter(Student.id.in_(wanted))}
    gb.db.add_all([Student(id=s) for s in dict.fromkeys(students) if s not in known])
    gb.db.flush()


def _create_all(gb: Gradebook, results: Sequence[SubmissionResult]) -> None:
    """Create the submissions of ``results`` (none of which the gradebook has), with their
    students where new, every notebook's grades and comments scored as :func:`merge` scores
    them; one flush for all."""
    if not results:
        return
    known = {
        sid
        for (sid,) in gb.db.query(Student.id).filter(Student.id.in_({r.student for r in results}))
    }
    assignments = {a.name: a for a in gb.db.query(Assignment)}
    objects: list[Any] = []
    for student in dict.fromkeys(r.student for r in results):
        if student not in known:
            objects.append(Student(id=student))
    for result in results:
        assignment = assignments.get(result.assignment)
        if assignment is None:
            raise MissingEntry(f"No such assignment: {result.assignment}")
        submission = SubmittedAssignment(assignment_id=assignment.id, student_id=result.student)
        if result.timestamp:
            with contextlib.suppress(ValueError):  # an unparsable timestamp.txt: no time
                submission.timestamp = parse_utc(result.timestamp)
        objects.append(submission)
        for notebook in assignment.notebooks:
            nb = SubmittedNotebook(notebook=notebook, assignment=submission)
            for cell in [*notebook.grade_cells, *notebook.task_cells]:
                auto = auto_score(result, cell.name)
                Grade(
                    cell_id=cell.id, notebook=nb, auto_score=auto, needs_manual_grade=auto is None
                )
            for cell in [*notebook.solution_cells, *notebook.task_cells]:
                Comment(cell_id=cell.id, notebook=nb, auto_comment=result.comments.get(cell.name))
    gb.db.add_all(objects)
    gb.db.flush()


def merge(gb: Gradebook, result: SubmissionResult) -> None:
    """Write one worker result into the master gradebook (idempotent). A missing notebook that
    the gradebook has no submission of is the student alone, as in nbgrader (a submission it has
    is scored zero: the notebook went missing since)."""
    student, assignment = result.student, result.assignment
    gb.update_or_create_student(student)
    if result.is_missing:
        try:
            gb.find_submission(assignment, student)
        except MissingEntry:
            gb.db.commit()
            return
    kwargs = {"timestamp": result.timestamp} if result.timestamp else {}
    try:
        submission = gb.update_or_create_submission(assignment, student, **kwargs)
    except ValueError:  # an unparsable timestamp.txt: keep the submission, drop the time
        submission = gb.update_or_create_submission(assignment, student)
    for grade, name in _with_cell_names(gb, Grade, submission.id):
        auto = auto_score(result, name)
        grade.auto_score = auto
        grade.needs_manual_grade = grade.manual_score is not None or auto is None
    for comment, name in _with_cell_names(gb, Comment, submission.id):
        comment.auto_comment = result.comments.get(name)
    gb.db.commit()


def auto_score(result: SubmissionResult, grade_id: str) -> float | None:
    """The automatic score a part gets from ``result``: its own (None for a part graded by
    hand), or 0 for a part the result does not have."""
    part = result.part(grade_id)
    return 0.0 if part is None else part.auto_score


def _with_cell_names(gb: Gradebook, table: type[Grade] | type[Comment], submission_id: str) -> Any:
    """``(row, cell name)`` of each grade or comment (``table``) of a submission, in one query
    (walking ``submission.notebooks[].grades[].name`` loads each notebook, grade and cell on its
    own: it was two thirds of a merge's time)."""
    return (
        gb.db.query(table, BaseCell.name)
        .join(BaseCell, table.cell_id == BaseCell.id)
        .join(SubmittedNotebook, table.notebook_id == SubmittedNotebook.id)
        .filter(SubmittedNotebook.assignment_id == submission_id)
    )


@dataclass(frozen=True)
class Scores:
    """Every score and comment of the master gradebook, read at once (:func:`gradebook_scores`):
    per submission, per grade cell, its score (manual over auto, None while pending), max_score,
    whether by hand, and the hand comment. The outputs of a run
    (standings, grades.csv, feedback pages, the report) read it instead of asking the gradebook
    again for each student and problem: a class of 10,000 costs two queries, not 100,000."""

    by_submission: Mapping[tuple[str, str], Mapping[str, Mapping[str, Any]]]

    def of(self, assignment: str, student: str) -> Mapping[str, Mapping[str, Any]]:
        """Per grade cell of ``student``'s ``assignment``: score, max_score, manual, comment."""
        return self.by_submission.get((assignment, student), {})

    def awaiting(self, assignment: str, student: str) -> list[str]:
        """The grade ids with neither an automatic nor a hand score yet."""
        scores = self.of(assignment, student)
        return [gid for gid, grade in scores.items() if "score" in grade and grade["score"] is None]


def gradebook_scores(gb: Gradebook, only: tuple[str, str] | None = None) -> Scores:
    """Every submission's scores and comments (``only``: the one submission (assignment,
    student)), in two queries (one per table)."""
    out: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}

    def joined(table: type[Grade] | type[Comment]) -> Any:
        query = (
            gb.db.query(table, BaseCell.name, Assignment.name, SubmittedAssignment.student_id)
            .join(BaseCell, table.cell_id == BaseCell.id)
            .join(SubmittedNotebook, table.notebook_id == SubmittedNotebook.id)
            .join(SubmittedAssignment, SubmittedNotebook.assignment_id == SubmittedAssignment.id)
            .join(Assignment, SubmittedAssignment.assignment_id == Assignment.id)
        )
        if only is not None:
            assignment, student = only
            query = query.filter(
                Assignment.name == assignment, SubmittedAssignment.student_id == student
            )
        return query

    for grade, cell, assignment, student in joined(Grade):
        score = grade.manual_score if grade.manual_score is not None else grade.auto_score
        out.setdefault((assignment, student), {})[cell] = {
            "score": score,
            "max_score": grade.max_score,
            "manual": grade.manual_score is not None,
        }
    for comment, cell, assignment, student in joined(Comment):
        if comment.manual_comment:
            scores = out.setdefault((assignment, student), {})
            scores.setdefault(cell, {})["comment"] = comment.manual_comment
    return Scores(out)


def awaiting_by_hand(gb: Gradebook, assignment: str, student: str) -> list[str]:
    """The grade ids of a submission with neither an automatic nor a hand score yet."""
    return gradebook_scores(gb, (assignment, student)).awaiting(assignment, student)
