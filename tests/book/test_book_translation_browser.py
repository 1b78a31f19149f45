"""The Chinese edition in headless Chromium, served as published (under the English site, at
``zh/``): every page displays completely (no console error, every image, math typeset, every
internal link resolving, every web font loaded, nothing fetched from another host, no sideways
scrolling on a phone), and fits a narrower phone still whether the book's fonts draw it or the
reader's own; the language switch on each edition goes to the same section of the other; and
the text is drawn with the book's own fonts, whose subsets hold every character a reader can be
shown, so that no character falls back to a font of the reader's system."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.book.browser import (
    DESKTOP,
    NARROW_PHONE,
    SERVED_FONTS,
    SiteReport,
    local_site,
    phone_fit,
    require_chromium,
    system_fonts_drawing,
)
from tests.book.glossary import glossary_rows
from tests.book.site import BookBuild, toc_pages
from tools.book import I18N

pytestmark = pytest.mark.slow

SECTION_PAGE, SECTION = "book/04_matmul", "sec-critical-batch"
FONT_FAMILY = "IBM Plex Sans SC"


def test_every_chinese_page_displays_completely(
    translated_site: SiteReport, translated_pages: list[str]
) -> None:
    assert [p.page for p in translated_site.pages] == translated_pages
    assert translated_site.problems == []
    assert sum(p.facts["images"] for p in translated_site.pages) > 0
    assert sum(p.facts["typeset"] for p in translated_site.pages) > 0
    # every figure's text measured at 390 px (``problems`` holds any below 9 px): all of them
    figures = [f["src"] for p in translated_site.pages for f in p.phone_figures]
    assert len(figures) == sum(p.facts["images"] for p in translated_site.pages) >= 10, figures
    assert all(f.endswith(".svg") for f in figures)


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


def _switch_after_scrolling(context: object, start: str, label: str) -> tuple[str, float]:
    """Open ``start`` (no #anchor), scroll into the section labelled ``label`` until its heading
    has left the screen, click the switch: the URL it opens, and where that section's start is
    on the new page (px from the top of the window)."""
    page = context.new_page()  # type: ignore[attr-defined]
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(start, wait_until="load")
    page.evaluate(f"document.getElementById({label!r}).scrollIntoView()")
    page.mouse.wheel(0, 400)
    page.wait_for_function(f"document.getElementById({label!r}).getBoundingClientRect().top < 0")
    page.wait_for_timeout(300)  # the wheel's smooth scroll settles
    # a click as the reader's (playwright's own click first scrolls the header button "into view")
    with page.expect_navigation(wait_until="load"):
        page.evaluate("document.querySelector('a.language-switch').click()")
    url = page.url
    top = page.evaluate(f"document.getElementById({label!r}).getBoundingClientRect().top")
    page.close()
    assert errors == [], errors
    return url, float(top)


def test_the_language_switch_keeps_the_section_the_reader_scrolled_to(
    book: BookBuild, translated_book: BookBuild
) -> None:
    """The reader came without an #anchor and scrolled: the switch still lands in the section
    on screen, in both directions."""
    require_chromium()
    with local_site(book.html) as site:
        height = DESKTOP["height"]
        url, top = _switch_after_scrolling(
            site.context, f"{site.base}/{SECTION_PAGE}.html", "sec-tiling"
        )
        assert url == f"{site.base}/zh/{SECTION_PAGE}.html#sec-tiling"
        assert 0 <= top < height / 2, top
        url, top = _switch_after_scrolling(site.context, url.split("#")[0], "sec-megatron-batch")
        assert url == f"{site.base}/{SECTION_PAGE}.html#sec-megatron-batch"
        assert 0 <= top < height / 2, top


def test_the_glossary_links_each_term_to_both_editions(translated_book: BookBuild) -> None:
    html = (translated_book.html / "book" / "13_glossary.html").read_text(encoding="utf-8")
    rows = re.findall(r"<tr class=\"row-(?:odd|even)\">(.*?)</tr>", html, re.S)[1:]
    assert len(rows) == len(glossary_rows())
    for row in rows:
        assert re.search(r'class="reference internal" href="\d\d_[a-z_]+\.html#sec-', row), row
        assert re.search(r'href="\.\./\.\./book/\d\d_[a-z_]+\.html#sec-[a-z0-9-]+"', row), row


@pytest.mark.parametrize("fonts", ["served", "the reader's own"])
def test_every_chinese_page_fits_a_narrow_phone_whatever_fonts_draw_it(
    book: BookBuild, translated_pages: list[str], fonts: str
) -> None:
    require_chromium()
    blocked = fonts != "served"
    fits = phone_fit(book.html, translated_pages, NARROW_PHONE, SERVED_FONTS if blocked else None)
    assert [f.page for f in fits] == translated_pages
    wide = {f.page: f.overflow_px for f in fits if f.overflow_px > 0}
    assert not wide, f"{fonts} fonts: wider than a {NARROW_PHONE['width']}px phone: {wide}"
    cut = {f.page: f.header_outside for f in fits if f.header_outside}
    assert not cut, f"{fonts} fonts: header controls cut off at the screen's edge: {cut}"
    (glossary,) = [f for f in fits if f.page.endswith("book/13_glossary")]
    assert not glossary.sideways, (
        f"{fonts} fonts: the glossary scrolls sideways: {glossary.sideways}"
    )
    for fit in fits:
        unloaded = {face.rsplit(" ", 1)[0] for face in fit.font_errors}
        # blocked: every served face failed to load, so the system's fonts drew the page
        assert unloaded == ({f.family for f in I18N.FONT_FACES} if blocked else set()), fit


def _served_faces(html_dir: Path) -> dict[str, list[Path]]:
    """The font files each family of the edition's cjk.css serves (its @font-face rules)."""
    css = (html_dir / "_static" / "cjk" / "cjk.css").read_text(encoding="utf-8")
    faces: dict[str, list[Path]] = {}
    for family, url in re.findall(r'font-family: "([^"]+)";[^}]*src: url\("([^"]+)"\)', css):
        faces.setdefault(family, []).append(html_dir / "_static" / "cjk" / url)
    return faces


def test_the_served_fonts_have_every_character_a_reader_can_be_shown(
    translated_book: BookBuild,
) -> None:
    shown = I18N.shown_characters(translated_book.html)
    assert len(shown) > 900  # the pages' Chinese, ASCII, and the scripts' words and marks
    assert {"算", "术", "²", "⁹", "µ", "−", "✓", "✗", "复", "制"} <= set(shown)
    faces = _served_faces(translated_book.html)
    assert list(faces) == list(dict.fromkeys(f.family for f in I18N.FONT_FACES))
    # what every face of a family draws (bold text must not fall back either)
    drawn = set().union(
        *(
            set.intersection(*(set(I18N.font_characters(f)) for f in files))
            for files in faces.values()
        )
    )
    missing = sorted(set(shown) - drawn)
    assert not missing, "no served font draws " + ", ".join(
        f"{c!r} (U+{ord(c):04X}, in {shown[c]})" for c in missing[:40]
    )


def test_no_chinese_page_draws_a_character_with_a_system_font(
    book: BookBuild, translated_pages: list[str]
) -> None:
    require_chromium()
    served = list(dict.fromkeys(f.family for f in I18N.FONT_FACES))
    fallbacks = system_fonts_drawing(book.html, translated_pages, served[:1])
    assert not fallbacks, "text drawn with a font of the reader's system:\n" + "\n".join(
        fallbacks[:40]
    )


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


_EMPHASIS = """() => [...document.querySelectorAll('article em, article i, article cite')]
  .filter(e => /[\\u4e00-\\u9fff]/.test(e.textContent))
  .map(e => [e.textContent.slice(0, 20), getComputedStyle(e).fontSynthesisStyle])"""


def test_chinese_in_emphasis_is_never_slanted(book: BookBuild, translated_pages: list[str]) -> None:
    """The served Chinese faces have no italic, so a slanted Chinese glyph would be synthesised:
    the edition turns that off (book/_ext/i18n.py's cjk.css); Latin words keep their italic."""
    require_chromium()
    slanted, seen = [], 0
    with local_site(book.html) as site:
        page = site.context.new_page()
        for path in translated_pages:
            page.goto(f"{site.base}/{path}.html", wait_until="load")
            for text, synthesis in page.evaluate(_EMPHASIS):
                seen += 1
                if synthesis != "none":
                    slanted.append(f"{path}: {text}")
        page.close()
    assert seen > 0, "no Chinese in emphasis to check"
    assert slanted == []
