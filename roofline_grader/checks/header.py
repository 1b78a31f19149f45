"""The first cell of every problem notebook, rendered from one template: ``header.md``.

The template holds what every problem says (what to do, how to check yourself, follow-through, how
to hand in); ``${number}``, ``${title}``, ``${question}``, ``${points}`` and ``${name}`` are what
differs, taken from the problem's checks module (``TITLE``, ``QUESTION``, the sum of its parts'
points). ``python -m roofline_grader.release`` (``make release``) writes it into each solution
notebook; a test fails when a notebook's first cell is not what this renders.
"""

from __future__ import annotations

from pathlib import Path
from string import Template

from .base import Problem

TEMPLATE_PATH = Path(__file__).with_name("header.md")


def points_text(points: int) -> str:
    """'1 point', '9 points'."""
    return f"{points} point" if points == 1 else f"{points} points"


def render(problem: Problem, template: str | None = None) -> str:
    """The header cell's markdown for ``problem`` (default template: :data:`TEMPLATE_PATH`)."""
    text = TEMPLATE_PATH.read_text(encoding="utf-8") if template is None else template
    return Template(text.rstrip("\n")).substitute(
        number=problem.number,
        title=problem.title,
        question=problem.question,
        points=points_text(problem.points),
        name=problem.name,
    )


def grade_id(problem: Problem) -> str:
    """The header cell's nbgrader grade id and cell id, e.g. 'p1-header'."""
    return f"p{problem.number}-header"
