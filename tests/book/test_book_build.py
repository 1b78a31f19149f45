"""The book builds strictly from a clean tree, and what it builds needs nothing from the network."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from tests.book.site import ROOT, BookBuild, toc_pages
from tools import book as book_tool

pytestmark = pytest.mark.slow

# a script or stylesheet fetched from another host (links to sources are fine: they are <a>)
_REMOTE_ASSET = re.compile(
    r"<(?:script|link(?![^>]*\brel=\"(?:canonical|alternate)\")|img|iframe)\b[^>]*"
    r"\b(?:src|href)=\"(?:https?:)?//",
    re.I,
)
"""A tag that makes the browser fetch from an address (not a page's canonical address or its
alternates in the other edition, which name the published site and are never fetched)."""


def test_book_builds_with_no_warnings(book: BookBuild) -> None:
    assert book.returncode == 0 and not book.warnings, (
        f"the strict build (exit {book.returncode}, {book.seconds:.0f} s) reported:\n"
        + "\n".join(book.warnings or book.log.splitlines()[-30:])
    )


def test_every_page_ran_its_kernel_over_unix_sockets(
    book: BookBuild, translated_book: BookBuild
) -> None:
    # book/_ext/kernels.py: a TCP port chosen for a kernel can be taken by another process
    # before the kernel binds it; ipykernel warns once for each kernel it starts over TCP
    for build in (book, translated_book):
        executed = build.log.count("Executed notebook")
        assert executed == len(toc_pages()), (build.language, executed, build.log[-2000:])
        assert "running over TCP" not in build.log, build.language


def test_every_toc_page_is_built(html: Path) -> None:
    missing = [page for page in toc_pages() if not (html / f"{page}.html").is_file()]
    assert not missing, f"pages in _toc.yml without HTML: {missing}"


def test_only_toc_pages_are_built(html: Path) -> None:
    """In each edition (English at the root, each translation in its folder, zh/)."""
    folders = [edition.folder for edition in book_tool.EDITIONS]
    for folder in folders:
        root = html / folder if folder else html
        built = {
            str(p.relative_to(root).with_suffix(""))
            for p in root.rglob("*.html")
            if p.relative_to(root).parts[0] not in ("_static", *folders)  # theme snippets
        }
        # index: Jupyter Book's redirect to the first page; 404: book/_ext/published.py's
        extra = built - set(toc_pages()) - {"index", "genindex", "search", "404"}
        assert not extra, f"{folder or 'English'}: pages not in _toc.yml: {sorted(extra)}"


def test_pages_load_no_script_or_style_from_another_host(html: Path) -> None:
    offenders = {
        str(page.relative_to(html)): _REMOTE_ASSET.findall(page.read_text(errors="replace"))
        for page in html.rglob("*.html")
    }
    offenders = {page: hits for page, hits in offenders.items() if hits}
    assert not offenders, f"pages that fetch assets from the network: {offenders}"


def test_mathjax_and_the_widget_manager_are_served_locally(html: Path) -> None:
    static = html / "_static" / "vendor"
    for asset in ("mathjax/tex-mml-chtml.js", "require.js", "html-manager/embed-amd.js"):
        assert (static / asset).is_file(), f"_static/vendor/{asset} is missing"


_HREFS_OF_TYPESET_MATH = r"""async () => {
  await MathJax.startup.promise;
  const node = await MathJax.tex2chtmlPromise(
    "\\href{javascript:document.title='PWNED'}{a} \\href{https://example.org/}{b}");
  return Array.from(node.querySelectorAll('[href]')).map(a => a.getAttribute('href'));
}"""


def test_math_on_the_pages_never_makes_a_script_link(html: Path) -> None:
    # MathJax's safe extension (_config.yml mathjax3_config, vendor/mathjax/ui/safe.js): an
    # \href keeps an http(s) link and drops a javascript: one
    from tests.book.browser import local_site, require_chromium

    require_chromium()
    with_math = next(p for p in sorted(html.rglob("*.html")) if "mathjax" in p.read_text())
    with local_site(html) as site:
        page = site.context.new_page()
        page.goto(f"{site.base}/{with_math.relative_to(html).as_posix()}")
        assert set(page.evaluate(_HREFS_OF_TYPESET_MATH)) == {"https://example.org/"}
        assert site.blocked == []


def test_the_build_is_nitpicky() -> None:
    # set once in _config.yml, which `make book` and build_book (tests/book/site.py) both read
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert config["sphinx"]["config"].get("nitpicky") is True, (
        "_config.yml must set sphinx.config.nitpicky: true (Sphinx's -n)"
    )
