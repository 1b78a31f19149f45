"""End to end: one roofline-grade run over real notebooks of every kind (see grading_cases.py)."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from roofline_grader.checks import PARTS

from .conftest import GradedRun
from .grading_cases import ASSIGNMENTS, ATTACKED, FULL

pytestmark = pytest.mark.slow

BAD = (
    "endless-loop",
    "ignores-interrupt",
    "kernel-death",
    "syntax-error",
    "edited-test",
    "deleted-test",
    "deleted-answer-and-test",
    "duplicated-cells",
    "invalid-json",
    "missing-notebook",
    "misnamed-notebook",
    "huge-output",
    "many-cells",
    "odd-cells",
)


def _score(graded: GradedRun, student: str, grade_id: str) -> str:
    return graded.grades[student][grade_id]


def _expected(graded: GradedRun, student: str, grade_id: str) -> str:
    value = graded.cases[student].expect.get(grade_id, 0)
    return f"{value:g}"


def test_the_run_prints_no_traceback(graded: GradedRun) -> None:
    """What an instructor's terminal shows: the progress and the report, never a traceback
    (a heartbeat thread once died on every notebook when its ZMQ context closed under it)."""
    assert "Traceback" not in graded.stderr and "Exception in thread" not in graded.stderr, (
        graded.stderr[-3000:]
    )


def test_every_student_has_exactly_one_row(graded: GradedRun) -> None:
    assert sorted(graded.grades) == sorted(graded.cases)
    lines = (graded.workspace / "grades.csv").read_text().strip().splitlines()
    assert len(lines) == len(graded.cases) + 1


def test_grades_csv_has_the_documented_columns(graded: GradedRun) -> None:
    expected = ["student_id"]
    for assignment in ASSIGNMENTS:
        expected += [p.grade_id for p in PARTS.values() if p.problem == assignment] + [assignment]
    assert graded.header == [*expected, "total", "max"]
    assert {row["max"] for row in graded.grades.values()} == {
        f"{sum(part.points for part in PARTS.values()):g}"
    }


def test_reference_solutions_score_full_marks(graded: GradedRun) -> None:
    row = graded.grades["solved"]
    assert {gid: row[gid] for gid in FULL} == {gid: f"{v:g}" for gid, v in FULL.items()}
    assert row["p4c_why"] == "", "the written answer waits for a human"
    assert row["total"] == f"{sum(FULL.values()):g}"


def test_blank_release_scores_zero_without_crashing(graded: GradedRun) -> None:
    row = graded.grades["blank"]
    assert all(row[gid] == "0" for gid in PARTS), row
    assert row["total"] == "0"
    results = graded.results()
    assert all(results[("blank", a)]["status"] == "graded" for a in ASSIGNMENTS)


def test_partly_right_submission_scores_exactly_the_right_parts(graded: GradedRun) -> None:
    row = graded.grades["partial"]
    for gid in PARTS:
        assert row[gid] == _expected(graded, "partial", gid), gid
    assert row["problem1"] == "4" and row["problem6"] == "7" and row["total"] == "11"


@pytest.mark.parametrize("student", BAD)
def test_bad_submission_gets_its_score_and_reason(graded: GradedRun, student: str) -> None:
    for gid in PARTS:
        assert _score(graded, student, gid) == _expected(graded, student, gid), gid
    kinds = {p["kind"] for p in graded.problems(student) if p["assignment"] == "problem1"}
    for kind in graded.cases[student].expect_problems:
        assert kind in kinds, (kind, kinds)


@pytest.mark.parametrize("student", sorted(ATTACKED))
def test_attack_scores_zero_on_the_attacked_part(graded: GradedRun, student: str) -> None:
    events = graded.results()[(student, "problem1")]["events"]
    assert [e for e in events if e["kind"] in ("error", "kernel-died", "stuck")] == [], (
        "the attack ran to the end: it scores zero because it was defeated, not because it crashed"
    )
    for gid in ATTACKED[student]:
        assert _score(graded, student, gid) == "0", gid
    for gid in PARTS:
        assert _score(graded, student, gid) == _expected(graded, student, gid), gid


def test_infinite_loop_costs_only_its_part(graded: GradedRun) -> None:
    assert graded.grades["endless-loop"]["problem1"] == "8"
    events = graded.results()[("endless-loop", "problem1")]["events"]
    assert [e["kind"] for e in events] == ["timeout"]


def test_kernel_death_is_survived_by_the_cells_after_it(graded: GradedRun) -> None:
    result = graded.results()[("kernel-death", "problem1")]
    kinds = [e["kind"] for e in result["events"]]
    assert "kernel-died" in kinds and "restarted" in kinds
    assert result["verdicts"]["p1e_bounds"]["passed"]


def test_failed_checks_explain_in_words_without_numbers(graded: GradedRun, release: Path) -> None:
    """A hint names what was expected; the only numbers in it are the statement's own."""
    verdict = graded.results()[("partial", "problem6")]["verdicts"]["p6c_flash"]
    failed = [f for f in verdict["findings"] if not f["passed"]]
    assert failed[0]["hint"].startswith("a partial last tile still streams all of K and V")
    ops = graded.results()[("partial", "problem1")]["verdicts"]["p1b_ops"]["findings"]
    assert ops == [
        {
            "label": "ops(B, D, F) on unseen shapes",
            "passed": False,
            "hint": "a multiply-add counts as two operations",
            "cause": "misconception",
            "ratio": 0.5,
        }
    ], "under the grader the visible checks stay silent: the hidden checks judge"
    statements = {a: (release / a / f"{a}.ipynb").read_text() for a in ASSIGNMENTS}
    for (_, assignment), result in graded.results().items():
        for verdict in result["verdicts"].values():
            for finding in verdict["findings"]:
                if finding["label"] == "visible checks":  # the visible checks' own messages
                    continue
                for number in re.findall(r"\d+(?:\.\d+)?(?:e[+-]?\d+)?", finding["hint"]):
                    assert number in statements[assignment], (number, finding["hint"])


def test_feedback_pages_show_checks_and_never_hidden_test_source(graded: GradedRun) -> None:
    pages = sorted((graded.workspace / "feedback").glob("*/index.html"))
    assert len(pages) == len(graded.cases)
    for page in pages:
        text = page.read_text()
        assert "HIDDEN TESTS" not in text and "roofline_grader" not in text, page
        assert "Traceback" not in text
    partial = graded.feedback("partial")
    assert "✓ bytes_loaded(B, D, F) on unseen shapes" in partial
    assert "✗ flash_bytes(H, S, d, M) on unseen shapes, scalars and arrays: a partial" in partial
    assert "no notebook was submitted for problem2" in partial
    assert '<html lang="en">' in partial and 'lang="zh-CN">' in partial  # bilingual hints
    assert "<details" not in partial  # no language chosen: nothing folded


def test_a_student_who_read_in_chinese_gets_a_chinese_feedback_page(graded: GradedRun) -> None:
    page, fold, english = graded.feedback("partial-zh").partition(
        '<details class="other-language" lang="en"><summary>English</summary>'
    )
    assert fold, "the English is one click away, folded at the end"
    assert "Feedback for partial-zh" in english and "Total:" in english
    assert '<html lang="zh-CN">' in page and "partial-zh 的反馈" in page
    assert "总分：" in page and "Total:" not in page
    assert "习题 1 · int8 矩阵乘法" in page and "Problem 1" not in page
    assert "(a) 搬运的字节数" in page and "bytes loaded and written" not in page
    assert "没有 notebook：没有提交 problem2 的 notebook" in page
    assert 'class="zh"' not in page  # one language: no English with Chinese under it
    for words in ("on unseen shapes", "Part</th>", "About your notebook", "Each part lists"):
        assert words not in page, words
    english = graded.feedback("partial")
    same = re.findall(r'class="points">([^<]*)<', english)
    assert re.findall(r'class="points">([^<]*)<', page) == same  # the same grades


def test_report_names_every_submission_with_a_problem_and_why(graded: GradedRun) -> None:
    text = (graded.workspace / "report.txt").read_text()
    assert graded.stdout == text
    for student in BAD:
        if student != "missing-notebook":
            assert f"  {student} / problem1" in text, student
    assert f"  missing-notebook: {', '.join(ASSIGNMENTS)}\n" in text
    assert "invalid-json / problem1 (scored 0 of 9):\n    - not valid JSON" in text
    answered_p4 = [c for c in graded.cases.values() if "problem4" in c.notebooks and c.expect]
    assert f"Awaiting grading by hand: p4c_why ({len(answered_p4)})" in text


def test_workspace_is_an_nbgrader_course_with_a_submission_per_notebook(graded: GradedRun) -> None:
    with Gradebook(f"sqlite:///{graded.workspace / 'gradebook.db'}", course_id="roofline") as gb:
        assert sorted(s.id for s in gb.students) == sorted(graded.cases)
        submitted = graded.workspace / "submitted"
        for assignment in ASSIGNMENTS:  # a submission for each notebook handed in, as nbgrader
            handed_in = {p.parents[1].name for p in submitted.glob(f"*/{assignment}/*.ipynb")}
            submissions = gb.find_assignment(assignment).submissions
            assert {s.student.id for s in submissions} == handed_in
            if assignment == "problem1":
                assert "missing-notebook" not in handed_in and "invalid-json" in handed_in
        solved = gb.find_submission_notebook("problem1", "problem1", "solved")
        assert solved.score == 9
    autograded = graded.workspace / "autograded" / "solved" / "problem1" / "problem1.ipynb"
    nb = nbformat.read(str(autograded), 4)
    assert any("BEGIN HIDDEN TESTS" in c.source for c in nb.cells), "graded with the hidden tests"
    assert (
        graded.workspace / "submitted" / "misnamed-notebook" / "problem1" / "problem1.ipynb"
    ).is_file()
