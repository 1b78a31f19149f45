"""What the class got wrong: per part, the scores, the mistakes diagnosed, and who made each.

nbgrader shows one student at a time; a per-question summary of the class is its long-standing
request (jupyter/nbgrader issues #235, "summary statistics while grading", and #942, "learning
analytics dashboard"). Our hidden checks already see every student's numbers, so a run can say
more than a histogram: which misconception each wrong answer matches.

**Diagnosis.** Every failed finding of a part (:class:`~roofline_grader.checks.base.Finding`,
from each worker result's ``verdicts[grade_id]["findings"]``) goes into one cluster:

* it matched a known misconception: the cluster is that mistake, named by its hint;
* it was wrong by one constant factor r (``Finding.ratio``: 2, ½, 8, 10¹², 10⁻⁹ …): the cluster is
  that factor on that check, named by the hint of the check's known mistake with that factor (an
  answer close to it), else in words (:func:`describe_factor`), with a known mistake of another
  check of the part that has the same factor as a lead;
* it returned the same value whatever its arguments, or was wrong in no known way: one cluster per
  check and hint;
* nothing could be judged (not defined, not implemented, an error, the checks did not run to a
  verdict): the part's "no answer, or an error" cluster, each student with the reason.

Besides the mistakes, each part counts its students whose checks did not run, whose notebook is
missing or unreadable, and who passed by follow-through (carried forward from their own wrong
earlier answers). Shares are of every student of the run; a student can be in several clusters.

The summary (:func:`summarize`) is pure and typed; :func:`text_lines` words it for report.txt and
:func:`render_html` draws report.html (one self-contained file: plots as inline SVG, everything
from a notebook escaped).
"""

from __future__ import annotations

import functools
import html
import io
import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from urllib.parse import quote

from roofline_grader.checks import PARTS
from roofline_grader.checks.base import (
    CARRIED_PREFIX,
    Cause,
    Finding,
    constant_ratio,
    expectations,
    make_plan,
)
from roofline_grader.names import html_text
from roofline_grader.results import ProblemKind, Status, SubmissionResult
from roofline_lib.mistakes import describe_factor, format_factor
from roofline_lib.palette import OKABE_ITO

# ----------------------------------------------------------------------------------------------
# The summary
# ----------------------------------------------------------------------------------------------


class Kind(Enum):
    """What a cluster of students has in common in one part."""

    MISCONCEPTION = "known mistake"
    FACTOR = "off by one factor"
    IGNORES_INPUTS = "ignores its inputs"
    WRONG = "wrong, no known mistake"
    NO_ANSWER = "no answer, or an error"
    NOT_RUN = "checks not run"
    MISSING = "no notebook"
    UNREADABLE = "notebook not graded"
    CARRIED = "passed by follow-through"


MISTAKE_KINDS = (Kind.MISCONCEPTION, Kind.FACTOR, Kind.IGNORES_INPUTS, Kind.WRONG)
"""The kinds that are wrong answers (the rest are missing answers, or passes)."""


@dataclass(frozen=True)
class Member:
    """A student in a cluster, with what was said about their answer (the reason, for errors)."""

    student: str
    note: str = ""


@dataclass(frozen=True)
class MistakeCluster:
    """The students of one part who share a diagnosis.

    Attributes:
        grade_id: the part.
        kind: what they share (:class:`Kind`).
        title: the diagnosis in words (a known mistake's hint, or a factor in words).
        label: the check it was found by (empty when it is part-wide).
        detail: a second line: what the students were told, when it is not the title.
        ratio: answer / reference, the same for all of them (None when not one factor).
        members: the students, in the run's order.
        class_size: every student of the run (the share's denominator).
    """

    grade_id: str
    kind: Kind
    title: str
    label: str
    detail: str
    ratio: float | None
    members: tuple[Member, ...]
    class_size: int

    @property
    def students(self) -> tuple[str, ...]:
        return tuple(m.student for m in self.members)

    @property
    def share(self) -> float:
        """Fraction of the class in this cluster, 0 to 1."""
        return len(self.members) / self.class_size if self.class_size else 0.0


@dataclass(frozen=True)
class PartSummary:
    """One graded part across the class.

    Attributes:
        grade_id, problem, letter, title: the part (:data:`roofline_grader.checks.PARTS`).
        points: the most it scores.
        manual: graded by hand.
        students: every student of the run, in its order.
        scores: one per student; None while awaiting grading by hand.
        mistakes: the clusters of wrong answers, most students first.
        others: no answer, checks not run, no notebook, unreadable, carried forward.
    """

    grade_id: str
    problem: str
    letter: str
    title: str
    points: float
    manual: bool
    students: tuple[str, ...]
    scores: tuple[float | None, ...]
    mistakes: tuple[MistakeCluster, ...]
    others: tuple[MistakeCluster, ...]

    @property
    def graded(self) -> tuple[float, ...]:
        return tuple(s for s in self.scores if s is not None)

    @property
    def awaiting(self) -> int:
        return sum(s is None for s in self.scores)

    @property
    def mean(self) -> float | None:
        """Mean score of the class (points); None while any student awaits grading by hand (those
        graded so far may be only the notebooks missing, at 0)."""
        if self.awaiting or not self.scores:
            return None
        return sum(self.graded) / len(self.graded)

    @property
    def full_marks(self) -> int:
        return sum(math.isclose(s, self.points) for s in self.graded)

    def other(self, kind: Kind) -> MistakeCluster | None:
        return next((c for c in self.others if c.kind is kind), None)


@dataclass(frozen=True)
class ClassSummary:
    """Every graded part of a run, in course order, over the run's students."""

    students: tuple[str, ...]
    parts: tuple[PartSummary, ...]

    def part(self, grade_id: str) -> PartSummary:
        for part in self.parts:
            if part.grade_id == grade_id:
                return part
        raise KeyError(f"no part {grade_id!r}; parts: {', '.join(p.grade_id for p in self.parts)}")


Scores = Mapping[tuple[str, str], float | None]
"""Score by (student, grade id); None while awaiting grading by hand."""


def scores_from_table(
    header: Sequence[str], rows: Iterable[Sequence[str]]
) -> dict[tuple[str, str], float | None]:
    """The scores of grades.csv's table (:func:`roofline_grader.outputs.report.grade_table`): a cell is a
    number, or empty while awaiting grading by hand."""
    return {
        (row[0], column): (float(cell) if cell != "" else None)
        for row in rows
        for column, cell in zip(header[1:], row[1:], strict=True)
    }


def factor_key(ratio: float) -> float:
    """A factor rounded to 4 significant digits: answers with the same mistake share it exactly."""
    return float(f"{ratio:.4g}")


@dataclass(frozen=True)
class Known:
    """What a part's hidden test knows, from its recorded expectations
    (:func:`~roofline_grader.checks.base.expectations`).

    Attributes:
        factors: by (check label, :func:`factor_key`), the hint of each known misconception whose
            values are the references times one constant.
        mistakes: every known misconception's hint.
        general: the checks' general hints (what a wrong answer matching no mistake is told).
    """

    factors: Mapping[tuple[str, float], str]
    mistakes: frozenset[str]
    general: frozenset[str]

    def factor_hint(self, label: str, key: float) -> tuple[str, str]:
        """(the known mistake of this check with this factor, or '';
        one of another check of the part with it, or '')."""
        same = self.factors.get((label, key), "")
        other = next((h for (lab, k), h in self.factors.items() if k == key and lab != label), "")
        return same, other


def known(grade_id: str) -> Known:
    """The known mistakes and hints of a part (nothing for a part graded by hand)."""
    part = PARTS.get(grade_id)
    if part is None or part.check is None:
        return Known({}, frozenset(), frozenset())
    factors: dict[tuple[str, float], str] = {}
    hints, general = set(), set()
    for expected in expectations(part.check, make_plan(part.check, f"classreport|{grade_id}")):
        general.add(expected.hint)
        for hint, values in expected.mistakes:
            hints.add(hint)
            ratio = constant_ratio(values, expected.values, expected.rtol)
            if ratio is not None:
                factors.setdefault((expected.label, factor_key(ratio)), hint)
    return Known(factors, frozenset(hints), frozenset(general))


def cause_of(finding: Finding, part: Known) -> Cause:
    """A failed finding's cause; one from a journal older than ``Finding.cause`` (or from the
    executor, when the checks ran to no verdict) is told by its hint: a known mistake's, the
    check's general one, or else a reason there was no answer."""
    if finding.cause is not None:
        return finding.cause
    if finding.hint in part.mistakes:
        return Cause.MISCONCEPTION
    return Cause.WRONG if finding.hint in part.general else Cause.NO_ANSWER


ClusterKey = tuple[str | float, ...]
"""What the members of a cluster share: its kind's word, then the finding's label, hint or factor."""
ClusterHead = tuple[Kind, str, str, str, float | None]
"""A cluster's kind, title, the finding's label, a second line, and its factor (or None)."""


def _diagnose(finding: Finding, part: Known) -> tuple[ClusterKey, Kind, str, str]:
    """(cluster key, kind, title, a second line) of a failed finding. A factor is named by the
    known mistake of the same check with that factor (an answer near one), else in words, with a
    known mistake of another check of the part that has the same factor as a lead."""
    cause = cause_of(finding, part)
    if cause is Cause.MISCONCEPTION:
        return ("known", finding.hint), Kind.MISCONCEPTION, finding.hint, ""
    if cause is Cause.WRONG and finding.ratio is not None:
        key = factor_key(finding.ratio)
        same, other = part.factor_hint(finding.label, key)
        title = same or describe_factor(finding.ratio)
        lead = f"; the factor of a known mistake elsewhere in this part: {other}" if other else ""
        return (
            ("factor", finding.label, key),
            Kind.FACTOR,
            title,
            f"students were told: {finding.hint}{lead}",
        )
    if cause is Cause.IGNORES_INPUTS:
        return ("same", finding.label), Kind.IGNORES_INPUTS, finding.hint, ""
    if cause is Cause.WRONG:
        return (
            ("wrong", finding.label, finding.hint),
            Kind.WRONG,
            "wrong answers that match no known mistake and no single factor",
            f"students were told: {finding.hint}",
        )
    return ("none",), Kind.NO_ANSWER, Kind.NO_ANSWER.value, ""


class _Clusters:
    """Clusters of one part as they are filled, students once each, in the run's order."""

    def __init__(self) -> None:
        self.heads: dict[ClusterKey, ClusterHead] = {}
        self.members: dict[ClusterKey, dict[str, str]] = {}

    def add(self, key: ClusterKey, head: ClusterHead, student: str, note: str = "") -> None:
        self.heads.setdefault(key, head)
        self.members.setdefault(key, {}).setdefault(student, note)

    def build(self, grade_id: str, n: int) -> list[MistakeCluster]:
        return [
            MistakeCluster(
                grade_id,
                kind,
                title,
                label,
                detail,
                ratio,
                tuple(Member(s, note) for s, note in self.members[key].items()),
                n,
            )
            for key, (kind, title, label, detail, ratio) in self.heads.items()
        ]


def summarize(
    results: Iterable[SubmissionResult],
    students: Sequence[str],
    parts: Sequence[tuple[str, str, float]],
    scores: Scores | None = None,
) -> ClassSummary:
    """The class summary of a run.

    Args:
        results: the worker results of the run (one per student × assignment).
        students: every student of the run, in order (the shares' denominator).
        parts: (assignment, grade id, points) of every grade cell, in course order
            (:func:`roofline_grader.outputs.report.grade_parts`).
        scores: the scores grades.csv shows (:func:`scores_from_table`), hand scores included;
            without them, the results' automatic scores.
    """
    by_task = {(r.student, r.assignment): r for r in results}
    n = len(students)
    summaries = []
    for assignment, grade_id, points in parts:
        knows = known(grade_id)
        part = PARTS.get(grade_id)
        clusters = _Clusters()
        marks: list[float | None] = []
        for student in students:
            result = by_task.get((student, assignment))
            graded = result.part(grade_id) if result is not None else None
            if scores is not None and (student, grade_id) in scores:
                marks.append(scores[(student, grade_id)])
            else:
                marks.append(None if graded is None else graded.auto_score)
            _place(clusters, knows, grade_id, student, result)
        built = clusters.build(grade_id, n)
        order = sorted(built, key=lambda c: (-len(c.members), c.title))
        summaries.append(
            PartSummary(
                grade_id=grade_id,
                problem=assignment,
                letter=part.letter if part else "",
                title=part.title if part else grade_id,
                points=points,
                manual=bool(part and part.manual),
                students=tuple(students),
                scores=tuple(marks),
                mistakes=tuple(c for c in order if c.kind in MISTAKE_KINDS),
                others=tuple(c for c in order if c.kind not in MISTAKE_KINDS),
            )
        )
    return ClassSummary(tuple(students), tuple(summaries))


def _place(
    clusters: _Clusters,
    knows: Known,
    grade_id: str,
    student: str,
    result: SubmissionResult | None,
) -> None:
    """Put one student's answer to one part into its clusters (None: no result, as missing)."""
    if result is None or result.status is Status.MISSING:
        clusters.add(("missing",), (Kind.MISSING, Kind.MISSING.value, "", "", None), student)
        return
    if result.status is not Status.GRADED:
        reason = result.problems[-1].detail if result.problems else result.status.value
        head = (Kind.UNREADABLE, Kind.UNREADABLE.value, "", "", None)
        clusters.add(("unreadable",), head, student, reason)
        return
    stopped = [e for e in result.events if e.kind is ProblemKind.NOT_RUN and e.grade_id == grade_id]
    verdict = result.verdict(grade_id)
    if PARTS.get(grade_id) is not None and PARTS[grade_id].manual:
        return
    if stopped or verdict is None:
        note = stopped[0].detail if stopped else "the part's checks left no verdict"
        clusters.add(("not-run",), (Kind.NOT_RUN, Kind.NOT_RUN.value, "", "", None), student, note)
        return
    for finding in verdict.findings:
        if finding.passed:
            if finding.carried:
                head = (Kind.CARRIED, Kind.CARRIED.value, "", "", None)
                source = finding.hint.removeprefix(CARRIED_PREFIX).split(":")[0]
                clusters.add(("carried",), head, student, f"from {source}" if source else "")
            continue
        key, kind, title, detail = _diagnose(finding, knows)
        label = "" if kind is Kind.NO_ANSWER else finding.label
        ratio = finding.ratio if kind in (Kind.MISCONCEPTION, Kind.FACTOR) else None
        note = f"{finding.label}: {finding.hint}" if kind is Kind.NO_ANSWER else ""
        clusters.add(key, (kind, title, label, detail, ratio), student, note)


# ----------------------------------------------------------------------------------------------
# Factors in words
# ----------------------------------------------------------------------------------------------

# The factors and their words are the catalogue of mistakes the book's questions share too:
# roofline_lib.mistakes (format_factor, describe_factor, imported above).


# ----------------------------------------------------------------------------------------------
# report.txt
# ----------------------------------------------------------------------------------------------

TOP_IN_TEXT = 3
"""Mistakes per part named in report.txt (report.html has them all)."""


def _percent(share: float) -> str:
    return f"{100 * share:.0f}%" if share >= 0.01 or share == 0 else "<1%"


def _points(x: float | None) -> str:
    return "–" if x is None else f"{x:.2f}"


def part_name(part: PartSummary) -> str:
    """'Problem 1 (a) bytes loaded and written'."""
    number = part.problem.removeprefix("problem")
    letter = f" ({part.letter})" if part.letter else ""
    return f"Problem {number}{letter} {part.title}"


def text_lines(summary: ClassSummary, html_path: object) -> list[str]:
    """The class section of report.txt: per part with mistakes, its mean and the commonest
    mistakes, one line each (share, count, diagnosis)."""
    n = len(summary.students)
    lines = [f"What the class got wrong ({n} students; plots and names in {html_path}):"]
    shown = 0
    for part in summary.parts:
        if not part.mistakes:
            continue
        shown += 1
        full = f"{part.full_marks}/{len(part.graded)} full marks" if part.graded else "not graded"
        lines.append(
            f"  {part.grade_id}, {part_name(part)}: mean {_points(part.mean)} of "
            f"{part.points:g}, {full}"
        )
        for cluster in part.mistakes[:TOP_IN_TEXT]:
            where = f" [{cluster.label}]" if cluster.kind is not Kind.MISCONCEPTION else ""
            lines.append(
                f"    {_percent(cluster.share):>4} ({len(cluster.members)}) {cluster.title}{where}"
            )
        if len(part.mistakes) > TOP_IN_TEXT:
            lines.append(f"    … and {len(part.mistakes) - TOP_IN_TEXT} more in report.html")
    if not shown:
        lines.append("  No wrong answers: every answer given was right.")
    return lines


# ----------------------------------------------------------------------------------------------
# report.html
# ----------------------------------------------------------------------------------------------

COLOURS = {
    "zero": OKABE_ITO["vermillion"],
    "part": OKABE_ITO["orange"],
    "full": OKABE_ITO["bluish_green"],
    "awaiting": OKABE_ITO["reddish_purple"],
    "absent": OKABE_ITO["sky_blue"],
}
"""The score plot's bars: no points, some, full marks, awaiting grading by hand; and the part of a
bar that handed in no readable notebook (hatched too, so it reads without colour)."""


@dataclass(frozen=True)
class Bar:
    """One bar of a part's score plot.

    Attributes:
        label: the score ('0', '1.5', '2'), or 'by hand' for those awaiting grading by hand.
        handed_in: students at that score who handed in a readable notebook.
        absent: students at that score who did not (no notebook, or an unreadable one).
        colour: a key of :data:`COLOURS`.
    """

    label: str
    handed_in: int
    absent: int
    colour: str

    @property
    def count(self) -> int:
        return self.handed_in + self.absent


def score_bars(part: PartSummary) -> list[Bar]:
    """The bars of a part's score plot: every score met, and always 0 and full marks; then the
    students awaiting grading by hand."""
    absent = {
        m.student
        for kind in (Kind.MISSING, Kind.UNREADABLE)
        if (c := part.other(kind)) is not None
        for m in c.members
    }
    values = sorted({0.0, part.points, *part.graded})
    bars = []
    for v in values:
        at = [i for i, s in enumerate(part.scores) if s is not None and math.isclose(s, v)]
        away = sum(part.students[i] in absent for i in at)
        key = "zero" if v == 0 else "full" if math.isclose(v, part.points) else "part"
        bars.append(Bar(f"{v:g}", len(at) - away, away, key))
    if part.awaiting:
        bars.append(Bar("by hand", part.awaiting, 0, "awaiting"))
    return bars


SVG_METADATA = ("Creator", "Date", "Format", "Type")
"""matplotlib's SVG metadata, all left out (matplotlib.backends.backend_svg: a key set to None is
not written): the page stays the same from run to run, and small."""


def score_svg(part: PartSummary) -> str:
    """The part's score distribution as an inline ``<svg>`` element (matplotlib, text kept as
    text): a bar per score with its count above it, the students without a readable notebook
    hatched at its foot."""
    return bars_svg(tuple(score_bars(part)), part.points, part.grade_id)


PLOT_W_IN, PLOT_H_IN = 3.3, 2.2
"""A part's score plot, in inches (shown 20 rem wide)."""
MARGIN_IN = {"left": 0.6, "right": 0.1, "bottom": 0.5, "top": 0.1, "legend": 0.22}
"""Room around the axes, in inches: the counts' tick labels (up to four digits) and the y label;
the score labels and the x label; the legend above the plot when it has one."""


@functools.lru_cache(maxsize=512)
def bars_svg(bars: tuple[Bar, ...], points: float, grade_id: str) -> str:
    """:func:`score_svg`'s drawing: a pure function of the bars, drawn once per process for
    each distinct plot (about 25 ms each; the report of a run draws one for every part, and a
    run in the same process that changes no part's scores, the tests' reruns, draws none)."""
    import matplotlib
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    xs = list(range(len(bars)))
    with matplotlib.rc_context({"svg.fonttype": "none", "font.size": 9, "hatch.color": "white"}):
        fig = Figure(figsize=(PLOT_W_IN, PLOT_H_IN))
        absent = [b.absent for b in bars]
        top_in = MARGIN_IN["top"] + (MARGIN_IN["legend"] if any(absent) else 0.0)
        fig.subplots_adjust(  # fixed margins: half the time of a constrained layout, same room
            left=MARGIN_IN["left"] / PLOT_W_IN,
            right=1 - MARGIN_IN["right"] / PLOT_W_IN,
            bottom=MARGIN_IN["bottom"] / PLOT_H_IN,
            top=1 - top_in / PLOT_H_IN,
        )
        ax = fig.subplots()
        ax.bar(xs, absent, color=COLOURS["absent"], hatch="///", width=0.7, label="no notebook")
        drawn = ax.bar(
            xs,
            [b.handed_in for b in bars],
            bottom=absent,
            width=0.7,
            color=[COLOURS[b.colour] for b in bars],
        )
        ax.bar_label(drawn, labels=[str(b.count) for b in bars], padding=1, fontsize=8)
        ax.set_xticks(xs, [b.label for b in bars])
        ax.set_xlabel(f"points (of {points:g})")
        ax.set_ylabel("students")
        ax.set_ylim(0, max(max(b.count for b in bars), 1) * 1.2)
        locator = ax.yaxis.get_major_locator()
        if isinstance(locator, MaxNLocator):  # AutoLocator, a linear axis's: whole counts only
            locator.set_params(integer=True)
        ax.spines[["top", "right"]].set_visible(False)
        if any(absent):  # above the plot, clear of the bars' counts
            ax.legend(loc="lower right", bbox_to_anchor=(1, 1), fontsize=7, frameon=False)
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", metadata=dict.fromkeys(SVG_METADATA))
    text = buffer.getvalue()
    svg = text[text.index("<svg") :]
    words = ", ".join(f"{b.count} at {b.label}" for b in bars)
    title = html.escape(f"Scores of {grade_id}: {words}")
    return svg.replace(">", f' role="img" aria-label="{title}">', 1)


STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; max-width: 72rem; margin: 1.5rem auto; padding: 0 1rem;
       color: #111; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; } h2 { font-size: 1.2rem; margin: 2.2rem 0 .4rem; }
h3 { font-size: 1rem; margin: .6rem 0 .3rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: .3rem .5rem; border-bottom: 1px solid #ddd; }
td.num, th.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
.part { display: grid; grid-template-columns: 20rem 1fr; gap: 1rem; align-items: start; }
.part svg { width: 20rem; height: auto; }
@media (max-width: 50rem) { .part { grid-template-columns: 1fr; } }
.share { display: inline-block; height: .7rem; background: #D55E00; vertical-align: middle; }
.small, .label { color: #555; font-size: .88rem; }
.kind { font-size: .75rem; color: #555; border: 1px solid #bbb; border-radius: .6rem;
        padding: 0 .4rem; margin-left: .3rem; white-space: nowrap; }
details summary { cursor: pointer; color: #0072B2; font-size: .88rem; }
ul.names { columns: 11rem; margin: .2rem 0; padding-left: 1.1rem; font-size: .88rem; }
ul.notes { margin: .2rem 0; padding-left: 1.1rem; font-size: .88rem; }
.others li { margin-bottom: .2rem; }
td, li { overflow-wrap: anywhere; }
a { color: #0072B2; }
"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _names(members: Sequence[Member], links: Mapping[str, str]) -> str:
    """The students of a cluster, collapsed: names in columns, or grouped by the reason given."""

    def name(student: str) -> str:
        if student not in links:
            return f'<span class="who">{html_text(student)}</span>'
        return f'<a class="who" href="{_e(quote(links[student]))}">{html_text(student)}</a>'

    count = f"{len(members)} student{'s' if len(members) != 1 else ''}"
    if any(m.note for m in members):
        groups: dict[str, list[str]] = {}
        for m in members:
            groups.setdefault(m.note, []).append(m.student)
        items = "".join(
            f'<li class="reason"><span class="why">{_e(note) or "(no reason given)"}</span>: '
            f"{', '.join(map(name, who))}</li>"
            for note, who in sorted(groups.items(), key=lambda kv: -len(kv[1]))
        )
        return f'<details><summary>{count}, by reason</summary><ul class="notes">{items}</ul></details>'
    items = "".join(f"<li>{name(m.student)}</li>" for m in members)
    return f'<details><summary>{count}</summary><ul class="names">{items}</ul></details>'


def _mistake_row(cluster: MistakeCluster, links: Mapping[str, str]) -> str:
    width = max(2, round(100 * cluster.share * 1.2))
    factor = f" {format_factor(cluster.ratio)}" if cluster.ratio is not None else ""
    about = []
    if cluster.label:
        about.append(f"check: {_e(cluster.label)}")
    if cluster.detail:
        about.append(_e(cluster.detail))
    detail = f'<div class="label">{"; ".join(about)}</div>' if about else ""
    return (
        f'<tr class="cluster" data-part="{_e(cluster.grade_id)}" data-kind="{cluster.kind.name}">'
        f'<td class="num">{_percent(cluster.share)}<br><span class="share" style="width:{width}px">'
        f"</span></td>"
        f'<td><strong class="title">{_e(cluster.title)}</strong>'
        f'<span class="kind">{_e(cluster.kind.value)}{_e(factor)}</span>{detail}'
        f"{_names(cluster.members, links)}</td></tr>"
    )


OTHER_WORDS = {
    Kind.NO_ANSWER: "gave nothing a check could judge (not defined, not implemented, an error)",
    Kind.NOT_RUN: "had checks that did not run (the notebook stopped before them)",
    Kind.MISSING: "handed in no notebook",
    Kind.UNREADABLE: "handed in a notebook that could not be graded (unreadable, or the grader "
    "failed on it: see report.txt)",
    Kind.CARRIED: "passed by follow-through: right for their own wrong earlier answers",
}


def _part_section(part: PartSummary, links: Mapping[str, str]) -> str:
    n = len(part.scores)
    full = f"{part.full_marks} of {len(part.graded)} full marks" if part.graded else ""
    waiting = f", {part.awaiting} awaiting grading by hand" if part.awaiting else ""
    unit = "point" if part.points == 1 else "points"
    stats = f"mean {_points(part.mean)} of {part.points:g} {unit}; {full}{waiting}"
    if part.mistakes:
        rows = "".join(_mistake_row(c, links) for c in part.mistakes)
        mistakes = (
            '<h3>Diagnosed mistakes</h3><table><tr><th class="num">share</th>'
            f"<th>diagnosis, and who</th></tr>{rows}</table>"
        )
    elif part.manual:
        mistakes = '<p class="small">A written answer, graded by hand: no automatic diagnosis.</p>'
    else:
        mistakes = '<p class="small">No wrong answers.</p>'
    others = "".join(
        f'<li class="cluster" data-part="{_e(c.grade_id)}" data-kind="{c.kind.name}">'
        f"<strong>{len(c.members)}</strong> ({_percent(c.share)}) {_e(OTHER_WORDS[c.kind])}"
        f"{_names(c.members, links)}</li>"
        for c in part.others
    )
    return (
        f'<section id="{_e(part.grade_id)}"><h2>{_e(part_name(part))} '
        f'<span class="small">{_e(part.grade_id)}</span></h2>'
        f'<p class="small">{_e(stats)} ({n} students)</p>'
        f'<div class="part"><figure style="margin:0">{score_svg(part)}</figure><div>{mistakes}'
        + (f'<h3>Also</h3><ul class="others">{others}</ul>' if others else "")
        + "</div></div></section>"
    )


def _overview(summary: ClassSummary) -> str:
    rows = []
    for part in summary.parts:
        top = part.mistakes[0] if part.mistakes else None
        commonest = (
            f"{_percent(top.share)} {_e(top.title)}"
            if top
            else (f"graded by hand ({part.awaiting} awaiting)" if part.manual else "none")
        )
        full = f"{part.full_marks}/{len(part.graded)}" if part.graded else "–"
        rows.append(
            f'<tr><td><a href="#{_e(part.grade_id)}">{_e(part_name(part))}</a></td>'
            f'<td class="num">{_points(part.mean)} / {part.points:g}</td>'
            f'<td class="num">{full}</td><td class="num">{len(part.mistakes)}</td>'
            f"<td>{commonest}</td></tr>"
        )
    return (
        '<table class="overview"><tr><th>part</th><th class="num">mean</th>'
        '<th class="num">full marks</th><th class="num">mistakes</th><th>commonest mistake</th>'
        f"</tr>{''.join(rows)}</table>"
    )


def render_html(summary: ClassSummary, links: Mapping[str, str] | None = None) -> str:
    """report.html: an overview table, then per part its score plot, its diagnosed mistakes with
    the share of the class and the students (collapsed), and the other outcomes. ``links`` gives
    each student's feedback page, relative to the report."""
    n = len(summary.students)
    body = "".join(_part_section(p, links or {}) for p in summary.parts)
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>What the class got wrong</title><style>{STYLE}</style></head><body>"
        "<h1>What the class got wrong</h1>"
        f'<p class="small">{n} students. Per part: the scores, each mistake the hidden checks '
        "diagnosed (a known misconception, named by the hint students saw, or answers off from "
        "the reference by one constant factor) with the share of the class that made it, and who. "
        "A student may be in more than one cluster; shares are of all "
        f"{n} students.</p>{_overview(summary)}{body}</body></html>\n"
    )


def write_html(path: Path, summary: ClassSummary, pages: Mapping[str, Path] | None = None) -> Path:
    """Write report.html at ``path``, each student's name linked to their feedback page (``pages``,
    by student) where they have one."""
    links = {
        s: Path(os.path.relpath(page, path.parent)).as_posix() for s, page in (pages or {}).items()
    }
    path.write_text(render_html(summary, links), encoding="utf-8")
    return path


@dataclass(frozen=True)
class ShownCluster:
    """A cluster as report.html shows it (:func:`read_html`): its part, its :class:`Kind`'s name,
    its words (title and second line), its students, and them by the reason given, where it
    lists them so (reason, students)."""

    grade_id: str
    kind: str
    text: str
    students: frozenset[str]
    reasons: tuple[tuple[str, frozenset[str]], ...] = ()


_SHOWN = re.compile(
    r'<(tr|li) class="cluster" data-part="([^"]*)" data-kind="(\w+)">(.*?)</(?:tr|details)>', re.S
)
_WHO = re.compile(r'class="who"[^>]*>([^<]*)<')
_REASON = re.compile(r'<li class="reason"><span class="why">([^<]*)</span>(.*?)</li>', re.S)


def read_html(page: str) -> list[ShownCluster]:
    """Every cluster of a report.html that :func:`render_html` wrote, read back from the page (what
    the tests and the class benchmark check against what they planted)."""
    return [
        ShownCluster(
            part,
            kind,
            " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split()),
            frozenset(html.unescape(n) for n in _WHO.findall(body)),
            tuple(
                (html.unescape(why), frozenset(html.unescape(n) for n in _WHO.findall(who)))
                for why, who in _REASON.findall(body)
            ),
        )
        for _, part, kind, body in _SHOWN.findall(page)
    ]


def students_named(shown: Iterable[ShownCluster], grade_id: str, phrase: str) -> frozenset[str]:
    """The students report.html puts under a diagnosis of part ``grade_id`` that says ``phrase``:
    those of its wrong-answer clusters whose words hold it, and those listed under a reason that
    holds it (an error with a diagnosis, such as Python's max on arrays)."""
    wrong = {k.name for k in MISTAKE_KINDS}
    found: set[str] = set()
    for c in shown:
        if c.grade_id != grade_id:
            continue
        if c.kind in wrong and phrase in c.text:
            found |= c.students
        found |= {s for why, who in c.reasons if phrase in why for s in who}
    return frozenset(found)
