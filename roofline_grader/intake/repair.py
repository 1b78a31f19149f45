"""A sanitizing step that runs before nbgrader's own: cells that share a grade id.

nbgrader's DeduplicateIds keeps the last of the cells sharing a grade id and empties the nbgrader
metadata of the others, leaving ``{}``; with ``OverwriteCells.add_missing_cells`` on, nbgrader then
fails on those empty dicts (``KeyError: 'grade_id'``) and the whole notebook goes ungraded. This step
applies the same rule first, keeping the last copy, but removes the metadata entirely, so that
nbgrader sees no duplicates and the copies run as ordinary cells.
"""

from __future__ import annotations

from typing import Any

from nbformat import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor


class KeepLastDuplicate(NbGraderPreprocessor):  # type: ignore[misc]  # nbgrader is untyped: Any
    """Of cells sharing a grade id, keep the last as the graded one; the others become plain."""

    def preprocess(self, nb: NotebookNode, resources: Any) -> tuple[NotebookNode, Any]:
        seen: set[str] = set()
        for cell in reversed(nb.cells):
            meta = cell.get("metadata", {}).get("nbgrader")
            if meta is None:
                continue
            grade_id = meta.get("grade_id") if isinstance(meta, dict) else None
            if not grade_id or grade_id in seen:
                self.log.warning("Cell with id '%s' exists multiple times!", grade_id)
                del cell.metadata["nbgrader"]
                continue
            seen.add(grade_id)
        return nb, resources
