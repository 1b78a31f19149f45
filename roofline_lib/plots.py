"""Roofline charts with matplotlib.

Every function takes an optional ``ax`` (drawing into a new figure when it is None), returns the
matplotlib Figure, and never calls ``plt.show()``. Colours come from :mod:`roofline_lib.palette`.
Axes are labelled with units; titles default to a sentence stating what the chart shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator

from . import palette
from ._checks import positive_real
from .costs import BF16, Cost, MatmulDtypes, matmul
from .fmt import format_number, format_quantity
from .hardware import Chip, get_chip
from .roofline import achievable_flops_per_s, analyze, critical_intensity

if TYPE_CHECKING:  # measurement stays lazy: plots never import roofline_lib.measure at run time
    from .measure import MeasuredRoofline

INTENSITY_LABEL = "Arithmetic intensity (FLOPs/byte)"
THROUGHPUT_LABEL = "Achievable throughput (FLOP/s)"
DEFAULT_FIGSIZE = (7.0, 4.4)

_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


def _axes(ax: Axes | None) -> Axes:
    if ax is not None:
        return ax
    fig = Figure(figsize=DEFAULT_FIGSIZE, layout="constrained")
    return fig.add_subplot()


def _flops_formatter(unit: str = "FLOP/s") -> FuncFormatter:
    return FuncFormatter(lambda v, _pos: format_quantity(v, unit, 3) if v > 0 else "")


def _number_formatter() -> FuncFormatter:
    return FuncFormatter(lambda v, _pos: format_number(v, 3) if v > 0 else "")


def _style_loglog(ax: Axes, xlabel: str, ylabel: str, yunit: str = "FLOP/s") -> None:
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.xaxis.set_major_locator(LogLocator(base=10))
    ax.xaxis.set_major_formatter(_number_formatter())
    ax.yaxis.set_major_formatter(_flops_formatter(yunit))
    ax.grid(True, which="major", alpha=0.3)
    ax.grid(True, which="minor", alpha=0.08)


def _draw_roof(
    ax: Axes,
    x: np.ndarray,
    peak: float,
    bandwidth: float,
    color: str,
    label: str,
    ridge_lw: float = 1,
) -> None:
    """One roofline, min(peak, I·W) over the intensities ``x``, with its ridge I* = peak/W dotted."""
    ax.plot(x, achievable_flops_per_s(x, peak, bandwidth), color=color, lw=2, label=label)
    ax.axvline(peak / bandwidth, color=color, ls=":", lw=ridge_lw)


def _intensities(lo: float, hi: float) -> np.ndarray:
    positive_real("intensity range", np.array([lo, hi]))
    if hi <= lo:
        raise ValueError(f"intensity_range must be (low, high) with low < high, got ({lo}, {hi})")
    return np.logspace(np.log10(lo), np.log10(hi), 400)


def plot_roofline_regions(
    peak_flops_per_s: float,
    bandwidths_bytes_per_s: Sequence[float],
    *,
    labels: Sequence[str] | None = None,
    intensity_range: tuple[float, float] = (0.1, 1e4),
    ax: Axes | None = None,
    title: str | None = None,
) -> Figure:
    """The roofline chart with its three regions, for one peak and two bandwidths.

    Below the high bandwidth's critical intensity an operation is bandwidth-bound at both
    bandwidths (first region); between the two critical intensities it is bound at the low
    bandwidth only (second); above the low bandwidth's it is compute-bound at both (third).
    """
    if len(bandwidths_bytes_per_s) != 2:
        raise ValueError("bandwidths_bytes_per_s must hold exactly two bandwidths (low and high)")
    peak = float(positive_real("peak_flops_per_s", peak_flops_per_s, "FLOP/s"))
    w_low, w_high = sorted(
        float(positive_real("bandwidth", w, "bytes/s")) for w in bandwidths_bytes_per_s
    )
    labels = (
        list(labels)
        if labels
        else [f"{format_quantity(w_low, 'B/s')}", f"{format_quantity(w_high, 'B/s')}"]
    )
    ax = _axes(ax)
    x = _intensities(*intensity_range)
    i_high, i_low = peak / w_high, peak / w_low
    lo, hi = intensity_range
    region_text = (
        (lo, i_high, "memory", "bandwidth-bound\nat both"),
        (i_high, i_low, "mixed", "bound only at\nlow bandwidth"),
        (i_low, hi, "compute", "compute-bound\nat both"),
    )
    for start, end, kind, text in region_text:
        if end > start:
            ax.axvspan(start, end, color=palette.REGIONS[kind], alpha=palette.REGION_ALPHA, lw=0)
            ax.text(np.sqrt(start * end), peak * 1.6, text, ha="center", va="bottom", fontsize=8)
    for w, label, color in (
        (w_low, labels[0], palette.SERIES[1]),
        (w_high, labels[1], palette.SERIES[0]),
    ):
        _draw_roof(ax, x, peak, w, color, f"bandwidth {label}", ridge_lw=1.2)
        ax.annotate(
            f"critical {format_number(peak / w, 3)}",
            xy=(peak / w, peak),
            xytext=(3, -14),
            textcoords="offset points",
            fontsize=8,
            color=color,
            rotation=90,
            va="top",
        )
    ax.axhline(
        peak, color=palette.PEAK, ls="--", lw=1, label=f"peak {format_quantity(peak, 'FLOP/s')}"
    )
    _style_loglog(ax, INTENSITY_LABEL, THROUGHPUT_LABEL)
    ax.set_xlim(lo, hi)
    ax.set_ylim(x[0] * w_low / 2, peak * 6)
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title(
        title or "More bandwidth moves the ridge left: fewer operations are bandwidth-bound"
    )
    return ax.figure


def _op_points(ops: Mapping[str, Cost]) -> list[tuple[str, float]]:
    points = []
    for label, cost in ops.items():
        intensity = np.asarray(cost.arithmetic_intensity)
        if intensity.ndim != 0:
            raise ValueError(f"op {label!r}: plot one shape per op (got an array of intensities)")
        points.append((label, float(intensity)))
    return points


def plot_roofline(
    chips: Sequence[Chip | str] | Chip | str,
    dtype: str = "bf16",
    level: str = "hbm",
    *,
    ops: Mapping[str, Cost] | None = None,
    intensity_range: tuple[float, float] | None = None,
    ax: Axes | None = None,
    title: str | None = None,
) -> Figure:
    """Rooflines of one or more chips at one level, each with its critical intensity marked;
    operations (``{label: Cost}``) drawn as labelled points on every chip's roofline."""
    chip_list = [get_chip(c) for c in ([chips] if isinstance(chips, Chip | str) else chips)]
    if not chip_list:
        raise ValueError("chips must name at least one chip")
    points = _op_points(ops or {})
    criticals = [critical_intensity(c, dtype, level) for c in chip_list]
    if intensity_range is None:
        candidates = [*criticals, *(i for _, i in points)]
        intensity_range = (min(0.1, min(candidates) / 3), max(1e4, max(candidates) * 3))
    x = _intensities(*intensity_range)
    ax = _axes(ax)
    for idx, (chip, i_star) in enumerate(zip(chip_list, criticals, strict=True)):
        color = palette.series_color(idx)
        peak, bw = chip.peak(dtype), chip.bandwidth(level)
        _draw_roof(ax, x, peak, bw, color, f"{chip.name}: critical {format_number(i_star, 3)}")
        for j, (label, intensity) in enumerate(points):
            y = achievable_flops_per_s(intensity, peak, bw)
            ax.plot(
                [intensity],
                [y],
                marker=_MARKERS[j % len(_MARKERS)],
                color=color,
                ms=7,
                mec="white",
                mew=0.8,
                ls="none",
                zorder=5,
            )
            if idx == 0:
                ax.annotate(
                    label,
                    xy=(intensity, y),
                    xytext=(6, -12),
                    textcoords="offset points",
                    fontsize=8,
                )
    _style_loglog(
        ax,
        INTENSITY_LABEL.replace("byte", f"byte of {chip_list[0].level_name(level)}")
        if level != "hbm"
        else INTENSITY_LABEL,
        THROUGHPUT_LABEL,
    )
    ax.set_xlim(*intensity_range)
    ax.legend(loc="lower right", fontsize=8)
    if title is None:
        names = ", ".join(c.name for c in chip_list)
        title = f"{names} ({dtype}): below the critical intensity, bandwidth sets the speed"
    ax.set_title(title, fontsize=10)
    return ax.figure


def plot_throughput_vs_batch(
    curves: Mapping[str, tuple[np.ndarray, np.ndarray]],
    *,
    peaks: Mapping[str, float] | None = None,
    ax: Axes | None = None,
    log: bool = False,
    xlabel: str = "Batch size B (tokens)",
    ylabel: str = THROUGHPUT_LABEL,
    title: str | None = None,
) -> Figure:
    """Throughput against batch size: ``curves`` maps a label to (B values, FLOP/s values);
    ``peaks`` maps a label to a horizontal peak line."""
    ax = _axes(ax)
    for idx, (label, (b, y)) in enumerate(curves.items()):
        b, y = np.asarray(b, dtype=float), np.asarray(y, dtype=float)
        if b.shape != y.shape:
            raise ValueError(
                f"curve {label!r}: B and FLOP/s arrays differ in shape {b.shape} vs {y.shape}"
            )
        ax.plot(b, y, color=palette.series_color(idx), lw=2, label=label)
    for idx, (label, peak) in enumerate((peaks or {}).items()):
        ax.axhline(peak, color=palette.PEAK, ls=("--", "-.", ":")[idx % 3], lw=1, label=label)
    if log:
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.xaxis.set_major_formatter(_number_formatter())
    ax.yaxis.set_major_formatter(_flops_formatter())
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    ax.set_title(
        title or "Throughput grows with batch size until the chip is compute-bound", fontsize=10
    )
    return ax.figure


def matmul_throughput(
    chip: Chip | str,
    B: np.ndarray,
    D: int,
    F: int,
    dtypes: MatmulDtypes | str = BF16,
    level: str = "hbm",
) -> np.ndarray:
    """Roofline FLOP/s of X[B, D]·Y[D, F] at each batch size B (exact bytes)."""
    return np.asarray(analyze(matmul(B, D, F, dtypes), chip, level).achievable_flops_per_s)


def plot_matmul_throughput(
    chip: Chip | str,
    B: np.ndarray,
    shapes: Sequence[tuple[int, int]],
    dtypes: MatmulDtypes | str = BF16,
    *,
    ax: Axes | None = None,
    log: bool = False,
    title: str | None = None,
) -> Figure:
    """Achievable FLOP/s of matmuls X[B, D]·Y[D, F] against B, one curve per (D, F), with the
    chip's peak for the compute dtype."""
    c = get_chip(chip)
    cost_dtype = matmul(1, 1, 1, dtypes).compute_dtype
    curves = {
        f"D = {d}, F = {f}": (np.asarray(B), matmul_throughput(c, B, d, f, dtypes))
        for d, f in shapes
    }
    peak = c.peak(cost_dtype)
    return plot_throughput_vs_batch(
        curves,
        peaks={f"{c.name} peak {format_quantity(peak, 'FLOP/s')}": peak},
        ax=ax,
        log=log,
        ylabel=f"Achievable {cost_dtype} throughput (FLOP/s)",
        title=title or f"{c.name}: small matmuls need a larger batch to reach the peak",
    )


def plot_intensity_vs_batch(
    chips: Sequence[Chip | str],
    B: np.ndarray,
    D: int,
    F: int,
    dtypes: MatmulDtypes | str = BF16,
    *,
    ax: Axes | None = None,
    title: str | None = None,
) -> Figure:
    """A matmul's arithmetic intensity against B, with each chip's critical intensity as a
    horizontal line: where the curve crosses a line, that chip turns compute-bound."""
    ax = _axes(ax)
    cost = matmul(np.asarray(B), D, F, dtypes)
    ax.plot(
        B, cost.arithmetic_intensity, color=palette.PEAK, lw=2, label=f"matmul, D = {D}, F = {F}"
    )
    for idx, chip in enumerate(get_chip(c) for c in chips):
        i_star = critical_intensity(chip, cost.compute_dtype)
        ax.axhline(
            i_star,
            color=palette.series_color(idx),
            ls="--",
            lw=1.4,
            label=f"{chip.name} critical {format_number(i_star, 3)}",
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.xaxis.set_major_formatter(_number_formatter())
    ax.yaxis.set_major_formatter(_number_formatter())
    ax.set_xlabel("Batch size B (tokens)")
    ax.set_ylabel(INTENSITY_LABEL)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title(
        title or "A matmul's intensity is about B: newer chips need bigger batches", fontsize=10
    )
    return ax.figure


def plot_multilevel_roofline(
    chip: Chip | str,
    dtype: str = "bf16",
    levels: Sequence[str] | None = None,
    *,
    intensity_range: tuple[float, float] = (1.0, 1e5),
    ax: Axes | None = None,
    title: str | None = None,
) -> Figure:
    """One chip's rooflines at several levels (HBM, on-chip memory, each link) on one chart.

    The x axis is FLOPs per byte *moved at that level*: the same operation sits at a different
    intensity on each curve, and its slowest level is the one that bounds it.
    """
    c = get_chip(chip)
    levels = list(levels) if levels is not None else list(c.levels)
    if not levels:
        raise ValueError("levels must name at least one level")
    peak = c.peak(dtype)
    x = _intensities(*intensity_range)
    ax = _axes(ax)
    for idx, level in enumerate(levels):
        bw = c.bandwidth(level)
        color = palette.series_color(idx)
        label = (
            f"{c.level_name(level)} {format_quantity(bw, 'B/s')}: "
            f"critical {format_number(peak / bw, 3)}"
        )
        _draw_roof(ax, x, peak, bw, color, label)
    ax.axhline(
        peak,
        color=palette.PEAK,
        ls="--",
        lw=1,
        label=f"peak {format_quantity(peak, 'FLOP/s')} ({dtype})",
    )
    _style_loglog(
        ax, "Arithmetic intensity at each level (FLOPs per byte moved there)", THROUGHPUT_LABEL
    )
    ax.set_xlim(*intensity_range)
    ax.legend(fontsize=8, loc="lower right")
    ax.set_title(
        title or f"{c.name}: the slower the level, the more reuse it takes to stay compute-bound",
        fontsize=10,
    )
    return ax.figure


# --------------------------------------------------------------------------------------------
# Measured rooflines (roofline_lib.measure): prediction against measurement
# --------------------------------------------------------------------------------------------


def _efficiency_title(result: MeasuredRoofline) -> str:
    """The finding, from the data: where the matmuls reach the roofline, and how far below it
    they fall at worst."""
    from .fmt import format_percent

    points = result.sweep
    if not points:
        return "Measured roofline (the time budget left no room for the matmul sweep)"
    worst = min(points, key=lambda p: p.efficiency)
    reaching = [p for p in points if p.efficiency >= 0.9]
    if reaching:
        finding = f"Measured matmuls reach the roofline (≥ 90%) from B = {reaching[0].batch}"
    else:
        best = max(points, key=lambda p: p.efficiency)
        finding = (
            f"Measured matmuls reach at most {format_percent(best.efficiency, 2)} of the "
            f"roofline (B = {best.batch})"
        )
    if worst.efficiency < 0.9:
        finding += f", only {format_percent(worst.efficiency, 2)} at B = {worst.batch}"
    return finding


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
    achieved = np.array([p.achieved_flops_per_s for p in points], dtype=float)
    predicted = np.array([p.predicted_flops_per_s for p in points], dtype=float)
    low = np.array([p.spread[0] for p in points], dtype=float)
    high = np.array([p.spread[1] for p in points], dtype=float)
    lo = min([i_star, *intensity]) / 4
    hi = max([i_star, *intensity]) * 4
    ax = _axes(ax)
    x = _intensities(lo, hi)
    roof_color, measured_color = palette.SERIES[0], palette.SERIES[1]
    label = (
        f"predicted: roofline of measured peak {format_quantity(peak, 'FLOP/s')} "
        f"and triad {format_quantity(bandwidth, 'B/s')}"
    )
    _draw_roof(ax, x, peak, bandwidth, roof_color, label)
    ax.annotate(
        f"critical intensity {format_number(i_star, 3)} FLOPs/byte",
        xy=(i_star, peak),
        xytext=(4, 5),
        textcoords="offset points",
        fontsize=8,
        color=roof_color,
        va="bottom",
    )
    theory = result.theoretical_peak_flops_per_s
    if theory is not None:
        ax.axhline(
            theory,
            color=palette.PEAK,
            ls="--",
            lw=1,
            label=f"theoretical peak {format_quantity(theory, 'FLOP/s')} (an upper bound)",
        )
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
            label="predicted at each B",
        )
        ax.errorbar(
            intensity,
            achieved,
            yerr=np.vstack([achieved - low, high - achieved]),
            color=measured_color,
            marker="s",
            ms=5,
            lw=1.3,
            elinewidth=1,
            capsize=2,
            zorder=5,
            label="achieved: median, bar = range of repeats",
        )
        for k in _spaced_labels(intensity):
            ax.annotate(
                f"B = {points[k].batch}" if k == 0 else str(points[k].batch),
                xy=(intensity[k], achieved[k]),
                xytext=(4, -11),
                textcoords="offset points",
                ha="left",
                fontsize=7,
                color=measured_color,
            )
    _style_loglog(ax, INTENSITY_LABEL, f"{result.dtype} matmul throughput (FLOP/s)")
    ax.set_xlim(lo, hi)
    floor = min([peak, *low, *predicted])
    ax.set_ylim(floor / 2.5, max(peak, theory or 0) * 2.5)
    ax.legend(loc="lower right", fontsize=7)
    if title is None:
        shape = f"D = F = {result.D}" if result.D == result.F else f"D = {result.D}, F = {result.F}"
        setting = f"{result.machine.name}, {result.backend} {result.dtype}, {shape}"
        if result.busy:
            setting += f"; machine busy ({format_number(100 * result.cpu_share, 2)}% CPU share)"
        title = f"{_efficiency_title(result)}\n{setting}"
    ax.set_title(title, fontsize=10)
    return ax.figure
