"""The first cell of every problem notebook, rendered from one template per language: ``header.md``
and ``header.zh_CN.md``.

The template holds what every problem says (what to do, how to check yourself, follow-through, and
``${hand_in}``, the hand-in paragraph of :data:`HAND_IN_PATH`, which the student kit's README says
too); ``${number}``, ``${title}``, ``${question}``, ``${points}`` and ``${name}`` are what
differs, taken from the problem's checks module (``TITLE``, ``QUESTION``, the sum of its parts'
points; in Chinese ``TITLE_ZH`` and ``QUESTION_ZH``). The notebooks are bilingual: the cell is the
English header, a rule (:data:`RULE`) and the Chinese one, as every statement cell is its English,
the rule and its Chinese. ``python -m roofline_grader.course.release`` (``make release``) writes it into
each solution notebook; a test fails when a notebook's first cell is not what this renders.
"""

from __future__ import annotations

from pathlib import Path
from string import Template

from roofline_lib.selfcheck.language import RULE as RULE  # every statement cell's rule

from .base import Problem

TEMPLATE_PATH = Path(__file__).with_name("header.md")
ZH_TEMPLATE_PATH = Path(__file__).with_name("header.zh_CN.md")
HAND_IN_PATH = Path(__file__).with_name("handin.md")
ZH_HAND_IN_PATH = Path(__file__).with_name("handin.zh_CN.md")
"""How to hand in a problem, in one place: every notebook's header and the student kit's README
(tools/student_kit.py) say it from these, true both for the kit (no Assignments tab) and for a
course that runs nbgrader's exchange."""


def hand_in(name: str, chinese: bool = False) -> str:
    """The hand-in paragraph for the notebook ``name`` (``problem1``; the kit says ``problemN``)."""
    path = ZH_HAND_IN_PATH if chinese else HAND_IN_PATH
    return Template(path.read_text(encoding="utf-8").rstrip("\n")).substitute(name=name)


def points_text(points: int) -> str:
    """'1 point', '9 points'."""
    return f"{points} point" if points == 1 else f"{points} points"


def points_text_zh(points: int) -> str:
    """'1 分', '9 分'."""
    return f"{points} 分"


def render(problem: Problem, template: str | None = None) -> str:
    """The header cell's markdown for ``problem`` (default template: :data:`TEMPLATE_PATH`), and
    below the rule its Chinese (:data:`ZH_TEMPLATE_PATH`) when the problem has a Chinese title."""
    text = TEMPLATE_PATH.read_text(encoding="utf-8") if template is None else template
    english = Template(text.rstrip("\n")).substitute(
        number=problem.number,
        title=problem.title,
        question=problem.question,
        points=points_text(problem.points),
        name=problem.name,
        hand_in=hand_in(problem.name),
    )
    if not problem.title_zh:
        return english
    chinese = Template(ZH_TEMPLATE_PATH.read_text(encoding="utf-8").rstrip("\n")).substitute(
        number=problem.number,
        title=problem.title_zh,
        question=problem.question_zh,
        points=points_text_zh(problem.points),
        name=problem.name,
        hand_in=hand_in(problem.name, chinese=True),
    )
    return english + RULE + chinese


def grade_id(problem: Problem) -> str:
    """The header cell's nbgrader grade id and cell id, e.g. 'p1-header'."""
    return f"p{problem.number}-header"
