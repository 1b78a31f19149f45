"""The catalogue of mistakes: what an answer off from the right one by a constant factor most
likely means, in words.

One catalogue serves the grader and the book. The grader's class report names a cluster of wrong
answers by its factor (:func:`describe_factor`: "answers ×8 the reference: bits and bytes mixed
up"); the book's "predict, then check" questions list the mistakes each one expects, each with
a hint for that value. A ratio ``r`` is always
``r = answer / reference``, dimensionless.

* :func:`format_factor`: ``2 → "×2"``, ``0.5 → "×1/2"``, ``1e-12 → "×10⁻¹²"``;
* :func:`factor_words`: ``8 → "bits and bytes mixed up (8 bits to a byte), too large"``;
* :func:`describe_factor`: the two together, as the class report words a cluster;
* :class:`Mistake`: a wrong value and its hint; :class:`Convention`: another right value and its
  note; :func:`answer_key` checks a question's :class:`AnswerKey` (its tolerance separates every
  listed value). A box hints only at what its question lists: no factor is ever guessed, since a
  guessed "×1.024" fires on answers the page itself teaches under another convention.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .words import say, say_later

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
PREFIXES = {
    3: say_later("kilo"),
    6: say_later("mega"),
    9: say_later("giga"),
    12: say_later("tera"),
    15: say_later("peta"),
    18: say_later("exa"),
}
"""SI prefixes by power of ten (BIPM, The International System of Units, 9th ed., table 7)."""

GENERIC_FACTORS: tuple[float, ...] = (
    2.0,
    0.5,
    8.0,
    0.125,
    1e3,
    1e-3,
    1e6,
    1e-6,
    1e9,
    1e-9,
    1e12,
    1e-12,
    1.024,
    1 / 1.024,
    1.024**2,
    1.024**-2,
    1.024**3,
    1.024**-3,
    1.024**4,
    1.024**-4,
)
"""The factors a class is most often off by (answer / right answer): a two dropped or doubled,
bits for bytes, a unit prefix, binary (1024) for decimal (1000) prefixes; each has words of its
own (:func:`factor_words`) for the class report."""


def _whole(x: float, rtol: float = 1e-6) -> int | None:
    n = round(x)
    return n if n >= 1 and math.isclose(x, n, rel_tol=rtol) else None


def _power_of_ten(x: float) -> int | None:
    k = round(math.log10(x))
    return k if k != 0 and math.isclose(x, 10.0**k, rel_tol=1e-6) else None


def format_factor(ratio: float) -> str:
    """A factor as an instructor reads it: '×2', '×1/2', '×10¹²', '×10⁻⁹', '×0.37', '×−1'."""
    if ratio == 0:
        return "×0"
    sign, size = ("−" if ratio < 0 else ""), abs(ratio)
    if (k := _power_of_ten(size)) is not None and abs(k) >= 3:
        return f"×{sign}10{str(k).translate(_SUPERSCRIPT)}"
    if size >= 1 and (n := _whole(size)) is not None:
        return f"×{sign}{n}"
    if size < 1 and (n := _whole(1 / size)) is not None:
        return f"×{sign}1/{n}"
    return f"×{sign}{size:.3g}"


def factor_words(ratio: float) -> str:
    """What an answer ``ratio`` times the right one most likely means: 'a factor of two dropped
    or doubled', 'a unit prefix off (tera, 10^12), too small', 'the sign flipped', ... (in the
    language of :func:`roofline_lib.words.language`)."""
    if ratio == 0:
        return say("zero where the answer is not")
    size = abs(ratio)
    big = size if size >= 1 else 1 / size
    way = say("too large") if size > 1 else say("too small")
    if (k := _power_of_ten(size)) is not None and abs(k) % 3 == 0 and abs(k) in PREFIXES:
        words = say(
            "a unit prefix off ({prefix}, 10^{power}), {way}",
            prefix=say(PREFIXES[abs(k)]),
            power=abs(k),
            way=way,
        )
    elif (k := _power_of_ten(size)) is not None:
        words = say("a power of ten off (10^{power})", power=k)
    elif _whole(big) == 2:
        words = say("a factor of two dropped or doubled")
    elif _whole(big) == 8:
        words = say("bits and bytes mixed up (8 bits to a byte), {way}", way=way)
    elif any(math.isclose(big, 1.024**j, rel_tol=1e-6) for j in range(1, 7)):
        words = say("binary and decimal prefixes mixed up (1024 against 1000)")
    elif (n := _whole(big)) is not None:
        words = say("a factor of {n} {way}", n=n, way=way)
    elif ratio < 0 and math.isclose(size, 1.0, rel_tol=1e-6):
        return say("the sign flipped")
    else:
        words = say("off by one constant factor")
    return say("{words}, with the sign flipped", words=words) if ratio < 0 else words


def describe_factor(ratio: float) -> str:
    """What answers off from the reference by one constant factor most likely mean, in words:
    'answers ×2 the reference: a factor of two dropped or doubled'."""
    head = f"answers {format_factor(ratio)} the reference"
    if ratio == 0:
        return f"{head}: zero where the reference is not"
    return f"{head}: {factor_words(ratio)}"


@dataclass(frozen=True)
class Mistake:
    """A wrong answer a reader is likely to give (``value``, in the question's unit) and the hint
    that names it."""

    value: float
    hint: str


@dataclass(frozen=True)
class Convention:
    """Another right answer: the ``value`` a question's answer takes under a convention the page
    itself teaches (every byte counted exactly, the guide's rounded inputs), accepted with a
    ``note`` that says which convention it is."""

    value: float
    note: str


def fraction_for_percent(answer_percent: float) -> Mistake:
    """A percentage question answered with the fraction (0.816 for 81.6 %)."""
    return Mistake(
        answer_percent / 100,
        say("That is the fraction: the question asks for a percentage (×100)."),
    )


def erratum(value: float, why: str) -> Mistake:
    """A figure the sources print and the errata page corrects: never a tick, and the hint says
    where it comes from (``why``, one clause) and where it is corrected."""
    return Mistake(
        value,
        say(
            "That is the sources' figure, an erratum: {why}. The errata page corrects it.", why=why
        ),
    )


@dataclass(frozen=True)
class AnswerKey:
    """What a "predict, then check" box accepts and what it says.

    A number ``x`` is right when ``|x − answer| ≤ rtol·answer``, another right answer when it is
    that close to a convention's value (with its note), a listed mistake (with its hint) when it is
    that close to the mistake's value, and plainly wrong otherwise: no hint is ever guessed. The
    windows ``[v − rtol·v, v + rtol·v]`` of the answer, the conventions and the mistakes are
    disjoint (:func:`answer_key` checks), so each number gets one verdict."""

    answer: float
    rtol: float
    mistakes: tuple[Mistake, ...] = ()
    conventions: tuple[Convention, ...] = ()


def _widest_rtol(a: float, b: float) -> float:
    """The largest rtol at which the windows of ``a`` and ``b`` do not overlap: |a − b| / (a + b)."""
    return abs(a - b) / (abs(a) + abs(b))


def answer_key(
    answer: float,
    rtol: float,
    mistakes: Sequence[Mistake] = (),
    conventions: Sequence[Convention] = (),
) -> AnswerKey:
    """The :class:`AnswerKey` of a question, checked: ``answer`` and every listed value positive
    and finite, ``0 < rtol < 0.5``, and no two windows overlapping (a listed value a reader within
    ``rtol`` could not tell from the answer, or from another listed value, is an error that says
    the widest ``rtol`` that would separate them)."""
    if not (math.isfinite(answer) and answer > 0):
        raise ValueError(f"answer must be a positive finite number, got {answer!r}")
    if not 0 < rtol < 0.5:
        raise ValueError(f"rtol must be in (0, 0.5), got {rtol!r}")
    listed: list[tuple[str, float]] = [("the answer", answer)]
    listed += [(f"conventions[{i}]", c.value) for i, c in enumerate(conventions)]
    listed += [(f"mistakes[{i}]", m.value) for i, m in enumerate(mistakes)]
    for name, value in listed[1:]:
        if not (math.isfinite(value) and value > 0):
            raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    for i, (name, value) in enumerate(listed):
        for other, other_value in listed[:i]:
            if abs(value - other_value) <= rtol * (value + other_value):
                raise ValueError(
                    f"{name} = {value:.6g} is within rtol = {rtol:g} of {other} = "
                    f"{other_value:.6g}: a reader could not be told which; use rtol below "
                    f"{_widest_rtol(value, other_value):.3g} or drop it"
                )
    return AnswerKey(answer, rtol, tuple(mistakes), tuple(conventions))
