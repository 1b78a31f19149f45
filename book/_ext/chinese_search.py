"""Sphinx extension: a Chinese edition whose search finds Chinese.

Chinese is written without spaces, so Sphinx's Chinese search language splits the page text into
words with jieba (pinned in pyproject.toml). Two things make it find what a reader of this course
types:

- **The course's terms are words.** jieba's own dictionary would split 内存带宽受限 into
  内存 / 带宽 / 受限 and 算术强度 into 算术 / 强度, so a search for the term found nothing. Before
  any page is indexed, every Chinese term of the glossary page (the ``中文`` column of the table
  on the page labelled ``sec-glossary``: each run of two or more Han characters, so that
  计算受限（算力瓶颈） gives 计算受限 and 算力瓶颈) is added to jieba's dictionary. jieba's search
  mode still indexes the parts of a long word too (内存, 带宽, 受限).
- **The query is split as the pages were.** The browser's search (Sphinx's searchtools.js) splits
  a query at spaces and punctuation only, so 预填充阶段 would be one term that no page has. The
  Chinese edition's ``splitQuery`` (:data:`SPLIT_QUERY_JS`, which Sphinx writes into
  ``language_data.js``) splits each run of Han characters by longest match against the loaded
  index's own words, and drops a leftover single character (the index keeps no one-character
  words, and a query term that matches nothing would make the whole search find nothing).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from typing import Any

import jieba
from docutils import nodes
from sphinx.search.zh import SearchChinese

GLOSSARY_LABEL = "sec-glossary"
"""The label of the glossary page, whose table's ``中文`` column lists the course's terms."""
CHINESE_COLUMN = "中文"

_HAN_WORD = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]{2,}")

SPLIT_QUERY_JS = r"""
/* book/_ext/chinese_search.py: runs of Han characters are split by longest match against the index */
var splitQuery = (query) => {
  const index = typeof Search === "undefined" ? null : Search._index;
  const known = (word) =>
    index !== null && (word in index.terms || word in index.titleterms);
  const words = [];
  for (const run of query.split(/[^\p{Letter}\p{Number}_\p{Emoji_Presentation}]+/gu)) {
    for (const part of run.split(/(\p{Script=Han}+)/u)) {
      if (!part) continue;
      if (index === null || !/^\p{Script=Han}+$/u.test(part)) {
        words.push(part);
        continue;
      }
      let start = 0;
      while (start !== part.length) {
        let end = part.length;
        while (end - start !== 1 && !known(part.slice(start, end))) end -= 1;
        if (end - start !== 1) words.push(part.slice(start, end));
        start = end;
      }
    }
  }
  return words;
};
"""


def han_words(text: str) -> list[str]:
    """The runs of two or more Han characters in ``text``, in order."""
    return _HAN_WORD.findall(text)


def glossary_terms(doctree: nodes.Node) -> list[str]:
    """The Chinese words of every table on the page whose header has a ``中文`` column."""
    terms: list[str] = []
    for table in doctree.findall(nodes.table):
        head = next(table.findall(nodes.thead), None)
        body = next(table.findall(nodes.tbody), None)
        if head is None or body is None:
            continue
        header = [entry.astext().strip() for entry in head.findall(nodes.entry)]
        if CHINESE_COLUMN not in header:
            continue
        column = header.index(CHINESE_COLUMN)
        for row in body.findall(nodes.row):
            cells = list(row.findall(nodes.entry))
            if column < len(cells):
                terms.extend(han_words(cells[column].astext()))
    return list(dict.fromkeys(terms))


def add_words(words: Iterable[str]) -> None:
    """Make each word one word for jieba (and so one term of the search index)."""
    for word in words:
        jieba.add_word(word)


class CourseChineseSearch(SearchChinese):
    """Sphinx's Chinese search, with the query split in the browser as the pages were."""

    js_splitter_code = SPLIT_QUERY_JS


def _add_glossary_terms(app: Any, env: Any) -> None:
    labels = env.get_domain("std").labels
    if GLOSSARY_LABEL not in labels:
        return
    docname = labels[GLOSSARY_LABEL][0]
    add_words(glossary_terms(env.get_doctree(docname)))


def setup(app: Any) -> dict[str, object]:
    jieba.setLogLevel(logging.WARNING)
    app.add_search_language(CourseChineseSearch)
    app.connect("env-updated", _add_glossary_terms)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
