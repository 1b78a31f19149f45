"""The prose number formatter and the plotting functions."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.figure import Figure

import roofline_lib as rl
from roofline_lib import palette, plots


@pytest.mark.parametrize(
    ("value", "digits", "text"),
    [
        (8755.56, 4, "8,756"),
        (295.373, 3, "295"),
        (0.4999995, 3, "0.5"),
        (124.1212, 4, "124.1"),
        (3.5232e18, 3, "3.52 × 10¹⁸"),
        (2.5e-5, 2, "2.5 × 10⁻⁵"),
        (999.96, 4, "1,000"),
        (9.9996e8, 3, "1 × 10⁹"),
        (0, 3, "0"),
        (-12.345, 3, "−12.3"),
        (float("inf"), 3, "∞"),
    ],
)
def test_format_number(value, digits, text):
    assert rl.format_number(value, digits) == text


@pytest.mark.parametrize(
    ("value", "unit", "digits", "text"),
    [
        (1.0111e-3, "s", 3, "1.01 ms"),
        (9.895e14, "FLOP/s", 4, "989.5 TFLOP/s"),
        (9.895e14, "FLOP/s", 3, "990 TFLOP/s"),
        (3.35e12, "B/s", 3, "3.35 TB/s"),
        (4.5e10, "B/s", 2, "45 GB/s"),
        (999.9e9, "B/s", 3, "1 TB/s"),
        (17.36e-6, "s", 3, "17.4 µs"),
        (3.5e21, "FLOPs", 2, "3,500 EFLOPs"),
    ],
)
def test_format_quantity(value, unit, digits, text):
    assert rl.format_quantity(value, unit, digits) == text


@pytest.mark.parametrize(
    ("low", "high", "text"),
    [
        (18.5e9, 27.9e9, "18.5–27.9 GFLOP/s"),
        (498e6, 2.49e9, "498 MFLOP/s – 2.49 GFLOP/s"),
        (1e9, 1e9, "1–1 GFLOP/s"),
    ],
)
def test_format_range_writes_a_shared_unit_once(low, high, text):
    assert rl.fmt.format_range(low, high, "FLOP/s") == text


def test_format_percent_and_errors():
    assert rl.format_percent(0.99297) == "99.3%"
    assert rl.format_percent(0.49, 2) == "49%"
    with pytest.raises(ValueError, match="value must be a number"):
        rl.format_number("12")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="digits must be a positive integer"):
        rl.format_number(1.0, 0)


def _all_colors(fig: Figure) -> set[str]:
    from matplotlib.colors import to_hex

    colors = set()
    for ax in fig.axes:
        for line in ax.get_lines():
            colors.add(to_hex(line.get_color()))
        for patch in ax.patches:
            colors.add(to_hex(patch.get_facecolor()[:3]))
    return colors


PALETTE = {c.lower() for c in palette.OKABE_ITO.values()}


def _check_figure(fig: Figure) -> None:
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title()
    assert "(" in ax.get_xlabel(), "the x axis states its unit"
    assert _all_colors(fig) <= PALETTE, "every colour comes from the one palette"
    fig.canvas.draw()  # renders without error


CHARTS = {
    "regions": lambda ax: plots.plot_roofline_regions(1.97e14, [8.2e11, 1.6e12], ax=ax),
    "roofline": lambda ax: plots.plot_roofline(
        ["H100 SXM", "TPU v5e", "TPU v6e"],
        ops={"dot product": rl.dot_product(1e6), "matmul B=512": rl.matmul(512, 8192, 8192)},
        ax=ax,
    ),
    "throughput": lambda ax: plots.plot_matmul_throughput(
        "TPU v5e", np.arange(1, 512), [(4096, 4096), (1024, 1024)], "w8a16", ax=ax
    ),
    "intensity": lambda ax: plots.plot_intensity_vs_batch(
        ["H100 SXM", "TPU v5e"], np.unique(np.geomspace(1, 8192, 50).round()), 8192, 8192, ax=ax
    ),
    "multilevel": lambda ax: plots.plot_multilevel_roofline("H100 SXM", ax=ax),
}


@pytest.mark.parametrize("name", sorted(CHARTS))
def test_plots_return_a_labelled_figure_in_the_palette(name, monkeypatch):
    monkeypatch.setattr(plt, "show", lambda *a, **k: pytest.fail("plots must never call plt.show"))
    _check_figure(CHARTS[name](None))


@pytest.mark.parametrize("name", sorted(CHARTS))
def test_plots_draw_into_a_given_axes(name):
    fig = Figure()
    ax = fig.add_subplot()
    assert CHARTS[name](ax) is fig


def test_roofline_chart_marks_the_critical_intensity_and_the_ops():
    fig = plots.plot_roofline("TPU v5e", ops={"matmul": rl.matmul(1024, 8192, 8192)})
    ax = fig.axes[0]
    verticals = [line for line in ax.get_lines() if np.ptp(line.get_xdata()) == 0]
    assert any(
        np.isclose(line.get_xdata()[0], rl.critical_intensity("TPU v5e")) for line in verticals
    )
    assert any(text.get_text() == "matmul" for text in ax.texts)
    # 197e12 / 819e9 = 240.5, written to 3 significant digits
    assert "241" in fig.legends[0].get_texts()[0].get_text()


def test_regions_chart_has_three_regions():
    fig = plots.plot_roofline_regions(1.97e14, [8.2e11, 1.6e12])
    assert len(fig.axes[0].patches) == 3
    with pytest.raises(ValueError, match="exactly two bandwidths"):
        plots.plot_roofline_regions(1.97e14, [8.2e11])


REGION_NAMES = (
    "bandwidth-bound\nat both",
    "bound only at\nlow bandwidth",
    "compute-bound\nat both",
)


def region_names_shown(fig) -> tuple[dict[str, tuple[float, float]], list[str]]:
    """The regions named inside the axes, each with its name's extent in data x (left, right),
    and the names the legend lists."""
    ax = fig.axes[0]
    renderer = plots._renderer(fig)
    inverse = ax.transData.inverted()
    inside = {}
    for text in ax.texts:
        if text.get_text() in REGION_NAMES:
            box = text.get_window_extent(renderer)
            inside[text.get_text()] = (
                inverse.transform((box.x0, box.y0))[0],
                inverse.transform((box.x1, box.y0))[0],
            )
    legends = [*fig.legends, *(a.get_legend() for a in fig.axes if a.get_legend())]
    legend = [t.get_text() for lg in legends for t in lg.get_texts()]
    return inside, legend


def test_each_region_is_named_inside_its_borders_or_all_in_the_legend():
    # wide regions (a 12-inch chart, ridges at 10 and 1,000 FLOPs/byte): names over them
    ax = Figure(figsize=(12, 4), layout="constrained").add_subplot()
    wide = plots.plot_roofline_regions(
        1e15, [1e12, 1e14], labels=["slow", "fast"], intensity_range=(0.1, 1e5), ax=ax
    )
    inside, legend = region_names_shown(wide)
    assert set(inside) == set(REGION_NAMES)
    borders = dict(zip(REGION_NAMES, ((0.1, 10), (10, 1e3), (1e3, 1e5)), strict=True))
    for name, (left, right) in inside.items():
        assert borders[name][0] < left < right < borders[name][1], name
    assert not set(legend) & {n.replace("\n", " ") for n in REGION_NAMES}
    # the book's H100 (ridges at 32 and 295): the middle name would cross both ridge lines
    narrow = plots.plot_roofline_regions(989.5e12, [3.35e12, 30.9e12])
    inside, legend = region_names_shown(narrow)
    assert inside == {}
    assert {n.replace("\n", " ") for n in REGION_NAMES} <= set(legend)


def test_matmul_throughput_is_the_roofline_of_the_exact_cost():
    b = np.arange(1, 512)
    y = rl.matmul_throughput("TPU v5e", b, 4096, 4096, "w8a16")
    cost = rl.matmul(b, 4096, 4096, "w8a16")
    chip = rl.get_chip("TPU v5e")
    expected = np.minimum(chip.peak("bf16"), cost.arithmetic_intensity * chip.bandwidth())
    np.testing.assert_allclose(y, expected)
