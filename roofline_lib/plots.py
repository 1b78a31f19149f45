"""Roofline charts with matplotlib.

Every function takes an optional ``ax`` (drawing into a new figure when it is None), returns the
matplotlib Figure, and never calls ``plt.show()``. Colours come from :mod:`roofline_lib.palette`.
Axes are labelled with units; titles default to a sentence stating what the chart shows. Every
word is said in the environment's language (:func:`roofline_lib.words.say`), drawn with its font
(:func:`roofline_lib.words.use_language_font`, called wherever a figure is created).
"""

from __future__ import annotations

import itertools
import math
import re
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.backend_bases import RendererBase
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.layout_engine import ConstrainedLayoutEngine
from matplotlib.text import Annotation, Text
from matplotlib.ticker import FuncFormatter, LogLocator
from matplotlib.transforms import Bbox

from . import palette
from ._checks import positive_real
from .costs import BF16, Cost, MatmulDtypes, matmul
from .fmt import format_number, format_quantity
from .hardware import Chip, get_chip
from .roofline import achievable_flops_per_s, critical_intensity
from .throughput import matmul_throughput
from .words import math_text_family, say, say_later, text_width, use_language_font

INTENSITY_LABEL = say_later("Arithmetic intensity (FLOPs/byte)")
THROUGHPUT_LABEL = say_later("Achievable throughput (FLOP/s)")
"""The axis labels of a roofline chart, in English: draw them with ``say(INTENSITY_LABEL)``."""
PAGE_WIDTH_IN = 4.8
"""Figures are drawn (and, by :func:`fit_figure`, shrunk to) at most this wide, inches. A phone
390 CSS px wide shows a book figure about 340 px wide, so a point of text appears at about
340 / (4.8 × 72) ≈ 0.98 px."""
MIN_FONT_PT = 9.5
"""The smallest text in a figure, points: at :data:`PAGE_WIDTH_IN` it shows at about 9.3 CSS px
on a 390 px phone (the browser test asks for at least 9)."""
DEFAULT_FIGSIZE = (PAGE_WIDTH_IN, 3.7)

_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


def axes_or_new(ax: Axes | None) -> Axes:
    """``ax``, or the axes of a new figure of :data:`DEFAULT_FIGSIZE` with constrained layout,
    drawn with the language's font (:func:`~roofline_lib.words.use_language_font`)."""
    use_language_font()
    if ax is not None:
        return ax
    fig = Figure(figsize=DEFAULT_FIGSIZE, layout="constrained")
    return fig.add_subplot()


def fit_figure(
    fig: Figure, width_in: float = PAGE_WIDTH_IN, min_font_pt: float = MIN_FONT_PT
) -> Figure:
    """Shrink ``fig`` to at most ``width_in`` wide (keeping its shape), raise any text smaller
    than ``min_font_pt`` to it and wrap titles wider than the figure, so that the figure's text
    stays legible on a phone; a text mixing ``$math$`` with CJK words gets the CJK font
    (:func:`~roofline_lib.words.math_text_family`). Returns ``fig``."""
    width, height = fig.get_size_inches()
    if width > width_in:
        fig.set_size_inches(width_in, height * width_in / width)
    for text in fig.findobj(Text):
        if text.get_text() and _font_pt(text) < min_font_pt:
            text.set_fontsize(min_font_pt)
        if family := math_text_family(text.get_text()):
            text.set_fontfamily(family)
    _wrap_titles(fig)
    return fig


def _wrap_titles(fig: Figure) -> None:
    """Wrap any axes title that would stick out of the figure onto as many lines as it needs. Line breaks
    the title already has are kept; each line that is too wide is wrapped on its own."""
    renderer = _renderer(fig)
    for ax in fig.axes:
        # the title is centred on the axes: it fits when each half fits on its side of the centre
        centre = ax.get_window_extent(renderer).x0 + ax.get_window_extent(renderer).width / 2
        room = 2 * min(centre - fig.bbox.x0, fig.bbox.x1 - centre) * 0.98
        title = ax.title
        original = title.get_text()
        if not original or title.get_window_extent(renderer).width <= room:
            continue
        lines = []
        for line in original.split("\n"):
            title.set_text(line)
            if title.get_window_extent(renderer).width <= room:
                lines.append(line)
                continue
            if text_width(line) == len(line):
                for parts in range(2, 7):  # the fewest pieces that fit, of about equal length
                    wrapped = textwrap.fill(line, math.ceil(len(line) / parts) + 4)
                    title.set_text(wrapped)
                    if title.get_window_extent(renderer).width <= room:
                        break
            else:
                wrapped = _fewest_even_lines(title, line, room, renderer)
            lines.append(wrapped)
        title.set_text("\n".join(lines))


_CJK_TOKEN = re.compile(r"\s+|[^\s\u2e80-\ufaff\ufe30-\uffef]+|.")
_NO_BREAK_BEFORE = frozenset("，。；：、）”’！？》」")
_NO_BREAK_AFTER = frozenset("（“‘《「")
_CLAUSE_END = frozenset("，；：、。")
_OPERATORS = frozenset("=×≥≤≈<>+−–/·")


def _together(left: str, right: str) -> bool:
    """Whether a space between two Latin pieces must not break: a number and its unit, or
    either side an operator."""
    if text_width(right[0]) == 2 or text_width(left[-1]) == 2:
        return False
    return left[-1].isdigit() or left[-1] in _OPERATORS or right[0] in _OPERATORS


def fill(text: str, width: int) -> str:
    """``text`` wrapped to lines of at most ``width`` columns (:func:`text_width`).

    Text without CJK characters is :func:`textwrap.fill`'s, broken at spaces only. Text with
    them may also break between two CJK characters, as Chinese is set: never inside a Latin word
    or a number, before closing punctuation (，。）) or after opening punctuation (（“), nor
    between a number and its unit or around an operator ("12 GB/s", "B = 64"); a line that must
    break ends after its last comma or semicolon when that keeps it at least 40% full."""
    if text_width(text) == len(text):
        return textwrap.fill(text, width)
    pieces: list[str] = []
    for token in _CJK_TOKEN.findall(text):
        glued = pieces and not token.isspace() and not pieces[-1].isspace()
        if glued and (token[0] in _NO_BREAK_BEFORE or pieces[-1][-1] in _NO_BREAK_AFTER):
            pieces[-1] += token
        elif len(pieces) > 1 and pieces[-1] == " " and _together(pieces[-2], token):
            pieces[-2:] = [pieces[-2] + " " + token]
        else:
            pieces.append(token)
    lines, line = [], ""
    for piece in pieces:
        if piece.isspace():
            line += " " if line else ""
            continue
        if line and text_width(line + piece) > width:
            cut = max((i for i, c in enumerate(line) if c in _CLAUSE_END), default=-1) + 1
            if cut == 0 or text_width(line[:cut]) < 0.4 * width:
                cut = len(line)
            lines.append(line[:cut].rstrip())
            line = line[cut:].lstrip()
        line += piece
    lines.append(line.rstrip())
    return "\n".join(lines)


def _fewest_even_lines(title: Text, line: str, room: float, renderer: RendererBase) -> str:
    """``line`` (with CJK text) filled into the fewest lines that fit ``room`` (display units),
    as even as that many lines can be: its pieces are of very different widths (a number with
    its unit, a Chinese character), so no one width per line count does."""
    best = fill(line, math.ceil(text_width(line) / 6) + 4)  # if none fits: six lines
    lines = 0
    for width in range(text_width(line) - 1, 7, -1):
        wrapped = fill(line, width)
        title.set_text(wrapped)
        if title.get_window_extent(renderer).width > room:
            continue
        if lines and wrapped.count("\n") > lines:
            break
        best, lines = wrapped, wrapped.count("\n")
    return best


def smallest_font_pt(fig: Figure) -> float:
    """The smallest font size of any visible, non-empty text in ``fig``, points."""
    sizes = [_font_pt(t) for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    return min(sizes) if sizes else float("inf")


def _font_pt(text: Text) -> float:
    """``text``'s font size, points (``get_fontsize`` returns points; its type also admits the
    names, such as "small", that only the setter takes)."""
    return float(text.get_fontsize())


def figure_of(ax: Axes) -> Figure:
    """The top-level figure ``ax`` is drawn in (also for axes in a subfigure): what the charts
    return and fit to the page."""
    fig = ax.get_figure(root=True)
    if fig is None:  # matplotlib creates every Axes in a figure
        raise ValueError("ax belongs to no figure")
    return fig


def _renderer(fig: Figure) -> RendererBase:
    """A renderer for ``fig`` with its layout done (an Agg canvas if the figure has none)."""
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    fig.draw_without_rendering()
    # backend_agg has no type annotations: get_renderer returns a RendererAgg
    return canvas.get_renderer()  # type: ignore[no-untyped-call,no-any-return]


LEGEND_WRAP_CHARS = 50
"""A legend entry longer than this is wrapped: at ``MIN_FONT_PT`` a longer line would make the
legend wider than the page, and the phone would shrink the whole picture to fit it."""


def legend_below(ax: Axes, ncols: int = 1) -> None:
    """The legend below the axes, outside the plot, so that it hides no line or point: a figure
    legend ("outside lower center") for a one-axes figure with constrained layout, otherwise an
    axes legend at matplotlib's "best" place."""
    fig = ax.figure
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return
    labels = [fill(label, LEGEND_WRAP_CHARS) for label in labels]
    if isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine) and len(fig.axes) == 1:
        for old in list(fig.legends):
            old.remove()
        fig.legend(
            handles,
            labels,
            loc="outside lower center",
            ncols=ncols,
            fontsize=MIN_FONT_PT,
            frameon=False,
        )
    else:
        ax.legend(handles, labels, fontsize=MIN_FONT_PT, loc="best")


_LABEL_SPOTS = (
    (-5, 5, "right", "bottom"),
    (5, -5, "left", "top"),
    (0, 8, "center", "bottom"),
    (0, -8, "center", "top"),
    (8, 0, "left", "center"),
    (-8, 0, "right", "center"),
    (5, 5, "left", "bottom"),
    (-5, -5, "right", "top"),
    (0, 22, "center", "bottom"),
    (0, -22, "center", "top"),
    (-5, 20, "right", "bottom"),
    (5, -20, "left", "top"),
    (0, 36, "center", "bottom"),
    (0, -36, "center", "top"),
)
"""Where a point's label may go, in order of preference: (dx, dy) in points from the point,
and the label's alignment there. Up-left and down-right come first: a roofline rises to the
right, so those corners of a point on it are empty."""
_FAR_SPOTS = (
    (-24, 24, "right", "bottom"),
    (0, 30, "center", "bottom"),
    (24, 24, "left", "bottom"),
    (-24, -24, "right", "top"),
    (0, -30, "center", "top"),
    (24, -24, "left", "top"),
    (-40, 12, "right", "bottom"),
    (40, -12, "left", "top"),
)
"""Spots further from the point, tried when no near spot is both clear and nearest its own
point: the label is then joined to its point by a thin leader line."""


def _text_box(ann: Annotation, renderer: RendererBase) -> Bbox:
    """The display box of an annotation's text alone: without its leader line, whose box
    reaches the point it labels."""
    if ann.arrow_patch is None:
        return ann.get_window_extent(renderer)
    ann.update_positions(renderer)
    return Text.get_window_extent(ann, renderer)


def label_is_nearest_its_point(
    box: Bbox, own: Sequence[float], markers: Sequence[Sequence[float]]
) -> bool:
    """Whether a label's ``box`` reads as its own point's: nearer ``own`` than any other marker
    centre of ``markers`` (display units), both at its edge and, within a factor of 1.5, at its
    middle (an edge can touch its point while the text's middle sits over another marker)."""
    cx, cy = (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2

    def edge(p: Sequence[float]) -> float:
        dx = max(box.x0 - p[0], 0.0, p[0] - box.x1)
        dy = max(box.y0 - p[1], 0.0, p[1] - box.y1)
        return float(np.hypot(dx, dy))

    def centre(p: Sequence[float]) -> float:
        return float(np.hypot(cx - p[0], cy - p[1]))

    return all(
        edge(m) > edge(own) and 1.5 * centre(m) > centre(own)
        for m in markers
        if np.hypot(m[0] - own[0], m[1] - own[1]) > 1.0  # not the point itself
    )


def _marker_boxes(ax: Axes, renderer: RendererBase) -> list[Bbox]:
    """Display boxes of every marker drawn in ``ax`` (a marker's size plus 2 points)."""
    boxes = []
    for line in ax.get_lines():
        if line.get_marker() in (None, "None", "none", "", " ") or not line.get_visible():
            continue
        half = renderer.points_to_pixels(line.get_markersize() / 2 + 2)
        xy = ax.transData.transform(np.column_stack([line.get_xdata(), line.get_ydata()]))
        boxes += [Bbox.from_extents(x - half, y - half, x + half, y + half) for x, y in xy]
    return boxes


def _line_points(ax: Axes) -> np.ndarray:
    """Display coordinates along every data line of ``ax`` (densified), to keep labels off them."""
    out = [np.empty((0, 2))]
    for line in ax.get_lines():
        if line.get_linestyle() in ("None", "none", "", " ") or not line.get_visible():
            continue
        path = line.get_transform().transform(np.asarray(line.get_xydata(), dtype=float))
        path = path[np.all(np.isfinite(path), axis=1)]
        for a, b in itertools.pairwise(path):
            steps = max(2, int(np.hypot(*(b - a)) / 3))
            out.append(a + np.linspace(0, 1, steps)[:, None] * (b - a))
    return np.concatenate(out)


def place_labels(
    ax: Axes,
    labels: Sequence[tuple[str, tuple[float, float]]],
    *,
    avoid_lines: bool = True,
    **text_kw: Any,
) -> list[Annotation]:
    """Annotate each ``(text, (x, y))`` of ``labels`` next to its point, at the first spot of a
    fixed list (up-left, down-right, above, below, ...) where the label stays inside the axes
    and overlaps no marker, no other text of the axes and, if possible, no line. Returns the
    annotations. Call it last, once the axes' limits and the legend are final. The figure is
    first fitted to the page (:func:`fit_figure`: width, text size, wrapped titles), so that the
    layout the labels are placed in is the one the book shows. With ``avoid_lines=False`` a
    label may cross a line, and takes the nearest spot clear of markers and text."""
    fit_figure(figure_of(ax))
    renderer = _renderer(figure_of(ax))
    inside = ax.get_window_extent(renderer)
    taken = _marker_boxes(ax, renderer) + [
        t.get_window_extent(renderer) for t in ax.texts if t.get_visible() and t.get_text()
    ]
    lines = _line_points(ax)
    markers = [((b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2) for b in _marker_boxes(ax, renderer)]
    kw: dict[str, Any] = {"fontsize": MIN_FONT_PT, **text_kw}
    placed: list[Annotation] = []
    for text, xy in labels:
        own = tuple(float(v) for v in ax.transData.transform(xy))
        chosen = None
        # a spot that reads as this point's (off the lines, then across them), else a spot
        # further off with a leader line; only then any spot clear of markers and text
        # (a label further off gets a leader line to its point, which says whose it is)
        passes: tuple[tuple[bool, bool, tuple[tuple[int, int, str, str], ...]], ...]
        if avoid_lines:
            passes = (
                (True, True, _LABEL_SPOTS),
                (True, False, _FAR_SPOTS),
                (False, True, _LABEL_SPOTS),
                (False, False, _FAR_SPOTS),
                (True, False, _LABEL_SPOTS),
                (False, False, _LABEL_SPOTS),
            )
        else:
            passes = (
                (False, True, _LABEL_SPOTS),
                (False, False, _FAR_SPOTS),
                (False, False, _LABEL_SPOTS),
            )
        for keep_off_lines, nearest_own, spots in passes:
            for dx, dy, ha, va in spots:
                leader: dict[str, Any] = (
                    {"arrowprops": {"arrowstyle": "-", "lw": 0.6, "color": "0.35"}}
                    if spots is _FAR_SPOTS
                    else {}
                )
                ann = ax.annotate(
                    text,
                    xy,
                    xytext=(dx, dy),
                    textcoords="offset points",
                    ha=ha,
                    va=va,
                    **leader,
                    **kw,
                )
                box = _text_box(ann, renderer)
                fits = (
                    box.x0 >= inside.x0
                    and box.x1 <= inside.x1
                    and box.y0 >= inside.y0
                    and box.y1 <= inside.y1
                )
                clear = fits and not any(box.overlaps(t) for t in taken)
                if clear and keep_off_lines and len(lines):
                    x, y = lines[:, 0], lines[:, 1]
                    clear = not np.any(
                        (x >= box.x0) & (x <= box.x1) & (y >= box.y0) & (y <= box.y1)
                    )
                if clear and nearest_own:
                    clear = label_is_nearest_its_point(box, own, markers)
                if clear:
                    chosen = ann
                    break
                ann.remove()
            if chosen is not None:
                break
        if chosen is None:  # nowhere free: the first spot, as before
            dx, dy, ha, va = _LABEL_SPOTS[0]
            chosen = ax.annotate(
                text, xy, xytext=(dx, dy), textcoords="offset points", ha=ha, va=va, **kw
            )
        taken.append(_text_box(chosen, renderer))
        placed.append(chosen)
    return placed


def _flops_formatter(unit: str = "FLOP/s") -> FuncFormatter:
    return FuncFormatter(lambda v, _pos: format_quantity(v, unit, 3) if v > 0 else "")


def _number_formatter() -> FuncFormatter:
    return FuncFormatter(lambda v, _pos: format_number(v, 3) if v > 0 else "")


def log_axes(
    ax: Axes,
    xlabel: str,
    ylabel: str,
    *,
    xunit: str | None = None,
    yunit: str | None = "FLOP/s",
) -> None:
    """Log-log ``ax``: both axes logarithmic and labelled, at most six labelled decades on x
    (what a phone's width holds), tick labels as plain numbers on an axis whose unit is None and
    as quantities ("1.5 TFLOP/s") on one with a unit, and a faint grid."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.xaxis.set_major_locator(LogLocator(base=10, numticks=6))
    for axis, unit in ((ax.xaxis, xunit), (ax.yaxis, yunit)):
        axis.set_major_formatter(_number_formatter() if unit is None else _flops_formatter(unit))
    ax.grid(True, which="major", alpha=0.3)
    ax.grid(True, which="minor", alpha=0.08)


def draw_roof(
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


def intensity_grid(lo: float, hi: float) -> np.ndarray:
    """400 intensities from ``lo`` to ``hi`` (FLOPs/byte), evenly spaced on a log axis."""
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
    ax = axes_or_new(ax)
    x = intensity_grid(*intensity_range)
    i_high, i_low = peak / w_high, peak / w_low
    lo, hi = intensity_range
    region_text = (
        (lo, i_high, "memory", say("bandwidth-bound\nat both")),
        (i_high, i_low, "mixed", say("bound only at\nlow bandwidth")),
        (i_low, hi, "compute", say("compute-bound\nat both")),
    )
    spans = [(start, end, kind, text) for start, end, kind, text in region_text if end > start]
    shades = {
        kind: ax.axvspan(start, end, color=palette.REGIONS[kind], alpha=palette.REGION_ALPHA, lw=0)
        for start, end, kind, _text in spans
    }
    for w, label, color in (
        (w_low, labels[0], palette.SERIES[1]),
        (w_high, labels[1], palette.SERIES[0]),
    ):
        draw_roof(ax, x, peak, w, color, say("bandwidth {label}", label=label), ridge_lw=1.2)
        ax.annotate(  # at the foot of the ridge, where no line runs
            say("critical {value}", value=format_number(peak / w, 3)),
            xy=(peak / w, 0),
            xycoords=("data", "axes fraction"),
            xytext=(3, 4),
            textcoords="offset points",
            fontsize=MIN_FONT_PT,
            color=color,
            rotation=90,
            va="bottom",
        )
    ax.axhline(
        peak,
        color=palette.PEAK,
        ls="--",
        lw=1,
        label=say("peak {value}", value=format_quantity(peak, "FLOP/s")),
    )
    log_axes(ax, say(INTENSITY_LABEL), say(THROUGHPUT_LABEL))
    ax.set_xlim(lo, hi)
    ax.set_ylim(x[0] * w_low / 2, peak * 8)
    legend_below(ax)
    ax.set_title(
        title or say("More bandwidth moves the ridge left: fewer operations are bandwidth-bound")
    )
    _region_labels(ax, spans, peak, shades)
    return figure_of(ax)


def _region_labels(
    ax: Axes,
    spans: Sequence[tuple[float, float, str, str]],
    peak: float,
    shades: Mapping[str, Artist],
) -> None:
    """Each region's name centred over it, just above the roof (the axes grow upwards to hold
    it) and inside its borders. When a name does not fit there (a narrow region, whose name
    would cross the ridge lines that bound it), every region is named in the legend instead, on
    its shade (``shades``, each region's span by kind), in one line: below the roof a name would
    cross the rooflines."""
    fig = figure_of(ax)
    pad_px = 2 * fig.dpi / 72  # 2 pt clear of each border
    base = peak * 1.5
    placed = [
        ax.text(np.sqrt(start * end), base, text, ha="center", va="bottom", fontsize=MIN_FONT_PT)
        for start, end, _kind, text in spans
    ]
    renderer = _renderer(fig)
    tallest_px = max(label.get_window_extent(renderer).height for label in placed) + pad_px
    _headroom(ax, base, tallest_px, renderer)
    renderer = _renderer(fig)
    taken = [t.get_window_extent(renderer) for t in ax.texts if t not in placed]
    for (start, end, _kind, _text), label in zip(spans, placed, strict=True):
        box = label.get_window_extent(renderer)
        left, right = (ax.transData.transform((x, peak))[0] for x in (start, end))
        fits = left + pad_px <= box.x0 and box.x1 <= right - pad_px
        fits = fits and box.y1 <= ax.get_window_extent(renderer).y1
        if not fits or any(box.overlaps(t) for t in taken):
            break
        taken.append(box)
    else:
        return
    for label in placed:
        label.remove()
    for _start, _end, kind, text in spans:
        shades[kind].set_label(one_line(text))
    legend_below(ax)


def _headroom(ax: Axes, y: float, height_px: float, renderer: RendererBase) -> None:
    """Raise the top of ``ax``'s log y axis, if need be, so that ``height_px`` pixels fit above
    ``y``: with ``b``, ``t`` and ``c`` the logarithms of the bottom, top and ``y``, and ``H`` the
    axes' height, (t − c)/(t − b)·H ≥ h gives t ≥ (c·H − b·h)/(H − h). An axes too short for it
    is left as it is."""
    frame = ax.get_window_extent(renderer)
    bottom, top = (math.log10(v) for v in ax.get_ylim())
    c, h, H = math.log10(y), height_px, frame.height
    if H <= h or (top - c) / (top - bottom) * H >= h:
        return
    ax.set_ylim(top=10 ** ((c * H - bottom * h) / (H - h)))


def one_line(text: str) -> str:
    """``text``'s lines joined into one: by a space, or by nothing between two CJK characters
    (Chinese is set without spaces)."""
    lines = [line.strip() for line in text.split("\n") if line.strip()]
    out = lines[0] if lines else ""
    for line in lines[1:]:
        cjk_join = text_width(out[-1]) == 2 and text_width(line[0]) == 2
        out += ("" if cjk_join else " ") + line
    return out


def _op_points(ops: Mapping[str, Cost]) -> list[tuple[str, float]]:
    points = []
    for label, cost in ops.items():
        intensity = np.asarray(cost.arithmetic_intensity)
        if intensity.ndim != 0:
            raise ValueError(f"op {label!r}: plot one shape per op (got an array of intensities)")
        points.append((label, float(intensity)))
    return points


def _bandwidth(chip: Chip, level: str, n_chips: int | None) -> float:
    """``chip.bandwidth(level)``, at ``n_chips`` for a link (every port in use without it)."""
    if n_chips is None or level not in chip.links:
        return chip.bandwidth(level)
    return float(chip.bandwidth(level, n_chips))


def plot_roofline(
    chips: Sequence[Chip | str] | Chip | str,
    dtype: str = "bf16",
    level: str = "hbm",
    *,
    ops: Mapping[str, Cost] | None = None,
    intensity_range: tuple[float, float] | None = None,
    ax: Axes | None = None,
    title: str | None = None,
    n_chips: int | None = None,
) -> Figure:
    """Rooflines of one or more chips at one level, each with its critical intensity marked;
    operations (``{label: Cost}``) drawn as labelled points on every chip's roofline. At a link
    level, ``n_chips`` is the group size N whose bandwidth the roof uses
    (:meth:`~roofline_lib.hardware.Chip.bandwidth`; left out, every port in use)."""
    chip_list = [get_chip(c) for c in ([chips] if isinstance(chips, Chip | str) else chips)]
    if not chip_list:
        raise ValueError("chips must name at least one chip")
    points = _op_points(ops or {})
    n = n_chips
    criticals = [c.peak(dtype) / _bandwidth(c, level, n) for c in chip_list]
    if intensity_range is None:
        candidates = [*criticals, *(i for _, i in points)]
        intensity_range = (min(0.1, min(candidates) / 3), max(1e4, max(candidates) * 3))
    x = intensity_grid(*intensity_range)
    ax = axes_or_new(ax)
    for idx, (chip, i_star) in enumerate(zip(chip_list, criticals, strict=True)):
        color = palette.series_color(idx)
        peak, bw = chip.peak(dtype), _bandwidth(chip, level, n)
        draw_roof(
            ax,
            x,
            peak,
            bw,
            color,
            say("{chip}: critical {value}", chip=chip.name, value=format_number(i_star, 3)),
        )
        for j, (_label, intensity) in enumerate(points):
            y = float(achievable_flops_per_s(intensity, peak, bw))
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
    log_axes(
        ax,
        say(
            "Arithmetic intensity (FLOPs/byte of {level})",
            level=chip_list[0].level_name(level),
        )
        if level != "hbm"
        else say(INTENSITY_LABEL),
        say(THROUGHPUT_LABEL),
    )
    ax.set_xlim(*intensity_range)
    if points:  # headroom above the roof for the labels of points on it
        bottom, top = ax.get_ylim()
        ax.set_ylim(bottom, max(top, max(c.peak(dtype) for c in chip_list) * 8))
    legend_below(ax)
    if title is None:
        names = ", ".join(c.name for c in chip_list)
        title = say(
            "{chips} ({dtype}): below the critical intensity, bandwidth sets the speed",
            chips=names,
            dtype=dtype,
        )
    ax.set_title(title, fontsize=10)
    top_chip = max(chip_list, key=lambda c: c.peak(dtype))  # label the highest line's points
    place_labels(
        ax,
        [
            (
                label,
                (
                    i,
                    float(
                        achievable_flops_per_s(
                            i, top_chip.peak(dtype), _bandwidth(top_chip, level, n)
                        )
                    ),
                ),
            )
            for label, i in points
        ],
    )
    return figure_of(ax)


def plot_throughput_vs_batch(
    curves: Mapping[str, tuple[np.ndarray, np.ndarray]],
    *,
    peaks: Mapping[str, float] | None = None,
    ax: Axes | None = None,
    log: bool = False,
    xlabel: str | None = None,
    ylabel: str | None = None,
    title: str | None = None,
    marks: Mapping[str, float] | None = None,
) -> Figure:
    """Throughput against batch size: ``curves`` maps a label to (B values, FLOP/s values);
    ``peaks`` maps a label to a horizontal peak line; ``marks`` maps a label to a batch size
    marked by a dotted vertical line in the colour of the curve of the same position, labelled
    where it crosses that curve (e.g. ``{"B* ≈ 240": 240}``). The axis labels default to the
    batch size in tokens and :data:`THROUGHPUT_LABEL`."""
    xlabel = xlabel or say("Batch size B (tokens)")
    ylabel = ylabel or say(THROUGHPUT_LABEL)
    ax = axes_or_new(ax)
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
        log_axes(ax, xlabel, ylabel)
    else:
        ax.yaxis.set_major_formatter(_flops_formatter())
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)
        ax.set_xlim(0, max(float(np.max(b)) for b, _ in curves.values()) if curves else None)
        ax.set_ylim(0, max(peaks.values()) * 1.12 if peaks else None)
    legend_below(ax)
    ax.set_title(
        title or say("Throughput grows with batch size until the chip is compute-bound"),
        fontsize=10,
    )
    labels = []
    for idx, (label, b_mark) in enumerate((marks or {}).items()):
        color = palette.series_color(idx)
        ax.axvline(b_mark, color=color, ls=":", lw=1.2)
        b, y = (np.asarray(v, dtype=float) for v in list(curves.values())[idx % len(curves)])
        labels.append((label, (b_mark, float(np.interp(b_mark, b, y))), color))
    for label, xy, color in labels:
        place_labels(ax, [(label, xy)], color=color)
    return figure_of(ax)


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
        peaks={
            say("{chip} peak {value}", chip=c.name, value=format_quantity(peak, "FLOP/s")): peak
        },
        ax=ax,
        log=log,
        ylabel=say("Achievable {dtype} throughput (FLOP/s)", dtype=cost_dtype),
        title=title
        or say("{chip}: small matmuls need a larger batch to reach the peak", chip=c.name),
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
    ax = axes_or_new(ax)
    cost = matmul(np.asarray(B), D, F, dtypes)
    ax.plot(
        B,
        cost.arithmetic_intensity,
        color=palette.PEAK,
        lw=2,
        label=say("matmul, D = {D}, F = {F}", D=D, F=F),
    )
    for idx, chip in enumerate(get_chip(c) for c in chips):
        i_star = critical_intensity(chip, cost.compute_dtype)
        ax.axhline(
            i_star,
            color=palette.series_color(idx),
            ls="--",
            lw=1.4,
            label=say("{chip} critical {value}", chip=chip.name, value=format_number(i_star, 3)),
        )
    log_axes(ax, say("Batch size B (tokens)"), say(INTENSITY_LABEL), yunit=None)
    legend_below(ax)
    ax.set_title(
        title or say("A matmul's intensity is about B: newer chips need bigger batches"),
        fontsize=10,
    )
    return figure_of(ax)


def _label_lines_on_them(ax: Axes, lines: Sequence[tuple[str, float]]) -> None:
    """Write each ``(text, slope)`` on the line y = slope·x of log-log ``ax``, on a white box,
    at the first of several points along the line (from its upper end) where the text stays
    inside the axes and overlaps no marker and no text already there."""
    renderer = _renderer(figure_of(ax))
    inside = ax.get_window_extent(renderer)
    taken = _marker_boxes(ax, renderer) + [
        t.get_window_extent(renderer) for t in ax.texts if t.get_visible() and t.get_text()
    ]
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    for text, slope in lines:
        lo, hi = max(x0, y0 / slope), min(x1, y1 / slope)
        if hi <= lo:
            continue
        placed = None
        for x in np.geomspace(lo, hi, 41)[::-1][1:-1]:
            label = ax.text(
                x,
                slope * x,
                text,
                ha="center",
                va="center",
                fontsize=MIN_FONT_PT,
                color="0.35",
                bbox={"fc": "white", "ec": "none", "pad": 0.5},
                zorder=2,
            )
            box = label.get_window_extent(renderer)
            fits = inside.x0 <= box.x0 and box.x1 <= inside.x1
            fits = fits and inside.y0 <= box.y0 and box.y1 <= inside.y1
            if fits and not any(box.overlaps(t) for t in taken):
                placed = label
                break
            label.remove()
        if placed is not None:
            taken.append(placed.get_window_extent(renderer))


VENDOR_COLORS = {"NVIDIA": palette.SERIES[0], "AMD": palette.SERIES[1], "Google": palette.SERIES[2]}
"""One colour per chip maker in :func:`plot_chip_balance` (other makers get the fourth colour)."""


def plot_chip_balance(
    chips: Sequence[Chip | str],
    dtype: str = "bf16",
    level: str = "hbm",
    *,
    intensities: Sequence[float] = (100, 200, 400, 800),
    arrows: Sequence[tuple[str, str]] = (),
    ax: Axes | None = None,
    title: str | None = None,
    n_chips: int | None = None,
) -> Figure:
    """Each chip as a point at its bandwidth W at ``level`` (x, bytes/s) and its dense ``dtype``
    peak C (y, FLOP/s), labelled with its critical intensity I* = C/W, on log-log axes. Dashed
    diagonals C = I·W join the chips of equal I* for each of ``intensities`` (FLOPs/byte); each
    ``(old, new)`` of ``arrows`` draws an arrow from one chip to another. Labels are placed by
    :func:`place_labels` (each diagonal's I* on the line, where it is clear of them), so that
    none overlaps another label or a point. At a link level, W is the link's for ``n_chips``
    chips (left out: every port in use)."""
    cs = [get_chip(c) for c in chips]
    if not cs:
        raise ValueError("chips must name at least one chip")
    xs = np.array([_bandwidth(c, level, n_chips) for c in cs], dtype=float)
    ys = np.array([c.peak(dtype) for c in cs], dtype=float)
    x_lim = (xs.min() / 1.6, xs.max() * 2.2)  # room at the top right for the diagonals' names
    y_lim = (ys.min() / 1.6, ys.max() * 2.2)
    use_language_font()
    if ax is None:  # taller than the default: nine labelled points
        ax = Figure(figsize=(PAGE_WIDTH_IN, 4.3), layout="constrained").add_subplot()
    log_axes(
        ax,
        say(
            "{level} bandwidth W (bytes/s)",
            level=level.upper() if level == "hbm" else level,
        ),
        say("Dense {dtype} peak C (FLOP/s)", dtype=dtype),
        xunit="B/s",
    )
    ax.set_xlim(*x_lim)
    ax.set_ylim(*y_lim)
    x = np.logspace(np.log10(x_lim[0]), np.log10(x_lim[1]), 50)
    for i_star in intensities:
        ax.plot(x, i_star * x, color="0.6", lw=0.8, ls="--", zorder=1)
    for c, xc, yc in zip(cs, xs, ys, strict=True):
        color = VENDOR_COLORS.get(c.vendor, palette.SERIES[3])
        marker = "s" if c.vendor == "Google" else "o"
        ax.plot([xc], [yc], marker=marker, ms=7, color=color, mec="white", ls="none", zorder=3)
    for old, new in arrows:
        a, b = get_chip(old), get_chip(new)
        ax.annotate(
            "",
            xy=(_bandwidth(b, level, n_chips), b.peak(dtype)),
            xytext=(_bandwidth(a, level, n_chips), a.peak(dtype)),
            arrowprops={"arrowstyle": "->", "color": "0.3", "lw": 1, "shrinkA": 5, "shrinkB": 5},
        )
    for axis in (ax.xaxis, ax.yaxis):  # 1, 2, 5 per decade: the chips span only two decades
        axis.set_major_locator(LogLocator(base=10, subs=(1, 2, 5)))
        axis.set_minor_formatter(FuncFormatter(lambda _v, _pos: ""))
    ax.set_title(
        title
        or say(
            "Critical intensity I* = C/W of each chip ({dtype}, {level})",
            dtype=dtype,
            level=level,
        )
    )
    fit_figure(figure_of(ax))
    for c, xc, yc in zip(cs, xs, ys, strict=True):
        color = VENDOR_COLORS.get(c.vendor, palette.SERIES[3])
        name = f"{c.name}: {format_number(yc / xc, 3)}"  # I* = C/W
        place_labels(ax, [(name, (xc, yc))], avoid_lines=False, color=color)
    _label_lines_on_them(ax, [(f"I* = {format_number(i, 3)}", i) for i in intensities])
    return figure_of(ax)


def plot_multilevel_roofline(
    chip: Chip | str,
    dtype: str = "bf16",
    levels: Sequence[str] | None = None,
    *,
    intensity_range: tuple[float, float] = (1.0, 1e5),
    ax: Axes | None = None,
    title: str | None = None,
    n_chips: int | None = None,
) -> Figure:
    """One chip's rooflines at several levels (HBM, on-chip memory, each link) on one chart.

    The x axis is FLOPs per byte *moved at that level*: the same operation sits at a different
    intensity on each curve, and its slowest level is the one that bounds it. Links are drawn at
    their bandwidth for ``n_chips`` chips (left out: every port in use).
    """
    c = get_chip(chip)
    levels = list(levels) if levels is not None else list(c.levels)
    if not levels:
        raise ValueError("levels must name at least one level")
    peak = c.peak(dtype)
    x = intensity_grid(*intensity_range)
    ax = axes_or_new(ax)
    for idx, level in enumerate(levels):
        bw = _bandwidth(c, level, n_chips)
        color = palette.series_color(idx)
        label = say(
            "{level} {bandwidth}: critical {value}",
            level=c.level_name(level),
            bandwidth=format_quantity(bw, "B/s"),
            value=format_number(peak / bw, 3),
        )
        draw_roof(ax, x, peak, bw, color, label)
    ax.axhline(
        peak,
        color=palette.PEAK,
        ls="--",
        lw=1,
        label=say("peak {value} ({dtype})", value=format_quantity(peak, "FLOP/s"), dtype=dtype),
    )
    log_axes(
        ax,
        say("Arithmetic intensity at each level (FLOPs per byte moved there)"),
        say(THROUGHPUT_LABEL),
    )
    ax.set_xlim(*intensity_range)
    legend_below(ax)
    ax.set_title(
        title
        or say(
            "{chip}: the slower the level, the more reuse it takes to stay compute-bound",
            chip=c.name,
        ),
        fontsize=10,
    )
    return figure_of(ax)


def __getattr__(name: str) -> Any:
    """``plots.plot_measured_roofline``, ``plots.plot_measurements`` and
    ``plots.efficiency_title``, which book pages call, live in :mod:`roofline_lib.measure.plot`;
    imported on first use, so that importing this module never imports roofline_lib.measure
    (which imports this module to draw)."""
    if name in ("plot_measured_roofline", "plot_measurements", "efficiency_title"):
        from .measure import plot

        return getattr(plot, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
