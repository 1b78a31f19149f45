"""Where things live in the library (issue 15): computations outside the plotting module, the
measured chart with measurement, and one helper for each idiom the modules share."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest
from matplotlib.figure import Figure

import roofline_lib as rl
from roofline_lib import plots
from roofline_lib._checks import ratio_or_inf
from roofline_lib.measure import plot as measure_plot

# -- import direction -------------------------------------------------------------------------


def test_importing_plots_does_not_import_measurement() -> None:
    """measure.plot imports plots to draw; plots must not import measure back (no cycle)."""
    code = (
        "import sys, roofline_lib.plots\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('roofline_lib.measure'))\n"
        "print(','.join(loaded))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == ""


def test_the_books_plots_names_reach_the_moved_functions() -> None:
    """Pages call ``rl.plots.plot_measured_roofline`` and ``plots.matmul_throughput``."""
    assert plots.plot_measured_roofline is measure_plot.plot_measured_roofline
    assert plots.plot_measurements is measure_plot.plot_measurements
    assert plots.efficiency_title is measure_plot.efficiency_title
    assert plots.matmul_throughput is rl.matmul_throughput
    with pytest.raises(AttributeError, match="no attribute 'plot_measured_rooflines'"):
        _ = plots.plot_measured_rooflines


def test_matmul_throughput_is_computed_without_matplotlib() -> None:
    code = (
        "import sys, roofline_lib as rl\n"
        "rl.matmul_throughput('H100 SXM', [1, 4096], 8192, 8192)\n"
        "print('matplotlib' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == "False"


# -- divide or infinity -------------------------------------------------------------------------


def test_ratio_or_inf_divides_where_the_denominator_is_positive() -> None:
    assert ratio_or_inf(6, 3) == 2.0
    assert isinstance(ratio_or_inf(6, 3), float)
    np.testing.assert_array_equal(
        ratio_or_inf([6.0, 6.0, 6.0, 0.0], [3.0, 0.0, -2.0, 0.0]), [2.0, np.inf, np.inf, np.inf]
    )


def test_ratio_or_inf_broadcasts_and_never_warns() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = ratio_or_inf(np.array([[1e308], [1.0]]), np.array([1e-10, 0.0, 4.0]))
    assert got.shape == (2, 3)
    np.testing.assert_array_equal(got[0], [np.inf, np.inf, 2.5e307])
    np.testing.assert_array_equal(got[1], [1e10, np.inf, 0.25])


def test_every_intensity_of_nothing_moved_is_infinite() -> None:
    """The costs, the sharded matmul and attention's critical length all use the one helper."""
    assert rl.elementwise(64, 1).arithmetic_intensity < np.inf
    assert rl.sharded_matmul(8, 64, 8, 1).network_intensity == np.inf  # one chip sends nothing
    # d = 128 in bf16 never reaches I* = 64: the margin is zero, the length infinite
    assert rl.standard_attention_critical_seq_len(128, 64.0) == np.inf
    assert rl.standard_attention_critical_seq_len(128, 32.0) == pytest.approx(64 * 128 / 64)


# -- log axes -----------------------------------------------------------------------------------


def test_log_axes_sets_scales_labels_and_units() -> None:
    ax = Figure().add_subplot()
    ax.plot([1, 1e4], [1e9, 1e13])
    plots.log_axes(ax, "Batch size B", "Throughput (FLOP/s)")
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("Batch size B", "Throughput (FLOP/s)")
    assert ax.xaxis.get_major_formatter()(1000, 0) == "1,000"
    assert ax.yaxis.get_major_formatter()(1e12, 0) == "1 TFLOP/s"

    other = Figure().add_subplot()
    plots.log_axes(other, "W", "I", xunit="B/s", yunit=None)
    assert other.xaxis.get_major_formatter()(1e12, 0) == "1 TB/s"
    assert other.yaxis.get_major_formatter()(1000, 0) == "1,000"


@pytest.mark.parametrize(
    "draw",
    [
        lambda: plots.plot_intensity_vs_batch(["H100 SXM"], np.arange(1, 512), 4096, 4096),
        lambda: plots.plot_matmul_throughput(
            "TPU v5e", np.arange(1, 512), [(4096, 4096)], log=True
        ),
        lambda: plots.plot_chip_balance(["H100 SXM", "TPU v5e"]),
        lambda: plots.plot_roofline("H100 SXM"),
    ],
    ids=["intensity vs batch", "throughput, log", "chip balance", "roofline"],
)
def test_every_log_log_chart_is_set_up_alike(draw) -> None:
    ax = draw().axes[0]
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
    assert ax.get_xlabel() and ax.get_ylabel()
    assert ax.xaxis.get_major_formatter()(1000, 0) in ("1,000", "1 kB/s")
