"""The roofline explorer: choose a chip, a number format and an operation, move B, D and F, and
watch the operation's point move on the chip's roofline.

In JupyterLab (``make lab``)::

    from roofline_lib.explorer import explore
    explore()                                  # or explore("H100 SXM", "int8", "matmul", B=64)

Everything it shows comes from the library: the operation's cost from :mod:`roofline_lib.costs`
(or :mod:`roofline_lib.sharding` for the network case), the verdict from
:func:`roofline_lib.roofline.analyze`, the chart from :func:`roofline_lib.plots.plot_roofline`
and the numbers from :mod:`roofline_lib.fmt`. No formula is written here. Its words are in the
environment's language (:mod:`roofline_lib.words`); the tables below hold them in English.

:func:`snapshot` builds the same explorer with its controls disabled, for a static page: the
book displays one, and its widget state is embedded in the HTML so that it renders without a
kernel. :func:`evaluate`, :func:`readout_html` and :func:`plot_reading` are the pieces, usable
without widgets.
"""

from __future__ import annotations

import html
import io
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import ipywidgets as widgets
from matplotlib.figure import Figure

from . import palette
from .costs import Cost, MatmulDtypes, batched_matmul, dot_product, elementwise, matmul
from .costs import matmul_dtypes as _matmul_dtypes
from .fmt import format_number, format_percent, format_quantity
from .hardware import CATALOG, Chip, get_chip
from .plots import plot_roofline
from .roofline import RooflineEstimate, analyze
from .sharding import ShardedMatmulCost, sharded_matmul
from .words import say, say_later, use_language_font

SHARDS = 2
"""The network operation splits D over this many chips (both sources' 2-chip example)."""


@dataclass(frozen=True)
class Operation:
    """One operation the explorer offers.

    Attributes:
        label: what the menu shows.
        short: a short name for the chart's title.
        uses: which of the sliders B, D, F the operation depends on.
        build: (B, D, F, dtypes) → its cost.
        network: True if it is timed on the chip's default_link instead of HBM.
        vector: True for vector (non-matmul) work, which runs below the matrix-unit peak.
    """

    label: str
    short: str
    uses: str
    build: Callable[[int, int, int, MatmulDtypes], Cost | ShardedMatmulCost]
    network: bool = False
    vector: bool = False


OPERATIONS: dict[str, Operation] = {
    "matmul": Operation(
        say_later("matmul X[B, D] · Y[D, F]"),
        say_later("The matmul"),
        "BDF",
        lambda B, D, F, dt: matmul(B, D, F, dt),
    ),
    "batched_matmul": Operation(
        say_later("batched matmul: a different Y[D, F] for each of the B rows"),
        say_later("The batched matmul"),
        "BDF",
        lambda B, D, F, dt: batched_matmul(B, D, F, dt),
    ),
    "sharded_matmul": Operation(
        say_later("matmul split along D over 2 chips (network)"),
        say_later("The 2-chip matmul"),
        "BDF",
        lambda B, D, F, dt: sharded_matmul(B, D, F, SHARDS, dt),
        network=True,
    ),
    "dot_product": Operation(
        say_later("dot product of two length-D vectors"),
        say_later("The dot product"),
        "D",
        lambda B, D, F, dt: dot_product(D, dt.x),
        vector=True,
    ),
    "relu": Operation(
        say_later("ReLU over a [B, D] activation"),
        say_later("ReLU"),
        "BD",
        lambda B, D, F, dt: elementwise(B * D, "relu", dt.x),
        vector=True,
    ),
    "layernorm": Operation(
        say_later("LayerNorm over a [B, D] activation"),
        say_later("LayerNorm"),
        "BD",
        lambda B, D, F, dt: elementwise(B * D, "layernorm", dt.x),
        vector=True,
    ),
    "softmax": Operation(
        say_later("softmax over a [B, D] activation"),
        say_later("Softmax"),
        "BD",
        lambda B, D, F, dt: elementwise(B * D, "softmax", dt.x),
        vector=True,
    ),
}
"""The operations, by key."""

NUMBER_FORMATS: dict[str, str] = {
    "bf16": say_later("bf16 × bf16 → bf16"),
    "int8": say_later("int8 × int8 → int8"),
    "w8a16": say_later("bf16 activations × int8 weights"),
    "fp32": say_later("fp32 × fp32 → fp32"),
}
"""Number formats (matmul dtype presets of :func:`roofline_lib.costs.matmul_dtypes`), by key.
Vector operations use the activation dtype (bf16 for w8a16)."""

SLIDER_EXPONENTS = {"B": (0, 20, 0.5), "D": (6, 17, 1), "F": (6, 17, 1)}
"""Each slider's range as powers of two (min, max, step): B from 1 to 2²⁰ tokens, D and F from
64 to 131,072."""


CHART_FIGSIZE = (5.6, 3.7)
"""The chart's size in inches: small enough that its text stays legible when a phone shrinks it."""

INTENSITY_RANGE = (0.05, 2e5)
"""The chart's x range in FLOPs/byte: wide enough that the point never leaves it."""

LIVE_HINT = say_later(
    "Move a slider or change a menu: the point, the verdict and the times follow. "
    "Numbers come from <code>roofline_lib</code>."
)
SNAPSHOT_NOTE = say_later(
    "<b>Snapshot</b>, rendered when the book was built: these controls do not respond here. "
    "Live: <code>make lab</code>, then <code>from roofline_lib.explorer import explore; "
    "explore()</code>."
)
VECTOR_NOTE = say_later(
    "Vector operations run on vector units, whose peak is below the matrix-unit peak drawn "
    "here; they sit so far left of either ridge that the bandwidth line binds first."
)


def available_formats(chip: Chip | str) -> list[str]:
    """The number formats whose compute dtype has a published peak on ``chip``."""
    c = get_chip(chip)
    return [key for key in NUMBER_FORMATS if _matmul_dtypes(key).compute in c.peak_flops_per_s]


def available_operations(chip: Chip | str) -> list[str]:
    """The operations ``chip`` can be timed on (the network one needs a link)."""
    c = get_chip(chip)
    return [key for key, op in OPERATIONS.items() if c.links or not op.network]


# --------------------------------------------------------------------------------------------
# The pieces: a reading, its readout and its chart
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reading:
    """One setting of the explorer and the library's verdict on it.

    Attributes:
        chip: the chip.
        number_format: a key of :data:`NUMBER_FORMATS`.
        op: a key of :data:`OPERATIONS`.
        B, D, F: the shape (only the ones the operation uses matter).
        cost: the operation's cost (per chip for the network operation).
        estimate: :func:`roofline_lib.roofline.analyze` of the cost on the chip.
    """

    chip: Chip
    number_format: str
    op: str
    B: int
    D: int
    F: int
    cost: Cost | ShardedMatmulCost
    estimate: RooflineEstimate

    @property
    def operation(self) -> Operation:
        return OPERATIONS[self.op]

    @property
    def compute_dtype(self) -> str:
        return self.cost.compute_dtype

    @property
    def level_name(self) -> str:
        """'HBM' or the link's name."""
        return self.chip.level_name(self.estimate.level)

    @property
    def n_chips(self) -> int | None:
        """N, the chips a network operation is split over (its link's bandwidth is W(N));
        None for work on one chip."""
        if isinstance(self.cost, ShardedMatmulCost):
            return int(self.cost.n_chips)
        return None


def evaluate(
    chip: Chip | str = "TPU v5e",
    number_format: str = "bf16",
    op: str = "matmul",
    B: int = 256,
    D: int = 8192,
    F: int = 8192,
) -> Reading:
    """The library's verdict on one operation on one chip (what the explorer shows)."""
    c = get_chip(chip)
    if op not in OPERATIONS:
        raise ValueError(f"unknown op {op!r}; allowed: {', '.join(map(repr, OPERATIONS))}")
    if number_format not in NUMBER_FORMATS:
        allowed = ", ".join(map(repr, NUMBER_FORMATS))
        raise ValueError(f"unknown number_format {number_format!r}; allowed: {allowed}")
    operation = OPERATIONS[op]
    cost = operation.build(int(B), int(D), int(F), _matmul_dtypes(number_format))
    level = c.default_link if operation.network else "hbm"
    if level is None:
        raise ValueError(f"{c.name} has no network link, so op {op!r} cannot be timed on it")
    return Reading(c, number_format, op, int(B), int(D), int(F), cost, analyze(cost, c, level))


def _intensity(value: float, other: float | None = None) -> str:
    """Three significant digits, but every digit of a whole number (4,096, not 4,100), and as
    many more as it takes to tell ``value`` from ``other`` (241.1 against 240.5, not 241 and 241)."""
    digits = max(3, math.floor(math.log10(value)) + 1) if 0 < value < math.inf else 3
    if other is not None and other != value:
        while digits < 8 and format_number(value, digits) == format_number(other, digits):
            digits += 1
    return format_number(value, digits)


def _shape(reading: Reading) -> str:
    return ", ".join(
        f"{axis} = {format_number(getattr(reading, axis), 7)}"
        for axis in "BDF"
        if axis in reading.operation.uses
    )


def readout_rows(reading: Reading) -> list[tuple[str, str]]:
    """The readout as (label, value) pairs, every value formatted by :mod:`roofline_lib.fmt`
    (the live explorer, roofline-explorer.js, words it the same, from the same templates).

    One number format for every row: a count of FLOPs or bytes, a time and a rate carry an SI
    prefix on their unit (:func:`~roofline_lib.fmt.format_quantity`: "8.39 MFLOP", "16.8 MB",
    "43.6 µs", "197 TFLOP/s"), never a bare "8,390,000" beside a "3.44 × 10¹¹"; intensities
    are ratios in FLOPs/byte and the shape's sizes are exact."""
    e, chip = reading.estimate, reading.chip
    intensity, critical = float(e.arithmetic_intensity), float(e.critical_intensity)
    network = reading.operation.network
    level = reading.level_name
    link_rows = (
        [
            (
                say("{level}, one-way per chip at N = {n}", level=level, n=reading.n_chips),
                format_quantity(float(e.bandwidth_bytes_per_s), "B/s"),
            )
        ]
        if network
        else []
    )
    return [
        (say("Operation"), f"{say(reading.operation.label)} ({_shape(reading)})"),
        *link_rows,
        (
            say("FLOPs per chip") if network else say("FLOPs"),
            format_quantity(float(e.flops), "FLOP"),
        ),
        (
            say("Bytes moved per chip ({level})", level=level)
            if network
            else say("Bytes moved ({level})", level=level),
            format_quantity(float(e.bytes_moved), "B"),
        ),
        (
            say("Arithmetic intensity"),
            f"{_intensity(intensity, critical)} FLOPs/byte",
        ),
        (
            say(
                "Critical intensity ({chip}, {dtype}, {level})",
                chip=chip.name,
                dtype=reading.compute_dtype,
                level=level,
            ),
            f"{_intensity(critical, intensity)} FLOPs/byte",
        ),
        (say("Regime"), say(str(e.regime))),
        (say("T_math = FLOPs / peak"), format_quantity(float(e.t_math_s), "s")),
        (
            say("T_comms = bytes / {level} bandwidth", level=level),
            format_quantity(float(e.t_comms_s), "s"),
        ),
        (say("Lower bound, max(T_math, T_comms)"), format_quantity(float(e.lower_bound_s), "s")),
        (say("Upper bound, T_math + T_comms"), format_quantity(float(e.upper_bound_s), "s")),
        (
            say("Achievable throughput"),
            say(
                "{rate} ({percent} of peak)",
                rate=format_quantity(float(e.achievable_flops_per_s), "FLOP/s"),
                percent=format_percent(float(e.fraction_of_peak)),
            ),
        ),
    ]


def _subscripts(text: str) -> str:
    return re.sub(r"\bT_(math|comms)\b", r"T<sub>\1</sub>", text)


def readout_html(reading: Reading) -> str:
    """The readout as an HTML table (for the explorer's HTML widget)."""
    rows = "".join(
        f"<tr><td>{_subscripts(html.escape(label))}</td><td><b>{html.escape(value)}</b></td></tr>"
        for label, value in readout_rows(reading)
    )
    note = (
        f"<p><small>{html.escape(say(VECTOR_NOTE))}</small></p>" if reading.operation.vector else ""
    )
    return f'<table class="explorer-readout">{rows}</table>{note}'


def chart_title(reading: Reading) -> str:
    """A title that states the finding: the regime and the two intensities."""
    e = reading.estimate
    intensity, critical = float(e.arithmetic_intensity), float(e.critical_intensity)
    relation = "≥" if e.regime == "compute-bound" else "<"
    return say(
        "{operation} is {regime} on {chip}: intensity {intensity} {relation} critical {critical}",
        operation=say(reading.operation.short),
        regime=say(str(e.regime)),
        chip=reading.chip.name,
        intensity=_intensity(intensity, critical),
        relation=relation,
        critical=_intensity(critical, intensity),
    )


def _two_lines(title: str) -> str:
    """The title broken after its first colon (ASCII or full-width), where its finding starts."""
    for colon in (": ", "："):
        if colon in title:
            return title.replace(colon, colon.rstrip() + "\n", 1)
    return title


def plot_reading(reading: Reading, ax: Any = None) -> Figure:
    """The chip's roofline at the reading's level with the operation as a labelled point."""
    e = reading.estimate
    intensity = float(e.arithmetic_intensity)
    lo, hi = INTENSITY_RANGE
    intensity_range = (min(lo, intensity / 3), max(hi, intensity * 3))
    use_language_font()
    if ax is None:
        ax = Figure(figsize=CHART_FIGSIZE, layout="constrained").add_subplot()
    fig = plot_roofline(
        reading.chip,
        reading.compute_dtype,
        e.level,
        intensity_range=intensity_range,
        ax=ax,
        title=_two_lines(chart_title(reading)),  # two lines fit a phone
        n_chips=reading.n_chips,  # a link's roof at the bandwidth for the N the cost uses
    )
    y = float(e.achievable_flops_per_s)
    color = palette.OKABE_ITO["vermillion"]
    ax.plot([intensity], [y], marker="o", ms=10, color=color, mec="white", mew=1.2, zorder=6)
    # the label goes in the top-left corner: above the slope and left of the ridge, a roofline
    # chart is always empty
    ax.text(
        0.02,
        0.97,
        f"● {_shape(reading)}",
        transform=ax.transAxes,
        ha="left",
        va="top",
        fontsize=9,
        color=color,
        fontweight="bold",
    )
    bottom, _ = ax.get_ylim()
    ax.set_ylim(bottom, e.peak_flops_per_s * 3)
    return fig


def _png(fig: Figure) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=150)
    return buffer.getvalue()


# --------------------------------------------------------------------------------------------
# The widget
# --------------------------------------------------------------------------------------------


def _log_slider(name: str, value: int) -> widgets.FloatLogSlider:
    lo, hi, step = SLIDER_EXPONENTS[name]
    return widgets.FloatLogSlider(
        value=value,
        base=2,
        min=lo,
        max=hi,
        step=step,
        description=name,
        readout_format=",.0f",
        continuous_update=False,
        layout=widgets.Layout(width="100%", max_width="480px"),
    )


def _chip_options(chip: Chip) -> list[tuple[str, Chip]]:
    chips = list(CATALOG.values())
    if chip not in chips:
        chips.append(chip)
    return [(c.name, c) for c in chips]


class Explorer:
    """The explorer widget. Show it by making it a cell's last expression, or with ``display``.

    Attributes:
        chip, number_format, op: the three menus (ipywidgets Dropdowns).
        B, D, F: the log-scale sliders (ipywidgets FloatLogSliders, base 2).
        chart: an Image widget with the roofline (PNG).
        readout: an HTML widget with the numbers.
        reading: the current :class:`Reading`, or None if the setting is invalid (the readout
            then says why).
        widget: the whole layout (an ipywidgets VBox).
    """

    def __init__(
        self,
        chip: Chip | str = "TPU v5e",
        number_format: str = "bf16",
        op: str = "matmul",
        B: int = 256,
        D: int = 8192,
        F: int = 8192,
        *,
        live: bool = True,
    ) -> None:
        c = get_chip(chip)
        self.reading: Reading | None = evaluate(c, number_format, op, B, D, F)  # validates
        self.live = live
        self._busy = False
        menu = {"layout": widgets.Layout(width="100%", max_width="480px")}
        style = {"description_width": "initial"}
        self.chip = widgets.Dropdown(
            options=_chip_options(c), value=c, description=say("Chip"), style=style, **menu
        )
        self.number_format = widgets.Dropdown(
            options=self._format_options(c),
            value=number_format,
            description=say("Numbers"),
            style=style,
            **menu,
        )
        self.op = widgets.Dropdown(
            options=self._op_options(c),
            value=op,
            description=say("Operation"),
            style=style,
            **menu,
        )
        self.B, self.D, self.F = (_log_slider(n, v) for n, v in (("B", B), ("D", D), ("F", F)))
        self.chart = widgets.Image(
            format="png", layout=widgets.Layout(width="100%", max_width="760px")
        )
        self.readout = widgets.HTML()
        note = widgets.HTML(say(LIVE_HINT) if live else say(SNAPSHOT_NOTE))
        controls = widgets.VBox([self.chip, self.number_format, self.op, self.B, self.D, self.F])
        self.widget = widgets.VBox([note, controls, self.chart, self.readout])
        self.widget.add_class("roofline-explorer")
        for control in self.controls:
            control.observe(self._on_change, names="value")
        self.update()

    # -- widget plumbing ------------------------------------------------------------------

    @property
    def controls(self) -> tuple[widgets.ValueWidget, ...]:
        """The six inputs: chip, number format, operation, B, D, F."""
        return (self.chip, self.number_format, self.op, self.B, self.D, self.F)

    @staticmethod
    def _format_options(chip: Chip) -> list[tuple[str, str]]:
        return [(say(NUMBER_FORMATS[key]), key) for key in available_formats(chip)]

    @staticmethod
    def _op_options(chip: Chip) -> list[tuple[str, str]]:
        return [(say(OPERATIONS[key].label), key) for key in available_operations(chip)]

    def _on_change(self, change: dict[str, Any]) -> None:
        if self._busy:
            return
        if change["owner"] is self.chip:
            self._busy = True
            try:
                chip = self.chip.value
                for menu, options in (
                    (self.number_format, self._format_options(chip)),
                    (self.op, self._op_options(chip)),
                ):
                    keep = menu.value
                    menu.options = options
                    values = [value for _, value in options]
                    menu.value = keep if keep in values else values[0]
            finally:
                self._busy = False
        self.update()

    def update(self) -> None:
        """Recompute the reading from the controls and redraw the chart and the readout."""
        uses = OPERATIONS[self.op.value].uses
        for axis in "BDF":
            getattr(self, axis).disabled = not self.live or axis not in uses
        for menu in (self.chip, self.number_format, self.op):
            menu.disabled = not self.live
        try:
            reading = evaluate(
                self.chip.value,
                self.number_format.value,
                self.op.value,
                round(self.B.value),
                round(self.D.value),
                round(self.F.value),
            )
        except ValueError as error:
            self.reading = None
            self.readout.value = (
                f"<p><b>{html.escape(say('Not a valid setting:'))}</b> "
                f"{html.escape(str(error))}</p>"
            )
            return
        self.reading = reading
        self.readout.value = readout_html(reading)
        self.chart.value = _png(plot_reading(reading))

    def figure(self) -> Figure:
        """The current chart as a matplotlib Figure (for a static page or a report)."""
        if self.reading is None:
            raise ValueError("the explorer's current setting is invalid; see its readout")
        return plot_reading(self.reading)

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any] | None:
        bundle: dict[str, Any] | None = self.widget._repr_mimebundle_(**kwargs)
        return bundle


def explore(
    chip: Chip | str = "TPU v5e",
    number_format: str = "bf16",
    op: str = "matmul",
    B: int = 256,
    D: int = 8192,
    F: int = 8192,
) -> Explorer:
    """The live explorer (in JupyterLab: ``make lab``). Make it a cell's last expression.

    ``chip`` is a catalog name or any :class:`~roofline_lib.hardware.Chip`; ``number_format`` a
    key of :data:`NUMBER_FORMATS`; ``op`` a key of :data:`OPERATIONS`.
    """
    return Explorer(chip, number_format, op, B, D, F, live=True)


def snapshot(
    chip: Chip | str = "TPU v5e",
    number_format: str = "bf16",
    op: str = "matmul",
    B: int = 256,
    D: int = 8192,
    F: int = 8192,
) -> Explorer:
    """The explorer at one setting with its controls disabled and a note on how to open it
    live: what a static page shows (its widget state is embedded in the HTML)."""
    return Explorer(chip, number_format, op, B, D, F, live=False)
