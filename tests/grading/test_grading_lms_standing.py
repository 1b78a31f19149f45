"""A Canvas class graded on one problem, end to end: what each output counts and what an LMS import
would take (roofline_grader.outputs.standing, .exports; the roster's rows left out).

The download is Canvas's for Problem 4 alone. The roster is a Canvas gradebook export with the
course's test student ("Student, Test", no SIS User ID) and a teaching assistant marked in an
``Exclude`` column. Jane answers everything (her written part waits for a hand grade), Li Wei hands
in the blank notebook, Mary Ann nothing, and the test student uploads a notebook too. Two kernels.
"""

from __future__ import annotations

import csv
import json
import re
import zipfile
from pathlib import Path

import nbformat
import pytest

from roofline_grader.handgrading.manual import COLUMNS

from .conftest import CELL_TIMEOUT_S, roofline_grade
from .grading_cases import release_notebook, solved

pytestmark = pytest.mark.slow

ROSTER = (
    "Student,ID,SIS User ID,SIS Login ID,Section,Problem 4: Experts (444),Exclude\n"
    "    Points Possible,,,,,6,\n"
    '"Doe, Jane",12345,s001,jdoe,A,,\n'
    '"Roe, Mary Ann",23456,s002,mroe,A,,\n'
    '"Wei, Li",34567,s003,lwei,A,,\n'
    '"Student, Test",1099,,5e0f2a9c,A,,\n'
    '"Assistant, Tea",2001,ta1,tea,A,,yes\n'
)


def _csv(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8-sig") as fh:
        return list(csv.reader(fh))


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory, release: Path) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("canvas-p4")
    archive = root / "roofline-problem-4_submissions.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr(
            "doejane_12345_1001_problem4.ipynb", nbformat.writes(solved(release, "problem4"))
        )
        blank = nbformat.writes(release_notebook(release, "problem4"))
        zf.writestr("weili_34567_1002_problem4.ipynb", blank)
        zf.writestr("studenttest_1099_1003_problem4.ipynb", blank)
    roster = root / "roster.csv"
    roster.write_text(ROSTER, encoding="utf-8")
    workspace = root / "workspace"
    args = (archive, "--roster", roster, "--out", workspace, "--timeout", CELL_TIMEOUT_S)
    run = roofline_grade(*args, "--quiet", "--manual-sheet", root / "sheet.csv")
    assert run.returncode == 0, run.stderr[-3000:]  # the test student's upload is routine
    return {"archive": archive, "roster": roster, "workspace": workspace, "root": root}


def test_the_test_student_is_graded_by_no_one_and_named_once(graded: dict[str, Path]) -> None:
    workspace = graded["workspace"]
    grades = {row[0]: row for row in _csv(workspace / "grades.csv")[1:]}
    assert sorted(grades) == ["s001", "s002", "s003"]
    assert not (workspace / "feedback" / "1099").exists()
    assert not list((workspace / "feedback-zips").glob("1099*"))
    canvas = _csv(workspace / "canvas_grades.csv")
    assert [r[1] for r in canvas[2:]] == ["12345", "23456", "34567"]  # no 1099, no ta1
    text = (workspace / "report.txt").read_text()
    assert text.count("Student, Test (row 6): Canvas's test student") == 1
    assert "Assistant, Tea (row 7): marked 'yes'" in text
    assert "3 students" in text
    report = json.loads((workspace / "report.json").read_text())
    assert len(report["left_out"]) == 2
    (upload,) = [u for u in report["unplaced"] if u["why"] == "left_out"]
    assert upload["file"] == "studenttest_1099_1003_problem4.ipynb" and upload["routine"]


def test_totals_are_over_the_problems_graded_so_far(graded: dict[str, Path]) -> None:
    workspace = graded["workspace"]
    rows = _csv(workspace / "grades.csv")
    header, grades = rows[0], {row[0]: dict(zip(rows[0], row, strict=True)) for row in rows[1:]}
    jane, mary = grades["s001"], grades["s002"]
    assert jane["max"] == "6" and jane["total"] == "4"  # the written part (2) not graded yet
    assert jane["p4c_why"] == ""
    assert mary["problem4"] == "0" and mary["max"] == "6"  # missed it: 0 of 6
    for column in header:
        if column.startswith(("p1", "problem1", "p9", "problem9")):
            assert jane[column] == "", column  # not graded yet: empty, not 0
    text = (workspace / "report.txt").read_text()
    not_yet = "problem1, problem2, problem3, problem5, problem6, problem7, problem8, problem9"
    assert (
        f"Not graded yet (no submission of them in this workspace; in no total or maximum): {not_yet}."
        in text
    )
    summary = (workspace / "report.html").read_text()
    parts = re.findall(r"<h2>(Problem \d+) \(", summary)
    assert parts == ["Problem 4"] * 3  # the class report is over Problem 4's three parts only

    page = (workspace / "feedback" / "s001" / "index.html").read_text()
    assert (
        "Total: 4 / 6 points</strong> (2 points still to be graded by hand); over the problems"
        in page
    )
    assert page.count("<h2>Not graded yet</h2>") == 1 and "下面这些题全班都还没有评分" in page
    not_yet = page[page.index("<h2>Not graded yet</h2>") :]
    assert not_yet.count("<li>Problem ") == 8 and "Problem 4" not in not_yet


def test_lms_files_hold_only_final_grades_until_the_hand_grade_is_in(
    graded: dict[str, Path],
) -> None:
    workspace = graded["workspace"]
    canvas = _csv(workspace / "canvas_grades.csv")
    assert canvas[0][5:] == ["Problem 4: Experts (444)"]
    assert [(r[2], r[5]) for r in canvas[2:]] == [("s001", ""), ("s002", ""), ("s003", "0")]
    moodle = _csv(workspace / "moodle_grades.csv")
    assert [(r[1], r[4]) for r in moodle[1:]] == [("s001", ""), ("s002", ""), ("s003", "0")]
    text = (workspace / "report.txt").read_text()
    assert "Left blank in the LMS files, awaiting grading by hand (1; " in text
    assert "Left blank in the LMS files, no submission (1; " in text and "s002 problem4" in text

    # the TA grades Jane's written part in the sheet; the next run exports the whole problem
    rows = _csv(graded["root"] / "sheet.csv")
    for row in rows[1:]:
        if row[0] == "s001":
            row[COLUMNS.index("score")] = "2"
    filled = graded["root"] / "filled.csv"
    with filled.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows)
    args = (graded["archive"], "--roster", graded["roster"], "--out", workspace)
    run = roofline_grade(*args, "--timeout", CELL_TIMEOUT_S, "--quiet", "--manual-scores", filled)
    assert run.returncode == 0, run.stderr[-3000:]
    canvas = _csv(workspace / "canvas_grades.csv")
    assert [(r[2], r[5]) for r in canvas[2:]] == [("s001", "6"), ("s002", ""), ("s003", "0")]

    run = roofline_grade(*args, "--timeout", CELL_TIMEOUT_S, "--quiet", "--lms-zero-for-missing")
    assert run.returncode == 0, run.stderr[-3000:]
    canvas = _csv(workspace / "canvas_grades.csv")
    assert [(r[2], r[5]) for r in canvas[2:]] == [("s001", "6"), ("s002", "0"), ("s003", "0")]
    assert "Left blank in the LMS files" not in (workspace / "report.txt").read_text()
