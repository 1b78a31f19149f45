"""The Chinese edition in headless Chromium, served as published (under the English site, at
``zh/``): every page displays completely (no console error, every image, math typeset, every
internal link resolving, nothing fetched from another host, no sideways scrolling on a phone), the
language switch on each edition goes to the same section of the other, and the Chinese text is
drawn with the book's own font, whose subset holds every character the edition uses."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fontTools.ttLib import TTFont

from tests.book.browser import SiteReport, local_site, require_chromium
from tests.book.site import BookBuild, toc_pages

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("book")]

SECTION_PAGE, SECTION = "book/04_matmul", "sec-critical-batch"
FONT_FAMILY = "IBM Plex Sans SC"


def test_every_chinese_page_displays_completely(
    translated_site: SiteReport, translated_pages: list[str]
) -> None:
    assert [p.page for p in translated_site.pages] == translated_pages
    assert translated_site.problems == []
    assert sum(p.facts["images"] for p in translated_site.pages) > 0
    assert sum(p.facts["typeset"] for p in translated_site.pages) > 0


def _switch(base: str, context: object, start: str) -> tuple[str, str, bool]:
    """Open ``start``, click the language switch; the URL, <html lang> and whether the section
    of the URL's #anchor exists there."""
    page = context.new_page()  # type: ignore[attr-defined]
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(start, wait_until="load")
    page.locator("a.language-switch").first.click()
    page.wait_for_load_state("load")
    url, lang = page.url, page.evaluate("document.documentElement.lang")
    anchor = url.split("#", 1)[1] if "#" in url else ""
    present = bool(anchor) and page.evaluate(f"!!document.getElementById({anchor!r})")
    page.close()
    assert errors == [], errors
    return url, lang, present


def test_the_language_switch_goes_to_the_same_section(
    book: BookBuild, translated_book: BookBuild
) -> None:
    require_chromium()
    with local_site(book.html) as site:
        url, lang, present = _switch(
            site.base, site.context, f"{site.base}/{SECTION_PAGE}.html#{SECTION}"
        )
        assert url == f"{site.base}/zh/{SECTION_PAGE}.html#{SECTION}"
        assert lang == "zh-CN" and present
        url, lang, present = _switch(site.base, site.context, url)
        assert url == f"{site.base}/{SECTION_PAGE}.html#{SECTION}"
        assert lang == "en" and present
        # every page of each edition has the switch, to its own counterpart
        for page in toc_pages():
            english = (book.html / f"{page}.html").read_text(encoding="utf-8")
            chinese = (translated_book.html / f"{page}.html").read_text(encoding="utf-8")
            name = Path(page).name
            assert re.search(rf'href="(\.\./)*zh/book/{name}\.html"[^>]*language-switch', english)
            assert re.search(rf'href="(\.\./)+book/{name}\.html"[^>]*language-switch', chinese)


def test_the_glossary_links_each_term_to_both_editions(translated_book: BookBuild) -> None:
    html = (translated_book.html / "book" / "13_glossary.html").read_text(encoding="utf-8")
    rows = re.findall(r"<tr class=\"row-(?:odd|even)\">(.*?)</tr>", html, re.S)[1:]
    assert len(rows) == 30
    for row in rows:
        assert re.search(r'class="reference internal" href="\d\d_[a-z_]+\.html#sec-', row), row
        assert re.search(r'href="\.\./\.\./book/\d\d_[a-z_]+\.html#sec-[a-z0-9-]+"', row), row


def _cjk_characters(html_dir: Path) -> set[str]:
    text = "".join(p.read_text(encoding="utf-8") for p in html_dir.rglob("*.html"))
    return set(re.findall(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]", text))


def test_the_served_font_has_every_character_of_the_edition(translated_book: BookBuild) -> None:
    used = _cjk_characters(translated_book.html)
    assert len(used) > 500
    for face in ("IBMPlexSansSC-Regular.woff", "IBMPlexSansSC-SemiBold.woff"):
        font = TTFont(translated_book.html / "_static" / "cjk" / face)
        covered = {chr(c) for c in font.getBestCmap()}
        missing = sorted(used - covered)
        assert not missing, f"{face} lacks {''.join(missing[:40])}"


def test_chinese_text_is_drawn_with_the_books_font(book: BookBuild) -> None:
    require_chromium()
    with local_site(book.html) as site:
        page = site.context.new_page()
        page.goto(f"{site.base}/zh/book/02_arithmetic_intensity.html", wait_until="load")
        loaded = page.evaluate(
            "async () => { await document.fonts.ready;"
            f" await document.fonts.load('16px \"{FONT_FAMILY}\"', '算术强度');"
            f" return document.fonts.check('16px \"{FONT_FAMILY}\"', '算术强度'); }}"
        )
        family = page.evaluate("getComputedStyle(document.querySelector('main p')).fontFamily")
        page.close()
    assert loaded
    assert FONT_FAMILY in family
