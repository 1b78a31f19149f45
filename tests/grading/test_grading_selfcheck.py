"""The visible checks a student runs (roofline_lib.selfcheck): what they print, what they hide,
and that they come from the hidden checks' own references and hints."""

from __future__ import annotations

import json
import math
import random
import re
import signal
import time
from typing import Any

import pytest

from roofline_grader.checks import PARTS, PROBLEMS, make_plan
from roofline_grader.checks.base import Expected, expectations, own_probe
from roofline_grader.checks.visible import CASES_PATH, render
from roofline_lib import selfcheck
from roofline_lib.selfcheck import VisibleCheckError, visible_checks
from roofline_lib.selfcheck.answers import PLAN_ENV, collect
from roofline_lib.selfcheck.language import LANGUAGE_ENV, SETTING_FILE

from .mistakes import BY_KEY
from .test_grading_checks import namespace


def test_the_committed_cases_are_what_the_hidden_checks_give() -> None:
    """Fails when a check changed and `make release` was not run: run it and commit."""
    assert CASES_PATH.read_text(encoding="utf-8") == render()


def test_every_answer_a_student_writes_has_a_visible_check() -> None:
    cases = selfcheck.cases()
    for grade_id, part in PARTS.items():
        if part.manual:
            continue
        probes = part.check.plan(random.Random(0))
        named = {p.name for p in probes if not p.key.startswith("own:")}
        shown = {c["name"].split("(")[0] for c in cases[grade_id]}
        assert named <= shown, grade_id


def test_visible_cases_tell_every_known_mistake_apart() -> None:
    """At its visible input, each known mistake gives a value of its own, so its hint is right."""
    for grade_id, cases in selfcheck.cases().items():
        for case in cases:
            values = [json.dumps(m["value"]) for m in case.get("mistakes", ())]
            assert len(values) == len(set(values)), (grade_id, case["name"])
            assert json.dumps(case.get("expected")) not in values, (grade_id, case["name"])


def _run(grade_id: str, ns: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> str:
    visible_checks(grade_id, ns)
    return capsys.readouterr().out


def test_a_passing_part_prints_each_case(capsys: pytest.CaptureFixture[str]) -> None:
    out = _run("p1a_bytes", namespace("problem1"), capsys)
    assert out == "✓ bytes_loaded(2, 3, 4) = 18\n✓ bytes_written(2, 3, 4) = 8\n"


def test_a_failing_case_shows_the_value_the_expected_value_and_the_hint(
    capsys: pytest.CaptureFixture[str],
) -> None:
    ns = namespace("problem1", **BY_KEY["p1a-bf16"].answers())
    with pytest.raises(VisibleCheckError) as failed:
        visible_checks("p1a_bytes", ns)
    message = str(failed.value)
    assert "✗ bytes_loaded(2, 3, 4) returned 36; for these inputs it should be 18." in message
    assert "Hint: an int8 element is one byte, not two" in message
    rendered = failed.value._render_traceback_()
    assert rendered[0] == "VisibleCheckError: 2 of 2 visible checks failed"
    assert all(len(line) <= 80 for line in rendered), "Validate cuts lines at 90 characters"


def test_a_part_that_builds_on_a_failing_one_says_so_once_and_is_not_failed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    ns = namespace("problem1", **BY_KEY["p1a-bf16"].answers())
    out = _run("p1d_times", ns, capsys)  # raises nothing: the grader follows through
    assert out.count("this builds on your bytes_loaded and bytes_written (part (a))") == 1
    assert "· not checked yet (1 case(s)): " in out and "暂不检查（1 项）" in out


def test_every_number_a_student_reads_is_in_one_format() -> None:
    show = selfcheck._show
    assert [show(8), show(8.0), show(328000000000), show(328000000000.0)] == [
        "8",
        "8",
        "3.28e+11",
        "3.28e+11",
    ]
    assert show(2.733333333333e11) == "2.733333333e+11" and show(1.2182741116e-13) == (
        "1.218274112e-13"
    )
    assert show(1.0909090909090908) == "1.090909091" and show(0.5) == "0.5"


def test_a_hint_is_shown_once_in_a_cell() -> None:
    ns = namespace("problem1", **BY_KEY["p1a-bf16"].answers())
    with pytest.raises(VisibleCheckError) as failed:
        visible_checks("p1a_bytes", ns)
    hints = [line for line in str(failed.value).splitlines() if line.strip().startswith("Hint:")]
    assert len(hints) == len(set(hints)), hints


def test_named_values_are_checked_by_relations_never_by_their_value(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = _run("p2a_limit", namespace("problem2"), capsys)
    assert "✓ critical_batch_small = critical_batch_limit(PEAK_BF16_FLOPS_PER_S, " in out
    for cases in selfcheck.cases().values():
        for case in cases:
            if "args" not in case:
                assert "expected" not in case and "mistakes" not in case


def test_under_the_grader_visible_checks_are_silent(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The hidden checks decide at grading (with follow-through credit), outside the kernel."""
    monkeypatch.setenv(PLAN_ENV, "/nonexistent/plan.json")
    ns = namespace("problem1", **BY_KEY["p1a-bf16"].answers())
    assert visible_checks("p1a_bytes", ns) is None
    assert capsys.readouterr().out == ""


def test_an_unknown_part_is_named() -> None:
    with pytest.raises(KeyError, match="no visible checks for 'p9z'; known: p1a_bytes"):
        visible_checks("p9z", {})


def test_a_follow_through_probe_gives_up_on_a_function_that_never_returns() -> None:
    """It costs its own probe only: its later calls are not made, the next probe is evaluated,
    and no alarm or handler is left behind."""
    started: list[tuple[int, int, int]] = []

    def ops(B: int, D: int, F: int) -> int:
        started.append((B, D, F))
        while True:
            time.sleep(0.01)

    handler = signal.getsignal(signal.SIGALRM)
    stuck = own_probe("ops", [(1, 2, 3), (4, 5, 6)]).to_json() | {"budget_s": 0.2}
    after = own_probe("flops", [(1, 2, 3)]).to_json()
    namespace = {"ops": ops, "flops": lambda B, D, F: 2 * B * D * F}
    results = collect(namespace, [stuck, after])
    assert results["own:ops"] == [{"e": "ops took longer than 0.2 s"}]
    assert started == [(1, 2, 3)]  # interrupted in the first call; the second never began
    assert results["own:flops"] == [{"v": 12}]
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is handler


# -- hints never give the answer away -------------------------------------------------------------


def _expectations(problem: str) -> list[Expected]:
    """What every hidden check of ``problem`` expects, on one plan each."""
    return [
        expected
        for part in PROBLEMS[problem]
        if part.check is not None
        for expected in expectations(part.check, make_plan(part.check, "hints"))
    ]


def _hints(problem: str) -> list[str]:
    """Every hint a student of ``problem`` can be shown: hidden and visible."""
    hints = []
    for expected in _expectations(problem):
        hints.append(expected.hint)
        hints.extend(h for h, _ in expected.mistakes)
    for part in PROBLEMS[problem]:
        for case in selfcheck.cases().get(part.grade_id, ()):
            hints.append(case["hint"])
            hints.extend(m["hint"] for m in case.get("mistakes", ()))
    return hints


def _named_answers(problem: str) -> list[float]:
    """The reference value of every named answer (not a function) of ``problem``."""
    return [
        float(v)
        for expected in _expectations(problem)
        if expected.probe.calls is None and not expected.probe.key.startswith("own:")
        for v in expected.values
    ]


NUMBER = re.compile(r"\d+(?:[.,]\d+)*(?:e[+-]?\d+)?")


@pytest.mark.parametrize("problem", list(PROBLEMS))
def test_hints_name_the_concept_not_the_value(problem: str) -> None:
    answers = _named_answers(problem)
    for hint in set(_hints(problem)):
        assert "answer is" not in hint and "math.inf" not in hint, hint
        if any(math.isinf(a) for a in answers):
            assert "inf" not in hint.replace("information", ""), hint
        for number in NUMBER.findall(hint):
            value = float(number.replace(",", ""))
            for answer in answers:
                if math.isfinite(answer) and answer:
                    assert abs(value - answer) > 1e-3 * abs(answer), (hint, answer)


def test_a_figure_is_held_to_the_students_own_function(capsys: pytest.CaptureFixture[str]) -> None:
    out = _run("p3b_curves", namespace("problem3"), capsys)
    assert out.splitlines() == [
        "✓ plot_roofline() draws achievable_flops_per_s(B, 4096, 4096) for B = 1, …, 512",
        "  plot_roofline() 画出了 B = 1, …, 512 时的 achievable_flops_per_s(B, 4096, 4096) 曲线",
        "✓ plot_roofline() draws achievable_flops_per_s(B, 1024, 1024) for B = 1, …, 512",
        "  plot_roofline() 画出了 B = 1, …, 512 时的 achievable_flops_per_s(B, 1024, 1024) 曲线",
    ]
    ns = namespace("problem3", **BY_KEY["p3a-no-peak"].answers())
    visible_checks("p3b_curves", ns)  # wrong in (a), but these are the student's own curves
    ns = namespace("problem3", **BY_KEY["p3b-wrong-size"].answers())
    with pytest.raises(
        VisibleCheckError, match="no line matches achievable FLOP/s for D = F = 1024"
    ):
        visible_checks("p3b_curves", ns)


@pytest.mark.parametrize("key", sorted(BY_KEY))
def test_no_visible_check_fails_a_part_the_hidden_checks_pass(
    key: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """For every catalogued mistake, each part that keeps its points at grading (by follow-through
    from the student's own earlier answers, or untouched) is never failed by its visible checks:
    a case building on a failing earlier part is not judged, and says to fix that part first."""
    mistake = BY_KEY[key]
    ns = namespace(mistake.problem, **mistake.answers())
    for grade_id in mistake.expected_points():
        if PARTS[grade_id].manual:
            continue
        try:
            visible_checks(grade_id, ns)
        except VisibleCheckError as failed:
            pytest.fail(f"{key}: {grade_id} keeps its points at grading, yet shows:\n{failed}")
    capsys.readouterr()


def test_problem_1c_judges_the_limit_as_the_grader_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The review's case: ops wrong (one OP per multiply-add), arithmetic_intensity computed from the
    student's own functions, and intensity_limit = 2·B, right. The grader accepts 2·B; the visible
    check must not fail it (nor push towards `return B`): it is not judged, and the cell says once
    to fix ops first. With every earlier part right, `return B` fails, with a true hint."""
    answers = BY_KEY["p1b-one-op"].answers()
    answers["p1c-answer"] = answers["p1c-answer"].replace(
        "return 2 * B * D * F / (B * D + D * F + B * F)",
        "return ops(B, D, F) / (bytes_loaded(B, D, F) + bytes_written(B, D, F))",
    )
    ns = namespace("problem1", **answers)
    assert ns["intensity_limit"](4) == 8  # the model's: 2·B
    assert ns["arithmetic_intensity"](4, 10**9, 10**9) == pytest.approx(4, rel=1e-6)
    out = _run("p1c_intensity", ns, capsys)  # raises nothing
    assert "return B" not in out and "what your arithmetic_intensity" not in out
    assert out.count("this builds on your ops (part (b))") == 1, out
    assert "not checked yet (2 case(s))" in out

    ns = namespace("problem1", **BY_KEY["p1c-limit-B"].answers())
    with pytest.raises(VisibleCheckError) as failed:
        visible_checks("p1c_intensity", ns)
    assert "intensity_limit(4) is 4, but arithmetic_intensity(4, 10**9, 10**9) is 7.99999" in str(
        failed.value
    )
    assert "what your arithmetic_intensity(B, D, F) approaches" in str(failed.value)


# -- one language at a time ---------------------------------------------------------------------


@pytest.mark.parametrize("language", ["en", "zh_CN", None])
def test_a_failing_check_speaks_the_students_language_only(
    language: str | None, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    monkeypatch.chdir(tmp_path)  # no setting file above: only the environment decides
    if language is None:
        monkeypatch.delenv(LANGUAGE_ENV, raising=False)
    else:
        monkeypatch.setenv(LANGUAGE_ENV, language)
    ns = namespace("problem1", **BY_KEY["p1a-bf16"].answers())
    with pytest.raises(VisibleCheckError) as failed:
        visible_checks("p1a_bytes", ns)
    shown = "\n".join(failed.value._render_traceback_())
    english = ["returned 36; for these inputs it should be 18.", "Hint: an int8 element is one"]
    chinese = ["返回了 36；对这组输入，应为 18。", "提示："]
    has_english = [text in shown for text in [*english, "visible checks failed"]]
    has_chinese = [text in shown for text in chinese]
    assert all(has_english) == (language != "zh_CN"), shown
    assert all(has_chinese) == (language != "en"), shown
    assert not any(has_english) if language == "zh_CN" else True, shown
    assert not any(has_chinese) if language == "en" else True, shown
    if language is not None:  # the count, then two lines a failed case: nothing interleaved
        assert len(shown.splitlines()) == 1 + 2 * 2, shown


def test_the_work_folders_setting_decides_when_the_environment_does_not(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(LANGUAGE_ENV, raising=False)
    (tmp_path / SETTING_FILE).write_text("zh_CN\n", encoding="utf-8")
    notebook_folder = tmp_path / "problem1"
    notebook_folder.mkdir()
    monkeypatch.chdir(notebook_folder)  # a kernel runs in its notebook's folder
    ns = namespace("problem1", **BY_KEY["p1a-bf16"].answers())
    out = _run("p1d_times", ns, capsys)
    assert "暂不检查（1 项）" in out and "not checked yet" not in out, out


def test_a_language_that_is_not_offered_is_named_with_the_allowed_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(LANGUAGE_ENV, "fr")
    with pytest.raises(ValueError, match=r"ROOFLINE_LAB_LANGUAGE must be one of en, zh_CN"):
        visible_checks("p1a_bytes", namespace("problem1"))
