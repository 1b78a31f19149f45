"""roofline_grader.intake.repair.KeepLastDuplicate on two or three in-memory cells, as nbgrader tests its
DeduplicateIds (nbgrader/tests/preprocessors/test_deduplicateids.py): of the cells sharing a grade
id the last stays graded, and the others lose their nbgrader metadata entirely, so that nbgrader's
own sanitizing steps after it find nothing to choke on."""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest
from nbformat import NotebookNode
from nbformat.v4 import new_code_cell, new_notebook
from nbgrader.preprocessors import DeduplicateIds

from roofline_grader.intake.repair import KeepLastDuplicate

from .tiny_notebooks import answer_cell, check_cell, grade_ids, read_only_cell


@pytest.fixture
def preprocessor() -> KeepLastDuplicate:
    return KeepLastDuplicate()


def _run(preprocessor: KeepLastDuplicate, *cells: NotebookNode) -> NotebookNode:
    nb, resources = preprocessor.preprocess(new_notebook(cells=list(cells)), {"marker": 1})
    assert resources == {"marker": 1}  # passed through untouched
    return nb


@pytest.mark.parametrize(
    "make",
    [
        lambda s: check_cell("foo", 2, s),
        lambda s: answer_cell("foo", s),
        lambda s: read_only_cell("foo", s),
    ],
    ids=["grade", "solution", "locked"],
)
def test_of_two_cells_sharing_a_grade_id_the_last_stays_graded(
    preprocessor: KeepLastDuplicate, make: Callable[[str], NotebookNode]
) -> None:
    first, last = make("hello"), make("goodbye")
    nb = _run(preprocessor, first, last)
    assert "nbgrader" not in nb.cells[0].metadata  # gone, not left as {} (nbgrader's KeyError)
    assert nb.cells[1].metadata.nbgrader["grade_id"] == "foo"
    assert [c.source for c in nb.cells] == ["hello", "goodbye"]  # both kept, as plain cells


def test_three_copies_keep_only_the_last(preprocessor: KeepLastDuplicate) -> None:
    nb = _run(preprocessor, *(check_cell("foo", 2, f"copy {i}") for i in range(3)))
    assert grade_ids(nb) == [None, None, "foo"]
    assert nb.cells[2].source == "copy 2"


def test_distinct_ids_and_plain_cells_are_left_alone(preprocessor: KeepLastDuplicate) -> None:
    cells = [answer_cell("p1a"), new_code_cell("y = 1"), check_cell("p1a_check", 2)]
    expected = copy.deepcopy(cells)
    nb = _run(preprocessor, *cells)
    assert nb.cells == expected


def test_nbgrader_metadata_without_a_grade_id_is_removed(
    preprocessor: KeepLastDuplicate,
) -> None:
    blank = new_code_cell("z = 2", metadata={"nbgrader": {"grade": True, "grade_id": ""}})
    empty = new_code_cell("z = 3", metadata={"nbgrader": {}})
    nb = _run(preprocessor, blank, empty, check_cell("p1a_check", 2))
    assert grade_ids(nb) == [None, None, "p1a_check"]
    assert "nbgrader" not in nb.cells[0].metadata and "nbgrader" not in nb.cells[1].metadata


def test_nbgraders_deduplicate_ids_then_finds_nothing_to_empty(
    preprocessor: KeepLastDuplicate,
) -> None:
    """Without this step, DeduplicateIds leaves the first copy with ``nbgrader: {}``."""
    cells = [check_cell("foo", 2, "hello"), check_cell("foo", 2, "goodbye")]
    plain, _ = DeduplicateIds().preprocess(new_notebook(cells=copy.deepcopy(cells)), {})
    assert plain.cells[0].metadata.nbgrader == {}
    ours = _run(preprocessor, *cells)
    after, _ = DeduplicateIds().preprocess(copy.deepcopy(ours), {})
    assert after == ours
