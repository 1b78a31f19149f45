"""Tiny in-memory notebooks for the grader's unit tests: cells with nbgrader metadata, as nbgrader's
own tests build them (``nbgrader/tests/__init__.py``), and a five-cell release to compare against.
"""

from __future__ import annotations

import copy
from pathlib import Path

import nbformat
from nbformat import NotebookNode
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from roofline_grader.course.cells import CellInfo, release_cells


def nbgrader_cell(
    cell_type: str,
    source: str,
    grade_id: str,
    *,
    grade: bool = False,
    solution: bool = False,
    locked: bool = False,
    points: float | None = None,
) -> NotebookNode:
    """A code or markdown cell carrying nbgrader's metadata (schema 3)."""
    meta: dict[str, object] = {
        "grade": grade,
        "grade_id": grade_id,
        "locked": locked,
        "schema_version": 3,
        "solution": solution,
    }
    if points is not None:
        meta["points"] = points
    make = new_code_cell if cell_type == "code" else new_markdown_cell
    return make(source, metadata={"nbgrader": meta})


def answer_cell(grade_id: str, source: str = "x = ...") -> NotebookNode:
    return nbgrader_cell("code", source, grade_id, solution=True)


def check_cell(grade_id: str, points: float, source: str | None = None) -> NotebookNode:
    text = source if source is not None else f"assert check_{grade_id}()"
    return nbgrader_cell("code", text, grade_id, grade=True, locked=True, points=points)


def read_only_cell(grade_id: str, source: str = "# Problem 1") -> NotebookNode:
    return nbgrader_cell("markdown", source, grade_id, locked=True)


def release_notebook() -> NotebookNode:
    """What a student receives: a read-only header, then two answers each with its check cell,
    and one plain cell of no interest to nbgrader."""
    return new_notebook(
        cells=[
            read_only_cell("intro"),
            answer_cell("p1a"),
            check_cell("p1a_check", 2),
            new_markdown_cell("Some notes."),
            answer_cell("p1b"),
            check_cell("p1b_check", 3),
        ]
    )


def grade_ids(nb: NotebookNode) -> list[str | None]:
    """The grade id of each cell, None for a cell nbgrader does not know."""
    return [cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") for cell in nb.cells]


def released_cells(tmp_path: Path) -> tuple[CellInfo, ...]:
    """The release notebook written to disk and read back as the grader reads it."""
    path = tmp_path / "release.ipynb"
    nbformat.write(release_notebook(), str(path))
    return release_cells(path)


def submission() -> NotebookNode:
    """A fresh copy of the release, as a student would hand it in unchanged."""
    return copy.deepcopy(release_notebook())
