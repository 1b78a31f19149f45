"""The exercises in Chinese: every message a check can show has its Chinese in one catalog
(locales/zh_CN/LC_MESSAGES/checks.po), and the visible checks and the feedback show it below the
English, which stays exactly as it was."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from roofline_grader.checks import catalog
from roofline_grader.checks.base import Cause, Finding, carried_note, label_words
from roofline_grader.checks.problem3 import curve_hint
from roofline_grader.checks.problem7 import SET_CRITICAL_D_HINT
from roofline_grader.outputs import catalog as grader_catalog
from roofline_grader.outputs import feedback
from roofline_grader.results import Status, SubmissionResult
from roofline_lib.selfcheck import VisibleCheckError, visible_checks
from roofline_lib.selfcheck.i18n import (
    Catalog,
    bilingual,
    display_width,
    template_pattern,
    translate,
    wrap,
)

from .mistakes import BY_KEY
from .test_grading_checks import namespace


def test_every_message_a_check_can_show_has_its_chinese() -> None:
    """Drift is a failure: a hint without a translation, a fuzzy or obsolete entry, a lost name or
    number, a stale compiled catalog. `python -m roofline_grader.outputs.catalog --update` adds
    the missing entries; `make release` compiles the catalog."""
    assert grader_catalog.problems() == []


def test_the_catalog_covers_the_hints_of_every_known_mistake() -> None:
    """Every hint and note the hidden checks give the catalogue of typical mistakes, as given."""
    for mistake in BY_KEY.values():
        findings = [
            finding
            for gid in (mistake.part, *mistake.carried)
            for finding in _judge(gid, namespace(mistake.problem, **mistake.answers()))
        ]
        for finding in findings:
            if finding.hint:
                assert translate(finding.hint), (mistake.key, finding.hint)


def _judge(grade_id: str, ns: dict) -> list[Finding]:
    from .test_grading_checks import judge

    return judge(grade_id, ns)


def test_a_failing_visible_check_prints_the_hint_in_english_then_in_chinese() -> None:
    ns = namespace("problem1", **BY_KEY["p1a-bf16"].answers())
    with pytest.raises(VisibleCheckError) as failed:
        visible_checks("p1a_bytes", ns)
    message = str(failed.value)
    hint = "an int8 element is one byte, not two"
    chinese = translate(hint)
    assert chinese and "int8" in chinese and not chinese.isascii()
    lines = message.splitlines()
    assert lines[:4] == [
        "✗ bytes_loaded(2, 3, 4) returned 36; for these inputs it should be 18.",
        f"  Hint: {hint}",
        "  bytes_loaded(2, 3, 4) 返回了 36；对这组输入，应为 18。",
        f"  提示：{chinese}",
    ]
    rendered = failed.value._render_traceback_()
    assert rendered[1] == "  2 项可见检查中有 2 项未通过"
    assert all(display_width(line) <= 80 for line in rendered), "Validate cuts long lines"


def test_a_part_that_builds_on_a_failing_one_says_so_in_both_languages(capsys) -> None:
    ns = namespace("problem1", **BY_KEY["p1a-bf16"].answers())
    visible_checks("p1d_times", ns)  # not judged while part (a) fails: nothing raised
    out = capsys.readouterr().out
    assert "this builds on your bytes_loaded and bytes_written (part (a))" in out
    assert "你的 bytes_loaded、bytes_written（第 (a) 小题）" in out


def test_a_passing_check_with_words_is_said_in_both_languages(capsys) -> None:
    visible_checks("p5a_dense_peak", namespace("problem5"))
    out = capsys.readouterr().out.splitlines()
    assert out[:2] == [
        "✓ dense_bf16_flops_per_s is not H100_HEADLINE_BF16_FLOPS_PER_S",
        "  dense_bf16_flops_per_s 不等于 H100_HEADLINE_BF16_FLOPS_PER_S",
    ]


def test_a_hint_with_a_number_in_it_is_translated_through_its_template() -> None:
    assert "D = F = 1024" in (translate(curve_hint(1024)) or "")
    assert "D = F = 4096" in (translate(curve_hint(4096)) or "")
    one = SET_CRITICAL_D_HINT.format(name="d_crit_ib_8", n=8, key="ib_bytes_per_s")
    assert (
        translate(one) == "d_crit_ib_8 应等于你的 critical_d 在 N = 8、带宽为 ib_bytes_per_s 时的值"
    )


def test_a_carried_note_translates_where_it_was_carried_from() -> None:
    assert (translate(carried_note("part (b)")) or "").startswith("沿用第 (b) 小题的结果：")
    note = translate(carried_note("your arithmetic_intensity")) or ""
    assert note.startswith("沿用你的 arithmetic_intensity 函数的结果")


def test_a_text_the_catalog_lacks_is_shown_in_english_alone() -> None:
    assert translate("a hint nobody wrote") is None
    assert bilingual("a hint nobody wrote") == "a hint nobody wrote"
    assert bilingual("do not round the answer") == "do not round the answer\n答案不要四舍五入"


def test_feedback_with_no_language_chosen_shows_each_hint_in_both() -> None:
    both = feedback.Speech(None)
    failed = feedback._finding(
        Finding("ops(B, D, F) on unseen shapes", False, "a multiply-add counts as two operations"),
        both,
    )
    assert "a multiply-add counts as two operations" in failed
    assert '<span class="zh" lang="zh-CN">一次乘加算 2 次运算</span>' in failed
    carried = feedback._finding(
        Finding("t_math(B, D, F)", True, carried_note("part (b)"), Cause.CARRIED), both
    )
    assert "carried forward from part (b)" in carried and "沿用第 (b) 小题的结果" in carried


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_feedback_speaks_the_language_the_student_chose_only(language: str) -> None:
    hint = "a multiply-add counts as two operations"
    failed = feedback._finding(Finding("ops(B, D, F)", False, hint), feedback.Speech(language))
    assert (hint in failed) == (language == "en")
    assert ("一次乘加算 2 次运算" in failed) == (language == "zh_CN")
    assert 'class="zh"' not in failed  # one language: nothing interleaved


def test_a_pages_language_is_the_latest_submissions_that_records_one() -> None:
    def result(assignment: str, timestamp: str, language: str | None) -> SubmissionResult:
        return SubmissionResult(
            assignment, "ana", assignment, "x", Status.GRADED, timestamp=timestamp,
            language=language,
        )  # fmt: skip

    assert feedback.page_language({}) is None
    results = {
        "problem1": result("problem1", "2026-12-01 10:00:00 UTC", "en"),
        "problem2": result("problem2", "2026-12-02 10:00:00 UTC", "zh_CN"),
        "problem3": result("problem3", "2026-12-03 10:00:00 UTC", None),
    }
    assert feedback.page_language(results) == "zh_CN"
    assert SubmissionResult.from_json(results["problem2"].to_json()).language == "zh_CN"


# -- the catalog's own checks, on a copy ----------------------------------------------------------


@pytest.fixture
def po_copy(tmp_path: Path) -> Path:
    path = tmp_path / "checks.po"
    shutil.copy(catalog.PO_PATH, path)
    return path


def _compiled(po_path: Path, tmp_path: Path) -> Path:
    compiled = tmp_path / "checks.zh_CN.json"
    catalog.write_compiled(po_path, compiled)
    return compiled


def _edit(po_path: Path, msgid: str, string: str | None = None, fuzzy: bool = False) -> None:
    po = catalog.read_po(po_path)
    entry = po[msgid]
    if string is not None:
        entry.string = string
    if fuzzy:
        entry.flags.add("fuzzy")
    catalog.write_po(po, po_path)


def test_a_fuzzy_or_changed_translation_is_reported(po_copy: Path, tmp_path: Path) -> None:
    _edit(po_copy, "do not round the answer", fuzzy=True)
    _edit(po_copy, "count 2 OPs per multiply-add: 2·B·D·F OPs", string="每次乘加算两次运算")
    _edit(po_copy, "no answer came back for {name}", string="没有拿到答案")
    found = grader_catalog.problems(po_copy, _compiled(po_copy, tmp_path))
    assert "fuzzy (the English changed): 'do not round the answer'" in found
    assert "the translation lacks 2: 'count 2 OPs per multiply-add: 2·B·D·F OPs'" in found
    assert any(f.startswith("the translation's fields are not ['name']") for f in found)


def test_a_changed_english_hint_is_untranslated_and_its_old_entry_obsolete(
    po_copy: Path, tmp_path: Path
) -> None:
    po = catalog.read_po(po_copy)
    old = po["do not round the answer"]
    po.delete(old.id)
    po.add("do not round your answer", old.string)
    catalog.write_po(po, po_copy)
    found = grader_catalog.problems(po_copy, _compiled(po_copy, tmp_path))
    assert "no translation: 'do not round the answer'" in found
    assert "obsolete (no check says it): 'do not round your answer'" in found


def test_a_stale_compiled_catalog_is_reported(po_copy: Path, tmp_path: Path) -> None:
    compiled = _compiled(po_copy, tmp_path)
    _edit(po_copy, "give the time in seconds", string="时间用秒表示")
    found = grader_catalog.problems(po_copy, compiled)
    assert found == ["checks.zh_CN.json is not the compiled checks.po: run `make release`"]


def test_update_adds_an_empty_entry_for_a_new_message(po_copy: Path) -> None:
    po = catalog.read_po(po_copy)
    po.delete("give the time in seconds")
    catalog.write_po(po, po_copy)
    assert grader_catalog.update(po_copy) == ["give the time in seconds"]
    assert catalog.read_po(po_copy)["give the time in seconds"].string == ""


# -- translating with a catalog ---------------------------------------------------------------------


def test_a_template_matches_its_instances_only() -> None:
    pattern = template_pattern("set {name} with {name} at N = {n}")
    assert pattern.fullmatch("set x with x at N = 2")
    assert not pattern.fullmatch("set x with y at N = 2"), "a field used twice says the same"
    assert not template_pattern("{name} is not {expression}").fullmatch("x is nothing")


def test_the_most_specific_template_wins_and_values_are_translated_too() -> None:
    data = {
        "messages": {"part (a)": "第 (a) 小题"},
        "templates": {
            "{name} is not {expression}": "{name} 不等于 {expression}",
            "{name} is not defined: run it": "{name} 尚未定义：请运行它",
            "carried from {source}": "沿用{source}",
        },
    }
    translator = Catalog.from_json(json.dumps(data))
    assert translator.lookup("x is not defined: run it")[0] == "x 尚未定义：请运行它"
    chinese, used = translator.lookup("carried from part (a)")
    assert chinese == "沿用第 (a) 小题"
    assert used == {"carried from {source}", "part (a)"}


def test_chinese_lines_wrap_by_the_columns_they_take() -> None:
    text = "  提示：" + "这是一条很长的中文提示，" * 6 + "bytes_loaded(B, D, F) 要算上两个操作数。"
    lines = wrap(text, 40, "    ")
    assert all(display_width(line) <= 40 for line in lines)
    assert "".join(line.strip() for line in lines).replace(" ", "") == text.replace(" ", "")
    assert not any(line.strip().startswith(("，", "。")) for line in lines)


def test_the_readme_command_reports_the_catalog_complete() -> None:
    """README: `python -m roofline_grader.outputs.catalog` reports what needs work."""
    done = subprocess.run(
        [sys.executable, "-m", "roofline_grader.outputs.catalog"],
        cwd=catalog.ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert " 0 fuzzy, 0 untranslated;" in done.stdout
    assert done.stdout.rstrip().endswith("complete: every message has its Chinese")


def test_a_findings_label_is_code_and_words_and_only_the_words_are_translated() -> None:
    assert label_words("bytes_loaded(B, D, F) on unseen shapes") == (
        "bytes_loaded(B, D, F)",
        " ",
        "on unseen shapes",
    )
    assert label_words("run_mfu, the run's MFU") == ("run_mfu", ", ", "the run's MFU")
    assert label_words("h100_critical_batch") == ("h100_critical_batch", "", "")
    assert label_words("the peak line") == ("", "", "the peak line")
    chinese = feedback.Speech("zh_CN")
    failed = feedback._finding(Finding("ops(B, D, F) on unseen shapes", False, "x"), chinese)
    assert "ops(B, D, F) 在未见过的形状上" in failed


def test_a_named_value_hint_says_what_the_value_should_equal() -> None:
    """ "critical_batch_4096 应等于你的 critical_batch 在 … 时的值", not the stiff "用你的 critical_batch
    … 来设置 critical_batch_4096" that reads as a translation."""
    stiff = [
        str(m.string)
        for m in catalog.read_po()
        if m.id and "来设置" in str(m.string) and str(m.string).startswith("用你的")
    ]
    assert stiff == []
