"""Merging results into the master gradebook in batches leaves it exactly as merging them one at
a time does (roofline_grader.outputs.gradebook.merge_all against merge): every submission's scores,
hand-grading flags, automatic comments and time, and no row more or less, for new submissions
(created whole, in bulk) and for ones the gradebook already has (updated), hand scores kept.
No kernel: the results are a worker's, made up (tests/grading/fake_engine.py)."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from nbgrader.api import (
    Comment,
    Grade,
    Gradebook,
    SubmittedAssignment,
    SubmittedNotebook,
    get_alembic_version,
)

from roofline_grader.course import Course
from roofline_grader.course.cells import ReleaseIndex
from roofline_grader.course.config import COURSE_ID
from roofline_grader.intake.discover import Task
from roofline_grader.outputs.gradebook import (
    build_template,
    merge,
    merge_all,
    open_master,
    sqlite_url,
)
from roofline_grader.results import SubmissionResult
from roofline_grader.run.worker import Settings

from .fake_engine import fake_result
from .grading_cases import ROOT

pytestmark = pytest.mark.filterwarnings("ignore:.*not in session")  # nbgrader on SQLAlchemy 2

TIMESTAMPS = ("2026-11-30 23:59:01.123456 UTC", "not a time", None)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory, course: Course) -> tuple[Path, Path]:
    return build_template(course, tmp_path_factory.mktemp("merge") / "template")


def _results(course: Course, release: Path, students: int, shift: int) -> list[SubmissionResult]:
    """Every problem for some students: full, partial or no marks, some notebooks missing,
    automatic comments on answers, times valid, unparsable or absent."""
    index = ReleaseIndex.read(release, course.assignments)
    settings = Settings("", "", index, 1, 1, "off", ())
    results = []
    for s in range(students):
        for n, assignment in enumerate(course.assignments):
            key, student = f"s{s}-{assignment}", f"student{s}"
            notebook = None if (s + n + shift) % 7 == 0 else f"/x/{key}.ipynb"
            stamp = TIMESTAMPS[(s + n) % 3]
            task = Task(key, student, assignment, notebook, key, timestamp=stamp)
            result = fake_result(task, settings, fraction=((s + n + shift) % 5) / 4)
            answers = [c.grade_id for c in index.cells(assignment) if c.solution]
            comments = {gid: "No response." for gid in answers[:: 2 + shift % 2]}
            results.append(replace(result, comments=comments))
    return results


def _contents(gb: Gradebook) -> dict[tuple[str, str], Any]:
    """Everything a merge writes, by (assignment, student), and the number of rows it makes."""
    out: dict[Any, Any] = {}
    for submission in gb.db.query(SubmittedAssignment):
        grades = {
            g.name: (g.auto_score, g.manual_score, g.needs_manual_grade)
            for nb in submission.notebooks
            for g in nb.grades
        }
        comments = {c.name: c.auto_comment for nb in submission.notebooks for c in nb.comments}
        key = (submission.assignment.name, submission.student.id)
        out[key] = (submission.timestamp, grades, comments)
    out["rows"] = tuple(
        gb.db.query(table).count()
        for table in (SubmittedAssignment, SubmittedNotebook, Grade, Comment)
    )
    return out


@pytest.fixture
def gradebooks(
    course: Course, template: tuple[Path, Path], tmp_path: Path
) -> Iterator[tuple[Gradebook, Gradebook]]:
    """Two fresh master gradebooks, (one at a time, batched), closed after the test."""
    db, _ = template
    # open_master copies the template as a run does (a file already there, without the stamp
    # of the solutions it was made from, would be generated into again: seconds each)
    pair = [open_master(course, tmp_path / name, db) for name in ("one.db", "batched.db")]
    yield pair[0], pair[1]
    for gb in pair:
        gb.close()


def test_a_batch_of_new_submissions_is_merged_as_one_at_a_time_would(
    course: Course, template: tuple[Path, Path], gradebooks: tuple[Gradebook, Gradebook]
) -> None:
    results = _results(course, template[1], students=6, shift=0)
    one, batched = gradebooks
    for result in results:
        merge(one, result)
    for start in range(0, len(results), 7):  # batches across students and problems
        merge_all(batched, results[start : start + 7])
    assert _contents(batched) == _contents(one)
    handed_in = [r for r in results if not r.is_missing]
    assert 0 < len(handed_in) < len(results)
    assert _contents(one)["rows"][0] == len(handed_in), "a missing notebook is its student alone"


def test_merging_again_updates_in_place_and_keeps_hand_scores(
    course: Course, template: tuple[Path, Path], gradebooks: tuple[Gradebook, Gradebook]
) -> None:
    first = _results(course, template[1], students=4, shift=0)
    later = _results(course, template[1], students=5, shift=3)  # new scores, one new student
    one, batched = gradebooks
    for gb in (one, batched):
        merge_all(gb, first)
        grade = gb.find_grade("p1a_bytes", "problem1", "problem1", "student2")
        grade.manual_score = 1.5  # graded by hand between two runs
        gb.db.commit()
    for result in later:
        merge(one, result)
    merge_all(batched, later)
    assert _contents(batched) == _contents(one)
    kept = batched.find_grade("p1a_bytes", "problem1", "problem1", "student2")
    assert kept.manual_score == 1.5 and kept.needs_manual_grade


def test_a_batch_that_fails_leaves_the_gradebook_as_it_was(
    course: Course, template: tuple[Path, Path], gradebooks: tuple[Gradebook, Gradebook]
) -> None:
    results = _results(course, template[1], students=2, shift=1)
    _, batched = gradebooks
    merge_all(batched, results[:5])
    before = _contents(batched)
    unknown = replace(next(r for r in results[6:] if not r.is_missing), assignment="problem99")
    with pytest.raises(Exception, match="problem99"):
        merge_all(batched, [*results[5:9], unknown])
    assert _contents(batched) == before


def test_the_merge_benchmark_measures_both_ways(capsys: pytest.CaptureFixture[str]) -> None:
    from tools import bench_merge

    assert bench_merge.main(["--students", "2"]) == 0
    printed = capsys.readouterr().out
    assert "18 results (2 students × 9 problems)" in printed
    assert "one at a time (a commit each)" in printed and "batched (64 a transaction)" in printed
    assert "merging 90,000 submissions" in printed


def test_the_template_is_stamped_with_the_schema_version_alembic_names(
    template: tuple[Path, Path],
) -> None:
    """The template gradebook carries the schema version nbgrader's own stamp would (``alembic
    heads``, the command nbgrader runs for a new gradebook), read without running it."""
    db, _ = template
    with contextlib.closing(sqlite3.connect(db)) as gradebook:
        stamped = gradebook.execute("SELECT version_num FROM alembic_version").fetchall()
    assert stamped == [(get_alembic_version(),)]
    with Gradebook(sqlite_url(db), course_id=COURSE_ID) as opened:  # nbgrader takes it as its own
        assert {a.name for a in opened.assignments} == set(Course(ROOT).assignments)
