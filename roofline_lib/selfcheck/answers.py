"""Reading a student's answers in their own kernel: call their functions, reduce what comes back.

Both the visible checks (:mod:`roofline_lib.selfcheck`) and the grader's hidden checks (its
kernel-side ``hidden`` module) ask the same questions of a student's namespace: "call
``bytes_loaded`` with these arguments", "read ``critical_batch_small``". This module answers them
and reduces every answer to plain data: a float (after checking it is a real number and not a
bool), a list of floats (after checking it is a numpy array of the inputs' broadcast shape),
True/False, or the lines and labels of a matplotlib figure. An answer that cannot be read becomes
``{"e": why}``, in words a student can act on.

Only the standard library is imported here; numpy and matplotlib when an answer needs them.
"""

from __future__ import annotations

import math
import numbers
import signal
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

PLAN_ENV = "ROOFLINE_CHECK_PLAN"
"""Environment variable with the path of the plan file, in a kernel started by the grader."""
RTOL = 1e-6
"""Relative tolerance every numeric answer is checked to (the notebooks state it)."""
MAX_LINES = 64
MAX_POINTS = 4096
MAX_MESSAGE = 300

# What a student is told when an answer cannot be read, as templates (str.format fields): the
# catalog of Chinese hints (roofline_lib.selfcheck.i18n) translates each one once.
NOT_DEFINED = "{name} is not defined: run the answer cell that defines it"
NOT_A_FUNCTION = "{name} should be a function"
TOO_SLOW = "{name} took longer than {seconds} s"
NOT_IMPLEMENTED = "{name} is not implemented yet (it raises NotImplementedError)"
RAISED = "calling {name} raised {error}: {message}"
NOT_ELEMENTWISE = (
    "given numpy arrays, {name} must work elementwise (use numpy functions such as np.maximum, "
    "np.minimum, np.ceil, not max, min, math.ceil); {problem}"
)
UNREADABLE = "{name}: could not read the answer ({error}: {message})"
NOT_SCALAR = "{name} should give a single value here, not an array"
NOT_BOOL = "{name} should be True or False, not a {type}"
NOT_NUMBER = "{name} should be a number, not a {type}"
NOT_ARRAY = (
    "given numpy arrays, {name} should return a numpy array of the same shape, not a {type} (use "
    "numpy operations such as np.maximum, not max)"
)
WRONG_SHAPE = "given arrays of shape {shape}, {name} returned shape {got}"
NOT_BOOL_ARRAY = "{name} should return an array of True/False values"
NOT_NUMBER_ARRAY = "{name} should return an array of numbers, not of dtype {dtype}"
NOT_FIGURE = "{name}() should return the matplotlib Figure it drew, not a {type}"
MESSAGES = (
    NOT_DEFINED,
    NOT_A_FUNCTION,
    TOO_SLOW,
    NOT_IMPLEMENTED,
    RAISED,
    NOT_ELEMENTWISE,
    UNREADABLE,
    NOT_SCALAR,
    NOT_BOOL,
    NOT_NUMBER,
    NOT_ARRAY,
    WRONG_SHAPE,
    NOT_BOOL_ARRAY,
    NOT_NUMBER_ARRAY,
    NOT_FIGURE,
)
"""Every template above: what this module can tell a student."""


def close(got: Any, want: float, rtol: float = RTOL) -> bool:
    """Whether a returned number equals a reference to a relative tolerance (inf equals inf; a
    bool is never a number; NaN equals nothing)."""
    if isinstance(got, bool) or not isinstance(got, int | float):
        return False
    if math.isnan(got) or math.isnan(want):
        return False
    if math.isinf(want) or math.isinf(got):
        return got == want
    return abs(got - want) <= rtol * max(abs(want), 1e-300)


class _BadAnswerError(Exception):
    """An answer of the wrong type or shape; the message says what was expected."""


class _OutOfTimeError(BaseException):
    """A probe ran past its budget (a BaseException, so that ``except Exception`` lets it by)."""


@contextmanager
def _time_limit(seconds: float | None) -> Iterator[None]:
    """Raise _OutOfTimeError in the main thread after ``seconds`` (no limit where signals
    cannot be used)."""
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if seconds is None or not usable:
        yield
        return

    def alarm(signum: int, frame: Any) -> None:
        raise _OutOfTimeError

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# ----------------------------------------------------------------------------------------------
# Evaluating the student's names
# ----------------------------------------------------------------------------------------------


def collect(
    namespace: Mapping[str, Any], probes: Sequence[Mapping[str, Any]]
) -> dict[str, list[dict[str, Any]]]:
    """Evaluate every probe; per probe key, one ``{"v": value}`` or ``{"e": why}`` per call."""
    return {str(p["key"]): evaluate(namespace, p) for p in probes}


def evaluate(namespace: Mapping[str, Any], probe: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Evaluate one probe: its name's value, or one result per call.

    A probe with ``budget_s`` (a follow-through probe of an earlier part's function) gives up
    after that many seconds: an earlier function that never returns costs its own part only.
    """
    name, kind, calls = str(probe["name"]), str(probe["kind"]), probe.get("calls")
    if name not in namespace:
        return [{"e": NOT_DEFINED.format(name=name)}]
    obj = namespace[name]
    if calls is None:
        return [encode(kind, obj, None, name)]
    if not callable(obj):
        return [{"e": NOT_A_FUNCTION.format(name=name)}]
    budget = probe.get("budget_s")
    try:
        with _time_limit(float(budget) if budget else None):
            return [_call(obj, name, kind, args) for args in calls]
    except _OutOfTimeError:
        return [{"e": TOO_SLOW.format(name=name, seconds=budget)}]


def _call(obj: Any, name: str, kind: str, args: Sequence[Any]) -> dict[str, Any]:
    actual, shape = arguments(args)
    try:
        value = obj(*actual)
    except NotImplementedError:
        return {"e": NOT_IMPLEMENTED.format(name=name)}
    except (Exception, SystemExit) as exc:
        message = RAISED.format(name=name, error=type(exc).__name__, message=exc)
        if shape is not None:
            message = NOT_ELEMENTWISE.format(name=name, problem=message)
        return {"e": _truncate(message)}
    return encode(kind, value, shape, name)


def arguments(args: Sequence[Any]) -> tuple[list[Any], tuple[int, ...] | None]:
    """Lists become numpy arrays; the broadcast shape, or None when every argument is a scalar."""
    if not any(isinstance(a, list) for a in args):
        return list(args), None
    import numpy as np

    actual = [np.asarray(a) if isinstance(a, list) else a for a in args]
    return actual, tuple(np.broadcast_shapes(*(np.shape(a) for a in actual)))


def _truncate(text: str) -> str:
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"


def encode(kind: str, value: Any, shape: tuple[int, ...] | None, name: str) -> dict[str, Any]:
    try:
        if kind == "figure":
            return {"v": _figure(value, name)}
        if shape is None:
            return {"v": _scalar(kind, value, name)}
        return {"v": _array(kind, value, shape, name)}
    except _BadAnswerError as bad:
        return {"e": _truncate(str(bad))}
    except Exception as exc:  # an answer whose conversion itself fails
        return {"e": _truncate(UNREADABLE.format(name=name, error=type(exc).__name__, message=exc))}


def _type_name(value: Any) -> str:
    return type(value).__name__


def _scalar(kind: str, value: Any, name: str) -> float | bool:
    np = sys.modules.get("numpy")
    if np is not None and isinstance(value, np.ndarray):
        if value.ndim != 0:
            raise _BadAnswerError(NOT_SCALAR.format(name=name))
        value = value[()]
    is_bool = isinstance(value, bool) or (np is not None and isinstance(value, np.bool_))
    if kind == "bool":
        if not is_bool:
            raise _BadAnswerError(NOT_BOOL.format(name=name, type=_type_name(value)))
        return bool(value)
    numpy_number = np is not None and isinstance(value, np.integer | np.floating)
    if is_bool or not (isinstance(value, numbers.Real) or numpy_number):
        raise _BadAnswerError(NOT_NUMBER.format(name=name, type=_type_name(value)))
    return float(value)


def _array(kind: str, value: Any, shape: tuple[int, ...], name: str) -> list[Any]:
    import numpy as np

    if not isinstance(value, np.ndarray):
        raise _BadAnswerError(NOT_ARRAY.format(name=name, type=_type_name(value)))
    if value.shape != shape:
        raise _BadAnswerError(WRONG_SHAPE.format(shape=shape, name=name, got=value.shape))
    if kind == "bool":
        if value.dtype.kind != "b":
            raise _BadAnswerError(NOT_BOOL_ARRAY.format(name=name))
        flags: list[Any] = np.asarray(value, dtype=bool).tolist()
        return flags
    if value.dtype.kind not in "iuf":
        raise _BadAnswerError(NOT_NUMBER_ARRAY.format(name=name, dtype=value.dtype))
    numbers: list[Any] = np.asarray(value, dtype=np.float64).tolist()
    return numbers


def _figure(value: Any, name: str) -> dict[str, Any]:
    import matplotlib.figure
    import numpy as np
    from matplotlib.collections import LineCollection

    if not isinstance(value, matplotlib.figure.Figure):
        raise _BadAnswerError(NOT_FIGURE.format(name=name, type=_type_name(value)))
    axes = []
    for ax in value.get_axes():
        lines: list[dict[str, Any]] = []
        for line in ax.get_lines():
            lines.append(_line(np, line.get_xdata(), line.get_ydata(), line.get_label()))
        for collection in ax.collections:
            if isinstance(collection, LineCollection):
                for segment in collection.get_segments():
                    seg = np.asarray(segment, dtype=float)
                    lines.append(_line(np, seg[:, 0], seg[:, 1], collection.get_label()))
        axes.append(
            {
                "xlabel": str(ax.get_xlabel()),
                "ylabel": str(ax.get_ylabel()),
                "title": str(ax.get_title()),
                "lines": lines[:MAX_LINES],
            }
        )
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close(value)
    return {"axes": axes}


def _line(np: Any, x: Any, y: Any, label: Any) -> dict[str, Any]:
    try:
        xs = np.asarray(x, dtype=np.float64).ravel()[:MAX_POINTS]
        ys = np.asarray(y, dtype=np.float64).ravel()[:MAX_POINTS]
    except (TypeError, ValueError):
        return {"x": [], "y": [], "label": str(label)}
    return {"x": xs.tolist(), "y": ys.tolist(), "label": str(label)}
