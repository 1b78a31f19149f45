"""Visible checks for the exercises: ``visible_checks("p1a_bytes", globals())`` after an answer.

Each check calls one of the student's functions on inputs small enough to work out by hand, or
relates a named value to the student's own functions, and prints one line per case (and a hint
under a failure) in the student's language (:func:`~.language.chosen_language`: the one chosen
at the kit's ``start_lab.py``)::

    ✓ bytes_loaded(1, 2, 3) = 8
    ✗ bytes_written(1, 2, 3) returned 6; for these inputs it should be 3.
      Hint: the output is re-quantised to int8: one byte per element

or, in Chinese::

    ✗ bytes_written(1, 2, 3) 返回了 6；对这组输入，应为 3。
      提示：输出会重新量化为 int8：每个元素 1 个字节

With no language chosen, each line is printed in English and then in Chinese.

A failure raises :class:`VisibleCheckError` (an AssertionError, so nbgrader's Validate lists it)
showing the student's value, the expected value for that visible case and a hint naming the likely
mistake. The cases and hints live in ``cases.json`` beside this module, written from the grader's
hidden checks (by the grader's ``checks.visible`` module, at release), so the visible and the hidden checks
give the same hints. The file holds values at the visible inputs and relations between names,
never a formula and never the value of a named answer.

The Chinese comes from one catalog (:mod:`.i18n`, compiled from the course's
``locales/zh_CN/LC_MESSAGES/checks.po`` into ``checks.zh_CN.json`` beside this module): the lines
this module prints are its templates (:data:`MESSAGES`), and a hint is looked up as the check wrote
it. The English is never changed.

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

from .answers import NOT_DEFINED, NOT_IMPLEMENTED, PLAN_ENV, close, encode, evaluate
from .i18n import translate, wrap, zh
from .language import chosen_language

CASES_PATH = Path(__file__).with_name("cases.json")


class VisibleCheckError(AssertionError):
    """A visible check failed; the message lists each failed case with the student's value and a
    hint. In IPython it shows as that message alone, without a traceback into this module, in
    lines short enough for nbgrader's Validate (which cuts lines at 90 characters)."""

    def __init__(
        self,
        failures: list[str],
        total: int,
        failed: int | None = None,
        language: str | None = None,
    ) -> None:
        self.failures, self.total, self.language = failures, total, language
        self.failed = len(failures) if failed is None else failed
        super().__init__("\n".join(failures))

    def _render_traceback_(self) -> list[str]:
        counts = {"failed": str(self.failed), "total": str(self.total)}
        said = Said(CHECKS_FAILED.format(**counts), zh(CHECKS_FAILED, **counts) or "")
        first, *rest = said.shown_in(self.language)
        lines = [f"VisibleCheckError: {first}", *(f"  {line}" for line in rest)]
        for failure in self.failures:
            for line in failure.splitlines():
                indent = " " * (len(line) - len(line.lstrip()) + 2)
                if line.isascii():
                    lines += textwrap.wrap(line, width=WIDTH, subsequent_indent=indent) or [""]
                else:  # Chinese, or symbols: wrapped by the columns it takes
                    lines += wrap(line, WIDTH, indent) or [""]
        return lines


WIDTH = 80
"""Longest line of a failure as Validate shows it, in columns (a Chinese character takes two)."""

# What the visible checks print around a case, as templates (str.format fields), each translated
# once in the Chinese catalog (:mod:`.i18n`). A line is printed in English, then in Chinese.
CHECKS_FAILED = "{failed} of {total} visible checks failed"
HINT = "Hint: {hint}"
RETURNED = "{call} returned {got}; for these inputs it should be {want}."
LABELS_BOTH = "{name} labels both axes"
NO_LABEL = "{name} leaves an axis without a label."
FLAT_AT = "{name} draws a horizontal line at {expression}"
NOT_FLAT = "none of the {count} lines {name} draws is flat at {expression}."
CURVE = "{expression} for {x_name} = {low}, …, {high}"
DRAWS = "{name} draws {curve}"
NOT_DRAWN = "none of the {count} lines {name} draws is {curve}."
BETWEEN = "{name} = {value} is between {low} and {high}"
NOT_BETWEEN = "{name} is {value}, not between {low} ({low_value}) and {high} ({high_value})."
IS_FALSE = "{name}: {expression} is False."
EXPRESSION_RAISED = "{expression} raised {error}: {message}"
NOT_EQUAL = "{name} is {value}, but {expression} is {other}."
SAME_AS = "{name} is {value}, the same as {expression}."
IS_NOT = "{name} is not {expression}"
PART = "part ({letter})"
BUILDS_ON_ONE = (
    "this builds on your {which}, which fails its own visible check: fix that first (at grading, "
    "this part is judged against your own earlier answers)"
)
NOT_JUDGED = "not checked yet ({count} case(s)): {hint}"
BUILDS_ON_MANY = (
    "this builds on your {which}, which fail their own visible checks: fix those first (at "
    "grading, this part is judged against your own earlier answers)"
)
MESSAGES = (
    CHECKS_FAILED,
    HINT,
    RETURNED,
    LABELS_BOTH,
    NO_LABEL,
    FLAT_AT,
    NOT_FLAT,
    CURVE,
    DRAWS,
    NOT_DRAWN,
    BETWEEN,
    NOT_BETWEEN,
    IS_FALSE,
    EXPRESSION_RAISED,
    NOT_EQUAL,
    SAME_AS,
    IS_NOT,
    PART,
    BUILDS_ON_ONE,
    BUILDS_ON_MANY,
    NOT_JUDGED,
)
"""Every template above with words to translate (a line such as ``bytes_loaded(2, 3, 4) = 18``
reads the same in both languages)."""


@dataclass(frozen=True)
class Said:
    """A line in both languages: its English, and its Chinese ("" when the catalog has none, or
    when the line has no words to translate, such as ``bytes_loaded(2, 3, 4) = 18``)."""

    english: str
    chinese: str = ""

    def shown_in(self, language: str | None) -> list[str]:
        """The line as a student reads it: in ``language`` (its English where it has no
        Chinese), or with None its English and then its Chinese, when it has one."""
        if language == "zh_CN":
            return [self.chinese or self.english]
        if language is None and self.chinese:
            return [self.english, self.chinese]
        return [self.english]


NOTHING = Said("")


@dataclass(frozen=True)
class Outcome:
    """One visible case: whether it passed, what was checked (in both languages), and the hint of
    a failure. A case not judged (``judged`` False) builds on earlier functions that fail their own
    checks: like the grader, which follows through from a student's own earlier answers, it
    neither passes nor fails, and its hint says to fix the earlier part first."""

    passed: bool
    what: Said
    hint: Said = NOTHING
    judged: bool = True

    @property
    def line(self) -> str:
        """The case's lines: ✓ or ✗ and what, the hint, then both in Chinese."""
        return "\n".join(self.lines(with_hint=True))

    def lines(self, with_hint: bool, language: str | None = None) -> list[str]:
        """✓ or ✗ and what was checked, then (``with_hint``) the hint: in ``language`` (English
        where the catalog has no Chinese), or with None in English and then in Chinese."""
        mark = "✓" if self.passed else "✗"
        what, *what_again = self.what.shown_in(language)
        hints: list[str] = []
        if with_hint and self.hint.english:
            chinese = self.hint.chinese and (zh(HINT, hint=self.hint.chinese) or self.hint.chinese)
            hint = Said(HINT.format(hint=self.hint.english), chinese)
            hints = hint.shown_in(language)
        # both languages: the English lines first, then the Chinese ones
        return [f"{mark} {what}", *(f"  {line}" for line in hints[:1] + what_again + hints[1:])]


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
    language = chosen_language()
    outcomes = [run_case(case, namespace) for case in part_cases]
    for outcome in outcomes:
        if outcome.passed:
            print("\n".join(outcome.lines(with_hint=True, language=language)))
    for note in _not_judged(outcomes, language):
        print(note)
    failed: list[str] = []
    hints: set[Said] = set()
    count = sum(o.judged and not o.passed for o in outcomes)
    for outcome in outcomes:  # shown once, in the error; each hint and each line once in the cell
        if outcome.judged and not outcome.passed:
            shown = outcome.lines(with_hint=outcome.hint not in hints, language=language)
            text = "\n".join(shown)
            if text not in failed:
                failed.append(text)
            hints.add(outcome.hint)
    if failed:
        raise VisibleCheckError(failed, len(outcomes), count, language)


def _not_judged(outcomes: list[Outcome], language: str | None = None) -> list[str]:
    """One line per earlier part that keeps cases from being judged, however many cases: in
    ``language``, or with None in English and then in Chinese."""
    notes: dict[Said, int] = {}
    for outcome in outcomes:
        if not outcome.judged:
            notes[outcome.hint] = notes.get(outcome.hint, 0) + 1
    lines = []
    for hint, count in notes.items():
        chinese = zh(NOT_JUDGED, count=str(count), hint=hint.chinese) if hint.chinese else None
        note = Said(NOT_JUDGED.format(count=count, hint=hint.english), chinese or "")
        first, *rest = note.shown_in(language)
        lines += [f"· {first}", *(f"  {line}" for line in rest)]
    return lines


# ----------------------------------------------------------------------------------------------
# One case
# ----------------------------------------------------------------------------------------------


def run_case(case: Mapping[str, Any], namespace: Mapping[str, Any]) -> Outcome:
    """One case, judged as the grader would: a wrong value (a failure with a hint) of a case that
    builds on earlier answers failing their own checks is not judged, and says to fix those first
    (the grader follows through from them); an answer that is missing or raises is always the
    case's own failure."""
    check = _call_case if "args" in case else _figure_case if "figure" in case else _value_case
    outcome = check(case, namespace)
    if outcome.passed or not outcome.hint.english:
        return outcome
    if not (case.get("builds_on") or case.get("after")):
        return outcome
    earlier = _earlier_failures(case, namespace)
    return outcome if earlier is None else _not_checked(outcome.what, earlier)


def _show(value: Any) -> str:
    """A value as every visible line shows it, the student's and the expected alike (one rule,
    whether the number came as an int or a float): a whole number below a million as written
    (8, not 8.0), other numbers of a million or more, or below 10⁻⁴, in scientific notation
    (3.28e+11, 2.733333333e+11, 1.218274112e-13), the rest with up to 10 significant digits
    (1.090909091); inf as math.inf; arrays as np.array([...])."""
    if isinstance(value, list):
        return f"np.array([{', '.join(_show(v) for v in value)}])"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        value = float(value)
    if isinstance(value, float):
        if math.isinf(value):
            return "math.inf" if value > 0 else "-math.inf"
        if math.isnan(value):
            return "nan"
        if value.is_integer() and abs(value) < 1e6:
            return str(int(value))
        if value != 0 and not 1e-4 <= abs(value) < 1e6:
            mantissa, exponent = f"{value:.9e}".split("e")
            return f"{mantissa.rstrip('0').rstrip('.')}e{int(exponent):+03d}"
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


def _say(template: str, **values: Any) -> Said:
    """One of this module's templates, filled in with ``values`` (shown as they are in both)."""
    shown = {key: str(value) for key, value in values.items()}
    return Said(template.format(**shown), zh(template, **shown) or "")


def _heard(text: str) -> Said:
    """A text from elsewhere (a check's hint, the kernel's reason an answer cannot be read),
    with its Chinese from the catalog."""
    return Said(text, (translate(text) or "") if text else "")


def _passed(what: Said) -> Outcome:
    """A case that passed: ``✓ what``, then its Chinese."""
    return Outcome(True, what)


def _failure(what: Said, hint: Said = NOTHING) -> Outcome:
    """A case that failed: ``✗ what`` and the hint, then both in Chinese (each line the catalog
    has)."""
    return Outcome(False, what, hint)


def _not_checked(what: Said, earlier: Said) -> Outcome:
    """A case left unjudged because the earlier functions it builds on fail (``earlier`` says
    which, and to fix them first)."""
    return Outcome(False, what, earlier, judged=False)


def _reason(what: str, why: str) -> Said:
    """``what: why``, where ``why`` is a reason from elsewhere (the kernel's)."""
    said = _heard(why)
    return Said(f"{what}: {why}", f"{what}：{said.chinese}" if said.chinese else "")


def _call_case(case: Mapping[str, Any], namespace: Mapping[str, Any]) -> Outcome:
    probe = {"name": case["name"], "kind": case["kind"], "calls": [case["args"]]}
    (result,) = evaluate(namespace, probe)
    text = _call_text(case)
    if "e" in result:
        return _failure(_reason(text, str(result["e"])))
    got, want, rtol = result["v"], case["expected"], float(case.get("rtol", 1e-6))
    if _close(got, want, rtol):
        return _passed(Said(f"{text} = {_show(want)}"))
    what = _say(RETURNED, call=text, got=_show(got), want=_show(want))
    hint = _heard(
        next(
            (m["hint"] for m in case.get("mistakes", ()) if _close(got, m["value"], rtol)),
            case["hint"],
        )
    )
    return _failure(what, hint)


def _earlier_failures(later: Mapping[str, Any], namespace: Mapping[str, Any]) -> Said | None:
    """A hint naming what ``later`` builds on that fails its own visible checks: the functions it
    names (``builds_on``) and the named values of the parts before its own (``after``); None when
    they all pass. A case that is itself not judged is not counted: what it builds on is."""
    names, after = later.get("builds_on", ()), later.get("after", ())
    earlier = [
        (case["name"].split("(")[0], case)
        for grade_id, part_cases in cases().items()
        for case in part_cases
        if case.get("problem") == later.get("problem")
        and (
            ("args" in case and case["name"] in names)
            or (grade_id in after and "args" not in case and "figure" not in case)
        )
    ]
    failing: dict[str, Said] = {}
    for name, case in earlier:
        if name in failing:
            continue
        outcome = run_case(case, namespace)
        if outcome.judged and not outcome.passed:
            failing[name] = _say(PART, letter=case["part"])
    if not failing:
        return None
    parts = sorted(set(failing.values()), key=lambda part: part.english)
    template = BUILDS_ON_ONE if len(failing) == 1 else BUILDS_ON_MANY
    which = f"{' and '.join(failing)} ({', '.join(p.english for p in parts)})"
    which_zh = f"{'、'.join(failing)}（{'、'.join(p.chinese or p.english for p in parts)}）"
    return Said(template.format(which=which), zh(template, which=which_zh) or "")


def _figure_case(case: Mapping[str, Any], namespace: Mapping[str, Any]) -> Outcome:
    """A figure the student's function draws: read as the hidden checks read it (its lines and
    labels), and held to a curve of the student's own function, a flat line or labels."""
    name, shows = case["name"], case["shows"]
    probe = {"name": case["figure"], "kind": "figure", "calls": [[]]}
    (result,) = evaluate(namespace, probe)
    if "e" in result:
        return _failure(_heard(str(result["e"])))
    axes = result["v"]["axes"]
    lines = [line for ax in axes for line in ax["lines"]]
    hint = _heard(case["hint"])
    if shows == "labels":
        labelled = bool(axes) and all(ax["xlabel"].strip() and ax["ylabel"].strip() for ax in axes)
        if labelled:
            return _passed(_say(LABELS_BOTH, name=name))
        return _failure(_say(NO_LABEL, name=name), hint)
    if shows == "flat_line":
        level, why = _number(case["expression"], namespace)
        if level is None:
            return _failure(why)
        flat = any(line["y"] and all(_close(y, level, 1e-6) for y in line["y"]) for line in lines)
        if flat:
            return _passed(_say(FLAT_AT, name=name, expression=case["expression"]))
        return _failure(
            _say(NOT_FLAT, count=len(lines), name=name, expression=case["expression"]), hint
        )
    low, high = case["x_range"]
    xs = list(range(low, high + 1))
    curve = _say(CURVE, expression=case["expression"], x_name=case["x_name"], low=low, high=high)
    function = {
        case["expression"]: lambda x: eval(case["expression"], {**namespace, case["x_name"]: x})
    }
    (wanted,) = evaluate(function, {"name": case["expression"], "kind": "number", "calls": [[xs]]})
    if "e" in wanted:
        return _failure(_reason(curve.english, str(wanted["e"])))
    drawn = any(
        _close([float(x) for x in line["x"]], [float(x) for x in xs], 0)
        and _close(line["y"], wanted["v"], 1e-6)
        for line in lines
    )
    either = {"curve": curve.english}, {"curve": curve.chinese or curve.english}
    if drawn:
        return _passed(_in_both(DRAWS, *either, name=name))
    return _failure(_in_both(NOT_DRAWN, *either, count=len(lines), name=name), hint)


def _in_both(
    template: str, english: Mapping[str, str], chinese: Mapping[str, str], **values: Any
) -> Said:
    """A template whose values differ between the languages (``english``, ``chinese``) besides
    those shown the same in both (``values``)."""
    shown = {key: str(value) for key, value in values.items()}
    return Said(template.format(**shown, **english), zh(template, **shown, **chinese) or "")


def _number(expression: str, namespace: Mapping[str, Any]) -> tuple[float | None, Said]:
    """The value of an expression over the notebook's names: (number, nothing) or (None, why
    not)."""
    if expression.isidentifier():
        (result,) = evaluate(namespace, {"name": expression, "kind": "number", "calls": None})
    else:
        try:
            value = eval(expression, dict(namespace))  # the notebook's own names, in its kernel
        except NameError as exc:
            return None, _say(NOT_DEFINED, name=exc.name)
        except NotImplementedError:
            return None, _say(NOT_IMPLEMENTED, name=expression)
        except Exception as exc:
            raised = _say(
                EXPRESSION_RAISED, expression=expression, error=type(exc).__name__, message=exc
            )
            return None, raised
        result = encode("number", value, None, expression)
    if "e" in result:
        return None, _heard(str(result["e"]))
    return float(result["v"]), NOTHING


def _holds(name: str, expression: str, hint: str, namespace: Mapping[str, Any]) -> Outcome:
    try:
        holds = bool(eval(expression, dict(namespace)))  # the notebook's names, in its kernel
    except Exception as exc:
        raised = _say(
            EXPRESSION_RAISED, expression=expression, error=type(exc).__name__, message=exc
        )
        chinese = f"{name}：{raised.chinese}" if raised.chinese else ""
        return _failure(Said(f"{name}: {raised.english}", chinese))
    if holds:
        return _passed(Said(f"{name}: {expression}"))
    return _failure(_say(IS_FALSE, name=name, expression=expression), _heard(hint))


def _bound(end: float | str, namespace: Mapping[str, Any]) -> tuple[float | None, Said]:
    return (float(end), NOTHING) if isinstance(end, int | float) else _number(end, namespace)


def _value_case(case: Mapping[str, Any], namespace: Mapping[str, Any]) -> Outcome:
    name = case["name"]
    hint = _heard(case["hint"])
    got, why = _number(name, namespace)
    if got is None:
        return _failure(why)
    if "within" in case:
        (low, why_low), (high, why_high) = (_bound(end, namespace) for end in case["within"])
        if low is None or high is None:
            return _failure(why_low if low is None else why_high)
        shown = [e if isinstance(e, str) else _show(float(e)) for e in case["within"]]
        if low <= got <= high:
            return _passed(_say(BETWEEN, name=name, value=_show(got), low=shown[0], high=shown[1]))
        what = _say(
            NOT_BETWEEN,
            name=name,
            value=_show(got),
            low=shown[0],
            low_value=_show(low),
            high=shown[1],
            high_value=_show(high),
        )
        return _failure(what, hint)
    if "holds" in case:
        return _holds(name, case["holds"], case["hint"], namespace)
    expression = case.get("equals", case.get("differs"))
    other, why = _number(expression, namespace)
    if other is None:
        return _failure(why)
    same = _close(got, other, 1e-6)
    if "equals" in case:
        if same:
            return _passed(Said(f"{name} = {expression} = {_show(got)}"))
        what = _say(
            NOT_EQUAL, name=name, value=_show(got), expression=expression, other=_show(other)
        )
        return _failure(what, hint)
    if same:
        return _failure(_say(SAME_AS, name=name, value=_show(got), expression=expression), hint)
    return _passed(_say(IS_NOT, name=name, expression=expression))


__all__ = [
    "CASES_PATH",
    "MESSAGES",
    "Outcome",
    "Said",
    "VisibleCheckError",
    "cases",
    "run_case",
    "visible_checks",
]
