"""Grading by hand in a spreadsheet: ``roofline-grade --manual-sheet`` and ``--manual-scores``.

A TA who has no formgrader (or prefers a spreadsheet) gets one CSV row per student × part graded by
hand, with these columns, in order (:data:`COLUMNS`):

* ``student_id``, ``part`` (the grade id, ``p4c_why``);
* ``answer``: the student's text, from the workspace's autograded notebook;
* ``model_answer`` and ``rubric`` (:mod:`~roofline_grader.course.rubric`);
* ``max_points``;
* ``score`` and ``comment``: filled in from the master gradebook's hand score and comment, if any;
  the TA fills in the rest.

``--manual-scores`` reads such a file back (only ``student_id``, ``part``, ``score`` and ``comment``
are needed; other columns are ignored) and writes each score and comment into the master gradebook
as nbgrader's formgrader does (``Grade.manual_score``, ``Comment.manual_comment``,
``needs_manual_grade`` cleared; ``nbgrader/server_extensions/formgrader/apihandlers.py``), before
grades.csv, the feedback pages and the report are written. Every row is checked first; one bad row
and nothing is applied, and the error lists every bad row by its number as a spreadsheet shows it
(with its line in the file where a multi-line cell makes the two differ). An empty score means "not
graded yet" and an empty comment "no comment": both leave the gradebook as it is, so a
stale or partly filled sheet never erases a grade.

The format is RFC 4180 CSV: a field holding line breaks, quotes or commas is quoted, so a
multi-line answer is one cell. The file starts with a UTF-8 byte order mark, which Excel needs to
read UTF-8 (without it, Excel reads the file as the local code page; LibreOffice, Google Sheets and
Python's ``utf-8-sig`` accept it). A cell that a spreadsheet would run as a formula is written with
an apostrophe in front (:func:`~roofline_grader.names.spreadsheet_cell`), which is removed again on
the way in (:func:`~roofline_grader.names.spreadsheet_value`): any text written is read back as it was.
"""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook

from roofline_grader.checks import PARTS
from roofline_grader.course.rubric import HandPart
from roofline_grader.names import spreadsheet_cell, spreadsheet_value
from roofline_grader.outputs.gradebook import Scores
from roofline_grader.outputs.report import fmt

COLUMNS = (
    "student_id",
    "part",
    "answer",
    "model_answer",
    "rubric",
    "max_points",
    "score",
    "comment",
)
"""The sheet's columns, in order."""

REQUIRED = ("student_id", "part", "score", "comment")
"""The columns ``--manual-scores`` reads; the others are there for the person grading."""

FIELD_LIMIT = 2**31 - 1
"""The largest field a sheet may hold (the C long the csv module takes everywhere)."""

ENCODING = "utf-8-sig"
"""UTF-8 with a byte order mark on the way out; with or without one on the way in."""


class ManualSheetError(ValueError):
    """A sheet of hand scores that cannot be applied: the message lists every bad row."""


@dataclass(frozen=True)
class HandScore:
    """One row of a sheet, checked: what to write into the gradebook.

    Attributes:
        row: the row in the sheet, as a spreadsheet numbers it (1 is the header).
        student: the student id.
        grade_id: the part.
        assignment: the part's problem.
        score: the points given, or None (not graded yet: the gradebook's score is kept).
        comment: the comment, or None (none given: the gradebook's comment is kept).
    """

    row: int
    student: str
    grade_id: str
    assignment: str
    score: float | None
    comment: str | None


@dataclass(frozen=True)
class Applied:
    """What ``--manual-scores`` did: the file, the scores and comments written."""

    path: Path
    scores: int
    comments: int
    rows: int

    def words(self) -> str:
        return (
            f"Hand scores: {self.scores} score(s) and {self.comments} comment(s) from {self.path} "
            f"({self.rows} rows; an empty score leaves the part as it was)"
        )


@dataclass(frozen=True)
class Sheet:
    """What ``--manual-sheet`` wrote: the file, its rows and how many await a score (answers
    with neither a hand score nor an automatic one)."""

    path: Path
    rows: int
    awaiting: int

    def words(self) -> str:
        return (
            f"Sheet for grading by hand: {self.path} ({self.rows} rows, {self.awaiting} awaiting "
            "a score); fill in score and comment, then run roofline-grade again with "
            f"--manual-scores {self.path}"
        )


# ----------------------------------------------------------------------------------------------
# Reading a sheet back
# ----------------------------------------------------------------------------------------------


def _score(text: str, points: float) -> tuple[float | None, str]:
    """(score, '') or (None, why it is not a score); (None, '') for an empty cell."""
    text = text.strip()
    if not text:
        return None, ""
    try:
        value = float(text)
    except ValueError:
        hint = " (write decimals with a point: 1.5)" if "," in text else ""
        return None, f"score {text!r} is not a number{hint}"
    if not math.isfinite(value):
        return None, f"score {text!r} is not a number"
    if value < 0 or value > points:
        return None, f"score {text} is outside 0 to {points:g}, the points of the part"
    return value, ""


def read_scores(
    path: Path,
    students: Sequence[str],
    parts: Mapping[str, HandPart],
    missing: frozenset[tuple[str, str]] = frozenset(),
) -> list[HandScore]:
    """Every row of the sheet at ``path``, checked; ManualSheetError listing every bad row.

    Args:
        path: the CSV file.
        students: the students of this run.
        parts: the parts graded by hand, by grade id (:func:`~roofline_grader.course.rubric.hand_parts`).
        missing: (student, assignment) of the submissions that have no notebook.
    """
    try:
        with path.open(newline="", encoding=ENCODING) as fh:
            rows = list(_numbered_rows(fh))
    except FileNotFoundError:
        raise ManualSheetError(f"--manual-scores: no such file: {path}") from None
    except (UnicodeDecodeError, csv.Error) as exc:
        raise ManualSheetError(f"--manual-scores: {path} is not a UTF-8 CSV file ({exc})") from None
    if not rows:
        raise ManualSheetError(f"--manual-scores: {path} is empty; expected a header row")
    header = rows[0].fields
    header = [spreadsheet_value(h).strip() for h in header]
    absent = [c for c in REQUIRED if c not in header]
    if absent:
        raise ManualSheetError(
            f"--manual-scores: {path}, row 1: missing column(s) {', '.join(absent)}; the sheet "
            f"needs {', '.join(REQUIRED)} (roofline-grade --manual-sheet writes them)"
        )
    duplicated = sorted({c for c in header if c and header.count(c) > 1})
    if duplicated:
        raise ManualSheetError(
            f"--manual-scores: {path}, row 1: column(s) {', '.join(duplicated)} appear twice"
        )
    at = {c: header.index(c) for c in REQUIRED}
    known, hand = set(students), ", ".join(parts) or "none"
    errors: list[str] = []
    seen: dict[tuple[str, str], str] = {}
    scores = []
    for record in rows[1:]:
        row = record.fields
        if not any(cell.strip() for cell in row):
            continue  # an empty row is not a score
        if len(row) != len(header):
            where = record.where()
            errors.append(f"{where}: {len(row)} fields, the header has {len(header)}")
            continue
        student, gid, score_text, comment = (spreadsheet_value(row[at[c]]) for c in REQUIRED)
        gid = gid.strip()
        if student not in known and student.strip() in known:
            student = student.strip()  # a spreadsheet's stray space; an id's own is kept
        where = record.where(f"{student}, {gid}")
        why = []
        if student not in known:
            why.append(f"unknown student {student!r}")
        part = parts.get(gid)
        if part is None:
            if gid in PARTS:
                why.append(f"part {gid!r} is graded automatically; graded by hand: {hand}")
            else:
                why.append(f"unknown part {gid!r}; graded by hand: {hand}")
        score = None
        if part is not None:
            score, bad = _score(score_text, part.points)
            if bad:
                why.append(bad)
            if (student, part.assignment) in missing and score is not None:
                why.append(f"{student} submitted no notebook for {part.assignment}")
        if (student, gid) in seen:
            why.append(f"the same student and part as {seen[(student, gid)]}")
        else:
            seen[(student, gid)] = f"row {record.row}"
        if why:
            errors.append(f"{where}: " + "; ".join(why))
            continue
        assert part is not None
        scores.append(
            HandScore(record.row, student, gid, part.assignment, score, comment.strip() or None)
        )
    if errors:
        raise ManualSheetError(
            f"--manual-scores: {path}: {len(errors)} bad row(s), nothing applied:\n  "
            + "\n  ".join(errors)
        )
    return scores


@dataclass(frozen=True)
class _Record:
    """A record of the file: its row as a spreadsheet numbers it, and its first line."""

    row: int
    line: int
    fields: list[str]

    def where(self, what: str = "") -> str:
        """'row 3 (bob, p4c_why; line 18 of the file)': a quoted cell that holds line breaks
        makes the two numbers differ."""
        notes = [what] if what else []
        if self.line != self.row:
            notes.append(f"line {self.line} of the file")
        return f"row {self.row}" + (f" ({'; '.join(notes)})" if notes else "")


def _numbered_rows(fh: Iterable[str]) -> list[_Record]:
    """Every record of a CSV file, numbered; a quoted field may span lines, and be of any size
    (the sheet holds whole answers: Python's default limit of 131,072 characters a field would
    refuse the grader's own sheet)."""
    csv.field_size_limit(max(csv.field_size_limit(), FIELD_LIMIT))
    reader = csv.reader(fh)
    out, last = [], 0
    for number, fields in enumerate(reader, 1):
        out.append(_Record(number, last + 1, fields))
        last = reader.line_num
    return out


def apply_scores(gb: Gradebook, path: Path, scores: Sequence[HandScore]) -> Applied:
    """Write checked hand scores and comments into the master gradebook, in one transaction.

    As formgrader's grade handler: ``manual_score`` set, ``needs_manual_grade`` cleared (a score is
    now there). An empty score or comment changes nothing.
    """
    written_scores = written_comments = 0
    try:
        for row in scores:
            if row.score is not None:
                grade = gb.find_grade(row.grade_id, row.assignment, row.assignment, row.student)
                grade.manual_score = row.score
                grade.needs_manual_grade = False
                written_scores += 1
            if row.comment is not None:
                comment = gb.find_comment(row.grade_id, row.assignment, row.assignment, row.student)
                comment.manual_comment = row.comment
                written_comments += 1
        gb.db.commit()
    except BaseException:
        gb.db.rollback()
        raise
    return Applied(path, written_scores, written_comments, len(scores))


# ----------------------------------------------------------------------------------------------
# Writing a sheet
# ----------------------------------------------------------------------------------------------


def student_answer(notebook: Path, grade_id: str) -> str | None:
    """The source of the cell ``grade_id`` in an autograded notebook; None if there is none."""
    if not notebook.is_file():
        return None
    cells: list[nbformat.NotebookNode] = nbformat.read(str(notebook), as_version=4).cells
    for cell in cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id:
            return str(cell.source)
    return None


@dataclass(frozen=True)
class SheetRow:
    """One row of the sheet: a student's answer to a part graded by hand, and its hand grade.

    Attributes:
        student: the student id.
        part: the part graded by hand.
        answer: the student's text, or a note in parentheses when there is none to read.
        score: the hand score in the gradebook, or None.
        comment: the hand comment in the gradebook ('' when none).
        pending: True when the part has no score at all yet (neither by hand nor automatic, as a
            blank answer has).
    """

    student: str
    part: HandPart
    answer: str
    score: float | None
    comment: str
    pending: bool

    def cells(self) -> list[str]:
        """The row's cells, in the order of :data:`COLUMNS`."""
        p = self.part
        return [
            self.student,
            p.grade_id,
            self.answer,
            p.model_answer,
            p.rubric.text(),
            fmt(p.points),
            fmt(self.score),
            self.comment,
        ]


def sheet_rows(
    scores: Scores,
    students: Sequence[str],
    parts: Mapping[str, HandPart],
    autograded: Path,
) -> list[SheetRow]:
    """One row per student × part graded by hand, students in the given order; the hand scores
    and comments from the gradebook's ``scores`` (outputs.gradebook.gradebook_scores)."""
    rows = []
    for student in students:
        for gid, part in parts.items():
            grade = scores.of(part.assignment, student).get(gid)
            if grade is None:
                rows.append(SheetRow(student, part, "(no submission)", None, "", False))
                continue
            notebook = autograded / student / part.assignment / f"{part.assignment}.ipynb"
            answer = student_answer(notebook, gid)
            rows.append(
                SheetRow(
                    student,
                    part,
                    answer if answer is not None else "(no notebook was graded: see report.txt)",
                    grade.get("score") if grade.get("manual") else None,
                    grade.get("comment", ""),
                    grade.get("score") is None,
                )
            )
    return rows


def write_sheet(
    path: Path,
    scores: Scores,
    students: Sequence[str],
    parts: Mapping[str, HandPart],
    autograded: Path,
) -> Sheet:
    """Write the sheet (whole or not at all); returns what it holds."""
    rows = sheet_rows(scores, students, parts, autograded)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    with partial.open("w", newline="", encoding=ENCODING) as fh:
        writer = csv.writer(fh)
        writer.writerow(COLUMNS)
        writer.writerows([[spreadsheet_cell(c) for c in row.cells()] for row in rows])
    os.replace(partial, path)
    return Sheet(path, len(rows), sum(row.pending for row in rows))
