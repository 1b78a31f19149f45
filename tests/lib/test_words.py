"""Every word outside the prose, in every language (roofline_lib.words, issue 16).

The table is checked against the code that says its words: every ``say("...")`` and
``say_later("...")`` literal of the library, the book's helpers and extensions and the code cells
of its pages (read with :mod:`ast`), and every ``say("...")`` of the live explorer's script, has
a Chinese entry with the same ``{fields}``, and no entry is left that nothing says. A Chinese
figure carries its Chinese words and draws every glyph of them; English stays the key itself.
"""

from __future__ import annotations

import ast
import re
import textwrap
import warnings
from collections.abc import Iterator
from pathlib import Path

import matplotlib
import numpy as np
import pytest
from fontTools.ttLib import TTFont
from matplotlib import font_manager
from matplotlib.text import Text

import roofline_lib as rl
from roofline_lib import plots, words
from roofline_lib.explorer import OPERATIONS, SHARDS
from roofline_lib.explorer_data import LIVE_WORDS, explorer_data
from roofline_lib.roofline import REGIMES
from roofline_lib.words import FONT_ENV, LANGUAGE_ENV, ZH_CN, fields_of, say
from tests.conftest import in_ci
from tests.test_layers import python_of
from tools.book import FONT

ROOT = Path(__file__).resolve().parents[2]
EXPLORER_JS = ROOT / "book" / "_ext" / "live_explorer_static" / "roofline-explorer.js"
SAYING = ("say", "say_later")


def sources() -> Iterator[tuple[Path, str]]:
    """(path, Python) of everything that says words: the library, the book's .py helpers and
    extensions, and the code cells of its pages."""
    paths = [
        *sorted((ROOT / "roofline_lib").rglob("*.py")),
        *sorted((ROOT / "book").glob("*.py")),
        *sorted((ROOT / "book" / "_ext").glob("*.py")),
        *sorted((ROOT / "book").glob("*.md")),
    ]
    for path in paths:
        yield path, python_of(path.read_text(encoding="utf-8"), path.suffix)


def _said(node: ast.expr) -> list[str | None]:
    """The texts an argument of say() can be: a literal, either branch of ``a if c else b``;
    None for an f-string (never a table key)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        return _said(node.body) + _said(node.orelse)
    if isinstance(node, ast.JoinedStr):
        return [None]
    return []  # a name or an attribute: said where it is defined, with say_later


def said_in_python() -> dict[str, str]:
    """Every literal text said (or marked with say_later) -> where, 'path:line'."""
    found: dict[str, str] = {}
    for path, code in sources():
        for node in ast.walk(ast.parse(code)):
            if not (isinstance(node, ast.Call) and node.args):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name not in SAYING:
                continue
            for text in _said(node.args[0]):
                where = f"{path.relative_to(ROOT)}:{node.lineno}"
                assert text is not None, f"{where}: say() of an f-string; use say('...', field=)"
                found.setdefault(text, where)
    return found


_JS_SAY = re.compile(r"\bsay\(\s*\"((?:[^\"\\]|\\.)*)\"")


def said_in_javascript() -> set[str]:
    """The templates roofline-explorer.js says (its ``say("...")`` literals)."""
    text = EXPLORER_JS.read_text(encoding="utf-8")
    return {ast.literal_eval(f'"{m}"') for m in _JS_SAY.findall(text)}


# -- the table against the code ---------------------------------------------------------------


def test_every_said_text_has_a_chinese_entry_with_the_same_fields() -> None:
    said = said_in_python()
    assert len(said) > 300
    missing = {text: where for text, where in said.items() if text not in ZH_CN}
    assert not missing, f"no zh_CN entry (roofline_lib/words_zh_cn.py) for: {missing}"
    for text, where in said.items():
        assert fields_of(ZH_CN[text]) == fields_of(text), (where, text, ZH_CN[text])


def test_no_entry_of_the_table_is_left_unsaid() -> None:
    unused = set(ZH_CN) - set(said_in_python())
    assert not unused, f"entries nothing says (remove them): {sorted(unused)}"


def test_every_translation_formats_and_only_names_stay_english() -> None:
    for english, chinese in ZH_CN.items():
        fields = {name: "X" for name in fields_of(english)}
        assert say(english, language="zh_CN", **fields) == chinese.format(**fields)
    same = {english for english, chinese in ZH_CN.items() if english == chinese}
    # a unit and the number formats are written alike in both languages
    assert same == {"FLOPs", "bf16 × bf16 → bf16", "int8 × int8 → int8", "fp32 × fp32 → fp32"}


def test_the_live_explorer_says_only_what_its_data_carries() -> None:
    in_script = said_in_javascript()
    assert len(in_script) > 25
    assert in_script == set(LIVE_WORDS) - set(REGIMES), in_script ^ (set(LIVE_WORDS) - set(REGIMES))
    data = explorer_data(language="zh_CN")
    assert set(data["words"]) == set(LIVE_WORDS)
    assert data["words"]["Chip"] == "芯片"
    assert data["words"]["memory-bound"] == "内存带宽受限"
    assert data["operations"]["matmul"]["label"] == ZH_CN["matmul X[B, D] · Y[D, F]"]
    assert explorer_data()["words"]["Chip"] == "Chip"  # English: each template is itself


def test_the_explorers_two_chip_label_names_its_shards() -> None:
    assert f"{SHARDS} chips" in OPERATIONS["sharded_matmul"].label
    assert f"{SHARDS}-chip" in OPERATIONS["sharded_matmul"].short


# -- language() and say() ---------------------------------------------------------------------


def test_the_language_is_english_unless_the_environment_says_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(LANGUAGE_ENV, raising=False)
    assert words.language() == "en"
    monkeypatch.setenv(LANGUAGE_ENV, "")
    assert words.language() == "en"
    monkeypatch.setenv(LANGUAGE_ENV, "zh_CN")
    assert words.language() == "zh_CN"
    assert say("compute-bound") == "计算受限"


def test_an_unknown_language_is_refused_naming_the_variable_and_the_choices(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(LANGUAGE_ENV, "zh-CN")
    with pytest.raises(ValueError, match=r"ROOFLINE_LANG must be one of en, zh_CN, got 'zh-CN'"):
        words.language()
    with pytest.raises(ValueError, match="ROOFLINE_LANG must be one of en, zh_CN"):
        say("compute-bound", language="fr")


def test_english_is_the_text_itself_formatted() -> None:
    assert say("critical {value}", language="en", value="295") == "critical 295"
    assert say("no such text anywhere", language="en") == "no such text anywhere"


def test_a_text_missing_from_the_table_fails_at_once_in_chinese() -> None:
    with pytest.raises(KeyError, match="no zh_CN translation for 'no such text'"):
        say("no such text", language="zh_CN")


def test_fields_must_match_the_template() -> None:
    assert say("critical {value}", language="zh_CN", value="295") == "临界 295"
    with pytest.raises(KeyError, match=r"takes the fields \['value'\], got \['values'\]"):
        say("critical {value}", language="zh_CN", values="295")


def test_regimes_are_the_glossarys_terms() -> None:
    assert [say(r, language="zh_CN") for r in REGIMES] == ["计算受限", "内存带宽受限", "网络受限"]
    regime = rl.analyze(rl.matmul(64, 8192, 8192), "H100 SXM").regime
    assert regime == "memory-bound"  # the library's value stays English
    assert say(regime, language="zh_CN") == "内存带宽受限"


def test_a_catalog_basis_is_english_for_tables_and_said_on_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A basis is a cell of the book's tables, which the catalogs translate: English in every
    edition; the live explorer asks for it in its language."""
    monkeypatch.setenv(LANGUAGE_ENV, "zh_CN")
    h100 = rl.get_chip("H100 SXM")
    citation = h100.citations["peak_flops_per_s.bf16"]
    assert citation.basis == "dense = sparse headline ÷ 2"
    assert citation.basis_in("zh_CN") == "稠密 = 稀疏标称值 ÷ 2"
    link = h100.links["nvlink4"]
    assert link.basis == f"{rl.hardware.LINK_SCOPE}; 18 × 25 GB/s"
    assert link.basis_in("zh_CN") == f"{ZH_CN[rl.hardware.LINK_SCOPE]}；18 × 25 GB/s"


# -- figures in Chinese -----------------------------------------------------------------------


def test_a_cjk_language_without_its_font_is_refused_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(LANGUAGE_ENV, "zh_CN")
    monkeypatch.delenv(FONT_ENV, raising=False)
    with matplotlib.rc_context(), pytest.raises(FileNotFoundError, match="ROOFLINE_CJK_FONT"):
        words.use_language_font()
    monkeypatch.setenv(FONT_ENV, "/no/such/font.otf")
    with (
        matplotlib.rc_context(),
        pytest.raises(FileNotFoundError, match=re.escape("/no/such/font.otf")),
    ):
        words.use_language_font()


def test_english_leaves_matplotlibs_fonts_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(LANGUAGE_ENV, raising=False)
    with matplotlib.rc_context():
        before = list(matplotlib.rcParams["font.family"])
        words.use_language_font()
        assert list(matplotlib.rcParams["font.family"]) == before


@pytest.fixture
def cjk_font() -> Path:
    """The book's CJK font (fetched by `make setup`); skipped with that advice when missing,
    except in CI."""
    if not FONT.is_file():
        message = f"{FONT} is missing: run `make setup` (tools/fetch_static.py fetches it)"
        (pytest.fail if in_ci() else pytest.skip)(message)
    return FONT


def test_the_fonts_have_a_glyph_for_every_character_of_the_table(cjk_font: Path) -> None:
    """Every character of a translation is in the Latin font matplotlib draws with first or in
    the CJK font after it (µ, for one, comes from the Latin font)."""
    latin = font_manager.findfont(font_manager.FontProperties(family="DejaVu Sans"))
    drawn = set(TTFont(latin).getBestCmap()) | set(TTFont(cjk_font).getBestCmap())
    used = {c for text in ZH_CN.values() for c in text if ord(c) > 0x7F}
    assert len(used) > 300
    assert not {c for c in used if ord(c) not in drawn}


def _texts(fig: matplotlib.figure.Figure) -> str:
    return "\n".join(t.get_text() for t in fig.findobj(Text) if t.get_text())


def test_a_chinese_figure_has_its_chinese_words_and_draws_every_glyph(
    monkeypatch: pytest.MonkeyPatch, cjk_font: Path, tmp_path: Path
) -> None:
    monkeypatch.setenv(LANGUAGE_ENV, "zh_CN")
    monkeypatch.setenv(FONT_ENV, str(cjk_font))
    ops = {say("dot product"): rl.dot_product(8192), "B = 4096": rl.matmul(4096, 8192, 8192)}
    with matplotlib.rc_context(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig = plots.plot_roofline("H100 SXM", ops=ops)
        chart = plots.plot_roofline_regions(989.5e12, [3.35e12, 30.9e12])
        for figure, name in ((fig, "roofline"), (chart, "regions")):
            figure.savefig(tmp_path / f"{name}.png")
            figure.savefig(tmp_path / f"{name}.svg")
    text = _texts(fig)
    assert "算术强度（FLOPs/byte）" in text and "可达吞吐（FLOP/s）" in text
    assert "低于临界算术强度时，速度由带宽决定" in fig.axes[0].get_title().replace("\n", "")
    assert "H100 SXM：临界 295" in text and "点积" in text
    assert "两种带宽下均计算受限" in _texts(chart)  # a narrow region: named in the legend
    missing = [str(w.message) for w in caught if "missing from" in str(w.message)]
    assert not missing, missing
    svg = (tmp_path / "roofline.svg").read_text(encoding="utf-8")
    assert "<text" not in svg  # glyphs are paths: no reader needs the font


def test_math_and_chinese_in_one_text_draw_every_glyph(
    monkeypatch: pytest.MonkeyPatch, cjk_font: Path, tmp_path: Path
) -> None:
    """mathtext draws the words around $...$ in one font: a text mixing both is given the CJK
    font when the figure is fitted to the page (plots.fit_figure)."""
    monkeypatch.setenv(LANGUAGE_ENV, "zh_CN")
    monkeypatch.setenv(FONT_ENV, str(cjk_font))
    with matplotlib.rc_context(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ax = plots.axes_or_new(None)
        ax.plot([1, 2], [1, 2], label=say("square tiles, $b_B = b_F$"))
        ax.set_xlabel(say("Tile size $b_F$ (elements)"))
        ax.legend()
        fig = plots.fit_figure(plots.figure_of(ax))
        fig.savefig(tmp_path / "tiles.png")
    missing = [str(w.message) for w in caught if "glyph" in str(w.message).lower()]
    assert not missing, missing


def test_english_figures_are_unchanged_by_the_words(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(LANGUAGE_ENV, raising=False)
    fig = plots.plot_roofline("H100 SXM", ops={"dot product": rl.dot_product(8192)})
    ax = fig.axes[0]
    assert ax.get_xlabel() == "Arithmetic intensity (FLOPs/byte)"
    assert ax.get_ylabel() == "Achievable throughput (FLOP/s)"
    assert "H100 SXM: critical 295" in _texts(fig)
    assert np.isfinite(rl.critical_intensity("H100 SXM"))


def test_english_is_wrapped_as_before_and_chinese_between_its_characters() -> None:
    english = "Only the 4,096-token matmul reaches the H100's roof; the others wait for memory"
    assert plots.fill(english, 40) == textwrap.fill(english, 40)
    chinese = "从 A100 到 H100、从 TPU v5e 到 v6e，算力增长快于带宽；H200 则相反"
    lines = plots.fill(chinese, 24).split("\n")
    assert "".join(lines).replace(" ", "") == chinese.replace(" ", "")
    assert all(plots.text_width(line) <= 24 for line in lines)
    assert not any(line[0] in "，；：、）" for line in lines)
    assert lines[0].endswith("、")  # a clause ends a line where it can
    unit = plots.fill("预测：由实测峰值 48.9 GFLOP/s 与 triad 带宽 12 GB/s 得到的 roofline", 44)
    assert "12 GB/s" in unit.split("\n")[-1]  # a number keeps its unit
    assert "B = 64" in plots.fill("Llama-3-70B，8 × H100 SXM 上 B = 64 的一个解码步", 26)
