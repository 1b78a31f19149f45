"""The order a run grades its submissions in: the longest expected work first.

A run ends when its last worker finishes. The pool hands tasks out in order, so a slow notebook
handed out last keeps the run going while every other worker sits idle; handed out first, it runs
while the quick ones fill the other workers. Sorting by expected time, longest first, is Graham's
LPT rule (R. L. Graham, "Bounds on multiprocessing timing anomalies", SIAM J. Appl. Math. 17(2),
1969): its makespan is at most 4/3 − 1/(3m) of the best possible on m workers.

The expected time of a task is its assignment's, known in one of two ways:

1. **measured**: the median ``seconds`` of the assignment's results in the workspace's journal,
   from any earlier run (grader keys aside: a new grader version grades at much the same speed);
2. **not measured yet** (a first run, a new problem): these go first, since any of them may be the
   longest; among them, the assignments whose hidden checks judge a figure (a probe of kind
   ``figure``) go first, because their kernel imports matplotlib and draws, which makes them the
   course's slowest notebooks (Problem 3's plot: a median 2.0 s per notebook against 1.5–1.8 s for
   the others, in the test suite's graded run on two workers).

Ties keep the course's order of assignments, then students in order.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence

from roofline_grader.checks import PROBLEMS, make_plan
from roofline_grader.intake.discover import Task


def draws_figure(assignment: str) -> bool:
    """Whether any hidden check of ``assignment`` judges a figure the student's code draws."""
    return any(
        probe.kind == "figure"
        for part in PROBLEMS.get(assignment, ())
        if part.check is not None
        for probe in make_plan(part.check, "schedule").values()
    )


def median_seconds(timings: Iterable[tuple[str, float]]) -> dict[str, float]:
    """Per assignment, the median of the seconds its graded notebooks took."""
    by_assignment: dict[str, list[float]] = {}
    for assignment, seconds in timings:
        by_assignment.setdefault(assignment, []).append(seconds)
    return {a: statistics.median(times) for a, times in by_assignment.items()}


def longest_first(
    tasks: Sequence[Task], measured: Mapping[str, float], assignments: Sequence[str] = ()
) -> list[Task]:
    """``tasks`` in the order to grade them: the longest expected first (see the module).

    Args:
        tasks: the tasks to grade.
        measured: per assignment, the seconds a notebook takes (:func:`median_seconds` of the
            journal); an assignment not in it is not measured yet.
        assignments: the course's assignments in order, for ties (default: by name).
    """
    figure = {a: draws_figure(a) for a in {t.assignment for t in tasks} - set(measured)}
    course_order = {a: i for i, a in enumerate(assignments)}

    def key(task: Task) -> tuple[int, float, int, str, str]:
        a = task.assignment
        if a in measured:
            rank, seconds = 2, measured[a]
        else:
            rank, seconds = (0 if figure[a] else 1), 0.0
        return (rank, -seconds, course_order.get(a, len(course_order)), a, task.student)

    return sorted(tasks, key=key)
