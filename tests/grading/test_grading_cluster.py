"""roofline-grade --cluster: real Dask scheduler and worker processes on 127.0.0.1 grade a class
exactly as the process pool does, lose a worker or the scheduler without losing or doubling a
student, and refuse what they must, with the reason.

Each scheduler and worker is its own OS process (``dask scheduler``, ``dask worker``), started
here and stopped by PID at the end; ``--cluster local:N`` starts its own LocalCluster.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from roofline_grader.run.cluster import QUIET_DASK
from tests.processes import dies_with_parent

from .conftest import (
    CELL_TIMEOUT_S,
    grading_env,
    grading_in_background,
    roofline_grade,
    wait_for_results,
)
from .grading_cases import ASSIGNMENTS, FULL, P1, ROOT, Case, cases, p1, solved

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("cluster")]

DASK = Path(sys.executable).parent / "dask"
STUDENTS = ("solved", "partial")
"""The class: one student with every part right, one with some parts wrong."""
HANDED_IN = ("problem1", "problem4", "problem6")
"""What they hand in (partial: problems 1 and 6): five notebooks, one of them with a part graded by
hand, enough to keep two workers busy; every other problem is a missing submission."""
KILL_WORKER = "import os, signal\n\nos.kill(os.getppid(), signal.SIGKILL)"
"""A kernel (only without the sandbox) that kills the process grading it: its Dask worker."""


GIVE_UP_AFTER = {"DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "8s"}
"""Dask's connect timeout for the runs that must give up on a scheduler (30 s by default): how
long roofline-grade tries before it says so."""


def _options(workspace: Path, *extra: str | Path) -> list[str]:
    return [str(a) for a in ("--out", workspace, "--timeout", CELL_TIMEOUT_S, "--quiet", *extra)]


def _results(workspace: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in (workspace / ".roofline" / "results").glob("*")]


@dataclass
class DaskProcesses:
    """A scheduler and its workers, each an OS process of its own."""

    address: str
    scheduler: subprocess.Popen[bytes]
    workers: list[subprocess.Popen[bytes]]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM by PID, then SIGKILL if it lingers."""
    if process.poll() is None:
        os.kill(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.kill(process.pid, signal.SIGKILL)
            process.wait(timeout=20)


@contextmanager
def dask_processes(
    folder: Path, workers: int = 2, worker_env: dict[str, str] | None = None
) -> Iterator[DaskProcesses]:
    """``dask scheduler`` and ``workers`` × ``dask worker --nthreads 1 --no-nanny`` on
    127.0.0.1, in the grader's environment (``worker_env`` overrides the workers')."""
    from distributed import Client

    folder.mkdir(parents=True, exist_ok=True)
    file = folder / "scheduler.json"
    file.unlink(missing_ok=True)
    env = grading_env(**QUIET_DASK)  # the settings --cluster local uses, as the README advises
    log = (folder / "dask.log").open("ab")
    started: list[subprocess.Popen[bytes]] = []

    def start(*args: str | Path, env: dict[str, str] = env) -> subprocess.Popen[bytes]:
        process = subprocess.Popen(
            [DASK, *map(str, args)],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=log,
            preexec_fn=dies_with_parent,
        )
        started.append(process)
        return process

    try:
        scheduler = start(
            "scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--no-dashboard",
            "--scheduler-file",
            file,
        )
        deadline = time.monotonic() + 60
        while not file.is_file() and time.monotonic() < deadline:
            time.sleep(0.1)
        address = json.loads(file.read_text())["address"]
        worker_processes = [
            start(
                "worker",
                "--scheduler-file",
                file,
                "--nthreads",
                "1",
                "--no-nanny",
                "--no-dashboard",
                "--host",
                "127.0.0.1",
                "--name",
                f"worker-{i}",
                env={**env, **(worker_env or {})},
            )
            for i in range(workers)
        ]
        with Client(address, timeout=30) as client:
            client.wait_for_workers(workers, timeout=120)
        yield DaskProcesses(address, scheduler, worker_processes)
    finally:
        for process in reversed(started):
            _stop(process)
        log.close()


@pytest.fixture(scope="module")
def klass(tmp_path_factory: pytest.TempPathFactory, release: Path) -> Path:
    folder = tmp_path_factory.mktemp("cluster-class") / "submissions"
    for case in cases(release):
        if case.student in STUDENTS:
            kept = {a: nb for a, nb in case.notebooks.items() if a in HANDED_IN}
            replace(case, notebooks=kept).write(folder)
    return folder


@pytest.fixture(scope="module")
def one_worker_grades(klass: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    """grades.csv of the class graded by one worker process (--jobs 1), no cluster."""
    workspace = tmp_path_factory.mktemp("jobs1") / "workspace"
    run = roofline_grade(klass, *_options(workspace, "--jobs", "1"))
    assert run.returncode == 0, run.stderr[-3000:]
    assert "Cluster:" not in run.stdout
    return (workspace / "grades.csv").read_text()


def _graded_once_each(workspace: Path) -> None:
    """Every student × problem has exactly one result, none of them a grader failure."""
    seen = sorted((r["student"], r["assignment"]) for r in _results(workspace))
    assert seen == sorted((s, a) for s in STUDENTS for a in ASSIGNMENTS)
    assert not [r for r in _results(workspace) if r["status"] == "error"]


def test_separate_scheduler_and_worker_processes_grade_as_one_worker_does(
    klass: Path, one_worker_grades: str, tmp_path: Path
) -> None:
    with dask_processes(tmp_path / "dask") as dask:
        run = roofline_grade(klass, *_options(tmp_path / "ws", "--cluster", dask.address))
    assert run.returncode == 0, run.stderr[-3000:]
    assert (tmp_path / "ws" / "grades.csv").read_text() == one_worker_grades
    _graded_once_each(tmp_path / "ws")
    # the report names the cluster and each worker's throughput
    assert f"Cluster: {dask.address}; 2 worker(s) graded this run." in run.stdout
    assert run.stdout.count(" a minute") == 2, run.stdout
    assert "Kernel sandbox: bubblewrap" in run.stdout


def test_a_worker_killed_mid_batch_loses_and_doubles_no_one(
    klass: Path, one_worker_grades: str, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    with dask_processes(tmp_path / "dask") as dask:
        grading = grading_in_background(klass, *_options(workspace, "--cluster", dask.address))
        wait_for_results(workspace, 2, grading)
        os.kill(dask.workers[0].pid, signal.SIGKILL)  # it has a task running: each has one
        _, stderr = grading.communicate(timeout=600)
        assert dask.workers[0].poll() == -signal.SIGKILL
    assert grading.returncode == 0, stderr[-3000:]
    assert (workspace / "grades.csv").read_text() == one_worker_grades
    _graded_once_each(workspace)


def test_a_local_cluster_grades_as_one_worker_does(
    klass: Path, one_worker_grades: str, tmp_path: Path
) -> None:
    run = roofline_grade(klass, *_options(tmp_path / "ws", "--cluster", "local:2"))
    assert run.returncode == 0, run.stderr[-3000:]
    assert (tmp_path / "ws" / "grades.csv").read_text() == one_worker_grades
    assert "Cluster: a local Dask cluster of 2 worker process(es)" in run.stdout
    _graded_once_each(tmp_path / "ws")


def test_an_unreachable_scheduler_is_named_and_nothing_is_written(
    klass: Path, tmp_path: Path
) -> None:
    address = f"tcp://127.0.0.1:{_free_port()}"
    started = time.monotonic()
    run = roofline_grade(klass, *_options(tmp_path / "ws", "--cluster", address), env=GIVE_UP_AFTER)
    assert time.monotonic() - started < 120
    assert run.returncode == 5, (run.returncode, run.stderr[-2000:])
    assert f"cannot reach the Dask scheduler at {address} within 8 s" in run.stderr
    assert "nothing was graded or written" in run.stderr
    assert not (tmp_path / "ws").exists()


@pytest.mark.parametrize(
    "cluster, words",
    [
        ("locale", "is not a cluster"),
        ("local:0", "N must be a whole number >= 1"),
        ("127.0.0.1:8786", "is not a cluster"),
    ],
)
def test_a_bad_cluster_names_the_option_and_the_forms(
    klass: Path, tmp_path: Path, cluster: str, words: str
) -> None:
    run = roofline_grade(klass, *_options(tmp_path / "ws", "--cluster", cluster))
    assert run.returncode == 2
    assert "--cluster" in run.stderr and words in run.stderr
    assert "local, local:N" in run.stderr and "tcp://HOST:PORT" in run.stderr
    assert not (tmp_path / "ws").exists()


def test_a_lost_scheduler_stops_the_run_and_a_rerun_resumes(
    klass: Path, one_worker_grades: str, tmp_path: Path, release: Path
) -> None:
    # the class and a slow student (three cells of 6 s each): the scheduler is killed once a
    # result is in, while the slow notebook is still being graded
    submissions, workspace = tmp_path / "submissions", tmp_path / "ws"
    shutil.copytree(klass, submissions)
    slow = {gid: f"{P1[gid]}\n\nimport time\ntime.sleep(6)" for gid in list(P1)[:3]}
    Case("slow", {"problem1": p1(release, **slow)}).write(submissions)
    with dask_processes(tmp_path / "dask") as dask:
        grading = grading_in_background(
            submissions, *_options(workspace, "--cluster", dask.address), env=GIVE_UP_AFTER
        )
        wait_for_results(workspace, 1, grading)
        os.kill(dask.scheduler.pid, signal.SIGKILL)
        started = time.monotonic()
        _, stderr = grading.communicate(timeout=300)
        assert time.monotonic() - started < 120
    assert grading.returncode == 5, (grading.returncode, stderr[-3000:])
    assert "lost the Dask scheduler" in stderr and "run the same command again" in stderr
    kept = len(_results(workspace))
    students = (*STUDENTS, "slow")
    total = len(students) * len(ASSIGNMENTS)
    assert 1 <= kept < 6, kept  # six notebooks; the missing ones come after the engine's tasks

    with dask_processes(tmp_path / "dask-again") as dask:
        rerun = roofline_grade(submissions, *_options(workspace, "--cluster", dask.address))
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert f"{total - kept} graded now, {kept} unchanged since the last run" in rerun.stdout
    grades = (workspace / "grades.csv").read_text().splitlines()
    assert [row for row in grades if not row.startswith("slow,")] == one_worker_grades.splitlines()
    seen = sorted((r["student"], r["assignment"]) for r in _results(workspace))
    assert seen == sorted((s, a) for s in students for a in ASSIGNMENTS), "each once"
    assert not [r for r in _results(workspace) if r["status"] == "error"]


def test_a_notebook_that_kills_its_workers_fails_alone_with_the_reason(
    tmp_path: Path, release: Path
) -> None:
    """Without the sandbox a kernel can kill the worker grading it (the nanny of a local
    cluster starts a new one). The scheduler gives up on it after its allowed failures (1 here);
    graded again alone it kills again, and only it is marked failed; the bystander loses
    nothing."""
    submissions, workspace = tmp_path / "submissions", tmp_path / "ws"
    Case("kills-its-worker", {"problem1": p1(release, **{"p1b-answer": KILL_WORKER})}).write(
        submissions
    )
    Case("bystander", {a: solved(release, a) for a in ("problem1", "problem5")}).write(submissions)
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "roofline_grader.run.cli",
            submissions,
            *_options(workspace, "--cluster", "local:2", "--no-sandbox"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env=grading_env(DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES="1"),
    )
    assert run.returncode == 0, run.stderr[-3000:]
    results = {(r["student"], r["assignment"]): r for r in _results(workspace)}
    assert len(results) == 2 * len(ASSIGNMENTS)  # each student × problem, missing ones too
    killer = results[("kills-its-worker", "problem1")]
    assert killer["status"] == "error" and killer["problems"][-1]["kind"] == "grader-crash"
    assert "even with the notebook graded alone" in killer["problems"][-1]["detail"]
    assert all(g["auto_score"] == 0 for g in killer["grades"].values())
    bystander = {
        **results[("bystander", "problem1")]["grades"],
        **results[("bystander", "problem5")]["grades"],
    }
    assert {k: v["auto_score"] for k, v in bystander.items()} == {
        k: v for k, v in FULL.items() if k.startswith(("p1", "p5"))
    }
    assert "grader crash" in run.stdout


def test_a_worker_with_other_hidden_checks_refuses_and_the_run_stops(
    klass: Path, tmp_path: Path
) -> None:
    """A worker whose roofline_grader differs from the instructor's (a stale install) would
    grade with other hidden checks: it refuses, and the run stops naming it."""
    stale = tmp_path / "stale"
    for package in ("roofline_lib", "roofline_grader"):
        shutil.copytree(
            ROOT / package, stale / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    with (stale / "roofline_grader" / "checks" / "problem1.py").open("a") as fh:
        fh.write("\n# an older version of the hidden checks\n")
    workspace = tmp_path / "ws"
    with dask_processes(tmp_path / "dask", workers=1, worker_env={"PYTHONPATH": str(stale)}) as d:
        run = roofline_grade(klass, *_options(workspace, "--cluster", d.address))
    assert run.returncode == 5, (run.returncode, run.stderr[-3000:])
    assert "a Dask worker refused to grade: worker tcp://127.0.0.1:" in run.stderr
    assert "are not the ones the run was started with" in run.stderr
    assert not list((workspace / ".roofline" / "results").glob("*"))
