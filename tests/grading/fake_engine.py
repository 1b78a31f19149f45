"""An engine that grades without kernels, for testing a grading run's logic in milliseconds.

:class:`FakeEngine` is a real :class:`~roofline_grader.run.engine.Engine`: a run hands it the tasks
and it calls ``on_result`` for each, through the same culprit isolation the process pool and the
Dask cluster use (:func:`~roofline_grader.run.engine.grade_isolating_culprits`). What it "grades" is
decided by the test: a student's fraction of each part's points, which tasks take their worker
down (every time, or only when graded beside others), after how many results the run is
interrupted (as Ctrl-C or SIGTERM would), or after how many it waits, as a worker busy with a long
notebook would, for a signal from outside.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from roofline_grader.intake.discover import Task
from roofline_grader.results import (
    PartResult,
    ProblemKind,
    Status,
    SubmissionProblem,
    SubmissionResult,
)
from roofline_grader.run.engine import Job, OnResult, grade_isolating_culprits
from roofline_grader.run.worker import Settings


def _missing(task: Task) -> SubmissionProblem:
    """What the real worker says of a task without a notebook."""
    return SubmissionProblem(
        ProblemKind.MISSING_NOTEBOOK, f"no notebook was submitted for {task.assignment}"
    )


def fake_result(task: Task, settings: Settings, fraction: float) -> SubmissionResult:
    """``task`` graded as nbgrader would score a notebook earning ``fraction`` of every automatic
    part (a written part awaits grading by hand: no automatic score); no notebook: all zero."""
    if task.notebook is None:
        fraction = 0.0
    parts = []
    for cell in settings.release_index.cells(task.assignment):
        if not cell.grade:
            continue
        written = cell.solution and cell.cell_type == "markdown"
        auto = None if written and task.notebook else round(cell.max_points * fraction, 6)
        parts.append(PartResult(cell.grade_id, auto, cell.max_points))
    return SubmissionResult(
        key=task.key,
        student=task.student,
        assignment=task.assignment,
        fingerprint=task.fingerprint,
        status=Status.GRADED if task.notebook else Status.MISSING,
        timestamp=task.timestamp,
        secret=task.secret,
        notebook=task.notebook,
        problems=task.problems if task.notebook else (*task.problems, _missing(task)),
        parts=tuple(parts),
        seconds=0.01,
    )


@dataclass
class FakeEngine:
    """Grades by the test's rules (see the module docstring).

    Attributes:
        fractions: a student's fraction of the points (default ``default``).
        crashes: (student, assignment) of the tasks whose grading takes the worker down every
            time.
        crashes_in_company: the same, for tasks that take it down only beside other tasks.
        interrupt_after: raise KeyboardInterrupt once this many results have been reported.
        hold_after: once this many results have been reported, write "held" to ``log`` and wait
            until the process is interrupted (a signal from the test).
        width: how many tasks it grades at once.
        seconds_each: how long each result takes (real seconds), to spread a run out in time.
        log: a file to append "student assignment time" to for every task it grades (another
            process can read what a run killed outright had graded, and when).
        graded: the (student, assignment) of every task it was asked to grade, in order (a task
            graded again appears again).
    """

    fractions: dict[str, float] = field(default_factory=dict)
    default: float = 1.0
    crashes: frozenset[tuple[str, str]] = frozenset()
    crashes_in_company: frozenset[tuple[str, str]] = frozenset()
    interrupt_after: int | None = None
    hold_after: int | None = None
    width: int = 2
    seconds_each: float = 0.0
    log: Path | None = None
    graded: list[tuple[str, str]] = field(default_factory=list)
    reported: int = 0
    closed: bool = False
    sandbox_checked: str | None = None

    @property
    def workers(self) -> int:
        return self.width

    def check_sandbox(self, sandbox: str) -> None:
        self.sandbox_checked = sandbox

    def run(self, tasks: Sequence[Task], job: Job, on_result: OnResult) -> None:
        def report(result: SubmissionResult) -> None:
            if self.interrupt_after is not None and self.reported >= self.interrupt_after:
                raise KeyboardInterrupt
            if self.hold_after is not None and self.reported >= self.hold_after:
                self._hold()
            if self.seconds_each:
                time.sleep(self.seconds_each)
            self.reported += 1
            on_result(result)

        def batch(batch_tasks: Sequence[Task], width: int) -> list[Task]:
            suspects = []
            for start in range(0, len(batch_tasks), width):
                group = batch_tasks[start : start + width]
                pairs = [(t.student, t.assignment) for t in group]
                self.graded += pairs
                if self.log is not None:
                    with self.log.open("a") as out:
                        out.writelines(f"{s} {a} {time.time()}\n" for s, a in pairs)
                alone = len(group) == 1
                dead = [
                    pair
                    for pair in pairs
                    if pair in self.crashes or (pair in self.crashes_in_company and not alone)
                ]
                if dead:  # the worker died: everything in flight is a suspect
                    suspects += group
                    continue
                for task in group:
                    report(
                        fake_result(
                            task, job.settings, self.fractions.get(task.student, self.default)
                        )
                    )
            return suspects

        grade_isolating_culprits(tasks, self.width, batch, job.settings, report)

    def _hold(self) -> None:
        if self.log is not None:
            with self.log.open("a") as out:
                out.write("held\n")
        while True:  # until a signal's KeyboardInterrupt (or the process's end)
            time.sleep(0.05)

    def sandbox_note(self) -> str:
        return "fake engine: no kernel ran"

    def notes(self) -> list[str]:
        return ["Engine: fake (tests)"]

    def as_json(self) -> dict[str, Any] | None:
        return None

    def close(self) -> None:
        self.closed = True


def killed_run(root: Path, submissions: Path, workspace: Path, log: Path) -> None:
    """A whole run on a fake engine (results 0.05 s apart, merged four at a time, so a run of a few
    dozen holds several batches), for a process a test kills at a random point: the target of a
    ``multiprocessing`` forkserver process, which starts in milliseconds."""
    import warnings

    warnings.filterwarnings("ignore")
    from roofline_grader.course import Course
    from roofline_grader.run import runner

    runner.MERGE_BATCH = 4
    engine = FakeEngine(fractions={"bob": 0.5}, seconds_each=0.05, log=log)
    options = runner.Options(submissions, workspace, progress=False)
    runner.grade_submissions(Course(root), options, engine)
