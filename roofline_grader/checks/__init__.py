"""The graded parts of the six problems and their hidden tests, keyed by nbgrader grade id.

Each problem module lists its :class:`~roofline_grader.checks.base.Part` s in notebook order. A part
with a :class:`~roofline_grader.checks.base.Check` is autograded: the grade cell's hidden region
calls ``roofline_grader.hidden.check(grade_id, globals())``. A part without one is a written answer
graded by hand.
"""

from __future__ import annotations

from . import problem1, problem2, problem3, problem4, problem5, problem6
from .base import RTOL, Answers, Check, Finding, Part, Plan, Probe, make_plan

PROBLEMS: dict[str, tuple[Part, ...]] = {
    module.PARTS[0].problem: module.PARTS
    for module in (problem1, problem2, problem3, problem4, problem5, problem6)
}
"""The parts of each assignment, in notebook order."""

PARTS: dict[str, Part] = {part.grade_id: part for parts in PROBLEMS.values() for part in parts}
"""Every part, by grade id."""


def get_part(grade_id: str) -> Part:
    """The part with this grade id; KeyError naming the known ones otherwise."""
    try:
        return PARTS[grade_id]
    except KeyError:
        raise KeyError(f"no part {grade_id!r}; known: {', '.join(PARTS)}") from None


__all__ = [
    "PARTS",
    "PROBLEMS",
    "RTOL",
    "Answers",
    "Check",
    "Finding",
    "Part",
    "Plan",
    "Probe",
    "get_part",
    "make_plan",
]
