"""Page weight: the bytes of JavaScript and CSS each page of the built book loads.

Measured from the built HTML (default ``_build/html``, which ``make book`` writes; ``make bench``
builds it first), both editions: every ``<script src>`` and ``<link rel="stylesheet" href>`` of a
page, resolved to its file under the build, the stylesheets those ``@import``, and the scripts
MathJax's loader fetches after its first script (:func:`mathjax_components`, read from the loader
configuration the page carries), each counted once per page. Inline scripts and styles are part
of the page's HTML, not of this figure; fonts and images are not JavaScript or CSS. What a
browser loads is measured by tests/book/test_book_page_weight.py, which checks that this count
agrees with it and holds each page to :data:`PAGE_BUDGET_BYTES`.

Usage: python -m tools.bench_page_weight [--html _build/html]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_HTML = ROOT / "_build" / "html"
PAGE_BUDGET_BYTES = 1_500_000
"""The most JavaScript + CSS one page of the book may load, bytes as served (uncompressed)."""

MATHJAX_PATHS = {"[tex]": "input/tex/extensions", "[mml]": "input/mml/extensions", "[mathjax]": ""}
"""MathJax 3's loader: a component named ``[tex]/ams`` is the file ``input/tex/extensions/ams.js``
under MathJax's folder (its default ``loader.paths``); a name without a prefix is its own path."""
_PRELOADED = re.compile(r"preLoad\(((?:\s*\"[^\"]+\"\s*,?)+)\)")
_LOADS_WHEN_READY = re.compile(r"MathJax\.loader\.load\(\"([^\"]+)\"\)")
_CSS_IMPORT = re.compile(r"""@import\s+(?:url\()?\s*["']?([^"')\s;]+)""")
_MATHJAX_CONFIG = re.compile(r"^\s*window\.MathJax\s*=\s*(\{.*\})\s*;?\s*$", re.S)


@dataclass(frozen=True)
class PageWeight:
    """One page's assets: ``js_bytes`` and ``css_bytes`` summed over distinct files; ``missing``
    lists referenced files absent from the build (a broken page)."""

    page: str
    js_bytes: int
    css_bytes: int
    missing: tuple[str, ...] = ()

    @property
    def total_bytes(self) -> int:
        return self.js_bytes + self.css_bytes


class _Assets(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.js: list[str] = []
        self.css: list[str] = []
        self.inline_js: list[str] = []
        self._in_inline_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "script" and a.get("src"):
            self.js.append(a["src"] or "")
        elif tag == "script":
            self._in_inline_script = True
            self.inline_js.append("")
        rel = (a.get("rel") or "").split()
        if tag == "link" and "stylesheet" in rel and a.get("href"):
            self.css.append(a["href"] or "")

    def handle_data(self, data: str) -> None:
        if self._in_inline_script:
            self.inline_js[-1] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_inline_script = False

    def mathjax_config(self) -> dict[str, object]:
        """The page's ``window.MathJax = {...}`` (Sphinx's ``mathjax3_config``), else ``{}``."""
        for text in self.inline_js:
            found = _MATHJAX_CONFIG.match(text)
            if found:
                config = json.loads(found.group(1))
                return config if isinstance(config, dict) else {}
        return {}


def _component_file(root: Path, name: str) -> Path:
    prefix, _, rest = name.partition("/")
    if prefix.startswith("["):
        if prefix not in MATHJAX_PATHS:
            raise ValueError(
                f"MathJax component {name!r}: prefix must be one of {sorted(MATHJAX_PATHS)}"
            )
        name = f"{MATHJAX_PATHS[prefix]}/{rest}".lstrip("/")
    return root / (name if name.endswith(".js") else f"{name}.js")


def mathjax_components(first_script: Path, config: Mapping[str, object]) -> tuple[Path, ...]:
    """The files MathJax 3's loader fetches after ``first_script`` (its combined component or
    ``startup.js``), as its loader does: each component of ``config["loader"]["load"]`` that
    ``first_script`` does not already hold (its ``preLoad(...)`` names); for each, what it
    depends on (``loader.dependencies``, else ``core``) and what it loads when ready (CHTML
    output its font data, ``MathJax.loader.load("output/chtml/fonts/tex")``), recursively.
    TeX macros that autoload an extension while typesetting are not foreseen (the book's
    formulas need none; the browser test would see it)."""
    root = first_script.parent
    loader = config.get("loader", {})
    loader = loader if isinstance(loader, Mapping) else {}
    dependencies = loader.get("dependencies", {})
    dependencies = dependencies if isinstance(dependencies, Mapping) else {}
    held = {
        name.strip().strip('"').removesuffix(".js")
        for group in _PRELOADED.findall(first_script.read_text(encoding="utf-8"))
        for name in group.split(",")
    }
    fetched: dict[str, Path] = {}
    queue = [str(name) for name in loader.get("load", [])]
    while queue:
        name = queue.pop(0)
        if name in held or name in fetched:
            continue
        path = _component_file(root, name)
        fetched[name] = path
        needs = dependencies.get(name, [] if name == "core" else ["core"])
        queue += [str(n) for n in needs]
        if path.is_file():
            queue += _LOADS_WHEN_READY.findall(path.read_text(encoding="utf-8"))
    return tuple(fetched.values())


def _with_imports(stylesheets: list[Path]) -> list[Path]:
    """The stylesheets and, after each, those it ``@import``s (recursively, each once)."""
    out: list[Path] = []
    for sheet in stylesheets:
        if sheet in out:
            continue
        out.append(sheet)
        if sheet.is_file():
            text = sheet.read_text(encoding="utf-8", errors="replace")
            imported = [(sheet.parent / unquote(u)).resolve() for u in _CSS_IMPORT.findall(text)]
            out += [p for p in _with_imports(imported) if p not in out]
    return out


def _is_mathjax(script: Path) -> bool:
    """A script of MathJax 3's loader: it sits in a folder with MathJax's ``startup.js`` and
    ``core.js`` (vendored by tools/fetch_static.py)."""
    folder = script.parent
    return (folder / "startup.js").is_file() and (folder / "core.js").is_file()


def _local(page: Path, html_root: Path, url: str) -> Path | None:
    parsed = urlparse(url)
    if parsed.scheme or parsed.netloc:
        return None  # another host: counted by no one (the book tests forbid it)
    return (page.parent / unquote(parsed.path)).resolve()


def page_weight(page: Path, html_root: Path) -> PageWeight:
    """The JS and CSS bytes one built page loads (see the module docstring)."""
    assets = _Assets()
    assets.feed(page.read_text(encoding="utf-8", errors="replace"))
    scripts = [p for p in (_local(page, html_root, u) for u in assets.js) if p]
    for script in [s for s in scripts if s.is_file() and _is_mathjax(s)]:
        scripts += mathjax_components(script, assets.mathjax_config())
    styles = _with_imports([p for p in (_local(page, html_root, u) for u in assets.css) if p])
    totals, missing = {"js": 0, "css": 0}, []
    for kind, paths in (("js", scripts), ("css", styles)):
        for path in dict.fromkeys(paths):
            if path.is_file():
                totals[kind] += path.stat().st_size
            else:
                missing.append(str(path))
    name = page.relative_to(html_root).with_suffix("").as_posix()
    return PageWeight(name, totals["js"], totals["css"], tuple(missing))


def page_weights(html_root: Path) -> list[PageWeight]:
    """Every page of the build (search and genindex included; not the theme's templates under
    _static), by path."""
    pages = sorted(html_root.rglob("*.html"))
    return [page_weight(p, html_root) for p in pages if "_static" not in p.parts]


def report(weights: Sequence[PageWeight]) -> str:
    lines = [f"{'page':<35} {'JS':>10} {'CSS':>10} {'total':>10}  (KiB)"]
    for w in weights:
        flag = f"  missing: {', '.join(w.missing)}" if w.missing else ""
        lines.append(
            f"{w.page:<35} {w.js_bytes / 1024:>10,.0f} {w.css_bytes / 1024:>10,.0f} "
            f"{w.total_bytes / 1024:>10,.0f}{flag}"
        )
    heaviest = max(weights, key=lambda w: w.total_bytes)
    lines.append(f"heaviest: {heaviest.page}, {heaviest.total_bytes / 1024:,.0f} KiB of JS + CSS")
    over = [w.page for w in weights if w.total_bytes > PAGE_BUDGET_BYTES]
    lines.append(
        f"budget {PAGE_BUDGET_BYTES / 1e6:.1f} MB a page: "
        + (f"{len(over)} over ({', '.join(over)})" if over else "every page within it")
    )
    return "\n".join(lines)


def is_book_page(name: str) -> bool:
    """A page of the book in either edition (``book/intro``, ``zh/book/intro``), not the
    search page or the index."""
    return re.fullmatch(r"(?:[a-z_]+/)?book/[^/]+", name) is not None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.bench_page_weight", description=__doc__)
    parser.add_argument("--html", type=Path, default=DEFAULT_HTML, help="a built book's HTML")
    # tools.bench passes its whole argv to every benchmark: ignore what is not ours
    args, _unknown = parser.parse_known_args(sys.argv[1:] if argv is None else list(argv))
    if not (args.html / "index.html").is_file():
        print(f"page weight: no built book in {args.html} (run `make book` first)")
        return 1
    weights = [w for w in page_weights(args.html) if is_book_page(w.page)]
    print(report(weights))
    return 1 if any(w.missing for w in weights) else 0


if __name__ == "__main__":
    raise SystemExit(main())
