"""One language at a time in the exercises (roofline_lib.selfcheck.language): a statement shown
in the student's language and written back as released, byte for byte; the language chosen by
the environment, the work folder or the locale; a language not offered named with the allowed
ones."""

from __future__ import annotations

import copy
from pathlib import Path

import nbformat
import pytest

from roofline_lib.selfcheck.language import (
    LANGUAGE_ENV,
    METADATA_KEY,
    RULE,
    SETTING_FILE,
    checked_language,
    chosen_language,
    languages_of,
    notebook_language,
    release_notebook,
    released,
    show_notebook,
    shown,
    system_language,
)

ROOT = Path(__file__).resolve().parents[2]
RELEASE = sorted((ROOT / "exercises").glob("*/*.ipynb"))


def test_every_statement_of_the_release_is_bilingual_and_comes_back_as_released() -> None:
    assert len(RELEASE) == 9
    statements = 0
    for path in RELEASE:
        for cell in nbformat.read(path, 4).cells:
            if cell.cell_type != "markdown" or cell.source == "YOUR ANSWER HERE":
                continue
            assert languages_of(cell.source), f"{path.name}: a statement without both languages"
            statements += 1
            for language in ("en", "zh_CN"):
                text = shown(cell.source, language)
                assert RULE not in text and released(text) == cell.source
                assert shown(text, language) == text  # shown once, not folded twice
    assert statements >= 50


def test_a_statement_shows_its_language_first_and_folds_the_other() -> None:
    source = "## (a) Bytes\n\nWrite it." + RULE + "## (a) 字节\n\n编写它。"
    assert shown(source, "zh_CN") == (
        "## (a) 字节\n\n编写它。\n\n"
        '<details class="other-language" lang="en"><summary>English</summary>\n\n'
        "## (a) Bytes\n\nWrite it.\n\n</details>"
    )
    assert shown(source, "en").startswith("## (a) Bytes\n\nWrite it.\n\n<details")
    assert "<summary>中文</summary>\n\n## (a) 字节" in shown(source, "en")
    for other in ("YOUR ANSWER HERE", "def f():\n    return 1", "just English"):
        assert shown(other, "zh_CN") == other and released(other) == other


def test_a_notebook_is_shown_and_saved_back_with_the_language_recorded() -> None:
    notebook = nbformat.reads(RELEASE[0].read_text(encoding="utf-8"), 4)  # sources joined
    before = copy.deepcopy(notebook)
    show_notebook(notebook, "zh_CN")
    assert notebook["cells"] != before["cells"]
    release_notebook(notebook, "zh_CN")
    assert notebook["cells"] == before["cells"]
    assert notebook["metadata"][METADATA_KEY] == "zh_CN"
    assert notebook_language(notebook) == "zh_CN" and notebook_language(before) is None
    assert notebook_language({"metadata": {METADATA_KEY: "klingon"}}) is None


def test_the_environment_then_the_work_folder_decide(tmp_path: Path) -> None:
    folder = tmp_path / "work" / "problem1"
    folder.mkdir(parents=True)
    assert chosen_language({}, folder) is None  # nothing chosen: both, as released
    (tmp_path / "work" / SETTING_FILE).write_text("zh_CN\n", encoding="utf-8")
    assert chosen_language({}, folder) == "zh_CN"
    assert chosen_language({LANGUAGE_ENV: "en"}, folder) == "en"
    (tmp_path / "work" / SETTING_FILE).write_text("nonsense\n", encoding="utf-8")
    assert chosen_language({}, folder) is None


@pytest.mark.parametrize(
    ("value", "language"),
    [("en", "en"), ("English", "en"), ("zh", "zh_CN"), ("zh-CN", "zh_CN"), ("zh_cn", "zh_CN")],
)
def test_a_language_is_read_in_its_usual_spellings(value: str, language: str) -> None:
    assert checked_language(value, "--language") == language


def test_a_language_not_offered_is_named_with_the_allowed_ones() -> None:
    with pytest.raises(ValueError, match=r"--language must be one of en, zh_CN \(got 'fr'\)"):
        checked_language("fr", "--language")


@pytest.mark.parametrize(
    ("environ", "language"),
    [
        ({"LANG": "zh_CN.UTF-8"}, "zh_CN"),
        ({"LANG": "zh_TW.UTF-8"}, "zh_CN"),
        ({"LANG": "en_GB.UTF-8"}, "en"),
        ({"LC_ALL": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, "zh_CN"),
        ({"LC_ALL": "C.UTF-8", "LANG": "zh_CN.UTF-8"}, "zh_CN"),
        ({"LANG": "de_DE.UTF-8"}, "en"),
    ],
)
def test_the_default_comes_from_the_systems_locale(environ: dict[str, str], language: str) -> None:
    assert system_language(environ) == language
