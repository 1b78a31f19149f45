"""The book's problem pages list exactly the course's problems: one section per problem in the
grader's registry (roofline_grader.checks, discovered from checks/problemN.py), in order across
the pages in the table of contents, each linking its exercise notebook. A new problem that the
pages forget (or a section for a problem that does not exist) fails here, without a build."""

from __future__ import annotations

import re

from roofline_grader.checks import PROBLEMS
from tests.book.site import ROOT

PAGES = (ROOT / "book" / "07_problems.md", ROOT / "book" / "10_problems_whole_model.md")
"""The problem pages, in reading order: Problems 1–6 follow the single-chip pages, 7–9 the
network, MFU and inference pages they draw on."""


def _sections() -> list[tuple[int, str]]:
    """(number, section text) of every "## Problem N: …" section of the pages, in order."""
    found = []
    for page in PAGES:
        parts = re.split(r"^## Problem (\d+):", page.read_text(encoding="utf-8"), flags=re.M)
        found += [(int(n), body) for n, body in zip(parts[1::2], parts[2::2], strict=True)]
    return found


def test_the_problem_pages_are_in_the_table_of_contents_in_this_order() -> None:
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    where = [toc.index(f"file: book/{page.stem}") for page in PAGES]
    assert where == sorted(where), f"_toc.yml lists {[p.stem for p in PAGES]} out of order"


def test_one_section_per_registered_problem_in_order() -> None:
    numbers = [number for number, _ in _sections()]
    assert [f"problem{n}" for n in numbers] == list(PROBLEMS), (
        f"the problem pages have sections for problems {numbers}; the registry has {list(PROBLEMS)}"
    )


def test_each_section_links_its_exercise_notebook() -> None:
    for number, body in _sections():
        link = f"../exercises/problem{number}/problem{number}.ipynb"
        assert link in body, f"Problem {number}'s section does not link {link}"
        assert (PAGES[0].parent / link).resolve().is_file(), link
