"""roofline_grader.run.journal in a temporary directory: what it records, what a rerun resumes from, and
what it refuses (a record of another grader or another notebook, a torn or foreign file), so that
an interrupted run, rerun, leaves no student missing and none counted twice. Milliseconds each;
a whole run resumed is in test_run_fake_engine.py, and on a lost Dask scheduler in
test_grading_cluster.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from roofline_grader.intake.discover import Task
from roofline_grader.results import PartResult, Status, SubmissionResult
from roofline_grader.run.journal import Journal, grader_key


def _task(key: str = "alice-problem1", fingerprint: str = "sha-1") -> Task:
    return Task(key, "alice", "problem1", f"/in/{key}.ipynb", fingerprint)


def _result(task: Task, score: float = 2.0, seconds: float = 1.5) -> SubmissionResult:
    return SubmissionResult(
        key=task.key,
        student=task.student,
        assignment=task.assignment,
        fingerprint=task.fingerprint,
        status=Status.GRADED,
        notebook=task.notebook,
        parts=(PartResult("p1a_check", score, 2.0),),
        seconds=seconds,
    )


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return Journal(tmp_path / "results", "grader-A")


# -- grader_key -----------------------------------------------------------------------------------


@pytest.fixture
def package(tmp_path: Path) -> Path:
    root = tmp_path / "pkg"
    (root / "sub").mkdir(parents=True)
    (root / "a.py").write_text("x = 1\n")
    (root / "sub" / "b.py").write_text("y = 2\n")
    (root / "notes.txt").write_text("not code")
    return root


def test_the_grader_key_is_stable_and_changes_with_every_setting(package: Path) -> None:
    key = grader_key(["timeout=30", "sandbox=on"], [package])
    assert key == grader_key(["timeout=30", "sandbox=on"], [package])
    assert len(key) == 64 and int(key, 16) >= 0  # a sha256 in hex
    assert grader_key(["timeout=60", "sandbox=on"], [package]) != key
    assert grader_key(["sandbox=on", "timeout=30"], [package]) != key  # order counts
    assert grader_key(["ab", "c"], []) != grader_key(["a", "bc"], [])  # parts are delimited


def test_the_grader_key_changes_with_any_python_file_and_no_other(package: Path) -> None:
    key = grader_key([], [package])
    (package / "notes.txt").write_text("edited notes")
    assert grader_key([], [package]) == key
    (package / "sub" / "b.py").write_text("y = 3\n")
    edited = grader_key([], [package])
    assert edited != key
    (package / "sub" / "b.py").rename(package / "c.py")  # same code, another module
    assert grader_key([], [package]) != edited


# -- Journal --------------------------------------------------------------------------------------


def test_nothing_recorded_nothing_resumed(journal: Journal) -> None:
    assert journal.directory.is_dir()
    assert journal.get(_task()) is None


def test_a_recorded_result_is_resumed_as_the_same_typed_result(journal: Journal) -> None:
    task = _task()
    result = _result(task)
    journal.put(result)
    assert journal.get(task) == result
    record = json.loads((journal.directory / f"{task.key}.json").read_text())
    assert record["grader"] == "grader-A" and record["key"] == task.key
    assert [p.name for p in journal.directory.iterdir()] == [f"{task.key}.json"]  # no .tmp left


def test_a_result_recorded_twice_is_one_record_the_last(journal: Journal) -> None:
    task = _task()
    journal.put(_result(task, score=0.0))
    journal.put(_result(task, score=2.0))
    assert len(list(journal.directory.glob("*.json"))) == 1
    resumed = journal.get(task)
    assert resumed is not None and resumed.auto_points == 2.0


def test_a_resubmitted_notebook_is_graded_again(journal: Journal) -> None:
    journal.put(_result(_task(fingerprint="sha-1")))
    assert journal.get(_task(fingerprint="sha-2")) is None


def test_another_grader_does_not_resume_this_ones_records(journal: Journal) -> None:
    task = _task()
    journal.put(_result(task))
    assert Journal(journal.directory, "grader-B").get(task) is None
    assert Journal(journal.directory, "grader-A").get(task) == _result(task)


@pytest.mark.parametrize(
    "text",
    [
        '{"key": "alice-problem1", "student": "al',  # torn: a run killed mid-write, pre-rename
        "",
        "[1, 2]",  # JSON, but not a record
        '{"grader": "grader-A", "fingerprint": "sha-1"}',  # the keys match, the result is gone
        '{"grader": "grader-A", "fingerprint": "sha-1", "key": "k", "student": "s", '
        '"assignment": "a", "status": "no-such-status"}',
    ],
    ids=["torn", "empty", "a-list", "no-result", "bad-status"],
)
def test_an_unreadable_record_is_graded_again_and_then_replaced(
    journal: Journal, text: str
) -> None:
    task = _task()
    (journal.directory / f"{task.key}.json").write_text(text)
    assert journal.get(task) is None
    journal.put(_result(task))
    assert journal.get(task) == _result(task)


def test_a_submission_is_resumed_by_its_own_key_only(journal: Journal) -> None:
    alice, bob = _task("alice-problem1"), _task("bob-problem1")
    journal.put(_result(alice))
    assert journal.get(alice) is not None
    assert journal.get(bob) is None


def test_timings_are_the_graded_submissions_seconds_by_any_grader(journal: Journal) -> None:
    journal.put(_result(_task("alice-problem1"), seconds=3.0))
    Journal(journal.directory, "grader-old").put(_result(_task("bob-problem1"), seconds=5.0))
    missing = SubmissionResult("carol-problem1", "carol", "problem1", "missing", Status.MISSING)
    journal.put(missing)
    (journal.directory / "dave-problem1.json").write_text('{"status": "graded", "assign')
    assert journal.timings() == [("problem1", 3.0), ("problem1", 5.0)]
