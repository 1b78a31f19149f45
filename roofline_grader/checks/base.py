"""The vocabulary of a hidden test: probes (what to ask of the student's code) and findings.

A hidden test has two halves that run in different processes:

* a **plan**, a tuple of :class:`Probe` s chosen by the grader from a seeded random generator:
  "call ``bytes_loaded`` with these twelve shapes", "read the value ``critical_batch_small``";
* a **verdict**, computed from the answers the student's kernel sent back and reference values
  from roofline_lib, as a list of :class:`Finding` s, one per thing checked.

Only plain data crosses between the two (JSON: numbers, lists, strings), so an answer can never
be an object whose comparisons always succeed, and the references are computed in a process the
student's code never ran in. A finding's hint says in words what was expected, never the
reference numbers.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

RTOL = 1e-6
"""Relative tolerance every numeric answer is checked to (the notebooks state it)."""

KINDS = ("number", "bool", "figure")

Answers = Mapping[str, Sequence[Mapping[str, Any]]]
"""Per probe key, one result per call: ``{"v": value}`` or ``{"e": "what went wrong"}``."""


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
    """

    key: str
    name: str
    kind: str = "number"
    calls: tuple[tuple[Any, ...], ...] | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")

    def to_json(self) -> dict[str, Any]:
        calls = None if self.calls is None else [list(args) for args in self.calls]
        return {"key": self.key, "name": self.name, "kind": self.kind, "calls": calls}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Probe:
        calls = data.get("calls")
        return cls(
            key=str(data["key"]),
            name=str(data["name"]),
            kind=str(data["kind"]),
            calls=None if calls is None else tuple(tuple(args) for args in calls),
        )


Plan = Mapping[str, Probe]
"""A plan keyed by probe key."""


@dataclass(frozen=True)
class Finding:
    """One check's outcome: what was checked, whether it passed, and a hint in words."""

    label: str
    passed: bool
    hint: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "passed": self.passed, "hint": self.hint}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Finding:
        return cls(str(data["label"]), bool(data["passed"]), str(data.get("hint", "")))


@dataclass(frozen=True)
class Check:
    """A hidden test: how to choose the probes, and how to judge the answers."""

    plan: Callable[[random.Random], Sequence[Probe]]
    verify: Callable[[Plan, Answers], list[Finding]]


@dataclass(frozen=True)
class Part:
    """One graded part of a problem: a grade cell of the notebook.

    Attributes:
        grade_id: the nbgrader grade id of the part's grade cell.
        problem: the assignment, e.g. 'problem1'.
        letter: the part's letter in the statement, e.g. 'a'.
        title: what the part asks, for reports and feedback.
        check: the hidden test; ``None`` for a manually graded written answer.
    """

    grade_id: str
    problem: str
    letter: str
    title: str
    check: Check | None = field(default=None, compare=False)

    @property
    def manual(self) -> bool:
        return self.check is None


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
        return None, f"no answer came back for {name}"
    values: list[Any] = []
    for result in results:
        if "e" in result:
            return None, str(result["e"])
        values.extend(_flatten(result.get("v")))
    return values, ""


def close(got: Any, want: float, rtol: float = RTOL) -> bool:
    """Whether a returned number equals a reference to a relative tolerance (inf equals inf)."""
    if isinstance(got, bool) or not isinstance(got, int | float):
        return False
    if math.isnan(got) or math.isnan(want):
        return False
    if math.isinf(want) or math.isinf(got):
        return got == want
    return abs(got - want) <= rtol * max(abs(want), 1e-300)


def all_close(got: Sequence[Any], want: Sequence[float], rtol: float = RTOL) -> bool:
    return len(got) == len(want) and all(close(g, w, rtol) for g, w in zip(got, want, strict=True))


def compare(
    label: str,
    probe: Probe,
    answers: Answers,
    expected: Sequence[float],
    hint: str,
    misconceptions: Sequence[tuple[str, Sequence[float]]] = (),
    rtol: float = RTOL,
) -> Finding:
    """Compare a probe's answers with reference values.

    On failure the hint is the first misconception the answers match exactly (a known wrong
    formula, with its own explanation), else a note that the answer ignores its inputs, else
    ``hint``.
    """
    got, why = answer_values(answers, probe.key, probe.name)
    if got is None:
        return Finding(label, False, why)
    expected = [float(x) for x in expected]
    if len(got) != len(expected):
        return Finding(label, False, f"{probe.name} returned the wrong number of values")
    if all_close(got, expected, rtol):
        return Finding(label, True)
    for mis_hint, values in misconceptions:
        if all_close(got, [float(v) for v in values], rtol):
            return Finding(label, False, mis_hint)
    if probe.calls and len(got) > 1 and len(set(map(repr, got))) == 1 and len(set(expected)) > 1:
        return Finding(
            label,
            False,
            f"{probe.name} returns the same value whatever its arguments: compute it from them",
        )
    return Finding(label, False, hint)


def compare_bools(
    label: str, probe: Probe, answers: Answers, expected: Sequence[bool | None], hint: str
) -> Finding:
    """Compare True/False answers; an expected ``None`` (too close to call) is not checked."""
    got, why = answer_values(answers, probe.key, probe.name)
    if got is None:
        return Finding(label, False, why)
    if len(got) != len(expected):
        return Finding(label, False, f"{probe.name} returned the wrong number of values")
    if any(not isinstance(g, bool) for g in got):
        return Finding(label, False, f"{probe.name} should return True or False")
    ok = all(w is None or g == w for g, w in zip(got, expected, strict=True))
    return Finding(label, ok, "" if ok else hint)


def value_probe(name: str) -> Probe:
    """A probe that reads a named value."""
    return Probe(key=name, name=name, kind="number")


def call_probe(name: str, calls: Sequence[tuple[Any, ...]], kind: str = "number") -> Probe:
    """A probe that calls a function of the student's with each argument tuple."""
    return Probe(key=name, name=name, kind=kind, calls=tuple(tuple(c) for c in calls))


def shapes_of(probe: Probe) -> list[tuple[Any, ...]]:
    """The probe's argument tuples, with array arguments expanded to one tuple per element."""
    out: list[tuple[Any, ...]] = []
    for args in probe.calls or ():
        lengths = {len(a) for a in args if isinstance(a, list)}
        if not lengths:
            out.append(tuple(args))
            continue
        (n,) = lengths  # plans only use equal-length lists
        out.extend(tuple(a[i] if isinstance(a, list) else a for a in args) for i in range(n))
    return out
