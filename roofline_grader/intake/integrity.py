"""What a submission changed in the cells it was given, and putting back the test cells it lost.

The reference is the release notebook (what the student received). nbgrader itself restores edited
read-only cells from the gradebook and keeps only the last of duplicated cells; this module reports
those changes in words, and puts deleted grade cells back before nbgrader sees the notebook (nbgrader's
own ``add_missing_cells`` fails when the cell before a deleted one is missing too).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from nbformat import NotebookNode

from roofline_grader.course.cells import CellInfo, nbgrader_metadata
from roofline_grader.results import ProblemKind, SubmissionProblem


def describe_changes(nb: NotebookNode, release: Sequence[CellInfo]) -> list[SubmissionProblem]:
    """Changes to the cells the student was given, as problems: kind, grade_id, detail."""
    ids = [nbgrader_metadata(c).get("grade_id") for c in nb.cells]
    counts = Counter(i for i in ids if i)
    by_id = {}
    for cell in nb.cells:
        gid = nbgrader_metadata(cell).get("grade_id")
        if gid:
            by_id[gid] = cell  # the last copy is the one nbgrader keeps
    problems: list[SubmissionProblem] = []
    for info in release:
        gid, what = info.grade_id, _what(info)
        if counts.get(gid, 0) == 0:
            restored = "put back from the gradebook" if info.grade else "not restored"
            problems.append(_problem(ProblemKind.DELETED_CELL, gid, f"deleted {what}: {restored}"))
            continue
        if counts[gid] > 1:
            problems.append(
                _problem(
                    ProblemKind.DUPLICATED_CELL,
                    gid,
                    f"{what} appears {counts[gid]} times: the last is graded",
                )
            )
        cell = by_id[gid]
        if info.locked and (cell.get("source") != info.source or cell.cell_type != info.cell_type):
            problems.append(
                _problem(
                    ProblemKind.EDITED_CELL, gid, f"edited {what}: restored from the gradebook"
                )
            )
    return problems


def _what(info: CellInfo) -> str:
    if info.grade and not info.solution:
        return f"the check cell {info.grade_id}"
    if info.solution:
        return f"the answer cell {info.grade_id}"
    return f"the read-only cell {info.grade_id}"


def _problem(kind: ProblemKind, grade_id: str, detail: str) -> SubmissionProblem:
    return SubmissionProblem(kind, detail, grade_id)


def restore_deleted_grade_cells(nb: NotebookNode, release: Sequence[CellInfo]) -> int:
    """Insert the release copy of every deleted grade cell after its nearest surviving predecessor.

    Returns how many cells were put back. The restored cells are then overwritten from the gradebook
    by nbgrader like any other grade cell.
    """
    restored = 0
    for position, info in enumerate(release):
        if not info.grade:
            continue
        present = {nbgrader_metadata(c).get("grade_id"): i for i, c in enumerate(nb.cells)}
        if info.grade_id in present:
            continue
        anchor = -1
        for earlier in reversed(release[:position]):
            if earlier.grade_id in present:
                anchor = max(
                    i
                    for i, c in enumerate(nb.cells)
                    if nbgrader_metadata(c).get("grade_id") == earlier.grade_id
                )
                break
        cell = info.notebook_cell()
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
        nb.cells.insert(anchor + 1, cell)
        unique_cell_ids(nb)
        restored += 1
    return restored


def unique_cell_ids(nb: NotebookNode) -> None:
    """Give every cell an id, renaming repeats (copied cells), so that the notebook validates."""
    if nb.get("nbformat_minor", 0) < 5:
        nb["nbformat_minor"] = 5
    seen: set[str] = set()
    for index, cell in enumerate(nb.cells):
        cid = cell.get("id")
        if not isinstance(cid, str) or not cid or cid in seen:
            base = f"cell-{index}"
            cid, n = base, 0
            while cid in seen:
                n += 1
                cid = f"{base}-{n}"
            cell["id"] = cid
        seen.add(cid)


FLAGS = ("grade", "solution", "locked", "points")
"""The nbgrader flags of a cell that the release fixes and a student may not change."""


def repair_cells(nb: NotebookNode, release: Sequence[CellInfo]) -> list[SubmissionProblem]:
    """Make every cell gradable, as an edited check cell is: returns what was repaired.

    * a cell without ``source`` (or with one that is not text) gets an empty one;
    * text that is not valid Unicode (a lone surrogate) has the bad characters replaced;
    * a cell with the nbgrader metadata of a cell the release does not have (pasted from another
      notebook: JupyterLab keeps its metadata) becomes an ordinary cell of the student's;
    * a cell of the release whose flags (grade, solution, locked, points) or type were changed
      gets the release's back.
    """
    problems: list[SubmissionProblem] = []
    known = {info.grade_id: info for info in release}
    for index, cell in enumerate(nb.cells):
        source = cell.get("source")
        if isinstance(source, list) and all(isinstance(x, str) for x in source):
            cell["source"] = source = "".join(source)
        if not isinstance(source, str):
            cell["source"] = ""
            problems.append(
                _problem(ProblemKind.REPAIRED_CELL, "", f"cell {index + 1} had no source")
            )
        clean = _valid_text(cell["source"])
        if clean != cell["source"]:
            cell["source"] = clean
            problems.append(
                _problem(
                    ProblemKind.REPAIRED_CELL, "", f"cell {index + 1} held text that is not Unicode"
                )
            )
        meta = nbgrader_metadata(cell)
        gid = meta.get("grade_id") if meta else None
        if not meta:
            continue
        if gid not in known:
            cell.metadata.pop("nbgrader", None)
            problems.append(
                _problem(
                    ProblemKind.FOREIGN_CELL,
                    "",
                    f"cell {index + 1} carried nbgrader metadata of a cell this problem does not "
                    f"have ({str(gid)[:40]!r}): graded as an ordinary cell",
                )
            )
            continue
        info = known[gid]
        changed = _changed_flags(meta, info)
        if changed or cell.cell_type != info.cell_type:
            cell.metadata["nbgrader"] = info.nbgrader_metadata()
            if cell.cell_type != info.cell_type:
                cell.cell_type = info.cell_type
                changed.append("cell type")
                if info.cell_type == "code":
                    cell.setdefault("outputs", [])
                    cell.setdefault("execution_count", None)
                else:
                    cell.pop("outputs", None)
                    cell.pop("execution_count", None)
            problems.append(
                _problem(
                    ProblemKind.CHANGED_FLAGS,
                    str(gid),
                    f"{', '.join(changed)} of {gid} changed: put back as released",
                )
            )
    _clean_strings(nb)
    return problems


def _changed_flags(meta: Mapping[str, Any], info: CellInfo) -> list[str]:
    """The flags (:data:`FLAGS`, in that order) that a submitted cell's nbgrader metadata ``meta``
    sets otherwise than the release cell ``info``: a flag left out is False (as nbgrader reads it),
    and points compare as numbers (2 is 2.0; points that are not a number differ from any)."""
    points = meta.get("points")
    submitted = (
        bool(meta.get("grade")),
        bool(meta.get("solution")),
        bool(meta.get("locked")),
        float(points) if isinstance(points, int | float) else points,
    )
    released = (info.grade, info.solution, info.locked, info.points)
    return [flag for flag, a, b in zip(FLAGS, submitted, released, strict=True) if a != b]


def _valid_text(text: str) -> str:
    return text.encode("utf-8", "replace").decode("utf-8")


def _clean_strings(node: Any) -> Any:
    """Replace lone surrogates anywhere in the notebook (metadata too), in place."""
    if isinstance(node, dict):
        for key, value in list(node.items()):
            node[key] = _valid_text(value) if isinstance(value, str) else _clean_strings(value)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            node[i] = _valid_text(value) if isinstance(value, str) else _clean_strings(value)
    return node
