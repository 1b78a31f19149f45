"""What an LMS download's file names say: who submitted a file, what it was called, and which problem.

A learning management system's "download all submissions" zip renames every file after its
submitter. The names parsed here, with their sources:

**Canvas** ("Download Submissions"): flat files ``<name>[_late]_<user id>_<attachment id>_<original>``.
Canvas's ``ContentZipper`` (instructure/canvas-lms, ``app/models/content_zipper.rb``:
``get_filename``, ``add_upload_submission``) joins the user's sortable name ("Doe, Jane"), ``LATE``
when the submission is late, and the user id with ``_``, then keeps word characters only and lower-cases
the result (``doejane_late_12345``); each uploaded file is added as ``<that>_<attachment id>_<display
name>``. The user name has any ``_<digits>_`` squeezed out so that the ids can be found again; with
anonymous grading the name is left out. Text and URL entries arrive as ``<that>_text.html`` and
``<that>_link.html``. A file a student uploads again under the same name is renamed by Canvas with a
``-1``, ``-2`` … suffix (``problem1-1.ipynb``; see instructure/canvas-lms issue #2406 for a real
name, ``studenttest_3143_207797_zipsubmission.zip``). The attachment id grows with every upload, so
the larger one is the later file. The download itself is named ``<course>-<assignment title>
submissions`` with spaces turned to ``_`` (``assignment_zip_filename``, ``make_zip_tmpdir``).

**Moodle** ("Download all submissions", mod/assign ``locallib.php``, ``download_submissions``): a
prefix ``clean_filename("<Full Name>_<participant id>")`` (``_`` in the name becomes a space; with
blind marking the name is "Participant"; in team submissions it is "<group>-<Full Name>"), then
``_assignsubmission_<plugin>_``. With "download submissions in folders" (the default since Moodle
3.1) that prefix is a folder, ``Jane Doe_1234567_assignsubmission_file_/problem1.ipynb``; without
it the file is flat, ``Jane Doe_1234567_assignsubmission_file_problem1.ipynb``. The participant id
comes from ``assign_user_mapping``: it is the same for a student within one assignment, but differs
between assignments, so several Moodle downloads are joined by a roster (matched by name). The
download is named ``<course short name>-<assignment name>-<course module id>.zip``.

**Generic**: ``<student>_<problemN>.ipynb`` (or ``<problemN>_<student>.ipynb``) in one folder, or
``<student>/<anything>.ipynb``. nbgrader's own ``FileNameCollectorPlugin`` (``nbgrader zip_collect``,
jupyter/nbgrader ``nbgrader/plugins/zipcollect.py``) does the same job with one regular expression
with named groups ``student_id`` and ``file_id``; here each LMS has its own.

Every function is pure: names in, typed results out.
"""

from __future__ import annotations

import enum
import hashlib
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from roofline_grader.names import one_line


class Layout(enum.Enum):
    """The kinds of submission download roofline-grade reads."""

    NBGRADER = "nbgrader's submitted layout (<student>/<problemN>/<problemN>.ipynb)"
    CANVAS = "Canvas 'Download Submissions' zip (<name>_<user id>_<file id>_<file>)"
    MOODLE = "Moodle 'Download all submissions' zip (<Full Name>_<id>_assignsubmission_file_…)"
    GENERIC = "generic flat zip (<student>_<problemN>.ipynb or <student>/<file>.ipynb)"

    @property
    def short(self) -> str:
        return {"NBGRADER": "nbgrader", "CANVAS": "Canvas", "MOODLE": "Moodle"}.get(
            self.name, "generic"
        )


@dataclass(frozen=True)
class Named:
    """What one file's name says.

    Attributes:
        layout: the naming it follows.
        lms_id: the LMS's id of the submitter (Canvas user id, Moodle participant id), or None.
        name: the submitter's name as the LMS wrote it (Canvas: sortable name squeezed, 'doejane';
            Moodle: 'Jane Doe'), or the student part of a generic name; None when absent.
        original: the file name the student uploaded ('problem1-1.ipynb').
        late: Canvas marked the submission late.
        attachment_id: Canvas's id of the uploaded file (larger is later), else None.
    """

    layout: Layout
    lms_id: str | None
    name: str | None
    original: str
    late: bool = False
    attachment_id: int | None = None


CANVAS_FILE = re.compile(
    r"^(?:(?P<name>.+?)_)??(?:(?P<late>late)_)?(?P<uid>\d+)_(?P<aid>\d+)_(?P<original>.+)$",
    re.IGNORECASE | re.DOTALL,
)
"""``<name>[_late]_<user id>_<attachment id>_<original>`` (name absent under anonymous grading)."""
CANVAS_ENTRY = re.compile(r"^(?:.+?_)??(?:late_)?\d+_(?:text|link)\.html$", re.IGNORECASE)
"""A Canvas text or URL entry: ``<name>[_late]_<user id>_text.html``."""
MOODLE_PREFIX = re.compile(
    r"^(?P<name>.*?)_(?P<pid>\d+)_assignsubmission_(?P<plugin>[a-z]+)_(?P<rest>.*)$",
    re.DOTALL,
)
"""``<Full Name>_<participant id>_assignsubmission_<plugin>_`` then, flat, the original name."""
RESUBMISSION = re.compile(r"(?:-(?P<n>\d{1,3})|\s*\((?P<m>\d{1,3})\)|-Copy(?P<c>\d{1,3}))$")
"""The suffix an upload of the same name again gets: Canvas's ``-1``, a browser's `` (1)``,
Jupyter's ``-Copy1``."""


def parse_canvas(file_name: str) -> Named | None:
    """A Canvas download's flat file name, or None when it is not one."""
    m = CANVAS_FILE.match(file_name)
    if not m:
        return None
    return Named(
        Layout.CANVAS,
        lms_id=m["uid"],
        name=m["name"] or None,
        original=m["original"],
        late=bool(m["late"]),
        attachment_id=int(m["aid"]),
    )


def is_canvas_entry(file_name: str) -> bool:
    """A Canvas text or URL entry (never a notebook)."""
    return bool(CANVAS_ENTRY.match(file_name))


def parse_moodle(parts: Sequence[str]) -> Named | None:
    """A Moodle download's path (its parts below the download's root), or None.

    ``('Jane Doe_12_assignsubmission_file_', 'problem1.ipynb')`` (in folders) and
    ``('Jane Doe_12_assignsubmission_file_problem1.ipynb',)`` (flat) both give Jane Doe's
    problem1.ipynb; a folder's subfolders (the student's own) are kept out of ``original``.
    """
    if not parts:
        return None
    m = MOODLE_PREFIX.match(parts[0])
    if not m:
        return None
    if len(parts) > 1 and m["rest"] == "":
        original = parts[-1]
    elif len(parts) == 1 and m["rest"]:
        original = m["rest"]
    else:
        return None
    return Named(Layout.MOODLE, lms_id=m["pid"], name=m["name"].strip() or None, original=original)


def is_moodle_folder(name: str) -> bool:
    m = MOODLE_PREFIX.match(name)
    return m is not None and m["rest"] == ""


def resubmission(stem: str) -> tuple[str, int]:
    """``stem`` without an upload-again suffix, and that suffix's number (0 without one)."""
    m = RESUBMISSION.search(stem)
    if not m or m.start() == 0:
        return stem, 0
    return stem[: m.start()], int(m["n"] or m["m"] or m["c"])


def _problem_pattern(assignment: str) -> re.Pattern[str]:
    """'problem1' → 'problem', any separators, '1' not followed by a digit: so 'Problem 1',
    'problem_1', 'PROBLEM-01' and 'problem1-1' match, 'problem11' does not."""
    m = re.fullmatch(r"([a-z_]*?)[\W_]*0*(\d+)", assignment.lower())
    if not m:
        return re.compile(re.escape(assignment.lower()))
    letters, digits = m.groups()
    prefix = r"[\W_]*".join(map(re.escape, letters.replace("_", "")))
    return re.compile(rf"(?<![a-z]){prefix}[\W_]*0*{digits}(?!\d)")


def problem_mentions(text: str, assignments: Iterable[str]) -> list[tuple[str, tuple[int, int]]]:
    """Every assignment ``text`` names, with where: ``'alice_Problem 1.ipynb'`` →
    ``[('problem1', (6, 15))]``. Compared in lower case, after Unicode NFKC."""
    lowered = unicodedata.normalize("NFKC", text).lower()
    found = []
    for assignment in assignments:
        m = _problem_pattern(assignment).search(lowered)
        if m:
            found.append((assignment, m.span()))
    return found


def problem_of(name: str, assignments: Sequence[str]) -> str | None:
    """The one problem a file name (or a download's name) names, else None (none, or several)."""
    stem = name[: -len(".ipynb")] if name.lower().endswith(".ipynb") else name
    stem, _ = resubmission(stem)
    found = problem_mentions(stem, assignments)
    return found[0][0] if len(found) == 1 else None


def generic_student(file_name: str, assignments: Sequence[str]) -> str | None:
    """The student part of a generic flat name: ``alice_problem1.ipynb`` and
    ``problem1_alice.ipynb`` → 'alice'; the name less its problem and its upload-again suffix."""
    stem = file_name[: -len(".ipynb")] if file_name.lower().endswith(".ipynb") else file_name
    stem, _ = resubmission(stem)
    text = unicodedata.normalize("NFKC", stem)
    found = problem_mentions(text, assignments)
    if len(found) == 1:
        start, end = found[0][1]
        text = text[:start] + " " + text[end:]
    student = text.strip(" _-.")
    return student or None


SAFE_ID_CHARS = re.compile(r"[^\w.@+-]+")
MAX_ID_CHARS = 64


def safe_student_id(raw: str) -> str | None:
    """A student id from an untrusted name: Unicode NFKC, letters, digits and ``_.@+-`` kept (other
    runs become ``_``), no leading dot or dash, at most 64 characters (a longer one keeps a hash of
    the whole). None when nothing is left. It is a folder name in the workspace, so it can never
    hold a ``/`` or be ``..``."""
    text = unicodedata.normalize("NFKC", raw)
    text = SAFE_ID_CHARS.sub("_", text).strip("._-")
    if not text:
        return None
    if len(text) > MAX_ID_CHARS:
        digest = hashlib.sha1(raw.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        text = f"{text[: MAX_ID_CHARS - 9]}-{digest}"
    return text


def name_keys(name: str) -> set[str]:
    """Keys a person's name matches under, whichever way an LMS wrote it: letters and digits only,
    lower case, first-last and last-first ('Jane Doe', 'Doe, Jane', Canvas's 'doejane' agree)."""
    text = unicodedata.normalize("NFKC", name).lower()
    words = [w for w in re.split(r"[\W_]+", text.replace(",", " , ")) if w]
    if not words:
        return set()
    keys = {"".join(words)}
    if "," in text:
        last, _, first = text.partition(",")
        keys.add(re.sub(r"[\W_]+", "", first + last))
        keys.add(re.sub(r"[\W_]+", "", last + first))
    else:
        keys.add("".join(words[-1:] + words[:-1]))  # 'Jane Doe' → 'doejane' (Canvas's sortable)
        keys.add("".join(words[1:] + words[:1]))
    return keys


def printable(text: str, limit: int = 160) -> str:
    """A file name or an LMS name as a report may show it: :func:`roofline_grader.names.one_line`
    (an LMS name is untrusted: a newline in it must not forge a report line), at most ``limit``
    characters."""
    return one_line(text, limit)
