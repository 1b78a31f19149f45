"""Issue 25, "Sources" and "Smaller": claims the built pages once got wrong about their sources,
published MFUs, critical batches, articles and figures.

Each test recomputes what the page must say from roofline_lib (not through the page's own cells)
and reads the built HTML; most also check that the old wording is gone.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

import roofline_lib as rl
from roofline_lib import chapter, published
from roofline_lib.fmt import format_batch, format_number, format_percent
from tests.book.site import ROOT, toc_pages
from tests.book.test_book_numbers import _article, _rendered

pytestmark = pytest.mark.slow

ERRATA = "book/12_errata_and_sources"
ORIGINAL_FILE = re.compile(r"https://github\.com/jax-ml/scaling-book/blob/[^/]+/roofline\.md")
LIVE_PAGE = "https://jax-ml.github.io/scaling-book/roofline/"


def _text(html: Path, page: str) -> str:
    return " ".join(_article(html, page).get_text(" ").split())


def _shown(html: Path, page: str) -> dict[str, str]:
    return dict(_rendered(html, page))


# -- published MFUs: three cited runs, no "better than any" -----------------------------------


@pytest.mark.parametrize(
    "page", ["book/01_where_the_time_goes", "book/08_mfu", "book/11_takeaways"]
)
def test_published_mfus_are_the_range_of_three_cited_runs(html: Path, page: str) -> None:
    text = _text(html, page)
    assert format_percent(published.REPORTED_MFU_LOW, 2) in text  # 38%
    assert format_percent(published.REPORTED_MFU_HIGH) in text  # 55.2%, MegaScale
    assert "MegaScale" in text
    assert "better than any published" not in text


def test_the_mfu_page_cites_megascale_and_reads_above_the_range_honestly(html: Path) -> None:
    links = {a.get("href") for a in _article(html, "book/08_mfu").select("a")}
    assert published.MEGASCALE_175B_MFU.citation.url in links
    shown = _shown(html, "book/08_mfu")
    assert shown["mfu_stage_megascale"] == "~" + format_percent(0.552, 3)
    assert shown["mfu_diag_high"] == format_percent(0.552)
    text = _text(html, "book/08_mfu")
    assert "above every run cited here" in text


def test_page_one_names_each_run_with_its_figure(html: Path) -> None:
    shown = _shown(html, "book/01_where_the_time_goes")
    assert shown["mfu_megascale"] == "55.2%" and shown["mfu_palm"] == "46.2%"
    assert shown["mfu_pub_low"] == "38%" and shown["mfu_pub_high"] == "55.2%"
    assert "not limits" in _text(html, "book/01_where_the_time_goes")


# -- the original: one pinned file ------------------------------------------------------------


@pytest.mark.parametrize("page", toc_pages())
def test_every_link_to_the_originals_file_is_the_pinned_commit(html: Path, page: str) -> None:
    for a in _article(html, page).select("a[href]"):
        href = a["href"]
        if ORIGINAL_FILE.fullmatch(href):
            assert href == published.ORIGINAL_URL, f"{page} links {href}"
        if a.get_text(strip=True) == "source":
            assert href != LIVE_PAGE, f"{page}: a (source) link goes to the live web page"


def test_the_chinese_catalogs_link_the_same_pinned_file() -> None:
    for po in sorted((ROOT / "locales/zh_CN/LC_MESSAGES/book").glob("*.po")):
        with po.open("rb") as stream:
            catalog = read_po(stream)
        for message in catalog:
            for url in ORIGINAL_FILE.findall(str(message.string)):
                assert url == published.ORIGINAL_URL, f"{po.name}: {url}"
            assert f"[出处]({LIVE_PAGE})" not in str(message.string), po.name


def test_the_errata_page_names_the_pinned_commit_and_the_earlier_one(html: Path) -> None:
    shown = _shown(html, ERRATA)
    assert shown["er_commit"] == published.ORIGINAL_COMMIT[:7]
    assert shown["er_commit_earlier"] == published.ORIGINAL_EARLIER_COMMIT[:7]
    text = _text(html, ERRATA)
    assert "this page quotes that commit" not in text


def _row(html: Path, page: str, starts: str) -> list[str]:
    for tr in _article(html, page).select("table tr"):
        cells = [" ".join(td.get_text(" ").split()) for td in tr.select("td")]
        if cells and cells[0].startswith(starts):
            return cells
    raise AssertionError(f"{page}: no table row starting {starts!r}")


def test_only_the_original_times_a_tpu_v6e_and_the_guides_smem_figure_is_33(html: Path) -> None:
    v6e = _row(html, ERRATA, "10¹² bf16 FLOPs on a TPU v6e")
    assert v6e[1] == "—" and v6e[2] == rl.format_quantity(chapter.T_V6E_ORIGINAL_S, "s")
    smem = _row(html, ERRATA, "H100 critical intensity at shared memory")
    assert smem[1] == "33" and smem[1] != format_number(1e15 / 30.9e12)
    text = _text(html, "book/01_where_the_time_goes")
    assert "Both sources work the same example" not in text
    assert "The original also times them on a TPU v6e" in text


def test_problem_1s_bandwidth_is_the_guides_and_the_original_states_8_2e11_now(html: Path) -> None:
    shown = _shown(html, ERRATA)
    assert shown["er_p1_bw_original"] == "820 GB/s"
    assert shown["er_int8_ci_p1_original"] == format_number(3.94e14 / 8.2e11)  # 480
    assert shown["er_int8_b_p1_original"] == format_batch(3.94e14 / 8.2e11 / 2)  # 240
    assert "Both sources state Problem 1" not in _text(html, ERRATA)


def test_the_h100_erratum_is_the_guides_and_says_the_original_changed(html: Path) -> None:
    anchor = _article(html, ERRATA).find(id="sec-errata-h100-ci")
    assert anchor is not None
    box = anchor if "erratum" in (anchor.get("class") or []) else anchor.find_next("div")
    text = " ".join(box.get_text(" ").split())
    assert "Source: the guide" in text and "Source: both" not in text
    assert _shown(html, ERRATA)["er_h100_ci_original"] == format_number(9.89e14 / 3.35e12)
    assert "both sources' figure is off" not in _text(html, "book/04_matmul")


def test_the_ici_erratum_is_a_difference_of_figures_consistent_with_one_port(html: Path) -> None:
    text = _text(html, ERRATA)
    assert "not a slip" in text
    port = rl.get_chip("TPU v5e").links["ici"].per_port_one_way_bytes_per_s
    shown = _shown(html, ERRATA)
    assert shown["er_d_star"] == format_number(2 * 1.97e14 / port, 4)  # 7,880, as page 5
    assert shown["er_ici_chip_bidir"] == "400 GB/s"
    assert "first version, of 5 February 2025" not in text


# -- one MFU for the LLaMA-70B run ------------------------------------------------------------


def test_the_takeaways_give_the_mfu_page_8_gives(html: Path) -> None:
    page8 = _shown(html, "book/08_mfu")["mfu_real_dense"]
    assert _shown(html, "book/11_takeaways")["tk_mfu_7s"] == page8
    errata = _shown(html, ERRATA)
    assert errata["er_mfu_page8"] == page8  # and the errata page says which P gives which
    assert errata["er_mfu_P_guide"] == "70"


# -- critical batches: a threshold, printed rounded down --------------------------------------

V5E, H100, V6E = (rl.get_chip(c) for c in ("TPU v5e", "H100 SXM", "TPU v6e"))
CRITICAL_BATCHES = {
    "book/04_matmul": {
        "v5e_bstar": lambda: rl.critical_batch_size(V5E),
        "h100_bstar": lambda: rl.critical_batch_size(H100),
        "v6e_bstar": lambda: rl.critical_batch_size(V6E),
        "v5e_bstar_exact": lambda: rl.critical_batch_size(V5E, D=8192, F=8192),
        "h100_bstar_exact": lambda: rl.critical_batch_size(H100, D=8192, F=8192),
        "v6e_bstar_exact": lambda: rl.critical_batch_size(V6E, D=8192, F=8192),
    },
    "book/06_low_precision": {
        "lp_b_bf16": lambda: rl.critical_batch_size(V5E, "bf16"),
        "lp_bexact_bf16": lambda: rl.critical_batch_size(V5E, "bf16", D=8192, F=8192),
    },
    "book/08_mfu": {"mfu_bstar_h100": lambda: rl.critical_batch_size(H100)},
    "book/11_takeaways": {"tk_b_v5e": lambda: rl.critical_batch_size(V5E)},
    ERRATA: {"er_e_cross": lambda: rl.critical_batch_size(H100, D=8192, F=8192)},
}


@pytest.mark.parametrize("page", sorted(CRITICAL_BATCHES))
def test_every_printed_critical_batch_is_the_threshold_rounded_down(html: Path, page: str) -> None:
    shown = _shown(html, page)
    for name, value in CRITICAL_BATCHES[page].items():
        b_star = float(value())
        assert shown[name] == format_batch(b_star), f"{page}: {name}"
        assert int(shown[name].replace(",", "")) <= b_star  # "B > shown" holds for whole B


def test_the_definition_of_b_star_is_a_threshold_everywhere(html: Path) -> None:
    intro, glossary = _text(html, "book/intro"), _text(html, "book/13_glossary")
    assert "the smallest B at which a matmul is compute-bound" not in intro
    assert (
        "compute-bound for B > B" in intro.replace("\\(", "").replace("\\)", "").replace("^*", "")
        or "B > B^*" in intro
    )
    assert "above which a matmul is compute-bound" in glossary
    assert "rounded down" in _text(html, "book/04_matmul")


# -- Problem 7: no universal claim Llama 3 405B breaks -----------------------------------------


def test_the_infiniband_critical_d_is_compared_with_the_widest_real_dimensions(html: Path) -> None:
    text = _text(html, "book/10_problems_whole_model")
    assert "no model's D reaches" not in text and "no model's \\(D\\) reaches" not in text
    shown = _shown(html, "book/10_problems_whole_model")
    assert shown["p7_405b_f"] == "53,248" and shown["p7_405b_d"] == "16,384"
    critical = int(shown["p7_ib_2"].replace(",", ""))
    assert published.LLAMA3_405B_D_MODEL < critical < published.LLAMA3_405B_FFN.width


# -- articles before numbers ------------------------------------------------------------------

_ARTICLE_NUMBER = re.compile(r"\b([Aa]n?) (\d[\d,]*(?:\.\d+)?)")


@pytest.mark.parametrize("page", toc_pages())
def test_a_and_an_before_a_number_follow_how_it_is_read(html: Path, page: str) -> None:
    wrong = [
        f"{m.group(0)!r} should be {rl.indefinite_article(m.group(2))!r}"
        for m in _ARTICLE_NUMBER.finditer(_text(html, page))
        if m.group(1).lower() != rl.indefinite_article(m.group(2))
    ]
    assert not wrong, f"{page}: " + "; ".join(wrong)


# -- figures ------------------------------------------------------------------------------------


@pytest.mark.parametrize("page", toc_pages())
def test_every_figure_has_a_numbered_caption(html: Path, page: str) -> None:
    article = _article(html, page)
    for img in article.select("img"):
        src = img.get("src", "")
        if not src.endswith((".svg", ".png")) or "_static" in src:
            continue
        figure = img.find_parent("figure")
        assert figure is not None, f"{page}: an image ({src[-30:]}) outside a captioned figure"
        caption = figure.select_one("figcaption")
        assert caption is not None and re.match(r"Fig\. \d+", caption.get_text(strip=True)), (
            f"{page}: a figure without a numbered caption ({src[-30:]})"
        )
