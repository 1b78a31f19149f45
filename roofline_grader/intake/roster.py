"""The class roster: who is in the course, under which ids, so that LMS downloads map to students.

``roofline-grade --roster FILE`` reads a CSV (UTF-8, a byte-order mark allowed) whose first row
names its columns. Header names are compared without case, spaces, ``_`` or ``-``; columns not
listed here are ignored (so a Canvas gradebook export, with its assignment columns, is a roster as
it is). Accepted names:

============  ==========================================================================
field         header names
============  ==========================================================================
student id    ``student_id``, ``student id``, ``SIS User ID`` (Canvas), ``ID number`` (Moodle),
              ``student number``, ``sis id``
LMS id        ``lms_id``, ``ID`` (Canvas's user id), ``canvas id``, ``user id``, ``participant id``
name          ``name``, ``Student`` (Canvas: "Doe, Jane"), ``full name``, ``sortable name``;
              or ``First name`` and ``Last name`` (Moodle)
email         ``email``, ``email address`` (Moodle), ``e-mail``
login         ``SIS Login ID`` (Canvas), ``login``, ``username``
section       ``Section`` (Canvas), ``group``
exclude       ``exclude``, ``left out``, ``not graded``: ``yes``, ``y``, ``true``, ``1`` or ``x``
              leaves the row out of grading (a demo account, a teaching assistant)
============  ==========================================================================

**Rows left out of grading** (:attr:`Roster.left_out`): Canvas's test student (the account "Student
View" makes, named "Test Student", "Student, Test" in a gradebook export, with no SIS User ID) and
every row marked in an ``exclude`` column. They are no students of the course: nothing of theirs is
graded, and they are in no grades file, no class share and no LMS export. Their uploads are listed
in the report as left out (a routine reason), and the report names each row once.

The other columns of the header are kept as the roster's ``columns``: in a Canvas gradebook export
they are the course's assignments (``Problem 1 (123456)``), whose titles canvas_grades.csv then
reuses, so that Canvas imports each problem into its assignment (roofline_grader.outputs.exports).

A roster needs a student id or an LMS id column; a row without a student id is known by its LMS id
(and the LMS files then leave its student id blank: no id is written that the roster does not have).
Canvas's "Points Possible" row and blank rows are skipped. Two rows with one student id, or one LMS
id, are an error that names both rows.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from roofline_grader.intake.lms import name_keys, safe_student_id

HEADERS: Mapping[str, tuple[str, ...]] = {
    "student_id": ("studentid", "sisuserid", "idnumber", "studentnumber", "sisid"),
    "lms_id": ("lmsid", "id", "canvasid", "userid", "participantid"),
    "name": ("name", "student", "fullname", "sortablename"),
    "first_name": ("firstname",),
    "last_name": ("lastname", "surname"),
    "email": ("email", "emailaddress"),
    "login": ("sisloginid", "login", "username"),
    "section": ("section", "group"),
    "exclude": ("exclude", "excluded", "leftout", "notgraded"),
}
"""Each roster field and the header names (normalized: lower case, letters and digits) it accepts."""
MAX_ROSTER_BYTES = 50 * 2**20
EXCLUDE_VALUES = frozenset({"yes", "y", "true", "1", "x"})
"""What an ``exclude`` cell says to leave a row out (compared in lower case)."""
CANVAS_TEST_STUDENT = "Test Student"
"""The name Canvas gives the test student of "Student View" (its exports write "Student, Test")."""


class RosterError(ValueError):
    """The roster cannot be used: unreadable, no id column, duplicate ids, an unsafe id."""


@dataclass(frozen=True)
class Student:
    """One row of the roster.

    Attributes:
        student_id: the id grades are recorded under (grades.csv, nbgrader's gradebook): the
            roster's student id, else its LMS id.
        lms_id: the LMS's user id (Canvas "ID"), or ''.
        name: the full name as the roster gives it, or ''.
        email, login, section: as the roster gives them, or ''.
        row: the row's line number in the file, for messages.
    """

    student_id: str
    lms_id: str = ""
    name: str = ""
    email: str = ""
    login: str = ""
    section: str = ""
    row: int = 0
    sis_id: str = ""
    """The student id exactly as the roster's student-id column gives it ('' when it has none):
    what the LMS files write as SIS User ID / ID number, never an id made up from another."""


@dataclass(frozen=True)
class LeftOut:
    """A roster row that is not a student of the course: never graded, counted or exported."""

    student: Student
    reason: str

    def words(self) -> str:
        who = self.student.name or self.student.student_id
        return f"{who} (row {self.student.row}): {self.reason}"


@dataclass(frozen=True)
class Roster:
    """The students of the course, in the roster's order, and how to find one."""

    path: Path
    students: tuple[Student, ...]
    columns: tuple[str, ...] = ()
    """The header's other columns, as written (a Canvas export's assignment columns)."""
    left_out: tuple[LeftOut, ...] = ()
    """Rows left out of grading (Canvas's test student, rows marked ``exclude``), in file order."""

    def left_out_row(self, ident: str | None, name: str | None) -> LeftOut | None:
        """The row left out of grading that an upload's id (LMS id, student id, login or email,
        as :meth:`by_any_id` compares them), else its name, names; None if no such row."""
        wanted = (ident or "").strip().lower()
        for row in self.left_out:
            if wanted and wanted in _ids(row.student):
                return row
        keys = name_keys(name or "")
        return next((r for r in self.left_out if keys & name_keys(r.student.name)), None)

    def by_lms_id(self, lms_id: str | None) -> Student | None:
        return next((s for s in self.students if lms_id and s.lms_id == lms_id), None)

    def by_name(self, name: str | None) -> list[Student]:
        """The students whose name matches ``name`` in any order (see :func:`lms.name_keys`)."""
        keys = name_keys(name or "")
        return [s for s in self.students if keys & name_keys(s.name)]

    def by_any_id(self, text: str) -> list[Student]:
        """The students whose student id, LMS id, login or email (or its part before '@') is
        ``text``, compared without case."""
        wanted = text.strip().lower()
        if not wanted:
            return []
        return [s for s in self.students if wanted in _ids(s)]


def _ids(s: Student) -> set[str]:
    """Every id a student is found by, in lower case: student id, LMS id, login, email and the
    email's part before '@'."""
    ids = {s.student_id, s.lms_id, s.login, s.email, s.email.partition("@")[0]}
    return {i.lower() for i in ids} - {""}


def _key(header: str) -> str:
    return re.sub(r"[^0-9a-z]", "", header.strip().lstrip("\ufeff").lower())


def columns(header: list[str]) -> dict[str, int]:
    """Each roster field → its column index, from the header row (first match wins)."""
    found: dict[str, int] = {}
    keys = [_key(h) for h in header]
    for field_name, names in HEADERS.items():
        for name in names:
            if name in keys:
                found[field_name] = keys.index(name)
                break
    return found


def read_roster(path: Path) -> Roster:
    """The roster in ``path``; a :class:`RosterError` that says what is wrong otherwise."""
    if not path.is_file():
        raise RosterError(f"--roster {path}: no such file")
    if path.stat().st_size > MAX_ROSTER_BYTES:
        raise RosterError(f"--roster {path}: larger than {MAX_ROSTER_BYTES // 2**20} MiB")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise RosterError(
            f"--roster {path}: not UTF-8 text ({exc.reason}); save it as UTF-8 CSV"
        ) from None
    rows = list(csv.reader(io.StringIO(text, newline="")))
    if not rows:
        raise RosterError(f"--roster {path}: the file is empty")
    cols = columns(rows[0])
    if "student_id" not in cols and "lms_id" not in cols:
        accepted = ", ".join(repr(n) for n in HEADERS["student_id"] + HEADERS["lms_id"])
        raise RosterError(
            f"--roster {path}: no student id column; its header is {rows[0]!r}, and a roster "
            f"needs one of (case, spaces and _ ignored) {accepted}"
        )

    def cell(row: list[str], field_name: str) -> str:
        i = cols.get(field_name)
        return row[i].strip() if i is not None and i < len(row) else ""

    students: list[Student] = []
    left_out: list[LeftOut] = []
    seen_ids: dict[str, int] = {}
    seen_lms: dict[str, int] = {}
    for line, row in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in row):
            continue
        name = cell(row, "name") or " ".join(
            p for p in (cell(row, "first_name"), cell(row, "last_name")) if p
        )
        if "points possible" in " ".join(row[:1]).lower():  # Canvas's second row
            continue
        lms_id, raw_id = cell(row, "lms_id"), cell(row, "student_id") or cell(row, "lms_id")
        if not raw_id:
            raise RosterError(
                f"--roster {path}, row {line}: no student id (nor LMS id) for {name!r}"
            )
        student_id = safe_student_id(raw_id)
        if student_id != raw_id:
            raise RosterError(
                f"--roster {path}, row {line}: student id {raw_id!r} cannot name a folder; use "
                "letters, digits and _.@+- only, not starting with a dot or dash"
            )
        if student_id in seen_ids:
            raise RosterError(
                f"--roster {path}: rows {seen_ids[student_id]} and {line} have one student id "
                f"{student_id!r}"
            )
        if lms_id and lms_id in seen_lms:
            raise RosterError(
                f"--roster {path}: rows {seen_lms[lms_id]} and {line} have one LMS id {lms_id!r}"
            )
        seen_ids[student_id] = line
        if lms_id:
            seen_lms[lms_id] = line
        student = Student(
            student_id=student_id,
            lms_id=lms_id,
            name=name,
            email=cell(row, "email"),
            login=cell(row, "login"),
            section=cell(row, "section"),
            row=line,
            sis_id=cell(row, "student_id"),
        )
        reason = left_out_reason(student, cell(row, "exclude"))
        if reason:
            left_out.append(LeftOut(student, reason))
        else:
            students.append(student)
    if not students:
        raise RosterError(f"--roster {path}: a header and no students")
    used = set(cols.values())
    others = tuple(h.strip() for i, h in enumerate(rows[0]) if i not in used and h.strip())
    return Roster(path, tuple(students), others, tuple(left_out))


def is_canvas_test_student(name: str) -> bool:
    """True for Canvas's test student, however its name is written ('Student, Test', 'studenttest')."""
    return bool(name) and name_keys(name) & name_keys(CANVAS_TEST_STUDENT) == name_keys(name)


def left_out_reason(student: Student, exclude: str) -> str:
    """Why a roster row is left out of grading, or '' for a student of the course."""
    if exclude.strip().lower() in EXCLUDE_VALUES:
        return f"marked {exclude.strip()!r} in the roster's exclude column"
    if is_canvas_test_student(student.name) and not student.sis_id:
        return "Canvas's test student (Student View), not a student of the course"
    return ""
