"""Ids and names as data: what a student id or an LMS name becomes in a file name and in each output.

A student id is whatever a student or an LMS chose: an nbgrader folder name, a Canvas or Moodle
display name, a roster cell. It may hold a newline, ``<script>``, ``..\\..\\x``, U+202E (right-to-left
override), ``CON`` or 300 bytes. It is kept exactly as it is in the gradebook, grades.csv and
report.json (the round trip is lossless); wherever it is *shown or used as a name*, it passes
through one of the functions here, and every writer uses them:

* :func:`file_name` (and, for the names of one folder, :func:`file_names`): a file, folder or zip
  entry named after a student, safe on Linux, macOS and Windows. The id itself when it is a plain
  name; else its first bytes made plain and a hash of the whole id (so two ids never share one);
* :func:`one_line`: text for a text report or a terminal, on one line, with every control, format
  and bidirectional character written as a visible escape (``\\n``, ``<U+202E>``): a name cannot
  forge a report line or reorder one;
* :func:`html_text`: :func:`one_line`, escaped for HTML (text and attribute values);
* :func:`spreadsheet_cell`: a CSV cell a spreadsheet shows literally (no formula), and
  :func:`spreadsheet_value`, its inverse, so that a cell written and read back is the same text.

Sources: Windows' rules for names are "Naming Files, Paths, and Namespaces" (Microsoft Learn:
reserved characters ``<>:"/\\|?*``, control characters, the device names ``CON``, ``PRN``, ``AUX``,
``NUL``, ``COM1``–``COM9``, ``LPT1``–``LPT9`` with any extension, no trailing dot or space); OWASP's
"CSV Injection" gives the characters that start a formula.
"""

from __future__ import annotations

import hashlib
import html
import unicodedata
from collections.abc import Iterable

FILE_NAME_BYTES = 200
"""The longest a file or folder named after a student may be, in UTF-8 bytes: 255 (what common
file systems take) less room for what an output adds (``.zip.part``, ``.html``)."""

WINDOWS_FORBIDDEN = frozenset('<>:"/\\|?*')
WINDOWS_DEVICES = frozenset(
    {"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"}
    | {f"{port}{n}" for port in ("COM", "LPT") for n in (*"123456789", "¹", "²", "³")}
)
"""Names Windows takes as devices, whatever their extension (``nul.txt`` is the device NUL)."""

BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Characters that reorder the text around them (Unicode's bidirectional controls)."""

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""A spreadsheet reads a cell that starts with one of these as a formula (OWASP, CSV injection)."""
GUARD = "'"
"""What :func:`spreadsheet_cell` puts in front of a cell that would otherwise be a formula."""


def _hidden(c: str) -> bool:
    """A character that is not seen as itself: a control (Cc), a format character (Cf: the
    bidirectional controls, zero-width joiners), a separator of lines or paragraphs, a surrogate,
    an unassigned or private code point."""
    return c in BIDI or unicodedata.category(c) in {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


def is_plain_file_name(name: str) -> bool:
    """Whether ``name`` can name a file as it is on Linux, macOS and Windows: not empty, not
    ``.``-led, no separator, no Windows reserved character or device name, no trailing dot or
    space, no hidden character (:func:`_hidden`), in Unicode NFC (macOS compares names
    normalised), at most :data:`FILE_NAME_BYTES` bytes."""
    if not name or name.startswith(".") or name.endswith((".", " ")) or name != name.strip():
        return False
    if any(c in WINDOWS_FORBIDDEN or _hidden(c) for c in name):
        return False
    if name.split(".", 1)[0].upper().rstrip(" ") in WINDOWS_DEVICES:
        return False
    if unicodedata.normalize("NFC", name) != name:
        return False
    return len(name.encode("utf-8", "surrogatepass")) <= FILE_NAME_BYTES


def _digest(text: str, length: int = 12) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:length]


def file_name(student: str) -> str:
    """The name of a file, folder or zip entry named after ``student`` (before its suffix): the id
    itself when :func:`is_plain_file_name`, else its first bytes with every unfit character made
    ``_``, then ``-`` and a hash of the whole id. A changed name always carries the hash, so it is
    never another id's plain name (a plain id has no 12-hex-digit tail of its own hash)."""
    if is_plain_file_name(student):
        return student
    text = unicodedata.normalize("NFC", student)
    cut = text.encode("utf-8", "surrogatepass")[: FILE_NAME_BYTES - 13]
    text = cut.decode("utf-8", errors="ignore")
    text = "".join("_" if c in WINDOWS_FORBIDDEN or _hidden(c) else c for c in text)
    text = text.strip(". ")
    if text.split(".", 1)[0].upper() in WINDOWS_DEVICES:
        text = "_" + text
    return f"{text}-{_digest(student)}" if text else _digest(student)


def file_names(students: Iterable[str]) -> dict[str, str]:
    """:func:`file_name` of each of ``students``, made unique where a file system that ignores case
    (Windows, macOS by default) would take two as one: ``Bob`` and ``bob`` both get a hash."""
    names = {s: file_name(s) for s in dict.fromkeys(students)}
    groups: dict[str, list[str]] = {}
    for student, name in names.items():
        groups.setdefault(name.casefold(), []).append(student)
    for group in groups.values():
        if len(group) > 1:
            for student in group:
                base = names[student]
                if not base.endswith(_digest(student)):
                    base = f"{base[: FILE_NAME_BYTES - 13]}-{_digest(student)}"
                names[student] = base
    return names


def one_line(text: object, limit: int | None = None) -> str:
    """``text`` as a text report or a terminal shows it, on one line: a control, format or
    bidirectional character is written as an escape (``\\n``, ``\\t``, ``<U+202E>``), so it can
    neither start a new line nor reorder the line; longer than ``limit`` characters, it is cut
    with ``…``."""
    escapes = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
    shown = "".join(escapes.get(c, f"<U+{ord(c):04X}>") if _hidden(c) else c for c in str(text))
    if limit is not None and len(shown) > limit:
        return shown[: limit - 1] + "…"
    return shown


def html_text(text: object) -> str:
    """``text`` for an HTML page (element text or a quoted attribute): :func:`one_line`, then
    escaped (``&<>"'``)."""
    return html.escape(one_line(text), quote=True)


def spreadsheet_cell(text: object) -> str:
    """``text`` as a CSV cell a spreadsheet shows literally: a cell that a spreadsheet would run as
    a formula (:data:`FORMULA_STARTS`), or that starts with the guard itself, gets the guard
    :data:`GUARD` in front; a number (``-3``) is left alone. :func:`spreadsheet_value` undoes it."""
    cell = str(text)
    if cell.startswith(GUARD):
        return GUARD + cell
    if cell.startswith(FORMULA_STARTS):
        try:
            float(cell)
        except ValueError:
            return GUARD + cell
    return cell


def spreadsheet_value(cell: str) -> str:
    """The text a cell written by :func:`spreadsheet_cell` holds: one guard less in front of a
    would-be formula or of a guard; any other cell as it is."""
    if cell.startswith(GUARD) and cell[1:].startswith((*FORMULA_STARTS, GUARD)):
        return cell[1:]
    return cell
