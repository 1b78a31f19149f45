"""No English left on a Chinese page: every page of the built Chinese edition (and its search
page) is read as a reader sees it, tables written by code, the theme's own words and collapsed
solutions included, and every English word in it must be one the edition keeps in English on
purpose (:data:`KEPT`: names, units, and the technical words Chinese engineers write in English),
inside code or math, a gloss in parentheses after a term, a quotation, or the title of an
English source it links to."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

import roofline_lib as rl
from tests.book.site import BookBuild, toc_pages

pytestmark = pytest.mark.slow

NOT_READ = (
    "script, style, pre, code, kbd, .math, div.cell_input, .highlight,"
    " a.reference.external,"  # the title of an English source, as cited
    " a.language-switch,"  # "English": the other edition, named in its own language
    " .dropdown-download-buttons,"  # file names: .ipynb, booktools.py, .md, .pdf
    " .machine-output"  # the build machine's own description (CPU flags, platform)
)
"""What is not running text in the page's language."""

_GLOSS = re.compile(r"（[^（）]*）|\([^()]*\)")
_QUOTED = re.compile(r"“[^”]*”|\"[^\"]*\"")
_ENGLISH_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'’-]*[A-Za-z0-9]")
TITLES = (
    "How to Scale Your Model",
    "Scaling Book",
    "Communications of the ACM",
    "Where Does the Time Go?",
    "Visualizing rooflines",
    "Matrix multiplication",
    "Network communication rooflines",
    "A Few Problems to Work",
    "Worked Problems",
)
"""Titles of English works and of the original's sections, named as they are."""
ENGLISH_COLUMN = "英文"
"""The header of a table column that is English on purpose (the glossary's)."""

KEPT = frozenset(
    {
        *("byte", "bytes", "kB", "ms", "ktokens", "teraFLOPS"),  # units
        *("roofline", "token", "tokens", "kernel", "matmul", "query", "key", "value"),
        *("embedding", "bank", "softmax", "flash", "attention", "triad"),
        *("notebook", "widget", "nbgrader", "numpy", "zip"),  # tools and files
    }
)
"""Words the Chinese edition writes in English on purpose: units, and the technical words Chinese
ML engineers write in English (kernel, token, notebook). A capitalised word is a name (of a
person, a product, a model, a benchmark) and is kept too. Anything else English on a Chinese
page is a leftover to translate."""


def _catalog_names() -> set[str]:
    """The words of every chip's and link's name in the catalog (a new chip needs no edit here)."""
    names: set[str] = set()
    for chip in rl.CATALOG.values():
        names.update(_ENGLISH_WORD.findall(chip.name))
        for link in chip.links.values():
            names.update(_ENGLISH_WORD.findall(link.name))
    return names


def english_left(html: str, kept: frozenset[str] | set[str]) -> list[str]:
    """The English words of a page's visible text that are none of the exceptions, each with a
    little of the text around it."""
    soup = BeautifulSoup(html, "html.parser")
    body = soup.body or soup
    for tag in body.select(NOT_READ):
        tag.decompose()
    for table in body.select("table"):
        header = [cell.get_text(strip=True) for cell in table.select("thead th")]
        if ENGLISH_COLUMN in header:
            column = header.index(ENGLISH_COLUMN) + 1
            for cell in table.select(f"tr > :nth-child({column})"):
                cell.decompose()
    text = _QUOTED.sub(" ", _GLOSS.sub(" ", body.get_text(" ")))
    for title in TITLES:
        text = text.replace(title, " ")
    left = []
    for match in _ENGLISH_WORD.finditer(text):
        word = match.group(0)
        if word in kept or word[0].isupper() or re.search(r"\d", word):
            continue
        around = re.sub(r"\s+", " ", text[max(0, match.start() - 20) : match.end() + 20])
        left.append(f"{word!r} in …{around}…")
    return left


def test_the_scan_finds_english_and_passes_what_is_kept() -> None:
    page = (
        "<body><p>计算受限（compute-bound）时，kernel 要等 HBM。Show code cell source</p>"
        "<p>“BFLOAT16 Tensor Core: 1,979 teraFLOPS”</p><pre>import numpy</pre>"
        '<a class="reference external" href="x">NVIDIA H100 Datasheet</a>'
        "<table><tr><td>bytes loaded</td></tr></table></body>"
    )
    left = english_left(page, KEPT)
    assert [item.split(" in ")[0] for item in left] == [
        "'code'",
        "'cell'",
        "'source'",
        "'loaded'",
    ]


def test_no_english_is_left_on_a_chinese_page(book: BookBuild, translated_book: BookBuild) -> None:
    kept = KEPT | _catalog_names()
    pages = [f"{page}.html" for page in toc_pages()] + ["search.html", "genindex.html"]
    left = []
    for name in pages:
        path: Path = translated_book.html / name
        left += [f"{name}: {item}" for item in english_left(path.read_text("utf-8"), kept)]
    assert left == [], "\n".join(left)
