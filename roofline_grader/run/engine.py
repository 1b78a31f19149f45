"""Where submissions are graded: the seam between a grading run and the processes that grade.

A run (:mod:`~roofline_grader.run.runner`) hands an :class:`Engine` the tasks still to grade and one
:class:`Job` (what every task of the run needs); the engine calls ``on_result`` in the run's own
process, once per task, as each result arrives. Two engines exist: this machine's process pool
(:class:`roofline_grader.run.pool.ProcessPoolEngine`) and a Dask cluster
(:class:`roofline_grader.run.cluster.ClusterEngine`); tests use a fake one that returns results
without kernels. nbgrader's exchange (``nbgrader/exchange/abc`` behind ``exchange_factory``) is the
model: several implementations behind one abstract interface.

Both real engines survive a submission that takes its grading process down (a fork bomb, a
kernel that eats the memory, one that hangs) the same way, :func:`grade_isolating_culprits`:
every task in flight when a worker died is a suspect; after the others, each suspect is graded
again alone, and only one that takes its worker down again is the culprit, recorded as a
:attr:`~roofline_grader.results.ProblemKind.GRADER_CRASH` (:data:`CULPRIT_DETAIL`), while the
others are graded normally.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from roofline_grader.intake.discover import Task
from roofline_grader.results import ProblemKind, SubmissionResult
from roofline_grader.run.worker import Settings, failed_result

OnResult = Callable[[SubmissionResult], None]
"""Called in the run's process with each result, in the order results arrive."""

GradeBatch = Callable[[Sequence[Task], int], list[Task]]
"""Grade tasks at most ``width`` at a time, each result to ``on_result``; return the tasks left
without a result because the process grading them died or hung (the suspects)."""

CULPRIT_DETAIL = (
    "the process grading this notebook died or hung every time, even with the notebook graded alone"
)
"""The reason a culprit's result gives, whichever engine found it."""


@dataclass(frozen=True)
class Job:
    """What every task of one run needs, whichever engine grades it.

    Attributes:
        settings: the workers' settings (scratch folders, timeouts, the release's grade cells).
        template_db: the template gradebook every task's scratch course starts from.
        grader: the fingerprint of this process's roofline_lib and roofline_grader
            (:func:`roofline_grader.run.journal.grader_fingerprint`): a remote worker with other code
            refuses the work.
        stuck_after_s: seconds without any result after which the workers count as hung.
    """

    settings: Settings
    template_db: Path
    grader: str
    stuck_after_s: float


class Engine(Protocol):
    """Grades a run's tasks somewhere and reports each result; see the module docstring."""

    @property
    def workers(self) -> int:
        """How many submissions it grades at once (the report's "jobs")."""
        ...

    def check_sandbox(self, sandbox: str) -> None:
        """Decide the sandbox ('on' or 'off') before anything is graded; raise
        :class:`~roofline_grader.kernel.sandbox.SandboxUnavailableError` when grading must not start."""
        ...

    def run(self, tasks: Sequence[Task], job: Job, on_result: OnResult) -> None:
        """Grade ``tasks``, calling ``on_result`` with each result as it arrives (a culprit's
        too, see :func:`grade_isolating_culprits`)."""
        ...

    def sandbox_note(self) -> str:
        """The sandbox the grading ran in, in a sentence for the report."""
        ...

    def notes(self) -> list[str]:
        """Lines for the report about the engine itself (workers, throughput); may be empty."""
        ...

    def as_json(self) -> dict[str, Any] | None:
        """The same notes for report.json, or None."""
        ...

    def close(self) -> None:
        """Release the workers (idempotent)."""
        ...


def culprit_result(task: Task, settings: Settings) -> SubmissionResult:
    """The result of a task whose grading process died or hung even when graded alone."""
    return failed_result(task, settings, ProblemKind.GRADER_CRASH, CULPRIT_DETAIL)


def grade_isolating_culprits(
    tasks: Sequence[Task],
    width: int,
    grade_batch: GradeBatch,
    settings: Settings,
    on_result: OnResult,
) -> None:
    """Grade ``tasks`` ``width`` at a time with ``grade_batch``; then grade each suspect (a task
    whose process died or hung) again alone, one at a time, and give one that is left without a
    result even then :func:`culprit_result`. Every task gets exactly one result."""
    suspects = grade_batch(tasks, width) if tasks else []
    for task in suspects:
        for culprit in grade_batch([task], 1):
            on_result(culprit_result(culprit, settings))
