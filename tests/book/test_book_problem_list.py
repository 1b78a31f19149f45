"""The book's problem page lists exactly the course's problems: one section per problem in the
grader's registry (roofline_grader.checks, discovered from checks/problemN.py), in order, each
linking its exercise notebook. A new problem that the page forgets (or a section for a problem
that does not exist) fails here, without a build."""

from __future__ import annotations

import re

from roofline_grader.checks import PROBLEMS
from tests.book.site import ROOT

PAGE = ROOT / "book" / "07_problems.md"


def _sections() -> list[tuple[int, str]]:
    """(number, section text) of every "## Problem N: …" section of the page."""
    text = PAGE.read_text(encoding="utf-8")
    parts = re.split(r"^## Problem (\d+):", text, flags=re.M)
    return [(int(number), body) for number, body in zip(parts[1::2], parts[2::2], strict=True)]


def test_one_section_per_registered_problem_in_order() -> None:
    numbers = [number for number, _ in _sections()]
    assert [f"problem{n}" for n in numbers] == list(PROBLEMS), (
        f"book/07_problems.md has sections for problems {numbers}; the registry has "
        f"{list(PROBLEMS)}"
    )


def test_each_section_links_its_exercise_notebook() -> None:
    for number, body in _sections():
        link = f"../exercises/problem{number}/problem{number}.ipynb"
        assert link in body, f"Problem {number}'s section does not link {link}"
        assert (PAGE.parent / link).resolve().is_file(), link
