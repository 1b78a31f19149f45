"""The visible checks, written down for the student's kernel: ``roofline_lib/selfcheck/cases.json``.

A student's notebook runs ``visible_checks(grade_id, globals())`` (:mod:`roofline_lib.selfcheck`)
after each answer. Its cases come from the hidden checks, so there is one place for every
reference and every hint: for each part, the check's ``visible_calls`` (inputs a student can work
out by hand) are run through the check's own ``verify`` with no answers
(:func:`~roofline_grader.checks.base.expectations`), which yields the expected value of each call
and the value each known mistake gives there, with its hint. Only those numbers travel to the
student, never a formula: a student learns that 36 bytes for B = 2, D = 3, F = 4 means "an int8
element is one byte", which the hint says anyway. Named values get relations instead
(:class:`~roofline_grader.checks.base.Relation`), never their expected value. A case of a part
that builds on earlier functions (its follow-through probes) names them, so that a failure caused
by an earlier part says so.

``python -m roofline_grader.checks.visible`` rewrites the file (``make release`` does), and with it
the compiled Chinese catalog the cases' hints are shown with (:mod:`.catalog`); a test checks that
each committed file is what the checks and the catalog give.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import roofline_lib.selfcheck

from . import PROBLEMS, catalog
from .base import Check, Expected, FigureShows, Holds, Part, Relation, Within, expectations

CASES_PATH = Path(roofline_lib.selfcheck.__file__).with_name("cases.json")


def _calls_sizes(args_list: Sequence[Sequence[Any]]) -> list[int]:
    """How many flattened values each call returns (an array call returns one per element)."""
    sizes = []
    for args in args_list:
        lengths = {len(a) for a in args if isinstance(a, list)}
        sizes.append(lengths.pop() if lengths else 1)
    return sizes


def _call_cases(expected: Expected) -> list[dict[str, Any]]:
    probe = expected.probe
    cases, start = [], 0
    for args, size in zip(probe.call_args, _calls_sizes(probe.call_args), strict=True):
        array = any(isinstance(a, list) for a in args)

        def pick(
            values: Sequence[Any], start: int = start, size: int = size, array: bool = array
        ) -> Any:
            chunk = list(values[start : start + size])
            return chunk if array else chunk[0]

        want = pick(expected.values)
        mistakes: list[dict[str, Any]] = []
        for hint, values in expected.mistakes:
            wrong = pick(values)
            if wrong != want and all(wrong != m["value"] for m in mistakes):
                mistakes.append({"value": wrong, "hint": hint})
        cases.append(
            {
                "name": probe.name,
                "kind": probe.kind,
                "args": list(args),
                "expected": want,
                "rtol": expected.rtol,
                "hint": expected.hint,
                "mistakes": mistakes,
            }
        )
        start += size
    return cases


def part_cases(part: Part) -> list[dict[str, Any]]:
    """The visible cases of one part, in the order the student's kernel runs them."""
    check = part.check
    if check is None or not check.visible_calls:
        return [] if check is None else _value_cases(check)
    plan = {p.key: p for p in check.visible_calls}
    answers = {p.name for p in check.visible_calls if p.key == p.name}
    builds_on = sorted({p.name for p in check.visible_calls if p.key.startswith("own:")} - answers)
    cases = []
    for expected in expectations(check, plan):
        probe = expected.probe
        shown = probe.calls is not None and probe.key == probe.name
        if not shown or probe.name in check.not_shown:
            continue  # a named value, a follow-through probe, or a call that shows the answer
        for case in _call_cases(expected):
            cases.append({**case, "builds_on": builds_on} if builds_on else case)
    return cases + _value_cases(check)


def _value_cases(check: Check) -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = []
    for value in check.visible_values:
        if isinstance(value, Relation):
            relation = "equals" if value.holds else "differs"
            cases.append({"name": value.name, relation: value.expression, "hint": value.hint})
        elif isinstance(value, Holds):
            cases.append({"name": value.name, "holds": value.expression, "hint": value.hint})
        elif isinstance(value, FigureShows):
            case: dict[str, Any] = {
                "name": f"{value.name}()",
                "figure": value.name,
                "shows": value.shows,
            }
            if value.expression:
                case["expression"] = value.expression
            if value.shows == "curve":
                case |= {"x_range": list(value.x_range), "x_name": value.x_name}
            cases.append({**case, "hint": value.hint})
        elif isinstance(value, Within):
            cases.append(
                {"name": value.name, "within": [value.low, value.high], "hint": value.hint}
            )
    return cases


def relation_builds_on(case: Mapping[str, Any], functions: Iterable[str]) -> list[str]:
    """The student's functions (of ``functions``) that a relation's expression calls. Every case
    builds on those, on the functions its check probes as the student's own, and on every function
    of the parts before its own (a later part is computed from them): when one of them fails its
    own visible checks, the case is not judged (as the grader follows through from the student's
    own answers), and says once to fix that one first."""
    expressions = [case.get(k) for k in ("equals", "differs", "holds", "expression")]
    expressions += [end for end in case.get("within", ()) if isinstance(end, str)]
    text = " ".join(e for e in expressions if isinstance(e, str))
    return sorted(f for f in functions if re.search(rf"\b{re.escape(f)}\(", text))


def all_cases() -> dict[str, list[dict[str, Any]]]:
    """Every autograded part's visible cases, by grade id; each says which part it is, and a
    relation says which of the student's functions it builds on."""
    out = {}
    for parts in PROBLEMS.values():
        cases_of = {part.grade_id: part_cases(part) for part in parts}
        functions = {c["name"] for cases in cases_of.values() for c in cases if "args" in c}
        earlier: set[str] = set()  # the functions of the parts before this one
        before: list[str] = []  # those parts' grade ids (their named values)
        for part in parts:
            if part.manual:
                continue
            cases = []
            for case in cases_of[part.grade_id]:
                own = case.get("builds_on", []) if "args" in case else []
                builds_on = sorted({*own, *relation_builds_on(case, functions), *earlier})
                extra: dict[str, Any] = {"builds_on": builds_on} if builds_on else {}
                if before:
                    extra["after"] = list(before)
                cases.append({**case, **extra, "problem": part.problem, "part": part.letter})
            out[part.grade_id] = cases
            earlier |= {c["name"] for c in cases if "args" in c}
            before.append(part.grade_id)
    return out


def render() -> str:
    return json.dumps(all_cases(), indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def write(path: Path = CASES_PATH) -> Path:
    path.write_text(render(), encoding="utf-8")
    return path


def main() -> int:
    """Write the cases, and the Chinese catalog they are shown with (both ship in roofline_lib)."""
    print(f"wrote {write()}")
    print(f"wrote {catalog.write_compiled()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
