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

A page is in the language the student read the exercises in (the notebook records it,
:func:`roofline_lib.selfcheck.language.notebook_language`; the course page takes the latest
submission's): its own words (:data:`MESSAGES`), the problems' titles and every hint in Chinese
for a student who chose 中文, in English for one who chose English, and in both, each hint in
English then Chinese, for a submission that records no choice.
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
from roofline_grader.checks.base import FEEDBACK_INTRO, NOT_GRADED_YET, label_words
from roofline_grader.course.cells import CellInfo, ReleaseIndex
from roofline_grader.names import file_name, file_names, html_text
from roofline_grader.outputs.gradebook import Scores
from roofline_grader.outputs.report import fmt
from roofline_grader.outputs.standing import Standing
from roofline_grader.results import NO_NOTEBOOK, ProblemKind, Status, SubmissionResult
from roofline_lib.selfcheck.i18n import translate
from roofline_lib.selfcheck.language import LANGUAGE_NAMES, languages_of

# What a page says of its own, each translated in the checks' Chinese catalog (checks.po, through
# roofline_grader.outputs.catalog lists them): templates with str.format fields, and plain words.
FEEDBACK_FOR = "Feedback for {student}"
TOTAL = "Total: {total} / {maximum} points"
BY_HAND_PENDING = "{points} points still to be graded by hand"
SO_FAR = "over the problems graded so far ({count} not graded yet)"
NOT_GRADED_HEADING = "Not graded yet"
ABOUT_NOTEBOOK = "About your notebook"
PART, POINTS, CHECKS = "Part", "Points", "Checks"
NO_ANSWER = "no answer was written"
BY_HAND_WAITING = "graded by hand: not graded yet"
BY_HAND = "graded by hand"
ADJUSTED = "score adjusted by hand"
THE_PARTS_CHECKS = "the part's checks"
MESSAGES = (
    FEEDBACK_FOR,
    TOTAL,
    BY_HAND_PENDING,
    SO_FAR,
    NOT_GRADED_HEADING,
    ABOUT_NOTEBOOK,
    PART,
    POINTS,
    CHECKS,
    NO_ANSWER,
    BY_HAND_WAITING,
    BY_HAND,
    ADJUSTED,
    THE_PARTS_CHECKS,
    *(kind.words for kind in ProblemKind if kind.words),
    NO_NOTEBOOK,
)
"""Every word a feedback page says of its own (the grader's findings and hints are the checks')."""

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
details.other-language { margin-top: 3rem; border-top: 1px solid #ddd; padding-top: 1rem; }
details.other-language > summary { cursor: pointer; font-weight: 600; }
"""
_HIDDEN = re.compile(r"(?im)^.*(BEGIN HIDDEN TESTS|END HIDDEN TESTS|roofline_grader\.hidden).*$")


def _clean(text: Any) -> str:
    """Escape for HTML, dropping any line that quotes the hidden region of a test cell."""
    return html.escape(_HIDDEN.sub("[hidden]", str(text)))


def problem_title(cells: Sequence[CellInfo], assignment: str, language: str | None = None) -> str:
    """The first heading of the notebook ('Problem 1 · An int8 matmul'), from the Chinese half of
    its cell for ``zh_CN`` ('习题 1 · int8 矩阵乘法')."""
    for cell in cells:
        parts = languages_of(cell.source)
        source = parts[1] if parts and language == "zh_CN" else parts[0] if parts else cell.source
        for line in source.splitlines():
            if line.startswith("# "):
                return line[2:].strip()
    return assignment


@dataclass(frozen=True)
class Speech:
    """How a page speaks: in ``language`` (``en``, ``zh_CN``), or in both (None)."""

    language: str | None

    def say(self, english: str, **fields: Any) -> str:
        """One of the page's words (:data:`MESSAGES`) or a hint, escaped: in the page's language,
        or with None its English followed by its Chinese on a line of its own."""
        text = english.format(**{k: str(v) for k, v in fields.items()}) if fields else english
        chinese = translate(text) if self.language != "en" else None
        if self.language == "zh_CN":
            return _clean(chinese or text)
        return _clean(text) + (
            f'<span class="zh" lang="zh-CN">{_clean(chinese)}</span>' if chinese else ""
        )

    def word(self, english: str, **fields: Any) -> str:
        """Like :meth:`say`, but one language only: the page's, English when it has none (a
        heading, a table header, where two lines would not fit)."""
        text = english.format(**{k: str(v) for k, v in fields.items()}) if fields else english
        chinese = translate(text) if self.language == "zh_CN" else None
        return _clean(chinese or text)

    @property
    def colon(self) -> str:
        """What stands between a name and what is said of it: "：" in Chinese, ": " otherwise."""
        return "：" if self.language == "zh_CN" else ": "

    @property
    def html_lang(self) -> str:
        return "zh-CN" if self.language == "zh_CN" else "en"


def page_language(results: Mapping[str, SubmissionResult]) -> str | None:
    """The language of the latest submission that records one (by its nbgrader timestamp, then
    its assignment), or None: the language a page for these results is written in."""
    chosen = [r for r in results.values() if r.language]
    if not chosen:
        return None
    latest = max(chosen, key=lambda r: (r.timestamp or "", r.assignment))
    return latest.language


def page(
    student: str,
    index: ReleaseIndex,
    scores: Mapping[str, Mapping[str, Any]],
    results: Mapping[str, SubmissionResult],
    standing: Standing,
    subject: bool = False,
) -> str:
    """The HTML page of one student on the assignments of ``index`` (all of them: the course page;
    one: a problem page, whose title names the problem when ``subject``). ``scores`` and
    ``results`` are keyed by assignment (an assignment without a result was not graded in this
    run). Every total is the student's ``standing``'s (:mod:`roofline_grader.outputs.standing`):
    a problem not graded yet is listed as such and counts in neither the total nor the maximum.
    The page speaks the language of ``results`` (:func:`page_language`), with the other language
    folded at its end, one click away (both interleaved when none was chosen)."""
    language = page_language(results)
    title, body = _content(student, index, scores, results, standing, subject, Speech(language))
    if language is not None:
        other = "en" if language == "zh_CN" else "zh_CN"
        _, other_body = _content(student, index, scores, results, standing, subject, Speech(other))
        body += (
            f'<details class="other-language" lang="{Speech(other).html_lang}">'
            f"<summary>{LANGUAGE_NAMES[other]}</summary>{other_body}</details>"
        )
    return (
        f'<!doctype html>\n<html lang="{Speech(language).html_lang}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{title}</title><style>{STYLE}</style></head><body>{body}</body></html>\n"
    )


def _content(
    student: str,
    index: ReleaseIndex,
    scores: Mapping[str, Mapping[str, Any]],
    results: Mapping[str, SubmissionResult],
    standing: Standing,
    subject: bool,
    speech: Speech,
) -> tuple[str, str]:
    """A page's title and its body's HTML, as ``speech`` speaks (:func:`page`)."""
    sections: list[str] = []
    not_yet = []
    counted = []
    for assignment, cells in index.notebooks:
        problem = standing.problem(assignment)
        if not problem.counts:
            not_yet.append(_clean(problem_title(cells, assignment, speech.language)))
            continue
        counted.append(problem)
        result = results.get(assignment)
        graded = result is not None and result.status is Status.GRADED
        grades = scores.get(assignment, {})
        rows = [
            _row(
                part.grade_id,
                part.max_points,
                part.score,
                grades.get(part.grade_id, {}),
                result,
                speech,
                cells,
            )
            for part in problem.parts
        ]
        notes = "".join(
            f"<li>{speech.word(p.kind.words)}{speech.colon}{speech.word(p.detail)}</li>"
            for p in (result.problems if result else ())
        )
        heading = (
            f"<h2>{_clean(problem_title(cells, assignment, speech.language))} — "
            f"{fmt(problem.points)} / {fmt(problem.max_points)}</h2>"
        )
        about = (
            f'<div class="notes"><strong>{speech.word(ABOUT_NOTEBOOK)}</strong>'
            f"<ul>{notes}</ul></div>"
        )
        table = (
            f"<table><tr><th>{speech.word(PART)}</th><th>{speech.word(POINTS)}</th>"
            f"<th>{speech.word(CHECKS)}</th></tr>" + "".join(rows)
        )
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
    chinese = speech.language == "zh_CN"
    pending = ""
    if waiting:
        by_hand = speech.word(BY_HAND_PENDING, points=fmt(waiting))
        pending += f"（{by_hand}）" if chinese else f" ({by_hand})"
    if not_yet:
        pending += ("；" if chinese else "; ") + speech.word(SO_FAR, count=len(not_yet))
        items = "".join(f"<li>{title}</li>" for title in not_yet)
        sections.append(
            f"<section><h2>{speech.word(NOT_GRADED_HEADING)}</h2>"
            f"<p>{speech.say(NOT_GRADED_YET)}</p><ul>{items}</ul></section>"
        )
    pending += "。" if chinese else "."
    name = html_text(student)
    title = speech.word(FEEDBACK_FOR, student="\0").replace("\0", name)
    if subject and index.notebooks:
        assignment, cells = index.notebooks[0]
        title += speech.colon + _clean(problem_title(cells, assignment, speech.language))
    total_line = speech.word(TOTAL, total=fmt(total), maximum=fmt(maximum))
    body = (
        f"<h1>{title}</h1>"
        f"<p><strong>{total_line}</strong>{pending}</p>"
        f'<p class="small">{speech.say(FEEDBACK_INTRO)}</p>' + "".join(sections)
    )
    return title, body


def _row(
    gid: str,
    points: float,
    score: float | None,
    grade: Mapping[str, Any],
    result: SubmissionResult | None,
    speech: Speech,
    cells: Sequence[CellInfo],
) -> str:
    part = PARTS.get(gid)
    title = f"({part.letter}) {part_title(part, cells, speech.language)}" if part else gid
    if part is not None and part.manual:
        if result is not None and result.comments.get(gid) == "No response.":
            checks = f'<li class="fail">✗ {speech.word(NO_ANSWER)}</li>'
        elif score is None:
            checks = f'<li class="wait">{speech.word(BY_HAND_WAITING)}</li>'
        else:
            comment = grade.get("comment")
            checks = f'<li class="pass">{speech.word(BY_HAND)}</li>' + (
                f"<li>{_clean(comment)}</li>" if comment else ""
            )
    else:
        verdict = result.verdict(gid) if result is not None else None
        findings = verdict.findings if verdict is not None else ()
        if not findings:
            findings = (Finding(THE_PARTS_CHECKS, bool(score)),)
        checks = "".join(_finding(f, speech) for f in findings)
        if grade.get("manual"):
            checks += f"<li>{speech.word(ADJUSTED)}</li>"
    return (
        f'<tr><td>{_clean(title)}</td><td class="points">{fmt(score) or "–"} / {fmt(points)}</td>'
        f"<td><ul>{checks}</ul></td></tr>"
    )


def _label(label: str, speech: Speech) -> str:
    """A finding's label: its code as it is, its words (:func:`label_words`) in the page's
    language (English where the catalog has no Chinese)."""
    code, joiner, words = label_words(label)
    if speech.language != "zh_CN" or not words:
        return _clean(label)
    said = speech.word(words)
    if not code:
        return said
    return _clean(code) + ("，" if joiner == ", " else " ") + said


def part_title(part: Any, cells: Sequence[CellInfo], language: str | None) -> str:
    """A part's title: the checks' ('bytes loaded and written'), or for ``zh_CN`` the heading of
    its statement in the release's Chinese ('## (a) 搬运的字节数 — 2 分' gives 搬运的字节数)."""
    if language == "zh_CN":
        for cell in cells:
            parts = languages_of(cell.source)
            heading = parts[1].lstrip().split("\n", 1)[0] if parts else ""
            if heading.startswith(f"## ({part.letter}) "):
                return heading.removeprefix(f"## ({part.letter}) ").split(" — ")[0].strip()
    return str(part.title)


def _finding(finding: Finding, speech: Speech) -> str:
    """A check as a list item: ✓ with its note (follow-through), or ✗ with its hint; the note or
    hint in the page's language (with none, in English, then in Chinese)."""
    label = _label(finding.label, speech)
    hint = speech.say(finding.hint) if finding.hint else ""
    if finding.passed:
        return f'<li class="pass">✓ {label}' + (f" ({hint})" if hint else "") + "</li>"
    return f'<li class="fail">✗ {label}{speech.colon}{hint}</li>'


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
    only = index.only(assignment)
    text = page(student, only, scores, {assignment: result}, standing, subject=True)
    path.write_text(text, encoding="utf-8")
    secret, timestamp = result.secret or None, result.timestamp or None
    if secret:
        (target / "submission_secret.txt").write_text(str(secret), encoding="utf-8")
        (target / "timestamp.txt").write_text(str(timestamp or ""), encoding="utf-8")
    return ProblemPage(student, assignment, notebook_id, path, secret, timestamp)
