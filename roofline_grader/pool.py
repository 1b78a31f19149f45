"""Run grading tasks in worker processes, and survive the ones that take a worker down.

Workers are forked (spawned where fork is unavailable) from a parent that has already imported
nbgrader, so they start at once. Each result is handed to ``on_result`` in the parent as soon as it
arrives. If a worker process dies (killed, out of memory) or a task runs far past its time budget,
every task that had started (each worker leaves a marker when it begins one) is a suspect: each is
rerun alone, in a pool of its own; one that fails again alone is the culprit and gets an error
result, and the others are graded normally. Tasks that had not started go back in the queue.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

from . import worker
from .results import ProblemKind, SubmissionResult
from .sandbox import die_with_parent
from .worker import Settings, Task

OnResult = Callable[[SubmissionResult], None]


def _context() -> multiprocessing.context.BaseContext:
    if sys.platform.startswith("linux"):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def _init_worker(parent: int) -> None:
    import warnings
    from multiprocessing.util import Finalize

    from . import warm

    die_with_parent(parent)  # a worker must not outlive roofline-grade, even killed outright
    warnings.filterwarnings("ignore")
    Finalize(None, warm.cleanup, exitpriority=10)


def run(
    tasks: Sequence[Task],
    settings: Settings,
    jobs: int,
    on_result: OnResult,
    stuck_after_s: float,
) -> None:
    """Grade ``tasks`` with ``jobs`` workers, calling ``on_result`` for each result."""
    queue, suspects = list(tasks), []
    while queue:
        queue, in_flight = _run_batch(queue, settings, jobs, on_result, stuck_after_s)
        suspects += in_flight
    for task in suspects:
        _, culprits = _run_batch([task], settings, 1, on_result, stuck_after_s)
        for culprit in culprits:
            on_result(
                worker.failed_result(
                    culprit,
                    settings,
                    ProblemKind.GRADER_CRASH,
                    "the grading process died or hung while grading this notebook, even alone",
                )
            )


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
