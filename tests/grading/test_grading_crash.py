"""A submission that kills its grading process costs only its own grade.

Inside the sandbox a kernel cannot see, let alone signal, the worker that started it; this test
switches the sandbox off so that the kernel can kill its worker, and checks that the run recovers.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import CELL_TIMEOUT_S, roofline_grade
from .grading_cases import FULL, Case, p1, solved

pytestmark = pytest.mark.slow

KILL_WORKER = "import os, signal\n\nos.kill(os.getppid(), signal.SIGKILL)"


def test_a_notebook_that_kills_its_worker_is_graded_zero_and_no_one_else_suffers(
    tmp_path: Path, release: Path
) -> None:
    submissions, workspace = tmp_path / "submissions", tmp_path / "workspace"
    Case("kills-its-worker", {"problem1": p1(release, **{"p1b-answer": KILL_WORKER})}).write(
        submissions
    )
    Case("bystander", {a: solved(release, a) for a in ("problem1", "problem5")}).write(submissions)
    done = roofline_grade(
        submissions,
        "--out",
        workspace,
        "--jobs",
        "2",
        "--no-sandbox",
        "--timeout",
        CELL_TIMEOUT_S,
        "--quiet",
    )
    assert done.returncode == 0, done.stderr[-2000:]
    results = {
        (r["student"], r["assignment"]): r
        for r in map(
            json.loads, map(Path.read_text, (workspace / ".roofline" / "results").glob("*.json"))
        )
    }
    killer = results[("kills-its-worker", "problem1")]
    assert killer["status"] == "error" and killer["problems"][-1]["kind"] == "grader-crash"
    assert all(g["auto_score"] == 0 for g in killer["grades"].values())
    bystander = {
        **results[("bystander", "problem1")]["grades"],
        **results[("bystander", "problem5")]["grades"],
    }
    assert {k: v["auto_score"] for k, v in bystander.items()} == {
        k: v for k, v in FULL.items() if k.startswith(("p1", "p5"))
    }
    assert (
        "grader crash" in done.stdout
        and "Kernel sandbox: NONE: the sandbox is switched off" in done.stdout
    )
    assert "WARNING: grading WITHOUT a sandbox (--no-sandbox)" in done.stderr
