"""The kernel side of a hidden test: what counts as an answer, and the local (unsealed) mode."""

from __future__ import annotations

import json
from fractions import Fraction

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest

from roofline_grader import hidden
from roofline_grader.hidden import collect

matplotlib.use("Agg")


def answer(value_or_function: object, calls: list | None = None, kind: str = "number") -> list:
    probe = {"key": "x", "name": "x", "kind": kind, "calls": calls}
    return json.loads(json.dumps(collect({"x": value_or_function}, [probe])))["x"]


class AlwaysEqual:
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = object.__hash__


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (3, 3.0),
        (2.5, 2.5),
        (np.float32(0.5), 0.5),
        (np.int64(7), 7.0),
        (np.array(4.0), 4.0),
        (Fraction(1, 4), 0.25),
    ],
)
def test_real_numbers_are_sent_as_floats(value: object, expected: float) -> None:
    assert answer(value) == [{"v": expected}]


@pytest.mark.parametrize(
    ("value", "why"),
    [
        (True, "not a bool"),
        ("8", "not a str"),
        (None, "not a NoneType"),
        (AlwaysEqual(), "not a AlwaysEqual"),
        (1 + 2j, "not a complex"),
        (np.array([1.0, 2.0]), "single value here, not an array"),
    ],
)
def test_anything_else_is_refused_with_a_reason(value: object, why: str) -> None:
    (result,) = answer(value)
    assert set(result) == {"e"} and why in result["e"], result


def test_functions_are_called_with_arrays_where_the_plan_says_so() -> None:
    got = answer(lambda b, d: b * d, [[[1, 2, 3], 2], [4, 5]])
    assert got == [{"v": [2.0, 4.0, 6.0]}, {"v": 20.0}]
    (bad,) = answer(lambda b, d: [x * d for x in b], [[[1, 2], 3]])
    assert "should return a numpy array of the same shape" in bad["e"]
    (wrong_shape,) = answer(lambda b, d: np.zeros(5), [[[1, 2], 3]])
    assert "returned shape (5,)" in wrong_shape["e"]


def test_a_function_that_raises_is_reported_not_fatal() -> None:
    def broken(b: int) -> float:
        return 1 / 0

    def unanswered(b: int) -> float:
        raise NotImplementedError

    assert "raised ZeroDivisionError: division by zero" in answer(broken, [[1]])[0]["e"]
    assert "not implemented yet" in answer(unanswered, [[1]])[0]["e"]
    assert "should be a function" in answer(3, [[1]])[0]["e"]
    assert (
        "is not defined"
        in collect({}, [{"key": "y", "name": "y", "kind": "number", "calls": None}])["y"][0]["e"]
    )


def test_booleans_must_be_true_or_false() -> None:
    assert answer(lambda n: n > 2, [[[1, 5]], [3]], "bool") == [{"v": [False, True]}, {"v": True}]
    assert "True or False" in answer(lambda n: 1, [[3]], "bool")[0]["e"]


def test_a_figure_is_sent_as_its_lines_and_labels() -> None:
    def draw() -> object:
        fig, ax = plt.subplots()
        ax.plot([1, 2, 3], [4, 5, 6], label="curve")
        ax.axhline(7.0)
        ax.hlines(8.0, 0, 1)
        ax.set_xlabel("B")
        return fig

    (result,) = answer(draw, [[]], "figure")
    (ax,) = result["v"]["axes"]
    assert ax["xlabel"] == "B" and ax["ylabel"] == ""
    assert [line["y"] for line in ax["lines"]] == [[4.0, 5.0, 6.0], [7.0, 7.0], [8.0, 8.0]]
    assert "should return the matplotlib Figure" in answer(lambda: 3, [[]], "figure")[0]["e"]


def test_local_mode_judges_in_the_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(hidden.PLAN_ENV, raising=False)
    right = {"ops": lambda B, D, F: 2 * B * D * F}
    hidden.check("p1b_ops", right)
    with pytest.raises(AssertionError, match="a multiply-add counts as two operations"):
        hidden.check("p1b_ops", {"ops": lambda B, D, F: B * D * F})


def test_sealed_mode_only_reports_answers(
    monkeypatch: pytest.MonkeyPatch, tmp_path, capsys
) -> None:
    plan = tmp_path / "plan.json"
    probe = {"key": "ops", "name": "ops", "kind": "number", "calls": [[1, 2, 3]]}
    plan.write_text(json.dumps({"p1b_ops": [probe]}))
    monkeypatch.setenv(hidden.PLAN_ENV, str(plan))
    hidden.check("p1b_ops", {"ops": lambda B, D, F: 0})  # wrong, but nothing is judged here
    record = capsys.readouterr().out
    assert "p1b_ops" in record and "0.0" in record
