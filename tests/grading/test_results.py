"""Typed grading results (roofline_grader.results) and what reads them: the journal, the report,
the progress tally and the schedule, on hand-made results, in milliseconds."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from roofline_grader.checks import PROBLEMS, Finding
from roofline_grader.checks.base import Cause
from roofline_grader.intake.discover import Task
from roofline_grader.outputs.report import Report
from roofline_grader.outputs.tally import Tally
from roofline_grader.results import (
    Event,
    PartResult,
    ProblemKind,
    Status,
    SubmissionProblem,
    SubmissionResult,
    Verdict,
)
from roofline_grader.run.journal import Journal
from roofline_grader.run.schedule import draws_figure, longest_first, median_seconds

WRONG = Finding("bytes_loaded on 12 shapes", False, "count both operands", Cause.WRONG, 2.0)


def _result(student: str = "ann", **changes: object) -> SubmissionResult:
    fields: dict[str, object] = {
        "key": f"{student}-problem1",
        "student": student,
        "assignment": "problem1",
        "fingerprint": "abc",
        "status": Status.GRADED,
        "timestamp": "2026-01-05 10:00:00.000000 UTC",
        "notebook": "/in/ann/problem1/problem1.ipynb",
        "problems": (
            SubmissionProblem(ProblemKind.EDITED_CELL, "edited the check cell", "p1a_bytes"),
            SubmissionProblem(ProblemKind.TIMEOUT, "ran past 30 s", "p1b_ops"),
        ),
        "parts": (
            PartResult("p1a_bytes", 0.0, 2.0, Verdict(False, (WRONG,))),
            PartResult("p1b_ops", 1.5, 2.0),
            PartResult("p1f_why", None, 3.0),
        ),
        "comments": {"p1f_why": None, "p1a-answer": "No response."},
        "events": (Event(7, "p1b_ops", ProblemKind.TIMEOUT, "ran past 30 s"),),
        "sandbox": {"sandbox": "none"},
        "seconds": 1.25,
    }
    fields.update(changes)
    return SubmissionResult(**fields)  # type: ignore[arg-type]


def test_totals_are_the_parts_summed_once_with_hand_parts_at_zero() -> None:
    result = _result()
    assert (result.auto_points, result.max_points) == (1.5, 7.0)
    assert result.part("p1f_why") == PartResult("p1f_why", None, 3.0)
    assert result.verdict("p1a_bytes") == Verdict(False, (WRONG,))
    assert result.verdict("p1b_ops") is None and result.part("nope") is None


def test_a_result_survives_the_journal_and_a_process_pool_unchanged(tmp_path: Path) -> None:
    result = _result(traceback="Traceback ...")
    assert SubmissionResult.from_json(json.loads(json.dumps(result.to_json()))) == result
    assert pickle.loads(pickle.dumps(result)) == result
    journal = Journal(tmp_path, key="grader-1")
    journal.put(result)
    task = Task(result.key, result.student, result.assignment, result.notebook, "abc")
    assert journal.get(task) == result
    assert Journal(tmp_path, key="grader-2").get(task) is None  # another grader: graded again
    assert journal.get(Task(result.key, "ann", "problem1", None, "other")) is None
    assert journal.timings() == [("problem1", 1.25)]


def test_the_journal_file_keeps_the_keys_every_reader_of_it_knows(tmp_path: Path) -> None:
    Journal(tmp_path, key="g").put(_result())
    record = json.loads((tmp_path / "ann-problem1.json").read_text())
    assert set(record) == {
        "key", "student", "assignment", "fingerprint", "timestamp", "secret", "notebook",
        "status", "problems", "grades", "comments", "verdicts", "events", "sandbox",
        "autograded", "seconds", "grader",
    }  # fmt: skip
    assert record["status"] == "graded"
    assert record["grades"]["p1b_ops"] == {"auto_score": 1.5, "max_score": 2.0}
    assert record["verdicts"] == {
        "p1a_bytes": {"passed": False, "findings": [WRONG.to_json()]}
    }  # only the parts with a verdict
    assert record["problems"][0] == {
        "kind": "edited-cell",
        "grade_id": "p1a_bytes",
        "detail": "edited the check cell",
    }
    assert record["events"] == [
        {"cell": 7, "grade_id": "p1b_ops", "kind": "timeout", "detail": "ran past 30 s"}
    ]


def test_an_unknown_kind_of_problem_cannot_be_made_or_read(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="edted-cell"):
        ProblemKind("edted-cell")
    record = _result().to_json()
    record["problems"][0]["kind"] = "edted-cell"
    record["grader"] = "g"
    (tmp_path / "ann-problem1.json").write_text(json.dumps(record))
    task = Task("ann-problem1", "ann", "problem1", None, "abc")
    assert Journal(tmp_path, key="g").get(task) is None  # unreadable record: graded again


def test_every_kind_of_problem_has_its_own_words() -> None:
    words = [kind.words for kind in ProblemKind]
    assert all(words) and len(set(words)) == len(words)
    assert ProblemKind.EDITED_CELL == "edited-cell"  # the JSON name is the value


def test_the_tally_counts_missing_apart_from_other_problems() -> None:
    missing = _result(
        "bob",
        status=Status.MISSING,
        problems=(SubmissionProblem(ProblemKind.MISSING_NOTEBOOK, "none"),),
    )
    clean = _result("cat", problems=())
    tally = Tally().add(_result()).add(missing).add(clean, awaiting=["p1f_why"])
    assert (tally.submissions, tally.with_problems, tally.missing) == (3, 1, 1)
    assert tally.by_hand == {"p1f_why": 1}


def _report(tmp_path: Path, results: list[SubmissionResult], **kw: object) -> Report:
    tally = Tally()
    for r in results:
        tally = tally.add(r)
    return Report(
        workspace=tmp_path,
        students=sorted({r.student for r in results}),
        results=results,
        graded_now=len(results),
        seconds=3.0,
        jobs=2,
        sandbox="none",
        feedback_pages=1,
        tally=tally,
        **kw,  # type: ignore[arg-type]
    )


def test_the_report_words_each_problem_and_scores_from_the_result(tmp_path: Path) -> None:
    missing = _result(
        "bob",
        status=Status.MISSING,
        problems=(SubmissionProblem(ProblemKind.MISSING_NOTEBOOK, "none"),),
    )
    text = _report(tmp_path, [_result(), missing]).text()
    assert "  ann / problem1 (scored 1.5 of 7):" in text
    assert "    - edited read-only cell: [p1a_bytes] edited the check cell" in text
    assert "    - cell timed out: [p1b_ops] ran past 30 s" in text
    assert "Missing notebooks, scored 0 (1):\n  bob: problem1" in text
    with_hand = _report(tmp_path, [_result()], points={("ann", "problem1"): 4.5}).text()
    assert "(scored 4.5 of 7)" in with_hand  # the gradebook's points, hand scores included


def test_report_json_keeps_its_keys_and_plain_kinds(tmp_path: Path) -> None:
    _report(tmp_path, [_result()]).write_json(tmp_path / "report.json")
    data = json.loads((tmp_path / "report.json").read_text())
    assert data["problems"] == [
        {
            "student": "ann",
            "assignment": "problem1",
            "kind": "edited-cell",
            "detail": "[p1a_bytes] edited the check cell",
        },
        {
            "student": "ann",
            "assignment": "problem1",
            "kind": "timeout",
            "detail": "[p1b_ops] ran past 30 s",
        },
    ]
    assert (data["submissions"], data["with_problems"], data["missing"]) == (1, 1, 0)


def _tasks(*pairs: tuple[str, str]) -> list[Task]:
    return [Task(f"{s}-{a}", s, a, None, "x") for s, a in pairs]


def test_the_longest_measured_problem_is_graded_first() -> None:
    tasks = _tasks(("ann", "problem1"), ("bob", "problem1"), ("ann", "problem2"))
    measured = median_seconds([("problem1", 1.0), ("problem1", 3.0), ("problem2", 2.5)])
    assert measured == {"problem1": 2.0, "problem2": 2.5}
    order = longest_first(tasks, measured, ("problem1", "problem2"))
    assert [(t.student, t.assignment) for t in order] == [
        ("ann", "problem2"),
        ("ann", "problem1"),
        ("bob", "problem1"),
    ]


def test_unmeasured_problems_go_first_those_that_draw_a_figure_before_the_rest() -> None:
    assert [a for a in PROBLEMS if draws_figure(a)] == ["problem3"]
    tasks = _tasks(("ann", "problem1"), ("ann", "problem2"), ("ann", "problem3"))
    order = longest_first(tasks, {"problem1": 9.0}, tuple(PROBLEMS))
    assert [t.assignment for t in order] == ["problem3", "problem2", "problem1"]
    first_run = longest_first(tasks, {}, tuple(PROBLEMS))
    assert [t.assignment for t in first_run] == ["problem3", "problem1", "problem2"]
