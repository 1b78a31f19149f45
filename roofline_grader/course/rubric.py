"""The written answers graded by hand: each part's points, model answer and rubric.

A part without a hidden check (:attr:`~roofline_grader.checks.base.Part.manual`, Problem 4's
``p4c_why``) is graded by a person. To grade it consistently the person needs, beside the student's
text, the model answer and a rubric: how many points each idea earns.

* The **model answer** is the solution region of the part's cell in
  ``solutions/<problem>/<problem>.ipynb``: the lines between nbgrader's ``BEGIN SOLUTION`` and
  ``END SOLUTION`` delimiters (``nbgrader/preprocessors/clearsolutions.py``, which replaces that
  region with ``YOUR ANSWER HERE`` in the release).
* The **rubric** is ``solutions/.rubrics.toml``, one table per grade id. nbgrader's own place for a
  rubric, a ``BEGIN MARK SCHEME`` region (``nbgrader/preprocessors/clearmarkingscheme.py``), is
  allowed only in "manually graded task" cells; our written answers are solution cells, and making
  them task cells would change the release. A file in an assignment folder would be released with
  it (``generate_assignment`` copies the folder's files); a file beside the folders is not, but
  nbgrader globs ``solutions/*`` for assignments and warns about any name that holds no notebook.
  A dot file is beside the folders and outside that glob (Python's ``glob`` skips names that start
  with a dot): never released, never taken for an assignment, no warning.

:func:`hand_parts` checks the two against each other and against the notebooks: every manual part
has a rubric, every rubric names a manual part, and a rubric's points add up to its cell's points.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat

from roofline_grader.checks import PARTS
from roofline_grader.course import Course

RUBRICS_FILE = ".rubrics.toml"
"""The rubrics' file in the course's solutions/ (a dot file: see above)."""

BEGIN_SOLUTION, END_SOLUTION = "BEGIN SOLUTION", "END SOLUTION"
"""nbgrader's default solution delimiters (``ClearSolutions.begin_solution_delimeter`` and
``end_solution_delimeter``)."""

_CRITERION_KEYS = ("points", "earns", "partial")


class RubricError(ValueError):
    """The rubrics file and the notebooks disagree, or the file cannot be read."""


@dataclass(frozen=True)
class Criterion:
    """One line of a rubric.

    Attributes:
        points: what the criterion is worth, in the part's points.
        earns: what an answer must do to earn them (Markdown, ``$...$`` math).
        partial: what earns part of them ('' when the points are all or nothing).
    """

    points: float
    earns: str
    partial: str = ""


@dataclass(frozen=True)
class Rubric:
    """A part's criteria, in order; their points add up to the part's."""

    grade_id: str
    criteria: tuple[Criterion, ...]

    @property
    def points(self) -> float:
        return sum(c.points for c in self.criteria)

    def text(self) -> str:
        """The rubric as plain text, a paragraph per criterion (for a spreadsheet cell)."""
        blocks = []
        for c in self.criteria:
            block = f"[{c.points:g} pt] {_plain(c.earns)}"
            if c.partial:
                block += f"\nPartial credit: {_plain(c.partial)}"
            blocks.append(block)
        return "\n\n".join(blocks)


@dataclass(frozen=True)
class HandPart:
    """A part graded by hand, with what the grader needs beside the student's answer.

    Attributes:
        grade_id: the part's nbgrader grade id (``p4c_why``).
        assignment: its problem (``problem4``).
        title: what it asks, for people (``(c) why batching does not help (written answer)``).
        points: the points of its grade cell.
        model_answer: the solution region of its cell in solutions/ (Markdown).
        rubric: its rubric.
    """

    grade_id: str
    assignment: str
    title: str
    points: float
    model_answer: str
    rubric: Rubric


def _plain(text: str) -> str:
    """Markdown text on one line, without the bold marks a spreadsheet would show as ``**``."""
    return " ".join(text.replace("**", "").split())


def rubrics_path(course: Course) -> Path:
    return course.solutions / RUBRICS_FILE


def solution_region(source: str) -> str:
    """The lines of ``source`` between nbgrader's solution delimiters (the delimiters dropped)."""
    lines, inside, found = [], False, False
    for line in source.splitlines():
        if BEGIN_SOLUTION in line:
            inside, found = True, True
        elif END_SOLUTION in line:
            inside = False
        elif inside:
            lines.append(line)
    return "\n".join(lines).strip() if found else source.strip()


def parse_rubrics(data: Mapping[str, Any], where: str = RUBRICS_FILE) -> dict[str, Rubric]:
    """The rubrics of a parsed rubrics file; RubricError naming every malformed entry."""
    rubrics, problems = {}, []
    for gid, table in data.items():
        entries = table.get("criteria") if isinstance(table, Mapping) else None
        if not isinstance(entries, list) or not entries:
            problems.append(f"[{gid}] needs at least one [[{gid}.criteria]] entry")
            continue
        extra = sorted(set(table) - {"criteria"})
        if extra:
            problems.append(f"[{gid}] has unknown keys {extra}; allowed: criteria")
        criteria = []
        for n, entry in enumerate(entries, 1):
            label = f"[{gid}] criterion {n}"
            unknown = sorted(set(entry) - set(_CRITERION_KEYS))
            if unknown:
                problems.append(f"{label} has unknown keys {unknown}; allowed: {_CRITERION_KEYS}")
            points, earns = entry.get("points"), entry.get("earns")
            if isinstance(points, bool) or not isinstance(points, int | float) or points <= 0:
                problems.append(f"{label}: points must be a positive number, got {points!r}")
                continue
            if not isinstance(earns, str) or not earns.strip():
                problems.append(f"{label}: earns must be a non-empty text, got {earns!r}")
                continue
            partial = entry.get("partial", "")
            if not isinstance(partial, str):
                problems.append(f"{label}: partial must be a text, got {partial!r}")
                continue
            criteria.append(Criterion(float(points), earns.strip(), partial.strip()))
        rubrics[gid] = Rubric(gid, tuple(criteria))
    if problems:
        raise RubricError(f"{where}:\n  " + "\n  ".join(problems))
    return rubrics


def load_rubrics(path: Path) -> dict[str, Rubric]:
    """The rubrics of a TOML file (see solutions/.rubrics.toml for the format)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RubricError(f"no rubrics file: {path}") from None
    except tomllib.TOMLDecodeError as exc:
        raise RubricError(f"{path} is not valid TOML: {exc}") from None
    return parse_rubrics(data, str(path))


def hand_parts(course: Course) -> dict[str, HandPart]:
    """Every part graded by hand, in course order; RubricError listing every disagreement."""
    rubrics = load_rubrics(rubrics_path(course))
    parts, problems = {}, []
    for gid, part in PARTS.items():
        if not part.manual:
            continue
        cell = _grade_cell(course, part.problem, gid)
        if cell is None:
            problems.append(f"{gid}: no grade cell {gid} in {course.source_notebook(part.problem)}")
            continue
        points = float(cell.metadata["nbgrader"].get("points") or 0)
        rubric = rubrics.get(gid)
        if rubric is None:
            problems.append(f"{gid} is graded by hand but {RUBRICS_FILE} has no [{gid}]")
            continue
        if abs(rubric.points - points) > 1e-9:
            problems.append(
                f"[{gid}]: the criteria add up to {rubric.points:g} points, the cell is worth "
                f"{points:g}"
            )
            continue
        title = f"({part.letter}) {part.title}"
        parts[gid] = HandPart(
            gid, part.problem, title, points, solution_region(cell.source), rubric
        )
    for gid in rubrics:
        if gid not in PARTS or not PARTS[gid].manual:
            hand = ", ".join(g for g, p in PARTS.items() if p.manual)
            problems.append(f"[{gid}] is not a part graded by hand; those are: {hand}")
    if problems:
        raise RubricError(f"{rubrics_path(course)}:\n  " + "\n  ".join(problems))
    return parts


def _grade_cell(course: Course, assignment: str, grade_id: str) -> nbformat.NotebookNode | None:
    path = course.source_notebook(assignment)
    if not path.is_file():
        return None
    cells: list[nbformat.NotebookNode] = nbformat.read(str(path), as_version=4).cells
    for cell in cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("grade_id") == grade_id and meta.get("grade"):
            return cell
    return None
