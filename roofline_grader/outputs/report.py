"""The run's outputs for the instructor: grades.csv and the report of submissions with problems.

grades.csv has one row per student and these columns, in order:

* ``student_id``;
* for each problem, one column per part, named by the part's grade id (``p1a_bytes``, …), then the
  problem's total (``problem1``);
* ``total`` (the student's points) and ``max`` (the points available), both over the problems
  graded so far.

A part awaiting grading by hand is left empty and counts as nothing in the totals until it is
graded (in nbgrader's formgrader, on the workspace) and roofline-grade is run again. A problem
not graded yet (no submission of it, by anyone, in the workspace) has every cell empty and
counts in neither column; one the class handed in and a student did not counts 0 of its points
(the rule is :mod:`roofline_grader.outputs.standing`'s, which every output follows).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from roofline_grader.course.cells import ReleaseIndex
from roofline_grader.names import one_line, spreadsheet_cell
from roofline_grader.outputs.classreport import ClassSummary, text_lines
from roofline_grader.outputs.standing import Standing
from roofline_grader.outputs.tally import Tally, format_duration
from roofline_grader.results import ProblemKind, SubmissionProblem, SubmissionResult

if TYPE_CHECKING:
    from roofline_grader.intake.discover import Unplaced
    from roofline_grader.outputs.feedback import OutputFailure


def fmt(value: float | None) -> str:
    """A score for the table: '2', '1.5', or '' when there is none yet."""
    return "" if value is None else f"{value:g}"


def grade_parts(index: ReleaseIndex) -> list[tuple[str, str, float]]:
    """(assignment, grade id, points) of every grade cell, in course order."""
    return [
        (assignment, cell.grade_id, cell.max_points)
        for assignment, cells in index.notebooks
        for cell in cells
        if cell.grade
    ]


def grade_table(
    standings: Mapping[str, Standing], students: Sequence[str], index: ReleaseIndex
) -> tuple[list[str], list[list[str]]]:
    """The header and rows of grades.csv, from each student's standing (manual scores included;
    :mod:`roofline_grader.outputs.standing`): every part and problem of the course, a part awaiting
    a hand grade empty, a problem not graded yet empty throughout; ``total`` and ``max`` over the
    problems graded so far (a missing problem counts 0 of its points)."""
    parts = grade_parts(index)
    header = ["student_id"]
    for assignment in index.assignments:
        header += [gid for a, gid, _ in parts if a == assignment] + [assignment]
    header += ["total", "max"]
    rows = []
    for student in students:
        standing, row = standings[student], [student]
        for problem in standing.problems:
            if not problem.counts:
                row += [""] * (len(problem.parts) + 1)
                continue
            row += [fmt(part.score) for part in problem.parts] + [fmt(problem.points)]
        rows.append([*row, fmt(standing.total), fmt(standing.maximum)])
    return header, rows


def write_csv(path: Path, header: list[str], rows: list[list[str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow([spreadsheet_cell(c) for c in header])
        writer.writerows([[spreadsheet_cell(c) for c in row] for row in rows])


def _unplaced_lines(u: Unplaced) -> list[str]:
    return [f"  {u.file}", f"    - {u.why.words}: {u.detail}"]


@dataclass
class Report:
    """What a run did, and every submission that had a problem and why."""

    workspace: Path
    students: Sequence[str]
    results: list[SubmissionResult]
    graded_now: int
    seconds: float
    jobs: int
    sandbox: str
    feedback_pages: int
    tally: Tally
    points: Mapping[tuple[str, str], float] = field(default_factory=dict)
    """Per (student, assignment), the points in the gradebook: automatic and hand scores."""
    tampered: bool = False
    class_summary: ClassSummary | None = None
    """What the class got wrong (roofline_grader.outputs.classreport), also written to report.html."""
    feedback_notes: Sequence[str] = ()
    feedback_release: Mapping[str, Any] | None = None
    hand_notes: Sequence[str] = ()
    cluster_notes: Sequence[str] = ()
    """The Dask cluster and each worker's throughput (roofline-grade --cluster); empty without."""
    cluster: Mapping[str, Any] | None = None
    """The same for report.json (roofline_grader.run.cluster.ClusterSession.as_json); None without."""
    """What --manual-scores applied and --manual-sheet wrote (roofline_grader.handgrading.manual)."""
    intake_notes: Sequence[str] = ()
    """The input's layout and the LMS grade files written (roofline_grader.outputs.exports)."""
    unplaced: Sequence[Unplaced] = ()
    """Every file of the submissions that was not graded, and why (roofline_grader.intake.discover)."""
    standing: Mapping[str, Any] = field(default_factory=dict)
    """Problems not graded yet, roster rows left out, LMS cells left blank (for report.json)."""
    output_failures: Sequence[OutputFailure] = ()
    """Outputs that could not be written for a student (roofline-grade then exits 6)."""
    lines: list[str] = field(default_factory=list)

    def problem_rows(self) -> list[tuple[str, str, SubmissionProblem]]:
        """(student, assignment, problem) for every problem met, in input order."""
        return [(r.student, r.assignment, p) for r in self.results for p in r.problems]

    def unplaced_needing_you(self) -> list[Unplaced]:
        """The files not graded that the run could not place (roofline-grade exits 3 for them)."""
        return [u for u in self.unplaced if not u.why.routine]

    def unplaced_routine(self) -> list[Unplaced]:
        """The files not graded for a routine reason (a superseded upload): listed, not an error."""
        return [u for u in self.unplaced if u.why.routine]

    def text(self) -> str:
        """report.txt: each entry one line (:func:`~roofline_grader.names.one_line`), whatever
        the ids, names and file names in it hold."""
        n = len(self.results)
        assignments = len({r.assignment for r in self.results})
        lines = [
            f"roofline-grade: {len(self.students)} students × {assignments} problems = {n} "
            f"submissions; {self.graded_now} graded now, {n - self.graded_now} unchanged since the "
            f"last run; {format_duration(self.seconds)} with {self.jobs} worker(s).",
            f"Kernel sandbox: {self.sandbox}.",
            *self.cluster_notes,
            f"Grades: {self.workspace / 'grades.csv'}",
            f"Feedback: {self.workspace / 'feedback'} ({self.feedback_pages} students)",
            *self.feedback_notes,
            *self.hand_notes,
            *self.intake_notes,
        ]
        if self.tampered:
            lines.append(
                "WARNING: the course's files (roofline_lib, roofline_grader or solutions/) changed "
                "while grading; check them with git status and grade again."
            )
        lines.append(f"In all: {self.tally.words()}.")
        pending = {gid: n for gid, n in self.tally.by_hand.items() if n}
        if pending:
            parts = ", ".join(f"{gid} ({count})" for gid, count in sorted(pending.items()))
            lines.append(
                f"Awaiting grading by hand: {parts}. Grade them in nbgrader's formgrader (make "
                f"formgrader OUT={self.workspace}) or in a spreadsheet (--manual-sheet FILE, then "
                "--manual-scores FILE), then run roofline-grade again to update grades.csv."
            )
        missing: dict[str, list[str]] = {}
        by_submission: dict[tuple[str, str], list[SubmissionProblem]] = {}
        not_yet = set(self.standing.get("not_graded_yet", ()))  # said above, and scored nothing
        for student, assignment, problem in self.problem_rows():
            if problem.kind is ProblemKind.MISSING_NOTEBOOK:
                if assignment not in not_yet:
                    missing.setdefault(student, []).append(assignment)
            else:
                by_submission.setdefault((student, assignment), []).append(problem)
        lines.append("")
        if missing:
            lines.append(f"Missing notebooks, scored 0 ({sum(map(len, missing.values()))}):")
            lines += [f"  {student}: {', '.join(items)}" for student, items in missing.items()]
        if not by_submission:
            lines.append("No submission had a problem.")
        else:
            lines.append(f"Submissions with problems ({len(by_submission)}):")
            results = {(r.student, r.assignment): r for r in self.results}
            for (student, assignment), items in by_submission.items():
                result = results[(student, assignment)]
                got = self.points.get((student, assignment), result.auto_points)
                lines.append(
                    f"  {student} / {assignment} (scored {got:g} of {result.max_points:g}):"
                )
                for p in items:
                    lines.append(f"    - {p.kind.words}: {p.where}{p.detail}")
        if self.output_failures:
            lines += ["", f"Outputs not written ({len(self.output_failures)}; the rest were):"]
            lines += [f"  {failure.words()}" for failure in self.output_failures]
        needing, routine = self.unplaced_needing_you(), self.unplaced_routine()
        if needing:
            lines += ["", f"Files not graded, to look at ({len(needing)}):"]
            lines += [line for u in needing for line in _unplaced_lines(u)]
        if routine:
            lines += [
                "",
                f"Files not graded, routine ({len(routine)}; earlier uploads superseded by a later "
                "one, and uploads of roster rows left out of grading):",
            ]
            lines += [line for u in routine for line in _unplaced_lines(u)]
        if self.class_summary is not None:
            lines += ["", *text_lines(self.class_summary, self.workspace / "report.html")]
        return "".join(one_line(line) + "\n" for line in lines)

    def write_json(self, path: Path) -> None:
        data = {
            "students": list(self.students),
            "graded_now": self.graded_now,
            "seconds": round(self.seconds, 2),
            "jobs": self.jobs,
            "sandbox": self.sandbox,
            "cluster": self.cluster,
            "submissions": self.tally.submissions,
            "with_problems": self.tally.with_problems,
            "missing": self.tally.missing,
            "awaiting_by_hand": dict(self.tally.by_hand),
            "feedback_release": self.feedback_release,
            **self.standing,
            "output_failures": [
                {"student": f.student, "output": f.output, "reason": f.reason}
                for f in self.output_failures
            ],
            "unplaced": [
                {
                    "file": u.file,
                    "why": u.why.name.lower(),
                    "routine": u.why.routine,
                    "detail": u.detail,
                }
                for u in self.unplaced
            ],
            "problems": [
                {"student": s, "assignment": a, "kind": p.kind.value, "detail": p.where + p.detail}
                for s, a, p in self.problem_rows()
            ],
        }
        path.write_text(json.dumps(data, indent=1), encoding="utf-8")
