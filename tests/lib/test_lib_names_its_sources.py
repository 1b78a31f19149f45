"""roofline_lib's own words name the source of each figure, as the book does.

The course follows two sources: *How to Scale Your Model*, Part 1 ("the original"), and a Chinese
study guide that retells it ("the guide"). A docstring, comment or user-facing string in the
library says "the original", "the guide" or "both sources", never "the chapter", which blamed the
original for figures only the guide prints. (The module ``roofline_lib.chapter`` and its
``*_CHAPTER`` names keep the word as identifiers.)
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from roofline_lib import chapter

LIBRARY = Path(__file__).resolve().parents[2] / "roofline_lib"
SOURCES = sorted(LIBRARY.rglob("*.py"))
_UNNAMED = re.compile(r"\b(?:the|original|roofline) chapter\b|\bchapter's\b", re.I)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(LIBRARY)))
def test_no_library_text_says_the_chapter(path: Path) -> None:
    hits = [
        f"{path.name}:{number}: {line.strip()}"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if _UNNAMED.search(line)
    ]
    assert not hits, 'say "the original", "the guide" or "both sources":\n' + "\n".join(hits)


def test_rounded_chips_are_named_for_both_sources() -> None:
    for chip in (chapter.H100_CHAPTER, chapter.TPU_V5E_CHAPTER, chapter.TPU_V6E_CHAPTER):
        assert chip.name.endswith("(both sources' figures)"), chip.name
    assert chapter.TPU_V5E_CHAPTER.links["ici"].name == "ICI (both sources)"
    assert chapter.CHAPTER_LINK_SCOPE == "one-way bytes/s over one link, as both sources state it"


def test_figures_only_the_guide_prints_are_said_to_be_the_guides() -> None:
    for name in (
        "NVLINK_CHAPTER_BYTES_PER_S",
        "IB_CHAPTER_BYTES_PER_S",
        "TP_PEAK_CHAPTER_FLOPS_PER_S",
        "LLAMA_70B_RUN",
        "PROBLEM_6_CHIP",
    ):
        doc = _attribute_docstring(name)
        assert "guide" in doc and "both sources" not in doc, f"{name}: {doc!r}"


def _attribute_docstring(name: str) -> str:
    """The string literal that follows ``NAME = ...`` in roofline_lib/chapter.py."""
    text = (LIBRARY / "chapter.py").read_text()
    match = re.search(rf"^{name}\b.*?\n\"\"\"(.*?)\"\"\"", text, re.S | re.M)
    assert match, f"no docstring after {name}"
    return match.group(1)
