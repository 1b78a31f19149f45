"""The Chinese edition's search finds Chinese (book/_ext/chinese_search.py): searched in headless
Chromium as a reader would, every term of the glossary finds the page that teaches it, and so do
the words the first review searched for in vain and queries typed without spaces."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest
from docutils.core import publish_doctree

from tests.book.browser import SEARCH_DONE, SEARCH_RESULT_PATHS, local_site, require_chromium
from tests.book.glossary import glossary_rows, section_pages
from tests.book.site import SITE_PATH, BookBuild, book_extension, toc_pages


def test_terms_are_the_runs_of_han_characters() -> None:
    han_words = book_extension("chinese_search").han_words
    assert han_words("计算受限（算力瓶颈）") == ["计算受限", "算力瓶颈"]
    assert han_words("片上内存（共享内存、VMEM）") == ["片上内存", "共享内存"]
    assert han_words("KV 缓存") == ["缓存"]
    assert han_words("单向 / 双向带宽") == ["单向", "双向带宽"]
    assert han_words("W8A16（int8 权重 + bf16 激活）") == ["权重", "激活"]


def test_the_terms_come_from_the_column_headed_chinese() -> None:
    doctree = publish_doctree(
        ".. list-table::\n   :header-rows: 1\n\n"
        "   * - English\n     - 中文\n     - meaning\n"
        "   * - prefill\n     - 预填充阶段\n     - 整个提示\n"
        "   * - decode\n     - 解码（Decode）\n     - 生成\n\n"
        ".. list-table::\n   :header-rows: 1\n\n"
        "   * - a\n     - b\n"
        "   * - 不是\n     - 术语\n"
    )
    assert book_extension("chinese_search").glossary_terms(doctree) == ["预填充阶段", "解码"]


def _glossary_queries() -> list[tuple[str, str]]:
    """(each glossary row's Chinese term, without the gloss in parentheses, and the page of the
    section that teaches it), for the rows whose term has Chinese in it."""
    pages = section_pages()
    han_words = book_extension("chinese_search").han_words
    return [(row.term, pages[row.taught]) for row in glossary_rows() if han_words(row.term)]


# Searched in vain by the first review (body text, not only titles), and queries typed as a
# reader would, without spaces between words: (query, the page that teaches it)
REVIEW_QUERIES = [
    ("预填充", "book/09_inference"),
    ("计算受限", "book/01_where_the_time_goes"),
    ("内存带宽受限", "book/01_where_the_time_goes"),
    ("屋顶线", "book/03_roofline_chart"),
    ("流水线气泡", "book/08_mfu"),
    ("临界批大小", "book/04_matmul"),
    ("算术强度", "book/02_arithmetic_intensity"),
    ("预填充阶段", "book/09_inference"),
    ("连续批处理的", "book/09_inference"),
]


@pytest.mark.slow
def test_searching_the_chinese_edition_finds_the_page_that_teaches_each_term(
    book: BookBuild, translated_book: BookBuild
) -> None:
    require_chromium()
    queries = _glossary_queries() + REVIEW_QUERIES
    assert len(_glossary_queries()) >= 25, "the glossary's rows were not read"
    assert {page for _, page in queries} <= set(toc_pages())
    missed = []
    with local_site(book.html) as site:
        page = site.context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        for query, teaching in queries:
            page.goto(f"{site.base}/zh/search.html?q={quote(query)}", wait_until="load")
            page.wait_for_function(SEARCH_DONE)
            found = [
                Path(path).relative_to(f"{SITE_PATH}zh").with_suffix("").as_posix()
                for path in page.evaluate(SEARCH_RESULT_PATHS)
            ]
            # Sphinx scores a page by whether it has the word, not how often: a term that most
            # pages use (计算受限) finds them all, in title order, so the teaching page is one
            if teaching not in found:
                missed.append(f"{query}: {teaching} not among {found}")
        assert errors == [] and site.blocked == []
    assert missed == [], "\n".join(missed)
