"""Where the problems' notebooks and their checks modules disagree, in words.

A problem lives in two places that must say the same: its solution notebook
(``solutions/problemN/problemN.ipynb``, whose grade cells carry nbgrader metadata) and its checks
module (``roofline_grader/checks/problemN.py``, whose :class:`~roofline_grader.checks.base.Part` s
carry ids, points and checks). :func:`disagreements` lists every difference:

* a problem folder without a checks module, or a checks module without a notebook;
* a grade cell without a part, a part without a grade cell, the two in another order, other points;
* a part's kind against its cell: an autograded part is a locked code cell (grade, not solution), a
  written part a markdown cell that is both grade and solution;
* a first cell that is not the header rendered from ``checks/header.md``
  (:func:`~roofline_grader.checks.header.render`);
* in a bilingual problem (its checks module has ``TITLE_ZH``), a statement cell (markdown, not a
  written answer) that is not its English, the rule :data:`~roofline_grader.checks.header.RULE`
  and its Chinese, or whose Chinese lacks a formula (``$…$``), a code name (`` `…` ``) or a
  number of its English;
* with the release folder, an exercise notebook whose nbgrader ids are not the solution's
  (``make release`` makes them agree).

Each message names the problem and the part or file, so a failing test says what to fix.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import nbformat

from . import header
from .base import Part, Problem

CJK = re.compile(r"[\u4e00-\u9fff]")
KEPT = re.compile(r"\$\$.+?\$\$|\$[^$]+\$|`[^`]+`", re.DOTALL)
"""What a translation keeps exactly as its English has it: formulas and code."""
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def _nbgrader(cell: Mapping[str, Any]) -> Mapping[str, Any]:
    meta: Mapping[str, Any] = cell.get("metadata", {}).get("nbgrader", {})
    return meta


def nbgrader_ids(nb: nbformat.NotebookNode) -> list[str]:
    """The nbgrader grade ids of a notebook's cells, in order."""
    return [str(_nbgrader(c)["grade_id"]) for c in nb.cells if "grade_id" in _nbgrader(c)]


def _folders(root: Path) -> set[str]:
    if not root.is_dir():
        return set()
    return {p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))}


def _cell_kind(part: Part, cell: nbformat.NotebookNode) -> str | None:
    """Why the cell does not fit the part's kind, or None."""
    meta = _nbgrader(cell)
    if part.manual:
        if cell.cell_type != "markdown" or not meta.get("solution"):
            return "is written, so its grade cell must be a markdown cell with solution: true"
        return None
    if cell.cell_type != "code" or meta.get("solution") or not meta.get("locked"):
        return "is autograded, so its grade cell must be a locked code cell with solution: false"
    return None


def _grade_cells(problem: Problem, nb: nbformat.NotebookNode) -> list[str]:
    where = f"solutions/{problem.name}/{problem.name}.ipynb"
    cells = {str(_nbgrader(c)["grade_id"]): c for c in nb.cells if _nbgrader(c).get("grade")}
    parts = {part.grade_id: part for part in problem.parts}
    out = [
        f"{problem.name}: grade cell {gid} of {where} has no Part in {problem.name}.py"
        for gid in cells
        if gid not in parts
    ]
    out += [
        f"{problem.name}: part {gid} has no grade cell in {where}"
        for gid in parts
        if gid not in cells
    ]
    shared = [gid for gid in parts if gid in cells]
    if not out and list(cells) != list(parts):
        out.append(
            f"{problem.name}: the grade cells are in the order {', '.join(cells)} but the parts in "
            f"the order {', '.join(parts)}"
        )
    for gid in shared:
        part, meta = parts[gid], _nbgrader(cells[gid])
        if meta.get("points") != part.points:
            out.append(
                f"{problem.name}: part {gid} is worth {part.points} points in {problem.name}.py "
                f"but {meta.get('points')} in the notebook's metadata"
            )
        if (why := _cell_kind(part, cells[gid])) is not None:
            out.append(f"{problem.name}: part {gid} {why}")
    return out


def _header(problem: Problem, nb: nbformat.NotebookNode) -> list[str]:
    first = nb.cells[0] if nb.cells else None
    if (
        first is None
        or first.cell_type != "markdown"
        or _nbgrader(first).get("grade_id") != header.grade_id(problem)
        or first.source != header.render(problem)
    ):
        return [
            f"{problem.name}: the first cell is not the header rendered from checks/header.md: "
            "run `make release`"
        ]
    return []


def lost_in_translation(english: str, chinese: str) -> list[str]:
    """The formulas, code and numbers (outside formulas and code) of ``english`` that ``chinese``
    lacks."""
    spans = KEPT.findall(english)
    numbers = NUMBER.findall(KEPT.sub(" ", english))
    prose = KEPT.sub(" ", chinese)
    lost = [s for s in spans if s not in chinese] + [n for n in numbers if n not in prose]
    return list(dict.fromkeys(lost))


def _untranslated(problem: Problem, nb: nbformat.NotebookNode) -> list[str]:
    """Statement cells of a bilingual problem without their Chinese, or whose Chinese lost a
    formula, a name or a number of the English."""
    if not problem.title_zh:
        return []
    out = []
    for cell in nb.cells[1:]:
        if cell.cell_type != "markdown" or _nbgrader(cell).get("solution"):
            continue
        where = f"{problem.name}: cell {_nbgrader(cell).get('grade_id', cell.get('id'))}"
        english, rule, chinese = cell.source.partition(header.RULE)
        if not rule or CJK.search(english) or not CJK.search(chinese):
            out.append(f"{where} is not its English, a --- rule and its Chinese: translate it")
        elif lost := lost_in_translation(english, chinese):
            out.append(f"{where}: its Chinese lacks {', '.join(lost)} of its English")
    return out


def disagreements(
    problems: Mapping[str, Problem], solutions: Path, exercises: Path | None = None
) -> list[str]:
    """Every way the notebooks under ``solutions`` (and the release under ``exercises``, if given)
    disagree with ``problems``; empty when they agree."""
    out = [
        f"solutions/{name} has no checks module {name}.py"
        for name in sorted(_folders(solutions) - set(problems))
    ]
    for problem in problems.values():
        path = solutions / problem.name / f"{problem.name}.ipynb"
        if not path.is_file():
            out.append(
                f"checks module {problem.name}.py has no notebook solutions/{problem.name}/{path.name}"
            )
            continue
        nb = nbformat.read(str(path), as_version=4)
        out += _header(problem, nb) + _grade_cells(problem, nb) + _untranslated(problem, nb)
        if exercises is None:
            continue
        released = exercises / problem.name / f"{problem.name}.ipynb"
        if not released.is_file():
            out.append(f"{problem.name}: no exercises/{problem.name}: run `make release`")
        elif nbgrader_ids(nbformat.read(str(released), as_version=4)) != nbgrader_ids(nb):
            out.append(
                f"{problem.name}: the exercise's cell ids are not the solution's: run `make release`"
            )
    if exercises is not None:
        out += [
            f"exercises/{name} has no solution notebook: run `make release`"
            for name in sorted(_folders(exercises) - set(problems))
        ]
    return out
