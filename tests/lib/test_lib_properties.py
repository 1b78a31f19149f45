"""Properties that must hold for every input, checked with hypothesis."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import roofline_lib as rl

sizes = st.integers(min_value=1, max_value=2**16)
big_sizes = st.integers(min_value=2**10, max_value=2**20)
rates = st.floats(min_value=1e9, max_value=1e17, allow_nan=False, allow_infinity=False)
amounts = st.floats(min_value=0.0, max_value=1e20, allow_nan=False, allow_infinity=False)
dtype_presets = st.sampled_from(["bf16", "int8", "w8a16", "fp32"])
settings.register_profile("course", max_examples=200, deadline=None)
settings.load_profile("course")


@given(flops=amounts, moved=amounts, peak=rates, bandwidth=rates)
def test_lower_bound_le_upper_bound_le_twice_lower_bound(flops, moved, peak, bandwidth):
    assume(flops > 0 or moved > 0)  # no work at all is an error (test_lib_audit)
    est = rl.estimate(flops, moved, peak, bandwidth)
    assert est.lower_bound_s <= est.upper_bound_s <= 2 * est.lower_bound_s * (1 + 1e-12)
    assert est.lower_bound_s == max(est.t_math_s, est.t_comms_s)


@given(flops=amounts, moved=amounts, peak=rates, bandwidth=rates)
def test_regime_agrees_with_critical_intensity(flops, moved, peak, bandwidth):
    assume(flops > 0 or moved > 0)
    est = rl.estimate(flops, moved, peak, bandwidth)
    if est.t_math_s > est.t_comms_s * (1 + 1e-9):
        assert est.regime == "compute-bound"
        assert est.arithmetic_intensity >= est.critical_intensity * (1 - 1e-9)
    elif est.t_comms_s > est.t_math_s * (1 + 1e-9):
        assert est.regime == "memory-bound"
        assert est.arithmetic_intensity <= est.critical_intensity * (1 + 1e-9)


@given(intensity=st.floats(min_value=0, max_value=1e7), peak=rates, bandwidth=rates)
def test_achievable_throughput_never_exceeds_peak_or_slope(intensity, peak, bandwidth):
    achieved = rl.achievable_flops_per_s(intensity, peak, bandwidth)
    assert achieved <= peak
    assert achieved <= intensity * bandwidth * (1 + 1e-12)


@given(b=sizes, d=sizes, f=sizes)
def test_bf16_matmul_intensity_is_below_b(b, d, f):
    assert rl.matmul(b, d, f).arithmetic_intensity < b


@given(b=st.integers(min_value=1, max_value=512), scale=st.integers(min_value=2, max_value=64))
def test_bf16_matmul_intensity_tends_to_b_as_d_and_f_grow(b, scale):
    small = rl.matmul(b, 1024, 1024).arithmetic_intensity
    large = rl.matmul(b, 1024 * scale, 1024 * scale).arithmetic_intensity
    assert small < large < b
    # exact gap: B − I = B·(B·D + B·F) / (B·D + D·F + B·F) → 0 like 2B / D
    assert b - large <= 2 * b * b / (1024 * scale) + 1e-9


@given(b=sizes, d=sizes, f=sizes, dt=dtype_presets)
def test_batched_matmul_intensity_is_bounded_independently_of_b(b, d, f, dt):
    per_element = rl.batched_matmul(b, d, f, dt).arithmetic_intensity
    single = rl.batched_matmul(1, d, f, dt).arithmetic_intensity
    assert math.isclose(per_element, single, rel_tol=1e-12)
    weight_bytes = rl.bytes_per_element(rl.matmul_dtypes(dt).y)
    assert per_element < 2 / weight_bytes


@given(b=sizes, d=sizes, f=sizes)
def test_int8_matmul_has_exactly_twice_the_bf16_intensity(b, d, f):
    bf16 = rl.matmul(b, d, f, "bf16").arithmetic_intensity
    int8 = rl.matmul(b, d, f, "int8").arithmetic_intensity
    w8a16 = rl.matmul(b, d, f, "w8a16").arithmetic_intensity
    assert math.isclose(int8, 2 * bf16, rel_tol=1e-12)
    assert bf16 < w8a16 < int8


@given(n=sizes, k=st.integers(min_value=1, max_value=32))
def test_elementwise_intensity_doubles_when_the_dtype_halves(n, k):
    fp32 = rl.elementwise(n, k, "fp32").arithmetic_intensity
    bf16 = rl.elementwise(n, k, "bf16").arithmetic_intensity
    assert math.isclose(bf16, 2 * fp32, rel_tol=1e-12)
    assert math.isclose(bf16, k / 4, rel_tol=1e-12)  # k FLOPs per 2 + 2 bytes


@given(b=sizes, d=sizes, f=sizes, dt=dtype_presets)
def test_critical_batch_is_where_the_exact_matmul_turns_compute_bound(b, d, f, dt):
    chip = rl.get_chip("TPU v5e")
    dtypes = rl.matmul_dtypes(dt)
    if dtypes.compute not in chip.dtypes:
        return
    b_star = rl.critical_batch_size(chip, dtypes, D=d, F=f)
    regime = rl.analyze(rl.matmul(b, d, f, dtypes), chip).regime
    if b > b_star * (1 + 1e-9):
        assert regime == "compute-bound"
    elif b < b_star * (1 - 1e-9):
        assert regime == "memory-bound"


@given(n=big_sizes, d=st.sampled_from([64, 128, 256]), rows_per_d=st.sampled_from([1, 2, 4]))
def test_flash_attention_moves_fewer_bytes_than_standard_attention(n, d, rows_per_d):
    # With tiles of M ≥ d rows, 4·H·S·d·(1 + ⌈S/M⌉) < 8·H·S·d + 8·H·S² whenever S > M. (Tiles of
    # fewer than d/2 rows re-read K and V so often that flash would move more bytes.)
    m = d * rows_per_d
    standard = rl.standard_attention(2, n, d)
    flash = rl.flash_attention(2, n, d, m)
    assert flash.flops == standard.flops
    if n > m:
        assert flash.bytes_total < standard.bytes_total
        assert flash.arithmetic_intensity > standard.arithmetic_intensity
    assert standard.arithmetic_intensity < d / 2


@given(b=st.lists(sizes, min_size=1, max_size=5), d=sizes, f=sizes, dt=dtype_presets)
def test_arrays_in_give_arrays_of_the_same_shape_out(b, d, f, dt):
    batch = np.array(b)
    cost = rl.matmul(batch, d, f, dt)
    assert np.shape(cost.arithmetic_intensity) == batch.shape
    for i, bi in enumerate(b):
        assert math.isclose(
            cost.arithmetic_intensity[i], rl.matmul(bi, d, f, dt).arithmetic_intensity
        )


def test_scalars_in_give_python_floats_out():
    cost = rl.matmul(4, 8, 16)
    for value in (cost.flops, cost.bytes_read, cost.bytes_written, cost.arithmetic_intensity):
        assert type(value) is float
    est = rl.analyze(cost, "H100 SXM")
    assert type(est.lower_bound_s) is float and isinstance(est.regime, str)


def test_two_dimensional_arrays_broadcast():
    b = np.array([[1, 2], [4, 8]])
    d = np.array([1024, 4096])
    cost = rl.matmul(b, d, 512)
    assert cost.arithmetic_intensity.shape == (2, 2)
    assert rl.analyze(cost, "TPU v5e").regime.shape == (2, 2)
