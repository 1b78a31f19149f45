"""Shared fixtures: the current release, and one grading run of every case, done once per session.

Grading is expensive (a kernel per notebook), so all the cases of grading_cases.py go into one
folder that ``roofline-grade`` grades once, in a subprocess, exactly as an instructor would run it;
the tests then read its outputs. Tests that use these fixtures are marked slow and kept on one
xdist worker (group "grading").
"""

from __future__ import annotations

import csv
import fcntl
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from roofline_grader.course import Course, command_env
from roofline_grader.course.release import generate

from .grading_cases import ROOT, Case, cases

CELL_TIMEOUT_S = 8


def grading_env(**extra: str) -> dict[str, str]:
    """The environment make gives the grader (see roofline_grader.course.command_env)."""
    return command_env(ROOT, **extra)


def roofline_grade(
    *args: str | Path, timeout: float = 600, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the roofline-grade command line in a subprocess (``env``: variables beside make's)."""
    return subprocess.run(
        [sys.executable, "-m", "roofline_grader.run.cli", *map(str, args)],
        cwd=ROOT,
        env=grading_env(**(env or {})),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def grading_in_background(
    *args: str | Path, env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    """The roofline-grade command line started in a subprocess, as :func:`roofline_grade` runs
    it, without waiting (its output is piped)."""
    return subprocess.Popen(
        [sys.executable, "-m", "roofline_grader.run.cli", *map(str, args)],
        cwd=ROOT,
        env=grading_env(**(env or {})),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_results(
    workspace: Path, count: int, run: subprocess.Popen[str], timeout_s: float = 300
) -> None:
    """Wait until the run's journal holds ``count`` results, the run ends, or ``timeout_s``."""
    results = workspace / ".roofline" / "results"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and run.poll() is None:
        if results.is_dir() and len(list(results.glob("*.json"))) >= count:
            return
        time.sleep(0.1)


def nbgrader(
    *args: str | Path, cwd: Path = ROOT, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """Run an nbgrader command (``python -m nbgrader``) as the instructor would, in ``env``
    (default: the grader's environment)."""
    return subprocess.run(
        [sys.executable, "-m", "nbgrader", *map(str, args)],
        cwd=cwd,
        env=env if env is not None else grading_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def grade_quietly(
    submissions: Path, workspace: Path, *extra: str | Path
) -> subprocess.CompletedProcess[str]:
    """roofline-grade on two workers with the tests' cell timeout and no progress bar."""
    return roofline_grade(
        submissions,
        "--out",
        workspace,
        "--jobs",
        "2",
        "--timeout",
        CELL_TIMEOUT_S,
        "--quiet",
        *extra,
    )


@dataclass
class GradedRun:
    """The outputs of one roofline-grade run."""

    workspace: Path
    stdout: str
    stderr: str
    cases: dict[str, Case]

    @property
    def grades(self) -> dict[str, dict[str, str]]:
        with (self.workspace / "grades.csv").open(newline="") as fh:
            return {row["student_id"]: row for row in csv.DictReader(fh)}

    @property
    def header(self) -> list[str]:
        with (self.workspace / "grades.csv").open(newline="") as fh:
            return next(csv.reader(fh))

    @property
    def report(self) -> dict[str, Any]:
        return json.loads((self.workspace / "report.json").read_text())

    def results(self) -> dict[tuple[str, str], dict[str, Any]]:
        out = {}
        for path in (self.workspace / ".roofline" / "results").glob("*.json"):
            record = json.loads(path.read_text())
            out[(record["student"], record["assignment"])] = record
        return out

    def problems(self, student: str) -> list[dict[str, Any]]:
        return [p for p in self.report["problems"] if p["student"] == student]

    def feedback(self, student: str) -> str:
        return (self.workspace / "feedback" / student / "index.html").read_text()


@pytest.fixture(scope="session")
def course() -> Course:
    return Course(ROOT)


@pytest.fixture(scope="session")
def release(tmp_path_factory: pytest.TempPathFactory, course: Course) -> Path:
    """The student release generated now from solutions/ (what the cases are made from)."""
    out = tmp_path_factory.mktemp("release")
    generate(course, out)
    return out


@pytest.fixture(scope="session")
def graded(tmp_path_factory: pytest.TempPathFactory, release: Path) -> GradedRun:
    """Every case of grading_cases.py, graded by one roofline-grade run with two workers.

    The run is shared by all pytest-xdist workers of the session (the first one to get here runs
    it under a file lock; the others wait and read its outputs), so it happens once even when the
    grading tests are spread over workers.
    """
    # under xdist every worker's basetemp is a child of the session's; without it, the parent is
    # shared by every pytest run of the user, and an old run's results would be read
    session = tmp_path_factory.getbasetemp()
    shared = (session.parent if os.environ.get("PYTEST_XDIST_WORKER") else session) / "graded-run"
    shared.mkdir(exist_ok=True)
    submissions, workspace, done = (
        shared / "submissions",
        shared / "workspace",
        shared / "done.json",
    )
    all_cases = cases(release)
    with (shared / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.is_file():
            for case in all_cases:
                case.write(submissions)
            run = grade_quietly(submissions, workspace)
            assert run.returncode == 0, run.stderr[-3000:]
            done.write_text(json.dumps({"stdout": run.stdout, "stderr": run.stderr}))
    outputs = json.loads(done.read_text())
    return GradedRun(
        workspace, outputs["stdout"], outputs["stderr"], {c.student: c for c in all_cases}
    )
