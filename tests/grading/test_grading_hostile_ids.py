"""Every id the intake accepts survives the whole loop, twice: grade, hand-grading sheet, hand
scores, feedback pages and zips, release to the exchange, and a rerun of all of it.

The class hands in Problem 4 in nbgrader's layout, each folder name an id that once broke an output:
``x.html`` (its feedback folder crashed every later run), ``'-apostrophe`` (read back from the sheet
without its apostrophe), a 255-byte id (the longest folder name), a newline (a forged line in
report.txt), a right-to-left override, Windows' device name ``CON``, markup, ``..\\..\\x`` (a zip
entry escaping its folder on Windows), a spreadsheet formula, and two ids that differ only in case.
The ids are kept exactly in the gradebook, grades.csv, report.json and the sheet; shown on one line
and escaped; and every file named after them is a plain name on Linux, macOS and Windows
(roofline_grader.names).
"""

from __future__ import annotations

import csv
import json
import zipfile
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from roofline_grader.course.config import COURSE_ID
from roofline_grader.handgrading.manual import COLUMNS
from roofline_grader.names import file_names, is_plain_file_name, spreadsheet_value

from .conftest import CELL_TIMEOUT_S, roofline_grade
from .grading_cases import solved

pytestmark = pytest.mark.slow

IDS = (
    "x.html",
    "'-apostrophe",
    "s" + "y" * 254,
    "new\nroofline-grade: all good",
    "bidi\u202etxt.exe",
    "CON",
    "<img src=x onerror=alert(1)>",
    "..\\..\\x",
    '=HYPERLINK("x")',
    "Bob",
    "bob",
)
HAND_SCORE = "1.5"


def _class(root: Path, release: Path) -> Path:
    submissions = root / "submitted"
    for number, student in enumerate(IDS):
        folder = submissions / student / "problem4"
        folder.mkdir(parents=True)
        # the newline's notebook is misnamed, so that the report names its student
        upload = "problem4-Copy1.ipynb" if "\n" in student else "problem4.ipynb"
        nbformat.write(solved(release, "problem4"), str(folder / upload))
        (folder / "timestamp.txt").write_text("2026-12-01 10:00:00.000000 UTC")
        (folder / "submission_secret.txt").write_text(f"secret-{number:03d}")
    return submissions


def _csv(path: Path, encoding: str = "utf-8") -> list[list[str]]:
    with path.open(newline="", encoding=encoding) as fh:
        return list(csv.reader(fh))


def _check_outputs(workspace: Path, exchange: Path, stdout: str) -> None:
    rows = _csv(workspace / "grades.csv")
    ids = [spreadsheet_value(row[0]) for row in rows[1:]]
    assert sorted(ids) == sorted(IDS), "every id in grades.csv, exactly"
    assert not [c for row in rows for c in row if c.startswith(("=", "+", "@"))], "no formula"

    report = json.loads((workspace / "report.json").read_text())
    assert sorted(report["students"]) == sorted(IDS)
    assert report["output_failures"] == [] and report["feedback_release"]["not_released"] == []
    text = (workspace / "report.txt").read_text()
    for shown in (text, stdout):
        lines = shown.splitlines()
        assert sum(line.startswith("roofline-grade:") for line in lines) == 1, "a forged line"
        assert "\u202e" not in shown and "\r" not in shown
    assert "  new\\nroofline-grade: all good / problem4 (scored" in text, "on one line, \\n shown"

    names = file_names(IDS)
    assert len({n.casefold() for n in names.values()}) == len(IDS)
    for student, name in names.items():
        assert is_plain_file_name(name), name
        page = workspace / "feedback" / name / "index.html"
        html = page.read_text()
        assert "<img src=x" not in html and "\u202e" not in html
        assert (workspace / "feedback" / name / "problem4" / "problem4.html").is_file()
        with zipfile.ZipFile(workspace / "feedback-zips" / f"{name}.zip") as zf:
            entries = zf.namelist()
        assert sorted(entries) == [f"{name}/index.html", f"{name}/problem4.html"], student
        assert not any("\\" in e or ".." in e.split("/") or ":" in e for e in entries)
    assert sorted(p.name for p in (workspace / "feedback").iterdir()) == sorted(names.values())
    released = list((exchange / COURSE_ID / "feedback").glob("*.html"))
    assert len(released) == len(IDS)


def test_every_id_survives_grading_hand_scores_and_release_twice(
    tmp_path: Path, release: Path
) -> None:
    submissions = _class(tmp_path, release)
    workspace, exchange, sheet = tmp_path / "ws", tmp_path / "exchange", tmp_path / "sheet.csv"
    exchange.mkdir()
    exchange.chmod(0o1777)
    args = (submissions, "--out", workspace, "--timeout", CELL_TIMEOUT_S, "--quiet")
    release_args = ("--release-feedback", "--exchange", exchange)
    for loop in (1, 2):
        run = roofline_grade(*args, *release_args, "--manual-sheet", sheet)
        assert run.returncode == 0, f"loop {loop}:\n{run.stdout[-2000:]}{run.stderr[-3000:]}"
        _check_outputs(workspace, exchange, run.stdout)

        rows = _csv(sheet, "utf-8-sig")
        header = rows[0]
        assert header == list(COLUMNS)
        assert sorted(spreadsheet_value(r[0]) for r in rows[1:]) == sorted(IDS), "every id"
        for row in rows[1:]:
            row[header.index("score")] = HAND_SCORE
        filled = tmp_path / f"filled-{loop}.csv"
        with filled.open("w", newline="", encoding="utf-8") as fh:
            csv.writer(fh).writerows(rows)
        run = roofline_grade(*args, *release_args, "--manual-scores", filled)
        assert run.returncode == 0, f"loop {loop}:\n{run.stdout[-2000:]}{run.stderr[-3000:]}"
        _check_outputs(workspace, exchange, run.stdout)
        with Gradebook(f"sqlite:///{workspace / 'gradebook.db'}", course_id=COURSE_ID) as gb:
            for student in IDS:
                grade = gb.find_grade("p4c_why", "problem4", "problem4", student)
                assert grade.manual_score == float(HAND_SCORE), repr(student)
        totals = {spreadsheet_value(r[0]): r[-2] for r in _csv(workspace / "grades.csv")[1:]}
        assert set(totals.values()) == {"5.5"}, totals  # 4 automatic points and the hand score
