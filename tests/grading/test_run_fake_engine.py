"""A grading run's logic on a fake engine (tests/grading/fake_engine.py): no kernel, no sandbox.

What a run does around the grading itself, tested in about a second each: every task gets
exactly one result; a rerun grades nothing again and a changed notebook only; ``--force``
grades everything; an interrupted run, run again, loses nothing and grades nothing twice; a
submission that takes its worker down fails alone with the reason while its neighbours are
graded; the engine given to a run is the one it grades with (and it is not closed by the run).
The real engines keep their end-to-end tests (test_grading_run.py, test_grading_crash.py,
test_grading_cluster.py, test_grading_resume.py).
"""

from __future__ import annotations

import csv
import json
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from roofline_grader.course import Course
from roofline_grader.course.cells import ReleaseIndex
from roofline_grader.intake.discover import Task
from roofline_grader.outputs.gradebook import build_template
from roofline_grader.results import ProblemKind, Status
from roofline_grader.run.engine import CULPRIT_DETAIL, grade_isolating_culprits
from roofline_grader.run.runner import Options, grade_submissions
from roofline_grader.run.worker import Settings
from tests.conftest import ROOT

from .fake_engine import FakeEngine
from .grading_cases import Case, release_notebook

pytestmark = pytest.mark.filterwarnings("ignore:.*not in session")  # nbgrader on SQLAlchemy 2

PROBLEMS = ("problem1", "problem7")
STUDENTS = ("alice", "bob", "carol")
"""alice and bob hand in both problems; carol hands in problem1 only."""


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory, course: Course) -> Path:
    """The template gradebook and release a run builds in its workspace, built once here."""
    folder = tmp_path_factory.mktemp("template") / "template"
    build_template(course, folder)
    return folder


@pytest.fixture
def submissions(tmp_path: Path, release: Path) -> Path:
    folder = tmp_path / "submissions"
    for student in STUDENTS:
        chosen = PROBLEMS if student != "carol" else PROBLEMS[:1]
        Case(student, {p: release_notebook(release, p) for p in chosen}).write(folder)
    return folder


Run = Callable[..., dict[str, Any]]


@pytest.fixture
def run(course: Course, submissions: Path, template: Path) -> Run:
    """``run(workspace, engine, **options)``: one run of the submissions on ``engine``, its
    workspace seeded with the module's template; report.json's contents."""

    def run_once(workspace: Path, engine: FakeEngine, **options: Any) -> dict[str, Any]:
        seeded = workspace / ".roofline" / "template"
        if not seeded.exists():
            shutil.copytree(template, seeded)
        grade_submissions(
            course, Options(submissions, workspace, progress=False, **options), engine
        )
        return json.loads((workspace / "report.json").read_text())

    return run_once


def _grades(workspace: Path) -> list[dict[str, str]]:
    with (workspace / "grades.csv").open(newline="") as fh:
        return list(csv.DictReader(fh))


def test_a_run_grades_every_task_once_and_writes_its_outputs(
    run: Run, course: Course, tmp_path: Path
) -> None:
    engine = FakeEngine(fractions={"bob": 0.5})
    report = run(tmp_path / "ws", engine)
    tasks = {(s, a) for s in STUDENTS for a in course.assignments}
    assert sorted(engine.graded) == sorted(tasks)
    assert engine.sandbox_checked == "on" and not engine.closed
    grades = {row["student_id"]: row for row in _grades(tmp_path / "ws")}
    assert set(grades) == set(STUDENTS)
    alice, bob = float(grades["alice"]["total"]), float(grades["bob"]["total"])
    assert alice > 0 and bob == pytest.approx(alice / 2)
    assert float(grades["carol"]["problem7"]) == 0.0
    assert report["graded_now"] == report["submissions"] == len(tasks)
    handed_in = 2 + 2 + 1
    assert report["missing"] == len(tasks) - handed_in
    assert (tmp_path / "ws" / "report.html").is_file()
    assert (tmp_path / "ws" / "feedback").is_dir()


def test_a_rerun_grades_nothing_again_and_writes_the_same_grades(
    run: Run, course: Course, tmp_path: Path
) -> None:
    run(tmp_path / "ws", FakeEngine())
    first = _grades(tmp_path / "ws")
    again = FakeEngine()
    report = run(tmp_path / "ws", again)
    assert again.graded == [] and report["graded_now"] == 0
    assert _grades(tmp_path / "ws") == first


def test_a_changed_notebook_alone_is_graded_again(
    run: Run, submissions: Path, tmp_path: Path
) -> None:
    run(tmp_path / "ws", FakeEngine())
    notebook = submissions / "bob" / "problem1" / "problem1.ipynb"
    notebook.write_text(notebook.read_text().replace("}", "} ", 1))
    again = FakeEngine()
    run(tmp_path / "ws", again)
    assert again.graded == [("bob", "problem1")]


def test_force_grades_everything_again(run: Run, course: Course, tmp_path: Path) -> None:
    first = FakeEngine()
    run(tmp_path / "ws", first)
    forced = FakeEngine(fractions={"alice": 0.0})
    run(tmp_path / "ws", forced, force=True)
    assert sorted(forced.graded) == sorted(first.graded)
    grades = {row["student_id"]: row for row in _grades(tmp_path / "ws")}
    assert float(grades["alice"]["total"]) == 0.0  # the new scores replaced the old ones


@pytest.mark.parametrize("after", [0, 7])
def test_an_interrupted_run_run_again_loses_nothing_and_grades_nothing_twice(
    run: Run, course: Course, tmp_path: Path, after: int
) -> None:
    whole = tmp_path / "whole"
    run(whole, FakeEngine(fractions={"bob": 0.5}))
    workspace = tmp_path / "interrupted"
    first = FakeEngine(fractions={"bob": 0.5}, interrupt_after=after)
    with pytest.raises(KeyboardInterrupt):
        run(workspace, first)
    second = FakeEngine(fractions={"bob": 0.5})
    run(workspace, second)
    merged = first.graded[:after]  # graded and merged before the interruption
    assert not set(merged) & set(second.graded), "a merged result was graded again"
    everything = {(s, a) for s in STUDENTS for a in course.assignments}
    assert set(merged) | set(second.graded) == everything
    assert _grades(workspace) == _grades(whole)


def test_a_culprit_fails_alone_with_the_reason_and_its_neighbours_are_graded(
    run: Run, course: Course, tmp_path: Path
) -> None:
    culprit, shy = ("bob", "problem1"), ("alice", "problem7")
    engine = FakeEngine(crashes=frozenset({culprit}), crashes_in_company=frozenset({shy}))
    report = run(tmp_path / "ws", engine)
    assert engine.graded.count(culprit) == 2  # once beside others, once alone
    assert engine.graded.count(shy) == 2  # it died beside others, and was graded alone
    crashed = [p for p in report["problems"] if p["kind"] == ProblemKind.GRADER_CRASH.value]
    assert [(p["student"], p["assignment"], p["detail"]) for p in crashed] == [
        (*culprit, CULPRIT_DETAIL)
    ]
    grades = {row["student_id"]: row for row in _grades(tmp_path / "ws")}
    assert float(grades["bob"]["problem1"]) == 0.0  # the culprit's parts score zero
    assert float(grades["alice"]["problem7"]) > 0  # graded alone, normally
    assert float(grades["bob"]["problem7"]) > 0


def _task(key: str) -> Task:
    return Task(key, key, "problem1", None, "missing")


SETTINGS = Settings("", "", ReleaseIndex((("problem1", ()),)), 1, 1, "off", ())


@pytest.mark.parametrize("width", [1, 2, 3, 8])
@pytest.mark.parametrize("dead", [set(), {"t0"}, {"t3", "t5"}, {f"t{i}" for i in range(7)}])
def test_every_task_gets_exactly_one_result_and_only_culprits_fail(
    width: int, dead: set[str]
) -> None:
    tasks = [_task(f"t{i}") for i in range(7)]
    results: list[tuple[str, Status]] = []

    def batch(batch_tasks: Sequence[Task], at_once: int) -> list[Task]:
        suspects = []
        for start in range(0, len(batch_tasks), at_once):
            group = batch_tasks[start : start + at_once]
            if any(t.key in dead for t in group):
                suspects += group
            else:
                results.extend((t.key, Status.GRADED) for t in group)
        return suspects

    grade_isolating_culprits(
        tasks, width, batch, SETTINGS, lambda r: results.append((r.key, r.status))
    )
    assert sorted(key for key, _ in results) == sorted(t.key for t in tasks)
    assert {key for key, status in results if status == Status.ERROR} == dead


KILLED_RUN = """
import sys, warnings
from pathlib import Path

warnings.filterwarnings("ignore")
import roofline_grader.run.runner as runner
from roofline_grader.course import Course
from tests.grading.fake_engine import FakeEngine

root, submissions, workspace, log = map(Path, sys.argv[1:5])
runner.MERGE_BATCH = 4  # several batches in a run of 27 results
engine = FakeEngine(fractions={"bob": 0.5}, seconds_each=0.05, log=log)
runner.grade_submissions(Course(root), runner.Options(submissions, workspace, progress=False), engine)
"""


def _graded_pairs(log: Path) -> set[tuple[str, str]]:
    if not log.is_file():
        return set()
    lines = log.read_text().splitlines()
    return {(line.split()[0], line.split()[1]) for line in lines if line}


def _journaled(workspace: Path) -> set[tuple[str, str]]:
    folder = workspace / ".roofline" / "results"
    records = [json.loads(p.read_text()) for p in folder.glob("*.json")] if folder.is_dir() else []
    return {(r["student"], r["assignment"]) for r in records}


@pytest.mark.slow
def test_a_run_killed_at_any_point_then_run_again_loses_nothing_and_grades_nothing_twice(
    course: Course, submissions: Path, template: Path, tmp_path: Path
) -> None:
    def start(workspace: Path, log: Path) -> subprocess.Popen[bytes]:
        seeded = workspace / ".roofline" / "template"
        if not seeded.exists():
            shutil.copytree(template, seeded)
        args = [str(ROOT), str(submissions), str(workspace), str(log)]
        return subprocess.Popen([sys.executable, "-c", KILLED_RUN, *args], cwd=ROOT)

    reference, reference_log = tmp_path / "reference", tmp_path / "reference.log"
    started = time.time()
    assert start(reference, reference_log).wait(300) == 0
    # kill while results arrive and are merged, from just before the first one until just after
    # the last (the log's times), and a little into writing the outputs
    stamps = [float(line.split()[2]) - started for line in reference_log.read_text().splitlines()]
    window = (max(0.1, min(stamps) - 0.5), max(stamps) + 1.0)
    everything = {(s, a) for s in STUDENTS for a in course.assignments}

    def chain(number: int) -> int:
        """One workspace: 5 runs killed at random points, then one that finishes."""
        rng = random.Random(number)
        workspace, log = tmp_path / f"killed-{number}", tmp_path / f"killed-{number}.log"
        for kill in range(5):
            merged = _journaled(workspace)
            log.unlink(missing_ok=True)
            run = start(workspace, log)
            time.sleep(rng.uniform(*window))
            run.send_signal(signal.SIGKILL)
            run.wait(60)
            again = _graded_pairs(log) & merged
            assert not again, f"chain {number}, kill {kill}: merged, graded again: {again}"
        merged = _journaled(workspace)
        log.unlink(missing_ok=True)
        assert start(workspace, log).wait(300) == 0
        assert not _graded_pairs(log) & merged
        assert _journaled(workspace) == everything
        assert _grades(workspace) == _grades(reference), f"chain {number}: grades differ"
        return 5

    with ThreadPoolExecutor(max_workers=2) as pool:  # two chains at a time
        assert sum(pool.map(chain, range(4))) == 20
