"""The catalogue of mistakes: what an answer off from the right one by a constant factor most
likely means, in words.

One catalogue serves the grader and the book. The grader's class report names a cluster of wrong
answers by its factor (:func:`describe_factor`: "answers ×8 the reference: bits and bytes mixed
up"); the book's "predict, then check" questions (:func:`factor_mistakes`) give a reader who is off
by one of :data:`GENERIC_FACTORS` the same words as a hint. A ratio ``r`` is always
``r = answer / reference``, dimensionless.

* :func:`format_factor`: ``2 → "×2"``, ``0.5 → "×1/2"``, ``1e-12 → "×10⁻¹²"``;
* :func:`factor_words`: ``8 → "bits and bytes mixed up (8 bits to a byte), too large"``;
* :func:`describe_factor`: the two together, as the class report words a cluster;
* :class:`Mistake`: a wrong value and its hint; :func:`known_mistakes` puts a question's own
  mistakes (computed with the library: the sparse peak, min for max, ...) before the generic ones.
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
"""The factors a reader is most often off by (answer / right answer): a two dropped or doubled,
bits for bytes, a unit prefix, binary (1024) for decimal (1000) prefixes."""


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


def factor_mistakes(answer: float) -> tuple[Mistake, ...]:
    """``answer × r`` for each r of :data:`GENERIC_FACTORS`, with its words as the hint:
    'That is ×8 the answer: bits and bytes mixed up (8 bits to a byte), too large.'"""
    return tuple(
        Mistake(
            answer * r,
            say(
                "That is {factor} the answer: {words}.",
                factor=format_factor(r),
                words=factor_words(r),
            ),
        )
        for r in GENERIC_FACTORS
    )


def known_mistakes(
    answer: float, specific: Sequence[Mistake] = (), rtol: float = 0.01
) -> tuple[Mistake, ...]:
    """A question's mistakes: its ``specific`` ones (computed with the library), then the generic
    :func:`factor_mistakes`, dropping any value a reader within ``rtol`` could not tell from the
    right answer or from a mistake listed before it (``|a − b| ≤ 2·rtol·|b|``)."""
    if not (math.isfinite(answer) and answer > 0):
        raise ValueError(f"answer must be a positive finite number, got {answer!r}")
    if not 0 < rtol < 0.5:
        raise ValueError(f"rtol must be in (0, 0.5), got {rtol!r}")
    kept: list[Mistake] = []
    seen = [answer]
    for mistake in (*specific, *factor_mistakes(answer)):
        if any(abs(mistake.value - v) <= 2 * rtol * abs(v) for v in seen):
            continue
        kept.append(mistake)
        seen.append(mistake.value)
    return tuple(kept)
