"""The cells of the release: what nbgrader knows of each cell a student was given.

A released notebook's nbgrader cells (those with a ``grade_id``) are read once a run into a
:class:`ReleaseIndex`, typed: the workers compare a submission with it and put back the check cells
it lost (it travels to them through the process pool and to Dask workers, so it pickles), and the
outputs read the parts, their points and each problem's title from it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
from nbformat import NotebookNode


def nbgrader_metadata(cell: Mapping[str, Any]) -> Mapping[str, Any]:
    """A cell's ``metadata.nbgrader``, or an empty mapping where a cell has none, or has something
    else than a mapping there (a submission's metadata is the student's to break)."""
    meta = cell.get("metadata", {})
    value = meta.get("nbgrader", {}) if isinstance(meta, Mapping) else {}
    return value if isinstance(value, Mapping) else {}


@dataclass(frozen=True)
class CellInfo:
    """One nbgrader cell of a released notebook, as it was released.

    A flag left out of the cell's metadata is False, as nbgrader reads it.

    Attributes:
        grade_id: nbgrader's name of the cell (``p1a_bytes``), unique in its notebook.
        cell_type: ``"code"``, ``"markdown"`` or ``"raw"``.
        locked: read-only: nbgrader restores its source from the gradebook.
        grade: graded (a check cell, or a written answer graded by hand).
        solution: the student's to write (an answer cell).
        points: the points the cell is worth, None where the metadata gives none (a cell that is
            not graded).
        source: the cell's text.
        cell_json: the whole cell as nbformat JSON, to rebuild it from (:meth:`notebook_cell`).
    """

    grade_id: str
    cell_type: str
    locked: bool
    grade: bool
    solution: bool
    points: float | None
    source: str
    cell_json: str

    @classmethod
    def of(cls, cell: Mapping[str, Any]) -> CellInfo:
        """The release cell ``cell`` (a cell of a notebook read with nbformat, version 4).

        Raises:
            ValueError: the cell has no nbgrader ``grade_id``.
        """
        meta = nbgrader_metadata(cell)
        if "grade_id" not in meta:
            raise ValueError(f"a release cell needs an nbgrader grade_id, got metadata {meta!r}")
        points = meta.get("points")
        source = cell.get("source", "")
        return cls(
            grade_id=str(meta["grade_id"]),
            cell_type=str(cell["cell_type"]),
            locked=bool(meta.get("locked")),
            grade=bool(meta.get("grade")),
            solution=bool(meta.get("solution")),
            points=None if points is None else float(points),
            source=source if isinstance(source, str) else "".join(source),
            cell_json=json.dumps(cell, sort_keys=True),
        )

    @property
    def max_points(self) -> float:
        """The points the cell is worth, 0 for a cell that gives none."""
        return self.points or 0.0

    def notebook_cell(self) -> NotebookNode:
        """A fresh copy of the cell as released, the caller's to change."""
        cell: NotebookNode = nbformat.from_dict(json.loads(self.cell_json))
        return cell

    def nbgrader_metadata(self) -> dict[str, Any]:
        """A fresh copy of the cell's ``metadata.nbgrader`` as released."""
        return dict(nbgrader_metadata(json.loads(self.cell_json)))


def notebook_cells(nb: NotebookNode) -> tuple[CellInfo, ...]:
    """The nbgrader cells of a release notebook, in order."""
    return tuple(CellInfo.of(cell) for cell in nb.cells if "grade_id" in nbgrader_metadata(cell))


def release_cells(notebook: Path) -> tuple[CellInfo, ...]:
    """The nbgrader cells of the release notebook in the file ``notebook``, in order."""
    nb: NotebookNode = nbformat.read(str(notebook), as_version=4)
    return notebook_cells(nb)


class UnknownAssignmentError(KeyError):
    """An assignment the release does not have (a KeyError whose message reads as written)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


@dataclass(frozen=True)
class ReleaseIndex:
    """The nbgrader cells of each released notebook, in order, by assignment.

    Attributes:
        notebooks: ``(assignment, its cells)`` for each assignment, in the course's order.
    """

    notebooks: tuple[tuple[str, tuple[CellInfo, ...]], ...]

    @classmethod
    def read(cls, release: Path, assignments: Sequence[str]) -> ReleaseIndex:
        """The index of the release folder ``release`` (``<release>/<assignment>/<assignment>.ipynb``,
        as ``make release`` and the template write it) for ``assignments``, in that order."""
        return cls(tuple((a, release_cells(release / a / f"{a}.ipynb")) for a in assignments))

    @property
    def assignments(self) -> tuple[str, ...]:
        """The assignments, in the course's order."""
        return tuple(assignment for assignment, _ in self.notebooks)

    def cells(self, assignment: str) -> tuple[CellInfo, ...]:
        """The nbgrader cells of ``assignment``'s notebook, in order.

        Raises:
            UnknownAssignmentError: (a KeyError) the release has no notebook for ``assignment``.
        """
        for name, cells in self.notebooks:
            if name == assignment:
                return cells
        known = ", ".join(self.assignments) or "none"
        raise UnknownAssignmentError(
            f"the release has no assignment {assignment!r}; it has: {known}"
        )

    def only(self, assignment: str) -> ReleaseIndex:
        """The index of ``assignment`` alone (a problem's own feedback page)."""
        return ReleaseIndex(((assignment, self.cells(assignment)),))
