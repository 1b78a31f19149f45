"""Data never becomes a translation message (book/_ext/i18n.py): no message of the Chinese
catalogs is a number, a glued value, a cross-reference or math without words, so a changed
figure never needs a translation. The build side, a new chip and a changed figure built in both
languages, is tests/book/test_book_new_chip.py."""

from __future__ import annotations

from babel.messages.pofile import read_po

from tests.book.site import ROOT, book_extension


def test_a_message_needs_words() -> None:
    has_words = book_extension("i18n").has_words
    for data in (
        "{glue:text}`p1_ai_16` ({glue:text}`p1_2b_16`)",
        "B = 16",
        "$T_\\text{math}$",
        "—",
        "{ref}`sec-x` · {edition}`sec-x`",
        "14.7",
        "[{glue:text}`x`](https://e.org)",
    ):
        assert not has_words(data), data
    for prose in ("regime", "OPs, $2BDF$", "算术强度", "H100 SXM", "bytes loaded, $BD + DF$"):
        assert has_words(prose), prose


def test_no_catalog_message_is_data() -> None:
    has_words = book_extension("i18n").has_words
    data = []
    for po in sorted((ROOT / "locales" / "zh_CN" / "LC_MESSAGES" / "book").glob("*.po")):
        with po.open("rb") as stream:
            data += [
                f"{po.stem}: {m.id!r}" for m in read_po(stream) if m.id and not has_words(m.id)
            ]
    assert data == [], "\n".join(data)
