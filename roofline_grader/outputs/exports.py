"""Grades for the LMS: a Canvas gradebook import CSV and a Moodle grade import CSV, from the roster.

Both are written (beside grades.csv) when ``roofline-grade`` is given ``--roster``. They have one
row per roster student, in the roster's order (rows the roster leaves out of grading, such as
Canvas's test student, are in neither file), and one column per problem graded in the run (a
download of one assignment gives one column, so importing it never overwrites another problem's
grades with zeros). A cell holds a grade only when it is final
(:meth:`~roofline_grader.outputs.standing.ProblemStanding.lms_cell`):

* a graded problem has its points, as grades.csv has them;
* a problem **awaiting a hand grade** is blank, never its automatic part alone, and the report
  lists each such cell ("left blank in the LMS files"); the next run after the hand grades are in
  exports the whole problem;
* a student **with no submission** is blank, so that an import leaves Canvas's "missing" or
  "excused" and Moodle's empty grade as they are (``--lms-zero-for-missing`` writes 0).

Why blank: a Canvas import reads a grade from each cell, and a 0 it would write over a student's
"missing" or "excused" status; every column whose title Canvas does not know becomes a new
assignment ("New assignment columns in the Gradebook generate new assignments", Ohio State's
Carmen guide to the Canvas CSV import), so a flag cannot travel in a column of its own. Moodle's
CSV import maps each column to a grade item and skips an empty cell. A submission whose student
is not in the roster is never graded (it is listed in the report), so it is in neither file.
Every id written is one the roster gives: a row with no student id has its SIS User ID / ID number
blank (:attr:`~roofline_grader.intake.roster.Student.sis_id`).

**canvas_grades.csv** — Canvas's gradebook import ("Grades > Import"; the format is the one
Canvas's gradebook export writes, which its importer reads back: ``GradebookImporter`` in
instructure/canvas-lms looks for the header ``Student, ID, [SIS User ID, SIS Login ID,] Section``,
then one column per assignment, and skips a ``Points Possible`` row):

* ``Student`` (the roster's name), ``ID`` (the Canvas user id: the roster's LMS id), ``SIS User
  ID`` (the roster's student id), ``SIS Login ID`` (its login), ``Section``;
* one column per problem. Canvas matches a column to an existing assignment by a header
  ``<title> (<assignment id>)`` or by its exact title, and creates a new assignment for a title it
  does not know; so when the roster is Canvas's own gradebook export, a problem's column takes the
  title of the roster's one assignment column that names it (``Problem 1: An int8 matmul
  (123456)``, found as intake finds a problem in a file name), and otherwise the problem's id
  (``problem1``: Canvas then creates an assignment of that name);
* a second row, ``Points Possible``, with each problem's points.

Canvas finds each student by ID, else SIS User ID, else SIS Login ID, so a roster with any of them
is enough.

**moodle_grades.csv** — Moodle's CSV grade import (Grades > Import > CSV file; MoodleDocs "Grade
import": "Map from" a column that identifies the user to "Map to" the user field, e.g. "Email
address" → useremail or "ID number" → useridnumber, then each grade column to a grade item or to
a new grade item). Columns: ``Full name``, ``ID number`` (the roster's student id), ``Email
address``, ``Username`` (the roster's login), then one column per problem.

Every cell goes through :func:`~roofline_grader.names.spreadsheet_cell` (CSV injection: a name
starting with ``=`` is written as text).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from roofline_grader.course.cells import ReleaseIndex
from roofline_grader.intake.lms import problem_of
from roofline_grader.intake.roster import Roster, Student
from roofline_grader.outputs.report import fmt, grade_parts, write_csv
from roofline_grader.outputs.standing import Standing, State

CANVAS_FILE = "canvas_grades.csv"
MOODLE_FILE = "moodle_grades.csv"
CANVAS_STUDENT_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
MOODLE_STUDENT_COLUMNS = ("Full name", "ID number", "Email address", "Username")


@dataclass(frozen=True)
class Exports:
    """The LMS grade files written by a run, and the cells they leave blank."""

    canvas: Path
    moodle: Path
    blanks: tuple[BlankCell, ...] = ()

    def words(self) -> list[str]:
        """The report's lines: where the files are, and what they leave blank and why."""
        lines = [f"For the LMS: {self.canvas}, {self.moodle}"]
        for state, advice in (
            (State.AWAITING_HAND, "grade the written parts by hand, then run again"),
            (State.MISSING, "--lms-zero-for-missing writes 0 instead"),
        ):
            cells = [b for b in self.blanks if b.state is state]
            if cells:
                which = ", ".join(f"{b.student} {b.assignment}" for b in cells[:20])
                more = f" and {len(cells) - 20} more" if len(cells) > 20 else ""
                lines.append(
                    f"  Left blank in the LMS files, {state.value} ({len(cells)}; {advice}): "
                    f"{which}{more}"
                )
        return lines


def problem_points(index: ReleaseIndex) -> dict[str, float]:
    """Points available per problem: the sum of its grade cells' points."""
    points = dict.fromkeys(index.assignments, 0.0)
    for assignment, _, p in grade_parts(index):
        points[assignment] += p
    return points


CANVAS_ID_SUFFIX = re.compile(r"\s*\(\d+\)\s*$")
"""The ``(<assignment id>)`` that ends a Canvas gradebook column's title."""


def canvas_titles(roster: Roster, assignments: Sequence[str]) -> list[str]:
    """Each problem's Canvas column title: the roster's one Canvas assignment column (a title that
    ends in ``(<id>)``) naming that problem, else the problem's id."""
    titles = []
    for assignment in assignments:
        named = [
            column
            for column in roster.columns
            if CANVAS_ID_SUFFIX.search(column)
            and problem_of(CANVAS_ID_SUFFIX.sub("", column), assignments) == assignment
        ]
        titles.append(named[0] if len(named) == 1 else assignment)
    return titles


def _canvas_student(s: Student) -> list[str]:
    return [s.name, s.lms_id, s.sis_id, s.login, s.section]


def _moodle_student(s: Student) -> list[str]:
    return [s.name, s.sis_id, s.email, s.login]


def _student_rows(
    roster: Roster,
    standings: Mapping[str, Standing],
    assignments: Sequence[str],
    columns: Callable[[Student], list[str]],
    zero_for_missing: bool,
) -> list[list[str]]:
    """One row per roster student, in its order: ``columns`` of the student, then each problem's
    grade when final (:meth:`ProblemStanding.lms_cell`), else blank."""
    return [
        [*columns(s), *(_cell(standings, s, a, zero_for_missing)[0] for a in assignments)]
        for s in roster.students
    ]


def _cell(
    standings: Mapping[str, Standing], student: Student, assignment: str, zero_for_missing: bool
) -> tuple[str, State]:
    """A student's cell for a problem in the LMS files (:meth:`ProblemStanding.lms_cell`), and the
    problem's state; a roster student the run has no standing for has no submission."""
    standing = standings.get(student.student_id)
    if standing is None:
        return ("0" if zero_for_missing else ""), State.MISSING
    problem = standing.problem(assignment)
    return problem.lms_cell(zero_for_missing), problem.state


def canvas_rows(
    roster: Roster,
    standings: Mapping[str, Standing],
    index: ReleaseIndex,
    problems: Sequence[str] | None = None,
    zero_for_missing: bool = False,
) -> list[list[str]]:
    """The Canvas import file's rows, header first, then Points Possible, then each student; one
    column per problem of ``problems`` (default: every problem of ``index``)."""
    assignments = list(problems or index.assignments)
    points = problem_points(index)
    out = [
        [*CANVAS_STUDENT_COLUMNS, *canvas_titles(roster, assignments)],
        ["Points Possible", "", "", "", "", *(fmt(points[a]) for a in assignments)],
    ]
    return out + _student_rows(roster, standings, assignments, _canvas_student, zero_for_missing)


def moodle_rows(
    roster: Roster,
    standings: Mapping[str, Standing],
    index: ReleaseIndex,
    problems: Sequence[str] | None = None,
    zero_for_missing: bool = False,
) -> list[list[str]]:
    """The Moodle import file's rows, header first (columns as in :func:`canvas_rows`)."""
    assignments = list(problems or index.assignments)
    out = [[*MOODLE_STUDENT_COLUMNS, *assignments]]
    return out + _student_rows(roster, standings, assignments, _moodle_student, zero_for_missing)


@dataclass(frozen=True)
class BlankCell:
    """A cell the LMS files leave blank: whose, which problem, and why."""

    student: str
    assignment: str
    state: State


def blank_cells(
    roster: Roster,
    standings: Mapping[str, Standing],
    problems: Sequence[str],
    zero_for_missing: bool = False,
) -> list[BlankCell]:
    """Every cell of the LMS files left blank, in roster order (for the report)."""
    blanks = []
    for s in roster.students:
        for a in problems:
            text, state = _cell(standings, s, a, zero_for_missing)
            if not text:
                blanks.append(BlankCell(s.student_id, a, state))
    return blanks


def write_exports(
    folder: Path,
    roster: Roster,
    standings: Mapping[str, Standing],
    index: ReleaseIndex,
    problems: Sequence[str],
    zero_for_missing: bool = False,
) -> Exports:
    """Write canvas_grades.csv and moodle_grades.csv into ``folder``, one column per problem of
    ``problems`` (those graded in the run)."""
    exports = Exports(
        folder / CANVAS_FILE,
        folder / MOODLE_FILE,
        tuple(blank_cells(roster, standings, problems, zero_for_missing)),
    )
    canvas = canvas_rows(roster, standings, index, problems, zero_for_missing)
    write_csv(exports.canvas, canvas[0], canvas[1:])
    moodle = moodle_rows(roster, standings, index, problems, zero_for_missing)
    write_csv(exports.moodle, moodle[0], moodle[1:])
    return exports
