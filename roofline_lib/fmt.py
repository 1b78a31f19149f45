"""Formatting numbers for prose: the one helper the book, the exercises and the grader share.

* :func:`format_number` — significant digits, thousands separators, × 10ⁿ for huge or tiny values:
  ``8755.6 → "8,756"`` (4 digits), ``3.523e18 → "3.52 × 10¹⁸"``.
* :func:`format_quantity` — SI prefixes on a unit: ``1.0106e-3, "s" → "1.01 ms"``,
  ``9.895e14, "FLOP/s" → "990 TFLOP/s"``, ``3.35e12, "B/s" → "3.35 TB/s"``.
* :func:`format_percent` — ``0.4932 → "49.3%"``.
* :func:`format_range` — two quantities, the unit once where they share its prefix:
  ``18.5e9, 27.9e9, "FLOP/s" → "18.5–27.9 GFLOP/s"``.
* :func:`format_batch` — a critical batch B* in whole tokens, rounded down: ``240.54 → "240"``,
  so that "compute-bound for B > 240" is exact for every whole batch.
* :func:`indefinite_article` — "a" or "an" before a number as it is read: ``"8,192" → "an"``.
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


def format_batch(critical_batch: float) -> str:
    """A critical batch B* in whole tokens for prose, rounded **down**: 240.54 → "240".

    The library's B* (:func:`roofline_lib.critical_batch_size`) is a threshold, not a count: a
    matmul of B tokens is compute-bound when B > B*. For whole batches B > B* holds exactly when
    B > ⌊B*⌋, so "compute-bound for B > {text}" is true as printed, and the smallest compute-bound
    batch is the printed number + 1. (Rounded to nearest, 240.54 would print as "241", and a
    241-token matmul, which is compute-bound, would read as not.) inf → "∞".
    """
    v = _check(critical_batch)
    if math.isnan(v) or v < 0:
        raise ValueError(f"critical_batch must be a non-negative number, got {critical_batch!r}")
    if math.isinf(v):
        return "∞"
    return f"{math.floor(v):,}"


_AN_LEADS = ("8", "11", "18")


def indefinite_article(number: str) -> str:
    """ "an" before a number read aloud with a vowel sound, else "a": "an 8,192", "an 11-layer",
    "an 18,432", "an 80 GB", but "a 1,024", "a 512", "a 110" ("a hundred and ten").

    The number is read by its leading group of digits: an "8" (eight, eighty, eight hundred,
    eight thousand, …), or a leading group of exactly "11" or "18" (eleven, eighteen thousand).
    Digits without thousands separators are grouped by threes first ("8192" → "8,192").
    """
    text = str(number).strip()
    digits = ""
    for ch in text:
        if ch.isdigit():
            digits += ch
        elif ch == "," and digits:
            continue
        else:
            break
    if not digits:
        raise ValueError(f"number must start with a digit, got {number!r}")
    digits = digits.lstrip("0") or "0"
    lead = digits[: len(digits) % 3 or 3]
    if lead.startswith("8") or lead in ("11", "18"):
        return "an"
    return "a"
