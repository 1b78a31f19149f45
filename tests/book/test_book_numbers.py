"""Every number the book glues into its prose is the number the library computes.

Two layers:

* for every page of the toc, each ``{glue:text}`` reference in the page's source renders, in
  order, as exactly the value its executed notebook glued (nothing unresolved, nothing lost);
* for the pages of this part of the book, the key numbers are recomputed independently in
  :mod:`tests.book.expected` and compared with the text of the built HTML, together with the
  generated tables (the critical-intensity table against the whole catalog). (The live
  explorer's numbers are held to the library by test_book_live_explorer.py.) A page that drifts
  from the library, or a stale execution cache, fails here.
"""

from __future__ import annotations

import ast
import json
from functools import cache
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

import roofline_lib as rl
from tests.book.expected import ERRATA, EXPECTED
from tests.book.site import BookBuild, page_glue_references, toc_pages

pytestmark = pytest.mark.slow


@cache
def _soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(), "html.parser")


def _article(html: Path, page: str) -> BeautifulSoup:
    article = _soup(html / f"{page}.html").select_one("article.bd-article")
    assert article is not None, f"{page}: no article element"
    return article


def _glued(book: BookBuild, page: str) -> dict[str, str]:
    """name → text of every value the page's executed notebook glued (myst-nb keeps them in
    ``<page>.glue.json`` next to the executed notebook)."""
    record = book.executed / f"{page}.glue.json"
    if not record.is_file():
        return {}  # a page that glues nothing
    values: dict[str, str] = {}
    for name, output in json.loads(record.read_text()).items():
        text = output.get("data", {}).get("text/plain")
        if isinstance(text, list):
            text = "".join(text)
        if text is None:
            continue
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            value = text
        values[name] = value if isinstance(value, str) else text
    return values


_SMART_QUOTES = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"'})


def _rendered(html: Path, page: str) -> list[tuple[str, str]]:
    """(name, rendered text) of every glue reference on the page, in document order. Sphinx's
    smart quotes (’ for ') are undone, so that the text compares with what was glued."""
    names = page_glue_references(page)
    article = _article(html, page)
    spans = [s.get_text().translate(_SMART_QUOTES) for s in article.select("span.pasted-text")]
    assert len(names) == len(spans), (
        f"{page}: the source has {len(names)} {{glue:text}} references but the HTML shows "
        f"{len(spans)} glued values"
    )
    return list(zip(names, spans, strict=True))


@pytest.mark.parametrize("page", toc_pages())
def test_every_glue_reference_shows_its_glued_value(book: BookBuild, html: Path, page: str) -> None:
    glued = _glued(book, page)
    wrong = [
        f"{name}: page shows {text!r}, notebook glued {glued.get(name)!r}"
        for name, text in _rendered(html, page)
        if glued.get(name) != text
    ]
    assert not wrong, f"{page}:\n" + "\n".join(wrong)
    leftover = "{glue" in _article(html, page).get_text()
    assert not leftover, f"{page}: an unresolved {{glue...}} reference is shown as text"


@pytest.mark.parametrize("page", sorted(EXPECTED))
def test_key_numbers_match_the_library(html: Path, page: str) -> None:
    shown: dict[str, set[str]] = {}
    for name, text in _rendered(html, page):
        shown.setdefault(name, set()).add(text)
    wrong = []
    for name, expected in EXPECTED[page].items():
        if name not in shown:
            wrong.append(f"{name}: no longer shown on the page")
        elif shown[name] != {expected}:
            wrong.append(f"{name}: page shows {sorted(shown[name])}, library gives {expected!r}")
    assert not wrong, f"{page}:\n" + "\n".join(wrong)


@pytest.mark.parametrize("page", sorted(ERRATA))
def test_each_erratum_shows_the_source_figure_and_the_correction(html: Path, page: str) -> None:
    boxes = " ".join(b.get_text() for b in _article(html, page).select("div.admonition.erratum"))
    assert boxes, f"{page}: no erratum box"
    for name in ERRATA[page]:
        assert EXPECTED[page][name] in boxes, f"{page}: the erratum does not show {name}"


def _table(html: Path, page: str, table_id: str) -> list[list[BeautifulSoup]]:
    table = _article(html, page).select_one(f"table#{table_id}")
    assert table is not None, f"{page}: no table #{table_id}"
    return [row.find_all("td") for row in table.select("tbody tr")]


def test_critical_intensity_table_covers_the_catalog(html: Path) -> None:
    rows = _table(html, "book/02_arithmetic_intensity", "tbl-critical-intensity")
    by_chip = {cells[0].get_text(strip=True): cells for cells in rows}
    assert set(by_chip) == set(rl.CATALOG), "the table must list every catalog chip, once"
    for name, chip in rl.CATALOG.items():
        cells = by_chip[name]
        peak_cite = chip.citations["peak_flops_per_s.bf16"]
        bw_cite = chip.citations["hbm_bandwidth_bytes_per_s"]
        expected = [
            name,
            rl.format_number(chip.peak("bf16") / chip.bandwidth("hbm")),
            rl.format_quantity(chip.peak("bf16"), "FLOP/s", 4),
            rl.format_quantity(chip.bandwidth("hbm"), "B/s", 4),
            peak_cite.basis,
        ]
        assert [c.get_text(strip=True) for c in cells] == expected, f"row of {name}"
        assert cells[2].a["href"] == peak_cite.url and cells[3].a["href"] == bw_cite.url, (
            f"{name}: the peak and the bandwidth must link to their sources"
        )
        assert cells[2].a.get("title") == peak_cite.quote, f"{name}: the peak's tooltip"


def test_training_versus_generation_table(html: Path) -> None:
    rows = _table(html, "book/04_matmul", "tbl-train-vs-decode")
    for cells in rows:
        chip = rl.get_chip(cells[0].get_text(strip=True))
        for cell, batch in zip(cells[2:], (16384, 64), strict=True):
            est = rl.analyze(rl.matmul(batch, 8192, 8192), chip)
            expected = f"{est.regime}, {rl.format_percent(est.fraction_of_peak)} of peak"
            assert cell.get_text(strip=True) == expected, f"{chip.name}, B = {batch}"


def test_collectives_table(html: Path) -> None:
    h100 = rl.get_chip("H100 SXM")
    rows = _table(html, "book/05_network", "tbl-collectives")
    assert [int(cells[0].get_text(strip=True)) for cells in rows] == [2, 4, 8]
    for cells in rows:
        chips = int(cells[0].get_text(strip=True))
        for cell, collective in zip(cells[1:], ("reduce_scatter", "all_reduce"), strict=True):
            shard = rl.critical_shard_dim(
                h100.peak(), h100.bandwidth("nvlink4"), "bf16", chips, collective
            )
            assert cell.get_text(strip=True).endswith(f"≥ {rl.format_number(shard, 4)}")
