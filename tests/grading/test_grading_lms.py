"""LMS downloads graded end to end by the real roofline-grade: Canvas with a roster, Moodle, and
downloads that cannot be graded. Few notebooks (three in all): each one costs a kernel."""

from __future__ import annotations

import csv
import json
import subprocess
import zipfile
from pathlib import Path

import nbformat
import pytest

from .conftest import CELL_TIMEOUT_S, grading_env, roofline_grade
from .grading_cases import ROOT, release_notebook, solved

pytestmark = pytest.mark.slow

ROSTER = (
    "Name,LMS ID,Student ID,Email\n"
    "Jane Doe,12345,s001,jane@uni.example\n"
    "Mary Ann Roe,23456,s002,mary@uni.example\n"
    "Li Wei,34567,s003,li@uni.example\n"
)
PROBLEM1_POINTS = "9"


def _csv(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.reader(fh))


def _grades(workspace: Path) -> dict[str, dict[str, str]]:
    with (workspace / "grades.csv").open(newline="") as fh:
        return {row["student_id"]: row for row in csv.DictReader(fh)}


@pytest.fixture(scope="module")
def canvas(tmp_path_factory: pytest.TempPathFactory, release: Path) -> tuple[Path, Path, Path]:
    """A Canvas 'Download Submissions' zip of problem 1 with stray files, and its roster.

    Jane hands in the solved notebook (once as problem1.ipynb, then again: Canvas renames the
    second upload problem1-1.ipynb); Mary Ann a blank one, late; Li Wei nothing. Around them: a
    PDF, a text entry, a student who is not in the roster and a notebook that names no problem.
    """
    root = tmp_path_factory.mktemp("canvas")
    blank = nbformat.writes(release_notebook(release, "problem1"))
    good = nbformat.writes(solved(release, "problem1"))
    archive = root / "roofline-problem_set_submissions.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("doejane_12345_1001_problem1.ipynb", blank)
        zf.writestr("doejane_12345_1007_problem1-1.ipynb", good)
        zf.writestr("roemaryann_late_23456_1002_Problem 1.ipynb", blank)
        zf.writestr("roemaryann_late_23456_1003_notes.pdf", "%PDF-1.4")
        zf.writestr("weili_34567_text.html", "<p>I could not upload</p>")
        zf.writestr("=cmd_99999_1004_problem1.ipynb", good)
        zf.writestr("doejane_12345_1005_Untitled.ipynb", good)
    roster = root / "roster.csv"
    roster.write_text(ROSTER, encoding="utf-8")
    return archive, roster, root / "workspace"


def test_a_canvas_download_with_a_roster_grades_every_student_and_lists_every_other_file(
    canvas: tuple[Path, Path, Path],
) -> None:
    archive, roster, workspace = canvas
    args = (archive, "--roster", roster, "--out", workspace, "--timeout", CELL_TIMEOUT_S)
    run = roofline_grade(*args, "--jobs", "2", "--quiet")
    assert run.returncode == 3, run.stderr[-3000:]
    # the resubmission is routine: 4 files need the instructor, and the message says what for each
    assert "4 file(s) could not be placed" in run.stderr and "--accept-unplaced" in run.stderr
    assert "2 not a notebook (open them" in run.stderr
    assert "1 not in the roster (add the student to the roster" in run.stderr
    assert "1 no problem in its name (pass --problem problemN" in run.stderr
    assert "superseded" not in run.stderr

    grades = _grades(workspace)
    assert sorted(grades) == ["s001", "s002", "s003"]
    assert grades["s001"]["problem1"] == PROBLEM1_POINTS  # the later upload was graded
    assert grades["s002"]["problem1"] == "0" and grades["s003"]["problem1"] == "0"

    report = json.loads((workspace / "report.json").read_text())
    why = {u["file"]: u["why"] for u in report["unplaced"]}
    routine = {u["file"] for u in report["unplaced"] if u["routine"]}
    assert routine == {"doejane_12345_1001_problem1.ipynb"}
    assert why == {
        "doejane_12345_1001_problem1.ipynb": "superseded",
        "roemaryann_late_23456_1003_notes.pdf": "not_notebook",
        "weili_34567_text.html": "not_notebook",
        "=cmd_99999_1004_problem1.ipynb": "not_in_roster",
        "doejane_12345_1005_Untitled.ipynb": "no_problem",
    }
    text = (workspace / "report.txt").read_text()
    assert "Files not graded, to look at (4):" in text and "Input: Canvas layout" in text
    assert "Files not graded, routine (1; earlier uploads" in text
    assert "Canvas user 99999 (=cmd) is in no roster row" in text
    assert "doejane_12345_1007_problem1-1.ipynb, a later upload, which was graded" in text
    assert "submitted late (LMS): Canvas marked 'Problem 1.ipynb' late" in text

    # The LMS grade files: the documented columns, the roster's rows, a formula never.
    rows = _csv(workspace / "canvas_grades.csv")
    assert rows[0][:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert rows[0][5:] == ["problem1"]
    assert rows[1] == ["Points Possible", "", "", "", "", PROBLEM1_POINTS]
    assert [r[:3] + r[5:] for r in rows[2:]] == [
        ["Jane Doe", "12345", "s001", PROBLEM1_POINTS],
        ["Mary Ann Roe", "23456", "s002", "0"],  # a blank notebook, graded: 0
        ["Li Wei", "34567", "s003", ""],  # no submission: blank, Canvas's "missing" stands
    ]
    moodle = _csv(workspace / "moodle_grades.csv")
    assert moodle[0] == ["Full name", "ID number", "Email address", "Username", "problem1"]
    assert moodle[1] == ["Jane Doe", "s001", "jane@uni.example", "", PROBLEM1_POINTS]

    # Accepting the unplaced files: status 0, nothing graded again, the same list.
    again = roofline_grade(*args, "--accept-unplaced", "--quiet")
    assert again.returncode == 0, again.stderr[-2000:]
    assert "0 graded now" in again.stdout and "Files not graded, to look at (4):" in again.stdout


def test_a_resubmission_is_routine_and_make_grade_accepts_unplaced_files(
    tmp_path: Path, release: Path
) -> None:
    """Jane uploads twice (Canvas renames the second problem1-1.ipynb): the run exits 0 and lists
    the first upload as superseded by the second. A second download that adds a PDF, a file no
    one can place, exits 3; `make grade ... ACCEPT_UNPLACED=1` is the same run exiting 0."""
    blank = nbformat.writes(release_notebook(release, "problem1"))
    good = nbformat.writes(solved(release, "problem1"))
    archive = tmp_path / "roofline-problem-1_submissions.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("doejane_12345_1001_problem1.ipynb", blank)
        zf.writestr("doejane_12345_1007_problem1-1.ipynb", good)
    workspace = tmp_path / "workspace"
    args = ("--out", workspace, "--timeout", CELL_TIMEOUT_S, "--quiet")
    run = roofline_grade(archive, *args)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "could not be placed" not in run.stderr
    assert _grades(workspace)["12345"]["problem1"] == PROBLEM1_POINTS  # the later upload
    (entry,) = json.loads((workspace / "report.json").read_text())["unplaced"]
    assert entry["file"] == "doejane_12345_1001_problem1.ipynb"
    assert entry["why"] == "superseded" and entry["routine"] is True
    assert (
        "doejane_12345_1007_problem1-1.ipynb, a later upload, which was graded" in entry["detail"]
    )
    text = (workspace / "report.txt").read_text()
    assert "Files not graded, routine (1; earlier uploads" in text and "to look at" not in text
    assert "1 file(s) not graded (routine: 1 superseded by a later upload)" in text

    with zipfile.ZipFile(archive, "a") as zf:
        zf.writestr("doejane_12345_1008_notes.pdf", "%PDF-1.4")
    run = roofline_grade(archive, *args)
    assert run.returncode == 3, run.stderr[-3000:]
    assert "1 file(s) could not be placed" in run.stderr and "ACCEPT_UNPLACED=1" in run.stderr
    make = subprocess.run(
        ["make", "-s", "grade", f"SUBMISSIONS={archive}", f"OUT={workspace}", "ACCEPT_UNPLACED=1"],
        cwd=ROOT,
        env=grading_env(),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert make.returncode == 0, make.stdout[-2000:] + make.stderr[-2000:]
    assert "Files not graded, to look at (1):" in make.stdout, make.stdout[-3000:]


def test_a_moodle_download_in_folders_grades_with_problem_given(
    tmp_path: Path, release: Path
) -> None:
    root = tmp_path / "moodle"
    folder = root / "Jane Doe_501_assignsubmission_file_"
    folder.mkdir(parents=True)
    nbformat.write(solved(release, "problem2"), str(folder / "Untitled.ipynb"))
    workspace = tmp_path / "workspace"
    run = roofline_grade(
        root, "--problem", "problem2", "--out", workspace, "--timeout", CELL_TIMEOUT_S, "--quiet"
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert "Input: Moodle layout; 0 file(s) not graded" in run.stdout
    grades = _grades(workspace)
    assert list(grades) == ["501"] and grades["501"]["problem2"] == "5"


def test_a_download_with_nothing_to_grade_exits_4_and_grades_nothing(tmp_path: Path) -> None:
    archive = tmp_path / "download.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("doejane_12345_1001_essay.docx", "PK")
        zf.writestr("roemaryann_23456_1002_essay.pdf", "%PDF")
    workspace = tmp_path / "workspace"
    run = roofline_grade(archive, "--out", workspace, "--quiet")
    assert run.returncode == 4, run.stderr[-2000:]
    assert "nothing to grade" in run.stderr and "Expected notebooks (.ipynb)" in run.stderr
    assert "Saw 2 file(s)" in run.stderr and "Canvas layout" in run.stderr
    assert "'doejane_12345_1001_essay.docx'" in run.stderr
    assert not (workspace / "grades.csv").exists()
    assert not list((workspace / ".roofline").glob("results/*.json"))


def test_a_hostile_moodle_download_places_every_upload_on_its_owner_or_nowhere(
    tmp_path: Path, release: Path
) -> None:
    """A Moodle download as a class can make it: two participants both named Bob Smith (one
    hands in a blank notebook), a participant not in the roster whose name holds a newline and a
    forged report line, a name that is not UTF-8, and Jane's two uploads, the blank one named
    ``problem1 (2).ipynb`` but uploaded first. Each upload is graded as its owner's or listed;
    the report has one line per entry."""
    blank = nbformat.writes(release_notebook(release, "problem1"))
    good = nbformat.writes(solved(release, "problem1"))
    archive = tmp_path / "CS101-Problem 1-77.zip"
    entries = [
        ("Jane Doe_501_assignsubmission_file_/problem1 (2).ipynb", blank, (2026, 1, 1, 9, 0, 0)),
        ("Jane Doe_501_assignsubmission_file_/problem1.ipynb", good, (2026, 1, 3, 9, 0, 0)),
        ("Bob Smith_222_assignsubmission_file_/problem1.ipynb", good, (2026, 1, 2, 9, 0, 0)),
        ("Bob Smith_333_assignsubmission_file_/problem1.ipynb", blank, (2026, 1, 2, 9, 0, 0)),
        (
            "Eve\nroofline-grade: all good_999_assignsubmission_file_/problem1.ipynb",
            blank,
            (2026, 1, 2, 9, 0, 0),
        ),
        ("Li Wei_777_assignsubmission_file_/problem1_é.ipynb", good, (2026, 1, 2, 9, 0, 0)),
    ]
    with zipfile.ZipFile(archive, "w") as zf:
        for name, text, when in entries:
            zf.writestr(zipfile.ZipInfo(name, date_time=when), text)
    data = archive.read_bytes()
    archive.write_bytes(data.replace("_é.ipynb".encode(), b"_\xff\xff.ipynb"))  # flagged UTF-8
    roster = tmp_path / "roster.csv"
    roster.write_text("Name,ID number\nJane Doe,jdoe\nBob Smith,bsmith\nLi Wei,lwei\n")
    workspace = tmp_path / "workspace"
    run = roofline_grade(
        archive, "--roster", roster, "--out", workspace, "--timeout", CELL_TIMEOUT_S, "--quiet"
    )
    assert run.returncode == 3, run.stdout[-2000:] + run.stderr[-3000:]
    grades = _grades(workspace)
    assert grades["jdoe"]["problem1"] == PROBLEM1_POINTS, "the later upload, not the suffix"
    assert grades["bsmith"]["problem1"] == "0", "neither Bob's upload is taken as bsmith's"
    assert grades["lwei"]["problem1"] == "0"
    unplaced = {
        u["why"]: u for u in json.loads((workspace / "report.json").read_text())["unplaced"]
    }
    assert set(unplaced) == {"shared_name", "not_in_roster", "bad_name", "superseded"}
    assert "LMS ids 222, 333" in unplaced["shared_name"]["detail"]
    assert unplaced["superseded"]["file"].endswith("problem1 (2).ipynb")
    for shown in (run.stdout, (workspace / "report.txt").read_text()):
        lines = shown.splitlines()
        assert sum(line.startswith("roofline-grade:") for line in lines) == 1, shown[-3000:]
        assert "Eve\\nroofline-grade: all good" in shown
