"""Visible checks for the exercises: ``visible_checks("p1a_bytes", globals())`` after an answer.

Each check calls one of the student's functions on inputs small enough to work out by hand, or
relates a named value to the student's own functions, and prints one line per case::

    ✓ bytes_loaded(1, 2, 3) = 8
    ✗ bytes_written(1, 2, 3) returned 6; for these inputs it should be 3.
      Hint: the output is re-quantised to int8: one byte per element

A failure raises :class:`VisibleCheckError` (an AssertionError, so nbgrader's Validate lists it)
showing the student's value, the expected value for that visible case and a hint naming the likely
mistake. The cases and hints live in ``cases.json`` beside this module, written from the grader's
hidden checks (by the grader's ``checks.visible`` module, at release), so the visible and the hidden checks
give the same hints. The file holds values at the visible inputs and relations between names,
never a formula and never the value of a named answer.

When the grader runs a notebook (``ROOFLINE_CHECK_PLAN`` is set) the visible checks stay silent:
the hidden checks that follow decide, outside the student's kernel, and they give credit that
follows through from earlier parts, which a visible case cannot see.
"""

from __future__ import annotations

import functools
import json
import math
import os
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .answers import PLAN_ENV, close, encode, evaluate

CASES_PATH = Path(__file__).with_name("cases.json")


class VisibleCheckError(AssertionError):
    """A visible check failed; the message lists each failed case with the student's value and a
    hint. In IPython it shows as that message alone, without a traceback into this module, in
    lines short enough for nbgrader's Validate (which cuts lines at 90 characters)."""

    def __init__(self, failures: list[str], total: int) -> None:
        self.failures, self.total = failures, total
        super().__init__("\n".join(failures))

    def _render_traceback_(self) -> list[str]:
        head = f"VisibleCheckError: {len(self.failures)} of {self.total} visible checks failed"
        lines = [head]
        for failure in self.failures:
            for line in failure.splitlines():
                indent = " " * (len(line) - len(line.lstrip()) + 2)
                lines += textwrap.wrap(line, width=WIDTH, subsequent_indent=indent) or [""]
        return lines


WIDTH = 80
"""Longest line of a failure as Validate shows it."""


@dataclass(frozen=True)
class Outcome:
    """One visible case: whether it passed, and the line that says so."""

    passed: bool
    line: str


@functools.cache
def cases() -> dict[str, list[dict[str, Any]]]:
    """Every part's visible cases, by grade id."""
    loaded: dict[str, list[dict[str, Any]]] = json.loads(CASES_PATH.read_text(encoding="utf-8"))
    return loaded


def visible_checks(grade_id: str, namespace: Mapping[str, Any]) -> None:
    """Run part ``grade_id``'s visible checks on the student's ``namespace`` (their globals()).

    Prints a line per case that passes; raises VisibleCheckError listing those that failed.
    Silent under the grader.
    Returns None: a grade cell's last value would be read by nbgrader as partial credit.
    """
    if os.environ.get(PLAN_ENV):
        return
    try:
        part_cases = cases()[grade_id]
    except KeyError:
        raise KeyError(f"no visible checks for {grade_id!r}; known: {', '.join(cases())}") from None
    outcomes = [run_case(case, namespace) for case in part_cases]
    for outcome in outcomes:
        if outcome.passed:
            print(outcome.line)
    failed = [o.line for o in outcomes if not o.passed]  # shown once, in the error
    if failed:
        raise VisibleCheckError(failed, len(outcomes))


# ----------------------------------------------------------------------------------------------
# One case
# ----------------------------------------------------------------------------------------------


def run_case(case: Mapping[str, Any], namespace: Mapping[str, Any]) -> Outcome:
    if "args" in case:
        return _call_case(case, namespace)
    if "figure" in case:
        return _figure_case(case, namespace)
    return _value_case(case, namespace)


def _show(value: Any) -> str:
    """A number as a student would write it: 8, not 8.0; 1.0909090909; inf; arrays as np.array."""
    if isinstance(value, list):
        return f"np.array([{', '.join(_show(v) for v in value)}])"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        if math.isinf(value):
            return "math.inf" if value > 0 else "-math.inf"
        if value.is_integer() and abs(value) < 1e16:
            return str(int(value))
        return f"{value:.10g}"
    return repr(value)


def _call_text(case: Mapping[str, Any]) -> str:
    return f"{case['name']}({', '.join(_show(a) for a in case['args'])})"


def _close(got: Any, want: Any, rtol: float) -> bool:
    if isinstance(want, list):
        return (
            isinstance(got, list)
            and len(got) == len(want)
            and all(_close(g, w, rtol) for g, w in zip(got, want, strict=True))
        )
    if isinstance(want, bool) or isinstance(got, bool):
        return isinstance(got, bool) and got == want
    return close(got, want, rtol)


def _failure(what: str, hint: str) -> Outcome:
    return Outcome(False, f"✗ {what}\n  Hint: {hint}" if hint else f"✗ {what}")


def _call_case(case: Mapping[str, Any], namespace: Mapping[str, Any]) -> Outcome:
    probe = {"name": case["name"], "kind": case["kind"], "calls": [case["args"]]}
    (result,) = evaluate(namespace, probe)
    text = _call_text(case)
    if "e" in result:
        return _failure(f"{text}: {result['e']}", "")
    got, want, rtol = result["v"], case["expected"], float(case.get("rtol", 1e-6))
    if _close(got, want, rtol):
        return Outcome(True, f"✓ {text} = {_show(want)}")
    hint = _earlier_failures(case, namespace) or next(
        (m["hint"] for m in case.get("mistakes", ()) if _close(got, m["value"], rtol)),
        case["hint"],
    )
    return _failure(
        f"{text} returned {_show(got)}; for these inputs it should be {_show(want)}.", hint
    )


def _earlier_failures(later: Mapping[str, Any], namespace: Mapping[str, Any]) -> str:
    """A hint naming the earlier functions ``later`` builds on that fail their own checks."""
    names, failing = later.get("builds_on", ()), {}
    earlier = [
        case
        for part_cases in cases().values()
        for case in part_cases
        if case.get("problem") == later.get("problem") and "args" in case and case["name"] in names
    ]
    for case in earlier:
        if case["name"] not in failing and not _call_case(case, namespace).passed:
            failing[case["name"]] = f"part ({case['part']})"
    if not failing:
        return ""
    parts = sorted(set(failing.values()))
    which = f"{' and '.join(failing)} ({', '.join(parts)})"
    one = len(failing) == 1
    return (
        f"this builds on your {which}, which "
        + (
            "fails its own visible check: fix that first"
            if one
            else "fail their own visible checks: fix those first"
        )
        + " (at grading, this part is judged against your own earlier answers)"
    )


def _figure_case(case: Mapping[str, Any], namespace: Mapping[str, Any]) -> Outcome:
    """A figure the student's function draws: read as the hidden checks read it (its lines and
    labels), and held to a curve of the student's own function, a flat line or labels."""
    name, shows = case["name"], case["shows"]
    probe = {"name": case["figure"], "kind": "figure", "calls": [[]]}
    (result,) = evaluate(namespace, probe)
    if "e" in result:
        return _failure(str(result["e"]), "")
    axes = result["v"]["axes"]
    lines = [line for ax in axes for line in ax["lines"]]
    if shows == "labels":
        labelled = bool(axes) and all(ax["xlabel"].strip() and ax["ylabel"].strip() for ax in axes)
        if labelled:
            return Outcome(True, f"✓ {name} labels both axes")
        return _failure(f"{name} leaves an axis without a label.", case["hint"])
    if shows == "flat_line":
        level, why = _number(case["expression"], namespace)
        if level is None:
            return _failure(why, "")
        flat = any(line["y"] and all(_close(y, level, 1e-6) for y in line["y"]) for line in lines)
        if flat:
            return Outcome(True, f"✓ {name} draws a horizontal line at {case['expression']}")
        return _failure(
            f"none of the {len(lines)} lines {name} draws is flat at {case['expression']}.",
            case["hint"],
        )
    low, high = case["x_range"]
    xs = list(range(low, high + 1))
    what = f"{case['expression']} for {case['x_name']} = {low}, …, {high}"
    curve = {
        case["expression"]: lambda x: eval(case["expression"], {**namespace, case["x_name"]: x})
    }
    (wanted,) = evaluate(curve, {"name": case["expression"], "kind": "number", "calls": [[xs]]})
    if "e" in wanted:
        return _failure(f"{what}: {wanted['e']}", "")
    drawn = any(
        _close([float(x) for x in line["x"]], [float(x) for x in xs], 0)
        and _close(line["y"], wanted["v"], 1e-6)
        for line in lines
    )
    if drawn:
        return Outcome(True, f"✓ {name} draws {what}")
    return _failure(f"none of the {len(lines)} lines {name} draws is {what}.", case["hint"])


def _number(expression: str, namespace: Mapping[str, Any]) -> tuple[float | None, str]:
    """The value of an expression over the notebook's names: (number, "") or (None, why not)."""
    if expression.isidentifier():
        (result,) = evaluate(namespace, {"name": expression, "kind": "number", "calls": None})
    else:
        try:
            value = eval(expression, dict(namespace))  # the notebook's own names, in its kernel
        except NameError as exc:
            return None, f"{exc.name} is not defined: run the answer cell that defines it"
        except NotImplementedError:
            return None, f"{expression} is not implemented yet (it raises NotImplementedError)"
        except Exception as exc:
            return None, f"{expression} raised {type(exc).__name__}: {exc}"
        result = encode("number", value, None, expression)
    if "e" in result:
        return None, str(result["e"])
    return float(result["v"]), ""


def _holds(name: str, expression: str, hint: str, namespace: Mapping[str, Any]) -> Outcome:
    try:
        holds = bool(eval(expression, dict(namespace)))  # the notebook's names, in its kernel
    except Exception as exc:
        return _failure(f"{name}: {expression} raised {type(exc).__name__}: {exc}", "")
    if holds:
        return Outcome(True, f"✓ {name}: {expression}")
    return _failure(f"{name}: {expression} is False.", hint)


def _bound(end: float | str, namespace: Mapping[str, Any]) -> tuple[float | None, str]:
    return (float(end), "") if isinstance(end, int | float) else _number(end, namespace)


def _value_case(case: Mapping[str, Any], namespace: Mapping[str, Any]) -> Outcome:
    name = case["name"]
    got, why = _number(name, namespace)
    if got is None:
        return _failure(why, "")
    if "within" in case:
        (low, why_low), (high, why_high) = (_bound(end, namespace) for end in case["within"])
        if low is None or high is None:
            return _failure(why_low or why_high, "")
        shown = [e if isinstance(e, str) else _show(float(e)) for e in case["within"]]
        if low <= got <= high:
            return Outcome(True, f"✓ {name} = {_show(got)} is between {shown[0]} and {shown[1]}")
        return _failure(
            f"{name} is {_show(got)}, not between {shown[0]} ({_show(low)}) and {shown[1]} "
            f"({_show(high)}).",
            case["hint"],
        )
    if "holds" in case:
        return _holds(name, case["holds"], case["hint"], namespace)
    expression = case.get("equals", case.get("differs"))
    other, why = _number(expression, namespace)
    if other is None:
        return _failure(why, "")
    same = _close(got, other, 1e-6)
    if "equals" in case:
        if same:
            return Outcome(True, f"✓ {name} = {expression} = {_show(got)}")
        return _failure(
            f"{name} is {_show(got)}, but {expression} is {_show(other)}.", case["hint"]
        )
    if same:
        return _failure(f"{name} is {_show(got)}, the same as {expression}.", case["hint"])
    return Outcome(True, f"✓ {name} is not {expression}")


__all__ = ["CASES_PATH", "Outcome", "VisibleCheckError", "cases", "run_case", "visible_checks"]
