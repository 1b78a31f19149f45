"""The per-operation time figure of a prefill or decode pass (roofline_lib.transformer.plot):
readable at the book's size, its bars the library's times, its title the pass's bound."""

from __future__ import annotations

from collections.abc import Iterator

import matplotlib as mpl
import numpy as np
import pytest
from matplotlib.patches import Rectangle

import roofline_lib as rl
from roofline_lib.transformer.plot import plot_pass_times
from tests.figure_checks import BOOK_STYLE, problems

LLAMA_70B_ON_8_H100 = {
    "model": "llama-3-70b",
    "chip": "H100 SXM",
    "batch": 64,
    "context": 4096,
    "prompt": 2048,
    "n_chips": 8,
    "link": "nvlink4",
}


@pytest.fixture(autouse=True)
def _book_style() -> Iterator[None]:
    with mpl.rc_context(BOOK_STYLE):
        yield


@pytest.fixture(scope="module")
def estimate() -> rl.InferenceEstimate:
    settings = dict(LLAMA_70B_ON_8_H100)
    return rl.estimate_inference(settings.pop("model"), settings.pop("chip"), **settings)


@pytest.mark.parametrize("phase", ["decode", "prefill"])
def test_the_figure_is_readable_at_the_book_size(estimate, phase) -> None:
    found = problems(plot_pass_times(estimate, phase))
    assert not found, "\n".join(found)


@pytest.mark.parametrize("phase", ["decode", "prefill"])
def test_each_bar_is_an_operations_time_over_the_whole_pass(estimate, phase) -> None:
    step = getattr(estimate, phase)
    fig = plot_pass_times(estimate, phase)
    widths = sorted(
        round(bar.get_width(), 15)
        for bar in fig.axes[0].patches
        if isinstance(bar, Rectangle) and bar.get_width() > 0
    )
    expected = sorted(
        round(float(getattr(op, quantity)) * op.count, 15)
        for op in step.operations
        for quantity in ("t_math_s", "t_hbm_s", "t_network_s")
        if float(getattr(op, quantity)) > 0
    )
    assert widths == pytest.approx(expected, rel=1e-12)
    labels = [tick.get_text() for tick in fig.axes[0].get_yticklabels()]
    assert labels == [op.name for op in step.operations]  # top to bottom in pass order


def test_the_title_gives_the_decode_bound_and_regime(estimate) -> None:
    title = " ".join(plot_pass_times(estimate, "decode").axes[0].get_title().split())
    bound = rl.format_quantity(float(estimate.decode.t_lower_s), "s", 3)
    assert f"≥ {bound}" in title and "memory-bound" in title and "8 × H100 SXM" in title
    assert bound == "8.82 ms"


def test_a_phase_must_be_prefill_or_decode(estimate) -> None:
    with pytest.raises(ValueError, match="phase must be one of 'prefill', 'decode'"):
        plot_pass_times(estimate, "training")


def test_one_configuration_at_a_time() -> None:
    settings = dict(LLAMA_70B_ON_8_H100, batch=np.array([1, 64]))
    many = rl.estimate_inference(settings.pop("model"), settings.pop("chip"), **settings)
    with pytest.raises(ValueError, match="one configuration at a time"):
        plot_pass_times(many, "decode")
