"""Every page of both editions, as a browser loads it: at most PAGE_BUDGET_BYTES of JavaScript and
CSS (every script and stylesheet it fetched, MathJax's components included, as Resource Timing's
decoded body sizes), the same bytes tools/bench_page_weight.py counts without a browser; every
formula typeset (no MathJax error, no raw TeX left) and none of them a tab stop; every icon the
theme shows drawn (the header's buttons, the download menu, search, the theme switch, the sidebar
toggles); and one search field at desktop width. That nothing scrolls sideways on a phone is
checked where every page is opened at 390 px already (check_site: test_book_browser.py for the
English pages, test_book_translation_browser.py's problems for the Chinese)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.book.browser import (
    _PAGE_FACTS,
    LocalSite,
    local_site,
    require_chromium,
)
from tests.book.site import BookBuild, toc_pages
from tools.bench_page_weight import PAGE_BUDGET_BYTES, page_weight

pytestmark = pytest.mark.slow

ICONS_SHOWN = frozenset(
    {
        "fa-bars",  # the primary sidebar's toggle
        "fa-magnifying-glass",  # search
        "fa-download",  # the download menu's button
        "fa-expand",  # full screen
        "fa-language",  # the edition switch (book/_ext/i18n.py)
        "fa-file-pdf",  # the download menu: print to PDF (its other items are drawn, whichever)
        "fa-sun",  # the theme switch, one icon per mode
        "fa-moon",
        "fa-circle-half-stroke",
    }
)
"""The icons every page shows at desktop width (the theme switch's three as it cycles, the
download menu's once it is open)."""
ICONS_ON_PAGES_WITH_SECTIONS = frozenset({"fa-list"})
"""The secondary sidebar's toggle (the page's contents), on the pages that have sections."""

_LOADED_JS_CSS = """
() => {
  const bytes = {};
  for (const entry of performance.getEntriesByType('resource')) {
    const path = new URL(entry.name).pathname;
    if (/\\.(js|css)$/.test(path)) bytes[path] = Math.max(bytes[path] || 0, entry.decodedBodySize);
  }
  return bytes;
}
"""
"""Each script and stylesheet the page fetched (its path, once) and its decoded size, bytes."""

_MATH_PROBLEMS = """
() => ({
  errors: Array.from(document.querySelectorAll('mjx-merror'))
      .map(e => e.getAttribute('data-mjx-error') || e.textContent),
  tabStops: Array.from(document.querySelectorAll('mjx-container')).filter(e => e.tabIndex >= 0)
      .length,
})
"""

_ICONS = """
() => Array.from(document.querySelectorAll('[class*="fa-"]'))
  .filter(e => /(^|\\s)(fa-solid|fa-regular|fa-brands|fas|far|fab)(\\s|$)/.test(e.className))
  .filter(e => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden')
  .map(e => {
    const box = e.getBoundingClientRect();
    const glyph = getComputedStyle(e, '::before');
    const drawn = box.width > 0 && box.height > 0 && !['none', 'normal', '""'].includes(glyph.content);
    return {icon: Array.from(e.classList).filter(c => /^fa-/.test(c) &&
                !/^fa-(solid|regular|brands|lg|fw|xs|sm|xl|2xl)$/.test(c)).join(' '),
            drawn, width: box.width, height: box.height, glyph: glyph.content};
  })
"""
"""Every Font Awesome icon displayed: its name, and whether it is drawn (a box of non-zero size
holding the icon's glyph, from the stylesheet's ``.fa-NAME:before`` rule)."""

_ICON_FONT_LOADED = "() => document.fonts.check('900 16px \"Font Awesome 6 Free\"')"

_SEARCH_FIELDS = """
() => Array.from(document.querySelectorAll(
    '#pst-header .search-button__button, #pst-header input[type=search], ' +
    '.bd-header-article .search-button__button, .bd-header-article input[type=search], ' +
    '.bd-sidebar-primary .search-button__button, .bd-sidebar-primary input[type=search]'))
  .filter(e => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden')
  .map(e => e.className || e.tagName)
"""
"""The search fields and buttons a reader sees in the header and the sidebar."""


@dataclass
class PageLoad:
    """One page in the browser at desktop width."""

    page: str
    loaded_bytes: dict[str, int]
    """Each script and stylesheet fetched (path) and its size, bytes."""
    untypeset: list[str]
    raw_math: list[str]
    math_errors: list[str]
    formula_tab_stops: int
    icons: list[dict[str, Any]] = field(default_factory=list)
    icon_font_loaded: bool = False
    search_fields: list[str] = field(default_factory=list)

    @property
    def js_css_bytes(self) -> int:
        return sum(self.loaded_bytes.values())


def _load(site: LocalSite, page_path: str) -> PageLoad:
    page = site.context.new_page()  # routing is on: nothing comes from the HTTP cache
    page.goto(f"{site.base}/{page_path}.html", wait_until="load")
    facts = page.evaluate(_PAGE_FACTS)
    page.evaluate("document.fonts.ready")
    math = page.evaluate(_MATH_PROBLEMS)
    icons = page.evaluate(_ICONS)
    download = page.locator(".dropdown-download-buttons > button")
    if download.count():
        download.first.click()
        icons += [i for i in page.evaluate(_ICONS) if i not in icons]
        page.keyboard.press("Escape")
    switch = page.locator("button.theme-switch-button")
    for _ in range(3 if switch.count() else 0):  # auto, then light, dark (each mode's icon)
        switch.first.click()
        icons += [i for i in page.evaluate(_ICONS) if i not in icons]
    load = PageLoad(
        page_path,
        page.evaluate(_LOADED_JS_CSS),
        facts["untypeset"],
        facts["rawMath"],
        math["errors"],
        math["tabStops"],
        icons,
        page.evaluate(_ICON_FONT_LOADED),
        page.evaluate(_SEARCH_FIELDS),
    )
    page.close()
    return load


@pytest.fixture(scope="module")
def pages(book: BookBuild, translated_pages: list[str]) -> list[str]:
    return [*toc_pages(), *translated_pages]


@pytest.fixture(scope="module")
def loads(book: BookBuild, pages: list[str]) -> list[PageLoad]:
    require_chromium()
    with local_site(book.html) as site:
        found = [_load(site, page) for page in pages]
        assert not site.blocked, f"requests to another host: {site.blocked}"
    return found


def test_every_page_loads_at_most_the_budget_of_js_and_css(loads: list[PageLoad]) -> None:
    heavy = {
        p.page: f"{p.js_css_bytes:,} bytes" for p in loads if p.js_css_bytes > PAGE_BUDGET_BYTES
    }
    assert not heavy, f"pages over {PAGE_BUDGET_BYTES:,} bytes of JS + CSS: {heavy}"
    # MathJax's loader fetched its components: they are in the count
    assert all(any("/mathjax/" in path for path in p.loaded_bytes) for p in loads)


def test_the_benchmark_counts_what_the_browser_loads(
    book: BookBuild, loads: list[PageLoad]
) -> None:
    differ = {}
    for load in loads:
        counted = page_weight(book.html / f"{load.page}.html", book.html)
        assert not counted.missing, (load.page, counted.missing)
        if counted.total_bytes != load.js_css_bytes:
            differ[load.page] = (counted.total_bytes, load.js_css_bytes, sorted(load.loaded_bytes))
    assert not differ, f"bench_page_weight vs the browser (bytes, bytes, files): {differ}"


def test_every_formula_renders_and_none_is_a_tab_stop(loads: list[PageLoad]) -> None:
    assert not {p.page: p.untypeset for p in loads if p.untypeset}, "math not typeset"
    assert not {p.page: p.raw_math for p in loads if p.raw_math}, "raw TeX left in the text"
    assert not {p.page: p.math_errors for p in loads if p.math_errors}, "MathJax errors"
    tab_stops = {p.page: p.formula_tab_stops for p in loads if p.formula_tab_stops}
    assert not tab_stops, f"formulas in the tab order: {tab_stops}"


def test_every_icon_the_theme_shows_is_drawn(loads: list[PageLoad]) -> None:
    for load in loads:
        assert load.icon_font_loaded, f"{load.page}: Font Awesome's web font did not load"
        undrawn = [i for i in load.icons if not i["drawn"]]
        assert not undrawn, f"{load.page}: icons not drawn: {undrawn}"
        missing = ICONS_SHOWN - {name for i in load.icons for name in i["icon"].split()}
        assert not missing, f"{load.page}: icons not shown: {sorted(missing)}"
    shown = {name for load in loads for i in load.icons for name in i["icon"].split()}
    assert ICONS_ON_PAGES_WITH_SECTIONS <= shown, sorted(ICONS_ON_PAGES_WITH_SECTIONS - shown)


def test_one_search_field_at_desktop_width(loads: list[PageLoad]) -> None:
    many = {p.page: p.search_fields for p in loads if len(p.search_fields) != 1}
    assert not many, f"pages without exactly one search field or button at 1280 px: {many}"
