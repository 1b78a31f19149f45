"""Ids and names as data (roofline_grader.names): file names safe on every system, one-line text,
HTML text and spreadsheet cells that round-trip."""

from __future__ import annotations

import csv
import io
import unicodedata

import pytest

from roofline_grader.names import (
    FILE_NAME_BYTES,
    file_name,
    file_names,
    html_text,
    is_plain_file_name,
    one_line,
    spreadsheet_cell,
    spreadsheet_value,
)
from roofline_grader.outputs.report import write_csv

HOSTILE_IDS = (
    "x.html",
    "'-apostrophe",
    "a" * 300,
    "中" * 120,
    "new\nline",
    "roofline-grade: all good\r",
    "bidi\u202etxt.exe",
    "zero\u200bwidth",
    "CON",
    "nul.txt",
    "Com1",
    "..",
    ".",
    "",
    ".hidden",
    "trailing.",
    "trailing ",
    "..\\..\\x",
    "../../etc/passwd",
    "C:x",
    'q"uote<>|?*',
    "<img src=x onerror=alert(1)>",
    '=HYPERLINK("http://x")',
    "e\u0301",  # NFD: macOS would store it as é
    "é",
    "\udcff",  # a lone surrogate, as os.fsdecode gives for a non-UTF-8 byte
)
WINDOWS_BAD = set('<>:"/\\|?*')


@pytest.mark.parametrize("student", HOSTILE_IDS, ids=range(len(HOSTILE_IDS)))
def test_a_file_name_is_safe_on_linux_macos_and_windows(student: str) -> None:
    name = file_name(student)
    assert name and name not in (".", "..") and not name.startswith(".")
    assert not WINDOWS_BAD & set(name), name
    assert all(c.isprintable() and unicodedata.category(c)[0] != "C" for c in name), name
    assert not name.endswith((".", " "))
    assert name.split(".")[0].upper() not in {"CON", "PRN", "AUX", "NUL", "COM1", "LPT1"}
    assert len(name.encode("utf-8")) <= FILE_NAME_BYTES
    assert len((name + ".zip.part").encode("utf-8")) <= 255
    assert unicodedata.normalize("NFC", name) == name
    assert is_plain_file_name(name)
    if name != student:
        assert len(name) >= 12 and name[-12:].isalnum(), "a changed name carries a hash"


def test_file_names_are_unique_even_where_case_is_ignored() -> None:
    students = [*HOSTILE_IDS, "Bob", "bob", "BOB", "a" * 299 + "b", "e\u0301", "alice"]
    names = file_names(students)
    assert len({n.casefold() for n in names.values()}) == len(set(students))
    assert names["alice"] == "alice", "a plain id keeps its name"
    assert names["x.html"] == "x.html"


def test_one_line_text_can_neither_break_nor_reorder_a_line() -> None:
    assert one_line("evil\nroofline-grade: all good") == "evil\\nroofline-grade: all good"
    assert one_line("abc\u202edef") == "abc<U+202E>def"
    assert one_line("tab\tcr\r") == "tab\\tcr\\r"
    assert one_line("x" * 10, limit=5) == "xxxx…"
    for student in HOSTILE_IDS:
        shown = one_line(student)
        assert "\n" not in shown and "\r" not in shown and "\u202e" not in shown


def test_html_text_is_escaped_and_on_one_line() -> None:
    assert html_text('<img src=x onerror="alert(1)">') == (
        "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;"
    )
    assert html_text("a\nb'") == "a\\nb&#x27;"


@pytest.mark.parametrize(
    "text",
    ["-x", "'-x", "''", "'", "=1+1", "@SUM(A1)", "+1", "\tx", "'abc", "-3", "1.5", "", "alice"],
)
def test_a_spreadsheet_cell_reads_back_as_written(text: str) -> None:
    cell = spreadsheet_cell(text)
    assert spreadsheet_value(cell) == text
    if text in ("-x", "=1+1", "@SUM(A1)", "\tx"):
        assert cell.startswith("'"), "never a formula"


def test_grades_csv_never_holds_a_spreadsheet_formula(tmp_path) -> None:
    rows = [['=HYPERLINK("http://x")', "2"], ["+1+1", "-1"], ["@SUM(A1)", "1.5"], ["-x", ""]]
    write_csv(tmp_path / "grades.csv", ["student_id", "total"], rows)
    text = (tmp_path / "grades.csv").read_text()
    for line in text.splitlines()[1:]:
        assert not line.lstrip('"').startswith(("=", "+", "@")), line
    read = list(csv.reader(io.StringIO(text)))[1:]
    assert [[spreadsheet_value(c) for c in row] for row in read] == rows, "read back as written"
