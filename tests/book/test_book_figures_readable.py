"""Every figure a book page draws is readable at the book's size, by the same check as the
library's figures (tests/figure_checks.py): each page's code cells run here, in order, with
``booktools.glue_figure`` and ``booktools.show`` recording the figures instead of rendering them,
so a page-drawn figure cannot regress silently. No book build is needed. The page that measures
this machine gets a fixed, Xeon-shaped measurement instead (the check is about the drawing).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import matplotlib as mpl
import pytest
from matplotlib.figure import Figure

from roofline_lib.words import FONT_ENV, LANGUAGE_ENV
from tests.conftest import in_ci
from tests.figure_checks import problems, xeon_like_result
from tools.book import FONT

BOOK = Path(__file__).resolve().parents[2] / "book"
PAGES = sorted(p.stem for p in BOOK.glob("*.md"))
CODE_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```", flags=re.S | re.M)


def page_code(page: str) -> str:
    """The page's code cells, in order, without their ``:key: value`` options."""
    cells = CODE_CELL.findall((BOOK / f"{page}.md").read_text())
    return "\n".join(
        "\n".join(line for line in cell.split("\n") if not re.match(r"^:[\w-]+:", line))
        for cell in cells
    )


def page_figures(page: str, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Figure]]:
    """Run ``page``'s code and return every figure it glues or shows, named."""
    monkeypatch.syspath_prepend(str(BOOK))
    monkeypatch.chdir(BOOK)
    import booktools
    import myst_nb

    import roofline_lib.measure

    drawn: list[tuple[str, Figure]] = []
    monkeypatch.setattr(myst_nb, "glue", lambda *a, **k: None)
    monkeypatch.setattr(booktools, "glue", lambda *a, **k: None)

    def record(name: str, fig: Figure, width_in: float = booktools.PAGE_WIDTH_IN) -> None:
        booktools.fit_saved_width(fig, width_in)  # as figure_svg does before saving
        saved = booktools._saved_width_in(fig)
        assert saved <= width_in + 0.01, f"{name}: saved {saved:.2f} in wide, over {width_in}"
        drawn.append((name, fig))

    monkeypatch.setattr(booktools, "glue_figure", record)
    monkeypatch.setattr(
        booktools,
        "show",
        lambda fig, width_in=booktools.PAGE_WIDTH_IN: record(f"shown {len(drawn)}", fig, width_in),
    )
    monkeypatch.setattr(roofline_lib.measure, "measure", lambda *a, **k: xeon_like_result())
    with mpl.rc_context():
        exec(compile(page_code(page), f"book/{page}.md", "exec"), {"__name__": "__page__"})
    return drawn


@pytest.mark.parametrize("language", ["en", "zh_CN"])
@pytest.mark.parametrize("page", PAGES)
def test_every_figure_a_page_draws_is_readable(
    page: str, language: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if language != "en":  # as the book builds that edition (tools/book.py)
        if not FONT.is_file():
            message = f"{FONT} is missing: run `make setup` (tools/fetch_static.py fetches it)"
            (pytest.fail if in_ci() else pytest.skip)(message)
        monkeypatch.setenv(LANGUAGE_ENV, language)
        monkeypatch.setenv(FONT_ENV, str(FONT))
    figures = page_figures(page, monkeypatch)
    code = page_code(page)
    if "glue_figure(" in code or "show(" in code:
        assert figures, f"book/{page}.md draws figures, but none was recorded"
    found = [f"{name}: {p}" for name, fig in figures for p in problems(fig)]
    assert not found, f"book/{page}.md:\n" + "\n".join(found)


def test_the_pages_draw_their_figures() -> None:
    """The cell parser finds the figure-drawing cells (a parser that found none would pass)."""
    code = page_code("02_arithmetic_intensity")
    assert 'glue_figure("fig_chip_balance"' in code and ":tags:" not in code
    assert sys.modules.get("__page__") is None
