"""book/booktools.py, the helpers every page imports: figures become SVG whatever the matplotlib
backend, wide figures are fitted to the page, generated tables and citations are well-formed."""

from __future__ import annotations

import sys

import pytest
from matplotlib.figure import Figure

import roofline_lib as rl
from roofline_lib.plots import plot_roofline
from tests.book.site import ROOT

sys.path.insert(0, str(ROOT / "book"))
import booktools  # book/ is not a package; the pages import it the same way


def test_a_figure_becomes_svg_not_its_text_repr() -> None:
    svg = booktools.figure_svg(plot_roofline("TPU v5e"))  # the tests run with MPLBACKEND=Agg too
    assert "<svg" in svg.data[:1000] and "Figure size" not in svg.data


def test_wide_figures_are_fitted_to_the_page_keeping_their_shape() -> None:
    fig = Figure(figsize=(7.0, 4.2))
    fig.add_subplot().set_title("short")
    booktools.fit_to_page(fig)
    width, height = fig.get_size_inches()
    assert width == pytest.approx(booktools.PAGE_WIDTH_IN)
    assert height / width == pytest.approx(4.2 / 7.0)
    narrow = Figure(figsize=(4.0, 3.0))
    booktools.fit_to_page(narrow)
    assert tuple(narrow.get_size_inches()) == (4.0, 3.0)


def test_long_titles_wrap_and_keep_their_own_line_breaks() -> None:
    fig = Figure(figsize=(5.4, 3.0))
    ax = fig.add_subplot()
    first = "A first line that is short"
    ax.set_title(first + "\n" + "and a second line that is much too long to fit " * 3)
    booktools.fit_to_page(fig)
    lines = ax.get_title().split("\n")
    assert lines[0] == first and len(lines) >= 3
    ax.set_title("Fits")
    booktools.fit_to_page(fig)
    assert ax.get_title() == "Fits"


def test_markdown_table_aligns_escapes_and_checks_its_shape() -> None:
    table = booktools.markdown_table(["a", "b"], [["x|y", 1]], "lr")
    assert table.splitlines() == ["| a | b |", "| :-- | --: |", "| x\\|y | 1 |"]
    with pytest.raises(ValueError, match="one entry per header"):
        booktools.markdown_table(["a", "b"], [["only one"]])


def test_cite_links_to_the_source_and_can_quote_it() -> None:
    citation = rl.get_chip("H100 SXM").citations["peak_flops_per_s.bf16"]
    assert booktools.cite(citation) == f"[{citation.title}]({citation.url})"
    quoted = booktools.cite(citation, "989.5 TFLOP/s", quote=True)
    assert quoted == f'[989.5 TFLOP/s]({citation.url} "{citation.quote}")'
    assert booktools.cite(None) == "no source (user-defined)"
