"""Feedback pages: every part, its points, and each check passed or failed with a hint.

A page is built from the grader's findings (labels and hints written in words) and the scores in
the master gradebook, never from the notebooks' cells: no test source, hidden or visible, and no
traceback can reach it. Everything that came from a student's notebook (error messages) is escaped.

The workspace's ``feedback/`` folder has one folder per student, in nbgrader's layout
(``CourseDirectory.feedback_directory``, ``feedback/<student>/<assignment>/``, read by nbgrader's
``release_feedback``; see nbgrader/exchange/default/release_feedback.py)::

    feedback/<student>/index.html                          the whole course, every problem
    feedback/<student>/<assignment>/<assignment>.html      one problem: what Fetch Feedback delivers
    feedback/<student>/<assignment>/timestamp.txt          } as ``nbgrader submit`` wrote them, only
    feedback/<student>/<assignment>/submission_secret.txt  } for a submission that came through it

``<student>`` is the student id, or for an id too long or unfit for a file name on any system its
first bytes and a hash (:func:`roofline_grader.names.file_names`, which every output that names a
file after a student uses).
A problem page is written for every submitted notebook; :mod:`~roofline_grader.outputs.exchange` releases
those with a ``submission_secret.txt`` to nbgrader's exchange and zips each student's pages.
"""

from __future__ import annotations

import html
import re
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from roofline_grader.checks import PARTS, Finding
from roofline_grader.checks.base import FEEDBACK_INTRO, NOT_GRADED_YET
from roofline_grader.course.cells import CellInfo, ReleaseIndex
from roofline_grader.names import file_name, file_names, html_text
from roofline_grader.outputs.gradebook import Scores
from roofline_grader.outputs.report import fmt
from roofline_grader.outputs.standing import Standing
from roofline_grader.results import Status, SubmissionResult
from roofline_lib.selfcheck.i18n import translate

STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem;
       color: #111; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.2rem; margin-top: 2rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: .4rem .6rem; border-bottom: 1px solid #ddd; }
td.points { white-space: nowrap; }
ul { margin: 0; padding-left: 1.1rem; }
.pass { color: #00704a; } .fail { color: #b33c00; } .wait { color: #555; }
.notes { background: #fff6e0; padding: .5rem .8rem; border-left: 4px solid #E69F00; }
.notes, td { overflow-wrap: anywhere; }
.small { color: #555; font-size: .9rem; }
.zh { display: block; }
"""
_HIDDEN = re.compile(r"(?im)^.*(BEGIN HIDDEN TESTS|END HIDDEN TESTS|roofline_grader\.hidden).*$")


def _clean(text: Any) -> str:
    """Escape for HTML, dropping any line that quotes the hidden region of a test cell."""
    return html.escape(_HIDDEN.sub("[hidden]", str(text)))


def problem_title(cells: Sequence[CellInfo], assignment: str) -> str:
    """The first heading of the notebook ('Problem 1 · An int8 matmul')."""
    for cell in cells:
        for line in cell.source.splitlines():
            if line.startswith("# "):
                return line[2:].strip()
    return assignment


def page(
    student: str,
    index: ReleaseIndex,
    scores: Mapping[str, Mapping[str, Any]],
    results: Mapping[str, SubmissionResult],
    standing: Standing,
    subject: str = "",
) -> str:
    """The HTML page of one student on the assignments of ``index`` (all of them: the course page;
    one: a problem page, whose ``subject`` is the problem's title). ``scores`` and ``results`` are
    keyed by assignment (an assignment without a result was not graded in this run). Every total
    is the student's ``standing``'s (:mod:`roofline_grader.outputs.standing`): a problem not
    graded yet is listed as such and counts in neither the total nor the maximum."""
    sections: list[str] = []
    not_yet = []
    counted = []
    for assignment, cells in index.notebooks:
        problem = standing.problem(assignment)
        if not problem.counts:
            not_yet.append(_clean(problem_title(cells, assignment)))
            continue
        counted.append(problem)
        result = results.get(assignment)
        graded = result is not None and result.status is Status.GRADED
        grades = scores.get(assignment, {})
        rows = [
            _row(part.grade_id, part.max_points, part.score, grades.get(part.grade_id, {}), result)
            for part in problem.parts
        ]
        notes = "".join(
            f"<li>{_clean(p.kind.words)}: {_clean(p.detail)}</li>"
            for p in (result.problems if result else ())
        )
        heading = (
            f"<h2>{_clean(problem_title(cells, assignment))} — {fmt(problem.points)} / "
            f"{fmt(problem.max_points)}</h2>"
        )
        about = f'<div class="notes"><strong>About your notebook</strong><ul>{notes}</ul></div>'
        table = "<table><tr><th>Part</th><th>Points</th><th>Checks</th></tr>" + "".join(rows)
        sections.append(
            "<section>"
            + heading
            + (about if notes else "")
            + (table + "</table>" if graded else "")
            + "</section>"
        )
    total = sum(p.points for p in counted)
    maximum = sum(p.max_points for p in counted)
    waiting = sum(p.awaiting_points for p in counted)
    pending = f" ({fmt(waiting)} points still to be graded by hand)" if waiting else ""
    if not_yet:
        pending += f"; over the problems graded so far ({len(not_yet)} not graded yet)"
        items = "".join(f"<li>{title}</li>" for title in not_yet)
        sections.append(
            "<section><h2>Not graded yet</h2>"
            f"<p>{_clean(NOT_GRADED_YET)}{_chinese(NOT_GRADED_YET)}</p><ul>{items}</ul></section>"
        )
    title = f"Feedback for {html_text(student)}" + (f": {_clean(subject)}" if subject else "")
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{title}</title><style>{STYLE}</style></head><body>"
        f"<h1>{title}</h1>"
        f"<p><strong>Total: {fmt(total)} / {fmt(maximum)} points</strong>{pending}.</p>"
        f'<p class="small">{_clean(FEEDBACK_INTRO)}{_chinese(FEEDBACK_INTRO)}</p>'
        + "".join(sections)
        + "</body></html>\n"
    )


def _row(
    gid: str,
    points: float,
    score: float | None,
    grade: Mapping[str, Any],
    result: SubmissionResult | None,
) -> str:
    part = PARTS.get(gid)
    title = f"({part.letter}) {part.title}" if part else gid
    if part is not None and part.manual:
        if result is not None and result.comments.get(gid) == "No response.":
            checks = '<li class="fail">✗ no answer was written</li>'
        elif score is None:
            checks = '<li class="wait">graded by hand: not graded yet</li>'
        else:
            comment = grade.get("comment")
            checks = '<li class="pass">graded by hand</li>' + (
                f"<li>{_clean(comment)}</li>" if comment else ""
            )
    else:
        verdict = result.verdict(gid) if result is not None else None
        findings = verdict.findings if verdict is not None else ()
        if not findings:
            findings = (Finding("the part's checks", bool(score)),)
        checks = "".join(_finding(f) for f in findings)
        if grade.get("manual"):
            checks += "<li>score adjusted by hand</li>"
    return (
        f'<tr><td>{_clean(title)}</td><td class="points">{fmt(score) or "–"} / {fmt(points)}</td>'
        f"<td><ul>{checks}</ul></td></tr>"
    )


def _chinese(text: str) -> str:
    """The Chinese of a hint or note, on a line of its own (nothing when the catalog has none)."""
    chinese = translate(text) if text else None
    return f'<span class="zh" lang="zh-CN">{_clean(chinese)}</span>' if chinese else ""


def _finding(finding: Finding) -> str:
    """A check as a list item: ✓ with its note (follow-through), or ✗ with its hint; the note or
    hint in English, then in Chinese."""
    label, hint, chinese = _clean(finding.label), _clean(finding.hint), _chinese(finding.hint)
    if finding.passed:
        return f'<li class="pass">✓ {label}' + (f" ({hint})" if hint else "") + chinese + "</li>"
    return f'<li class="fail">✗ {label}: {hint}{chinese}</li>'


COURSE_PAGE = "index.html"
"""The whole course's page in each student's feedback folder."""


@dataclass(frozen=True)
class ProblemPage:
    """The feedback page of one submission (one student, one problem).

    Attributes:
        student: the student id.
        assignment: the problem (nbgrader assignment id).
        notebook_id: the submitted notebook's name without ``.ipynb`` (nbgrader's notebook id; it
            names the page, and Fetch Feedback looks the page up by it).
        path: ``feedback/<student>/<assignment>/<assignment>.html`` (``<student>`` as
            :func:`~roofline_grader.names.file_names` names it), whatever the upload was called.
        secret: the submission's ``submission_secret.txt`` as ``nbgrader submit`` wrote it; None
            when the notebook did not come through ``nbgrader submit`` (an LMS download, say).
        timestamp: the submission's ``timestamp.txt``, if any.
    """

    student: str
    assignment: str
    notebook_id: str
    path: Path
    secret: str | None
    timestamp: str | None


@dataclass(frozen=True)
class OutputFailure:
    """An output that could not be written for one student (the run writes the rest, and the
    report says which): whose, which output, and why."""

    student: str
    output: str
    reason: str

    def words(self) -> str:
        return f"{self.student!r}: {self.output}: {self.reason}"


@dataclass(frozen=True)
class FeedbackPages:
    """What :func:`write_feedback` wrote: a course page per student, a page per submission."""

    folder: Path
    course_pages: tuple[tuple[str, Path], ...]
    problem_pages: tuple[ProblemPage, ...]
    failures: tuple[OutputFailure, ...] = ()
    names: Mapping[str, str] = field(default_factory=dict)

    def file_name(self, student: str) -> str:
        """The name of ``student``'s folder here and of their zip (names.file_names)."""
        return self.names.get(student) or file_name(student)

    def student_folder(self, student: str) -> Path:
        return self.folder / self.file_name(student)


def write_feedback(
    folder: Path,
    gradebook: Scores,
    students: Sequence[str],
    index: ReleaseIndex,
    results: Mapping[str, SubmissionResult],
    standings: Mapping[str, Standing],
) -> FeedbackPages:
    """Write every student's folder of pages (layout in the module's docstring), afresh; each
    page's totals are the student's standing's."""
    folder.mkdir(parents=True, exist_ok=True)
    names = file_names(students)
    for old in folder.glob("*.html"):  # the layout before per-student folders: one page each;
        if old.is_file() or old.is_symlink():  # a student's folder may be called x.html too
            old.unlink()
    by_student: dict[str, dict[str, SubmissionResult]] = {}
    for result in results.values():
        by_student.setdefault(result.student, {})[result.assignment] = result
    course_pages: list[tuple[str, Path]] = []
    problem_pages: list[ProblemPage] = []
    failures: list[OutputFailure] = []
    for student in students:
        home = folder / names[student]
        if home.is_symlink() or home.is_file():
            home.unlink()
        shutil.rmtree(home, ignore_errors=True)  # an earlier run's pages and secrets
        try:
            home.mkdir()
            scores = {a: gradebook.of(a, student) for a in index.assignments}
            mine = by_student.get(student, {})
            course_page = home / COURSE_PAGE
            standing = standings[student]
            course_page.write_text(page(student, index, scores, mine, standing), encoding="utf-8")
            pages = [
                _write_problem_page(home, student, a, index, scores, mine[a], standing)
                for a in index.assignments
                if a in mine and mine[a].notebook  # nothing submitted: the course page says so
            ]
        except OSError as exc:  # this student's pages alone; the others and the report go on
            failures.append(OutputFailure(student, "feedback pages", str(exc)))
            continue
        course_pages.append((student, course_page))
        problem_pages += pages
    return FeedbackPages(folder, tuple(course_pages), tuple(problem_pages), tuple(failures), names)


def _write_problem_page(
    home: Path,
    student: str,
    assignment: str,
    index: ReleaseIndex,
    scores: Mapping[str, Mapping[str, Any]],
    result: SubmissionResult,
    standing: Standing,
) -> ProblemPage:
    """``<home>/<assignment>/<assignment>.html``, with nbgrader's timestamp.txt and
    submission_secret.txt beside it, written exactly as ``nbgrader submit`` wrote them (no newline
    added: the exchange's file name is a hash of the secret's exact text)."""
    target = home / assignment
    target.mkdir()
    notebook_id = Path(str(result.notebook)).stem
    path = target / f"{assignment}.html"
    subject = problem_title(index.cells(assignment), assignment)
    only = index.only(assignment)
    text = page(student, only, scores, {assignment: result}, standing, subject=subject)
    path.write_text(text, encoding="utf-8")
    secret, timestamp = result.secret or None, result.timestamp or None
    if secret:
        (target / "submission_secret.txt").write_text(str(secret), encoding="utf-8")
        (target / "timestamp.txt").write_text(str(timestamp or ""), encoding="utf-8")
    return ProblemPage(student, assignment, notebook_id, path, secret, timestamp)
