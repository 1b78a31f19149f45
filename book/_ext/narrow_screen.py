"""Sphinx extension: what is wider than a phone's screen reflows instead of scrolling sideways.

Every page loads ``narrow_screen_static/narrow-screen.js`` (about 5 KB), which, once MathJax has
typeset the page and again whenever the window's width changes:

- lets each display formula wrap before a relation (=, ≥, ⟺, ...) or after a comma, and nowhere
  else (MathJax 3's CHTML output has no line breaking of its own), and draws a part still too
  wide for its column smaller, down to 60 %; where a formula fits, nothing moves, and the MathML
  that screen readers read is MathJax's own;
- stacks a table that is still wider than its column once its cells wrap (``course.css``): each
  row a block, each cell led by its column's heading (``table.narrow-stacked``), as the glossary
  is on a phone.

At 390 px eight display formulas and four tables of the book scrolled sideways before it. A formula
that must shrink reads better rewritten in the page (an ``aligned`` block).
"""

from __future__ import annotations

from pathlib import Path

from sphinx.application import Sphinx
from sphinx.config import Config

STATIC = Path(__file__).parent / "narrow_screen_static"
SCRIPT = "narrow-screen.js"


def _static_path(app: Sphinx, config: Config) -> None:
    config.html_static_path = [*config.html_static_path, str(STATIC)]


def setup(app: Sphinx) -> dict[str, object]:
    app.connect("config-inited", _static_path)
    app.add_js_file(SCRIPT)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
