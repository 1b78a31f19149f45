"""A student id as long as a folder name can be reaches every output: grading, grades.csv, the
feedback pages and zips, the hand-grading sheet and its scores, and the release to nbgrader's
exchange (roofline_grader.names.file_name names every file after a student).

Two students hand in Problem 4 in nbgrader's layout: one whose id is a 250-byte folder name (the
longest a file system takes leaves no room for ``.zip.part``), one whose id is 84 Chinese
characters (252 bytes in UTF-8). Their uploaded notebooks have names as long as a file's can be.
And the class: an output that cannot be written for one student costs that output alone.
"""

from __future__ import annotations

import csv
import json
import zipfile
from pathlib import Path

import nbformat
import pytest

from roofline_grader.course.config import COURSE_ID
from roofline_grader.handgrading.manual import COLUMNS
from roofline_grader.names import FILE_NAME_BYTES, file_name

from .conftest import CELL_TIMEOUT_S, roofline_grade
from .grading_cases import solved

pytestmark = pytest.mark.slow

LONG_ASCII = "s" + "x" * 248 + "9"
LONG_CHINESE = "学" * 84
UPLOAD = "problem4-" + "copy" * 60  # with .ipynb, as long as a file name can be


def _class(root: Path, release: Path) -> Path:
    submissions = root / "submitted"
    for student in (LONG_ASCII, LONG_CHINESE):
        folder = submissions / student / "problem4"
        folder.mkdir(parents=True)
        nbformat.write(solved(release, "problem4"), str(folder / f"{UPLOAD}.ipynb"))
        (folder / "timestamp.txt").write_text("2026-12-01 10:00:00.000000 UTC")
        (folder / "submission_secret.txt").write_text(f"secret-{len(student)}")
    return submissions


def test_the_name_function_keeps_room_for_every_suffix() -> None:
    for student in (LONG_ASCII, LONG_CHINESE, "..", "a/b", "a\\b", "x\ny", ".hidden", "ok"):
        name = file_name(student)
        assert len(name.encode()) <= FILE_NAME_BYTES, student
        assert "/" not in name and "\\" not in name and name.isprintable() and name[0] != "."
        assert len((name + ".zip.part").encode()) <= 255
    assert file_name("ok") == "ok"
    assert file_name(LONG_ASCII) != file_name(LONG_ASCII[:-1] + "8")


def test_every_output_step_takes_an_id_as_long_as_a_folder_name(
    tmp_path: Path, release: Path
) -> None:
    submissions = _class(tmp_path, release)
    workspace, exchange = tmp_path / "workspace", tmp_path / "exchange"
    exchange.mkdir()
    sheet = tmp_path / "sheet.csv"
    args = (submissions, "--out", workspace, "--timeout", CELL_TIMEOUT_S, "--quiet")
    release_args = ("--release-feedback", "--exchange", exchange)
    run = roofline_grade(*args, *release_args, "--manual-sheet", sheet)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    assert (workspace / "report.txt").is_file() and (workspace / "report.json").is_file()
    with (workspace / "grades.csv").open(newline="", encoding="utf-8") as fh:
        grades = {row["student_id"]: row for row in csv.DictReader(fh)}
    assert set(grades) == {LONG_ASCII, LONG_CHINESE}
    # nbgrader's layout makes every problem a task; those no one handed in are not graded yet
    assert {row["max"] for row in grades.values()} == {"6"}
    assert (
        "Not graded yet (no submission of them in this workspace; in no total or maximum): "
        + ("problem1, problem2, problem3, problem5, problem6, problem7, problem8, problem9.")
        in (workspace / "report.txt").read_text()
    )
    assert "Missing notebooks" not in (workspace / "report.txt").read_text()
    for student in (LONG_ASCII, LONG_CHINESE):
        name = file_name(student)
        assert (workspace / "feedback" / name / "index.html").is_file()
        assert (workspace / "feedback" / name / "problem4" / "problem4.html").is_file()
        with zipfile.ZipFile(workspace / "feedback-zips" / f"{name}.zip") as zf:
            assert sorted(zf.namelist()) == [f"{name}/index.html", f"{name}/problem4.html"]
    report = json.loads((workspace / "report.json").read_text())
    assert report["output_failures"] == []
    assert report["feedback_release"]["not_released"] == []
    assert len(list((exchange / COURSE_ID / "feedback").glob("*.html"))) == 2

    # hand scores for both, through the sheet the run wrote
    with sheet.open(newline="", encoding="utf-8-sig") as fh:
        rows = list(csv.reader(fh))
    for row in rows[1:]:
        row[COLUMNS.index("score")] = "2"
    filled = tmp_path / "filled.csv"
    with filled.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows)
    run = roofline_grade(*args, "--manual-scores", filled)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    with (workspace / "grades.csv").open(newline="", encoding="utf-8") as fh:
        totals = {row["student_id"]: row["total"] for row in csv.DictReader(fh)}
    assert totals == {LONG_ASCII: "6", LONG_CHINESE: "6"}


def test_an_output_that_cannot_be_written_costs_that_output_alone(
    tmp_path: Path, release: Path
) -> None:
    """A feedback zip that cannot be written (its name is taken by a folder) for one student: the
    other's zip, every grade and report.txt/report.json are written, and the run exits 6."""
    submissions = _class(tmp_path, release)
    workspace = tmp_path / "workspace"
    blocked = workspace / "feedback-zips" / f"{file_name(LONG_CHINESE)}.zip.part"
    blocked.mkdir(parents=True)
    run = roofline_grade(submissions, "--out", workspace, "--timeout", CELL_TIMEOUT_S, "--quiet")
    assert run.returncode == 6, run.stdout[-2000:] + run.stderr[-3000:]
    assert "1 output(s) could not be written" in run.stderr
    text = (workspace / "report.txt").read_text()
    assert "Outputs not written (1; the rest were):" in text and "feedback zip" in text
    (failure,) = json.loads((workspace / "report.json").read_text())["output_failures"]
    assert failure["student"] == LONG_CHINESE and failure["output"] == "feedback zip"
    assert (workspace / "feedback-zips" / f"{file_name(LONG_ASCII)}.zip").is_file()
