"""The readability check of a figure at the book's size, shared by the library's figure test
(tests/lib/test_lib_figures_readable.py) and the pages' (tests/book/test_book_figures_readable.py):
no two texts overlap, no legend covers a plotted point or line, no text is smaller than
``plots.MIN_FONT_PT``, no figure is wider than the page.

Each figure is fitted to the page as the book does (:func:`roofline_lib.plots.fit_figure`) and laid
out by matplotlib's Agg renderer; the text and legend extents come from
``get_window_extent(renderer)``, the points from the data transform.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.text import Text
from matplotlib.transforms import Bbox

import roofline_lib as rl
from roofline_lib import plots
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


def xeon_like_result() -> MeasuredRoofline:
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
        clock_source="'cpu MHz' in /proc/cpuinfo: the current or nominal clock; turbo may run faster",
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
