"""The figures of roofline_lib.transformer.plot, readable at the book's size and drawn from the
library's numbers: the per-operation times of a prefill or decode pass (bars, title the pass's
bound), and a decode step's bytes against the context (lines the library's bytes, the shading
where the batch stops fitting, the title the context where the KV cache equals the weights)."""

from __future__ import annotations

from collections.abc import Iterator

import matplotlib as mpl
import numpy as np
import pytest
from matplotlib.patches import Rectangle

import roofline_lib as rl
from roofline_lib.transformer.plot import (
    kv_equals_weights_context,
    longest_context_that_fits,
    plot_decode_bytes,
    plot_pass_times,
)
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
    bound = rl.format_quantity(float(estimate.decode.t_bound_s), "s", 3)
    assert f"≥ {bound}" in title and "memory-bound" in title and "8 × H100 SXM" in title
    assert bound == "8.39 ms"  # weights and KV cache over 3.35 TB/s


def test_a_phase_must_be_prefill_or_decode(estimate) -> None:
    with pytest.raises(ValueError, match="phase must be one of 'prefill', 'decode'"):
        plot_pass_times(estimate, "training")


def test_one_configuration_at_a_time() -> None:
    settings = dict(LLAMA_70B_ON_8_H100, batch=np.array([1, 64]))
    many = rl.estimate_inference(settings.pop("model"), settings.pop("chip"), **settings)
    with pytest.raises(ValueError, match="one configuration at a time"):
        plot_pass_times(many, "decode")


CONTEXTS = np.geomspace(512, 131072, 17).round()


@pytest.fixture(scope="module")
def over_contexts() -> rl.InferenceEstimate:
    settings = dict(LLAMA_70B_ON_8_H100, context=CONTEXTS)
    return rl.estimate_inference(settings.pop("model"), settings.pop("chip"), **settings)


def test_the_bytes_figure_is_readable_at_the_book_size(over_contexts) -> None:
    found = problems(plot_decode_bytes(over_contexts))
    assert not found, "\n".join(found)


def test_each_line_is_the_librarys_bytes(over_contexts) -> None:
    step = over_contexts.decode
    lines = {line.get_label(): line for line in plot_decode_bytes(over_contexts).axes[0].lines}
    assert set(lines) == {"weights", "KV cache", "total (with activations)"}
    for label, expected in (
        ("weights", step.weight_bytes),
        ("KV cache", step.kv_read_bytes),
        ("total (with activations)", step.bytes),
    ):
        assert np.array_equal(lines[label].get_xdata(), CONTEXTS)
        assert lines[label].get_ydata() == pytest.approx(
            np.broadcast_to(expected, CONTEXTS.shape), rel=1e-12
        )
    # the KV cache by hand: B·S·2·L·(H_kv/N)·d·2 bytes (bf16), Llama-3-70B on 8 chips
    assert lines["KV cache"].get_ydata() == pytest.approx(64 * CONTEXTS * 2 * 80 * 1 * 128 * 2)


def test_the_kv_cache_equals_the_weights_where_the_title_says(over_contexts) -> None:
    s_equal = kv_equals_weights_context(over_contexts)
    at = dict(LLAMA_70B_ON_8_H100, context=np.array([np.floor(s_equal), np.ceil(s_equal)]))
    there = rl.estimate_inference(at.pop("model"), at.pop("chip"), **at).decode
    below, above = np.asarray(there.kv_read_bytes) - np.asarray(there.weight_bytes)
    assert below < 0 < above
    title = " ".join(plot_decode_bytes(over_contexts).axes[0].get_title().split())
    assert f"S ≈ {s_equal:,.0f}" in title and "B = 64" in title and "8 × H100 SXM" in title


def test_the_shading_starts_where_the_batch_stops_fitting(over_contexts) -> None:
    limit = longest_context_that_fits(over_contexts)
    for s, fits in ((limit * 0.999, True), (limit * 1.001, False)):
        at = dict(LLAMA_70B_ON_8_H100, context=round(s))
        assert rl.estimate_inference(at.pop("model"), at.pop("chip"), **at).fits_in_hbm is fits
    spans = [
        p
        for p in plot_decode_bytes(over_contexts).axes[0].patches
        if p.get_label().startswith("does")
    ]
    assert len(spans) == 1
    x0 = spans[0].get_x()
    assert (x0, x0 + spans[0].get_width()) == pytest.approx((limit, CONTEXTS.max()))


def test_the_bytes_figure_wants_one_batch_and_many_contexts(estimate) -> None:
    with pytest.raises(ValueError, match="1-D array of at least two"):
        plot_decode_bytes(estimate)
    settings = dict(LLAMA_70B_ON_8_H100, batch=np.array([1, 64]), context=np.array([512, 1024]))
    many = rl.estimate_inference(settings.pop("model"), settings.pop("chip"), **settings)
    with pytest.raises(ValueError, match="one batch at a time"):
        plot_decode_bytes(many)
