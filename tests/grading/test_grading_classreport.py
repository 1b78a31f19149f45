"""What the class got wrong (roofline_grader.outputs.classreport): findings that keep their cause and their
factor, clusters of students on hand-made results with real findings, report.html and report.txt;
then the shared graded run's report.html, which must name every planted mistake with its student."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest

from roofline_grader.checks import PARTS, PROBLEMS
from roofline_grader.checks.base import (
    Cause,
    Finding,
    call_probe,
    compare,
    constant_ratio,
)
from roofline_grader.outputs.classreport import (
    MISTAKE_KINDS,
    ClassSummary,
    Kind,
    describe_factor,
    format_factor,
    read_html,
    render_html,
    students_named,
    summarize,
    text_lines,
)
from roofline_grader.results import (
    Event,
    PartResult,
    ProblemKind,
    Status,
    SubmissionProblem,
    SubmissionResult,
    Verdict,
)

from .conftest import GradedRun
from .grading_cases import FULL, model_answers
from .mistakes import BY_KEY, MISTAKES
from .test_grading_checks import judge, namespace

PROBE = call_probe("f", [(1,), (2,), (3,)])


def _answers(*values: Any) -> dict[str, list[dict[str, Any]]]:
    return {"f": [{"v": v} for v in values]}


# -- Finding: cause and factor -----------------------------------------------------------------


def test_a_wrong_answer_off_by_one_factor_keeps_the_factor() -> None:
    finding = compare("f on shapes", PROBE, _answers(2.0, 4.0, 6.0), [1, 2, 3], "general")
    assert (finding.passed, finding.cause, finding.ratio, finding.hint) == (
        False,
        Cause.WRONG,
        2.0,
        "general",
    )


def test_a_known_misconception_is_named_and_keeps_its_factor() -> None:
    finding = compare(
        "f", PROBE, _answers(1e-12, 2e-12, 3e-12), [1, 2, 3], "general", [("TFLOP/s", [1e-12] * 3)]
    )
    assert finding.hint == "general"  # the misconception's values do not match
    finding = compare(
        "f",
        PROBE,
        _answers(1e-12, 2e-12, 3e-12),
        [1, 2, 3],
        "general",
        [("give FLOP/s, not TFLOP/s", [1e-12, 2e-12, 3e-12])],
    )
    assert (finding.cause, finding.hint) == (Cause.MISCONCEPTION, "give FLOP/s, not TFLOP/s")
    assert finding.ratio == pytest.approx(1e-12)


def test_no_single_factor_no_answer_and_a_right_answer() -> None:
    wrong = compare("f", PROBE, _answers(2.0, 4.0, 7.0), [1, 2, 3], "general")
    assert (wrong.cause, wrong.ratio) == (Cause.WRONG, None)
    missing = compare("f", PROBE, {"f": [{"e": "f is not defined"}]}, [1, 2, 3], "general")
    assert (missing.cause, missing.hint) == (Cause.NO_ANSWER, "f is not defined")
    right = compare("f", PROBE, _answers(1.0, 2.0, 3.0), [1, 2, 3], "general")
    assert (right.passed, right.cause, right.ratio) == (True, None, None)


@pytest.mark.parametrize(
    ("got", "want", "ratio"),
    [
        ([0, 4, 8], [0, 2, 4], 2.0),  # a pair of zeros fits any factor
        ([1, 4], [0, 2], None),  # a non-zero answer over a zero reference fits none
        ([True, 2], [1, 1], None),  # a bool is not a number
        ([float("inf")], [1.0], None),
        ([1.0, 2.0], [1.0, 2.0], None),  # right: no factor
        ([2.0], [1.0, 2.0], None),
        ([0.0, 0.0], [3.0, 5.0], 0.0),
    ],
)
def test_constant_ratio(got: list, want: list, ratio: float | None) -> None:
    assert constant_ratio(got, want) == ratio


def test_findings_round_trip_and_old_journals_read_as_none() -> None:
    finding = Finding("f", False, "doubled", Cause.WRONG, 2.0)
    assert Finding.from_json(finding.to_json()) == finding
    old = Finding.from_json({"label": "f", "passed": True, "hint": "carried forward from (a): …"})
    assert (old.cause, old.ratio, old.carried) == (None, None, True)
    assert Finding("f", True).to_json() == {"label": "f", "passed": True, "hint": ""}


@pytest.mark.parametrize(
    ("ratio", "factor", "words"),
    [
        (2.0, "×2", "a factor of two dropped or doubled"),
        (0.5, "×1/2", "a factor of two dropped or doubled"),
        (8.0, "×8", "bits and bytes mixed up"),
        (1e-12, "×10⁻¹²", "a unit prefix off (tera, 10^12), too small"),
        (1e9, "×10⁹", "a unit prefix off (giga, 10^9), too large"),
        (1.024, "×1.02", "binary and decimal prefixes"),
        (-1.0, "×−1", "the sign flipped"),
        (0.37, "×0.37", "off by one constant factor"),
        (3.0, "×3", "a factor of 3 too large"),
    ],
)
def test_factors_in_words(ratio: float, factor: str, words: str) -> None:
    assert format_factor(ratio) == factor
    assert words in describe_factor(ratio)
    assert describe_factor(ratio).startswith(f"answers {factor} the reference")


# -- clusters, on hand-made results with real findings -------------------------------------------

P1 = [(p.problem, p.grade_id, float(FULL[p.grade_id])) for p in PROBLEMS["problem1"]]


def _answers_with(cell: str, old: str, new: str) -> dict[str, str]:
    answers = model_answers("problem1")
    assert answers[cell].count(old) == 1
    answers[cell] = answers[cell].replace(old, new)
    return answers


def _graded(
    student: str, answers: dict[str, str], events: tuple[Event, ...] = ()
) -> SubmissionResult:
    """A worker result for Problem 1, with the hidden checks' real findings on these answers."""
    ns = namespace("problem1", **answers)
    parts = []
    for _, gid, points in P1:
        if any(e.grade_id == gid for e in events):
            parts.append(PartResult(gid, 0.0, points))
            continue
        findings = tuple(judge(gid, ns))
        passed = all(f.passed for f in findings)
        parts.append(PartResult(gid, points if passed else 0.0, points, Verdict(passed, findings)))
    return SubmissionResult(
        f"{student}-problem1", student, "problem1", "sha", Status.GRADED, parts=tuple(parts),
        events=events,
    )  # fmt: skip


def _ungraded(student: str, status: Status, kind: ProblemKind, detail: str) -> SubmissionResult:
    zero = tuple(PartResult(gid, 0.0, points) for _, gid, points in P1)
    problems = (SubmissionProblem(kind, detail),)
    return SubmissionResult(
        f"{student}-problem1", student, "problem1", "missing", status, problems=problems,
        parts=zero,
    )  # fmt: skip


HOSTILE = '<img src=x onerror="alert(1)">'


@pytest.fixture(scope="module")
def summary() -> ClassSummary:
    bf16 = BY_KEY["p1a-bf16"].answers()
    results = [
        _graded("ann", model_answers("problem1")),
        _graded("bob", bf16),
        _graded("cat", bf16),
        # bits for bytes: 8 × the bytes loaded (no known mistake has that factor)
        _graded("dan", _answers_with("p1a-answer", "return B * D + D * F", "return 8 * (B * D + D * F)")),
        _ungraded("eve", Status.MISSING, ProblemKind.MISSING_NOTEBOOK, "no notebook was submitted"),
        _ungraded("fay", Status.UNREADABLE, ProblemKind.INVALID_JSON, "the notebook is not valid JSON"),
        # T_comms with two bytes an element: ×2, the factor of (d)'s known mistake on T_math
        _graded(
            HOSTILE,
            _answers_with(
                "p1d-answer",
                "return (bytes_loaded(B, D, F) + bytes_written(B, D, F)) / HBM_BYTES_PER_S",
                "return 2 * (bytes_loaded(B, D, F) + bytes_written(B, D, F)) / HBM_BYTES_PER_S",
            ),
        ),
        _graded(
            "gus",
            _answers_with("p1b-answer", "return 2 * B * D * F", "raise NotImplementedError"),
            events=(Event(9, "p1e_bounds", ProblemKind.NOT_RUN, "out of time <b>"),),
        ),
    ]  # fmt: skip
    students = ["ann", "bob", "cat", "dan", "eve", "fay", HOSTILE, "gus"]
    return summarize(results, students, P1)


def _cluster(summary: ClassSummary, grade_id: str, text: str):
    return next(c for c in summary.part(grade_id).mistakes if text in c.title)


def test_a_known_mistake_is_one_cluster_with_its_share(summary: ClassSummary) -> None:
    cluster = _cluster(summary, "p1a_bytes", "an int8 element is one byte, not two")
    assert (cluster.kind, cluster.students, cluster.ratio) == (
        Kind.MISCONCEPTION,
        ("bob", "cat"),
        2,
    )
    assert cluster.share == pytest.approx(2 / 8)
    carried = summary.part("p1c_intensity").other(Kind.CARRIED)
    assert carried is not None and {"bob", "cat"} <= set(carried.students)


def test_an_unknown_factor_is_named_in_words(summary: ClassSummary) -> None:
    cluster = _cluster(summary, "p1a_bytes", "bits and bytes")
    assert (cluster.kind, cluster.students, cluster.ratio) == (Kind.FACTOR, ("dan",), 8)
    assert cluster.label.startswith("bytes_loaded")
    assert "bytes loaded should be every byte" in cluster.detail  # what dan was told


def test_a_factor_of_a_known_mistake_elsewhere_in_the_part_is_a_lead(
    summary: ClassSummary,
) -> None:
    cluster = _cluster(summary, "p1d_times", "a factor of two")
    assert (cluster.kind, cluster.students) == (Kind.FACTOR, (HOSTILE,))
    assert "int8 arithmetic runs at the int8 peak" in cluster.detail


def test_missing_unreadable_unanswered_and_not_run_are_counted(summary: ClassSummary) -> None:
    p1a, p1b, p1e = (summary.part(g) for g in ("p1a_bytes", "p1b_ops", "p1e_bounds"))
    assert p1a.other(Kind.MISSING).students == ("eve",)
    assert p1a.other(Kind.UNREADABLE).students == ("fay",)
    no_answer = p1b.other(Kind.NO_ANSWER)
    assert no_answer.students == ("gus",) and "not implemented" in no_answer.members[0].note
    assert p1e.other(Kind.NOT_RUN).students == ("gus",)
    assert p1a.scores == (2, 0, 0, 0, 0, 0, 2, 2) and p1a.full_marks == 3
    assert not p1a.manual and p1a.awaiting == 0


def test_nothing_wrong_is_nothing_reported(summary: ClassSummary) -> None:
    everyone = {s for part in summary.parts for c in part.mistakes for s in c.students}
    assert "ann" not in everyone and "eve" not in everyone


def test_findings_of_older_journals_are_diagnosed_by_their_hints() -> None:
    record = _graded("bob", BY_KEY["p1a-bf16"].answers()).to_json()
    for verdict in record["verdicts"].values():
        for finding in verdict["findings"]:
            finding.pop("cause", None), finding.pop("ratio", None)
    result = SubmissionResult.from_json(record)  # as the journal of an older run reads back
    assert all(f.cause is None for p in result.parts if p.verdict for f in p.verdict.findings)
    part = summarize([result], ["bob"], P1).part("p1a_bytes")
    assert [c.kind for c in part.mistakes] == [Kind.MISCONCEPTION, Kind.MISCONCEPTION]


def test_the_page_escapes_what_came_from_notebooks(summary: ClassSummary) -> None:
    page = render_html(summary, {HOSTILE: "feedback/x y/index.html"})
    assert HOSTILE not in page and html.escape(HOSTILE) in page
    assert "out of time <b>" not in page
    assert 'href="feedback/x%20y/index.html"' in page
    shown = {(c.grade_id, c.kind): c for c in read_html(page)}
    assert shown[("p1d_times", "FACTOR")].students == {HOSTILE}
    assert shown[("p1a_bytes", "MISSING")].students == {"eve"}
    assert page.count("<svg") == len(P1)  # one plot a part, inline: one self-contained file
    assert not re.search(r'(src|href)="(https?:)?//|<link|<script', page), "nothing to fetch"
    assert "<metadata" not in page


def test_report_txt_names_the_commonest_mistakes(summary: ClassSummary) -> None:
    lines = text_lines(summary, "report.html")
    assert lines[0].startswith("What the class got wrong (8 students")
    text = "\n".join(lines)
    assert "25% (2) an int8 element is one byte, not two" in text
    assert "answers ×8 the reference: bits and bytes mixed up" in text


# -- the shared graded run -----------------------------------------------------------------------


@pytest.mark.slow
def test_report_html_names_every_planted_mistake_with_its_student(graded: GradedRun) -> None:
    shown = read_html((graded.workspace / "report.html").read_text())
    for mistake in MISTAKES:
        assert mistake.student in students_named(shown, mistake.part, mistake.hint), (
            mistake.key,
            [c for c in shown if c.grade_id == mistake.part],
        )
    mistakes = [c for c in shown if c.kind in {k.name for k in MISTAKE_KINDS}]
    assert not any("solved" in c.students for c in mistakes)
    blank = {c.grade_id for c in shown if c.kind == "NO_ANSWER" and "blank" in c.students}
    assert blank == {gid for gid, part in PARTS.items() if not part.manual}
    assert any(c.kind == "MISSING" and "partial" in c.students for c in shown)
    assert any(c.kind == "UNREADABLE" and "invalid-json" in c.students for c in shown)
    report = (graded.workspace / "report.txt").read_text()
    assert f"plots and names in {graded.workspace / 'report.html'}" in report
