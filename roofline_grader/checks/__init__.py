"""The graded parts of the problems and their hidden tests, keyed by nbgrader grade id.

Each problem is one module, ``problemN.py``, found by :func:`~roofline_grader.checks.registry
.discover` (no list to edit): it declares its notebook header's ``TITLE`` and ``QUESTION`` and its
:class:`~roofline_grader.checks.base.Part` s in notebook order, each with its points. A part with
a :class:`~roofline_grader.checks.base.Check` is autograded: the grade cell's hidden region calls
``roofline_grader.hidden.check(grade_id, globals())``. A part without one is a written answer
graded by hand. :mod:`~roofline_grader.checks.agreement` says where the notebooks disagree.
"""

from __future__ import annotations

import sys

from .base import RTOL, Answers, Check, Finding, Part, Plan, Probe, Problem, make_plan
from .registry import discover

REGISTRY: dict[str, Problem] = discover(sys.modules[__name__])
"""Every problem, by assignment id ('problem1'), in numeric order."""

PROBLEMS: dict[str, tuple[Part, ...]] = {name: p.parts for name, p in REGISTRY.items()}
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
    "REGISTRY",
    "RTOL",
    "Answers",
    "Check",
    "Finding",
    "Part",
    "Plan",
    "Probe",
    "Problem",
    "get_part",
    "make_plan",
]
