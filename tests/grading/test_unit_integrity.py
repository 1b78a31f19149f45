"""roofline_grader.intake.integrity on tiny in-memory notebooks: what a submission changed in the cells it
was given (described in words), the check cells it lost (put back), the flags it changed and the
text nbgrader cannot read (repaired). Milliseconds each; the end-to-end cases are in
grading_cases.py."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell

from roofline_grader.course.cells import CellInfo
from roofline_grader.intake.integrity import (
    describe_changes,
    repair_cells,
    restore_deleted_grade_cells,
    unique_cell_ids,
)
from roofline_grader.results import ProblemKind, SubmissionProblem

from .tiny_notebooks import (
    check_cell,
    grade_ids,
    nbgrader_cell,
    released_cells,
    submission,
)

EDITED, DELETED = ProblemKind.EDITED_CELL, ProblemKind.DELETED_CELL
DUPLICATED, FLAGS = ProblemKind.DUPLICATED_CELL, ProblemKind.CHANGED_FLAGS
RELEASED = ["intro", "p1a", "p1a_check", None, "p1b", "p1b_check"]


@pytest.fixture
def release(tmp_path: Path) -> list[CellInfo]:
    return released_cells(tmp_path)


def _kinds(problems: list[SubmissionProblem]) -> list[tuple[ProblemKind, str]]:
    return [(p.kind, p.grade_id) for p in problems]


# -- release_cells --------------------------------------------------------------------------------


def test_release_cells_lists_the_nbgrader_cells_in_order_with_their_flags(
    release: tuple[CellInfo, ...],
) -> None:
    assert [c.grade_id for c in release] == ["intro", "p1a", "p1a_check", "p1b", "p1b_check"]
    intro, p1a, check = release[0], release[1], release[2]
    assert (intro.cell_type, intro.locked, intro.grade) == ("markdown", True, False)
    assert (p1a.solution, p1a.locked, p1a.points) == (True, False, None)
    assert (check.grade, check.locked, check.points) == (True, True, 2.0)
    assert check.source == "assert check_p1a_check()"
    assert check.notebook_cell().metadata.nbgrader.grade_id == "p1a_check"


# -- describe_changes -----------------------------------------------------------------------------


def test_an_unchanged_submission_and_edited_answers_are_no_problem(
    release: tuple[CellInfo, ...],
) -> None:
    nb = submission()
    assert describe_changes(nb, release) == []
    nb.cells[1].source = "x = 42"  # the answer cell is the student's to write
    nb.cells.append(new_code_cell("print('my own cell')"))
    assert describe_changes(nb, release) == []


def test_an_edited_check_cell_is_reported_as_restored_from_the_gradebook(
    release: tuple[CellInfo, ...],
) -> None:
    nb = submission()
    nb.cells[2].source = "assert True"
    (problem,) = describe_changes(nb, release)
    assert problem == SubmissionProblem(
        EDITED, "edited the check cell p1a_check: restored from the gradebook", "p1a_check"
    )


def test_a_read_only_cell_turned_into_code_is_an_edit(release: tuple[CellInfo, ...]) -> None:
    nb = submission()
    nb.cells[0] = nbgrader_cell("code", "# Problem 1", "intro", locked=True)
    assert _kinds(describe_changes(nb, release)) == [(EDITED, "intro")]
    assert "the read-only cell intro" in describe_changes(nb, release)[0].detail


def test_deleted_cells_say_whether_the_gradebook_puts_them_back(
    release: tuple[CellInfo, ...],
) -> None:
    nb = submission()
    del nb.cells[5]  # p1b_check, a grade cell
    del nb.cells[4]  # p1b, an answer cell
    del nb.cells[0]  # intro, read-only but not graded
    details = {p.grade_id: p.detail for p in describe_changes(nb, release)}
    assert _kinds(describe_changes(nb, release)) == [
        (DELETED, "intro"),
        (DELETED, "p1b"),
        (DELETED, "p1b_check"),
    ]
    assert details["p1b_check"] == "deleted the check cell p1b_check: put back from the gradebook"
    assert details["p1b"] == "deleted the answer cell p1b: not restored"
    assert details["intro"] == "deleted the read-only cell intro: not restored"


def test_a_duplicated_cell_is_reported_once_and_only_its_last_copy_is_compared(
    release: tuple[CellInfo, ...],
) -> None:
    nb = submission()
    edited = check_cell("p1a_check", 2, source="assert True")
    nb.cells.insert(2, edited)  # an edited copy first, the released one last: graded as released
    (problem,) = describe_changes(nb, release)
    assert problem == SubmissionProblem(
        DUPLICATED, "the check cell p1a_check appears 2 times: the last is graded", "p1a_check"
    )
    nb.cells.append(check_cell("p1a_check", 2, source="assert True"))  # now the last is edited
    assert _kinds(describe_changes(nb, release)) == [
        (DUPLICATED, "p1a_check"),
        (EDITED, "p1a_check"),
    ]
    assert "appears 3 times" in describe_changes(nb, release)[0].detail


# -- restore_deleted_grade_cells ------------------------------------------------------------------


def test_nothing_deleted_nothing_restored(release: tuple[CellInfo, ...]) -> None:
    nb = submission()
    assert restore_deleted_grade_cells(nb, release) == 0
    assert grade_ids(nb) == RELEASED


def test_a_deleted_check_cell_goes_back_after_its_answer_as_released(
    release: tuple[CellInfo, ...],
) -> None:
    nb = submission()
    del nb.cells[2]
    assert restore_deleted_grade_cells(nb, release) == 1
    assert grade_ids(nb) == RELEASED
    restored = nb.cells[2]
    assert restored.source == "assert check_p1a_check()"
    assert restored.metadata.nbgrader["points"] == 2
    assert (restored.outputs, restored.execution_count) == ([], None)
    nbformat.validate(nb)


def test_a_check_cell_whose_answer_was_deleted_too_follows_the_nearest_survivor(
    release: tuple[CellInfo, ...],
) -> None:
    """nbgrader's own add_missing_cells fails here: the cell before the deleted one is gone."""
    nb = submission()
    del nb.cells[4:6]  # p1b and p1b_check
    assert restore_deleted_grade_cells(nb, release) == 1  # the answer cell is not a grade cell
    # after p1a_check, the nearest release cell left (the plain cell is the student's own)
    assert grade_ids(nb) == ["intro", "p1a", "p1a_check", "p1b_check", None]
    nb = submission()
    nb.cells = [nb.cells[3]]  # only the plain cell left: the check cells go first, in order
    assert restore_deleted_grade_cells(nb, release) == 2
    assert grade_ids(nb) == ["p1a_check", "p1b_check", None]
    nbformat.validate(nb)


def test_restored_cells_do_not_reuse_the_ids_of_the_students_cells(
    release: tuple[CellInfo, ...],
) -> None:
    nb = submission()
    del nb.cells[2]
    nb.cells[0].id = (
        release[2].notebook_cell().id
    )  # the student's cell holds the id the copy brings
    restore_deleted_grade_cells(nb, release)
    ids = [cell.id for cell in nb.cells]
    assert len(set(ids)) == len(ids)


# -- unique_cell_ids ------------------------------------------------------------------------------


def test_repeated_and_missing_cell_ids_are_renamed_and_the_first_keeps_its_own() -> None:
    nb = submission()
    nb.nbformat_minor = 4
    nb.cells[1].id = nb.cells[0].id
    nb.cells[2].id = "cell-3"  # what the rename of cell 3 would pick first
    nb.cells[3].id = "cell-3"
    del nb.cells[4]["id"]
    first = nb.cells[0].id
    unique_cell_ids(nb)
    ids = [cell.id for cell in nb.cells]
    assert len(set(ids)) == len(ids)
    assert ids[0] == first and ids[2] == "cell-3"
    assert ids[1] == "cell-1" and ids[3] == "cell-3-1" and ids[4] == "cell-4"
    assert nb.nbformat_minor == 5
    nbformat.validate(nb)


# -- repair_cells ---------------------------------------------------------------------------------


def test_an_untouched_submission_needs_no_repair(release: tuple[CellInfo, ...]) -> None:
    nb = submission()
    before = nbformat.writes(nb)
    assert repair_cells(nb, release) == []
    assert nbformat.writes(nb) == before


def test_a_cell_without_source_gets_an_empty_one_and_a_list_source_is_joined(
    release: tuple[CellInfo, ...],
) -> None:
    nb = submission()
    del nb.cells[3]["source"]
    nb.cells[1]["source"] = ["x = ", "42\n"]
    problems = repair_cells(nb, release)
    assert problems == [SubmissionProblem(ProblemKind.REPAIRED_CELL, "cell 4 had no source")]
    assert nb.cells[3].source == ""
    assert nb.cells[1].source == "x = 42\n"


def test_text_that_is_not_unicode_is_replaced_in_sources_and_metadata(
    release: tuple[CellInfo, ...],
) -> None:
    nb = submission()
    nb.cells[1].source = "x = '\udc80'"  # a lone surrogate: nbformat cannot write it
    nb.cells[3].metadata["note"] = "bad \ud800 text"
    assert repair_cells(nb, release) == [
        SubmissionProblem(ProblemKind.REPAIRED_CELL, "cell 2 held text that is not Unicode")
    ]
    assert nb.cells[1].source == "x = '?'"
    assert nb.cells[3].metadata["note"] == "bad ? text"
    nbformat.writes(nb).encode("utf-8")  # now writable


def test_a_cell_pasted_from_another_notebook_loses_its_nbgrader_metadata(
    release: tuple[CellInfo, ...],
) -> None:
    nb = submission()
    nb.cells.append(check_cell("p9z_check", 100, source="assert True"))
    (problem,) = repair_cells(nb, release)
    assert (problem.kind, problem.grade_id) == (ProblemKind.FOREIGN_CELL, "")
    assert problem.detail.startswith("cell 7 carried nbgrader metadata of a cell this problem")
    assert "('p9z_check'): graded as an ordinary cell" in problem.detail
    assert "nbgrader" not in nb.cells[6].metadata
    assert nb.cells[6].source == "assert True"  # kept, as an ordinary cell of the student's


def test_changed_points_and_flags_are_put_back_as_released(release: tuple[CellInfo, ...]) -> None:
    nb = submission()
    meta = nb.cells[2].metadata.nbgrader
    meta["points"], meta["locked"] = 20, False
    nb.cells[5].metadata.nbgrader["grade"] = False  # a check cell that would not be graded
    problems = repair_cells(nb, release)
    assert problems == [
        SubmissionProblem(
            FLAGS, "locked, points of p1a_check changed: put back as released", "p1a_check"
        ),
        SubmissionProblem(FLAGS, "grade of p1b_check changed: put back as released", "p1b_check"),
    ]
    assert nb.cells[2].metadata.nbgrader == release[2].nbgrader_metadata()
    assert nb.cells[5].metadata.nbgrader["grade"] is True


def test_the_same_flags_written_differently_need_no_repair(release: tuple[CellInfo, ...]) -> None:
    """A flag left out is False (as nbgrader reads it), and 2.0 points are 2 points."""
    nb = submission()
    meta = nb.cells[2].metadata.nbgrader
    meta["points"] = 2.0
    del meta["solution"]
    nb.cells[1].metadata.nbgrader["grade"] = 0
    assert repair_cells(nb, release) == []


def test_a_changed_cell_type_is_put_back_with_the_fields_of_that_type(
    release: tuple[CellInfo, ...],
) -> None:
    nb = submission()
    nb.cells[2] = nbgrader_cell(
        "markdown", "assert check_p1a_check()", "p1a_check", grade=True, locked=True, points=2
    )
    nb.cells[0] = nbgrader_cell("code", "# Problem 1", "intro", locked=True)
    problems = repair_cells(nb, release)
    assert [p.detail for p in problems] == [
        "cell type of intro changed: put back as released",
        "cell type of p1a_check changed: put back as released",
    ]
    assert nb.cells[0].cell_type == "markdown" and "outputs" not in nb.cells[0]
    assert nb.cells[2].cell_type == "code"
    assert (nb.cells[2].outputs, nb.cells[2].execution_count) == ([], None)
    nbformat.validate(nb)


def test_repair_then_describe_reports_an_edited_type_once_as_repaired(
    release: tuple[CellInfo, ...],
) -> None:
    """The worker's order: after repair, a type change is no longer an edit to describe."""
    nb = submission()
    nb.cells[4] = nbgrader_cell("markdown", "x = ...", "p1b", solution=True)
    assert _kinds(repair_cells(nb, release)) == [(FLAGS, "p1b")]
    assert describe_changes(nb, release) == []
    assert nb.cells[4].cell_type == "code" and nb.cells[4].source == "x = ..."
