"""A submission that kills its grading process costs only its own grade.

Inside the sandbox a kernel cannot see, let alone signal, the worker that started it; this test
switches the sandbox off so that the kernel can kill its worker, and checks that the run recovers.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
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


CRASHING_OPS = (
    "import ctypes\n\n\n"
    "def ops(B, D, F):\n    return ctypes.string_at(0)  # reads address 0: the kernel crashes\n"
)


def test_a_function_that_crashes_the_kernel_costs_only_the_parts_that_call_it(
    tmp_path: Path, release: Path
) -> None:
    """ops crashes the kernel (a segmentation fault) whenever it is called. Part (b), whose answer
    is ops, loses its points; every other part keeps them: their answers do not call ops, and the
    follow-through probes of ops in (c), (d) and (e) are not called again after the first death, so
    those parts are judged against the references alone, in a fresh kernel."""
    submissions, workspace = tmp_path / "submissions", tmp_path / "workspace"
    Case("crashes", {"problem1": p1(release, **{"p1b-answer": CRASHING_OPS})}).write(submissions)
    done = roofline_grade(
        submissions, "--out", workspace, "--timeout", CELL_TIMEOUT_S, "--quiet", timeout=900
    )
    assert done.returncode == 0, done.stderr[-2000:]
    results = [
        json.loads(p.read_text()) for p in (workspace / ".roofline" / "results").glob("*.json")
    ]
    (result,) = [r for r in results if r["assignment"] == "problem1"]
    scores = {gid: g["auto_score"] for gid, g in result["grades"].items()}
    p1_full = {k: v for k, v in FULL.items() if k.startswith("p1")}
    assert scores == {**p1_full, "p1b_ops": 0}, result
    deaths = [e["detail"] for e in result["events"] if e["kind"] == "kernel-died"]
    # pinned on ops, never on another function (a death whose announcement was lost with the
    # kernel is pinned on none); at most one more death than the first
    assert "the kernel died when the checks called ops" in deaths and len(deaths) <= 2, deaths
    assert all("called ops" in d or "called" not in d for d in deaths), deaths
    details = " ".join(p["detail"] for p in result["problems"])
    assert "the kernel died when the checks called ops" in details, details
    assert "kernel died or hung" not in details  # never out of fresh kernels


def test_hidden_inputs_follow_the_submission_not_only_the_student() -> None:
    """The seed mixes in a digest of the answer cells: the same answers give the same inputs (a
    regrade), other code other inputs; outputs and text cells do not count."""
    from roofline_grader.kernel.execute import answers_digest

    nb = nbformat.v4.new_notebook()
    answer = nbformat.v4.new_code_cell("def ops(B, D, F):\n    return 2 * B * D * F\n")
    answer.metadata["nbgrader"] = {"solution": True, "grade": False, "grade_id": "p1b-answer"}
    nb.cells = [nbformat.v4.new_markdown_cell("# Problem 1"), answer]
    before = answers_digest(nb)
    nb.cells[0].source = "# Problem 1, edited"
    answer.outputs = [nbformat.v4.new_output("stream", text="hello")]
    assert answers_digest(nb) == before
    answer.source = answer.source.replace("2 * B", "B")
    assert answers_digest(nb) != before
