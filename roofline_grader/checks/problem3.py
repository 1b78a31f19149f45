"""Problem 3: achievable FLOP/s against batch size for Problem 2's matmul, and its plot.

Reference: ``roofline_lib.analyze(roofline_lib.matmul(B, D, F, "w8a16"), chip)
.achievable_flops_per_s`` with Problem 2's givens (chapter.PROBLEM_2). The figure is judged from the
data of its lines and its axis labels, as the kernel extracted them.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from roofline_lib import analyze, chapter, matmul

from .base import (
    NO_ANSWER_FOR,
    NOT_A_FIGURE,
    RTOL,
    Answers,
    Carried,
    Cause,
    Check,
    FigureShows,
    Finding,
    Part,
    Plan,
    Probe,
    all_close,
    call_probe,
    carried_note,
    compare,
    expect_figure,
    log_int,
    own_probe,
    own_values,
    shapes_of,
)
from .problem2 import CHIP

PEAK = CHIP.peak("bf16")
BANDWIDTH = CHIP.hbm_bandwidth_bytes_per_s
SHAPES = chapter.PROBLEM_3_SHAPES
B_RANGE = (1, 512)
"""The statement's batch sizes: every integer B from 1 to 512."""
MIN_POINTS = 50


def reference(B: Any, D: Any, F: Any) -> np.ndarray:
    """Achievable FLOP/s of bf16[B, D] × int8[D, F] → bf16[B, F] on Problem 2's figures."""
    return np.asarray(analyze(matmul(B, D, F, "w8a16"), CHIP).achievable_flops_per_s, dtype=float)


def _plan_function(rng: random.Random) -> list[Probe]:
    batches = list(range(1, 513))
    scalars = [
        (log_int(rng, 1, 4096), log_int(rng, 1, 65536), log_int(rng, 1, 65536)) for _ in range(6)
    ]
    arrays = tuple([log_int(rng, 1, hi) for _ in range(8)] for hi in (4096, 65536, 65536))
    calls = [(batches, 4096, 4096), (batches, 1024, 1024), *scalars, arrays]
    return [call_probe("achievable_flops_per_s", calls)]


def _verify_function(plan: Plan, answers: Answers) -> list[Finding]:
    probe = plan["achievable_flops_per_s"]
    shapes = shapes_of(probe)
    B, D, F = (np.array(x, dtype=float) for x in zip(*shapes, strict=True))
    exact_bytes = 2 * B * D + D * F + 2 * B * F
    return [
        compare(
            "achievable_flops_per_s(B, D, F) on unseen shapes, scalars and arrays",
            probe,
            answers,
            reference(B, D, F).tolist(),
            "achievable FLOP/s is the FLOPs divided by max(T_math, T_comms), with exact bytes for "
            "bf16 X, int8 Y and bf16 Z",
            [
                (
                    "use exact bytes, 2·B·D + D·F + 2·B·F, not only the weights",
                    np.minimum(PEAK, 2 * B * BANDWIDTH).tolist(),
                ),
                (
                    "achievable FLOP/s can never exceed the peak: a compute-bound matmul runs at "
                    "the peak, not faster",
                    (2 * B * D * F / exact_bytes * BANDWIDTH).tolist(),
                ),
                (
                    "the weights are int8, one byte per element",
                    np.minimum(
                        PEAK, 2 * B * D * F / (2 * B * D + 2 * D * F + 2 * B * F) * BANDWIDTH
                    ).tolist(),
                ),
            ],
        )
    ]


def _plan_figure(rng: random.Random) -> list[Probe]:
    return [call_probe("plot_roofline", [()], kind="figure")]


BATCHES = list(range(B_RANGE[0], B_RANGE[1] + 1))


def _plan_curves(rng: random.Random) -> list[Probe]:
    """The figure, and the student's own achievable_flops_per_s along each curve (follow-through:
    a curve of their own function, wrong in part (a), is right for part (b))."""
    own = [
        own_probe("achievable_flops_per_s", [(BATCHES, D, D)], key=f"own:curve{D}") for D in SHAPES
    ]
    return [*_plan_figure(rng), *own]


def _figure(answers: Answers) -> tuple[Mapping[str, Any] | None, str]:
    results = answers.get("plot_roofline")
    if not results:
        return None, NO_ANSWER_FOR.format(name="plot_roofline")
    if "e" in results[0]:
        return None, str(results[0]["e"])
    figure = results[0].get("v")
    if not isinstance(figure, Mapping) or not isinstance(figure.get("axes"), list):
        return None, NOT_A_FIGURE.format(name="plot_roofline")
    return figure, ""


def _lines(figure: Mapping[str, Any]) -> list[tuple[list[float], list[float]]]:
    out = []
    for ax in figure["axes"]:
        for line in ax.get("lines", []):
            x, y = line.get("x"), line.get("y")
            if isinstance(x, list) and isinstance(y, list) and len(x) == len(y) and x:
                out.append((x, y))
    return out


def _batch_sizes(x: Sequence[float]) -> np.ndarray | None:
    """The line's x values if they are whole batch sizes spanning the statement's range."""
    xs = np.asarray(x, dtype=float)
    if len(xs) < MIN_POINTS or not np.all(np.isfinite(xs)) or np.any(xs != np.round(xs)):
        return None
    if xs.min() > B_RANGE[0] + 1 or xs.max() < B_RANGE[1] - 12 or xs.min() < B_RANGE[0]:
        return None
    return xs


def _follows(y: Sequence[float], want: np.ndarray) -> bool:
    got = np.asarray(y, dtype=float)
    return got.shape == want.shape and bool(np.all(np.abs(got - want) <= RTOL * np.abs(want)))


def _is_curve(x: Sequence[float], y: Sequence[float], D: int) -> bool:
    xs = _batch_sizes(x)
    return xs is not None and _follows(y, reference(xs, D, D))


def _is_own_curve(x: Sequence[float], y: Sequence[float], own: Sequence[float]) -> bool:
    """Whether the line is the student's own function along the batch sizes it covers."""
    xs = _batch_sizes(x)
    if xs is None or xs.max() > B_RANGE[1] or len(own) != len(BATCHES):
        return False
    return _follows(y, np.asarray(own, dtype=float)[xs.astype(int) - B_RANGE[0]])


def _verify_curves(plan: Plan, answers: Answers) -> list[Finding]:
    for D in SHAPES:
        expect_figure(
            plan["plot_roofline"], _curve_label(D), curve_hint(D), Carried(None, "part (a)")
        )
    figure, why = _figure(answers)
    if figure is None:
        return [Finding(_curve_label(D), False, why, Cause.NO_ANSWER) for D in SHAPES]
    lines = _lines(figure)
    findings = []
    for D in SHAPES:
        label = _curve_label(D)
        if any(_is_curve(x, y, D) for x, y in lines):
            findings.append(Finding(label, True))
            continue
        own = own_values(answers, f"own:curve{D}")
        wrong_own = own is not None and not all_close(
            own, reference(np.array(BATCHES), D, D).tolist()
        )
        if own is not None and wrong_own and any(_is_own_curve(x, y, own) for x, y in lines):
            findings.append(Finding(label, True, carried_note("part (a)"), Cause.CARRIED))
            continue
        findings.append(Finding(label, False, curve_hint(D), Cause.WRONG))
    return findings


def _curve_label(D: int) -> str:
    return f"the curve for D = F = {D}"


CURVE_HINT = (
    "no line matches achievable FLOP/s for D = F = {D}: plot it at every whole batch size from "
    "B = {low} to B = {high}, with exact bytes"
)
"""The hint of a missing curve (a template: the Chinese catalog translates it once for every D)."""


def curve_hint(D: int) -> str:
    return CURVE_HINT.format(D=D, low=B_RANGE[0], high=B_RANGE[1])


PEAK_LINE_HINT = "draw a horizontal line at the bf16 peak, e.g. with ax.axhline"
LABELS_HINT = (
    "label both axes (batch size B; achievable FLOP/s), e.g. with ax.set_xlabel and ax.set_ylabel"
)


def _is_peak_line(x: Sequence[float], y: Sequence[float]) -> bool:
    ys = [v for v in y if isinstance(v, float) and math.isfinite(v)]
    return len(ys) == len(y) and len(ys) >= 2 and all(abs(v - PEAK) <= RTOL * PEAK for v in ys)


def _verify_peak_and_labels(plan: Plan, answers: Answers) -> list[Finding]:
    expect_figure(plan["plot_roofline"], "the peak line", PEAK_LINE_HINT)
    expect_figure(plan["plot_roofline"], "labelled axes", LABELS_HINT)
    figure, why = _figure(answers)
    if figure is None:
        return [
            Finding("the peak line", False, why, Cause.NO_ANSWER),
            Finding("labelled axes", False, why, Cause.NO_ANSWER),
        ]
    labelled = bool(figure["axes"]) and all(
        str(ax.get("xlabel", "")).strip() and str(ax.get("ylabel", "")).strip()
        for ax in figure["axes"]
    )
    peak = any(_is_peak_line(x, y) for x, y in _lines(figure))
    return [
        _shown("the peak line", peak, PEAK_LINE_HINT),
        _shown("labelled axes", labelled, LABELS_HINT),
    ]


def _shown(label: str, passed: bool, hint: str) -> Finding:
    """A figure check: passed with no note, or failed with its hint."""
    return Finding(label, True) if passed else Finding(label, False, hint, Cause.WRONG)


TITLE = "The roofline of Problem 2"
"""The notebook header's title, after "Problem 3 · "."""
QUESTION = (
    "How fast can Problem 2's matmul run at each batch size, and where does it reach the peak? "
    "Compute it, then plot it."
)
"""The question under the title (the header is rendered from checks/header.md)."""
TITLE_ZH = "习题 2 的 Roofline 图"
"""The Chinese header's title, after "习题 3 · "."""
QUESTION_ZH = "习题 2 的矩阵乘法在每个批大小下最快能跑多快，又在哪里达到峰值？先算出来，再画出来。"
"""The question in Chinese (rendered from checks/header.zh_CN.md, below the English)."""

PARTS = (
    Part(
        "p3a_function",
        "problem3",
        "a",
        "achievable FLOP/s as a function of B, D and F",
        points=3,
        check=Check(
            _plan_function,
            _verify_function,
            visible_calls=(
                call_probe(
                    "achievable_flops_per_s", [(1, 1, 1), (10**6, 4096, 4096), ([1, 10**6], 1, 1)]
                ),
            ),
        ),
    ),
    Part(
        "p3b_curves",
        "problem3",
        "b",
        "the figure's two curves",
        points=2,
        check=Check(
            _plan_curves,
            _verify_curves,
            visible_values=tuple(
                FigureShows(
                    "plot_roofline",
                    "curve",
                    curve_hint(D),
                    f"achievable_flops_per_s(B, {D}, {D})",
                    B_RANGE,
                    "B",
                )
                for D in SHAPES
            ),
        ),
    ),
    Part(
        "p3c_peak_and_labels",
        "problem3",
        "c",
        "the figure's peak line and axis labels",
        points=1,
        check=Check(
            _plan_figure,
            _verify_peak_and_labels,
            visible_values=(
                FigureShows("plot_roofline", "flat_line", PEAK_LINE_HINT, "PEAK_BF16_FLOPS_PER_S"),
                FigureShows("plot_roofline", "labels", LABELS_HINT),
            ),
        ),
    ),
)
