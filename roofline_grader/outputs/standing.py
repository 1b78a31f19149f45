"""Where each student stands on each problem: the one rule every output counts points by.

A problem is in one of four states for a student (:class:`State`):

* **not graded yet**: no one has handed this problem in (no submission of it in the workspace's
  gradebook, or in this run only missing notebooks): an instructor grading Problems 1, 7 and 9 has
  not graded Problem 2 yet. It counts in no
  total and no maximum; grades.csv leaves its cells empty, a feedback page says "not graded yet",
  the LMS files have no column for it.
* **missing**: the class's submissions of the problem are graded, and this student handed in
  none. It counts 0 of its points in totals and maxima (the student missed it); the LMS files
  leave the cell blank, so an import never turns "missing" or "excused" into a 0, unless the
  instructor asks for zeros.
* **awaiting a hand grade**: submitted, and some written part has no score yet. Totals count what
  is scored; the LMS files leave the cell blank (never a partial score exported as final), and
  the report lists each.
* **graded**: every part scored.

So a run's totals, maxima and shares are over the problems graded so far
(:func:`graded_problems`), and the report names the others. Missing is told from a submission
by the run's result for it (no notebook found); a problem graded in an earlier run has no result
in this one and its gradebook scores stand as graded.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nbgrader.api import Assignment, Gradebook, SubmittedAssignment

from roofline_grader.course.cells import ReleaseIndex
from roofline_grader.outputs.gradebook import Scores
from roofline_grader.results import SubmissionResult


class State(enum.Enum):
    """How far a student's problem is graded (see the module)."""

    NOT_GRADED_YET = "not graded yet"
    MISSING = "no submission"
    AWAITING_HAND = "awaiting grading by hand"
    GRADED = "graded"


@dataclass(frozen=True)
class PartScore:
    """One grade cell of a problem: its id, the points it is worth, the score (None: not yet)."""

    grade_id: str
    max_points: float
    score: float | None


@dataclass(frozen=True)
class ProblemStanding:
    """One student's problem: its state, its parts' scores, points and maximum."""

    assignment: str
    state: State
    parts: tuple[PartScore, ...]

    @property
    def counts(self) -> bool:
        """True when the problem counts in totals and maxima (graded for the class)."""
        return self.state is not State.NOT_GRADED_YET

    @property
    def points(self) -> float:
        """The points scored so far (0 for a missing problem)."""
        return sum(p.score or 0.0 for p in self.parts)

    @property
    def max_points(self) -> float:
        return sum(p.max_points for p in self.parts)

    @property
    def awaiting_points(self) -> float:
        """The points of parts still to be graded by hand."""
        return sum(p.max_points for p in self.parts if p.score is None)

    def lms_cell(self, zero_for_missing: bool = False) -> str:
        """The problem's grade in an LMS import file: its points when final, else blank (a
        missing problem is 0 with ``zero_for_missing``)."""
        if self.state is State.GRADED or (self.state is State.MISSING and zero_for_missing):
            return f"{self.points:g}"
        return ""


@dataclass(frozen=True)
class Standing:
    """A student's problems, in course order, and the totals over those graded so far."""

    student: str
    problems: tuple[ProblemStanding, ...]

    def problem(self, assignment: str) -> ProblemStanding:
        return next(p for p in self.problems if p.assignment == assignment)

    @property
    def total(self) -> float:
        return sum(p.points for p in self.problems if p.counts)

    @property
    def maximum(self) -> float:
        return sum(p.max_points for p in self.problems if p.counts)


def graded_problems(gb: Gradebook, results: Iterable[SubmissionResult] = ()) -> frozenset[str]:
    """The problems graded so far: those of which the gradebook holds a submission (anyone's),
    but for a problem whose every result in this run (``results``) is a missing notebook. In
    nbgrader's layout every student folder is a task for every problem, so a problem no one has
    handed in yet would otherwise count as a class of missing notebooks."""
    rows = (
        gb.db.query(Assignment.name)
        .join(SubmittedAssignment, SubmittedAssignment.assignment_id == Assignment.id)
        .distinct()
    )
    handed_in: dict[str, bool] = {}
    for result in results:
        handed_in[result.assignment] = handed_in.get(result.assignment, False) or (
            not result.is_missing
        )
    return frozenset(name for (name,) in rows if handed_in.get(name, True))


def problem_standing(
    assignment: str,
    parts: Sequence[tuple[str, float]],
    scores: Mapping[str, Mapping[str, Any]],
    graded: bool,
    result: SubmissionResult | None,
) -> ProblemStanding:
    """One problem's standing from its parts ((grade id, points), in notebook order), the
    gradebook's scores of the student's submission (empty: none), whether the class's
    submissions of it are graded, and this run's result for it (None: not in this run)."""
    if not graded:
        return ProblemStanding(
            assignment, State.NOT_GRADED_YET, tuple(PartScore(g, p, None) for g, p in parts)
        )
    if not scores or (result is not None and result.is_missing):
        return ProblemStanding(
            assignment, State.MISSING, tuple(PartScore(g, p, 0.0) for g, p in parts)
        )
    scored = []
    for gid, points in parts:
        score = scores.get(gid, {}).get("score", 0.0)
        scored.append(PartScore(gid, points, None if score is None else float(score)))
    waiting = any(p.score is None for p in scored)
    return ProblemStanding(
        assignment, State.AWAITING_HAND if waiting else State.GRADED, tuple(scored)
    )


def standings(
    scores: Scores,
    students: Sequence[str],
    index: ReleaseIndex,
    results: Mapping[tuple[str, str], SubmissionResult],
    graded: Collection[str],
) -> dict[str, Standing]:
    """Every student's standing, by student id, from the gradebook's ``scores``
    (:func:`~roofline_grader.outputs.gradebook.gradebook_scores`). ``results``: this run's result of each
    (student, assignment) it graded or found missing; ``graded``: the problems graded so far
    (:func:`graded_problems`)."""
    parts: dict[str, list[tuple[str, float]]] = {a: [] for a in index.assignments}
    for assignment, cells in index.notebooks:
        parts[assignment] += [(c.grade_id, c.max_points) for c in cells if c.grade]
    out = {}
    for student in students:
        problems = tuple(
            problem_standing(
                a,
                parts[a],
                scores.of(a, student) if a in graded else {},
                a in graded,
                results.get((student, a)),
            )
            for a in index.assignments
        )
        out[student] = Standing(student, problems)
    return out
