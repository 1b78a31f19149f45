"""LMS downloads without grading: the names Canvas and Moodle write, the roster, where each file goes.

Pure and fast (no kernel): the end-to-end runs are in test_grading_lms.py.
"""

from __future__ import annotations

import os
import subprocess
import zipfile
from pathlib import Path

import pytest

from roofline_grader.checks import PROBLEMS
from roofline_grader.course.cells import CellInfo, ReleaseIndex
from roofline_grader.intake.discover import IntakeError, NothingToGradeError, Why, discover
from roofline_grader.intake.lms import (
    Layout,
    name_keys,
    parse_canvas,
    parse_moodle,
    printable,
    problem_of,
    safe_student_id,
)
from roofline_grader.intake.roster import RosterError, read_roster
from roofline_grader.outputs.exports import blank_cells, canvas_rows, moodle_rows
from roofline_grader.outputs.standing import PartScore, ProblemStanding, Standing, State
from roofline_grader.results import ProblemKind

from .tiny_notebooks import check_cell

CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
ASSIGNMENTS = tuple(PROBLEMS)  # the course's problems, from the checks registry


def touch(path: Path, text: str = "{}", mtime: float | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def roster_file(tmp_path: Path, text: str) -> Path:
    return touch(tmp_path / "roster.csv", text)


ROSTER = (
    "Name,LMS ID,Student ID,Email\n"
    "Jane Doe,12345,s001,jane@uni.example\n"
    "Mary Ann Roe,23456,s002,mary@uni.example\n"
    "Li Wei,34567,s003,li@uni.example\n"
)


# ---- names ----


def test_canvas_names_give_user_id_late_and_original_name() -> None:
    named = parse_canvas("doejane_late_12345_987654_problem1-1.ipynb")
    assert named is not None and named.layout is Layout.CANVAS
    assert (named.name, named.lms_id, named.late, named.attachment_id) == (
        "doejane",
        "12345",
        True,
        987654,
    )
    assert named.original == "problem1-1.ipynb"
    anonymous = parse_canvas("12345_987654_Untitled.ipynb")
    assert anonymous is not None and anonymous.name is None and anonymous.lms_id == "12345"
    assert parse_canvas("alice_problem1.ipynb") is None


def test_moodle_names_in_folders_and_flat() -> None:
    folder = parse_moodle(("Jane Doe_1234567_assignsubmission_file_", "Problem 1.ipynb"))
    flat = parse_moodle(("Jane Doe_1234567_assignsubmission_file_Problem 1.ipynb",))
    for named in (folder, flat):
        assert named is not None and named.layout is Layout.MOODLE
        assert (named.name, named.lms_id, named.original) == (
            "Jane Doe",
            "1234567",
            "Problem 1.ipynb",
        )
    assert parse_moodle(("jane", "problem1.ipynb")) is None


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("problem1.ipynb", "problem1"),
        ("Problem 1.ipynb", "problem1"),
        ("problem_1 (2).ipynb", "problem1"),
        ("problem1-1.ipynb", "problem1"),
        ("PROBLEM-03-Copy1.ipynb", "problem3"),
        ("hw_problem6_final.ipynb", "problem6"),
        ("cs101-problem-2_submissions", "problem2"),
        ("Untitled.ipynb", None),
        ("problem11.ipynb", None),
        ("problem1_and_problem2.ipynb", None),
    ],
)
def test_the_problem_comes_from_the_name_leniently(name: str, problem: str | None) -> None:
    assert problem_of(name, ASSIGNMENTS) == problem


def test_untrusted_names_become_safe_ids() -> None:
    assert safe_student_id("../../etc") == "etc"
    assert safe_student_id("José García") == "José_García"
    assert safe_student_id("...") is None
    long = safe_student_id("a" * 300)
    assert long is not None and len(long) == 64 and long != safe_student_id("a" * 299 + "b")
    assert printable("evil\nroofline-grade: all good") == "evil\\nroofline-grade: all good"


def test_a_name_matches_in_either_order() -> None:
    assert "doejane" in name_keys("Jane Doe") and name_keys("Doe, Jane") & name_keys("doejane")
    assert name_keys("Mary Ann Roe") & name_keys("roemaryann")


# ---- roster ----


def test_a_canvas_gradebook_export_is_a_roster(tmp_path: Path) -> None:
    path = roster_file(
        tmp_path,
        "Student,ID,SIS User ID,SIS Login ID,Section,Problem 1 (111)\n"
        "    Points Possible,,,,,9\n"
        '"Doe, Jane",12345,s001,jdoe,Sec A,7\n',
    )
    roster = read_roster(path)
    (jane,) = roster.students
    assert (jane.student_id, jane.lms_id, jane.name, jane.login, jane.section) == (
        "s001",
        "12345",
        "Doe, Jane",
        "jdoe",
        "Sec A",
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Name,Email\nJane,j@x\n", "no student id column"),
        ("Student ID,Name\ns1,A\ns1,B\n", "rows 2 and 3 have one student id"),
        ("Student ID,Name\n../x,A\n", "cannot name a folder"),
        ("Student ID\n", "a header and no students"),
    ],
)
def test_a_bad_roster_says_what_is_wrong(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(RosterError, match=message):
        read_roster(roster_file(tmp_path, text))


# ---- intake ----


def by_task(intake) -> dict:
    return {(t.student, t.assignment): t for t in intake.tasks}


def test_a_canvas_download_with_a_roster_is_placed_by_user_id(tmp_path: Path) -> None:
    archive = tmp_path / "cs101-roofline_submissions.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("doejane_12345_100_problem1.ipynb", "{}")
        zf.writestr("doejane_12345_101_Problem 2.ipynb", "{}")
        zf.writestr("roemaryann_late_23456_102_problem1.ipynb", "{}")
        zf.writestr("roemaryann_late_23456_109_problem1-1.ipynb", "{}")  # the later upload
        zf.writestr("roemaryann_23456_text.html", "<p>hi</p>")
        zf.writestr("stranger_99999_103_problem1.ipynb", "{}")
        zf.writestr("doejane_12345_104_notes.pdf", "%PDF")
        zf.writestr("weili_34567_105_Untitled.ipynb", "{}")
    roster = read_roster(roster_file(tmp_path, ROSTER))
    intake = discover(archive, ASSIGNMENTS, tmp_path / "x", roster=roster)
    assert intake.layout == "Canvas"
    tasks = by_task(intake)
    assert intake.students == ("s001", "s002", "s003")
    assert sorted({a for _, a in tasks}) == ["problem1", "problem2"]
    assert tasks[("s001", "problem2")].notebook.endswith("Problem 2.ipynb")
    assert tasks[("s002", "problem1")].notebook.endswith("_109_problem1-1.ipynb")
    assert tasks[("s003", "problem1")].notebook is None  # missing, scores 0
    why = {u.file: u.why for u in intake.unplaced}
    assert why == {
        "roemaryann_late_23456_102_problem1.ipynb": Why.SUPERSEDED,
        "roemaryann_23456_text.html": Why.NOT_NOTEBOOK,
        "stranger_99999_103_problem1.ipynb": Why.NOT_IN_ROSTER,
        "doejane_12345_104_notes.pdf": Why.NOT_NOTEBOOK,
        "weili_34567_105_Untitled.ipynb": Why.NO_PROBLEM,
    }
    detail = {u.file: u.detail for u in intake.unplaced}
    assert (
        "_109_problem1-1.ipynb, a later upload, which was graded"
        in detail["roemaryann_late_23456_102_problem1.ipynb"]
    )
    assert "pass --problem problemN" in detail["weili_34567_105_Untitled.ipynb"]


def test_without_a_roster_the_canvas_user_id_is_the_student(tmp_path: Path) -> None:
    root = tmp_path / "in"
    touch(root / "doejane_12345_100_problem1.ipynb")
    intake = discover(root, ASSIGNMENTS, tmp_path / "x")
    assert intake.students == ("12345",) and [t.assignment for t in intake.tasks] == ["problem1"]


def test_a_moodle_download_in_folders_and_flat(tmp_path: Path) -> None:
    root = tmp_path / "in"
    touch(root / "Jane Doe_501_assignsubmission_file_" / "problem3.ipynb")
    touch(root / "Li Wei_502_assignsubmission_file_" / "sub" / "Problem 3.ipynb")
    touch(root / "Mary Ann Roe_503_assignsubmission_file_problem3.ipynb")
    touch(root / "Mary Ann Roe_503_assignsubmission_onlinetext_" / "onlinetext.html")
    roster = read_roster(roster_file(tmp_path, ROSTER))
    intake = discover(root, ASSIGNMENTS, tmp_path / "x", roster=roster)
    assert intake.layout == "Moodle"
    tasks = by_task(intake)
    assert all(tasks[(s, "problem3")].notebook for s in ("s001", "s002", "s003"))
    assert [u.why for u in intake.unplaced] == [Why.NOT_NOTEBOOK]


def test_generic_flat_names_and_names_that_collide(tmp_path: Path) -> None:
    root = tmp_path / "in"
    touch(root / "alice_problem1.ipynb")
    touch(root / "problem2_alice.ipynb")
    touch(root / "bob" / "Untitled.ipynb")
    touch(root / "a?b_problem1.ipynb")
    touch(root / "a*b_problem1.ipynb")
    touch(root / "_problem1.ipynb")
    intake = discover(root, ASSIGNMENTS, tmp_path / "x")
    tasks = by_task(intake)
    assert tasks[("alice", "problem1")].notebook and tasks[("alice", "problem2")].notebook
    twins = [s for s in intake.students if s.startswith("a_b-")]
    assert len(twins) == 2, intake.students  # one safe name, two students: told apart
    why = {u.file: u.why for u in intake.unplaced}
    assert why == {"_problem1.ipynb": Why.NO_STUDENT, "bob/Untitled.ipynb": Why.NO_PROBLEM}


def test_problem_option_and_a_folder_of_downloads(tmp_path: Path) -> None:
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    for n, aid in ((1, 200), (2, 300)):
        with zipfile.ZipFile(downloads / f"cs101-problem-{n}_submissions.zip", "w") as zf:
            zf.writestr(f"doejane_12345_{aid}_Untitled.ipynb", "{}")
    intake = discover(downloads, ASSIGNMENTS, tmp_path / "x")
    tasks = by_task(intake)
    assert tasks[("12345", "problem1")].notebook and tasks[("12345", "problem2")].notebook
    assert intake.unplaced == ()

    single = tmp_path / "one"
    touch(single / "doejane_12345_100_Untitled.ipynb")
    touch(single / "roemaryann_23456_101_problem4.ipynb")
    intake = discover(single, ASSIGNMENTS, tmp_path / "x", problem="problem5")
    tasks = by_task(intake)
    assert {a for _, a in tasks} == {"problem5"}
    assert tasks[("23456", "problem5")].problems[0].kind is ProblemKind.MISNAMED_NOTEBOOK
    with pytest.raises(IntakeError, match="--problem 'problem99' is not one of problem1"):
        discover(single, ASSIGNMENTS, tmp_path / "x", problem="problem99")


def test_the_later_of_two_moodle_uploads_is_told_by_its_time(tmp_path: Path) -> None:
    root = tmp_path / "in"
    folder = root / "Jane Doe_501_assignsubmission_file_"
    touch(folder / "problem1.ipynb", mtime=2_000_000_000)
    touch(folder / "Problem 1 final.ipynb", mtime=1_000_000_000)
    intake = discover(root, ASSIGNMENTS, tmp_path / "x")
    assert by_task(intake)[("501", "problem1")].notebook.endswith("/problem1.ipynb")
    assert [u.why for u in intake.unplaced] == [Why.SUPERSEDED]


def test_nothing_gradable_names_what_was_seen(tmp_path: Path) -> None:
    archive = tmp_path / "wrong.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("doejane_12345_100_report.pdf", "%PDF")
        zf.writestr("roemaryann_23456_101_report.pdf", "%PDF")
        zf.writestr("weili_34567_text.html", "<p>")
    with pytest.raises(NothingToGradeError) as info:
        discover(archive, ASSIGNMENTS, tmp_path / "x")
    message = str(info.value)
    assert "Saw 3 file(s)" in message and "2 .pdf, 1 .html" in message
    assert "Canvas layout" in message and "'doejane_12345_100_report.pdf'" in message
    assert "nbgrader's <student>/<problemN>/<problemN>.ipynb" in message
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(NothingToGradeError, match="Saw no files at all"):
        discover(empty, ASSIGNMENTS, tmp_path / "x")


def test_a_name_too_long_for_the_file_system_is_shortened_and_still_placed(
    tmp_path: Path,
) -> None:
    archive = tmp_path / "download.zip"
    long_name = "doejane_12345_100_" + "Ü" * 200 + "_problem4.ipynb"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr(long_name, "{}")
        zf.writestr("doejane_12345_101_" + "x" * 300 + ".ipynb", "{}")
    intake = discover(archive, ASSIGNMENTS, tmp_path / "x")
    task = by_task(intake)[("12345", "problem4")]
    assert task.notebook and len(Path(task.notebook).name.encode()) <= 255
    (unplaced,) = intake.unplaced
    assert unplaced.why is Why.NO_PROBLEM and len(unplaced.file) <= 160


def test_nbgrader_layout_lists_loose_files_and_zip_links(tmp_path: Path) -> None:
    archive = tmp_path / "subs.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("ann/problem1/problem1.ipynb", "{}")
        zf.writestr("README.txt", "hello")
        link = zipfile.ZipInfo("ann/problem2")
        link.external_attr = (0o120777 << 16) | 0
        zf.writestr(link, "/etc")
    intake = discover(archive, ASSIGNMENTS, tmp_path / "x")
    assert intake.layout == "nbgrader" and len(intake.tasks) == len(ASSIGNMENTS)
    assert {(u.file, u.why) for u in intake.unplaced} == {
        ("README.txt", Why.OUTSIDE),
        ("ann/problem2", Why.LINK),
    }


def test_with_a_roster_nbgrader_folders_are_matched_to_its_ids(tmp_path: Path) -> None:
    root = tmp_path / "in"
    touch(root / "jane" / "problem1" / "problem1.ipynb")  # by the email's local part
    touch(root / "s002" / "problem1" / "problem1.ipynb")
    touch(root / "mallory" / "problem1" / "problem1.ipynb")
    roster = read_roster(roster_file(tmp_path, ROSTER))
    intake = discover(root, ASSIGNMENTS, tmp_path / "x", roster=roster)
    assert intake.students == ("s001", "s002", "s003")
    assert by_task(intake)[("s001", "problem1")].notebook.endswith("jane/problem1/problem1.ipynb")
    assert [(u.file, u.why) for u in intake.unplaced] == [("mallory/", Why.NOT_IN_ROSTER)]


# ---- exports ----


def _check(grade_id: str, points: float) -> CellInfo:
    """A release's check cell worth ``points``."""
    return CellInfo.of(check_cell(grade_id, points))


def _standing(student: str, *problems: tuple[str, State, tuple[float | None, ...]]) -> Standing:
    """A student's standing: per problem, its state and its parts' scores (each part worth 5)."""
    return Standing(
        student,
        tuple(
            ProblemStanding(a, state, tuple(PartScore(f"{a}{i}", 5, x) for i, x in enumerate(xs)))
            for a, state, xs in problems
        ),
    )


def test_lms_exports_have_the_documented_columns_and_only_final_grades(tmp_path: Path) -> None:
    roster = read_roster(
        roster_file(
            tmp_path,
            ROSTER + '=HYPERLINK("x"),45678,s004,evil@uni.example\n' + "No Sis,56789,,\n",
        )
    )
    index = ReleaseIndex(
        (
            ("problem1", (_check("p1a", 2), _check("p1b", 7))),
            ("problem2", (_check("p2a", 5),)),
        )
    )
    graded, missing, waiting = State.GRADED, State.MISSING, State.AWAITING_HAND
    standings = {
        "s001": _standing("s001", ("problem1", graded, (2, 5)), ("problem2", graded, (5,))),
        "s002": _standing("s002", ("problem1", missing, (0, 0)), ("problem2", graded, (0,))),
        "s003": _standing("s003", ("problem1", waiting, (2, None)), ("problem2", missing, (0,))),
        "ghost": _standing("ghost", ("problem1", graded, (2, 7)), ("problem2", graded, (5,))),
    }
    canvas = canvas_rows(roster, standings, index)
    assert canvas[0] == [*CANVAS_COLUMNS, "problem1", "problem2"]
    assert canvas[1] == ["Points Possible", "", "", "", "", "9", "5"]
    assert canvas[2] == ["Jane Doe", "12345", "s001", "", "", "7", "5"]
    # no submission: blank, not 0; a graded 0 stays 0; a hand grade still to come: blank
    assert canvas[3][2:] == ["s002", "", "", "", "0"]
    assert canvas[4][2:] == ["s003", "", "", "", ""]
    assert [r[2] for r in canvas[2:]] == ["s001", "s002", "s003", "s004", ""]  # no ghost
    assert canvas[6][:3] == ["No Sis", "56789", ""]  # no SIS id in the roster: none made up
    zeros = canvas_rows(roster, standings, index, zero_for_missing=True)
    assert zeros[3][5:] == ["0", "0"] and zeros[4][5:] == ["", "0"]
    moodle = moodle_rows(roster, standings, index)
    assert moodle[0] == [
        "Full name",
        "ID number",
        "Email address",
        "Username",
        "problem1",
        "problem2",
    ]
    assert moodle[1] == ["Jane Doe", "s001", "jane@uni.example", "", "7", "5"]
    blanks = blank_cells(roster, standings, ["problem1", "problem2"])
    assert [(b.student, b.assignment, b.state) for b in blanks] == [
        ("s002", "problem1", missing),
        ("s003", "problem1", waiting),
        ("s003", "problem2", missing),
        ("s004", "problem1", missing),
        ("s004", "problem2", missing),
        ("56789", "problem1", missing),
        ("56789", "problem2", missing),
    ]


def test_a_canvas_export_as_roster_lends_its_assignment_titles(tmp_path: Path) -> None:
    roster = read_roster(
        roster_file(
            tmp_path,
            "Student,ID,SIS User ID,SIS Login ID,Section,Problem 1: An int8 matmul (111),"
            "Problem 11 (222),Quiz (333),Current Score\n"
            '"Doe, Jane",12345,s001,jdoe,Sec A,7,,,\n',
        )
    )
    index = ReleaseIndex(tuple((a, (_check(f"{a}x", 9),)) for a in ASSIGNMENTS))
    standings = {"s001": _standing("s001", *((a, State.GRADED, (4.5, 4.5)) for a in ASSIGNMENTS))}
    canvas = canvas_rows(roster, standings, index, ["problem1", "problem2"])
    assert canvas[0] == [*CANVAS_COLUMNS, "Problem 1: An int8 matmul (111)", "problem2"]
    assert canvas[2][-2:] == ["9", "9"]


def test_canvas_test_student_and_marked_rows_are_left_out_of_the_roster(tmp_path: Path) -> None:
    roster = read_roster(
        roster_file(
            tmp_path,
            "Student,ID,SIS User ID,SIS Login ID,Section,Exclude\n"
            '"Doe, Jane",12345,s001,jdoe,Sec A,\n'
            '"Student, Test",1099,,6e0f2a,Sec A,\n'
            '"Assistant, Tea",2001,ta1,tea,Sec A,yes\n'
            '"Test, Student",3003,s003,stest,Sec A,\n',  # a real student with an SIS id
        )
    )
    assert [s.student_id for s in roster.students] == ["s001", "s003"]
    assert [(r.student.lms_id, r.reason.split(" ")[0]) for r in roster.left_out] == [
        ("1099", "Canvas's"),
        ("2001", "marked"),
    ]
    assert roster.left_out_row("1099", None) is roster.left_out[0]
    assert roster.left_out_row(None, "studenttest") is roster.left_out[0]
    assert roster.left_out_row("ta1", None) is roster.left_out[1]
    assert roster.left_out_row("12345", "Jane Doe") is None


def test_the_readme_lms_example_passes_the_roster_to_roofline_grade() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    line = next(x for x in readme.splitlines() if x.startswith("make grade") and "ROSTER=" in x)
    done = subprocess.run(
        ["make", "-n", *line.split("#")[0].split()[1:]],
        cwd=Path(__file__).resolve().parents[2],
        env={k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    command = next(x for x in done.stdout.splitlines() if "bin/roofline-grade" in x)
    assert '--roster "roster.csv"' in command, command


# ---- every upload lands on its owner ----


def test_two_participants_with_one_name_are_never_placed_by_it(tmp_path: Path) -> None:
    # Moodle: Bob Smith (222) handed in his work, another Bob Smith (333) a blank notebook; the
    # roster knows one bsmith, by name only. Matching by name would grade 333's as bsmith's.
    root = tmp_path / "in"
    touch(root / "Bob Smith_222_assignsubmission_file_" / "problem1.ipynb", "{'own': 1}")
    touch(root / "Bob Smith_333_assignsubmission_file_" / "problem1.ipynb", "{}")
    touch(root / "Jane Doe_444_assignsubmission_file_" / "problem1.ipynb")
    roster = read_roster(
        roster_file(tmp_path, "Name,Student ID\nBob Smith,bsmith\nJane Doe,s001\n")
    )
    intake = discover(root, ASSIGNMENTS, tmp_path / "x", roster=roster)
    tasks = by_task(intake)
    assert tasks[("s001", "problem1")].notebook
    assert tasks[("bsmith", "problem1")].notebook is None, "neither upload is taken as bsmith's"
    shared = [u for u in intake.unplaced if u.why is Why.SHARED_NAME]
    assert len(shared) == 2 and not Why.SHARED_NAME.routine
    assert all("LMS ids 222, 333" in u.detail and "'Bob Smith'" in u.detail for u in shared)
    assert not [u for u in intake.unplaced if u.why is Why.SUPERSEDED]

    # with each one's LMS id in the roster, each upload lands on its owner
    roster = read_roster(
        roster_file(
            tmp_path, "Name,LMS ID,Student ID\nBob Smith,222,bsmith\nBob Smith,333,bsmith2\n"
        )
    )
    tasks = by_task(discover(root, ASSIGNMENTS, tmp_path / "y", roster=roster))
    assert tasks[("bsmith", "problem1")].notebook.endswith(
        "Bob Smith_222_assignsubmission_file_/problem1.ipynb"
    )
    assert tasks[("bsmith2", "problem1")].notebook.endswith(
        "_333_assignsubmission_file_/problem1.ipynb"
    )


@pytest.mark.parametrize("layout", ["moodle", "generic"])
def test_the_later_upload_wins_over_a_name_suffix(tmp_path: Path, layout: str) -> None:
    # problem1 (2).ipynb uploaded first (blank), problem1.ipynb last (honest): the README says
    # the later upload is graded; the suffix only breaks a tie of times
    root = tmp_path / "in"
    # Moodle's folder per participant; a generic flat zip's <student>_<problem> names
    folder = root / "Jane Doe_501_assignsubmission_file_" if layout == "moodle" else root
    prefix = "" if layout == "moodle" else "jane_"
    touch(folder / f"{prefix}problem1 (2).ipynb", mtime=1_000_000_000)
    touch(folder / f"{prefix}problem1.ipynb", mtime=1_000_200_000)
    touch(folder / f"{prefix}problem2.ipynb", mtime=1_000_000_000)
    touch(folder / f"{prefix}problem2-1.ipynb", mtime=1_000_000_000)  # a tie: the suffix decides
    intake = discover(root, ASSIGNMENTS, tmp_path / "x")
    student = "501" if layout == "moodle" else "jane"
    tasks = by_task(intake)
    assert tasks[(student, "problem1")].notebook.endswith(f"/{prefix}problem1.ipynb")
    assert tasks[(student, "problem2")].notebook.endswith(f"/{prefix}problem2-1.ipynb")
    superseded = sorted(Path(u.file).name for u in intake.unplaced if u.why is Why.SUPERSEDED)
    assert superseded == [f"{prefix}problem1 (2).ipynb", f"{prefix}problem2.ipynb"]


def _zip_with_a_bad_name(archive: Path) -> None:
    """A Canvas download whose second entry's name is flagged UTF-8 (as a non-ASCII name is) and
    holds the bytes 0xFF 0xFF, which no UTF-8 text has."""
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("doejane_12345_100_problem1.ipynb", "{}")
        zf.writestr("roemaryann_23456_101_problem1_é.ipynb", "{}")
        zf.writestr("weili_34567_102_problem1.ipynb", "{}")
    data = archive.read_bytes()
    assert data.count("_é.ipynb".encode()) == 2  # the local header and the central directory
    archive.write_bytes(data.replace("_é.ipynb".encode(), b"_\xff\xff.ipynb"))


def test_a_zip_entry_whose_name_is_not_utf8_is_reported_and_the_rest_graded(tmp_path: Path) -> None:
    archive = tmp_path / "cs101-problem-1_submissions.zip"
    _zip_with_a_bad_name(archive)
    with pytest.raises(UnicodeDecodeError):
        zipfile.ZipFile(archive)  # what Python's zipfile does with it
    intake = discover(archive, ASSIGNMENTS, tmp_path / "x")
    assert set(intake.students) == {"12345", "34567"}
    [bad] = intake.unplaced
    assert bad.why is Why.BAD_NAME and bad.file == "roemaryann_23456_101_problem1_\\xff\\xff.ipynb"
    again = discover(archive, ASSIGNMENTS, tmp_path / "x")  # the extracted copy is reused
    assert again.unplaced == intake.unplaced
