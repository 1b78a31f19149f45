"""The vocabulary of a hidden test: probes (what to ask of the student's code) and findings.

A hidden test has two halves that run in different processes:

* a **plan**, a tuple of :class:`Probe` s chosen by the grader from a seeded random generator:
  "call ``bytes_loaded`` with these twelve shapes", "read the value ``critical_batch_small``";
* a **verdict**, computed from the answers the student's kernel sent back and reference values
  from roofline_lib, as a list of :class:`Finding` s, one per thing checked.

Only plain data crosses between the two (JSON: numbers, lists, strings), so an answer can never
be an object whose comparisons always succeed, and the references are computed in a process the
student's code never ran in. A finding's hint names the concept and the likely mistake, never the
reference numbers.

**Follow-through.** A part that reuses earlier parts (intensity = ops / bytes) also probes the
student's own earlier functions on the same inputs. An answer that is wrong, but right for the
student's own earlier answers, passes with a note "carried forward from part (a)" (:class:`Carried`):
one mistake costs the part where it was made, not every part after it.

**Visible checks** (:mod:`roofline_lib.selfcheck`, what a student runs) come from the same place:
a check's ``visible_calls`` are hand-workable inputs, and :func:`expectations` runs ``verify`` on
them without answers to record what it would expect and which mistakes it knows, with their hints.
``roofline_grader.checks.visible`` writes that down for the student's kernel.
"""

from __future__ import annotations

import contextvars
import hashlib
import math
import random
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, SupportsFloat

# the visible checks compare the same way (RTOL is this module's too: ``as`` re-exports it)
from roofline_lib.selfcheck.answers import RTOL as RTOL
from roofline_lib.selfcheck.answers import close

KINDS = ("number", "bool", "figure")

Answers = Mapping[str, Sequence[Mapping[str, Any]]]
"""Per probe key, one result per call: ``{"v": value}`` or ``{"e": "what went wrong"}``."""

Call = tuple[Any, ...]
"""One call's arguments: numbers, or lists of numbers (passed as arrays: one call, elementwise)."""


@dataclass(frozen=True)
class Probe:
    """One thing the kernel must evaluate.

    Attributes:
        key: unique within a plan; the answers are keyed by it.
        name: the name the student defines in the notebook.
        kind: what the answer must be: 'number', 'bool' or 'figure'.
        calls: argument tuples to call ``name`` with; ``None`` reads the value of ``name`` itself.
            A list argument is passed as a numpy array, and the answer must then be an array of
            the broadcast shape.
        budget_s: seconds the calls may take before the kernel gives up on them (follow-through
            probes: an earlier function that hangs must not take a later part down with it).
    """

    key: str
    name: str
    kind: str = "number"
    calls: tuple[Call, ...] | None = None
    budget_s: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")

    @property
    def call_args(self) -> tuple[Call, ...]:
        """The argument tuples of a probe that calls ``name``; a probe that reads a value (no
        ``calls``) is refused with a ValueError."""
        if self.calls is None:
            raise ValueError(f"probe {self.key!r} reads the value of {self.name}: it has no calls")
        return self.calls

    def to_json(self) -> dict[str, Any]:
        calls = None if self.calls is None else [list(args) for args in self.calls]
        data = {"key": self.key, "name": self.name, "kind": self.kind, "calls": calls}
        return data if self.budget_s is None else {**data, "budget_s": self.budget_s}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Probe:
        calls = data.get("calls")
        budget = data.get("budget_s")
        return cls(
            key=str(data["key"]),
            name=str(data["name"]),
            kind=str(data["kind"]),
            calls=None if calls is None else tuple(tuple(args) for args in calls),
            budget_s=None if budget is None else float(budget),
        )


Plan = Mapping[str, Probe]
"""A plan keyed by probe key."""


class Cause(Enum):
    """Why a finding came out as it did, for the class report (:mod:`roofline_grader.outputs.classreport`).

    * ``MISCONCEPTION``: wrong, and matching a known wrong formula exactly; the hint names it;
    * ``WRONG``: wrong, matching no known mistake; the hint is the check's general one;
    * ``IGNORES_INPUTS``: the same answer whatever the arguments;
    * ``NO_ANSWER``: nothing to judge (not defined, not implemented, an error, the wrong number or
      type of values); the hint says why;
    * ``CARRIED``: passed by follow-through from the student's own wrong earlier answers.
    """

    MISCONCEPTION = "misconception"
    WRONG = "wrong"
    IGNORES_INPUTS = "ignores-inputs"
    NO_ANSWER = "no-answer"
    CARRIED = "carried"


_LABEL = re.compile(r"(?P<code>[A-Za-z_]\w*(?:\([^)]*\))?)(?P<joiner>, | )(?P<words>.+)", re.S)


def label_words(label: str) -> tuple[str, str, str]:
    """A finding's label as (code, joiner, words): ``bytes_loaded(B, D, F)``, ``" "``, ``on unseen
    shapes``; ``run_mfu``, ``", "``, ``the run's MFU``. A label that is code alone
    (``h100_critical_batch``) has no words; one that starts with words (``the peak line``) is
    words alone. The words are what a feedback page translates (the checks' catalog has them)."""
    if re.fullmatch(r"[A-Za-z_]\w*(?:\([^)]*\))?", label):
        return label, "", ""
    found = _LABEL.fullmatch(label)
    if found and ("_" in found["code"] or "(" in found["code"]):
        return found["code"], found["joiner"], found["words"]
    return "", "", label


@dataclass(frozen=True)
class Finding:
    """One check's outcome: what was checked, whether it passed, and a hint in words.

    A failed finding's hint says what to fix; a passed one may carry a note (follow-through).

    Attributes:
        cause: why it passed or failed (:class:`Cause`); None for a plain pass, and in the journals
            of runs older than the field.
        ratio: on a wrong numeric answer, the one factor r with answer = r · reference for every
            value the probe returned (r ≠ 1, to the comparison's tolerance: 2 for a byte counted
            twice, 10⁻¹² for TFLOP/s given as FLOP/s); None when no single factor fits.
    """

    label: str
    passed: bool
    hint: str = ""
    cause: Cause | None = None
    ratio: float | None = None

    @property
    def carried(self) -> bool:
        """Passed by follow-through (told by the note's words in journals without a cause)."""
        if self.cause is not None:
            return self.cause is Cause.CARRIED
        return self.passed and self.hint.startswith(CARRIED_PREFIX)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"label": self.label, "passed": self.passed, "hint": self.hint}
        if self.cause is not None:
            data["cause"] = self.cause.value
        if self.ratio is not None:
            data["ratio"] = self.ratio
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Finding:
        """The finding ``to_json`` wrote; a field a journal of an earlier run lacks is None."""
        cause, ratio = data.get("cause"), data.get("ratio")
        return cls(
            str(data["label"]),
            bool(data["passed"]),
            str(data.get("hint", "")),
            None if cause is None else Cause(cause),
            None if ratio is None else float(ratio),
        )


@dataclass(frozen=True)
class Relation:
    """A visible check relating two expressions, evaluated in the student's kernel.

    Both are Python over the notebook's names (the student's own functions and values, and the
    problem's givens). With ``holds`` they must be equal (``critical_batch_small`` equals
    ``critical_batch_limit(PEAK, BW)``; ``intensity_limit(4)`` equals ``arithmetic_intensity(4,
    10**9, 10**9)``); without, equality is the mistake ``hint`` names (``dense_bf16_flops_per_s``
    equal to the datasheet's sparse headline). A relation never states an answer itself.
    """

    name: str
    expression: str
    hint: str
    holds: bool = True


@dataclass(frozen=True)
class Holds:
    """A visible check that a True/False expression over the notebook's names is True, about the
    answer ``name`` (``math.isinf(N) or not is_memory_bound(N, 128)``)."""

    name: str
    expression: str
    hint: str


@dataclass(frozen=True)
class FigureShows:
    """A visible check on the Figure that calling ``name`` (no arguments) returns.

    ``shows`` is what the figure must have: ``"curve"`` (a line through every whole x from
    ``x_range[0]`` to ``x_range[1]``, its y equal to ``expression`` evaluated with ``x_name``
    bound to those values as a numpy array: the student's own function, never reference values),
    ``"flat_line"`` (a horizontal line at ``expression``, a given of the problem) or ``"labels"``
    (both axes labelled).
    """

    name: str
    shows: str
    hint: str
    expression: str = ""
    x_range: tuple[int, int] = (0, 0)
    x_name: str = "x"

    def __post_init__(self) -> None:
        if self.shows not in ("curve", "flat_line", "labels"):
            raise ValueError(f"shows must be 'curve', 'flat_line' or 'labels', got {self.shows!r}")


@dataclass(frozen=True)
class Within:
    """A visible check that a named value lies in a closed range; either end may be a number or an
    expression over the notebook's names (``arithmetic_intensity(1000, 512, 512)``)."""

    name: str
    low: float | str
    high: float | str
    hint: str


@dataclass(frozen=True)
class Check:
    """A hidden test: how to choose the probes, and how to judge the answers.

    Attributes:
        plan: the hidden probes, from a seeded random generator.
        verify: the verdict on the answers to a plan.
        visible_calls: the visible checks' probes: calls with inputs a student can work out by
            hand, judged with ``verify``'s own references and mistakes (:func:`expectations`). It
            holds every key ``verify`` reads; its value probes are not shown (that would give
            the answer away).
        visible_values: visible checks on named values and figures (:class:`Relation`,
            :class:`Holds`, :class:`Within`, :class:`FigureShows`).
        not_shown: names whose visible calls would give the answer away (a limit such as
            ``intensity_limit(4)``); they are checked with a relation instead.
    """

    plan: Callable[[random.Random], Sequence[Probe]]
    verify: Callable[[Plan, Answers], list[Finding]]
    visible_calls: tuple[Probe, ...] = ()
    visible_values: tuple[Relation | Holds | Within | FigureShows, ...] = ()
    not_shown: tuple[str, ...] = ()


@dataclass(frozen=True)
class Part:
    """One graded part of a problem: a grade cell of the notebook.

    Attributes:
        grade_id: the nbgrader grade id of the part's grade cell.
        problem: the assignment, e.g. 'problem1'.
        letter: the part's letter in the statement, e.g. 'a'.
        title: what the part asks, for reports and feedback.
        points: what the part is worth, a positive whole number; the grade cell's nbgrader
            ``points`` must say the same (a test checks it).
        check: the hidden test; ``None`` for a manually graded written answer.
    """

    grade_id: str
    problem: str
    letter: str
    title: str
    points: int
    check: Check | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.points, bool) or not isinstance(self.points, int) or self.points <= 0:
            raise ValueError(
                f"{self.grade_id}: points must be a positive integer, got {self.points!r}"
            )

    @property
    def manual(self) -> bool:
        return self.check is None


@dataclass(frozen=True)
class Problem:
    """One assignment: what its notebook's header says, and its parts in notebook order.

    A checks module ``problemN.py`` declares ``TITLE``, ``QUESTION`` and ``PARTS`` (and, for the
    Chinese header, ``TITLE_ZH`` and ``QUESTION_ZH``); :func:`roofline_grader.checks.registry
    .discover` makes this from them.

    Attributes:
        name: the assignment id and folder, e.g. 'problem1'.
        title: the header's title, after "Problem N · ".
        question: the header's one-paragraph question, under the title.
        parts: the graded parts, in notebook order.
        title_zh: the Chinese header's title, after "习题 N · " ("" for none: no Chinese header).
        question_zh: the Chinese header's question.
    """

    name: str
    title: str
    question: str
    parts: tuple[Part, ...]
    title_zh: str = ""
    question_zh: str = ""

    @property
    def number(self) -> int:
        """N of 'problemN'."""
        return int(self.name.removeprefix("problem"))

    @property
    def points(self) -> int:
        r"""The problem's total, :math:`\sum_\text{parts} \text{points}`, written parts included."""
        return sum(part.points for part in self.parts)


def make_plan(check: Check, seed: str) -> dict[str, Probe]:
    """The plan of ``check`` for a seed string (same seed, same plan)."""
    digest = hashlib.sha256(seed.encode()).digest()
    probes = check.plan(random.Random(int.from_bytes(digest[:8], "big")))
    plan = {p.key: p for p in probes}
    if len(plan) != len(probes):
        raise ValueError("probe keys must be unique within a plan")
    return plan


# ----------------------------------------------------------------------------------------------
# Choosing inputs
# ----------------------------------------------------------------------------------------------


def log_int(rng: random.Random, lo: int, hi: int) -> int:
    """A whole number between lo and hi, log-uniformly distributed."""
    return max(lo, min(hi, round(math.exp(rng.uniform(math.log(lo), math.log(hi))))))


def matmul_shapes(rng: random.Random, n: int = 12) -> tuple[tuple[int, int, int], ...]:
    """n shapes (B, D, F): small and large batches, square and skinny matrices."""
    fixed = [(1, 1, 1), (1, 8192, 8192), (3000, 20, 40)]
    drawn = [
        (log_int(rng, 1, 4096), log_int(rng, 1, 65536), log_int(rng, 1, 65536))
        for _ in range(max(n - len(fixed), 0))
    ]
    return tuple(fixed + drawn)


# ----------------------------------------------------------------------------------------------
# Reading answers
# ----------------------------------------------------------------------------------------------


def _flatten(value: Any) -> list[Any]:
    if isinstance(value, list):
        return [x for item in value for x in _flatten(item)]
    return [value]


def answer_values(answers: Answers, key: str, name: str) -> tuple[list[Any] | None, str]:
    """All values the kernel returned for a probe, flattened, or (None, why not)."""
    results = answers.get(key)
    if not results:
        return None, NO_ANSWER_FOR.format(name=name)
    values: list[Any] = []
    for result in results:
        if "e" in result:
            return None, str(result["e"])
        values.extend(_flatten(result.get("v")))
    return values, ""


def all_close(got: Sequence[Any], want: Sequence[float], rtol: float = RTOL) -> bool:
    return len(got) == len(want) and all(close(g, w, rtol) for g, w in zip(got, want, strict=True))


@dataclass(frozen=True)
class Carried:
    """What an answer would be if computed right from the student's own earlier answers.

    Attributes:
        values: one per value the probe returns (flattened), or None when the earlier answers
            could not be read (then nothing is carried).
        source: where the earlier answers are, e.g. "part (a)".
    """

    values: Sequence[Any] | None
    source: str


CARRIED_PREFIX = "carried forward from "
CARRIED_NOTE = (
    CARRIED_PREFIX + "{source}: right for your own answers there, which are marked where they "
    "were made"
)


def carried_note(source: str) -> str:
    """The note of an answer passed by follow-through from ``source`` ("part (a)")."""
    return CARRIED_NOTE.format(source=source)


# What a feedback page says of the hidden checks before the parts (translated in the Chinese
# catalog like the templates below).
NOT_GRADED_YET = (
    "These problems have not been graded for the class yet: they count in neither your total nor "
    "the maximum until they are."
)
"""What a feedback page says of a problem no one's submission of has been graded yet
(roofline_grader.outputs.standing)."""

FEEDBACK_INTRO = (
    "Each part lists what was checked. Hidden checks called your functions on shapes you had not "
    "seen and compared them with the course library (relative tolerance 10⁻⁶); a failed check "
    "names the likely mistake, not the expected value, so that the hidden cases stay hidden: "
    "the visible checks in your notebook show expected values."
)


# What a finding says when there is nothing to judge, as templates (str.format fields): the Chinese
# catalog (roofline_grader.checks.catalog) translates each once, whatever the name.
NO_ANSWER_FOR = "no answer came back for {name}"
WRONG_COUNT = "{name} returned the wrong number of values"
NOT_TRUE_OR_FALSE = "{name} should return True or False"
SAME_WHATEVER = "{name} returns the same value whatever its arguments: compute it from them"
NOT_A_FIGURE = "{name}() should return a matplotlib Figure"
TEMPLATES = (
    CARRIED_NOTE,
    NO_ANSWER_FOR,
    WRONG_COUNT,
    NOT_TRUE_OR_FALSE,
    SAME_WHATEVER,
    NOT_A_FIGURE,
)
"""Every template a finding's hint may be an instance of (the checks' own hints are recorded by
:func:`expectations`)."""


def constant_ratio(got: Sequence[Any], want: Sequence[float], rtol: float = RTOL) -> float | None:
    r"""The one factor :math:`r \ne 1` with :math:`g_i = r\,w_i` for every answer :math:`g_i` and
    reference :math:`w_i` (each :math:`g_i / w_i` within ``rtol`` of the first), else None.

    A pair of zeros fits any factor; a zero reference under a non-zero answer, a non-finite value
    or a non-number fits none. Dimensionless, like the answers' ratio it is.
    """
    if len(got) != len(want):
        return None
    ratios = []
    for g, w in zip(got, want, strict=True):
        if isinstance(g, bool) or not isinstance(g, int | float):
            return None
        if not (math.isfinite(g) and math.isfinite(w)):
            return None
        if w == 0:
            if g != 0:
                return None
            continue
        ratios.append(g / w)
    if not ratios:
        return None
    first = ratios[0]
    if close(first, 1.0, rtol) or not all(close(r, first, rtol) for r in ratios):
        return None
    return first


@dataclass(frozen=True)
class Expected:
    """What a comparison expects of one probe: references, the hint, and known mistakes; ``label``
    is the finding's, ``notes`` what it may say of an answer that passes (follow-through)."""

    probe: Probe
    values: tuple[Any, ...]
    hint: str
    mistakes: tuple[tuple[str, tuple[float, ...]], ...] = ()
    rtol: float = RTOL
    label: str = ""
    notes: tuple[str, ...] = ()


_RECORDING: contextvars.ContextVar[list[Expected] | None] = contextvars.ContextVar(
    "_RECORDING", default=None
)


@contextmanager
def _recording() -> Iterator[list[Expected]]:
    record: list[Expected] = []
    token = _RECORDING.set(record)
    try:
        yield record
    finally:
        _RECORDING.reset(token)


def expectations(check: Check, plan: Plan) -> list[Expected]:
    """What ``check.verify`` expects on ``plan``: it runs with no answers and records every
    comparison it would make (references, hint, the values of known mistakes)."""
    with _recording() as record:
        check.verify(plan, {})
    return record


def _record(expected: Expected) -> None:
    record = _RECORDING.get()
    if record is not None:
        record.append(expected)


def expect_figure(probe: Probe, label: str, hint: str, carried: Carry = None) -> None:
    """Record, for :func:`expectations`, what a check that reads a figure (not numbers) may say of
    ``label``: ``hint`` when it fails, a follow-through note when it is carried."""
    _record(Expected(probe, (), hint, label=label, notes=_notes(carried)))


def _notes(carried: Carry) -> tuple[str, ...]:
    return tuple(carried_note(option.source) for option in _options(carried))


def compare(
    label: str,
    probe: Probe,
    answers: Answers,
    expected: Sequence[SupportsFloat],
    hint: str,
    misconceptions: Sequence[tuple[str, Sequence[SupportsFloat]]] = (),
    rtol: float = RTOL,
    carried: Carry = None,
) -> Finding:
    """Compare a probe's answers with reference values (``expected``, and each misconception's,
    are anything ``float()`` takes: a library result for scalar inputs is a float or a 0-d array).

    An answer that matches ``carried`` (right for the student's own earlier answers, which are
    themselves wrong) passes with a note. On failure the hint is the first misconception the
    answers match exactly (a known wrong formula, with its own explanation), else a note that the
    answer ignores its inputs, else ``hint``.
    """
    want = [float(x) for x in expected]
    _record(
        Expected(
            probe,
            tuple(want),
            hint,
            tuple((h, tuple(float(v) for v in values)) for h, values in misconceptions),
            rtol,
            label,
            _notes(carried),
        )
    )
    got, why = answer_values(answers, probe.key, probe.name)
    if got is None:
        return Finding(label, False, why, Cause.NO_ANSWER)
    if len(got) != len(want):
        return Finding(label, False, WRONG_COUNT.format(name=probe.name), Cause.NO_ANSWER)
    if all_close(got, want, rtol):
        return Finding(label, True)
    for option in _options(carried):
        if _carries(got, want, option, all_close, rtol):
            return Finding(label, True, carried_note(option.source), Cause.CARRIED)
    factor = constant_ratio(got, want, rtol)
    for mis_hint, values in misconceptions:
        if all_close(got, [float(v) for v in values], rtol):
            return Finding(label, False, mis_hint, Cause.MISCONCEPTION, factor)
    if probe.calls and len(got) > 1 and len(set(map(repr, got))) == 1 and len(set(want)) > 1:
        return Finding(label, False, SAME_WHATEVER.format(name=probe.name), Cause.IGNORES_INPUTS)
    return Finding(label, False, hint, Cause.WRONG, factor)


Carry = Carried | Sequence[Carried] | None
"""What an answer may be carried forward from: nothing, one source, or alternatives."""


def _options(carried: Carry) -> tuple[Carried, ...]:
    if carried is None:
        return ()
    return (carried,) if isinstance(carried, Carried) else tuple(carried)


def _carries(
    got: Sequence[Any],
    expected: Sequence[Any],
    carried: Carried | None,
    same: Callable[..., bool],
    *rest: float,
) -> bool:
    """Whether ``got`` is what the student's own (wrong) earlier answers lead to."""
    if carried is None or carried.values is None or len(carried.values) != len(expected):
        return False
    return same(got, carried.values, *rest) and not same(carried.values, expected, *rest)


def _same_bools(got: Sequence[Any], want: Sequence[bool | None]) -> bool:
    return all(w is None or g == w for g, w in zip(got, want, strict=True))


def compare_bools(
    label: str,
    probe: Probe,
    answers: Answers,
    expected: Sequence[bool | None],
    hint: str,
    carried: Carry = None,
) -> Finding:
    """Compare True/False answers; an expected ``None`` (too close to call) is not checked."""
    _record(Expected(probe, tuple(expected), hint, label=label, notes=_notes(carried)))
    got, why = answer_values(answers, probe.key, probe.name)
    if got is None:
        return Finding(label, False, why, Cause.NO_ANSWER)
    if len(got) != len(expected):
        return Finding(label, False, WRONG_COUNT.format(name=probe.name), Cause.NO_ANSWER)
    if any(not isinstance(g, bool) for g in got):
        return Finding(label, False, NOT_TRUE_OR_FALSE.format(name=probe.name), Cause.NO_ANSWER)
    if _same_bools(got, expected):
        return Finding(label, True)
    for option in _options(carried):
        if _carries(got, expected, option, _same_bools):
            return Finding(label, True, carried_note(option.source), Cause.CARRIED)
    return Finding(label, False, hint, Cause.WRONG)


def own_values(answers: Answers, key: str) -> list[Any] | None:
    """The values the student's own function returned for a dependency probe, or None."""
    values, _ = answer_values(answers, key, key)
    if values is None or any(isinstance(v, bool) or not isinstance(v, int | float) for v in values):
        return None
    return values


def carried_from(
    answers: Answers, source: str, combine: Callable[..., Any], *names: str
) -> Carried:
    """What the student's own functions ``names`` (their follow-through probes, ``own:<name>``)
    give when combined call by call, e.g. ``ratio`` of their own ops and bytes."""
    own = [own_values(answers, f"own:{name}") for name in names]
    if any(values is None for values in own):
        return Carried(None, source)
    return Carried([combine(*values) for values in zip(*own, strict=True)], source)


def ratio(numerator: float, denominator: float) -> float:
    """numerator / denominator, NaN (never close to anything) where it is undefined."""
    try:
        return numerator / denominator
    except ZeroDivisionError:
        return math.nan


def value_probe(name: str, key: str | None = None) -> Probe:
    """A probe that reads a named value."""
    return Probe(key=key or name, name=name, kind="number")


def call_probe(
    name: str, calls: Sequence[Call], kind: str = "number", key: str | None = None
) -> Probe:
    """A probe that calls a function of the student's with each argument tuple."""
    return Probe(key=key or name, name=name, kind=kind, calls=tuple(tuple(c) for c in calls))


OWN_BUDGET_S = 2.0
"""Seconds a follow-through probe may take (the student's earlier function on a dozen inputs)."""


def own_probe(name: str, calls: Sequence[Call], key: str | None = None) -> Probe:
    """A probe of an earlier part's function on a later part's inputs, for follow-through."""
    return Probe(
        key=key or f"own:{name}",
        name=name,
        calls=tuple(tuple(c) for c in calls),
        budget_s=OWN_BUDGET_S,
    )


def with_arrays(scalars: Sequence[Call], arrays: Sequence[Call]) -> list[Call]:
    """Scalar calls, then one call with every argument an array (elementwise): the student's
    function must take numpy arrays as well as numbers."""
    return [*scalars, tuple(list(column) for column in zip(*arrays, strict=True))]


def shape_columns(probe: Probe) -> list[Any]:
    """The probe's arguments as float arrays, one per parameter (:func:`shapes_of`, by column)."""
    import numpy as np

    return [np.array(c, dtype=float) for c in zip(*shapes_of(probe), strict=True)]


def shapes_of(probe: Probe) -> list[Call]:
    """The probe's argument tuples, with array arguments expanded to one tuple per element."""
    out: list[Call] = []
    for args in probe.calls or ():
        lengths = {len(a) for a in args if isinstance(a, list)}
        if not lengths:
            out.append(tuple(args))
            continue
        (n,) = lengths  # plans only use equal-length lists
        out.extend(tuple(a[i] if isinstance(a, list) else a for a in args) for i in range(n))
    return out
