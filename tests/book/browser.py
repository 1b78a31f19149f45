"""Open every page of a built book in headless Chromium, as a reader would, and report what a
reader would trip over.

Debian's ``/usr/bin/chromium`` is driven by playwright's sync API (never playwright's own browser
download). The HTML is served on 127.0.0.1 and every request to any other host is aborted and
recorded: a page that needs the network to display shows up here.

For each page :func:`check_site` records console errors and uncaught exceptions, images that did
not load, math that MathJax did not typeset (and raw ``$`` or ``\\(`` left in the text), whether a
Jupyter widget view rendered, the internal links, and a full-page screenshot at a desktop and a
phone width. Links are then resolved against the served site: the page must exist (HTTP 200) and
the ``#fragment`` must name an element on it.
"""

from __future__ import annotations

import os
import re
import shutil
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urldefrag, urlparse

import pytest

from tests.book.site import SITE_PATH, serve

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page, Request, Response, Route

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
WIDGET_TIMEOUT_MS = 20_000

_PHONE_OVERFLOW = (
    "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
)
"""Pixels by which the page is wider than the viewport: a reader on a phone would scroll sideways."""

_HEADER_OUTSIDE = """
() => Array.from(document.querySelectorAll('.bd-header-article a, .bd-header-article button'))
  .filter(e => e.getClientRects().length)
  .filter(e => {
    const box = e.getBoundingClientRect();
    return box.left < 0 || box.right > document.documentElement.clientWidth;
  })
  .map(e => (e.getAttribute('aria-label') || e.title || e.className).trim())
"""
"""The header's buttons and links that stick out of the screen (cut off at its edge)."""

_SIDEWAYS_SCROLLERS = """
() => Array.from(document.querySelectorAll('body *'))
  .filter(e => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX))
  .filter(e => e.scrollWidth > e.clientWidth + 1)
  .map(e => `${e.tagName.toLowerCase()}.${Array.from(e.classList).join('.')}: ${e.scrollWidth}px`
            + ` in ${e.clientWidth}px, "${e.innerText.trim().replace(/\\s+/g, ' ').slice(0, 40)}"`)
"""
"""The parts of a page a reader scrolls sideways inside a page that fits (a wide table, a long
line of code, a wide formula), hidden ones too (a folded cell scrolls once unfolded)."""

_FONTS_SETTLED = """
async () => {
  const faces = Array.from(document.fonts);
  await Promise.all(faces.map(f => f.status === 'loaded' ? null : f.load().catch(() => null)));
  await document.fonts.ready;
  // transitions started by a resize (the theme's sidebar turning into a drawer) run to the end
  const finite = document.getAnimations().filter(a => {
    const timing = a.effect ? a.effect.getComputedTiming() : {};
    return timing.iterations !== Infinity && timing.endTime !== Infinity;
  });
  const ended = Promise.all(finite.map(a => a.finished.catch(() => null)));
  await Promise.race([ended, new Promise(done => setTimeout(done, 5000))]);  // a paused one
  await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
  return faces.filter(f => f.status === 'error').map(f => `${f.family} ${f.weight}`);
}
"""
"""Load every web font the page declares, wait until the document's fonts are ready, every
finite animation or transition has ended, and two frames have been laid out; the faces that
failed to load. What is measured (or screenshot) after it is what a reader sees once the page
has settled, not the fallback metrics of a page whose fonts are still on their way, nor a
sidebar half-way through sliding out."""

SERVED_FONTS = "**/_static/cjk/*.woff"
"""The URL pattern of a CJK edition's served fonts (book/_ext/i18n.py)."""

NARROW_PHONE = {"width": 360, "height": 780}
"""The narrowest common phone, CSS px: a page that fits it fits 390 px with room to spare."""

_PAGE_FACTS = """
async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
  }
  const images = Array.from(document.images);
  await Promise.all(images.map(img => img.complete ? null :
      new Promise(done => { img.onload = img.onerror = done; })));
  const maths = Array.from(document.querySelectorAll('span.math, div.math'));
  const article = document.querySelector('article.bd-article') || document.body;
  const clone = article.cloneNode(true);
  clone.querySelectorAll('pre, code, script, style, mjx-container, .highlight, textarea, ' +
                         '.cell_input').forEach(e => e.remove());
  const text = clone.textContent;
  const raw = [];
  for (const m of text.matchAll(/.{0,40}(\\$|\\\\\\(|\\\\\\[).{0,40}/g)) raw.push(m[0].trim());
  return {
    title: document.title,
    images: images.length,
    brokenImages: images.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src),
    maths: maths.length,
    untypeset: maths.filter(m => !m.querySelector('mjx-container')).map(m => m.textContent),
    typeset: document.querySelectorAll('mjx-container').length,
    rawMath: raw,
    widgetViews: document.querySelectorAll(
        'script[type="application/vnd.jupyter.widget-view+json"]').length,
    liveExplorers: document.querySelectorAll('.live-explorer canvas').length,
    links: Array.from(document.querySelectorAll('a[href]')).map(a => a.href),
  };
}
"""

SEARCH_DONE = (
    "() => { const s = document.querySelector('.search-summary');"
    " return !!s && s.innerText.trim() !== ''; }"
)
"""Whether Sphinx's search page has finished searching (its summary says what it found)."""
SEARCH_RESULT_PATHS = (
    "() => [...document.querySelectorAll('ul.search li a:first-of-type')]"
    ".map(a => new URL(a.href).pathname)"
)
"""The URL paths of the pages a search found, best first."""

MIN_FIGURE_TEXT_PX = 9.0
"""The smallest figure text a reader should see on a phone, CSS px (issue 11)."""

_FIGURE_TEXT = """
async () => {
  const out = [];
  for (const img of document.querySelectorAll('article img')) {
    if (!new URL(img.src).pathname.endsWith('.svg')) continue;
    const svg = await (await fetch(img.src)).text();
    const box = svg.match(/viewBox="\\s*[-\\d.]+\\s+[-\\d.]+\\s+([\\d.]+)\\s+([\\d.]+)\\s*"/);
    const sizes = Array.from(svg.matchAll(/scale\\(([\\d.]+) -\\1\\)/g))
        .map(m => 100 * parseFloat(m[1]));
    if (!box || !sizes.length) continue;
    const shown = img.getBoundingClientRect().width;
    const smallest = Math.min(...sizes);
    out.push({src: img.src.split('/').pop(), shownPx: shown, viewBoxWidth: parseFloat(box[1]),
              smallestFontPt: smallest, smallestFontPx: smallest * shown / parseFloat(box[1])});
  }
  return out;
}
"""
"""Each SVG figure of the article as displayed: matplotlib writes text as glyph paths (``svg.fonttype:
path``) drawn at ``scale(s -s)`` of 100-unit glyphs, so a glyph's font size is ``100 s`` in the
SVG's user units; shown at ``shownPx`` CSS px for a viewBox ``viewBoxWidth`` wide, it is displayed
at ``100 s × shownPx / viewBoxWidth`` CSS px."""

_WIDGET_FACTS = """
() => {
  const root = document.querySelector('.roofline-explorer');
  const img = root ? root.querySelector('img') : null;
  return {
    widgets: document.querySelectorAll('.jupyter-widgets').length,
    explorer: !!root,
    sliders: root ? root.querySelectorAll('.widget-slider, .slider-container').length : 0,
    dropdowns: root ? root.querySelectorAll('select').length : 0,
    chartWidth: img ? img.naturalWidth : 0,
    readout: root ? (root.querySelector('table.explorer-readout') || {}).innerText || '' : '',
  };
}
"""


@contextmanager
def chromium_page(
    width: int = 1400, height: int = 1000, timeout_ms: int = 120_000
) -> Iterator[Page]:
    """A page of a headless Debian Chromium (driven by playwright, never its own browsers), closed
    on exit; every wait on it times out after ``timeout_ms``."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS))
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.set_default_timeout(timeout_ms)
            yield page
        finally:
            browser.close()


@dataclass
class LocalSite:
    """A built site served on 127.0.0.1 and a headless Chromium context open on it.

    Attributes:
        base: the site's URL (``http://127.0.0.1:PORT/some/subpath``, :data:`SITE_PATH`).
        context: the browser context; every request to another host is aborted.
        blocked: the URLs of the requests that were aborted, in order.
        failed: the requests to the site that failed or got an HTTP error status, each
            ``"STATUS URL"`` (``failed URL: reason`` when no response came), in order.
    """

    base: str
    context: BrowserContext
    blocked: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


@contextmanager
def local_site(html_dir: Path) -> Iterator[LocalSite]:
    """Serve ``html_dir`` at the published site's path (:data:`SITE_PATH`: nothing is served
    outside it) and open a desktop-sized Chromium context on it, offline: requests to any other
    host are aborted and recorded in :attr:`LocalSite.blocked`, and requests to the site that
    fail in :attr:`LocalSite.failed`; service workers are blocked. The browser is closed on
    exit."""
    from playwright.sync_api import sync_playwright

    with serve(html_dir) as base, sync_playwright() as pw:
        origin = urlparse(base).netloc
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS))
        try:
            site = LocalSite(base, browser.new_context(viewport=DESKTOP, service_workers="block"))

            def gate(route: Route, request: Request) -> None:
                if urlparse(request.url).netloc == origin:
                    route.continue_()
                else:
                    site.blocked.append(request.url)
                    route.abort()

            def failed(request: Request) -> None:
                if urlparse(request.url).netloc == origin:
                    site.failed.append(f"failed {request.url}: {request.failure}")

            def answered(response: Response) -> None:
                if response.status >= 400 and urlparse(response.url).netloc == origin:
                    site.failed.append(f"{response.status} {response.url}")

            site.context.route("**/*", gate)
            site.context.on("requestfailed", failed)
            site.context.on("response", answered)
            yield site
        finally:
            browser.close()


def collect_errors(page: Page, errors: list[str]) -> None:
    """Append to ``errors`` every console error and uncaught exception ``page`` reports."""
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))


def require_chromium() -> None:
    """Skip (on a developer's machine) or fail (in CI) when Debian's Chromium is missing."""
    if os.path.exists(CHROMIUM):
        return
    message = f"{CHROMIUM} is missing: run `python -m tools.ensure_chromium` (as root)"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


@dataclass
class PageReport:
    """What one page showed in the browser."""

    page: str
    url: str
    status: int | None = None
    console_errors: list[str] = field(default_factory=list)
    facts: dict = field(default_factory=dict)
    widget: dict = field(default_factory=dict)
    screenshots: list[Path] = field(default_factory=list)
    phone_overflow_px: int = 0
    """How far the page is wider than a phone's screen (0: nothing scrolls sideways)."""
    phone_sideways: list[str] = field(default_factory=list)
    """What scrolls sideways inside the page on a phone (``_SIDEWAYS_SCROLLERS``)."""
    phone_figures: list[dict] = field(default_factory=list)
    """Each SVG figure at the phone's width: its smallest text in CSS px (``_FIGURE_TEXT``)."""
    font_errors: list[str] = field(default_factory=list)
    """The web fonts the page declares that did not load (family and weight)."""


@dataclass
class SiteReport:
    """Every page's report, the requests that tried to leave localhost, the requests to the site
    that failed (an HTTP error or no answer), and broken links."""

    pages: list[PageReport]
    blocked_requests: list[str]
    broken_links: list[str]
    failed_requests: list[str] = field(default_factory=list)

    @property
    def problems(self) -> list[str]:
        """Everything wrong, one line each (empty when the site is fine)."""
        out = [f"request to another host: {url}" for url in self.blocked_requests]
        out += [f"request failed: {failure}" for failure in self.failed_requests]
        out += [f"broken link: {link}" for link in self.broken_links]
        for p in self.pages:
            f = p.facts
            if p.status != 200:
                out.append(f"{p.page}: HTTP status {p.status}")
            out += [f"{p.page}: console: {e}" for e in p.console_errors]
            out += [f"{p.page}: image did not load: {src}" for src in f.get("brokenImages", [])]
            out += [f"{p.page}: math not typeset: {m}" for m in f.get("untypeset", [])]
            out += [f"{p.page}: raw math in text: {t!r}" for t in f.get("rawMath", [])]
            if f.get("widgetViews") and not p.widget.get("widgets"):
                out.append(f"{p.page}: a widget view is embedded but nothing rendered")
            out += [f"{p.page}: font did not load: {face}" for face in p.font_errors]
            if p.phone_overflow_px > 0:
                out.append(f"{p.page}: {p.phone_overflow_px}px wider than a phone's screen")
            out += [f"{p.page}: scrolls sideways on a phone: {s}" for s in p.phone_sideways]
            out += [
                f"{p.page}: figure {f['src']} text {f['smallestFontPx']:.1f}px on a phone"
                for f in p.phone_figures
                if f["smallestFontPx"] < MIN_FIGURE_TEXT_PX
            ]
        return out


def _target_ids(html_dir: Path, path: str) -> set[str]:
    """The ids on the page at URL path ``path`` (under :data:`SITE_PATH`)."""
    file = html_dir / path.removeprefix(SITE_PATH).lstrip("/")
    if file.is_dir():
        file = file / "index.html"
    if not file.is_file():
        return set()
    return set(re.findall(r'\bid="([^"]+)"', file.read_text(errors="replace")))


def _check_links(base: str, html_dir: Path, links: set[str]) -> list[str]:
    broken = []
    for link in sorted(links):
        url, fragment = urldefrag(link)
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                status = response.status
        except urllib.error.HTTPError as error:
            status = error.code
        if status != 200:
            broken.append(f"{link} (HTTP {status})")
            continue
        if fragment and fragment not in _target_ids(html_dir, urlparse(url).path):
            broken.append(f"{link} (no element with id {fragment!r})")
    return broken


def check_site(html_dir: Path, pages: list[str], screenshot_dir: Path | None) -> SiteReport:
    """Open every page of ``pages`` (toc paths such as ``book/intro``) from ``html_dir``."""

    if screenshot_dir is not None:
        shutil.rmtree(screenshot_dir, ignore_errors=True)
        (screenshot_dir / "phone").mkdir(parents=True)
    reports: list[PageReport] = []
    internal: set[str] = set()
    with local_site(html_dir) as site:
        base, context, origin = site.base, site.context, urlparse(site.base).netloc
        for page_path in pages:
            report = PageReport(page_path, f"{base}/{page_path}.html")
            page = context.new_page()
            collect_errors(page, report.console_errors)
            response = page.goto(report.url, wait_until="load")
            report.status = response.status if response else None
            page.evaluate(UNFOLD)
            report.facts = page.evaluate(_PAGE_FACTS)
            if report.facts["widgetViews"]:
                try:
                    page.wait_for_selector(".jupyter-widgets", timeout=WIDGET_TIMEOUT_MS)
                    page.wait_for_function(
                        "() => { const i = document.querySelector('.roofline-explorer img');"
                        " return !document.querySelector('.roofline-explorer') ||"
                        " (i && i.complete && i.naturalWidth > 0); }",
                        timeout=WIDGET_TIMEOUT_MS,
                    )
                except Exception as error:  # the report says what was missing
                    report.console_errors.append(f"widget did not render: {error}")
                report.widget = page.evaluate(_WIDGET_FACTS)
            internal.update(
                link for link in report.facts["links"] if urlparse(link).netloc == origin
            )
            name = page_path.replace("/", "_")
            report.font_errors = page.evaluate(_FONTS_SETTLED)
            if screenshot_dir is not None:
                desktop = screenshot_dir / f"{name}.png"
                page.screenshot(path=str(desktop), full_page=True)
                report.screenshots.append(desktop)
            page.set_viewport_size(PHONE)
            page.evaluate(_FONTS_SETTLED)
            report.phone_overflow_px = page.evaluate(_PHONE_OVERFLOW)
            report.phone_sideways = page.evaluate(_SIDEWAYS_SCROLLERS)
            report.phone_figures = page.evaluate(_FIGURE_TEXT)
            if screenshot_dir is not None:
                phone = screenshot_dir / "phone" / f"{name}.png"
                page.screenshot(path=str(phone), full_page=True)
                report.screenshots.append(phone)
            page.close()
            reports.append(report)
        broken = _check_links(base, html_dir, internal)
        blocked, failed = site.blocked, site.failed
    return SiteReport(reports, blocked, broken, failed)


@dataclass(frozen=True)
class PhoneFit:
    """One page on a phone: how far it is wider than the screen (0: it fits), the web fonts it
    declares that did not load (the blocked ones, when fonts are blocked), the header controls cut
    off at the screen's edge, and what scrolls sideways inside the page."""

    page: str
    overflow_px: int
    font_errors: tuple[str, ...]
    header_outside: tuple[str, ...] = ()
    """The header's controls cut off at the screen's edge (``_HEADER_OUTSIDE``)."""
    sideways: tuple[str, ...] = ()
    """What scrolls sideways inside the page (``_SIDEWAYS_SCROLLERS``)."""


UNFOLD = "() => document.querySelectorAll('button.held-show').forEach((b) => b.click())"
"""Show the working each page folds until its question is answered (hold-until-answered), as a
reader who answers or clicks does: the checks see every figure, formula and table."""


def _settled_page(
    site: LocalSite, page_path: str, viewport: dict[str, int] | None = None
) -> tuple[Page, list[str]]:
    """``page_path`` opened on ``site`` (at ``viewport``, else the site's), its math typeset,
    images and fonts loaded and animations ended; the page, and the web fonts that failed."""
    page = site.context.new_page()
    if viewport is not None:
        page.set_viewport_size(viewport)
    page.goto(f"{site.base}/{page_path}.html", wait_until="load")
    page.evaluate(UNFOLD)
    page.evaluate(_PAGE_FACTS)
    return page, page.evaluate(_FONTS_SETTLED)


def phone_fit(
    html_dir: Path,
    pages: list[str],
    viewport: dict[str, int] = NARROW_PHONE,
    block: str | None = None,
) -> list[PhoneFit]:
    """Open each of ``pages`` at a phone's ``viewport``, its fonts settled, and measure how far
    it is wider than the screen; ``block`` (a URL pattern) aborts the requests for those fonts,
    so that the page is drawn with the reader's system fonts instead."""
    fits = []
    with local_site(html_dir) as site:
        if block is not None:
            site.context.route(block, lambda route: route.abort())
        for page_path in pages:
            page, errors = _settled_page(site, page_path, viewport)
            fits.append(
                PhoneFit(
                    page_path,
                    page.evaluate(_PHONE_OVERFLOW),
                    tuple(errors),
                    tuple(page.evaluate(_HEADER_OUTSIDE)),
                    tuple(page.evaluate(_SIDEWAYS_SCROLLERS)),
                )
            )
            page.close()
    return fits


_MARK_TEXT = """
(families) => {
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const texts = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const parent = n.parentElement;
    if (!n.textContent.trim() || !parent || !parent.getClientRects().length) continue;
    if (parent.closest('mjx-assistive-mml, script, style, noscript, template')) continue;
    const first = getComputedStyle(parent).fontFamily.split(',')[0].trim().replace(/^"|"$/g, '');
    if (families.includes(first)) texts.push(n);
  }
  texts.forEach((n, i) => {
    const span = document.createElement('span');
    span.setAttribute('data-font-check', String(i));
    n.replaceWith(span);
    span.appendChild(n);
  });
  return texts.length;
}
"""
"""Wrap every displayed piece of text whose font stack starts with one of ``families`` (the
served ones: not code, math or icons, which have fonts of their own) in a span of its own, so
that the fonts DevTools reports for the span are that text's alone (a span inherits its
parent's style, so nothing moves)."""


def system_fonts_drawing(html_dir: Path, pages: list[str], families: list[str]) -> list[str]:
    """For each of ``pages``, every piece of text whose font stack starts with one of
    ``families`` but that Chromium drew, wholly or partly, with a font of the reader's system
    instead of a web font (DevTools' ``CSS.getPlatformFontsForNode``), as "page: system font
    (glyphs) in 'text'"; empty when the served fonts draw every character."""
    found = []
    with local_site(html_dir) as site:
        for page_path in pages:
            page, _ = _settled_page(site, page_path)
            page.evaluate(_MARK_TEXT, families)
            cdp = site.context.new_cdp_session(page)
            cdp.send("DOM.enable")
            cdp.send("CSS.enable")
            root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
            marked = cdp.send(
                "DOM.querySelectorAll", {"nodeId": root, "selector": "[data-font-check]"}
            )
            for node in marked["nodeIds"]:
                fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
                system = [f for f in fonts if not f["isCustomFont"]]
                if system:
                    html = cdp.send("DOM.getOuterHTML", {"nodeId": node})["outerHTML"]
                    text = re.sub(r"<[^>]+>", "", html)
                    names = ", ".join(f"{f['familyName']} ({f['glyphCount']})" for f in system)
                    found.append(f"{page_path}: {names} in {text[:80]!r}")
            cdp.detach()
            page.close()
    return found


def check_file_pages(html_dir: Path, pages: list[str]) -> list[PageReport]:
    """Open ``pages`` straight from the file system (file://, as a reader who double-clicks
    index.html does), with every http(s) request aborted; report console errors and facts."""
    from playwright.sync_api import sync_playwright

    reports = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS))
        try:
            context = browser.new_context(viewport=DESKTOP)
            context.route("http*://**/*", lambda route: route.abort())
            for page_path in pages:
                report = PageReport(page_path, (html_dir / f"{page_path}.html").as_uri())
                page = context.new_page()
                collect_errors(page, report.console_errors)
                page.goto(report.url, wait_until="load")
                report.facts = page.evaluate(_PAGE_FACTS)
                if report.facts["widgetViews"]:
                    page.wait_for_selector(".jupyter-widgets", timeout=WIDGET_TIMEOUT_MS)
                    report.widget = page.evaluate(_WIDGET_FACTS)
                page.close()
                reports.append(report)
        finally:
            browser.close()
    return reports
