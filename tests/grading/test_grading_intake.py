"""Finding submissions: nbgrader's layout, the names students get wrong, and zips."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from roofline_grader.intake.discover import IntakeError, discover, normalize
from roofline_grader.outputs.tally import Tally, format_duration
from roofline_grader.results import ProblemKind, Status, SubmissionProblem, SubmissionResult
from roofline_grader.run.progress import Progress

ASSIGNMENTS = ("problem1", "problem2")


def touch(path: Path, text: str = "{}") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def by_task(root: Path, tmp_path: Path) -> dict:
    intake = discover(root, ASSIGNMENTS, tmp_path / "extracted")
    return {(t.student, t.assignment): t for t in intake.tasks}


def test_nbgrader_layout_and_the_names_students_get_wrong(tmp_path: Path) -> None:
    root = tmp_path / "in"
    touch(root / "ann" / "problem1" / "problem1.ipynb")
    touch(root / "ann" / "problem1" / "timestamp.txt", "2026-01-05 10:00:00.000000 UTC\n")
    touch(root / "ann" / "Problem 2" / "Untitled.ipynb")
    touch(root / "bob" / "problem1" / "problem1-Copy1.ipynb")
    touch(root / "bob" / "problem1" / "scratch.ipynb")
    touch(root / "bob" / "problem2.ipynb")
    (root / "cyd" / "problem1").mkdir(parents=True)
    tasks = by_task(root, tmp_path)
    assert len(tasks) == 6
    ann1, ann2 = tasks[("ann", "problem1")], tasks[("ann", "problem2")]
    assert ann1.problems == () and ann1.timestamp == "2026-01-05 10:00:00.000000 UTC"
    assert ann2.notebook.endswith("Untitled.ipynb")
    assert [p.kind for p in ann2.problems] == [
        ProblemKind.MISNAMED_FOLDER,
        ProblemKind.MISNAMED_NOTEBOOK,
    ]
    bob1 = tasks[("bob", "problem1")]
    assert (
        bob1.notebook.endswith("problem1-Copy1.ipynb")
        and "of problem1-Copy1.ipynb, scratch.ipynb" in bob1.problems[0].detail
    )
    assert tasks[("bob", "problem2")].problems[0].kind is ProblemKind.MISPLACED_NOTEBOOK
    assert (
        tasks[("cyd", "problem1")].notebook is None
        and tasks[("cyd", "problem1")].fingerprint == "missing"
    )


def test_a_zip_with_a_wrapper_folder_is_read_once(tmp_path: Path) -> None:
    archive = tmp_path / "subs.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("submitted/ann/problem1/problem1.ipynb", "{}")
        zf.writestr("__MACOSX/._junk", "")
    tasks = by_task(archive, tmp_path)
    assert tasks[("ann", "problem1")].notebook is not None
    assert len(list((tmp_path / "extracted").iterdir())) == 1
    assert by_task(archive, tmp_path).keys() == tasks.keys()


@pytest.mark.parametrize("member", ["../evil/problem1.ipynb", "/etc/evil.ipynb", "C:/evil.ipynb"])
def test_a_zip_that_escapes_its_folder_is_refused(tmp_path: Path, member: str) -> None:
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr(member, "{}")
    with pytest.raises(IntakeError, match="unsafe entry"):
        discover(archive, ASSIGNMENTS, tmp_path / "extracted")


def test_neither_folder_nor_zip_is_refused(tmp_path: Path) -> None:
    with pytest.raises(IntakeError):
        discover(touch(tmp_path / "notes.txt", "hi"), ASSIGNMENTS, tmp_path / "x")
    with pytest.raises(IntakeError):
        discover(tmp_path / "nowhere", ASSIGNMENTS, tmp_path / "x")


def test_names_compare_without_case_or_punctuation() -> None:
    assert normalize("Problem 1") == normalize("problem_1") == normalize("PROBLEM1") == "problem1"


def test_progress_counts_as_the_report_does(tmp_path: Path) -> None:
    out = (tmp_path / "log").open("w+")

    def result(status: Status, *kinds: ProblemKind) -> SubmissionResult:
        problems = tuple(SubmissionProblem(k, "") for k in kinds)
        return SubmissionResult("k", "ann", "problem1", "sha", status, problems=problems)

    missing = result(Status.MISSING, ProblemKind.MISSING_NOTEBOOK)
    odd = result(Status.GRADED, ProblemKind.MISNAMED_NOTEBOOK)
    progress = Progress(4, already=Tally().add(result(Status.GRADED)), stream=out)
    progress.advance(odd)
    line = progress.line()
    assert line.startswith("grading [") and "2/4, 1 with problems, ETA" in line
    progress.advance(missing)
    progress.advance(result(Status.GRADED), awaiting=["p4c_why"])
    assert "4/4, 1 with problems, 1 missing, 1 part to grade by hand, done" in progress.line()
    final = Tally(4, 1, 1, {"p4c_why": 2})
    progress.finish(final)
    out.seek(0)
    assert (
        "4/4, 1 with problems, 1 missing, 2 parts to grade by hand, done in"
        in (out.read().splitlines()[-1])
    )
    assert [format_duration(s) for s in (4, 65, 7380)] == ["4s", "1m05s", "2h03m"]


def test_a_zip_whose_entries_clash_is_refused_with_their_name(tmp_path: Path) -> None:
    archive = tmp_path / "clash.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("ann/problem1", "a file")
        zf.writestr("ann/problem1/problem1.ipynb", "{}")
    with pytest.raises(IntakeError, match=r"clash: 'ann/problem1/problem1.ipynb'"):
        discover(archive, ASSIGNMENTS, tmp_path / "extracted")


def test_a_student_id_with_a_leading_dot_is_graded_not_dropped(tmp_path: Path) -> None:
    root = tmp_path / "in"
    touch(root / ".ann" / "problem1" / "problem1.ipynb")
    touch(root / "bob" / "problem1" / "problem1.ipynb")
    (root / ".ipynb_checkpoints").mkdir()
    intake = discover(root, ASSIGNMENTS, tmp_path / "extracted")
    assert intake.students == (".ann", "bob")


def test_a_symlinked_notebook_or_folder_is_reported_and_not_followed(tmp_path: Path) -> None:
    root = tmp_path / "in"
    honest = touch(root / "ann" / "problem1" / "problem1.ipynb")
    (root / "bob" / "problem1").mkdir(parents=True)
    (root / "bob" / "problem1" / "problem1.ipynb").symlink_to(honest)
    (root / "cyd").mkdir()
    (root / "cyd" / "problem1").symlink_to(honest.parent)
    solutions = touch(tmp_path / "solutions" / "problem2" / "problem2.ipynb")
    (root / "dan").symlink_to(solutions.parent.parent)
    tasks = by_task(root, tmp_path)
    for student, assignment in (("bob", "problem1"), ("cyd", "problem1"), ("dan", "problem2")):
        task = tasks[(student, assignment)]
        assert task.notebook is None, (student, task)
        assert [p.kind for p in task.problems] == [ProblemKind.SYMLINK]
        assert "not followed" in task.problems[0].detail
    assert tasks[("ann", "problem1")].notebook == str(honest)
