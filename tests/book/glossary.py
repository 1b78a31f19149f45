"""The glossary page's table as data, for the tests that hold the Chinese edition to it: each
row's English, its Chinese (as the Chinese edition writes the term) and the section that teaches
it (book/13_glossary.md; the Chinese edition's search dictionary reads the same column,
book/_ext/chinese_search.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tests.book.site import ROOT

BOOK = ROOT / "book"
GLOSSARY = BOOK / "13_glossary.md"
_TAUGHT = re.compile(r"\{ref\}`(sec-[a-z0-9-]+)`")


@dataclass(frozen=True)
class GlossaryRow:
    """One row: ``english`` ("HBM (high-bandwidth memory)"), ``chinese`` ("计算受限（算力瓶颈）"),
    and the label of the section that teaches it (``sec-overlap``)."""

    english: str
    chinese: str
    taught: str

    @property
    def term(self) -> str:
        """The Chinese term without its gloss in parentheses: 计算受限."""
        return re.split(r"[（(]", self.chinese)[0].strip()


def glossary_rows() -> list[GlossaryRow]:
    rows = []
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        if not line.startswith("| ") or line.startswith(("| English", "| :--")):
            continue
        english, chinese, _, taught = (cell.strip() for cell in line.strip("| \n").split(" | "))
        label = _TAUGHT.search(taught)
        assert label, f"a glossary row without the section that teaches it: {line}"
        rows.append(GlossaryRow(english, chinese, label.group(1)))
    return rows


def section_pages() -> dict[str, str]:
    """Each section label of the book (``(sec-...)=``) and the page that defines it."""
    labels = {}
    for source in BOOK.glob("*.md"):
        text = source.read_text(encoding="utf-8")
        for label in re.findall(r"^\((sec-[a-z0-9-]+)\)=$", text, re.M):
            labels[label] = f"book/{source.stem}"
    return labels
