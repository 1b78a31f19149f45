"""What grading one submission found, typed: its status, every part's score and verdict, and the
problems met along the way.

A worker returns a :class:`SubmissionResult`; the runner merges it into the gradebook, the journal
records it, and the progress bar, report, feedback pages and class report read it. Inside the
grader it is only ever this frozen dataclass (it pickles across the worker pool as is); a dict with
string keys exists only at the boundaries, in ``to_json``/``from_json``: the journal's result files
(:mod:`~roofline_grader.run.journal`), report.json, and the executor's ``<notebook>.roofline.json``
(:mod:`~roofline_grader.kernel.execute`). Otter's ``GradingResults`` (otter/test_files/__init__.py) is
the model: a typed result whose totals are properties, computed once.

The kinds of problem are a closed set, :class:`ProblemKind`: each has the name its JSON carries
(``"edited-cell"``) and the words the report and the feedback pages show (``"edited read-only
cell"``), so a kind nobody wrote words for cannot exist, and ``ProblemKind("edted-cell")`` raises.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Any

from roofline_grader.checks import Finding

NO_NOTEBOOK = "no notebook was submitted for {assignment}"
"""The detail of a ``missing-notebook`` problem (a template: the feedback page translates it)."""


class ProblemKind(StrEnum):
    """A kind of problem met while grading a submission, with its words for people.

    The value is the name stored in JSON (the journal, report.json, the executor's report); the
    ``words`` are what report.txt and the feedback pages say.
    """

    words: str

    def __new__(cls, value: str, words: str = "") -> ProblemKind:
        member = str.__new__(cls, value)
        member._value_ = value
        member.words = words
        return member

    # found by intake (roofline_grader.intake.discover)
    MISNAMED_NOTEBOOK = "misnamed-notebook", "misnamed notebook"
    MISNAMED_FOLDER = "misnamed-folder", "misnamed folder"
    MISPLACED_NOTEBOOK = "misplaced-notebook", "notebook outside its folder"
    LATE = "late", "submitted late (LMS)"
    SYMLINK = "symlink", "symbolic link, not followed"
    # reading the notebook (roofline_grader.run.worker)
    MISSING_NOTEBOOK = "missing-notebook", "no notebook"
    INVALID_JSON = "invalid-json", "not valid JSON"
    NOT_A_NOTEBOOK = "not-a-notebook", "not a notebook"
    TOO_LARGE = "too-large", "file too large"
    HUGE_OUTPUT = "huge-output", "huge stored output"
    BAD_TIMESTAMP = "bad-timestamp", "unreadable timestamp"
    # its cells against the release (roofline_grader.intake.integrity)
    DELETED_CELL = "deleted-cell", "deleted cell"
    EDITED_CELL = "edited-cell", "edited read-only cell"
    DUPLICATED_CELL = "duplicated-cell", "duplicated cell"
    REPAIRED_CELL = "repaired-cell", "repaired cell"
    FOREIGN_CELL = "foreign-cell", "cell pasted from another notebook"
    CHANGED_FLAGS = "changed-flags", "changed nbgrader flags"
    # running it (roofline_grader.kernel.execute's events)
    TIMEOUT = "timeout", "cell timed out"
    STUCK = "stuck", "kernel ignored interrupt"
    KERNEL_DIED = "kernel-died", "kernel died"
    ERROR = "error", "error in a cell"
    OUTPUT_TRUNCATED = "output-truncated", "huge output"
    NOT_RUN = "not-run", "cells not run"
    RESTARTED = "restarted", "kernel restarted"
    """An event only: the recovery after kernel-died or stuck, never reported as a problem."""
    # the grader's own failures (roofline_grader.run.worker, roofline_grader.run.pool)
    GRADER_ERROR = "grader-error", "grader error"
    GRADER_CRASH = "grader-crash", "grader crash"


class Status(Enum):
    """How far grading a submission got."""

    GRADED = "graded"
    """nbgrader autograded it (some parts may still await grading by hand)."""
    MISSING = "missing"
    """No notebook was submitted: every part scores zero."""
    UNREADABLE = "unreadable"
    """The file is too large, not JSON or not a notebook: every part scores zero."""
    ERROR = "error"
    """The grader failed on it (an error, or a crash even when graded alone): every part zero."""


@dataclass(frozen=True)
class SubmissionProblem:
    """One problem met with a submission: its kind, the part it concerns (or ''), and a detail."""

    kind: ProblemKind
    detail: str
    grade_id: str = ""

    @property
    def where(self) -> str:
        """'[p1a_bytes] ' when the problem concerns a part the detail does not name, else ''."""
        return f"[{self.grade_id}] " if self.grade_id and self.grade_id not in self.detail else ""

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind.value, "grade_id": self.grade_id, "detail": self.detail}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SubmissionProblem:
        return cls(ProblemKind(data["kind"]), str(data["detail"]), str(data.get("grade_id", "")))


@dataclass(frozen=True)
class Event:
    """What happened to one cell while the executor ran the notebook (a timeout, a dead kernel)."""

    cell: int
    grade_id: str
    kind: ProblemKind
    detail: str

    def problem(self) -> SubmissionProblem:
        return SubmissionProblem(self.kind, self.detail, self.grade_id)

    def to_json(self) -> dict[str, Any]:
        return {
            "cell": self.cell,
            "grade_id": self.grade_id,
            "kind": self.kind.value,
            "detail": self.detail,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Event:
        return cls(
            int(data["cell"]), str(data["grade_id"]), ProblemKind(data["kind"]), str(data["detail"])
        )


@dataclass(frozen=True)
class Verdict:
    """The hidden checks' verdict on one part, judged outside the student's kernel."""

    passed: bool
    findings: tuple[Finding, ...]

    def to_json(self) -> dict[str, Any]:
        return {"passed": self.passed, "findings": [f.to_json() for f in self.findings]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Verdict:
        findings = tuple(Finding.from_json(f) for f in data.get("findings", []))
        return cls(bool(data["passed"]), findings)


@dataclass(frozen=True)
class PartResult:
    """One grade cell of a submission: nbgrader's automatic score and the hidden checks' verdict.

    Attributes:
        grade_id: the part (nbgrader's grade id).
        auto_score: points given automatically; None for a part graded by hand.
        max_score: the points the part is worth.
        verdict: the hidden checks' verdict; None for a part without hidden checks, or one they
            never reached.
    """

    grade_id: str
    auto_score: float | None
    max_score: float
    verdict: Verdict | None = None


@dataclass(frozen=True)
class SubmissionResult:
    """Everything grading one submission (one student, one assignment) found.

    Attributes:
        key: the task's key (a file name; roofline_grader.intake.discover.Task).
        student, assignment: whose submission, of which problem.
        fingerprint: sha256 of the notebook's bytes ('missing' without one).
        timestamp: nbgrader's timestamp.txt (None if absent or unreadable).
        secret: nbgrader's submission_secret.txt, if any.
        notebook: the submitted notebook's path, None when none was found.
        status: how far grading got (:class:`Status`).
        problems: every problem met, in the order met.
        parts: every grade cell's score and verdict, in notebook order.
        comments: nbgrader's automatic comment per solution cell ('No response.' for an answer
            left as released), keyed by grade id.
        events: what happened while the notebook ran (:class:`Event`), ``restarted`` included.
        sandbox: the executor's description of the kernel's sandbox, as it recorded it.
        autograded: the path of the autograded notebook, if nbgrader wrote one.
        seconds: how long grading it took, wall-clock.
        traceback: the grader's traceback, for a ``grader-error``.
        language: the language the student read the exercises in, as the notebook records it
            (``en``, ``zh_CN``; None when it records none): the feedback page's language.
    """

    key: str
    student: str
    assignment: str
    fingerprint: str
    status: Status
    timestamp: str | None = None
    secret: str | None = None
    notebook: str | None = None
    problems: tuple[SubmissionProblem, ...] = ()
    parts: tuple[PartResult, ...] = ()
    comments: Mapping[str, str | None] = field(default_factory=dict)
    events: tuple[Event, ...] = ()
    sandbox: Mapping[str, Any] = field(default_factory=dict)
    autograded: str | None = None
    seconds: float = 0.0
    traceback: str | None = None
    language: str | None = None

    # -- totals and questions, computed once here -------------------------------------------------

    @property
    def auto_points(self) -> float:
        """The points scored automatically: the sum of every part's automatic score (a part
        awaiting grading by hand counts as 0)."""
        return sum(p.auto_score or 0.0 for p in self.parts)

    @property
    def max_points(self) -> float:
        """The points available: the sum of every part's maximum."""
        return sum(p.max_score for p in self.parts)

    @property
    def is_missing(self) -> bool:
        """No notebook was found for this submission (it scores zero)."""
        return any(p.kind is ProblemKind.MISSING_NOTEBOOK for p in self.problems)

    @property
    def had_problem(self) -> bool:
        """The submission had a problem besides being missing (the report lists each)."""
        return any(p.kind is not ProblemKind.MISSING_NOTEBOOK for p in self.problems)

    def part(self, grade_id: str) -> PartResult | None:
        """The result of one part, None if the submission has no such grade cell."""
        return next((p for p in self.parts if p.grade_id == grade_id), None)

    def verdict(self, grade_id: str) -> Verdict | None:
        """The hidden checks' verdict on one part, None if there is none."""
        part = self.part(grade_id)
        return None if part is None else part.verdict

    # -- the boundary: the journal's JSON --------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The result as the journal stores it (keys as in every journal since the first)."""
        data: dict[str, Any] = {
            "key": self.key,
            "student": self.student,
            "assignment": self.assignment,
            "fingerprint": self.fingerprint,
            "timestamp": self.timestamp,
            "secret": self.secret,
            "notebook": self.notebook,
            "status": self.status.value,
            "problems": [p.to_json() for p in self.problems],
            "grades": {
                p.grade_id: {"auto_score": p.auto_score, "max_score": p.max_score}
                for p in self.parts
            },
            "comments": dict(self.comments),
            "verdicts": {p.grade_id: p.verdict.to_json() for p in self.parts if p.verdict},
            "events": [e.to_json() for e in self.events],
            "sandbox": dict(self.sandbox),
            "autograded": self.autograded,
            "seconds": self.seconds,
        }
        if self.traceback is not None:
            data["traceback"] = self.traceback
        if self.language is not None:
            data["language"] = self.language
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SubmissionResult:
        """The result ``to_json`` wrote; ValueError, KeyError or TypeError if it is not one."""
        verdicts = data.get("verdicts") or {}
        parts = tuple(
            PartResult(
                str(gid),
                None if grade.get("auto_score") is None else float(grade["auto_score"]),
                float(grade.get("max_score") or 0.0),
                Verdict.from_json(verdicts[gid]) if gid in verdicts else None,
            )
            for gid, grade in (data.get("grades") or {}).items()
        )
        return cls(
            key=str(data["key"]),
            student=str(data["student"]),
            assignment=str(data["assignment"]),
            fingerprint=str(data["fingerprint"]),
            status=Status(data["status"]),
            timestamp=data.get("timestamp"),
            secret=data.get("secret"),
            notebook=data.get("notebook"),
            problems=tuple(SubmissionProblem.from_json(p) for p in data.get("problems") or ()),
            parts=parts,
            comments=dict(data.get("comments") or {}),
            events=tuple(Event.from_json(e) for e in data.get("events") or ()),
            sandbox=dict(data.get("sandbox") or {}),
            autograded=data.get("autograded"),
            seconds=float(data.get("seconds") or 0.0),
            traceback=data.get("traceback"),
            language=data.get("language"),
        )
