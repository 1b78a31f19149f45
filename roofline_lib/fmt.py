"""Formatting numbers for prose: the one helper the book, the exercises and the grader share.

* :func:`format_number` — significant digits, thousands separators, × 10ⁿ for huge or tiny values:
  ``8755.6 → "8,756"`` (4 digits), ``3.523e18 → "3.52 × 10¹⁸"``.
* :func:`format_quantity` — SI prefixes on a unit: ``1.0106e-3, "s" → "1.01 ms"``,
  ``9.895e14, "FLOP/s" → "990 TFLOP/s"``, ``3.35e12, "B/s" → "3.35 TB/s"``.
* :func:`format_percent` — ``0.4932 → "49.3%"``.
* :func:`format_range` — two quantities, the unit once where they share its prefix:
  ``18.5e9, 27.9e9, "FLOP/s" → "18.5–27.9 GFLOP/s"``.
"""

from __future__ import annotations

import math

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
_PREFIXES = {
    -4: "p",
    -3: "n",
    -2: "µ",
    -1: "m",
    0: "",
    1: "k",
    2: "M",
    3: "G",
    4: "T",
    5: "P",
    6: "E",
}


def _check(value: float) -> float:
    if isinstance(value, bool | str | bytes):
        raise ValueError(f"value must be a number, got {value!r}")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"value must be a number, got {value!r}") from None
    return v


def _round_sig(value: float, digits: int) -> float:
    if value == 0 or not math.isfinite(value):
        return value
    return round(value, digits - 1 - math.floor(math.log10(abs(value))))


def _plain(value: float, digits: int) -> str:
    rounded = _round_sig(value, digits)
    magnitude = math.floor(math.log10(abs(rounded))) if rounded else 0
    decimals = max(digits - 1 - magnitude, 0)
    text = f"{rounded:,.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def format_number(value: float, digits: int = 3) -> str:
    """A number with ``digits`` significant digits, for prose.

    Between 1e-3 and 1e9 it is written out (``"8,756"``, ``"0.5"``, ``"295"``); outside, as
    ``"3.52 × 10¹⁸"``. Trailing zeros after the decimal point are dropped. inf → "∞".
    """
    v = _check(value)
    if digits < 1:
        raise ValueError(f"digits must be a positive integer, got {digits!r}")
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "∞" if v > 0 else "−∞"
    if v == 0:
        return "0"
    sign = "−" if v < 0 else ""
    a = abs(v)
    if 1e-3 <= _round_sig(a, digits) < 1e9:
        return sign + _plain(a, digits)
    exponent = math.floor(math.log10(_round_sig(a, digits)))
    mantissa = _plain(a / 10**exponent, digits)
    if mantissa == "10":  # rounding carried over
        mantissa, exponent = "1", exponent + 1
    return f"{sign}{mantissa} × 10{str(exponent).translate(_SUPERSCRIPT)}"


def format_quantity(value: float, unit: str, digits: int = 3) -> str:
    """A value with an SI prefix on ``unit``: ``(1.0106e-3, "s") → "1.01 ms"``.

    Prefixes run from p (1e-12) to E (1e18); beyond that the number is written with × 10ⁿ.
    """
    v = _check(value)
    if v == 0 or not math.isfinite(v):
        return f"{format_number(v, digits)} {unit}"
    rounded = _round_sig(abs(v), digits)
    group = math.floor(math.log10(rounded) / 3)
    group = min(max(group, min(_PREFIXES)), max(_PREFIXES))
    scaled = v / 10 ** (3 * group)
    # rounding can push 999.6 up to 1000: move to the next prefix
    if abs(_round_sig(scaled, digits)) >= 1000 and group < max(_PREFIXES):
        group += 1
        scaled = v / 10 ** (3 * group)
    return f"{format_number(scaled, digits)} {_PREFIXES[group]}{unit}"


def format_range(low: float, high: float, unit: str, digits: int = 3) -> str:
    """``low`` to ``high`` in ``unit`` with SI prefixes (:func:`format_quantity`), the unit written
    once when both take the same prefix: ``"18.5–27.9 GFLOP/s"``, else
    ``"498 MFLOP/s – 2.49 GFLOP/s"``."""
    lo, hi = format_quantity(low, unit, digits), format_quantity(high, unit, digits)
    lo_number, _, lo_unit = lo.partition(" ")
    hi_number, _, hi_unit = hi.partition(" ")
    if lo_unit == hi_unit and "×" not in lo + hi:
        return f"{lo_number}–{hi_number} {hi_unit}"
    return f"{lo} – {hi}"


def format_percent(fraction: float, digits: int = 3) -> str:
    """A fraction as a percentage with ``digits`` significant digits: 0.4932 → "49.3%"."""
    return f"{format_number(_check(fraction) * 100, digits)}%"
