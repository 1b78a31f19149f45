"""Every page is short enough to read in one sitting: at most 1,200 words of prose (issue 11).

What counts as prose is defined once, in :mod:`tests.book.prose` (the text a reader reads as
sentences: code, outputs, tables and math left out; headings, boxes, captions and worked
solutions counted). The "predict, then check" questions are counted apart, against their own
limit (issue 12).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.book.prose import (
    PROSE_WORDS_PER_PAGE,
    QUESTION_WORDS_PER_PAGE,
    prose_words,
    question_words,
)
from tests.book.site import toc_pages

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("page", toc_pages())
def test_page_prose_is_at_most_the_limit(html: Path, page: str) -> None:
    words = prose_words((html / f"{page}.html").read_text(encoding="utf-8"))
    assert words <= PROSE_WORDS_PER_PAGE, (
        f"{page}: {words:,} words of prose, over {PROSE_WORDS_PER_PAGE:,}; tighten it without "
        "dropping a result (count with: python -m tests.book.prose <page>.html)"
    )


def test_the_counter_leaves_out_code_math_and_tables() -> None:
    page = (
        "<article><h1>Two words</h1><p>One two three <span class='math'>\\(x + y\\)</span>.</p>"
        "<div class='cell_input'><pre>print('not prose at all')</pre></div>"
        "<table><tr><td>not counted either</td></tr></table>"
        "<details><summary>Solution</summary><p>counted too, 1,200 is no word</p></details>"
        "<div class='machine-output'><ul><li>The clock varied during the run.</li></ul></div>"
        "</article>"
    )
    assert prose_words(page) == 2 + 3 + 1 + 5  # "1,200" is a number, not a word


@pytest.mark.parametrize("page", toc_pages())
def test_page_questions_are_at_most_their_limit(html: Path, page: str) -> None:
    words = question_words((html / f"{page}.html").read_text(encoding="utf-8"))
    assert words <= QUESTION_WORDS_PER_PAGE, (
        f"{page}: {words:,} words of questions, over {QUESTION_WORDS_PER_PAGE:,}"
    )


def test_questions_are_counted_apart_from_the_prose() -> None:
    page = (
        "<article><p>One two three.</p>"
        "<div class='exercise admonition'><p>How long, at least?</p>"
        "<div class='predict'><label>Your answer (s)</label><input></div></div>"
        "<div class='solution dropdown admonition'><p>Divide the FLOPs by <span class='math'>"
        "\\(C\\)</span>.</p></div></article>"
    )
    assert prose_words(page) == 3
    assert question_words(page) == 4 + 3 + 4  # the math is not words, in questions either
