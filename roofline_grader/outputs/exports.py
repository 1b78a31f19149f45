"""Grades for the LMS: a Canvas gradebook import CSV and a Moodle grade import CSV, from the roster.

Both are written (beside grades.csv) when ``roofline-grade`` is given ``--roster``. They have one
row per roster student, in the roster's order, and one column per problem graded in the run (a
download of one assignment gives one column, so importing it never overwrites another problem's
grades with zeros), holding the problem's points as grades.csv has them (parts awaiting grading
by hand count nothing until graded). A roster
student with no submission has 0. A submission whose student is not in the roster is never graded
(it is listed in the report), so it is in neither file.

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

Every cell goes through :func:`~roofline_grader.outputs.report.spreadsheet_safe` (CSV injection: a name
starting with ``=`` is written as text).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from roofline_grader.course.cells import ReleaseIndex
from roofline_grader.intake.lms import problem_of
from roofline_grader.intake.roster import Roster, Student
from roofline_grader.outputs.report import fmt, grade_parts, write_csv

CANVAS_FILE = "canvas_grades.csv"
MOODLE_FILE = "moodle_grades.csv"
CANVAS_STUDENT_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
MOODLE_STUDENT_COLUMNS = ("Full name", "ID number", "Email address", "Username")


@dataclass(frozen=True)
class Exports:
    """The LMS grade files written by a run."""

    canvas: Path
    moodle: Path


def problem_points(index: ReleaseIndex) -> dict[str, float]:
    """Points available per problem: the sum of its grade cells' points."""
    points = dict.fromkeys(index.assignments, 0.0)
    for assignment, _, p in grade_parts(index):
        points[assignment] += p
    return points


def problem_totals(
    header: Sequence[str], rows: Sequence[Sequence[str]], assignments: Sequence[str]
) -> dict[str, list[str]]:
    """Each student's problem totals, read from grades.csv's header and rows (a problem's total is
    the column named by the problem); an empty total (a hand-graded problem not graded yet) is 0."""
    columns = [header.index(a) for a in assignments]
    return {row[0]: [row[i] or "0" for i in columns] for row in rows}


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
    return [s.name, s.lms_id, s.student_id, s.login, s.section]


def _moodle_student(s: Student) -> list[str]:
    return [s.name, s.student_id, s.email, s.login]


def _student_rows(
    roster: Roster,
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    assignments: Sequence[str],
    columns: Callable[[Student], list[str]],
) -> list[list[str]]:
    """One row per roster student, in its order: ``columns`` of the student, then their problem
    totals (0 without a submission)."""
    totals = problem_totals(header, rows, assignments)
    return [
        [*columns(s), *totals.get(s.student_id, ["0"] * len(assignments))] for s in roster.students
    ]


def canvas_rows(
    roster: Roster,
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    index: ReleaseIndex,
    problems: Sequence[str] | None = None,
) -> list[list[str]]:
    """The Canvas import file's rows, header first, then Points Possible, then each student; one
    column per problem of ``problems`` (default: every problem of ``index``)."""
    assignments = list(problems or index.assignments)
    points = problem_points(index)
    out = [
        [*CANVAS_STUDENT_COLUMNS, *canvas_titles(roster, assignments)],
        ["Points Possible", "", "", "", "", *(fmt(points[a]) for a in assignments)],
    ]
    return out + _student_rows(roster, header, rows, assignments, _canvas_student)


def moodle_rows(
    roster: Roster,
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    index: ReleaseIndex,
    problems: Sequence[str] | None = None,
) -> list[list[str]]:
    """The Moodle import file's rows, header first (columns as in :func:`canvas_rows`)."""
    assignments = list(problems or index.assignments)
    out = [[*MOODLE_STUDENT_COLUMNS, *assignments]]
    return out + _student_rows(roster, header, rows, assignments, _moodle_student)


def write_exports(
    folder: Path,
    roster: Roster,
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    index: ReleaseIndex,
    problems: Sequence[str],
) -> Exports:
    """Write canvas_grades.csv and moodle_grades.csv into ``folder``, one column per problem of
    ``problems`` (those graded in the run)."""
    exports = Exports(folder / CANVAS_FILE, folder / MOODLE_FILE)
    canvas = canvas_rows(roster, header, rows, index, problems)
    write_csv(exports.canvas, canvas[0], canvas[1:])
    moodle = moodle_rows(roster, header, rows, index, problems)
    write_csv(exports.moodle, moodle[0], moodle[1:])
    return exports
