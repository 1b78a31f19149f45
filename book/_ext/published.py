"""Sphinx extension: the book as published at its address, in both editions.

The site is built for one address, ``html_baseurl`` (``_config.yml``'s ``html.baseurl``, or
``make book BASEURL=...``; tools/book.py gives each edition its folder under it: English at the
site's root, Chinese at ``zh/``). It may be a project subpath such as
``https://USER.github.io/REPO/``: every link, script, font and search request of a page is
relative, so a page works wherever the site is put; what must be absolute is made from that
address here, and only here.

- **Sitemap** (sphinx-sitemap writes each edition's ``sitemap.xml``). sphinx-sitemap's language
  alternates assume every language is published under ``<language>/``, while the English edition
  is at the root and the Chinese at ``zh/``; so it lists the edition's own pages
  (``sitemap_url_scheme: {link}``) and :func:`_sitemap_alternates` rewrites the file: the site's
  root ``sitemap.xml`` lists every page of every edition (a crawler reads one file), and each URL
  names its alternate in each edition (``xhtml:link hreflang``) and English as ``x-default``.
  Each page's head names the same alternates (``<link rel="alternate" hreflang>``).
- **Link previews** (sphinxext-opengraph writes the ``og:`` tags: title, description, the page's
  address). The description is the page's opening paragraph, as the page shows it, cut at a
  sentence's end (:func:`page_description`: the extension's own joins a word and the bracket
  after it, "TFLOP/s(dense)"). The preview's image is a card drawn here for each page (:func:`draw_card`): the
  page's title beside the roofline chart the book teaches with, in the edition's language and
  font, 1200 × 630 PNG (``_images/cards/``). The chip's figures come from roofline_lib.
- **404 page** (sphinx-notfound-page writes ``404.html``, its links and assets absolute under the
  edition's path). GitHub Pages serves the root's ``404.html`` for any missing address of the
  site, ``zh/`` included, so the page says it in both languages and links to each edition's
  first page and search. It has no language switch (there is no page to switch to).
"""

from __future__ import annotations

import functools
import hashlib
import io
import re
import xml.etree.ElementTree as ET
from html import escape, unescape
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from docutils import nodes
from i18n import EDITIONS, Edition, edition
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ConfigError

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"
NOT_PAGES = ("search.html", "genindex.html", "404.html")
"""Pages of the build that are not the book's: no sitemap entry, no alternates."""
CARDS = "_images/cards"
"""Where each page's preview card is written, under the edition's HTML."""
CARD_SIZE_PX = (1200, 630)
"""The preview image's size: the 1.91 : 1 that link previews show at full width."""
CARD_CHIPS = ("TPU v5e", "H100 SXM")
"""The chips of the card's roofline chart: the two the book's pages compare most."""
DESCRIPTION_MAX_CHARS = 200
"""The longest description a preview shows whole (sphinxext-opengraph's default length)."""
_SENTENCE_END = re.compile(r"(?<=[.?!])\s+|(?<=[。？！])")
"""Where a sentence ends: after . ? ! and a space, or after Chinese 。？！."""

NOT_FOUND_TITLE = "Page not found · 找不到这个页面"
_NOT_FOUND_BODY = """
<h1>{title}</h1>
<p>Nothing is published at this address. Start from <a href="{en_home}">the book's first
page</a>, or <a href="{en_search}">search the book</a> for the section you were looking for.</p>
<p lang="zh-CN">这个地址上没有页面。请从<a href="{zh_home}">中文版的第一页</a>读起，\
或者<a href="{zh_search}">搜索全书</a>，找到你要的那一节。</p>
"""


def site_root(config: Config) -> str:
    """The site's address (English's ``html_baseurl``) from an edition's ``html_baseurl``."""
    current = edition(config.language)
    base = config.html_baseurl
    return base[: -len(current.folder) - 1] if current.folder else base


def page_url(root: str, target: Edition, link: str) -> str:
    """The address of ``link`` (``book/intro.html``) in edition ``target`` of the site at
    ``root``."""
    return f"{root}{target.folder}/{link}" if target.folder else f"{root}{link}"


def _checked_address(app: Sphinx, config: Config) -> None:
    """Refuse an address that is not one, naming the setting (tools/book.py checks it too, for
    a build it starts; this is for any other)."""
    base = config.html_baseurl or ""
    parts = urlsplit(base)
    if parts.scheme not in ("http", "https") or not parts.netloc or not base.endswith("/"):
        raise ConfigError(
            "html.baseurl (make book BASEURL=...) must be the absolute http:// or https:// "
            f"address the site is published at, ending in /, such as "
            f"https://USER.github.io/REPO/; got {base!r}"
        )
    current = edition(config.language)
    if current.folder and not base.endswith(f"/{current.folder}/"):
        raise ConfigError(
            f"the {current.language} edition's html_baseurl must end in its folder "
            f"{current.folder}/ (tools/book.py sets it), got {base!r}"
        )


def _configure(app: Sphinx) -> None:
    """The three extensions' settings that follow from the address, once the configuration is
    whole (i18n's edition settings gave the Chinese edition its title, sphinx-external-toc the
    root document)."""
    config = app.config
    root = site_root(config)
    config.sitemap_url_scheme = "{link}"
    config.sitemap_locales = [None]  # alternates: _sitemap_alternates
    config.sitemap_excludes = list(NOT_PAGES)
    config.ogp_site_url = config.html_baseurl
    config.ogp_site_name = config.html_title
    config.ogp_social_cards = {"enable": False}  # the card is drawn here: draw_card
    config.ogp_custom_meta_tags = ['<meta name="twitter:card" content="summary_large_image" />']
    config.notfound_urls_prefix = urlsplit(config.html_baseurl).path
    home = f"{config.root_doc}.html"
    root_path = urlsplit(root).path
    english, chinese = EDITIONS[0], next(e for e in EDITIONS if e.language == "zh_CN")
    config.notfound_context = {
        "title": NOT_FOUND_TITLE,
        "body": _NOT_FOUND_BODY.format(
            title=escape(NOT_FOUND_TITLE),
            en_home=escape(page_url(root_path, english, home)),
            en_search=escape(page_url(root_path, english, "search.html")),
            zh_home=escape(page_url(root_path, chinese, home)),
            zh_search=escape(page_url(root_path, chinese, "search.html")),
        ),
    }


def _page_head(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """Before sphinxext-opengraph's tags (priority 450 < 500): the page's card as its preview
    image; its alternates in the head. The 404 page gets no language switch."""
    if pagename == app.config.notfound_pagename:
        context["course_editions"] = []
        # sphinx-notfound-page's toctree() is None for a book whose toc has only its root page,
        # which pydata-sphinx-theme cannot parse: an empty toctree instead
        toctree = context.get("toctree")
        if callable(toctree):
            context["toctree"] = lambda *args, **kwargs: toctree(*args, **kwargs) or ""
        return
    if doctree is None or f"{pagename}.html" in NOT_PAGES:
        return  # not a page of the book
    root = site_root(app.config)
    link = f"{pagename}.html"
    alternates = [
        f'<link rel="alternate" hreflang="{e.html_lang}" href="{escape(page_url(root, e, link))}" />'
        for e in EDITIONS
    ]
    alternates.append(
        f'<link rel="alternate" hreflang="x-default" '
        f'href="{escape(page_url(root, EDITIONS[0], link))}" />'
    )
    description = page_description(doctree)
    if description:  # sphinxext-opengraph keeps a description the page already has
        alternates.append(f'<meta name="description" content="{escape(description)}" />')
    context["metatags"] = context.get("metatags", "") + "\n".join(alternates) + "\n"
    title = _plain(context.get("title", ""))
    card = _card(app, pagename, title)
    fields = dict(context.get("meta") or {})
    fields["og:image"] = f"{app.config.html_baseurl}{card}"
    fields["og:image:alt"] = f"{title} · {app.config.ogp_site_name}"
    fields["og:image:width"], fields["og:image:height"] = map(str, CARD_SIZE_PX)
    if description:
        fields["og:description"] = description
    context["meta"] = fields


def page_description(doctree: nodes.document) -> str:
    """The page's opening paragraph (the first outside a box or a code cell) as the reader
    reads it, whitespace collapsed; if longer than :data:`DESCRIPTION_MAX_CHARS`, up to its last
    sentence end within them, else cut at a word (or, in Chinese, anywhere) with "…"."""
    for paragraph in doctree.findall(nodes.paragraph):
        if _in_box_or_cell(paragraph):
            continue
        text = " ".join(paragraph.astext().split())
        if text:
            return shortened(text)
    return ""


def _in_box_or_cell(node: nodes.Node) -> bool:
    parent = node.parent
    while parent is not None:
        if isinstance(parent, nodes.Admonition | nodes.Invisible) or (
            isinstance(parent, nodes.container) and "cell" in parent.get("classes", [])
        ):
            return True
        parent = parent.parent
    return False


def shortened(text: str, limit: int = DESCRIPTION_MAX_CHARS) -> str:
    """``text`` if it is at most ``limit`` characters; else its sentences that fit (when they
    are at least 40 % of it), else its words that fit and "…"."""
    if len(text) <= limit:
        return text
    ends = [m.start() for m in _SENTENCE_END.finditer(text) if m.start() <= limit]
    if ends and ends[-1] >= 0.4 * limit:
        return text[: ends[-1]]
    cut = text[: limit - 1]
    if " " in cut and cut.rfind(" ") >= 0.6 * limit:
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip(" ,;:") + "…"


def _plain(html_title: str) -> str:
    """A page title without its markup (the theme gives it as HTML)."""
    return unescape(re.sub(r"<[^>]+>", "", html_title)).strip()


def _card(app: Sphinx, pagename: str, title: str) -> str:
    """The page's preview card, drawn once per title, site name and language: its path under the
    edition's HTML."""
    key = f"{app.config.language}\n{app.config.ogp_site_name}\n{title}\n{CARD_CHIPS}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:10]
    relative = f"{CARDS}/{pagename.replace('/', '_')}-{digest}.png"
    path = Path(app.outdir) / relative
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(draw_card(title, app.config.ogp_site_name, draw_chart()))
    return relative


@functools.cache
def draw_chart() -> bytes:
    """The rooflines of :data:`CARD_CHIPS` (roofline_lib.plots, in the environment's language),
    as PNG; drawn once per process (a build is one edition)."""
    from roofline_lib.plots import plot_roofline

    fig = plot_roofline(list(CARD_CHIPS), title="")
    fig.set_size_inches(5.2, 4.4)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, metadata={"Software": None})
    return buffer.getvalue()


def draw_card(title: str, site_name: str, chart_png: bytes) -> bytes:
    """A 1200 × 630 PNG: the site's name and the page's title on the left (wrapped as the
    language is set, :func:`roofline_lib.plots.fill`), the chart on the right."""
    import matplotlib.image as mpimg
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from roofline_lib import palette
    from roofline_lib.plots import fill
    from roofline_lib.words import text_width, use_language_font

    use_language_font()
    width_px, height_px = CARD_SIZE_PX
    dpi = 100
    fig = Figure(figsize=(width_px / dpi, height_px / dpi), dpi=dpi, facecolor="white")
    FigureCanvasAgg(fig)
    text = fig.add_axes((0, 0, 1, 1))
    text.set_axis_off()
    # the left half holds about 540 px of text: at 40 pt a Latin letter is about 30 px wide
    # and a CJK character 55 px (2 columns of text_width); a title longer than two lines is set
    # at 32 pt
    size = 40 if text_width(title) <= 36 else 32
    columns = 18 if size == 40 else 22
    text.text(0.05, 0.86, fill(site_name, 40), fontsize=22, color="#585e63", va="top")
    text.text(
        0.05,
        0.72,
        fill(title, columns),
        fontsize=size,
        fontweight="bold",
        color="#2f363d",
        va="top",
        linespacing=1.25,
    )
    text.axhline(0.015, color=palette.series_color(0), linewidth=18)
    image = fig.add_axes((0.52, 0.06, 0.46, 0.9))
    image.set_axis_off()
    image.imshow(mpimg.imread(io.BytesIO(chart_png), format="png"))
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
    return buffer.getvalue()


def _sitemap_alternates(app: Sphinx, exception: Exception | None) -> None:
    """After sphinx-sitemap (priority 600 > 500): its ``sitemap.xml`` rewritten with each page's
    alternates; the English edition's lists every edition's pages."""
    if exception is not None or app.builder.format != "html":
        return
    path = Path(app.outdir) / app.config.sitemap_filename
    if not path.is_file():
        return  # sphinx-sitemap said why
    base = app.config.html_baseurl
    root = site_root(app.config)
    locs = [loc.text or "" for loc in ET.parse(path).getroot().iter(f"{{{SITEMAP_NS}}}loc")]
    links = sorted(loc[len(base) :] for loc in locs if loc.startswith(base))
    current = edition(app.config.language)
    listed = EDITIONS if current == EDITIONS[0] else (current,)
    path.write_bytes(sitemap_xml(root, links, listed))


def sitemap_xml(root: str, links: list[str], listed: tuple[Edition, ...]) -> bytes:
    """A sitemap of ``links`` in each edition of ``listed``, each URL with its alternates in
    every edition and English as ``x-default``."""
    ET.register_namespace("", SITEMAP_NS)
    ET.register_namespace("xhtml", XHTML_NS)
    urlset = ET.Element(f"{{{SITEMAP_NS}}}urlset")
    for target in listed:
        for link in links:
            url = ET.SubElement(urlset, f"{{{SITEMAP_NS}}}url")
            ET.SubElement(url, f"{{{SITEMAP_NS}}}loc").text = page_url(root, target, link)
            for other in EDITIONS:
                ET.SubElement(
                    url,
                    f"{{{XHTML_NS}}}link",
                    rel="alternate",
                    hreflang=other.html_lang,
                    href=page_url(root, other, link),
                )
            ET.SubElement(
                url,
                f"{{{XHTML_NS}}}link",
                rel="alternate",
                hreflang="x-default",
                href=page_url(root, EDITIONS[0], link),
            )
    ET.indent(urlset)
    return ET.tostring(urlset, encoding="utf-8", xml_declaration=True)


def setup(app: Sphinx) -> dict[str, object]:
    app.connect("config-inited", _checked_address)
    app.connect("builder-inited", _configure)
    app.connect("html-page-context", _page_head, priority=450)  # before opengraph's (500)
    app.connect("build-finished", _sitemap_alternates, priority=600)  # after sphinx-sitemap's
    return {"parallel_read_safe": True, "parallel_write_safe": True}
