"""How many words of prose a built page has: the measure behind "every page under ~1,200 words".

Prose is what a reader reads as sentences: the page's article with its code cells (source and
output: tables, figures and printed numbers computed on the page), displayed and inline math,
tables, the page's navigation, and what the build machine writes about itself taken out (its
description and the caveats of its measurement, in a ``machine-output`` div: output like a code
cell's, as long as that machine makes it). Headings, admonitions, captions and the worked
solutions in dropdowns stay in: they are read too. A word is a run of letters (with inner
apostrophes or hyphens); numbers are not words.

Questions are exercises, not exposition: the "predict, then check" blocks (sphinx-exercise's
``exercise`` and ``solution`` containers, :data:`QUESTION_BLOCKS`) are left out of the prose and
counted on their own (:func:`question_words`), against :data:`QUESTION_WORDS_PER_PAGE`.

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

QUESTION_WORDS_PER_PAGE = 200
"""The most words a page's questions may have, worked answers and answer boxes' labels included
(issue 12: two or three short questions a page)."""

QUESTION_BLOCKS = ("div.exercise", "div.solution")
"""CSS selectors of the question blocks (sphinx-exercise), counted apart from the prose."""

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
    "div.machine-output",
)
"""CSS selectors of what is taken out of the article before counting."""

WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")


def _words(html: str, keep: tuple[str, ...], drop: tuple[str, ...]) -> int:
    """Words in the article's ``keep`` elements (all of it when empty), without ``drop``."""
    soup = BeautifulSoup(html, "html.parser")
    article = soup.find("article") or soup
    for selector in drop:
        for element in article.select(selector):
            element.decompose()
    parts = [e for s in keep for e in article.select(s)] if keep else [article]
    text = " ".join(part.get_text(" ") for part in parts)
    text = re.sub(r"\\\(.*?\\\)|\\\[.*?\\\]", " ", text, flags=re.S)  # math not yet typeset
    return len(WORD.findall(text))


def prose_words(html: str) -> int:
    """Words of prose in one built page's HTML (see the module docstring for what counts)."""
    return _words(html, (), NOT_PROSE + QUESTION_BLOCKS)


def question_words(html: str) -> int:
    """Words of the page's questions and their worked answers (not counted as prose)."""
    return _words(html, QUESTION_BLOCKS, NOT_PROSE)


def main(paths: list[str]) -> int:
    for path in paths:
        page = Path(path).read_text(encoding="utf-8")
        words, asked = prose_words(page), question_words(page)
        flag = "" if words <= PROSE_WORDS_PER_PAGE else f"  over {PROSE_WORDS_PER_PAGE:,}"
        if asked > QUESTION_WORDS_PER_PAGE:
            flag += f"  questions over {QUESTION_WORDS_PER_PAGE:,}"
        print(f"{words:6,d} {asked:4,d}  {path}{flag}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
