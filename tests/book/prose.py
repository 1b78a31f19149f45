"""How many words of prose a built page has: the measure behind "every page under ~1,200 words".

Prose is what a reader reads as sentences: the page's article with its code cells (source and
output: tables, figures and printed numbers computed on the page), displayed and inline math,
tables and the page's navigation taken out. Headings, admonitions, captions and the worked
solutions in dropdowns stay in: they are read too. A word is a run of letters (with inner
apostrophes or hyphens); numbers are not words.

Run as a script on built pages to see their counts::

    .venv/bin/python -m tests.book.prose _build/html/book/*.html
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from bs4 import BeautifulSoup

PROSE_WORDS_PER_PAGE = 1_200
"""The most words of prose a page may have (issue 11: "every page under ~1,200 words")."""

NOT_PROSE = (
    "div.cell_input",
    "div.cell_output",
    "div.highlight",
    ".math",
    "mjx-container",
    "table",
    "script",
    "style",
    "nav",
    "div.prev-next-area",
    "a.headerlink",
)
"""CSS selectors of what is taken out of the article before counting."""

WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")


def prose_words(html: str) -> int:
    """Words of prose in one built page's HTML (see the module docstring for what counts)."""
    soup = BeautifulSoup(html, "html.parser")
    article = soup.find("article") or soup
    for selector in NOT_PROSE:
        for element in article.select(selector):
            element.decompose()
    text = article.get_text(" ")
    text = re.sub(r"\\\(.*?\\\)|\\\[.*?\\\]", " ", text, flags=re.S)  # math not yet typeset
    return len(WORD.findall(text))


def main(paths: list[str]) -> int:
    for path in paths:
        words = prose_words(Path(path).read_text(encoding="utf-8"))
        flag = "" if words <= PROSE_WORDS_PER_PAGE else f"  over {PROSE_WORDS_PER_PAGE:,}"
        print(f"{words:6,d}  {path}{flag}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
