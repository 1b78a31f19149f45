"""An audit of every public function of roofline_lib at the edges: every numpy kind of array,
sizes from 1 to the float limit, shapes that do not broadcast, names and units a user may get
wrong. Each function either answers with finite numbers or raises a ValueError (or
UnknownNameError) that names the parameter; nothing else escapes and nothing is silently wrong.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import roofline_lib as rl
from roofline_lib.roofline import known_levels

H100 = rl.get_chip("H100 SXM")

# (label, call with the value under test, the parameter's name, a valid value for it)
Probe = tuple[str, Callable[[object], object], str, int]
PROBES: list[Probe] = [
    ("matmul B", lambda v: rl.matmul(v, 64, 32).flops, "B", 16),
    ("matmul D", lambda v: rl.matmul(8, v, 32).bytes_total, "D", 16),
    ("matmul_small_batch F", lambda v: rl.matmul_small_batch(8, 64, v).flops, "F", 16),
    ("batched_matmul B", lambda v: rl.batched_matmul(v, 64, 32).bytes_total, "B", 16),
    ("dot_product D", lambda v: rl.dot_product(v).flops, "D", 16),
    ("elementwise D", lambda v: rl.elementwise(v, 3).bytes_total, "D", 16),
    ("elementwise k", lambda v: rl.elementwise(64, v).flops, "flops_per_element", 4),
    ("elementwise inputs", lambda v: rl.elementwise(64, 1, inputs=v).bytes_read, "inputs", 2),
    (
        "tiled_matmul b_B",
        lambda v: rl.tiled_matmul(64, 64, 64, b_B=v, b_D=16, b_F=16).bytes_read,
        "b_B",
        16,
    ),
    ("tile_intensity b_F", lambda v: rl.tile_intensity(b_B=16, b_F=v), "b_F", 32),
    ("standard_attention S", lambda v: rl.standard_attention(2, v, 64).bytes_total, "S", 16),
    ("flash_attention M", lambda v: rl.flash_attention(2, 64, 16, v).bytes_total, "M", 16),
    (
        "standard_attention_critical_seq_len d",
        lambda v: rl.standard_attention_critical_seq_len(v, 50.0),
        "d",
        120,
    ),
    (
        "sharded_matmul n_chips",
        lambda v: rl.sharded_matmul(8, 64, 8, v).flops_per_chip,
        "n_chips",
        4,
    ),
    ("collective_factor n_chips", lambda v: rl.collective_factor(v), "n_chips", 4),
    ("critical_shard_dim peak", lambda v: rl.critical_shard_dim(v, 1e11), "peak_flops_per_s", 100),
    (
        "critical_contracting_dim n_chips",
        lambda v: rl.critical_contracting_dim(1e15, 1e11, v),
        "n_chips",
        4,
    ),
    ("critical_batch_size D", lambda v: rl.critical_batch_size(H100, D=v, F=2**20), "D", 100),
    ("t_math flops", lambda v: rl.t_math(v, 1e12), "flops", 100),
    ("t_comms bandwidth", lambda v: rl.t_comms(1e9, v), "bandwidth_bytes_per_s", 100),
    ("lower_bound t_math_s", lambda v: rl.lower_bound(v, 1.0), "t_math_s", 3),
    ("upper_bound t_comms_s", lambda v: rl.upper_bound(1.0, v), "t_comms_s", 3),
    ("regime t_math_s", lambda v: rl.regime(v, 1.0), "t_math_s", 3),
    ("achievable intensity", lambda v: rl.achievable_flops_per_s(v, 1e15, 1e12), "intensity", 50),
    (
        "estimate bytes_moved",
        lambda v: rl.estimate(1e9, v, 1e15, 1e12).t_comms_s,
        "bytes_moved",
        100,
    ),
    ("estimate flops", lambda v: rl.estimate(v, 1e6, 1e15, 1e12).t_math_s, "flops", 100),
    ("training_flops tokens", lambda v: rl.training_flops(7e9, v).dense_flops, "tokens", 100),
    (
        "training_flops attention_width",
        lambda v: rl.training_flops(7e9, 1e6, 32, 4096, v).attention_flops,
        "attention_width",
        64,
    ),
    ("mfu step_time_s", lambda v: rl.model_flops_utilization(1e3, v, 1, 1e3), "step_time_s", 4),
    ("step_time_for_mfu n_chips", lambda v: rl.step_time_for_mfu(1e18, 0.5, v, 1e15), "n_chips", 8),
]
IDS = [p[0] for p in PROBES]

NUMERIC_DTYPES = [
    np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, np.float32, np.float64, np.longdouble,
]  # fmt: skip


def _as_float(result: object) -> np.ndarray:
    """Numbers as float64; a regime's strings as they are."""
    arr = np.asarray(result)
    return arr if arr.dtype.kind in "US" else arr.astype(np.float64)


@pytest.mark.parametrize(("label", "call", "param", "value"), PROBES, ids=IDS)
@pytest.mark.parametrize("dtype", NUMERIC_DTYPES, ids=lambda d: np.dtype(d).name)
def test_every_integer_and_real_float_kind_gives_the_float64_answer(
    label, call, param, value, dtype
):
    expected = _as_float(call(float(value)))
    scalar = _as_float(call(dtype(value)))
    array = _as_float(call(np.array([value, value], dtype=dtype)))
    assert np.array_equal(scalar, expected)
    assert array.shape[-1:] == (2,) and np.array_equal(array, np.broadcast_to(expected, (2,)))


BAD_VALUES = {
    "bool": np.array([True, True]),
    "numpy bool": np.True_,
    "complex": np.array([16 + 0j]),
    "complex scalar": 16 + 0j,
    "string": np.array(["16"]),
    "bytes": np.array([b"16"]),
    "datetime": np.array(["2024-01-01"], dtype="datetime64[D]"),
    "timedelta": np.array([16], dtype="timedelta64[s]"),
    "object with a string": np.array([16, "16"], dtype=object),
    "nested list": [[16], [16, 16]],
    "None": None,
}


@pytest.mark.parametrize(("label", "call", "param", "value"), PROBES, ids=IDS)
@pytest.mark.parametrize("bad", BAD_VALUES.values(), ids=BAD_VALUES.keys())
def test_non_real_kinds_are_refused_naming_the_parameter(label, call, param, value, bad):
    if bad is None and param in ("D", "attention_width"):
        return  # None there means "not given" (the B ≪ D limit; no attention term)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning, no silent casts
        with pytest.raises(ValueError, match=rf"^{param} must be"):
            call(bad)


def test_the_refusal_names_the_dtype_of_the_array():
    with pytest.raises(ValueError, match="got a boolean array of dtype bool"):
        rl.matmul(np.array([True]), 8, 8)
    with pytest.raises(ValueError, match="got a timedelta array of dtype timedelta64"):
        rl.model_flops_utilization(1e18, np.array([7], dtype="timedelta64[s]"), 512, 1e15)
    with pytest.raises(ValueError, match="tokens is too large for a 64-bit float"):
        rl.training_flops(7e9, 10**400)


# -- every value, every shape -----------------------------------------------------------------------

AUDIT = settings(max_examples=60, deadline=None)
huge_sizes = st.one_of(
    st.integers(min_value=1, max_value=2**64),
    st.floats(min_value=1, max_value=1e300).map(math.floor),
)


@AUDIT
@given(b=huge_sizes, d=huge_sizes, f=huge_sizes, dt=st.sampled_from(["bf16", "int8", "w8a16"]))
def test_any_size_gives_finite_numbers_or_a_clear_overflow(b, d, f, dt):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy's overflow note before ours
        try:
            cost = rl.matmul(b, d, f, dt)
        except ValueError as err:
            assert "overflows a 64-bit float" in str(err)
            return
    for value in (cost.flops, cost.bytes_read, cost.bytes_written):
        assert math.isfinite(value) and value > 0
    assert cost.arithmetic_intensity > 0


@AUDIT
@given(
    sizes=st.lists(st.integers(min_value=1, max_value=2**20), min_size=1, max_size=6),
    probe=st.sampled_from(PROBES),
)
def test_arrays_give_the_same_numbers_as_one_call_per_element(sizes, probe):
    _, call, _, value = probe
    values = [value * s for s in sizes]
    try:
        whole = _as_float(call(np.array(values)))
    except ValueError:
        # then some element alone must fail too (a tile that does not divide, say)
        failures = 0
        for v in values:
            try:
                call(v)
            except ValueError:
                failures += 1
        assert failures > 0
        return
    assert whole.shape[-1] == len(values)
    for i, v in enumerate(values):
        one = _as_float(call(v))
        if one.dtype.kind == "U":
            assert np.array_equal(whole[..., i], one)
        else:
            np.testing.assert_allclose(whole[..., i], one, rtol=1e-12)


@AUDIT
@given(n=st.integers(min_value=2, max_value=10**6))
def test_no_collective_beyond_two_chips_charges_less_than_the_all_reduce(n):
    ring = rl.collective_factor(n, "all_reduce")
    assert 1 <= ring < 2
    assert rl.collective_factor(n, "reduce_scatter") == pytest.approx(ring / 2)
    if n == 2:
        assert rl.collective_factor(n, "exchange") == ring == 1
    else:
        with pytest.raises(ValueError, match="needs n_chips = 2"):
            rl.collective_factor(n, "exchange")


@AUDIT
@given(
    flops=st.floats(min_value=1, max_value=1e25),
    step=st.floats(min_value=1e-3, max_value=1e6),
    chips=st.integers(min_value=1, max_value=10**5),
    peak=st.floats(min_value=1e9, max_value=1e18),
)
def test_mfu_is_a_fraction_or_an_error(flops, step, chips, peak):
    try:
        mfu = rl.model_flops_utilization(flops, step, chips, peak)
    except ValueError as err:
        assert flops / (step * chips * peak) > 1
        assert "above 1" in str(err)
        return
    assert 0 < mfu <= 1
    assert rl.step_time_for_mfu(flops, mfu, chips, peak) == pytest.approx(step, rel=1e-9)


@AUDIT
@given(level=st.text(max_size=12))
def test_a_level_is_known_or_refused(level):
    try:
        regime = rl.regime(1.0, 2.0, level)
    except rl.UnknownNameError as err:
        assert level not in known_levels()
        assert "allowed: 'hbm', 'onchip'" in str(err)
        return
    assert level in known_levels()
    assert regime == ("memory-bound" if level in ("hbm", "onchip") else "network-bound")


@AUDIT
@given(flops=st.floats(min_value=0, max_value=1e20), moved=st.floats(min_value=0, max_value=1e20))
def test_an_estimate_has_work_or_says_it_has_none(flops, moved):
    try:
        est = rl.estimate(flops, moved, 1e15, 1e12)
    except ValueError as err:
        assert flops == 0 and moved == 0
        assert "both 0" in str(err)
        return
    assert est.lower_bound_s > 0 or (flops < 1e-300 and moved < 1e-300)
    assert 0 <= est.fraction_of_peak <= 1


# -- shapes, names and units a user may get wrong -------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda: rl.t_math([1, 2], [1, 2, 3]),
        lambda: rl.t_comms([1, 2], [1, 2, 3]),
        lambda: rl.lower_bound([1, 2], [1, 2, 3]),
        lambda: rl.upper_bound([1, 2], [1, 2, 3]),
        lambda: rl.regime([1, 2], [1, 2, 3]),
        lambda: rl.achievable_flops_per_s([1, 2], [1e15, 2e15, 3e15], 1e12),
        lambda: rl.training_flops([7e9, 8e9], 1e6, 32, 4096, [1, 2, 3]),
        lambda: rl.model_flops_utilization([1e9, 2e9], 1.0, [1, 2, 3], 1e15),
        lambda: rl.step_time_for_mfu([1e9, 2e9], 0.5, [1, 2, 3], 1e15),
        lambda: rl.sharded_matmul([8, 16], 64, 8, [1, 2, 4]),
    ],
)
def test_shapes_that_do_not_broadcast_are_named(call):
    with pytest.raises(ValueError, match=r"shapes that do not broadcast: .*\([23],\).*\([23],\)"):
        call()


def test_estimate_takes_one_chip_at_a_time():
    with pytest.raises(ValueError, match="peak_flops_per_s must be a single number"):
        rl.estimate(1e9, 1e9, np.array([1e15, 2e15]), 1e12)


def test_critical_batch_size_is_a_memory_question():
    with pytest.raises(rl.UnknownNameError, match="critical_shard_dim"):
        rl.critical_batch_size(H100, level="nvlink4")


@pytest.mark.parametrize("dtype", [np.float32, "float32", "bfloat16", "BF16", "fp8_e4m3"])
def test_dtype_names_are_the_librarys_own(dtype):
    with pytest.raises(rl.UnknownNameError, match="allowed: "):
        rl.bytes_per_element(dtype)


def test_a_percentage_is_not_a_fraction():
    with pytest.raises(ValueError, match="mfu must be a fraction"):
        rl.step_time_for_mfu(1e18, 49, 512, 1e15)
