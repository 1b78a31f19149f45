"""Grading the written answers by hand: the rubric, and the spreadsheet route for TAs.

The rubric tests read solutions/ and take milliseconds. The sheet tests grade a class of three
(Problem 4 answered, Problem 4 left blank, nothing handed in: two real notebooks) with the real
``roofline-grade``, then run it again with ``--manual-sheet`` and ``--manual-scores`` as a TA's
instructor would; the second runs grade nothing (the journal), so each costs a start-up.
"""

from __future__ import annotations

import csv
import hashlib
import shutil
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from roofline_grader.course import Course
from roofline_grader.course.rubric import RUBRICS_FILE, RubricError, hand_parts, parse_rubrics
from roofline_grader.handgrading.manual import COLUMNS
from roofline_grader.names import spreadsheet_value
from roofline_grader.outputs.gradebook import solutions_fingerprint

from .conftest import grade_quietly
from .grading_cases import ROOT, Case, release_notebook, solved

ANSWER = textwrap.dedent(
    """\
    - Each batch element has its **own** weights, so $B$ cancels:

    $$I = \\frac{2DF}{D + DF + F} < 2$$

    Mixture-of-experts layers are like this; group tokens by expert."""
)
"""Alice's written answer: a list, bold, inline and display math, and a first character that a
spreadsheet would take for a formula."""

RUBRIC_PHRASE = "group tokens by expert or by adapter"
"""Words of the p4c_why rubric (solutions/.rubrics.toml), to look for where it must or must not be."""


def small_class(release: Path, folder: Path) -> Path:
    """alice answered Problem 4, bob handed it in blank, carol handed in nothing."""
    Case("alice", {"problem4": solved(release, "problem4", p4c_why=ANSWER)}).write(folder)
    Case("bob", {"problem4": release_notebook(release, "problem4")}).write(folder)
    Case("carol", {}).write(folder)
    return folder


# ----------------------------------------------------------------------------------------------
# The rubric
# ----------------------------------------------------------------------------------------------


def test_every_written_part_has_a_rubric_worth_its_points(course: Course) -> None:
    parts = hand_parts(course)
    assert list(parts) == ["p4c_why"]
    part = parts["p4c_why"]
    assert (part.assignment, part.points, part.rubric.points) == ("problem4", 2.0, 2.0)
    assert "mixture-of-experts" in part.model_answer and "SOLUTION" not in part.model_answer
    assert RUBRIC_PHRASE in part.rubric.text()


def test_a_rubric_that_disagrees_with_its_notebook_is_refused(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "solutions" / "problem4", tmp_path / "solutions" / "problem4")
    (tmp_path / "solutions" / RUBRICS_FILE).write_text(
        '[p4c_why]\n[[p4c_why.criteria]]\npoints = 3\nearns = "everything"\n'
        '[p4a_costs]\n[[p4a_costs.criteria]]\npoints = 2\nearns = "the bytes"\n'
    )
    with pytest.raises(RubricError) as error:
        hand_parts(Course(tmp_path))
    message = str(error.value)
    assert "[p4c_why]: the criteria add up to 3 points, the cell is worth 2" in message
    assert "[p4a_costs] is not a part graded by hand; those are: p4c_why" in message


def test_a_malformed_rubric_names_each_bad_entry() -> None:
    with pytest.raises(RubricError) as error:
        parse_rubrics(
            {
                "p4c_why": {"criteria": [{"points": -1, "earns": "x"}, {"points": 1, "earn": "y"}]},
                "p9": {},
            }
        )
    message = str(error.value)
    assert "[p4c_why] criterion 1: points must be a positive number, got -1" in message
    assert "[p4c_why] criterion 2 has unknown keys ['earn']" in message
    assert "[p9] needs at least one [[p9.criteria]] entry" in message


def test_editing_a_rubric_regrades_nothing(tmp_path: Path) -> None:
    """The rubric is not part of what the grader's journal and template gradebook depend on."""
    shutil.copytree(ROOT / "solutions", tmp_path / "solutions")
    course = Course(tmp_path)
    before = solutions_fingerprint(course)
    rubric = tmp_path / "solutions" / RUBRICS_FILE
    rubric.write_text(rubric.read_text().replace("points = 1", "points = 1.0"))
    assert solutions_fingerprint(course) == before
    notebook = course.source_notebook("problem4")
    notebook.write_text(notebook.read_text().replace("B·D·F", "B*D*F") + "\n")
    assert solutions_fingerprint(course) != before


def test_no_rubric_reaches_the_release(release: Path, course: Course) -> None:
    """make release (and so the student kit, built from exercises/) holds no rubric."""
    for folder in (release, course.exercises):
        names = [p.name for p in folder.rglob("*")]
        assert RUBRICS_FILE not in names, folder
        for notebook in folder.rglob("*.ipynb"):
            assert RUBRIC_PHRASE not in notebook.read_text(), notebook


# ----------------------------------------------------------------------------------------------
# The sheet
# ----------------------------------------------------------------------------------------------


@dataclass
class Class:
    submissions: Path
    workspace: Path
    first_report: str
    first_sheet: Path

    @property
    def gradebook(self) -> Path:
        return self.workspace / "gradebook.db"

    def grades(self) -> dict[str, dict[str, str]]:
        with (self.workspace / "grades.csv").open(newline="") as fh:
            return {row["student_id"]: row for row in csv.DictReader(fh)}


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory: pytest.TempPathFactory, release: Path) -> Iterator[Class]:
    base = tmp_path_factory.mktemp("hand")
    submissions = small_class(release, base / "submissions")
    sheet = base / "sheet.csv"
    run = grade_quietly(submissions, base / "workspace", "--manual-sheet", sheet)
    assert run.returncode == 0, run.stderr[-3000:]
    yield Class(submissions, base / "workspace", run.stdout, sheet)


def _read(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8-sig") as fh:
        return list(csv.DictReader(fh))


def _write(path: Path, rows: list[list[str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows)
    return path


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.slow
def test_the_sheet_holds_each_answer_beside_the_model_answer_and_rubric(
    graded_class: Class,
) -> None:
    sheet = graded_class.first_sheet
    assert f"Sheet for grading by hand: {sheet} (3 rows, 1 awaiting a score)" in (
        graded_class.first_report
    )
    raw = sheet.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf"), "Excel reads UTF-8 only after a byte order mark"
    with sheet.open(newline="", encoding="utf-8-sig") as fh:
        assert next(csv.reader(fh)) == list(COLUMNS)
    rows = {row["student_id"]: row for row in _read(sheet)}
    assert sorted(rows) == ["alice", "bob", "carol"]
    alice = rows["alice"]
    assert alice["part"] == "p4c_why" and alice["max_points"] == "2"
    assert alice["answer"] == "'" + ANSWER, "a cell starting with '-' is kept from running"
    assert spreadsheet_value(alice["answer"]) == ANSWER, "the whole answer, lines and all, one cell"
    assert "mixture-of-experts" in alice["model_answer"] and RUBRIC_PHRASE in alice["rubric"]
    assert (alice["score"], alice["comment"]) == ("", "")
    assert rows["bob"]["answer"] == "YOUR ANSWER HERE"
    assert rows["carol"]["answer"] == "(no submission)"


@pytest.mark.slow
def test_hand_scores_from_the_sheet_reach_grades_feedback_and_report(
    graded_class: Class, tmp_path: Path
) -> None:
    assert "Awaiting grading by hand: p4c_why (1)" in graded_class.first_report
    sheet = tmp_path / "sheet.csv"
    with graded_class.first_sheet.open(newline="", encoding="utf-8-sig") as fh:
        rows = list(csv.reader(fh))
    score, comment = COLUMNS.index("score"), COLUMNS.index("comment")
    for row in rows[1:]:
        if row[0] == "alice":
            row[score], row[comment] = "1.5", "'=Right reason; name the serving consequence."
    filled = _write(tmp_path / "filled.csv", rows)

    run = grade_quietly(
        graded_class.submissions,
        graded_class.workspace,
        "--manual-scores",
        filled,
        "--manual-sheet",
        sheet,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert f"Hand scores: 1 score(s) and 1 comment(s) from {filled}" in run.stdout
    assert "Awaiting grading by hand" not in run.stdout
    assert "Awaiting grading by hand" not in (graded_class.workspace / "report.txt").read_text()
    alice = graded_class.grades()["alice"]
    assert (alice["p4c_why"], alice["problem4"], alice["total"]) == ("1.5", "5.5", "5.5")
    feedback = (graded_class.workspace / "feedback" / "alice" / "index.html").read_text()
    assert "graded by hand" in feedback
    assert "=Right reason; name the serving consequence." in feedback, "the apostrophe removed"
    with Gradebook(f"sqlite:///{graded_class.gradebook}", course_id="roofline") as gb:
        grade_row = gb.find_grade("p4c_why", "problem4", "problem4", "alice")
        assert (grade_row.manual_score, grade_row.needs_manual_grade) == (1.5, False)
    rewritten = {row["student_id"]: row for row in _read(sheet)}
    assert rewritten["alice"]["score"] == "1.5", "the next sheet starts from the hand scores"
    assert "0 awaiting a score" in run.stdout

    # A sheet with the score left empty is "not graded yet": it erases nothing.
    for row in rows[1:]:
        row[score], row[comment] = "", ""
    again = grade_quietly(
        graded_class.submissions,
        graded_class.workspace,
        "--manual-scores",
        _write(tmp_path / "empty.csv", rows),
    )
    assert again.returncode == 0, again.stderr[-3000:]
    assert graded_class.grades()["alice"]["p4c_why"] == "1.5"


GOOD_ROW = ["alice", "p4c_why", "1", "a good row is not applied either"]
"""Row 2 of the malformed sheet: nothing wrong with it, and it must not be applied either."""

BAD_ROWS = [
    (["bob", "p4c_why", "3", ""], "row 3 (bob, p4c_why): score 3 is outside 0 to 2"),
    (["bob", "p4c_why", "-1", ""], "row 4 (bob, p4c_why): score -1 is outside 0 to 2"),
    (["bob", "p4c_why", "1,5", ""], "row 5 (bob, p4c_why): score '1,5' is not a number"),
    (["bob", "p4c_why", "two", ""], "row 6 (bob, p4c_why): score 'two' is not a number"),
    (["dave", "p4c_why", "1", ""], "row 7 (dave, p4c_why): unknown student 'dave'"),
    (["alice", "p4a_costs", "1", ""], "part 'p4a_costs' is graded automatically"),
    (["alice", "p9z_essay", "1", ""], "row 9 (alice, p9z_essay): unknown part 'p9z_essay'"),
    (["carol", "p4c_why", "1", ""], "carol submitted no notebook for problem4"),
    (
        ["alice", "p4c_why", "", "again"],
        "row 11 (alice, p4c_why): the same student and part as row 2",
    ),
    (["alice", "p4c_why"], "row 12: 2 fields, the header has 4"),
]
"""Each kind of bad row, and what the error must say about it."""


@pytest.mark.slow
def test_a_malformed_sheet_changes_nothing_and_names_every_bad_row(
    graded_class: Class, tmp_path: Path
) -> None:
    rows = [["student_id", "part", "score", "comment"], GOOD_ROW, *(row for row, _ in BAD_ROWS)]
    before = {
        p: _digest(p) for p in (graded_class.gradebook, graded_class.workspace / "grades.csv")
    }
    run = grade_quietly(
        graded_class.submissions,
        graded_class.workspace,
        "--manual-scores",
        _write(tmp_path / "bad.csv", rows),
    )
    assert run.returncode == 2, run.stdout[-2000:]
    assert f"{len(BAD_ROWS)} bad row(s), nothing applied" in run.stderr
    for _, words in BAD_ROWS:
        assert words in run.stderr, (words, run.stderr)
    assert {p: _digest(p) for p in before} == before, "the gradebook and grades are unchanged"

    no_score = _write(
        tmp_path / "columns.csv", [["student_id", "part", "points"], ["alice", "p4c_why", "2"]]
    )
    run = grade_quietly(
        graded_class.submissions, graded_class.workspace, "--manual-scores", no_score
    )
    assert run.returncode == 2
    assert "row 1: missing column(s) score, comment" in run.stderr
    assert {p: _digest(p) for p in before} == before
