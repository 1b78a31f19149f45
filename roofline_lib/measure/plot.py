"""The measured roofline as a chart: prediction against measurement, for a
:class:`~roofline_lib.measure.MeasuredRoofline` (``python -m roofline_lib.measure --plot``,
and page 9 of the book); and, for a run that is not a roofline (``result.validity``), what it
measured without a roof (:func:`plot_measurements`).

Drawn with the shared pieces of :mod:`roofline_lib.plots` (roof, log axes, legend, labels);
that module does not import this package, so the dependency runs one way:
``measure.plot`` → ``plots``. matplotlib is imported only when this module is.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from .. import palette
from ..fmt import format_number, format_percent, format_quantity
from ..plots import (
    INTENSITY_LABEL,
    axes_or_new,
    draw_roof,
    figure_of,
    intensity_grid,
    legend_below,
    log_axes,
    place_labels,
)
from ..words import say
from .results import MeasuredRoofline

REACHES_ROOFLINE = 0.9
"""A sweep point "reaches the roofline" when it achieves at least this fraction of its prediction."""


def _batches(batches: Sequence[int], sweep: Sequence[int]) -> str:
    """``B = 2–512`` for a run of consecutive sweep points, else the values (up to four)."""
    if len(batches) == 1:
        return f"B = {batches[0]}"
    first, last = sweep.index(batches[0]), sweep.index(batches[-1])
    if last - first + 1 == len(batches):
        return f"B = {batches[0]}–{batches[-1]}"
    if len(batches) <= 4:
        return "B = " + ", ".join(map(str, batches))
    return say("{count} of the {total} sizes", count=len(batches), total=len(sweep))


def efficiency_title(result: MeasuredRoofline) -> str:
    """The finding of a measured sweep, in words computed from its points: the range of
    achieved / predicted over the points below :data:`REACHES_ROOFLINE` (and their B), and the
    points at or above it. E.g. "Measured matmuls reach 39–89% of the roofline at B = 2–512;
    ≥ 90% only at B = 1"."""
    points = sorted(result.sweep, key=lambda p: p.batch)
    if not points:
        return say("Measured roofline (the time budget left no room for the matmul sweep)")
    sweep = [p.batch for p in points]
    below = [p for p in points if p.efficiency < REACHES_ROOFLINE]
    above = [p.batch for p in points if p.efficiency >= REACHES_ROOFLINE]
    bound = format_percent(REACHES_ROOFLINE, 2)
    if not below:
        return say(
            "Measured matmuls reach the roofline (≥ {bound}) at every B measured", bound=bound
        )
    lo = format_percent(min(p.efficiency for p in below), 2)
    hi = format_percent(max(p.efficiency for p in below), 2)
    span = lo if lo == hi else f"{lo.rstrip('%')}–{hi}"
    where = _batches([p.batch for p in below], sweep)
    if above:
        return say(
            "Measured matmuls reach {span} of the roofline at {where}; ≥ {bound} only at {above}",
            span=span,
            where=where,
            bound=bound,
            above=_batches(above, sweep),
        )
    return say("Measured matmuls reach {span} of the roofline at {where}", span=span, where=where)


def _spaced_labels(intensity: np.ndarray, ratio: float = 1.45) -> list[int]:
    """Indices of the points to label: the first, the last, and any at least ``ratio`` times
    the intensity of the previous label (nearby points would print on top of each other)."""
    chosen: list[int] = []
    for k, value in enumerate(intensity):
        if not chosen or value >= intensity[chosen[-1]] * ratio:
            chosen.append(k)
    last = len(intensity) - 1
    if last >= 0 and chosen[-1] != last:
        if len(chosen) > 1 and intensity[last] < intensity[chosen[-1]] * ratio:
            chosen.pop()
        chosen.append(last)
    return chosen


def _draw_theoretical(ax: Axes, result: MeasuredRoofline) -> float | None:
    """The theoretical peak as a dashed line, when one could be derived; returns it (FLOP/s)."""
    theoretical = result.theoretical
    if theoretical is None:
        return None
    ax.axhline(
        theoretical.flops_per_s,
        color=palette.PEAK,
        ls="--",
        lw=1,
        label=say(
            "theoretical peak {peak} (an upper bound)"
            if theoretical.upper_bound
            else "theoretical peak {peak} (at the clock read; not a bound)",
            peak=format_quantity(theoretical.flops_per_s, "FLOP/s"),
        ),
    )
    return theoretical.flops_per_s


def _draw_achieved(ax: Axes, result: MeasuredRoofline, color: str) -> None:
    """Each sweep point's median FLOP/s (filled squares, joined), its bar the range of repeats."""
    points = result.sweep
    if not points:
        return
    achieved = np.array([p.achieved_flops_per_s for p in points], dtype=float)
    low = np.array([p.spread[0] for p in points], dtype=float)
    high = np.array([p.spread[1] for p in points], dtype=float)
    ax.errorbar(
        np.array([p.intensity for p in points], dtype=float),
        achieved,
        yerr=np.vstack([achieved - low, high - achieved]),
        color=color,
        marker="s",
        ms=5,
        lw=1.3,
        elinewidth=1,
        capsize=2,
        zorder=5,
        label=say("achieved: median, bar = range of repeats"),
    )


def _label_batches(ax: Axes, result: MeasuredRoofline, color: str) -> None:
    """Label the sweep's points with B, spaced so that labels do not overlap."""
    points = result.sweep
    if not points:
        return
    intensity = np.array([p.intensity for p in points], dtype=float)
    place_labels(
        ax,
        [
            (
                f"B = {points[k].batch}" if k == 0 else str(points[k].batch),
                (intensity[k], points[k].achieved_flops_per_s),
            )
            for k in _spaced_labels(intensity, ratio=2.5)
        ],
        color=color,
    )


def _setting(result: MeasuredRoofline) -> str:
    """The chart's second title line: machine, backend, dtype, shape (and a busy machine)."""
    shape = f"D = F = {result.D}" if result.D == result.F else f"D = {result.D}, F = {result.F}"
    setting = say(
        "{machine}, {backend} {dtype}, {shape}",
        machine=result.machine.name,
        backend=result.backend,
        dtype=result.dtype,
        shape=shape,
    )
    if result.busy and result.cpu_share is not None:
        setting += say(
            "; machine busy ({share}% CPU share)",
            share=format_number(100 * result.cpu_share, 2),
        )
    return setting


def plot_measured_roofline(
    result: MeasuredRoofline, *, ax: Axes | None = None, title: str | None = None
) -> Figure:
    """Prediction against measurement on one log-log chart, for a
    :class:`~roofline_lib.measure.MeasuredRoofline`.

    * the roofline predicted from the *measured* peak C and triad bandwidth W,
      min(C, I × W), with its critical intensity C / W;
    * each sweep point's prediction on it (open circles) at the intensity I of X[B, D]·Y[D, F]
      from :func:`roofline_lib.matmul`;
    * each point's achieved median FLOP/s (filled squares, joined), its bar the range over the
      repeats, labelled with B;
    * the theoretical peak (dashed), when one could be derived.
    """
    peak = result.peak.flops_per_s
    bandwidth = result.bandwidth.bytes_per_s
    i_star = peak / bandwidth
    points = result.sweep
    intensity = np.array([p.intensity for p in points], dtype=float)
    predicted = np.array([p.predicted_flops_per_s for p in points], dtype=float)
    low = np.array([p.spread[0] for p in points], dtype=float)
    lo = min([i_star, *intensity]) / 4
    hi = max([i_star, *intensity]) * 4
    ax = axes_or_new(ax)
    x = intensity_grid(lo, hi)
    roof_color, measured_color = palette.SERIES[0], palette.SERIES[1]
    label = say(
        "predicted: roofline of measured peak {peak} and triad {bandwidth}",
        peak=format_quantity(peak, "FLOP/s"),
        bandwidth=format_quantity(bandwidth, "B/s"),
    )
    draw_roof(ax, x, peak, bandwidth, roof_color, label)
    theory = _draw_theoretical(ax, result)
    if points:
        ax.plot(
            intensity,
            predicted,
            ls="none",
            marker="o",
            ms=7,
            mfc="white",
            mec=roof_color,
            mew=1.4,
            zorder=4,
            label=say("predicted at each B"),
        )
    _draw_achieved(ax, result, measured_color)
    log_axes(
        ax, say(INTENSITY_LABEL), say("{dtype} matmul throughput (FLOP/s)", dtype=result.dtype)
    )
    ax.set_xlim(lo, hi)
    floor = min([peak, *low, *predicted])
    ax.set_ylim(floor / 4, max(peak, theory or 0) * 4)
    legend_below(ax)
    if title is None:
        title = f"{efficiency_title(result)}\n{_setting(result)}"
    ax.set_title(title, fontsize=10)
    place_labels(
        ax,
        [(say("critical {value}", value=format_number(i_star, 3)), (i_star, peak))],
        color=roof_color,
    )
    _label_batches(ax, result, measured_color)
    return figure_of(ax)


def plot_measurements(
    result: MeasuredRoofline, *, ax: Axes | None = None, title: str | None = None
) -> Figure:
    """What a run measured, without a roof: for a run that is not a roofline
    (``result.validity.trustworthy`` is False), whose measured peak and bandwidth were not this
    machine's limits, so a roof drawn from them would sit below the points it should bound.

    * each sweep point's achieved median FLOP/s (filled squares, joined) at the intensity I of
      X[B, D]·Y[D, F], its bar the range over the repeats, labelled with B;
    * the theoretical peak (dashed), when one could be derived: a bound from the hardware, not
      from the run;
    * with no sweep at all (the time budget left no room for it), a line that says so.

    No measured roof, no predictions, no critical intensity.
    """
    points = result.sweep
    ax = axes_or_new(ax)
    measured_color = palette.SERIES[1]
    theory = _draw_theoretical(ax, result)
    _draw_achieved(ax, result, measured_color)
    log_axes(
        ax, say(INTENSITY_LABEL), say("{dtype} matmul throughput (FLOP/s)", dtype=result.dtype)
    )
    if points:
        intensity = [p.intensity for p in points]
        low = min(p.spread[0] for p in points)
        high = max(p.spread[1] for p in points)
        ax.set_xlim(min(intensity) / 4, max(intensity) * 4)
        ax.set_ylim(low / 4, max(high, theory or 0) * 4)
        legend_below(ax)
    else:
        ax.set_xlim(0.25, 4096)
        ax.text(
            0.5,
            0.3,
            say("No matmul was measured:\nthe time budget left no room for the sweep."),
            transform=ax.transAxes,
            ha="center",
            va="center",
            color=palette.PEAK,
        )
        if theory is not None:
            ax.set_ylim(theory / 100, theory * 4)
            legend_below(ax)
    if title is None:
        title = f"{say('What this build measured: not a roofline (its own checks failed)')}\n"
        title += _setting(result)
    ax.set_title(title, fontsize=10)
    _label_batches(ax, result, measured_color)
    return figure_of(ax)
