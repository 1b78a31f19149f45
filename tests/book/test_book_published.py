"""The site as published at its address (book/_ext/published.py; the address is one setting,
tools/book.py's :func:`site_url`): built for a project subpath (tests/book/site.py's SITE_URL,
as GitHub Pages gives a fork), it names that address in its sitemap, link previews, canonical
links and 404 page, and nothing on it assumes the site's root.

Every browser test of the book serves the site at SITE_URL's path and nothing outside it
(tests/book/site.py's ``serve``), so each of them (every page of both editions with no failed
request, search, the language switch, the explorer) also checks that the site works there.
"""

from __future__ import annotations

import re
import struct
import urllib.request
import xml.etree.ElementTree as ET
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

from tests.book.browser import (
    SEARCH_DONE,
    SEARCH_RESULT_PATHS,
    SiteReport,
    collect_errors,
    local_site,
    require_chromium,
)
from tests.book.site import ROOT, SITE_PATH, SITE_URL, TRANSLATED, serve, toc_pages
from tools import book as book_tool

SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
XHTML = "{http://www.w3.org/1999/xhtml}"
EDITIONS = book_tool.EDITIONS
_CJK = re.compile("[\u4e00-\u9fff]")


def _url(edition: book_tool.I18N.Edition, link: str) -> str:
    return f"{SITE_URL}{edition.folder}/{link}" if edition.folder else f"{SITE_URL}{link}"


def _alternates(link: str) -> dict[str, str]:
    """The alternates every edition's copy of ``link`` names: each edition, English by default."""
    found = {e.html_lang: _url(e, link) for e in EDITIONS}
    return {**found, "x-default": _url(EDITIONS[0], link)}


class _Head(HTMLParser):
    """A page's ``<title>``, ``<meta>`` (by property or name) and ``<link>`` tags."""

    def __init__(self) -> None:
        super().__init__()
        self.meta: dict[str, str] = {}
        self.alternates: dict[str, str] = {}
        self.canonical = ""
        self.title = ""
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "meta" and ("property" in a or "name" in a):
            self.meta[a.get("property") or a["name"]] = a.get("content", "")
        elif tag == "link" and a.get("rel") == "alternate" and "hreflang" in a:
            self.alternates[a["hreflang"]] = a["href"]
        elif tag == "link" and a.get("rel") == "canonical":
            self.canonical = a["href"]
        self._in_title = tag == "title"

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data

    def handle_endtag(self, tag: str) -> None:
        self._in_title = False


def _head(path: Path) -> _Head:
    head = _Head()
    head.feed(path.read_text(encoding="utf-8"))
    return head


_ENDS = (".", "?", "!", "。", "？", "！", "…")


def _article_text(path: Path) -> str:
    """The page's article as its reader reads it: tags dropped, whitespace collapsed."""
    page = path.read_text(encoding="utf-8")
    article = page[page.index("<article") : page.index("</article>")]
    article = re.sub(r"<(script|style)\b.*?</\1>", " ", article, flags=re.S)
    return " ".join(unescape(re.sub(r"<[^>]+>", "", article)).split())


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", data[16:24])


def test_the_address_is_one_setting_checked_and_given_to_each_edition(tmp_path: Path) -> None:
    configured = yaml.safe_load((ROOT / "_config.yml").read_text())["html"]["baseurl"]
    assert book_tool.site_url() == configured
    assert book_tool.site_url("https://me.github.io/course") == "https://me.github.io/course/"
    for bad in ("me.github.io/course/", "ftp://me.org/", "/course/", "", "https://me.org/?a=1"):
        with pytest.raises(ValueError, match=r"--baseurl \(make book BASEURL=\.\.\.\)"):
            book_tool.site_url(bad)
    for language, expected in (("en", SITE_URL), ("zh_CN", f"{SITE_URL}zh/")):
        config = book_tool.edition_config(tmp_path, language, site=SITE_URL)
        assert yaml.safe_load(config.read_text())["html"]["baseurl"] == expected
        assert config.is_relative_to(tmp_path), "an edition's settings stay in its output"
    assert book_tool.edition_config(tmp_path, "en") == ROOT / "_config.yml"


def test_the_sitemap_lists_every_page_of_both_editions_with_its_alternates(html: Path) -> None:
    links = [f"{page}.html" for page in toc_pages()]
    root = ET.parse(html / "sitemap.xml").getroot()
    urls = {
        url.findtext(f"{SITEMAP}loc"): {
            a.get("hreflang"): a.get("href") for a in url.iter(f"{XHTML}link")
        }
        for url in root.iter(f"{SITEMAP}url")
    }
    assert len(urls) == len(list(root.iter(f"{SITEMAP}url"))), "a page is listed twice"
    expected = {_url(e, link): _alternates(link) for e in EDITIONS for link in links}
    assert urls == expected
    for url in urls:
        assert (html / url.removeprefix(SITE_URL)).is_file(), f"{url} is not in the build"
    for edition in EDITIONS[1:]:  # each edition's own sitemap: its pages, the same alternates
        own = ET.parse(html / edition.folder / "sitemap.xml").getroot()
        locs = [u.findtext(f"{SITEMAP}loc") for u in own.iter(f"{SITEMAP}url")]
        assert sorted(locs) == sorted(_url(edition, link) for link in links)


def _book_pages() -> list[tuple[book_tool.I18N.Edition, str]]:
    return [(e, f"{page}.html") for e in EDITIONS for page in toc_pages()]


def test_every_page_has_a_link_preview_of_its_own_and_its_alternates(html: Path) -> None:
    cards: dict[str, set[str]] = {e.language: set() for e in EDITIONS}
    for edition, link in _book_pages():
        path = html / edition.folder / link
        head, where = _head(path), f"{edition.language} {link}"
        meta = head.meta
        assert meta.get("og:title") and meta["og:title"] in head.title, where
        description = meta.get("og:description", "")
        assert len(description) >= 20, f"{where}: description {description!r}"
        assert bool(_CJK.search(description)) == (edition.language == "zh_CN"), where
        assert meta.get("description") == description, where
        assert len(description) <= 200 and description.endswith(_ENDS), f"{where}: {description}"
        assert description.rstrip("…") in _article_text(path), f"{where}: {description!r}"
        assert meta.get("og:url") == head.canonical == _url(edition, link), where
        title = dict(edition.settings).get("html_title")
        assert meta.get("og:site_name") == (title or "Rooflines: where the time goes"), where
        assert meta.get("twitter:card") == "summary_large_image", where
        image = meta.get("og:image", "")
        assert image.startswith(_url(edition, "_images/cards/")), f"{where}: {image}"
        card = html / image.removeprefix(SITE_URL)
        assert card.is_file(), f"{where}: {image} is not in the build"
        assert _png_size(card) == (1200, 630), f"{where}: {card.name}"
        assert (meta.get("og:image:width"), meta.get("og:image:height")) == ("1200", "630")
        assert meta.get("og:image:alt", "").startswith(meta["og:title"]), where
        cards[edition.language].add(image)
        assert head.alternates == _alternates(link), where
    for language, images in cards.items():
        assert len(images) == len(toc_pages()), f"{language}: pages share a card"


def test_the_previews_resolve_where_the_site_is_served(html: Path) -> None:
    images = {_head(html / e.folder / link).meta["og:image"] for e, link in _book_pages()}
    with serve(html) as base:
        for image in sorted(images):
            served = f"{base}/{image.removeprefix(SITE_URL)}"
            with urllib.request.urlopen(served, timeout=10) as response:
                assert response.status == 200, served
                assert response.headers["Content-Type"] == "image/png", served


_ROOT_ABSOLUTE = re.compile(r"""(?:\b(?:href|src|action)\s*=\s*["']|url\(\s*["']?)/(?!/)""")
"""A link, script, image, form or stylesheet URL that starts at the server's root."""


def test_nothing_on_the_site_assumes_the_servers_root(
    html: Path, translated_pages: list[str]
) -> None:
    files = [p for p in html.rglob("*") if p.suffix in (".html", ".css")]
    assert len(files) > 2 * len(toc_pages())
    found = {}
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        hits = [m.group(0) + text[m.end() : m.end() + 40] for m in _ROOT_ABSOLUTE.finditer(text)]
        if path.name == "404.html":  # absolute by design: it is served at any address
            hits = [h for h in hits if not h.split("/", 1)[1].startswith(SITE_PATH[1:])]
        if hits:
            found[str(path.relative_to(html))] = hits[:3]
    assert not found, f"URLs that assume the site is at the server's root: {found}"


@pytest.mark.slow
def test_the_404_page_links_home_in_both_languages_from_any_address(html: Path) -> None:
    require_chromium()
    assert (html / "404.html").is_file()
    homes = {e.html_lang: _url(e, f"{toc_pages()[0]}.html") for e in EDITIONS}
    with local_site(html) as site:
        for missing in ("no/such/page.html", "zh/book/gone/deeper.html", "book"):
            page = site.context.new_page()
            errors: list[str] = []
            collect_errors(page, errors)
            site.failed.clear()
            response = page.goto(f"{site.base}/{missing}", wait_until="load")
            assert response is not None and response.status == 404, missing
            title = page.title()
            assert "Page not found" in title and "找不到" in title, title
            # GitHub Pages answers with the page's status: the page itself is the only "failure"
            assert site.failed == [f"404 {site.base}/{missing}"], site.failed
            assert [e for e in errors if "404" not in e] == [], errors
            styled = page.evaluate(
                "() => [...document.querySelectorAll('link[rel=stylesheet]')]"
                ".every(l => l.sheet && l.sheet.cssRules.length > 0)"
            )
            assert styled, f"{missing}: a stylesheet did not load"
            assert page.locator(".language-switch").count() == 0
            for lang, home in homes.items():
                link = page.locator(f"article a[href='{urlsplit(home).path}']")
                assert link.count() == 1, f"{missing}: no link to the {lang} edition's first page"
            page.close()
        page = site.context.new_page()
        for lang, home in homes.items():
            page.goto(f"{site.base}/no/such/page.html", wait_until="load")
            with page.expect_navigation():
                page.locator(f"article a[href='{urlsplit(home).path}']").click()
            assert page.url == f"{site.base}/{home.removeprefix(SITE_URL)}"
            assert page.evaluate("document.documentElement.lang") == lang
        assert site.blocked == []


def test_every_page_of_both_editions_loads_with_no_failed_request(
    site: SiteReport, translated_site: SiteReport
) -> None:
    # check_site opened every page, from the site's path (tests/book/site.py's serve)
    assert site.failed_requests == [], site.failed_requests
    assert translated_site.failed_requests == [], translated_site.failed_requests
    assert len(site.pages) == len(translated_site.pages) == len(toc_pages())
    assert TRANSLATED == ("zh_CN",)


_NOTEBOOK_LINK = re.compile(re.escape(SITE_URL) + r"[^)\s\"'>]+")


def test_the_take_home_notebooks_link_to_the_published_pages(html: Path) -> None:
    """A downloaded notebook's cross-references are links to the page of its own edition where
    the site is published (book/_ext/take_home.py with the edition's ``html_baseurl``)."""
    broken, own = [], {e.language: 0 for e in EDITIONS}
    for edition in EDITIONS:
        for page in toc_pages():
            notebook = html / edition.folder / "_sources" / f"{page}.ipynb"
            for link in set(_NOTEBOOK_LINK.findall(notebook.read_text(encoding="utf-8"))):
                path, _, fragment = link.removeprefix(SITE_URL).partition("#")
                target = html / path
                ids = re.findall(r'\bid="([^"]+)"', target.read_text()) if target.is_file() else []
                if not target.is_file() or (fragment and fragment not in ids):
                    broken.append(f"{edition.language} {page}: {link}")
                own[edition.language] += link.startswith(_url(edition, "book/"))
    assert not broken, "\n".join(broken)
    assert all(count >= 20 for count in own.values()), own


@pytest.mark.slow
@pytest.mark.parametrize(
    ("folder", "query", "teaching"),
    [
        ("", "arithmetic intensity", "book/02_arithmetic_intensity"),
        ("zh/", "算术强度", "book/02_arithmetic_intensity"),
    ],
)
def test_a_reader_searches_from_a_page_of_the_site_at_its_path(
    html: Path, translated_pages: list[str], folder: str, query: str, teaching: str
) -> None:
    """The search box of a page (the sidebar's field, its dialog, Enter) leads to the edition's
    search page under the site's path, which finds the page that teaches the words."""
    require_chromium()
    with local_site(html) as site:
        page = site.context.new_page()
        errors: list[str] = []
        collect_errors(page, errors)
        page.goto(f"{site.base}/{folder}book/04_matmul.html", wait_until="load")
        page.locator(".sidebar-primary-item .search-button-field").click()
        field = page.locator("#pst-search-dialog input[name=q]")
        field.fill(query)
        with page.expect_navigation():
            field.press("Enter")
        assert urlsplit(page.url).path == f"{SITE_PATH}{folder}search.html", page.url
        page.wait_for_function(SEARCH_DONE)
        found = page.evaluate(SEARCH_RESULT_PATHS)
        assert f"{SITE_PATH}{folder}{teaching}.html" in found, found
        assert errors == [] and site.blocked == [] and site.failed == [], (errors, site.failed)
