"""Sphinx extension: the live roofline explorer, a client-side widget that needs no kernel.

``explorer``: where the explorer goes on a page, with the setting it opens at (every option
optional; sizes are the sliders of :data:`roofline_lib.explorer_data.LIVE_SLIDER_EXPONENTS`)::

    ```{explorer}
    :chip: TPU v5e
    :format: int8
    :op: matmul
    :B: 128
    ```

The directive checks the setting with the library (an unknown chip or an impossible shape fails
the build) and writes an empty ``div.live-explorer`` carrying it. A page with one loads uPlot
(vendored by tools/fetch_static.py), ``explorer-data.js`` (the catalog, presets and operations of
:func:`roofline_lib.explorer_data.explorer_data`, written into the build's ``_static`` as
``window.ROOFLINE_EXPLORER_DATA``, and as ``explorer-data.json``), ``roofline-explorer.js`` and its
stylesheet; other pages load none of them. A script, not a fetched .json, so that the page works
when opened from the file system.

Words: the data carries the explorer's labels and every text the script writes in the build's
language (Sphinx's ``language``; :func:`roofline_lib.explorer_data.explorer_data`), and the
script says them from there; the note for readers without JavaScript is in that language too.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.util.docutils import SphinxDirective

from roofline_lib.explorer import NUMBER_FORMATS
from roofline_lib.explorer_data import (
    DEFAULTS,
    LIVE_OPERATIONS,
    explorer_data,
    reference,
)
from roofline_lib.sharding import COLLECTIVES
from roofline_lib.words import say, say_later

STATIC = Path(__file__).parent / "live_explorer_static"
CLASS = "live-explorer"
DATA_JS = "explorer-data.js"
ASSETS_JS = ("vendor/uplot/uPlot.iife.min.js", DATA_JS, "roofline-explorer.js")
ASSETS_CSS = ("vendor/uplot/uPlot.min.css", "roofline-explorer.css")
NOSCRIPT = say_later("The live explorer needs JavaScript. In JupyterLab: {code}")
EXPLORE_CODE = "from roofline_lib.explorer import explore"


def _choice(values: object) -> object:
    return lambda argument: directives.choice(argument, tuple(values))  # type: ignore[arg-type]


class ExplorerDirective(SphinxDirective):
    """An empty placeholder that roofline-explorer.js fills, carrying the opening setting."""

    option_spec: ClassVar[dict[str, Any]] = {
        "chip": directives.unchanged_required,
        "format": _choice(NUMBER_FORMATS),
        "op": _choice(LIVE_OPERATIONS),
        "level": directives.unchanged_required,
        "collective": _choice(COLLECTIVES),
        **{key: directives.positive_int for key in DEFAULTS},
    }

    def run(self) -> list[nodes.Node]:
        config = {"chip": "TPU v5e", "format": "bf16", "op": "matmul", **self.options}
        try:
            reference(config)  # the library must accept the setting the page opens at
        except (KeyError, ValueError) as error:
            raise self.error(f"explorer: not a valid setting {config}: {error}") from None
        data = html.escape(json.dumps(config), quote=True)
        code = html.escape(EXPLORE_CODE)
        note = html.escape(say(NOSCRIPT, language=self.config.language or "en", code=EXPLORE_CODE))
        note = note.replace(code, f"<code>{code}</code>")
        markup = (
            f'<div class="{CLASS}" data-config="{data}"><noscript><p>{note}</p></noscript></div>'
        )
        return [nodes.raw("", markup, format="html")]


def _configure(app: Sphinx, config: Config) -> None:
    config.html_static_path = [*config.html_static_path, str(STATIC)]


def _has_explorer(doctree: nodes.Node | None) -> bool:
    if doctree is None:
        return False
    # by content: a raw node with classes would be wrapped in a second div of those classes
    marker = f'<div class="{CLASS}"'
    return any(node.astext().startswith(marker) for node in doctree.findall(nodes.raw))


def _add_assets(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree: nodes.Node | None
) -> None:
    if _has_explorer(doctree):
        for css in ASSETS_CSS:
            app.add_css_file(css)
        for js in ASSETS_JS:
            app.add_js_file(js)


def _write_data(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    static = Path(app.outdir) / "_static"
    static.mkdir(parents=True, exist_ok=True)
    data = explorer_data(language=app.config.language or "en")
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    (static / "explorer-data.json").write_text(text + "\n", encoding="utf-8")
    (static / DATA_JS).write_text(f"window.ROOFLINE_EXPLORER_DATA = {text};\n", encoding="utf-8")


def setup(app: Sphinx) -> dict[str, object]:
    app.add_directive("explorer", ExplorerDirective)
    app.connect("config-inited", _configure)
    app.connect("html-page-context", _add_assets)
    app.connect("build-finished", _write_data)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
