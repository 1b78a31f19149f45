"""plot_measured_roofline draws prediction and measurement on one labelled log-log chart."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from matplotlib.figure import Figure

from roofline_lib.measure import MeasuredRoofline
from roofline_lib.measure.plot import plot_measured_roofline

pytestmark = pytest.mark.xdist_group("measure")


def test_draws_roofline_predictions_and_achieved_points(result: MeasuredRoofline) -> None:
    fig = plot_measured_roofline(result)
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert "FLOPs/byte" in ax.get_xlabel()
    assert "FLOP/s" in ax.get_ylabel()
    labels = [line.get_label() for line in ax.get_lines()]
    assert any(label.startswith("predicted: roofline") for label in labels)
    assert "predicted at each B" in labels
    predicted = next(line for line in ax.get_lines() if line.get_label() == "predicted at each B")
    np.testing.assert_allclose(
        predicted.get_ydata(), [p.predicted_flops_per_s for p in result.sweep]
    )
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert any(t.startswith("achieved") for t in legend)
    title = " ".join(ax.get_title().split())  # the title wraps where its measured words fall
    assert "roofline" in title
    assert result.machine.name in title


def test_draws_into_a_given_axes_and_takes_a_title(result: MeasuredRoofline) -> None:
    fig = Figure()
    ax = fig.add_subplot()
    assert plot_measured_roofline(result, ax=ax, title="Mine") is fig
    assert ax.get_title() == "Mine"


def test_an_empty_sweep_still_draws_the_roofline(result: MeasuredRoofline) -> None:
    empty = replace(result, sweep=(), skipped_batches=(1, 2))
    fig = plot_measured_roofline(empty)
    assert "time budget" in fig.axes[0].get_title()
