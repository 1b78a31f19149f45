"""Every page, opened in headless Chromium, displays completely: no console errors, every image
loaded, math typeset, the live explorer rendered, every internal link resolving, and no
request leaving localhost. Screenshots of every page (desktop and phone width) land in
_build/screenshots/. The home page and the explorer's page are also opened from the file system
(file://), as a reader who opens _build/html/index.html does."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.book.browser import (
    MIN_FIGURE_TEXT_PX,
    NARROW_PHONE,
    SiteReport,
    check_file_pages,
    phone_fit,
    require_chromium,
)
from tests.book.site import SCREENSHOTS, BookBuild, toc_pages

pytestmark = pytest.mark.slow

EXPLORER_PAGE = "book/03_roofline_chart"
GLOSSARY_PAGE = "book/13_glossary"


def _by_page(site: SiteReport, fact: str) -> dict[str, list[str]]:
    """``{page: the page's non-empty list under fact}``; ``console_errors`` or a browser fact."""
    found = {
        p.page: p.console_errors if fact == "console_errors" else p.facts.get(fact, [])
        for p in site.pages
    }
    return {page: items for page, items in found.items() if items}


def test_every_toc_page_was_opened(site: SiteReport) -> None:
    assert [p.page for p in site.pages] == toc_pages()
    bad = {p.page: p.status for p in site.pages if p.status != 200}
    assert not bad, f"pages that did not load: {bad}"


def test_no_page_logs_a_console_error(site: SiteReport) -> None:
    errors = _by_page(site, "console_errors")
    assert not errors, f"console errors: {errors}"


def test_every_image_loaded(site: SiteReport) -> None:
    broken = _by_page(site, "brokenImages")
    assert not broken, f"images that did not load (naturalWidth 0): {broken}"
    assert sum(p.facts["images"] for p in site.pages) > 0, "the book shows no image at all"


def test_math_is_typeset(site: SiteReport) -> None:
    untypeset = _by_page(site, "untypeset")
    assert not untypeset, f"math elements MathJax did not typeset: {untypeset}"
    raw = _by_page(site, "rawMath")
    assert not raw, f"raw TeX delimiters left in the text: {raw}"
    for page in site.pages:
        if page.facts["maths"]:
            assert page.facts["typeset"] >= page.facts["maths"], f"{page.page}: math not rendered"


def test_explorer_page_shows_the_live_explorer_and_no_dead_widget(site: SiteReport) -> None:
    # the live explorer itself is tested in test_book_live_explorer.py
    (page,) = [p for p in site.pages if p.page == EXPLORER_PAGE]
    assert not page.facts["widgetViews"], "the explorer page still embeds a widget snapshot"
    assert page.facts["liveExplorers"] >= 1, "the live explorer did not render"


def test_every_internal_link_resolves(site: SiteReport) -> None:
    assert not site.broken_links, "broken links:\n" + "\n".join(site.broken_links)


def test_no_page_scrolls_sideways_on_a_phone(site: SiteReport) -> None:
    wide = {p.page: p.phone_overflow_px for p in site.pages if p.phone_overflow_px > 0}
    assert not wide, f"pages wider than a 390px phone screen (px too wide): {wide}"
    sideways = {p.page: p.phone_sideways for p in site.pages if p.phone_sideways}
    assert not sideways, f"what scrolls sideways inside a page at 390px: {sideways}"


def test_every_page_fits_a_narrow_phone_with_room_to_spare(book: BookBuild) -> None:
    # 30 px narrower than the screens above, after every web font has loaded
    require_chromium()
    fits = phone_fit(book.html, toc_pages(), NARROW_PHONE)
    assert [f.page for f in fits] == toc_pages()
    wide = {f.page: f.overflow_px for f in fits if f.overflow_px > 0}
    assert not wide, f"pages wider than a {NARROW_PHONE['width']}px phone (px too wide): {wide}"
    cut = {f.page: f.header_outside for f in fits if f.header_outside}
    assert not cut, f"header controls cut off at a {NARROW_PHONE['width']}px phone's edge: {cut}"
    glossary = next(f for f in fits if f.page == GLOSSARY_PAGE)
    assert not glossary.sideways, f"the glossary scrolls sideways on a phone: {glossary.sideways}"


def test_figure_text_is_at_least_9px_on_a_phone(site: SiteReport) -> None:
    figures = [(p.page, f) for p in site.pages for f in p.phone_figures]
    assert len(figures) >= 10, f"expected the book's SVG figures to be measured, got {figures}"
    small = [
        f"{page}: {f['src']} {f['smallestFontPx']:.2f}px"
        for page, f in figures
        if f["smallestFontPx"] < MIN_FIGURE_TEXT_PX
    ]
    assert not small, f"figure text below {MIN_FIGURE_TEXT_PX}px at 390px wide:\n" + "\n".join(
        small
    )


def test_nothing_is_requested_from_another_host(site: SiteReport) -> None:
    assert not site.blocked_requests, f"requests that left localhost: {site.blocked_requests}"


def test_a_screenshot_of_every_page_is_saved(site: SiteReport) -> None:
    for page in site.pages:
        name = page.page.replace("/", "_")
        for shot in (SCREENSHOTS / f"{name}.png", SCREENSHOTS / "phone" / f"{name}.png"):
            assert shot.is_file() and shot.stat().st_size > 10_000, f"no screenshot {shot}"


def test_pages_display_when_opened_from_the_file_system(html: Path) -> None:
    require_chromium()  # README: "open _build/html/index.html" — no web server, no network
    pages = ["book/intro", EXPLORER_PAGE]
    for report in check_file_pages(html, pages):
        assert not report.console_errors, f"{report.page} (file://): {report.console_errors}"
        assert not report.facts["brokenImages"], f"{report.page} (file://): images did not load"
        assert not report.facts["untypeset"], f"{report.page} (file://): math not typeset"
        if report.page == EXPLORER_PAGE:
            assert report.facts["liveExplorers"], "the explorer did not render from file://"
