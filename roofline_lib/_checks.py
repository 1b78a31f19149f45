"""Input validation shared by every public function, and the small array helpers they share
(:func:`out`, :func:`ratio_or_inf`, :func:`broadcast`).

Each check names the parameter and what is allowed, so that a bad call fails with a message a
student can act on ("B must be a positive integer, got -3") instead of a nonsense number.
Checks accept Python scalars and numpy arrays; arrays are checked element by element.
"""

from __future__ import annotations

from collections.abc import Iterable
from numbers import Real

import numpy as np

ArrayLike = float | int | np.ndarray


class UnknownNameError(KeyError, ValueError):
    """An unknown chip, dtype, level or link name. It is both a KeyError and a ValueError.

    ``str()`` gives the plain message (KeyError would otherwise wrap it in quotes).
    """

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


_NUMERIC_KINDS = "iuf"
"""numpy dtype kinds accepted as numbers: signed and unsigned integers, and real floats."""

_KIND_NAMES = {
    "b": "boolean",
    "c": "complex",
    "U": "string",
    "S": "bytes",
    "M": "datetime",
    "m": "timedelta",
    "V": "structured",
    "O": "object",
}


def _reject_dtype(name: str, arr: np.ndarray) -> None:
    kind = _KIND_NAMES.get(arr.dtype.kind, arr.dtype.kind)
    raise ValueError(
        f"{name} must be a real number or an array of real numbers (integer or float dtype), "
        f"got a {kind} array of dtype {arr.dtype}"
        + (
            " (give the quantity in SI units as a plain number)"
            if kind in ("datetime", "timedelta")
            else ""
        )
    )


def _as_float_array(name: str, value: object) -> np.ndarray:
    """``value`` as a float64 array, refusing booleans, strings, complex numbers, dates, objects.

    numpy would silently turn ``True`` into 1, ``"4096"`` into 4096.0, ``1+2j`` into 1.0 and a
    timedelta into its count of ticks; each of these is a caller's mistake, so it is an error
    naming the parameter and the dtype. Python integers too large for a float are refused too.
    """
    if isinstance(value, bool | np.bool_):
        raise ValueError(f"{name} must be a number, got the boolean {value!r}")
    if value is None:
        raise ValueError(f"{name} must be a number, got None")
    if isinstance(value, str | bytes):
        raise ValueError(f"{name} must be a number, got the string {value!r}")
    if isinstance(value, complex | np.complexfloating):
        raise ValueError(f"{name} must be a real number, got the complex number {value!r}")
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be a number or an array of numbers, got {value!r}") from None
    if raw.dtype.kind == "O":
        # Python objects: accept only real numbers (int, float, Fraction, Decimal), not bools.
        items = raw.ravel().tolist() if raw.ndim else [raw.item()]
        for item in items:
            if isinstance(item, bool) or not isinstance(item, Real):
                raise ValueError(
                    f"{name} must be a number or an array of numbers, got {item!r} "
                    f"({type(item).__name__}) in {value!r}"
                )
    elif raw.dtype.kind not in _NUMERIC_KINDS:
        _reject_dtype(name, raw)
    try:
        arr = np.asarray(raw, dtype=np.float64)
    except OverflowError:
        raise ValueError(f"{name} is too large for a 64-bit float, got {value!r:.40}…") from None
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number or an array of numbers, got {value!r}") from None
    return arr


def _first_bad(arr: np.ndarray, bad: np.ndarray) -> str:
    if arr.ndim == 0:
        return repr(arr.item())
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    where = index[0] if len(index) == 1 else index
    return f"{arr[index].item()!r} at index {where}"


def positive_count(name: str, value: object) -> np.ndarray:
    """Check a count (a size, a number of chips, tokens, layers): a positive whole number.

    Integral floats such as ``4096.0`` or ``1e12`` are accepted; ``2.5``, ``0``, ``-3``,
    NaN and infinity are not. Returns a float64 array (0-d for a scalar).
    """
    arr = _as_float_array(name, value)
    bad = ~np.isfinite(arr) | (arr <= 0) | (arr != np.floor(arr))
    if bad.any():
        raise ValueError(f"{name} must be a positive integer, got {_first_bad(arr, bad)}")
    return arr


def positive_real(name: str, value: object, unit: str = "") -> np.ndarray:
    """Check a positive, finite real quantity (a rate, a bandwidth, a time)."""
    arr = _as_float_array(name, value)
    bad = ~np.isfinite(arr) | (arr <= 0)
    if bad.any():
        suffix = f" (in {unit})" if unit else ""
        raise ValueError(
            f"{name} must be a positive finite number{suffix}, got {_first_bad(arr, bad)}"
        )
    return arr


def nonnegative_real(name: str, value: object, unit: str = "") -> np.ndarray:
    """Check a finite real quantity that may be zero (bytes moved, FLOPs)."""
    arr = _as_float_array(name, value)
    bad = ~np.isfinite(arr) | (arr < 0)
    if bad.any():
        suffix = f" (in {unit})" if unit else ""
        raise ValueError(
            f"{name} must be a non-negative finite number{suffix}, got {_first_bad(arr, bad)}"
        )
    return arr


def choice(name: str, value: object, allowed: Iterable[str]) -> str:
    """Check that a name is one of the allowed names; raise UnknownNameError listing them."""
    allowed = list(allowed)
    if not isinstance(value, str) or value not in allowed:
        raise UnknownNameError(
            f"unknown {name} {value!r}; allowed: {', '.join(repr(a) for a in allowed)}"
        )
    return value


def out(value: np.ndarray | float) -> ArrayLike:
    """Return a Python float for a 0-d result and the array itself otherwise."""
    arr = np.asarray(value)
    return float(arr) if arr.ndim == 0 else arr


def ratio_or_inf(numerator: object, denominator: object) -> ArrayLike:
    """``numerator / denominator`` where the denominator is positive, +inf where it is not.

    An intensity with no bytes moved (FLOPs / 0 bytes), or a critical size whose margin is zero
    or negative (the limit is never reached), is infinite, not a NaN or a division warning.
    Arrays broadcast; a 0-d result is a Python float (see :func:`out`)."""
    num = np.asarray(numerator, dtype=np.float64)
    den = np.asarray(denominator, dtype=np.float64)
    positive = den > 0
    with np.errstate(over="ignore"):  # a huge ratio is +inf, as it is where den == 0
        return out(np.where(positive, num / np.where(positive, den, 1.0), np.inf))


def broadcast(**arrays: np.ndarray) -> list[np.ndarray]:
    """Broadcast named arrays together, with an error naming them when the shapes clash."""
    try:
        return list(np.broadcast_arrays(*arrays.values()))
    except ValueError:
        shapes = ", ".join(f"{k}{np.shape(v)}" for k, v in arrays.items())
        raise ValueError(f"array arguments have shapes that do not broadcast: {shapes}") from None
