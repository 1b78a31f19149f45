"""The book names its two sources truthfully and keeps their figures on one page.

The course follows a Chinese study guide (the guide) that retells Part 1 of *How to Scale Your
Model* (the original). The rules tested here, on the built HTML:

* the intro names both sources, links the original, and links the errata page;
* no page's text says "the chapter" (or "chapter's"): every mention says "the guide", "the
  original" or "both sources", whichever actually prints it;
* every erratum box is on the errata page, names its source ("Source: the guide", "... the
  original" or "... both") and shows the source's figure and the corrected one;
* a source's rounded figure and the catalog's figure for the same quantity (240 and 241, 2,222
  and 2,199, 8,755.6 and 7,880, ...) are never shown together on any other page;
* the errata page maps the original's sections to the guide's and to every page of the course.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup, Tag

from tests.book.expected import ERRATUM_SOURCES, EXPECTED, RECONCILIATION_PAIRS
from tests.book.site import toc_pages
from tests.book.test_book_numbers import _article

pytestmark = pytest.mark.slow

ERRATA_PAGE = "book/12_errata_and_sources"
ORIGINAL_URL = "https://jax-ml.github.io/scaling-book/roofline/"
GUIDE_TITLE = "Scaling Book 第 2 章：性能分析基石 — Roofline 模型"
OTHER_PAGES = [p for p in toc_pages() if p != ERRATA_PAGE]


def _text(html: Path, page: str) -> str:
    return " ".join(_article(html, page).get_text(" ").split())


def _erratum_box(article: BeautifulSoup, label: str) -> Tag:
    """The erratum box that the MyST target ``(label)=`` stands in front of."""
    anchor = article.find(id=label)
    assert anchor is not None, f"{ERRATA_PAGE}: no target #{label}"
    if "erratum" in (anchor.get("class") or []):
        return anchor
    box = anchor.find_next("div", class_="erratum")
    assert box is not None, f"{ERRATA_PAGE}: no erratum box after #{label}"
    return box


def test_intro_names_both_sources(html: Path) -> None:
    article = _article(html, "book/intro")
    text = _text(html, "book/intro")
    assert GUIDE_TITLE in text, "the intro must name the guide by its title"
    assert "How to Scale Your Model" in text, "the intro must name the original"
    links = {a.get("href", "") for a in article.find_all("a")}
    assert ORIGINAL_URL in links, "the intro must link the original"
    assert any(h.startswith("12_errata_and_sources.html") for h in links), (
        "the intro must link the errata page"
    )


@pytest.mark.parametrize("page", toc_pages())
def test_no_page_says_the_chapter(html: Path, page: str) -> None:
    found = re.findall(r"[^.]*\b(?:the chapter\b|chapter's)[^.]*", _text(html, page), re.I)
    assert not found, (
        f'{page} says "the chapter"; say which source prints it (the guide, the original, or '
        f"both):\n" + "\n".join(found)
    )


@pytest.mark.parametrize("page", OTHER_PAGES)
def test_errata_live_on_the_errata_page(html: Path, page: str) -> None:
    boxes = _article(html, page).select("div.admonition.erratum")
    assert not boxes, f"{page} has an erratum box; move it to {ERRATA_PAGE} and link it"


@pytest.mark.parametrize("label", sorted(ERRATUM_SOURCES))
def test_each_erratum_names_its_source_and_shows_both_figures(html: Path, label: str) -> None:
    source, shown = ERRATUM_SOURCES[label]
    box = " ".join(_erratum_box(_article(html, ERRATA_PAGE), label).get_text(" ").split())
    assert f"Source: {source}" in box, f"#{label} must name its source: {source}"
    expected = EXPECTED[ERRATA_PAGE]
    for item in shown:
        want = expected.get(item, item)
        assert want in box, f"#{label} does not show {item} ({want!r})"


def _numbers(text: str) -> set[str]:
    """Every number as rendered (1,234.5), as whole tokens."""
    return set(re.findall(r"(?<![\d.,])\d[\d,]*(?:\.\d+)?(?![\d,]*\d)", text))


@pytest.mark.parametrize("page", OTHER_PAGES)
def test_no_page_but_the_errata_page_shows_a_source_figure_beside_the_catalogs(
    html: Path, page: str
) -> None:
    numbers = _numbers(_text(html, page))
    both = [
        (source, catalog)
        for source, catalog, pages in RECONCILIATION_PAIRS
        if (not pages or page in pages) and {source, catalog} <= numbers
    ]
    assert not both, (
        f"{page} shows a source's rounded figure and the catalog's side by side {both}; keep the "
        f"source's on {ERRATA_PAGE}"
    )


def test_errata_page_shows_every_reconciliation(html: Path) -> None:
    numbers = _numbers(_text(html, ERRATA_PAGE))
    missing = [pair[:2] for pair in RECONCILIATION_PAIRS if not set(pair[:2]) <= numbers]
    assert not missing, f"{ERRATA_PAGE} must show both figures of {missing}"


def test_errata_page_maps_every_section_to_a_page(html: Path) -> None:
    article = _article(html, ERRATA_PAGE)
    anchor = article.find(id="sec-sources-map")
    assert anchor is not None, "no section #sec-sources-map"
    table = anchor.find_next("table")
    assert table is not None, "the map has no table"
    header = [th.get_text(strip=True) for th in table.select("thead th")]
    assert header == ["the original (Part 1)", "the guide (第 2 章)", "this course"]
    linked = {a["href"].split("#")[0] for a in table.select("tbody a[href]")}
    pages = {Path(p).name + ".html" for p in OTHER_PAGES if p != "book/intro"}
    assert pages <= linked, f"the map does not link {sorted(pages - linked)}"


def test_mfu_example_table_shows_one_set_of_figures(html: Path) -> None:
    anchor = _article(html, "book/08_mfu").find(id="sec-mfu-example")
    assert anchor is not None, "book/08_mfu: no section #sec-mfu-example"
    table = anchor.find_next("table")
    assert table is not None, "the LLaMA-70B example has no table"
    header = [th.get_text(strip=True) for th in table.select("thead th")]
    assert header == ["quantity", "value"], (
        f"the LLaMA-70B example table has columns {header}; the guide's figures belong on "
        f"{ERRATA_PAGE}"
    )
