"""Every figure the library draws is readable at the size the book shows it: no two texts overlap,
no legend covers a plotted point or line, and no text is smaller than ``plots.MIN_FONT_PT``.

Each figure is drawn with the book's matplotlib style, fitted to the page as the book does
(:func:`roofline_lib.plots.fit_figure`), and laid out by matplotlib's Agg renderer; the text and
legend extents come from ``get_window_extent(renderer)``, the points from the data transform.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

import matplotlib as mpl
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.text import Text
from matplotlib.transforms import Bbox

import roofline_lib as rl
from roofline_lib import chapter, plots
from roofline_lib.measure import MeasuredRoofline
from roofline_lib.measure.bandwidth import BandwidthMeasurement
from roofline_lib.measure.compute import PeakMeasurement
from roofline_lib.measure.cpuinfo import CpuInfo
from roofline_lib.measure.machine import Machine
from roofline_lib.measure.sweep import SweepPoint
from roofline_lib.measure.theory import TheoreticalPeak
from roofline_lib.measure.timing import Timing

BOOK_STYLE = {"figure.dpi": 110, "font.size": 10, "axes.titlesize": 10.5, "legend.fontsize": 8.5}
"""The rcParams of book/booktools.py that size text (the book's house style)."""
OVERLAP_PX = 1.0
"""Two boxes overlap when they share more than this many pixels in both directions."""

# --------------------------------------------------------------------------------------------
# What a reader trips over, measured on a rendered figure
# --------------------------------------------------------------------------------------------


def _renderer(fig: Figure):
    canvas = fig.canvas if hasattr(fig.canvas, "get_renderer") else FigureCanvasAgg(fig)
    fig.draw_without_rendering()
    return canvas.get_renderer()


def _shown(text: Text) -> bool:
    return text.get_visible() and bool(text.get_text().strip())


def _texts(fig: Figure) -> Iterator[tuple[str, Text]]:
    """Every visible text outside legends, named for a failure message."""
    for k, ax in enumerate(fig.axes):
        for text in (ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label):
            yield f"axes {k} title/label", text
        for axis, name in ((ax.xaxis, "x"), (ax.yaxis, "y")):
            lo, hi = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if lo <= tick.get_loc() <= hi:
                    yield f"axes {k} {name} tick", tick.label1
        for text in ax.texts:
            yield f"axes {k} text", text
    for text in fig.texts:
        yield "figure text", text


def _legends(fig: Figure) -> list[Legend]:
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    return legends + list(fig.legends)


def overlapping_texts(fig: Figure) -> list[str]:
    """Pairs of texts (and legends) whose boxes overlap, as 'a' × 'b' lines."""
    renderer = _renderer(fig)
    boxes = [
        (f"{name} {text.get_text()!r}", text.get_window_extent(renderer))
        for name, text in _texts(fig)
        if _shown(text)
    ]
    boxes += [(f"legend {i}", lg.get_window_extent(renderer)) for i, lg in enumerate(_legends(fig))]
    out = []
    for (a, box_a), (b, box_b) in itertools.combinations(boxes, 2):
        overlap = Bbox.intersection(box_a, box_b)
        if overlap is not None and min(overlap.width, overlap.height) > OVERLAP_PX:
            out.append(f"{a} × {b}")
    return out


def _inside(box: Bbox, xy: np.ndarray) -> np.ndarray:
    """Which of the display points ``xy`` (n × 2) lie inside ``box``."""
    xy = np.reshape(xy, (-1, 2))
    x, y = xy[:, 0], xy[:, 1]
    return (x >= box.x0) & (x <= box.x1) & (y >= box.y0) & (y <= box.y1)


def _plotted_points(fig: Figure) -> list[tuple[str, np.ndarray]]:
    """(line label, display coordinates) of every visible data line of every axes, densified
    along the line so that a legend over a stretch of line is caught, clipped to the axes."""
    out = []
    for ax in fig.axes:
        box = ax.get_window_extent(_renderer(fig))
        for line in ax.get_lines():
            if not line.get_visible():
                continue
            xy = line.get_transform().transform(np.asarray(line.get_xydata(), dtype=float))
            xy = xy[np.all(np.isfinite(xy), axis=1)]
            if line.get_linestyle() not in ("None", "none", "", " ") and len(xy) > 1:
                xy = np.concatenate(
                    [
                        a + np.linspace(0, 1, 20)[:, None] * (b - a)
                        for a, b in itertools.pairwise(xy)
                    ]
                )
            xy = xy[_inside(box, xy)]
            out.append((line.get_label(), xy))
    return out


def legends_covering_points(fig: Figure) -> list[str]:
    """Lines or points drawn under a legend's box, one line each."""
    renderer = _renderer(fig)
    out = []
    for legend in _legends(fig):
        box = legend.get_window_extent(renderer)
        for label, xy in _plotted_points(fig):
            hidden = int(np.sum(_inside(box, xy)))
            if hidden:
                out.append(f"legend covers {hidden} point(s) of {label!r}")
    return out


def problems(fig: Figure) -> list[str]:
    """Everything unreadable in ``fig`` at the book's size, one line each."""
    plots.fit_figure(fig)
    out = overlapping_texts(fig) + legends_covering_points(fig)
    smallest = plots.smallest_font_pt(fig)
    if smallest < plots.MIN_FONT_PT:
        out.append(f"text of {smallest} pt, below {plots.MIN_FONT_PT} pt")
    width = fig.get_size_inches()[0]
    if width > plots.PAGE_WIDTH_IN + 1e-9:
        out.append(f"{width} in wide, wider than the page's {plots.PAGE_WIDTH_IN} in")
    return out


# --------------------------------------------------------------------------------------------
# Every figure the library draws, with the arguments the book gives it
# --------------------------------------------------------------------------------------------


def _xeon_like_result() -> MeasuredRoofline:
    """A measured roofline shaped like the Intel Xeon run the issue describes: B = 1 at 104 %
    (a cache artefact), B = 2–512 between 39 % and 89 %, a theoretical peak from 'cpu MHz'
    (not a bound) below the measured peak."""
    cpu = CpuInfo(
        model="Intel(R) Xeon(R) CPU @ 2.60GHz",
        vendor="GenuineIntel",
        logical_cpus=4,
        physical_cores=2,
        cpu_quota=None,
        simd=("avx512f", "avx2", "fma", "avx", "sse2"),
        clock_hz=2.6e9,
        clock_source="'cpu MHz' in /proc/cpuinfo: the current or nominal clock",
        llc_bytes=2**25,
        llc_source="L3",
    )
    machine = Machine("numpy", "cpu", cpu, 4, "OpenBLAS", 4, versions={}, platform="Linux")
    peak = PeakMeasurement("fp32", 2048, 2 * 2048**3, Timing((2 * 2048**3 / 402e9,) * 3))
    bandwidth = BandwidthMeasurement("numpy", 2**24, 4, 2**25, Timing((3 * 8 * 2**24 / 12e9,) * 3))
    D = F = 1024
    efficiency = {1: 1.04, 2: 0.39, 4: 0.45, 8: 0.52, 16: 0.61, 32: 0.7, 64: 0.78}
    efficiency |= {128: 0.84, 256: 0.89, 512: 0.86}
    sweep = []
    for b, eff in efficiency.items():
        cost = rl.matmul(b, D, F, "fp32")
        flops, moved = float(cost.flops), float(cost.bytes_total)
        predicted = min(402e9, flops / moved * 12e9)
        t = flops / (eff * predicted)
        sweep.append(
            SweepPoint(b, D, F, "fp32", flops, moved, flops / moved, predicted, Timing((t,) * 3))
        )
    theory = TheoreticalPeak("fp32", 333e9, "isa", "2 cores × 2.6 GHz × 64", "nominal clock")
    return MeasuredRoofline(
        machine=machine,
        backend="numpy",
        dtype="fp32",
        peaks={"fp32": peak},
        bandwidth=bandwidth,
        sweep=tuple(sweep),
        D=D,
        F=F,
        theoretical_peaks={"fp32": theory},
    )


def _page_6_figure() -> Figure:
    v5e, B, D = rl.get_chip("TPU v5e"), np.arange(1, 513), 8192
    combos = {"bf16": "bf16 × bf16", "int8": "int8 × int8", "w8a16": "W8A16: bf16 × int8 weights"}
    return plots.plot_throughput_vs_batch(
        {label: (B, plots.matmul_throughput(v5e, B, D, D, k)) for k, label in combos.items()},
        peaks={"int8 peak (dense)": v5e.peak("int8"), "bf16 peak (dense)": v5e.peak("bf16")},
        ylabel="Achievable throughput (FLOP/s or OP/s)",
        title="int8 doubles slope and roof; W8A16 doubles only the slope\n"
        "(TPU v5e, D = F = 8192, exact bytes)",
        marks={
            f"B* ≈ {rl.format_number(rl.critical_batch_size(v5e, k, D=D, F=D))}": float(
                rl.critical_batch_size(v5e, k, D=D, F=D)
            )
            for k in combos
        },
    )


def _page_9_figure() -> Figure:
    D = F = 8192
    ops = {
        "decode, 1 request\n(and decode attention, any batch)": rl.matmul(1, D, F),
        "decode, 64 requests": rl.matmul(64, D, F),
        "decode, 256 requests": rl.matmul(256, D, F),
        "prefill, one 2,048-token prompt": rl.matmul(2048, D, F),
    }
    return plots.plot_roofline(
        "H100 SXM",
        ops=ops,
        intensity_range=(0.3, 3e4),
        title="Prefill runs on the roof, decode on the slope\n"
        "(H100 SXM, bf16 matmul with 8,192 × 8,192 weights)",
    )


def _ops_figure() -> Figure:
    ops = {
        "dot product": rl.dot_product(8192),
        "B = 64": rl.matmul(64, 8192, 8192),
        "B = 512": rl.matmul(512, 8192, 8192),
        "B = 4096": rl.matmul(4096, 8192, 8192),
    }
    return plots.plot_roofline(
        ["H100 SXM", "TPU v5e", "TPU v6e", "B200"],
        ops=ops,
        title="Only the 4096-token matmul is compute-bound on all four chips",
    )


def _explorer_figure() -> Figure:
    from roofline_lib import explorer

    return explorer.plot_reading(explorer.evaluate("TPU v5e", "bf16", "matmul", 256, 8192, 8192))


FIGURES: dict[str, Callable[[], Figure]] = {
    "regions (page 3)": lambda: plots.plot_roofline_regions(
        chapter.TPU_V5E_CHAPTER.peak("bf16"), (8.1e11, 1.6e12), labels=["8.1e11 B/s", "1.6e12 B/s"]
    ),
    "one chip with ops (intro)": lambda: plots.plot_roofline(
        "H100 SXM",
        ops={
            "dot product": rl.dot_product(8192),
            "matmul, B = 64": rl.matmul(64, 8192, 8192),
            "matmul, B = 4,096": rl.matmul(4096, 8192, 8192),
        },
    ),
    "four chips with ops (page 3)": _ops_figure,
    "prefill and decode (page 9)": _page_9_figure,
    "roofline at a link level": lambda: plots.plot_roofline(["TPU v5e", "TPU v5p"], level="ici"),
    "throughput vs batch with marks (page 6)": _page_6_figure,
    "matmul throughput": lambda: plots.plot_matmul_throughput(
        "H100 SXM", np.arange(1, 1025), [(1024, 1024), (8192, 8192)]
    ),
    "intensity vs batch (page 4)": lambda: plots.plot_intensity_vs_batch(
        ["TPU v5e", "H100 SXM", "TPU v6e", "B200"],
        np.unique(np.logspace(0, 16, 161, base=2).round()),
        D=8192,
        F=8192,
    ),
    "multilevel (page 8)": lambda: plots.plot_multilevel_roofline(
        "H100 SXM", levels=["hbm", "nvlink4", "ib_ndr"]
    ),
    "measured roofline (page 9)": lambda: plots.plot_measured_roofline(_xeon_like_result()),
    "explorer's chart (page 3)": _explorer_figure,
}


@pytest.fixture(autouse=True)
def _book_style() -> Iterator[None]:
    with mpl.rc_context(BOOK_STYLE):
        yield


@pytest.mark.parametrize("name", list(FIGURES))
def test_every_library_figure_is_readable_at_the_book_size(name: str) -> None:
    found = problems(FIGURES[name]())
    assert not found, f"{name}:\n" + "\n".join(found)


# --------------------------------------------------------------------------------------------
# The checks catch what they should
# --------------------------------------------------------------------------------------------


def test_the_checks_catch_overlapping_labels_and_a_legend_on_the_points() -> None:
    fig = Figure(figsize=(4, 3), layout="constrained")
    ax = fig.add_subplot()
    ax.plot([1, 2, 3], [1, 2, 3], marker="o", label="a line with points")
    ax.annotate("decode, 256 requests", (2, 2))
    ax.annotate("prefill, one prompt", (2.05, 2))
    ax.legend(loc="center")
    assert any("decode" in p and "prefill" in p for p in overlapping_texts(fig))
    assert legends_covering_points(fig)


def test_fit_figure_shrinks_to_the_page_and_raises_small_text() -> None:
    fig = Figure(figsize=(7.0, 4.4))
    ax = fig.add_subplot()
    ax.text(0.5, 0.5, "small", fontsize=7)
    plots.fit_figure(fig)
    assert fig.get_size_inches()[0] == pytest.approx(plots.PAGE_WIDTH_IN)
    assert fig.get_size_inches()[1] == pytest.approx(4.4 * plots.PAGE_WIDTH_IN / 7.0)
    assert plots.smallest_font_pt(fig) >= plots.MIN_FONT_PT


def test_the_measured_title_states_what_the_sweep_shows() -> None:
    result = _xeon_like_result()
    title = plots.efficiency_title(result)
    assert (
        title == "Measured matmuls reach 39–89% of the roofline at B = 2–512; ≥ 90% only at B = 1"
    )
    assert "from B = 1" not in plots.plot_measured_roofline(result).axes[0].get_title()


def test_a_theoretical_peak_that_is_not_a_bound_is_not_labelled_one() -> None:
    result = _xeon_like_result()
    assert result.peak.flops_per_s > result.theoretical_peak_flops_per_s  # 402 > 333 GFLOP/s
    fig = plots.plot_measured_roofline(result)
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    theory = next(t for t in labels if t.startswith("theoretical peak"))
    assert "upper bound" not in theory and "not a bound" in theory
