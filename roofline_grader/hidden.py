"""The kernel side of a hidden test: ``check(grade_id, globals())``.

A grade cell's hidden region (restored from the gradebook at grading time) calls this in the
student's kernel. It evaluates the student's names on the inputs of the part's plan and reduces every
answer to plain data: a float (after checking it is a real number and not a bool), a list of floats
(after checking it is a numpy array of the inputs' broadcast shape), True/False, or the lines and
labels of a matplotlib figure. What happens next depends on who runs the notebook:

* **Sealed** (``ROOFLINE_CHECK_PLAN`` names the plan file the grader wrote): the answers are sent
  back as one display output of type :data:`RECORD_MIME` and nothing is judged here. The grader
  (:class:`roofline_grader.execute.SealedExecute`) judges them in its own process, against
  references it computed before any student code ran, so nothing the kernel does can pass a check
  except answers that are right on shapes chosen for this student.
* **Local** (``nbgrader validate`` on a source notebook, or any kernel without a plan): a plan is
  drawn at random, judged in this kernel, and a failure raises AssertionError listing the hints.
  This mode is a convenience for authors and is not tamper-proof.

This module imports only the standard library at import time; numpy and matplotlib are imported
when an answer needs them.
"""

from __future__ import annotations

import json
import numbers
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any

RECORD_MIME = "text/x-roofline-answers"
"""MIME type of the display output that carries a hidden test's answers back to the grader."""
PLAN_ENV = "ROOFLINE_CHECK_PLAN"
"""Environment variable with the path of the plan file, in a kernel started by the grader."""
MAX_LINES = 64
MAX_POINTS = 4096
MAX_MESSAGE = 300


class _BadAnswerError(Exception):
    """An answer of the wrong type or shape; the message says what was expected."""


def check(grade_id: str, namespace: Mapping[str, Any]) -> None:
    """Run the hidden test of part ``grade_id`` against the student's ``namespace``."""
    plan_path = os.environ.get(PLAN_ENV)
    if plan_path:
        _sealed(grade_id, namespace, plan_path)
    else:
        _local(grade_id, namespace)


def _sealed(grade_id: str, namespace: Mapping[str, Any], plan_path: str) -> None:
    with open(plan_path, encoding="utf-8") as fh:
        plans = json.load(fh)
    if grade_id not in plans:
        raise RuntimeError(f"the grader sent no plan for {grade_id}")
    record = {"grade_id": grade_id, "answers": collect(namespace, plans[grade_id])}
    from IPython.display import display

    display({RECORD_MIME: json.dumps(record)}, raw=True)


def _local(grade_id: str, namespace: Mapping[str, Any]) -> None:
    from roofline_grader.checks import get_part, make_plan

    part = get_part(grade_id)
    if part.check is None:
        raise ValueError(f"{grade_id} is graded by hand; it has no hidden test")
    plan = make_plan(part.check, f"local:{os.urandom(8).hex()}")
    answers = json.loads(json.dumps(collect(namespace, [p.to_json() for p in plan.values()])))
    failed = [f for f in part.check.verify(plan, answers) if not f.passed]
    if failed:
        raise AssertionError("\n".join(f"{f.label}: {f.hint}" for f in failed))


# ----------------------------------------------------------------------------------------------
# Evaluating the student's names
# ----------------------------------------------------------------------------------------------


def collect(
    namespace: Mapping[str, Any], probes: Sequence[Mapping[str, Any]]
) -> dict[str, list[dict[str, Any]]]:
    """Evaluate every probe; per probe key, one ``{"v": value}`` or ``{"e": why}`` per call."""
    return {str(p["key"]): _evaluate(namespace, p) for p in probes}


def _evaluate(namespace: Mapping[str, Any], probe: Mapping[str, Any]) -> list[dict[str, Any]]:
    name, kind, calls = str(probe["name"]), str(probe["kind"]), probe.get("calls")
    if name not in namespace:
        return [{"e": f"{name} is not defined: run the answer cell that defines it"}]
    obj = namespace[name]
    if calls is None:
        return [_encode(kind, obj, None, name)]
    if not callable(obj):
        return [{"e": f"{name} should be a function"}]
    results = []
    for args in calls:
        actual, shape = _arguments(args)
        try:
            value = obj(*actual)
        except NotImplementedError:
            results.append({"e": f"{name} is not implemented yet (it raises NotImplementedError)"})
            continue
        except (Exception, SystemExit) as exc:
            message = f"calling {name} raised {type(exc).__name__}: {exc}"
            if shape is not None:
                message = (
                    f"given numpy arrays, {name} must work elementwise (use numpy functions such as "
                    f"np.maximum, np.minimum, np.ceil, not max, min, math.ceil); {message}"
                )
            results.append({"e": _truncate(message)})
            continue
        results.append(_encode(kind, value, shape, name))
    return results


def _arguments(args: Sequence[Any]) -> tuple[list[Any], tuple[int, ...] | None]:
    """Lists become numpy arrays; the broadcast shape, or None when every argument is a scalar."""
    if not any(isinstance(a, list) for a in args):
        return list(args), None
    import numpy as np

    actual = [np.asarray(a) if isinstance(a, list) else a for a in args]
    return actual, tuple(np.broadcast_shapes(*(np.shape(a) for a in actual)))


def _truncate(text: str) -> str:
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"


def _encode(kind: str, value: Any, shape: tuple[int, ...] | None, name: str) -> dict[str, Any]:
    try:
        if kind == "figure":
            return {"v": _figure(value, name)}
        if shape is None:
            return {"v": _scalar(kind, value, name)}
        return {"v": _array(kind, value, shape, name)}
    except _BadAnswerError as bad:
        return {"e": _truncate(str(bad))}
    except Exception as exc:  # an answer whose conversion itself fails
        return {"e": _truncate(f"{name}: could not read the answer ({type(exc).__name__}: {exc})")}


def _type_name(value: Any) -> str:
    return type(value).__name__


def _scalar(kind: str, value: Any, name: str) -> float | bool:
    np = sys.modules.get("numpy")
    if np is not None and isinstance(value, np.ndarray):
        if value.ndim != 0:
            raise _BadAnswerError(f"{name} should give a single value here, not an array")
        value = value[()]
    is_bool = isinstance(value, bool) or (np is not None and isinstance(value, np.bool_))
    if kind == "bool":
        if not is_bool:
            raise _BadAnswerError(f"{name} should be True or False, not a {_type_name(value)}")
        return bool(value)
    numpy_number = np is not None and isinstance(value, np.integer | np.floating)
    if is_bool or not (isinstance(value, numbers.Real) or numpy_number):
        raise _BadAnswerError(f"{name} should be a number, not a {_type_name(value)}")
    return float(value)


def _array(kind: str, value: Any, shape: tuple[int, ...], name: str) -> list[Any]:
    import numpy as np

    if not isinstance(value, np.ndarray):
        raise _BadAnswerError(
            f"given numpy arrays, {name} should return a numpy array of the same shape, not a "
            f"{_type_name(value)} (use numpy operations such as np.maximum, not max)"
        )
    if value.shape != shape:
        raise _BadAnswerError(f"given arrays of shape {shape}, {name} returned shape {value.shape}")
    if kind == "bool":
        if value.dtype.kind != "b":
            raise _BadAnswerError(f"{name} should return an array of True/False values")
        return np.asarray(value, dtype=bool).tolist()
    if value.dtype.kind not in "iuf":
        raise _BadAnswerError(
            f"{name} should return an array of numbers, not of dtype {value.dtype}"
        )
    return np.asarray(value, dtype=np.float64).tolist()


def _figure(value: Any, name: str) -> dict[str, Any]:
    import matplotlib.figure
    import numpy as np
    from matplotlib.collections import LineCollection

    if not isinstance(value, matplotlib.figure.Figure):
        raise _BadAnswerError(
            f"{name}() should return the matplotlib Figure it drew, not a {_type_name(value)}"
        )
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
