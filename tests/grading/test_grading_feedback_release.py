"""Feedback back to students: nbgrader's own Fetch Feedback delivers the course's page.

One round trip on a temporary workspace and exchange, by one OS user playing both parts (the
shared-exchange test plays them as two): nbgrader releases problem1, the student fetches it, answers
it and submits with nbgrader; the instructor collects, and ``roofline-grade --release-feedback``
grades and releases; the student's ``nbgrader fetch_feedback`` brings back the course's page. Beside
the nbgrader submission, one from an LMS (no submission_secret.txt) is reported as not released,
and one whose student id holds glob characters is released all the same.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import zipfile
from pathlib import Path

import nbformat
import pytest
from nbgrader.utils import get_username, notebook_hash

from roofline_grader.course.config import COURSE_ID
from roofline_grader.names import file_name
from roofline_grader.outputs.feedback import FeedbackPages, ProblemPage

from .conftest import grade_quietly, grading_env, roofline_grade
from .conftest import nbgrader as run_nbgrader
from .grading_cases import ROOT, model_answers

pytestmark = pytest.mark.slow
HIDDEN_TEXT = ("BEGIN HIDDEN TESTS", "roofline_grader.hidden", "END HIDDEN TESTS")


def nbgrader(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = run_nbgrader(*args, cwd=cwd, env=env)
    assert done.returncode == 0, f"nbgrader {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
    return done


def answer(notebook: Path, assignment: str) -> None:
    """Fill every answer cell of a fetched notebook with the model answer, as a student would."""
    nb = nbformat.read(str(notebook), 4)
    model = model_answers(assignment)
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        if gid in model and cell.metadata["nbgrader"].get("solution"):
            cell.source = model[gid]
    nbformat.write(nb, str(notebook))


def test_fetch_feedback_delivers_the_course_page_and_no_hidden_test(tmp_path: Path) -> None:
    exchange, workspace = tmp_path / "exchange", tmp_path / "workspace"
    instructor = grading_env(ROOFLINE_GRADING_DIR=str(workspace), ROOFLINE_EXCHANGE=str(exchange))
    nbgrader("release_assignment", "problem1", "--force", cwd=ROOT, env=instructor)

    # The student: a home and nbgrader configuration of their own, as nbgrader's docs show.
    home, work = tmp_path / "student-home", tmp_path / "student"
    work.mkdir()
    (work / "nbgrader_config.py").write_text(
        f"c = get_config()\nc.Exchange.root = {str(exchange)!r}\n"
        f"c.CourseDirectory.course_id = {COURSE_ID!r}\n"
    )
    student_env = grading_env(HOME=str(home))
    nbgrader("fetch_assignment", "problem1", cwd=work, env=student_env)
    answer(work / "problem1" / "problem1.ipynb", "problem1")
    nbgrader("submit", "problem1", cwd=work, env=student_env)
    nbgrader("collect", "problem1", cwd=ROOT, env=instructor)
    me = get_username()
    assert (workspace / "submitted" / me / "problem1" / "submission_secret.txt").is_file()

    # From an LMS: a notebook without nbgrader's secret. A student id with glob characters, with
    # a secret of its own (nbgrader submit's format: 64 random bytes as hex).
    lms = workspace / "submitted" / "lms-student" / "problem1"
    lms.mkdir(parents=True)
    shutil.copyfile(work / "problem1" / "problem1.ipynb", lms / "problem1.ipynb")
    odd = workspace / "submitted" / "odd[1]*" / "problem1"
    shutil.copytree(lms, odd)
    odd_secret = secrets.token_hex(64)
    (odd / "submission_secret.txt").write_text(odd_secret)
    (odd / "timestamp.txt").write_text("2025-01-01 12:00:00.000000 UTC")

    run = grade_quietly(
        workspace / "submitted", workspace, "--release-feedback", "--exchange", exchange
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert f"Released to the exchange {exchange.resolve()}" in run.stdout
    assert "2 problem pages; not released: 1." in run.stdout
    assert "no submission_secret.txt" in run.stdout and "lms-student / problem1" in run.stdout
    report = json.loads((workspace / "report.json").read_text())["feedback_release"]
    assert report["not_released"] == [
        {
            "student": "lms-student",
            "assignment": "problem1",
            "reason": report["not_released"][0]["reason"],
        }
    ]
    odd_name = notebook_hash(secret=odd_secret, notebook_id="problem1")
    assert (exchange / COURSE_ID / "feedback" / f"{odd_name}.html").is_file()

    # The student fetches it with nbgrader's own command.
    nbgrader("fetch_feedback", "problem1", cwd=work, env=student_env)
    fetched = list((work / "problem1" / "feedback").glob("*/problem1.html"))
    assert len(fetched) == 1, fetched
    text = fetched[0].read_text()
    ours = workspace / "feedback" / me / "problem1" / "problem1.html"
    assert text == ours.read_text(), "the course's page, not nbgrader's generated HTML"
    assert f"Feedback for {me}: Problem 1" in text and "Total: 9 / 9 points" in text
    assert "✓ bytes_loaded" in text
    for words in HIDDEN_TEXT:
        assert words not in text
    # The whole-course page stays in the workspace, beside the problem pages.
    course_page = (workspace / "feedback" / me / "index.html").read_text()
    # only problem1 was handed in by anyone: the others are not graded yet, in no total
    assert "Total: 9 / 9 points" in course_page
    not_yet = course_page[course_page.index("<h2>Not graded yet</h2>") :]
    assert "<li>Problem 2 · " in not_yet and "Problem 1 · " not in not_yet

    # One zip per student, for an LMS: the course page and each problem page, no secret.
    # A name Windows cannot hold ('*') is the id's first bytes and a hash, in the zip as outside.
    assert file_name("odd[1]*").startswith("odd[1]_-")
    for student in (me, "lms-student", "odd[1]*"):
        name = file_name(student)
        with zipfile.ZipFile(workspace / "feedback-zips" / f"{name}.zip") as zf:
            assert sorted(zf.namelist()) == [f"{name}/index.html", f"{name}/problem1.html"]
            page = zf.read(f"{name}/problem1.html").decode()
            assert (
                page == (workspace / "feedback" / name / "problem1" / "problem1.html").read_text()
            )
            assert not any(words in page for words in HIDDEN_TEXT)


def test_release_feedback_to_a_missing_exchange_stops_before_grading(tmp_path: Path) -> None:
    (tmp_path / "submissions" / "ann" / "problem1").mkdir(parents=True)
    run = roofline_grade(
        tmp_path / "submissions",
        "--out",
        tmp_path / "workspace",
        "--release-feedback",
        "--exchange",
        tmp_path / "nowhere",
        "--quiet",
    )
    assert run.returncode == 2
    assert f"the exchange {tmp_path / 'nowhere'} is not a folder" in run.stderr
    assert "chmod 1777" in run.stderr
    assert not (tmp_path / "workspace" / "grades.csv").exists()


def test_every_page_not_released_is_counted_and_the_first_named() -> None:
    from roofline_grader.outputs.exchange import NO_SECRET, SHOWN, FeedbackRelease, Unreleased

    missing = tuple(Unreleased(f"s{i}", "problem1", NO_SECRET) for i in range(SHOWN + 5))
    lines = FeedbackRelease(Path("/x"), (), missing).lines()
    assert lines[0].endswith("0 problem pages; not released: 25.")
    assert lines[1].startswith(f"  not released (25), {NO_SECRET}: s0 / problem1, s1 / problem1")
    assert lines[1].endswith(", and 5 more (report.json)") and "s19 /" in lines[1]


STRANGER = 54_321
"""A uid no one on the machine has: the student who made the course folder first."""


def _hostile_exchange(tmp_path: Path, link: bool) -> tuple[Path, Path]:
    """A sticky, world-writable exchange in which a stranger made the course folder first, its
    ``feedback`` a link to a folder of root's (``link``) or a folder of the stranger's own."""
    exchange, target = tmp_path / "exchange", tmp_path / "roots-folder"
    exchange.mkdir()
    exchange.chmod(0o1777)
    target.mkdir()
    course = exchange / COURSE_ID
    course.mkdir()
    if link:
        (course / "feedback").symlink_to(target)
        os.lchown(course / "feedback", STRANGER, STRANGER)
    else:
        (course / "feedback").mkdir()
        os.chown(course / "feedback", STRANGER, STRANGER)
    os.chown(course, STRANGER, STRANGER)
    return exchange, target


def _pages(tmp_path: Path) -> FeedbackPages:
    page = tmp_path / "feedback" / "ann" / "problem1" / "problem1.html"
    page.parent.mkdir(parents=True)
    page.write_text("<p>ann's feedback</p>")
    problem = ProblemPage("ann", "problem1", "problem1", page, "s" * 128, "2026-12-01 10:00 UTC")
    return FeedbackPages(tmp_path / "feedback", (("ann", page),), (problem,))


@pytest.mark.parametrize("link", [True, False], ids=["feedback-a-link", "stranger-owned"])
def test_a_course_folder_someone_else_made_in_the_exchange_is_never_written_into(
    tmp_path: Path, link: bool
) -> None:
    from roofline_grader.outputs.exchange import release_feedback

    if os.geteuid() != 0:
        assert os.environ.get("CI", "").lower() != "true", "CI runs as root and must run this"
        pytest.skip("making a folder another user owns needs root")
    exchange, target = _hostile_exchange(tmp_path, link)
    released = release_feedback(_pages(tmp_path), exchange)
    assert released.released == ()
    [unreleased] = released.unreleased
    assert f"uid {STRANGER}" in unreleased.reason and "nothing was released" in unreleased.reason
    assert list(target.iterdir()) == [], "nothing written through the link"
    assert list((exchange / COURSE_ID).iterdir()) == [exchange / COURSE_ID / "feedback"]

    # roofline-grade checks it before grading, and says what to do
    (tmp_path / "submissions" / "ann" / "problem1").mkdir(parents=True)
    run = roofline_grade(
        tmp_path / "submissions", "--out", tmp_path / "ws", "--release-feedback",
        "--exchange", exchange, "--quiet",
    )  # fmt: skip
    assert run.returncode == 2, run.stdout + run.stderr
    assert f"{exchange / COURSE_ID}" in run.stderr and "nothing was released" in run.stderr
    assert not (tmp_path / "ws" / "grades.csv").exists()


def test_a_course_folder_of_the_instructor_under_sudo_is_released_into(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `sudo make feedback` after the instructor's own `nbgrader release_assignment`: the course
    # folder is the instructor's, whose uid sudo puts in SUDO_UID
    from roofline_grader.outputs import exchange as module

    if os.geteuid() != 0:
        assert os.environ.get("CI", "").lower() != "true", "CI runs as root and must run this"
        pytest.skip("making a folder another user owns needs root")
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    exchange.chmod(0o777)  # as nbgrader makes it: the release adds the sticky bit (root owns it)
    (exchange / COURSE_ID).mkdir(mode=0o755)
    os.chown(exchange / COURSE_ID, STRANGER, STRANGER)
    pages = _pages(tmp_path)
    refused = module.release_feedback(pages, exchange)
    assert refused.released == () and "nothing was released" in refused.unreleased[0].reason
    monkeypatch.setenv("SUDO_UID", str(STRANGER))
    assert module.trusted_owners() == {0, STRANGER}
    module.secure_feedback_folder(exchange, COURSE_ID, module.trusted_owners())
    assert exchange.stat().st_mode & 0o1000, "the sticky bit, added"
    feedback = exchange / COURSE_ID / "feedback"
    assert (
        feedback.is_dir() and not feedback.is_symlink() and feedback.stat().st_mode & 0o777 == 0o755
    )
