"""A grading run's logic on a fake engine (tests/grading/fake_engine.py): no kernel, no sandbox.

What a run does around the grading itself, tested in about a second each: every task gets
exactly one result; a rerun grades nothing again and a changed notebook only; ``--force``
grades everything, to the same grades; hand scores survive a rerun; an interrupted run, run
again, loses nothing and grades nothing twice (stopped by an exception, by Ctrl-C or SIGTERM to
roofline-grade itself, or by SIGKILL at random points); a submission that takes its worker down
fails alone with the reason while its neighbours are graded; the engine given to a run is the one
it grades with (and it is not closed by the run). The real engines keep their end-to-end tests
(test_grading_run.py, test_grading_crash.py, test_grading_cluster.py, test_grading_sandbox.py).
"""

from __future__ import annotations

import csv
import json
import multiprocessing
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

import pytest
from nbgrader.api import Gradebook

from roofline_grader.course import Course
from roofline_grader.course.cells import ReleaseIndex
from roofline_grader.course.config import COURSE_ID
from roofline_grader.course.rubric import hand_parts
from roofline_grader.intake.discover import Task
from roofline_grader.outputs.gradebook import build_template
from roofline_grader.results import ProblemKind, Status
from roofline_grader.run.engine import CULPRIT_DETAIL, grade_isolating_culprits
from roofline_grader.run.runner import Options, grade_submissions
from roofline_grader.run.worker import Settings
from tests.conftest import ROOT
from tests.processes import as_from_a_terminal

from .fake_engine import FakeEngine, killed_run
from .grading_cases import Case, release_notebook

pytestmark = pytest.mark.filterwarnings("ignore:.*not in session")  # nbgrader on SQLAlchemy 2

PROBLEMS = ("problem1", "problem7")
STUDENTS = ("alice", "bob", "carol")
"""alice and bob hand in both problems; carol hands in problem1 only."""
HANDED_IN = {(s, p) for s in STUDENTS for p in PROBLEMS if s != "carol" or p == "problem1"}
"""The tasks with a notebook: the only ones an engine is given (a missing notebook is recorded
by the run itself, with no worker)."""


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
    assert sorted(engine.graded) == sorted(HANDED_IN), "only notebooks go to the engine"
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


@pytest.mark.parametrize("after", [0, 3])
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
    assert set(merged) | set(second.graded) == HANDED_IN
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


def test_hand_scores_are_kept_by_a_rerun_and_reach_the_grades_and_the_page(
    run: Run, course: Course, submissions: Path, release: Path, tmp_path: Path
) -> None:
    written = next(iter(hand_parts(course).values()))  # the written part of a problem
    Case("alice", {written.assignment: release_notebook(release, written.assignment)}).write(
        submissions
    )
    workspace = tmp_path / "ws"
    run(workspace, FakeEngine())
    with Gradebook(f"sqlite:///{workspace / 'gradebook.db'}", course_id=COURSE_ID) as gb:
        grade = gb.find_grade(written.grade_id, written.assignment, written.assignment, "alice")
        grade.manual_score = written.points
        gb.db.commit()
    before = {row["student_id"]: row for row in _grades(workspace)}
    again = FakeEngine()
    report = run(workspace, again)
    assert again.graded == [] and report["graded_now"] == 0
    after = {row["student_id"]: row for row in _grades(workspace)}
    assert float(after["alice"][written.grade_id]) == written.points
    assert float(after["alice"]["total"]) == float(before["alice"]["total"]) + written.points
    assert after["bob"] == before["bob"]
    assert "graded by hand" in (workspace / "feedback" / "alice" / "index.html").read_text()


def test_force_regrades_to_the_same_grades_csv_byte_for_byte(run: Run, tmp_path: Path) -> None:
    run(tmp_path / "ws", FakeEngine(fractions={"bob": 0.5}))
    before = (tmp_path / "ws" / "grades.csv").read_bytes()
    forced = FakeEngine(fractions={"bob": 0.5})
    report = run(tmp_path / "ws", forced, force=True)
    assert len(forced.graded) == len(HANDED_IN)
    assert report["graded_now"] == report["submissions"], "the missing ones recorded again too"
    assert (tmp_path / "ws" / "grades.csv").read_bytes() == before


CLI_RUN = """
import sys
from pathlib import Path

import roofline_grader.run.runner as runner
from roofline_grader.run import cli
from tests.grading.fake_engine import FakeEngine

hold, log = int(sys.argv[1]), Path(sys.argv[2])
runner.open_engine = lambda options: FakeEngine(
    fractions={"bob": 0.5}, hold_after=hold or None, log=log
)
sys.exit(cli.main(sys.argv[3:]))
"""
"""roofline-grade itself (its signals, exit status, messages and progress bar) on the fake engine:
``CLI_RUN HOLD LOG ARGS...`` holds after HOLD results (0: never)."""


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_run_stopped_by_a_signal_says_so_and_the_same_command_finishes_it(
    course: Course, submissions: Path, template: Path, tmp_path: Path, stop: signal.Signals
) -> None:
    workspace, log = tmp_path / "ws", tmp_path / "graded.log"
    shutil.copytree(template, workspace / ".roofline" / "template")
    command = [str(submissions), "--out", str(workspace)]

    def start(hold: int) -> subprocess.Popen[str]:
        args = [sys.executable, "-c", CLI_RUN, str(hold), str(log), *command]
        return subprocess.Popen(
            args,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=as_from_a_terminal,
        )

    held = 3
    stopped = start(held)
    deadline = time.monotonic() + 120
    while "held" not in (log.read_text() if log.is_file() else ""):
        assert stopped.poll() is None and time.monotonic() < deadline, stopped.communicate()
        time.sleep(0.05)
    stopped.send_signal(stop)
    _, stderr = stopped.communicate(timeout=60)
    assert stopped.returncode == 130, stderr[-2000:]
    assert "interrupted; run the same command again to finish" in stderr
    assert len(_journaled(workspace)) == held  # what was graded before the signal is kept

    finished = start(0)
    stdout, stderr = finished.communicate(timeout=120)
    assert finished.returncode == 0, stderr[-2000:]
    tasks = len(STUDENTS) * len(course.assignments)
    assert f"{tasks - held} graded now, {held} unchanged since the last run" in stdout
    tally = f"0 with problems, {tasks - 5} missing"
    bar = [line for line in stderr.splitlines() if line.startswith("grading [")][-1]
    assert f"{tasks}/{tasks}, {tally}" in bar and "done in" in bar, bar  # the bar and the report
    assert f"In all: {tally}" in stdout, stdout  # agree, resumed results included
    assert _journaled(workspace) == {(s, a) for s in STUDENTS for a in course.assignments}


FORKSERVER = multiprocessing.get_context("forkserver")
"""Starts each killed run from a server that has imported the grader once (a fresh interpreter
per run would spend most of the test importing nbgrader)."""
FORKSERVER.set_forkserver_preload(["tests.grading.fake_engine", "roofline_grader.run.runner"])


def _graded_pairs(log: Path) -> set[tuple[str, str]]:
    if not log.is_file():
        return set()
    words = [line.split() for line in log.read_text().splitlines()]
    return {(w[0], w[1]) for w in words if len(w) == 3}  # "held" lines left out


def _journaled(workspace: Path) -> set[tuple[str, str]]:
    folder = workspace / ".roofline" / "results"
    records = [json.loads(p.read_text()) for p in folder.glob("*.json")] if folder.is_dir() else []
    return {(r["student"], r["assignment"]) for r in records}


@pytest.mark.slow
def test_a_run_killed_at_any_point_then_run_again_loses_nothing_and_grades_nothing_twice(
    course: Course, submissions: Path, template: Path, tmp_path: Path
) -> None:
    def start(workspace: Path, log: Path) -> BaseProcess:
        seeded = workspace / ".roofline" / "template"
        if not seeded.exists():
            shutil.copytree(template, seeded)
        process = FORKSERVER.Process(target=killed_run, args=(ROOT, submissions, workspace, log))
        process.start()
        return process

    def finish(process: BaseProcess) -> int | None:
        process.join(300)
        return process.exitcode

    warm = FORKSERVER.Process(target=time.sleep, args=(0,))  # the server up and its imports done,
    warm.start()  # so the reference run's times are those of the killed runs
    warm.join(120)
    reference, reference_log = tmp_path / "reference", tmp_path / "reference.log"
    started = time.time()
    assert finish(start(reference, reference_log)) == 0
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
            run.kill()  # SIGKILL
            run.join(60)
            again = _graded_pairs(log) & merged
            assert not again, f"chain {number}, kill {kill}: merged, graded again: {again}"
        merged = _journaled(workspace)
        log.unlink(missing_ok=True)
        assert finish(start(workspace, log)) == 0
        assert not _graded_pairs(log) & merged
        assert _journaled(workspace) == everything
        assert _grades(workspace) == _grades(reference), f"chain {number}: grades differ"
        return 5

    with ThreadPoolExecutor(max_workers=2) as pool:  # two chains at a time
        assert sum(pool.map(chain, range(4))) == 20


def test_a_large_roster_with_few_notebooks_costs_one_grading_job_per_notebook(
    course: Course, template: Path, release: Path, tmp_path: Path
) -> None:
    # 3,000 roster rows and one Canvas upload: the absent students are recorded without a job,
    # a submission row or a second query each (a 10,000-row roster took 9 minutes before)
    roster = tmp_path / "roster.csv"
    rows = "".join(f"Student {i:05d},{100000 + i},s{i:05d}\n" for i in range(3000))
    roster.write_text("Name,ID,SIS User ID\n" + rows)
    download = tmp_path / "download"
    download.mkdir()
    nb = release / "problem1" / "problem1.ipynb"
    shutil.copyfile(nb, download / "student00007_100007_555_problem1.ipynb")
    workspace = tmp_path / "ws"
    shutil.copytree(template, workspace / ".roofline" / "template")
    engine = FakeEngine()
    grade_submissions(course, Options(download, workspace, progress=False, roster=roster), engine)
    assert engine.graded == [("s00007", "problem1")]
    report = json.loads((workspace / "report.json").read_text())
    assert report["submissions"] == 3000 and report["missing"] == 2999
    with Gradebook(f"sqlite:///{workspace / 'gradebook.db'}", course_id=COURSE_ID) as gb:
        assert len(gb.students) == 3000
        assert [
            (s.student.id, s.assignment.name) for s in gb.assignment_submissions("problem1")
        ] == [("s00007", "problem1")]
    grades = {row["student_id"]: row for row in _grades(workspace)}
    assert len(grades) == 3000 and float(grades["s00008"]["problem1"]) == 0.0
    assert float(grades["s00007"]["total"]) > 0
    assert (workspace / "feedback" / "s00008" / "index.html").is_file()


def test_the_roster_benchmark_measures_both_sizes(capsys: pytest.CaptureFixture[str]) -> None:
    from tools import bench_roster

    assert bench_roster.main(["--small", "20", "--large", "60"]) == 0
    printed = capsys.readouterr().out
    assert "roster of     20, one notebook:" in printed and "roster of     60" in printed
    assert "3× the students took" in printed
