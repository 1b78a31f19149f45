"""Plain ``nbgrader autograde``, with the course's nbgrader_config.py, grades as roofline-grade does."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from roofline_grader.course import Course
from roofline_grader.outputs.gradebook import build_template

from .conftest import grading_env, nbgrader
from .grading_cases import cases

pytestmark = pytest.mark.slow
STUDENTS = ("solved", "partial", "forges-answers", "duplicated-cells", "drops-later-cells")


def test_plain_nbgrader_autograde_uses_the_sealed_pipeline(
    tmp_path: Path, release: Path, course: Course
) -> None:
    workspace = tmp_path / "workspace"
    template, _ = build_template(course, tmp_path / "state")
    workspace.mkdir()
    shutil.copyfile(template, workspace / "gradebook.db")
    chosen = {c.student: c for c in cases(release) if c.student in STUDENTS}
    for case in chosen.values():
        case.notebooks = {"problem1": case.notebooks["problem1"]}
        case.write(workspace / "submitted")
    env = grading_env(ROOFLINE_GRADING_DIR=str(workspace))
    done = nbgrader("autograde", "problem1", "--force", env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    with Gradebook(f"sqlite:///{workspace / 'gradebook.db'}", course_id="roofline") as gb:
        for student, case in chosen.items():
            notebook = gb.find_submission_notebook("problem1", "problem1", student)
            got = {g.name: g.auto_score for g in notebook.grades}
            want = {name: float(case.expect.get(name, 0)) for name in got}
            assert got == want, student
    report = workspace / "autograded" / "solved" / "problem1" / "problem1.roofline.json"
    assert report.is_file(), "the sealed executor wrote its report"

    # nbgrader's own feedback (not the course's pages) never shows a line of the hidden tests.
    feedback = nbgrader("generate_feedback", "problem1", "--force", env=env)
    assert feedback.returncode == 0, feedback.stderr[-3000:]
    pages = sorted((workspace / "feedback").glob("*/problem1/problem1.html"))
    assert len(pages) == len(chosen), pages
    for page in pages:
        text = page.read_text()
        assert "/ 9.0" in text, page  # nbgrader's page, with its scores
        for hidden in ("BEGIN HIDDEN TESTS", "END HIDDEN TESTS", "roofline_grader.hidden"):
            assert hidden not in text, (page, hidden)
