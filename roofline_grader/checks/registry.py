"""The problems, found: every ``problemN`` module of a checks package, in numeric order.

A checks module ``problemN.py`` declares ``TITLE`` and ``QUESTION`` (its notebook header's title
and question; ``TITLE_ZH`` and ``QUESTION_ZH`` in Chinese, optional) and ``PARTS`` (a tuple of
:class:`~roofline_grader.checks.base.Part` s in notebook order). Adding the module is the
registration: nothing lists the problems by hand. The course's own package is
:mod:`roofline_grader.checks`; a test can point :func:`discover` at another.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from types import ModuleType

from .base import Part, Problem

MODULE_NAME = re.compile(r"problem(?P<n>[1-9][0-9]*)")
"""A checks module's name: 'problem' and the problem's number (no leading zero)."""


def problem_of(module: ModuleType) -> Problem:
    """The :class:`Problem` a checks module declares; ValueError naming the module and what it
    lacks or gets wrong."""
    name = module.__name__.rpartition(".")[2]
    missing = [attr for attr in ("TITLE", "QUESTION", "PARTS") if not hasattr(module, attr)]
    if missing:
        raise ValueError(f"checks module {module.__name__} must define {', '.join(missing)}")
    parts = tuple(module.PARTS)
    if not parts or not all(isinstance(part, Part) for part in parts):
        raise ValueError(f"{module.__name__}.PARTS must be a non-empty tuple of Part")
    for part in parts:
        if part.problem != name:
            raise ValueError(
                f"{module.__name__}: part {part.grade_id} says problem {part.problem!r}, "
                f"expected {name!r}"
            )
    return Problem(
        name,
        str(module.TITLE),
        str(module.QUESTION),
        parts,
        str(getattr(module, "TITLE_ZH", "")),
        str(getattr(module, "QUESTION_ZH", "")),
    )


def discover(package: ModuleType) -> dict[str, Problem]:
    """Every problem of ``package``'s ``problemN`` modules, by name, in order of N (problem10 after
    problem9). ValueError when two parts share a grade id, naming both problems."""
    numbers = sorted(
        int(m["n"])
        for info in pkgutil.iter_modules(package.__path__)
        if (m := MODULE_NAME.fullmatch(info.name))
    )
    problems: dict[str, Problem] = {}
    owner: dict[str, str] = {}
    for n in numbers:
        problem = problem_of(importlib.import_module(f"{package.__name__}.problem{n}"))
        for part in problem.parts:
            if part.grade_id in owner:
                raise ValueError(
                    f"grade id {part.grade_id} is a part of both {owner[part.grade_id]} and "
                    f"{problem.name}"
                )
            owner[part.grade_id] = problem.name
        problems[problem.name] = problem
    return problems
