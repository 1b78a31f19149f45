"""Every figure the library draws is readable at the size the book shows it: no two texts overlap,
no legend covers a plotted point or line, and no text is smaller than ``plots.MIN_FONT_PT``
(the check is tests/figure_checks.py, shared with the pages' figure test).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace

import matplotlib as mpl
import numpy as np
import pytest
from matplotlib.figure import Figure

import roofline_lib as rl
from roofline_lib import chapter, plots
from roofline_lib.measure import plot as measure_plot
from tests.figure_checks import (
    BOOK_STYLE,
    legends_covering_points,
    overlapping_texts,
    problems,
    xeon_like_result,
)

# --------------------------------------------------------------------------------------------
# Every figure the library draws, with the arguments the book gives it
# --------------------------------------------------------------------------------------------


def _page_6_figure() -> Figure:
    v5e, B, D = rl.get_chip("TPU v5e"), np.arange(1, 513), 8192
    combos = {"bf16": "bf16 × bf16", "int8": "int8 × int8", "w8a16": "W8A16: bf16 × int8 weights"}
    return plots.plot_throughput_vs_batch(
        {label: (B, rl.matmul_throughput(v5e, B, D, D, k)) for k, label in combos.items()},
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
    "measured roofline (page 9)": lambda: measure_plot.plot_measured_roofline(xeon_like_result()),
    "measurements of a run that is not a roofline (page 9)": lambda: measure_plot.plot_measurements(
        replace(xeon_like_result(), cpu_share=0.24)
    ),
    "a run that is not a roofline and measured no matmul (page 9)": lambda: (
        measure_plot.plot_measurements(replace(xeon_like_result(), cpu_share=0.24, sweep=()))
    ),
    "explorer's chart (page 3)": _explorer_figure,
    "chip balance (page 2)": lambda: plots.plot_chip_balance(
        list(rl.CATALOG.values()),
        arrows=[("A100 80GB SXM", "H100 SXM"), ("TPU v5e", "TPU v6e"), ("H100 SXM", "H200")],
        title="Compute outgrew bandwidth from A100 to H100 and TPU v5e to v6e; "
        "the H200 went the other way",
    ),
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
    result = xeon_like_result()
    title = measure_plot.efficiency_title(result)
    assert (
        title == "Measured matmuls reach 39–89% of the roofline at B = 2–512; ≥ 90% only at B = 1"
    )
    assert "from B = 1" not in measure_plot.plot_measured_roofline(result).axes[0].get_title()


def test_a_theoretical_peak_that_is_not_a_bound_is_not_labelled_one() -> None:
    result = xeon_like_result()
    assert result.peak.flops_per_s > result.theoretical_peak_flops_per_s  # 402 > 333 GFLOP/s
    fig = measure_plot.plot_measured_roofline(result)
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    theory = next(t for t in labels if t.startswith("theoretical peak"))
    assert "upper bound" not in theory and "not a bound" in theory


def test_the_chip_balance_chart_names_every_chip_and_every_diagonal() -> None:
    fig = plots.plot_chip_balance(list(rl.CATALOG.values()), intensities=(100, 200, 400, 800))
    texts = {t.get_text() for t in fig.axes[0].texts}
    for chip in rl.CATALOG.values():
        assert f"{chip.name}: {rl.format_number(rl.critical_intensity(chip))}" in texts
    assert {f"I* = {i}" for i in (100, 200, 400, 800)} <= texts
