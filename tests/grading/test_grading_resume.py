"""Runs that are interrupted, repeated, or followed by grading by hand; a zip as input."""

from __future__ import annotations

import csv
import signal
import subprocess
import zipfile
from pathlib import Path

import pytest
from nbgrader.api import Gradebook

from .conftest import CELL_TIMEOUT_S, grading_in_background, roofline_grade, wait_for_results
from .grading_cases import ASSIGNMENTS, FULL, cases

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("grading")]

TASKS = 2 * len(ASSIGNMENTS)
"""Two students (solved, partial) × every problem."""
MISSING = len(ASSIGNMENTS) - 2
"""The partly right student hands in problems 1 and 6 only."""
SOLVED_TOTAL = sum(FULL.values())
"""Every part but the written one (graded by hand), at full marks."""


def _rows(workspace: Path) -> list[dict[str, str]]:
    with (workspace / "grades.csv").open(newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory, release: Path) -> Path:
    """A zip (with a wrapper folder) of two students: the solved and the partly right one."""
    folder = tmp_path_factory.mktemp("zipped") / "submitted"
    for case in cases(release):
        if case.student in ("solved", "partial"):
            case.write(folder)
    path = folder.parent / "submissions.zip"
    with zipfile.ZipFile(path, "w") as zf:
        for file in folder.rglob("*"):
            zf.write(file, file.relative_to(folder.parent))
    return path


def _interrupted_run(archive: Path, workspace: Path) -> int:
    """Start a run, stop it with Ctrl-C once a few results are recorded; returns the exit status."""
    options = ["--out", workspace, "--jobs", "1", "--timeout", CELL_TIMEOUT_S, "--quiet"]
    process = grading_in_background(archive, *options)
    wait_for_results(workspace, 3, process, timeout_s=240)
    process.send_signal(signal.SIGINT)
    process.communicate(timeout=120)
    return process.returncode


def _bar_agrees_with_report(run: subprocess.CompletedProcess[str], tally: str) -> None:
    """The progress bar's last line and the report give the same counts (resumed results too)."""
    last = [line for line in run.stderr.splitlines() if line.startswith("grading [")][-1]
    assert f"{TASKS}/{TASKS}, {tally}, done in" in last, last
    assert f"In all: {tally}.\n" in run.stdout, run.stdout


def test_an_interrupted_run_rerun_completes_with_everyone_once(
    archive: Path, tmp_path: Path, release: Path
) -> None:
    workspace = tmp_path / "workspace"
    status = _interrupted_run(archive, workspace)
    recorded = len(list((workspace / ".roofline" / "results").glob("*.json")))
    assert status == 130 and 3 <= recorded < TASKS, (status, recorded)

    rerun = roofline_grade(archive, "--out", workspace, "--timeout", CELL_TIMEOUT_S)
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    _bar_agrees_with_report(rerun, f"0 with problems, {MISSING} missing, 1 part to grade by hand")
    assert f"{TASKS - recorded} graded now, {recorded} unchanged since the last run" in rerun.stdout
    rows = {r["student_id"]: r for r in _rows(workspace)}
    assert sorted(rows) == ["partial", "solved"]
    partial = next(c for c in cases(release) if c.student == "partial")
    assert (rows["solved"]["total"], rows["partial"]["total"]) == (
        f"{SOLVED_TOTAL:g}",
        f"{sum(partial.expect.values()):g}",
    )
    with Gradebook(f"sqlite:///{workspace / 'gradebook.db'}", course_id="roofline") as gb:
        for assignment in ASSIGNMENTS:
            assert sorted(s.student.id for s in gb.find_assignment(assignment).submissions) == [
                "partial",
                "solved",
            ]

    # The same input gives the same grades, regraded from scratch.
    before = (workspace / "grades.csv").read_text()
    again = roofline_grade(
        archive, "--out", workspace, "--force", "--timeout", CELL_TIMEOUT_S, "--quiet"
    )
    assert again.returncode == 0 and f"{TASKS} graded now" in again.stdout
    assert (workspace / "grades.csv").read_text() == before

    # Grading the written answer by hand, then running again, updates the table and nothing else.
    with Gradebook(f"sqlite:///{workspace / 'gradebook.db'}", course_id="roofline") as gb:
        grade = gb.find_grade("p4c_why", "problem4", "problem4", "solved")
        grade.manual_score = 2.0
        gb.db.commit()
    final = roofline_grade(archive, "--out", workspace, "--timeout", CELL_TIMEOUT_S)
    assert f"0 graded now, {TASKS} unchanged" in final.stdout
    _bar_agrees_with_report(final, f"0 with problems, {MISSING} missing")
    assert "Awaiting grading by hand" not in final.stdout
    rows = {r["student_id"]: r for r in _rows(workspace)}
    assert (rows["solved"]["p4c_why"], rows["solved"]["total"]) == ("2", f"{SOLVED_TOTAL + 2:g}")
    assert "graded by hand" in (workspace / "feedback" / "solved" / "index.html").read_text()


def test_unreadable_input_exits_with_status_2(tmp_path: Path) -> None:
    done = roofline_grade(tmp_path / "nowhere", "--out", tmp_path / "ws", "--quiet")
    assert done.returncode == 2 and "does not exist" in done.stderr
