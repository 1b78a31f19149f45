"""The Chinese edition's font subset is cut to every character a reader can be shown
(book/_ext/i18n.py ``shown_characters``), including characters a page or script holds only as
JSON escapes (an answer box's hints in its data attributes, the search index's titles) or HTML
character references: missed, they fell back to the reader's own fonts (颠倒溢漏兆吉…)."""

from __future__ import annotations

from pathlib import Path

from tools.book import I18N


def test_escaped_characters_are_shown(tmp_path: Path) -> None:
    (tmp_path / "page.html").write_text(
        '<div data-mistakes="[{&quot;hint&quot;: &quot;\\u5206\\u5b50\\u5206\\u6bcd\\u98a0\\u5012'
        '&quot;}]">&#x6ea2;&#28431;</div>',
        encoding="utf-8",
    )
    (tmp_path / "searchindex.js").write_text('Search.setIndex({"t": "\\u5146\\u5409"})')
    shown = I18N.shown_characters(tmp_path)
    for char in "分子母颠倒溢漏兆吉":
        assert char in shown, char
    assert shown["颠"] == "page.html" and shown["兆"] == "searchindex.js"
