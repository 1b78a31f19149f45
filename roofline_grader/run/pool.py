"""The process pool engine: grading tasks in worker processes on this machine, surviving the
ones that take a worker down.

Workers are forked (spawned where fork is unavailable) from a parent that has already imported
nbgrader, so they start at once. Each result is handed to ``on_result`` in the parent as soon as it
arrives. If a worker process dies (killed, out of memory) or a task runs far past its time budget,
the pool is broken: every task that had started (each worker leaves a marker when it begins one)
is a suspect, and the tasks that had not started go back in the queue, into a new pool. The
suspects are then graded again alone (:func:`roofline_grader.run.engine.grade_isolating_culprits`).
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from roofline_grader.intake.discover import Task
from roofline_grader.kernel.sandbox import KernelHome, die_with_parent
from roofline_grader.results import SubmissionResult
from roofline_grader.run import worker
from roofline_grader.run.engine import Job, OnResult, grade_isolating_culprits
from roofline_grader.run.worker import Settings


class ProcessPoolEngine:
    """The :class:`~roofline_grader.run.engine.Engine` of ``jobs`` worker processes on this machine.

    The sandbox is decided once, here, before anything is graded (and the decision explained in
    the report); every worker grades with it.
    """

    def __init__(self, jobs: int) -> None:
        self.jobs = max(1, jobs)
        self._sandbox_note = ""

    @property
    def workers(self) -> int:
        return self.jobs

    def check_sandbox(self, sandbox: str) -> None:
        home = KernelHome(sandbox)  # raises SandboxUnavailableError when it must
        self._sandbox_note = home.summary()
        home.remove()

    def run(self, tasks: Sequence[Task], job: Job, on_result: OnResult) -> None:
        def batch(batch_tasks: Sequence[Task], width: int) -> list[Task]:
            return run_until_broken(batch_tasks, job.settings, width, on_result, job.stuck_after_s)

        grade_isolating_culprits(tasks, self.jobs, batch, job.settings, on_result)

    def sandbox_note(self) -> str:
        return self._sandbox_note

    def notes(self) -> list[str]:
        return []

    def as_json(self) -> dict[str, Any] | None:
        return None

    def close(self) -> None:
        pass


def _context() -> multiprocessing.context.BaseContext:
    if sys.platform.startswith("linux"):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def _init_worker(parent: int) -> None:
    import warnings
    from multiprocessing.util import Finalize

    from roofline_grader.kernel import warm

    die_with_parent(parent)  # a worker must not outlive roofline-grade, even killed outright
    warnings.filterwarnings("ignore")
    Finalize(None, warm.cleanup, exitpriority=10)


def run_until_broken(
    tasks: Sequence[Task],
    settings: Settings,
    jobs: int,
    on_result: OnResult,
    stuck_after_s: float,
) -> list[Task]:
    """Grade ``tasks`` with ``jobs`` workers, calling ``on_result`` for each result, in new pools
    for as long as pools break; returns the suspects: the tasks in flight when a pool broke."""
    queue, suspects = list(tasks), []
    while queue:
        queue, in_flight = _run_batch(queue, settings, jobs, on_result, stuck_after_s)
        suspects += in_flight
    return suspects


def _run_batch(
    tasks: list[Task], settings: Settings, jobs: int, on_result: OnResult, stuck_after_s: float
) -> tuple[list[Task], list[Task]]:
    """Run tasks in one pool until they are done or the pool breaks.

    Returns the tasks not started yet and the tasks in flight when it broke (both empty if not).
    """
    executor = ProcessPoolExecutor(
        max_workers=max(1, min(jobs, len(tasks))),
        mp_context=_context(),
        initializer=_init_worker,
        initargs=(os.getpid(),),
    )
    pending: dict[Future[SubmissionResult], Task] = {
        executor.submit(worker.grade, task, settings): task for task in tasks
    }
    broken = False
    try:
        while pending and not broken:
            done, _ = wait(pending, timeout=stuck_after_s, return_when=FIRST_COMPLETED)
            if not done:  # nothing finished for far longer than a notebook may take
                broken = True
            for future in done:
                try:
                    result = future.result()
                except BrokenProcessPool:
                    broken = True
                    continue
                del pending[future]
                on_result(result)
    except BaseException:
        _kill_workers(executor)
        executor.shutdown(wait=False, cancel_futures=True)
        raise
    if not broken:
        executor.shutdown(wait=True)
        return [], []
    started = [task for task in pending.values() if worker.started_marker(task, settings).exists()]
    not_started = [task for task in pending.values() if task not in started]
    in_flight = started
    _kill_workers(executor)
    executor.shutdown(wait=False, cancel_futures=True)
    return not_started, in_flight


def _kill_workers(executor: ProcessPoolExecutor) -> None:
    """SIGKILL the workers and wait until they are gone (so that what they made can be swept)."""
    processes = list(getattr(executor, "_processes", {}).values())
    for process in processes:
        if process.is_alive():
            process.kill()
    for process in processes:
        process.join(timeout=10)
