"""Where a pass's time goes: one bar group per operation of a prefill or a decode step.

Each operation of :class:`~roofline_lib.transformer.analysis.Pass` gets three bars, summed over
the pass (``count`` × one run, so a layer's operation counts all L layers), on one chip:

* T_math = FLOPs / C (the chip's dense peak in the activations' dtype);
* T_HBM = HBM bytes / W_HBM;
* T_net = network bytes / W_link (tensor-parallel all-reduces only).

The operation's lower bound is the longest of its three bars; the title gives the pass's total
lower bound, the sum of its operations' own bounds.
"""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from .. import palette
from ..fmt import format_quantity
from ..plots import axes_or_new, figure_of, fit_figure, legend_below
from .analysis import InferenceEstimate, Pass

PHASES = ("prefill", "decode")
"""The passes a figure can show: a prefill of B prompts, or one decode step of B requests."""

BAR_HEIGHT = 0.26
"""Each of an operation's three bars, as a fraction of the spacing between operations."""


def pass_of(estimate: InferenceEstimate, phase: str) -> Pass:
    """The estimate's prefill or decode pass; ``phase`` must be one of :data:`PHASES`."""
    if phase not in PHASES:
        raise ValueError(f"phase must be one of {', '.join(map(repr, PHASES))}, got {phase!r}")
    chosen: Pass = getattr(estimate, phase)
    if np.ndim(chosen.t_lower_s) != 0:
        raise ValueError(
            "plot one configuration at a time: batch, context and prompt must be scalars, got "
            f"arrays of shape {np.shape(chosen.t_lower_s)}"
        )
    return chosen


def plot_pass_times(
    estimate: InferenceEstimate, phase: str = "decode", ax: Axes | None = None
) -> Figure:
    """Horizontal bars of T_math, T_HBM and T_net per operation of one pass, per chip, in the
    operations' order, with the pass's lower bound (Σ max(T_math, T_HBM, T_net)) in the title."""
    step = pass_of(estimate, phase)
    ax = axes_or_new(ax)
    names = [op.name for op in step.operations]
    rows = np.arange(len(names))[::-1]
    bars = (
        ("T_math (compute)", "t_math_s", palette.REGIONS["compute"]),
        ("T_HBM (memory)", "t_hbm_s", palette.REGIONS["memory"]),
        ("T_net (all-reduce)", "t_network_s", palette.OKABE_ITO["blue"]),
    )
    for offset, (label, attribute, color) in zip((-1, 0, 1), bars, strict=True):
        seconds = [float(getattr(op, attribute)) * op.count for op in step.operations]
        ax.barh(rows - offset * BAR_HEIGHT, seconds, BAR_HEIGHT, color=color, label=label)
    ax.set_yticks(rows, names)
    ax.set_xscale("symlog", linthresh=_linear_below(step))
    ax.set_xlim(left=0)
    ax.set_xlabel("Time per chip, all layers (s)")
    ax.xaxis.set_major_formatter(lambda v, _: format_quantity(v, "s", 2) if v > 0 else "0")
    what = (
        f"a prefill of {int(step.tokens):,} tokens"
        if phase == "prefill"
        else f"one decode step of B = {float(step.batch):g}"
    )
    where = (
        f"{estimate.n_chips} × {estimate.chip.name}" if estimate.n_chips > 1 else estimate.chip.name
    )
    ax.set_title(
        f"{estimate.model.name}, {what} on {where}: "
        f"≥ {format_quantity(float(step.t_lower_s), 's', 3)}, {step.regime}"
    )
    legend_below(ax, ncols=2)
    fig = figure_of(ax)
    fit_figure(fig)
    return fig


def _linear_below(step: Pass) -> float:
    """The symlog axis's linear range: a thousandth of the longest bar, so that bars three orders
    of magnitude apart all show, and a zero (no network) sits at the axis."""
    longest = max(
        float(getattr(op, attribute)) * op.count
        for op in step.operations
        for attribute in ("t_math_s", "t_hbm_s", "t_network_s")
    )
    return longest / 1e3 if longest > 0 else 1.0
