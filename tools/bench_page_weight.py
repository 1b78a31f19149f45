"""Page weight: the bytes of JavaScript and CSS each page of the built book loads.

Measured from the built HTML (default ``_build/html``, which ``make book`` writes; ``make bench``
builds it first): every ``<script src>`` and ``<link rel="stylesheet" href>`` of a page, resolved
to its file under the build and counted once per page. Scripts that a script loads later
(MathJax's fonts and extensions) are not in the HTML and are not counted; inline scripts and
styles are part of the page's HTML, not of this figure.

Usage: python -m tools.bench_page_weight [--html _build/html]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_HTML = ROOT / "_build" / "html"


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

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "script" and a.get("src"):
            self.js.append(a["src"] or "")
        rel = (a.get("rel") or "").split()
        if tag == "link" and "stylesheet" in rel and a.get("href"):
            self.css.append(a["href"] or "")


def _local(page: Path, html_root: Path, url: str) -> Path | None:
    parsed = urlparse(url)
    if parsed.scheme or parsed.netloc:
        return None  # another host: counted by no one (the book tests forbid it)
    return (page.parent / unquote(parsed.path)).resolve()


def page_weight(page: Path, html_root: Path) -> PageWeight:
    """The JS and CSS bytes one built page references (see the module docstring)."""
    assets = _Assets()
    assets.feed(page.read_text(encoding="utf-8", errors="replace"))
    totals, missing = {"js": 0, "css": 0}, []
    for kind, urls in (("js", assets.js), ("css", assets.css)):
        for path in dict.fromkeys(p for p in (_local(page, html_root, u) for u in urls) if p):
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
    lines = [f"{'page':<32} {'JS':>10} {'CSS':>10} {'total':>10}  (KiB)"]
    for w in weights:
        flag = f"  missing: {', '.join(w.missing)}" if w.missing else ""
        lines.append(
            f"{w.page:<32} {w.js_bytes / 1024:>10,.0f} {w.css_bytes / 1024:>10,.0f} "
            f"{w.total_bytes / 1024:>10,.0f}{flag}"
        )
    heaviest = max(weights, key=lambda w: w.total_bytes)
    lines.append(f"heaviest: {heaviest.page}, {heaviest.total_bytes / 1024:,.0f} KiB of JS + CSS")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.bench_page_weight", description=__doc__)
    parser.add_argument("--html", type=Path, default=DEFAULT_HTML, help="a built book's HTML")
    # tools.bench passes its whole argv to every benchmark: ignore what is not ours
    args, _unknown = parser.parse_known_args(sys.argv[1:] if argv is None else list(argv))
    if not (args.html / "index.html").is_file():
        print(f"page weight: no built book in {args.html} (run `make book` first)")
        return 1
    weights = [w for w in page_weights(args.html) if w.page.startswith("book/")]
    print(report(weights))
    return 1 if any(w.missing for w in weights) else 0


if __name__ == "__main__":
    raise SystemExit(main())
