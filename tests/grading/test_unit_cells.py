"""roofline_grader.course.cells on a tiny release: the release index is typed, pickles (it travels
to pool and Dask workers), rebuilds a released cell afresh each time, and names the assignments it
has when asked for one it lacks. Milliseconds each."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from roofline_grader.course.cells import CellInfo, ReleaseIndex, UnknownAssignmentError

from .tiny_notebooks import answer_cell, check_cell, release_notebook, released_cells


@pytest.fixture
def index(tmp_path: Path) -> ReleaseIndex:
    return ReleaseIndex((("problem1", released_cells(tmp_path)), ("problem2", ())))


def test_the_release_index_survives_pickling_unchanged(index: ReleaseIndex) -> None:
    assert pickle.loads(pickle.dumps(index)) == index


def test_an_unknown_assignment_is_a_key_error_naming_it_and_the_known_ones(
    index: ReleaseIndex,
) -> None:
    with pytest.raises(KeyError) as raised:
        index.cells("problem9")
    assert isinstance(raised.value, UnknownAssignmentError)
    assert (
        str(raised.value) == "the release has no assignment 'problem9'; it has: problem1, problem2"
    )


def test_one_assignment_alone_keeps_its_cells(index: ReleaseIndex) -> None:
    alone = index.only("problem1")
    assert alone.assignments == ("problem1",)
    assert alone.cells("problem1") == index.cells("problem1")


def test_a_released_cell_is_rebuilt_afresh_each_time(index: ReleaseIndex) -> None:
    check = index.cells("problem1")[2]
    cell = check.notebook_cell()
    released = release_notebook().cells[2]  # the same cell, with a new random id
    assert {**cell, "id": released.id} == released
    cell.source = "assert True"
    cell.metadata.nbgrader["points"] = 99
    assert check.notebook_cell().source == "assert check_p1a_check()"
    assert check.nbgrader_metadata()["points"] == 2


def test_a_cell_without_points_is_worth_nothing() -> None:
    assert CellInfo.of(answer_cell("p1a")).max_points == 0.0
    assert CellInfo.of(check_cell("p1a_check", 3)).max_points == 3.0


def test_a_cell_nbgrader_does_not_know_is_no_release_cell() -> None:
    plain = release_notebook().cells[3]
    with pytest.raises(ValueError, match="needs an nbgrader grade_id"):
        CellInfo.of(plain)
