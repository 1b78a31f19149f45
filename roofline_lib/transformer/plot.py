"""Where a pass's time goes (:func:`plot_pass_times`), and what a decode step reads as the
context grows (:func:`plot_decode_bytes`).

:func:`plot_pass_times` draws one bar group per operation of a prefill or a decode step.

Each operation of :class:`~roofline_lib.transformer.analysis.Pass` gets three bars, summed over
the pass (``count`` × one run, so a layer's operation counts all L layers), on one chip:

* T_math = FLOPs / C (the chip's dense peak in the activations' dtype);
* T_HBM = HBM bytes / W_HBM;
* T_net = network bytes / W_link (tensor-parallel all-reduces only).

The operation's lower bound is the longest of its three bars; the title gives the pass's total
lower bound, the sum of its operations' own bounds.

:func:`plot_decode_bytes` draws, against the context S, the HBM bytes one decode step of B
requests reads on one chip: the weights (constant in S), the KV cache (B·S·2·L·(H_kv/N)·d·s_kv,
linear in S) and the step's total, with the contexts at which the batch no longer fits in HBM
shaded.
"""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from .. import palette
from ..fmt import format_quantity
from ..plots import axes_or_new, figure_of, fit_figure, legend_below, log_axes
from ..words import say
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
    if np.ndim(chosen.t_bound_s) != 0:
        raise ValueError(
            "plot one configuration at a time: batch, context and prompt must be scalars, got "
            f"arrays of shape {np.shape(chosen.t_bound_s)}"
        )
    return chosen


def plot_pass_times(
    estimate: InferenceEstimate, phase: str = "decode", ax: Axes | None = None
) -> Figure:
    """Horizontal bars of T_math, T_HBM and T_net per operation of one pass, per chip, in the
    operations' order, with the pass's roofline bound (:attr:`Pass.t_bound_s`) and the
    resource that sets it in the title."""
    step = pass_of(estimate, phase)
    ax = axes_or_new(ax)
    names = [op.name for op in step.operations]
    rows = np.arange(len(names))[::-1]
    bars = (
        (say("T_math (compute)"), "t_math_s", palette.REGIONS["compute"]),
        (say("T_HBM (memory)"), "t_hbm_s", palette.REGIONS["memory"]),
        (say("T_net (all-reduce)"), "t_network_s", palette.OKABE_ITO["blue"]),
    )
    for offset, (label, attribute, color) in zip((-1, 0, 1), bars, strict=True):
        seconds = [float(getattr(op, attribute)) * op.count for op in step.operations]
        ax.barh(rows - offset * BAR_HEIGHT, seconds, BAR_HEIGHT, color=color, label=label)
    ax.set_yticks(rows, [say(name) for name in names])
    # A log axis, every bar starting at its left edge: times that span several orders of magnitude
    # all show, and no tick claims a zero a log axis cannot have. A time below the edge (a zero:
    # no network on one chip) draws no bar.
    ax.set_xscale("log")
    ax.set_xlim(left=_axis_floor(step))
    ax.set_xlabel(say("Time per chip, all layers (s)"))
    ax.xaxis.set_major_formatter(lambda v, _: format_quantity(v, "s", 2) if v > 0 else "")
    what = (
        say("a prefill of {tokens} tokens", tokens=f"{int(step.tokens):,}")
        if phase == "prefill"
        else say("one decode step of B = {batch}", batch=f"{float(step.batch):g}")
    )
    ax.set_title(
        say(
            "{model}, {what} on {where}: ≥ {time}, {regime}",
            model=estimate.model.name,
            what=what,
            where=_where(estimate),
            time=format_quantity(float(step.t_bound_s), "s", 3),
            regime=say(str(step.regime)),
        )
    )
    legend_below(ax, ncols=2)
    fig = figure_of(ax)
    fit_figure(fig)
    return fig


def _where(estimate: InferenceEstimate) -> str:
    """'8 × H100 SXM', or the chip's name on one chip."""
    chip = estimate.chip.name
    return f"{estimate.n_chips} × {chip}" if estimate.n_chips > 1 else chip


def _axis_floor(step: Pass) -> float:
    """The log axis's left edge, where every bar starts: the decade at or below a ten-thousandth
    of the longest bar, so that bars four orders of magnitude shorter still show."""
    longest = max(
        float(getattr(op, attribute)) * op.count
        for op in step.operations
        for attribute in ("t_math_s", "t_hbm_s", "t_network_s")
    )
    if longest <= 0:
        return 1e-9
    return float(10 ** np.floor(np.log10(longest / 1e4)))


def one_batch(estimate: InferenceEstimate) -> float:
    """The estimate's batch B, refused unless it is one value (estimate_inference broadcasts a
    scalar batch against an array of contexts)."""
    batches = np.unique(np.asarray(estimate.batch))
    if batches.size != 1:
        raise ValueError(
            f"one batch at a time: got batches {', '.join(f'{b:g}' for b in batches)}; pass a "
            "scalar batch"
        )
    return float(batches[0])


def kv_equals_weights_context(estimate: InferenceEstimate) -> float:
    """The context S at which one decode step reads as many KV-cache bytes as weight bytes, per
    chip: S = weight bytes / (KV-cache bytes per token of context), the KV cache's bytes being
    B·S·2·L·(H_kv/N)·d·s_kv, linear in S. Needs one batch (a scalar, or an array of one value
    broadcast against the contexts)."""
    one_batch(estimate)
    step = estimate.decode
    per_token = np.asarray(step.kv_read_bytes, dtype=np.float64) / np.asarray(estimate.context)
    weights = np.asarray(step.weight_bytes, dtype=np.float64)
    return float(np.ravel(weights / per_token)[0])


def longest_context_that_fits(estimate: InferenceEstimate) -> float:
    """The context S at which the estimate's batch B fills each chip's HBM:
    S = (capacity − weights per chip) / (B · KV-cache bytes per token / N), the boundary of
    :attr:`InferenceEstimate.fits_in_hbm` (0 when the weights alone do not fit)."""
    batch = one_batch(estimate)
    free = max(estimate.hbm_capacity_bytes - estimate.weight_bytes_per_chip, 0.0)
    return free / (batch * estimate.kv_cache_bytes_per_token / estimate.n_chips)


def plot_decode_bytes(estimate: InferenceEstimate, ax: Axes | None = None) -> Figure:
    """HBM bytes one decode step reads per chip against the context S (log-log): the weights,
    the KV cache and the step's total (weights + KV cache + activations), for the estimate's
    one batch B over its contexts (a 1-D array of at least two). Contexts past
    :func:`longest_context_that_fits` (weights and caches overflow the chip's HBM) are shaded,
    when the chip publishes its capacity. The title gives :func:`kv_equals_weights_context`."""
    contexts = np.asarray(estimate.context, dtype=np.float64)
    if contexts.ndim != 1 or contexts.size < 2:
        raise ValueError(
            "plot_decode_bytes needs contexts as a 1-D array of at least two values, got shape "
            f"{contexts.shape}"
        )
    crossover = kv_equals_weights_context(estimate)  # refuses an array batch
    step = estimate.decode
    ax = axes_or_new(ax)
    lines = (
        (say("weights"), step.weight_bytes, palette.SERIES[0], "-"),
        (say("KV cache"), step.kv_read_bytes, palette.SERIES[1], "-"),
        (say("total (with activations)"), step.bytes, palette.PEAK, "--"),
    )
    for label, values, color, style in lines:
        ys = np.broadcast_to(np.asarray(values, dtype=np.float64), contexts.shape)
        ax.plot(contexts, ys, color=color, ls=style, lw=2, label=label)
    if estimate.chip.hbm_capacity_bytes is not None:
        limit = longest_context_that_fits(estimate)
        if limit < contexts.max():
            ax.axvspan(
                max(limit, float(contexts.min())),
                float(contexts.max()),
                color="0.85",
                zorder=0,
                label=say(
                    "does not fit in {capacity}",
                    capacity=format_quantity(estimate.hbm_capacity_bytes, "B"),
                ),
            )
    log_axes(ax, say("Context S (tokens)"), say("HBM bytes read per chip"), xunit=None, yunit="B")
    ax.set_xlim(float(contexts.min()), float(contexts.max()))
    ax.set_title(
        say(
            "{model}, one decode step of B = {batch} on {where}: the KV cache outgrows the "
            "weights at S ≈ {context}",
            model=estimate.model.name,
            batch=f"{one_batch(estimate):g}",
            where=_where(estimate),
            context=f"{crossover:,.0f}",
        )
    )
    legend_below(ax, ncols=2)
    fig = figure_of(ax)
    fit_figure(fig)
    return fig
