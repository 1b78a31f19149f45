"""Sphinx extension: each page loads the theme's scripts and styles that it uses, and no others.

A page of the theme (pydata-sphinx-theme, under sphinx-book-theme) loaded 1.5 MB of Font
Awesome's JavaScript, Sphinx's search index and scripts, and sphinx-design's stylesheet on every
page. This extension cuts them (tests/book/test_book_page_weight.py measures what a page loads):

- **Icons from the web font, only those shown.** Font Awesome's JavaScript carries every icon as
  SVG path data; the theme's stylesheet already draws the same icons with Font Awesome's web font
  (one ``.fa-NAME:before {content: "\\fxxx"}`` rule per icon). The page loads neither the script
  nor that stylesheet but the stylesheet less the rules of icons that no page or script of the
  build names (:data:`LEAN_THEME_CSS`, written when the build finishes): an icon subset as CSS,
  served from ``_static``.
- **No terminal colours where no output has them.** myst-nb's stylesheet carries 530 rules (33
  KB) that colour ANSI escape sequences in cell outputs; where no page of the build has such an
  output (an element with a ``-Color`` or ``-Background`` class), pages load the stylesheet
  without them (:data:`LEAN_MYSTNB_CSS`).
- **No search index on a reading page.** The theme loads ``searchtools.js``, ``language_data.js``
  and ``searchindex.js`` on every page for its search as you type (``search_as_you_type``), which
  this book leaves off; the search page loads them itself.
- **No sphinx-design on a page without its markup** (an element with an ``sd-`` class).
- **One search field.** pydata-sphinx-theme puts a search field in a header bar of its own
  (``navbar_persistent``) on top of sphinx-book-theme's sidebar field: a second search bar at
  desktop width. The header's persistent items are set empty (the theme's documented setting),
  unless ``_config.yml`` sets them.

The stylesheets swapped and the scripts cut are edits of the theme's page template
(``lean_templates/layout.html``): each replaces or takes out the tag exactly as the theme writes
it, and changes nothing where it does not find it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config

TEMPLATES = Path(__file__).parent / "lean_templates"
THEME_CSS = "styles/pydata-sphinx-theme.css"
"""pydata-sphinx-theme's stylesheet, under the build's ``_static``."""
LEAN_THEME_CSS = "styles/pydata-sphinx-theme-lean.css"
"""The same stylesheet less the icons no page shows, which every page loads instead."""
LEAN_MYSTNB_CSS = "mystnb-lean.css"
"""myst-nb's stylesheet (``mystnb.<hash>.css``), less its ANSI colours when no output has any."""
DESIGN_ASSETS = ("sphinx-design.min.css", "design-tabs.js")
"""sphinx-design's files (``_static``), which a page without its markup does not load."""

_ICON_RULE = re.compile(r'(?<=[}\s])((?:\.fa-[a-z0-9-]+:(?:before|after),?)+)\{content:"[^"]*"\}')
"""One icon's rule in Font Awesome's CSS: ``.fa-bars:before,.fa-navicon:before{content:"\\f0c9"}``
(the icon's name and its aliases)."""
_ANSI_RULE = re.compile(r"div\.highlight \.-(?:Color|Background)[^{}]*\{[^}]*\}\s*")
"""One of myst-nb's rules for an ANSI colour: ``div.highlight .-Color[class*=-Red] {...}``."""
_ANSI_CLASS = re.compile(r'class="[^"]*(?<![\w-])-(?:Color|Background)\b')
_MYSTNB_CSS = re.compile(r"mystnb\.[0-9a-f]+\.css")
_ICON_CLASS = re.compile(r"\bfa-([a-z0-9]+(?:-[a-z0-9]+)*)")
_DESIGN_MARKUP = re.compile(r'class="[^"]*\bsd-')


def icon_names(texts: Iterable[str]) -> frozenset[str]:
    """Every Font Awesome name (``fa-NAME``) the texts mention: the icons HTML and scripts show,
    and modifiers such as ``fa-lg``, which name no icon and so keep no rule."""
    return frozenset(name for text in texts for name in _ICON_CLASS.findall(text))


def without_unused_icons(css: str, shown: frozenset[str]) -> str:
    """``css`` less each icon rule none of whose names (the icon's and its aliases') is in
    ``shown``; every other rule is kept as it was."""

    def keep(rule: re.Match[str]) -> str:
        names = re.findall(r"\.fa-([a-z0-9-]+):", rule.group(1))
        return rule.group(0) if shown.intersection(names) else ""

    return _ICON_RULE.sub(keep, css)


def without_ansi_colours(css: str) -> str:
    """myst-nb's ``css`` less its rules for ANSI colours in outputs."""
    return _ANSI_RULE.sub("", css)


def _one_search_field(app: Sphinx, config: Config) -> None:
    options = dict(config.html_theme_options or {})
    options.setdefault("navbar_persistent", [])
    config.html_theme_options = options
    config.templates_path = [*config.templates_path, str(TEMPLATES)]


def _page_assets(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: object
) -> None:
    swaps = [(THEME_CSS, LEAN_THEME_CSS)]
    for asset in context.get("css_files", []):
        name = PurePosixPath(str(getattr(asset, "filename", asset) or "")).name
        if _MYSTNB_CSS.fullmatch(name):
            swaps.append((name, LEAN_MYSTNB_CSS))
    context["lean_stylesheets"] = swaps
    if _DESIGN_MARKUP.search(str(context.get("body", ""))):
        return
    for key in ("css_files", "script_files"):
        if key in context:
            context[key][:] = [
                asset
                for asset in context[key]
                if PurePosixPath(str(getattr(asset, "filename", asset) or "")).name
                not in DESIGN_ASSETS
            ]


def _write_lean_css(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    static = out / "_static"
    texts = [
        path.read_text(encoding="utf-8", errors="replace")
        for pattern in ("*.html", "*.js")
        for path in out.rglob(pattern)
        if path.parent == static or path.parent == static / "scripts" or "_static" not in path.parts
    ]
    theme_css = static / THEME_CSS
    if theme_css.is_file():
        lean = without_unused_icons(theme_css.read_text(encoding="utf-8"), icon_names(texts))
        (static / LEAN_THEME_CSS).write_text(lean, encoding="utf-8")
    coloured = any(_ANSI_CLASS.search(text) for text in texts)
    for mystnb_css in static.glob("mystnb.*.css"):
        if _MYSTNB_CSS.fullmatch(mystnb_css.name):
            css = mystnb_css.read_text(encoding="utf-8")
            lean = css if coloured else without_ansi_colours(css)
            (static / LEAN_MYSTNB_CSS).write_text(lean, encoding="utf-8")


def setup(app: Sphinx) -> dict[str, object]:
    app.connect("config-inited", _one_search_field)
    app.connect("html-page-context", _page_assets)
    app.connect("build-finished", _write_lean_css)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
