"""Bad input raises a ValueError (KeyError for names) that names the parameter and what is allowed."""

from __future__ import annotations

import numpy as np
import pytest

import roofline_lib as rl

BAD_COUNTS = [
    (0, "got 0"),
    (-3, "got -3"),
    (2.5, "got 2.5"),
    (float("nan"), "got nan"),
    (float("inf"), "got inf"),
    (True, "boolean"),
    ("8", "string"),
    (None, "number"),
]


COUNT_PARAMETERS = [
    (lambda v: rl.matmul(v, 8, 8), "B"),
    (lambda v: rl.matmul(8, v, 8), "D"),
    (lambda v: rl.matmul_small_batch(8, 8, v), "F"),
    (lambda v: rl.batched_matmul(v, 8, 8), "B"),
    (lambda v: rl.dot_product(v), "D"),
    (lambda v: rl.elementwise(v, 3), "D"),
    (lambda v: rl.elementwise(16, v), "flops_per_element"),
    (lambda v: rl.standard_attention(1, v, 64), "S"),
    (lambda v: rl.flash_attention(1, 128, 64, v), "M"),
    (lambda v: rl.tiled_matmul(256, 256, 256, b_B=v, b_D=128, b_F=128), "b_B"),
    (lambda v: rl.sharded_matmul(8, 64, 8, v), "n_chips"),
    (lambda v: rl.training_flops(v, 1e6), "n_params"),
    (lambda v: rl.model_flops_utilization(1e18, 7.0, v, 1e15), "n_chips"),
]
COUNT_CASES = [
    pytest.param(call, param, value, detail, id=f"{param}-{detail}-{i}")
    for i, (call, param) in enumerate(COUNT_PARAMETERS)
    for value, detail in BAD_COUNTS
    # a string is a valid flops_per_element (an op name): see the unknown-name test
    if not (param == "flops_per_element" and isinstance(value, str))
]


@pytest.mark.parametrize(("call", "param", "value", "detail"), COUNT_CASES)
def test_bad_counts_name_the_parameter(call, param, value, detail):
    with pytest.raises(ValueError) as info:
        call(value)
    message = str(info.value)
    assert message.startswith(f"{param} must be"), message
    assert detail in message, message


def test_a_bad_element_of_an_array_is_located():
    with pytest.raises(ValueError, match=r"B must be a positive integer, got -2\.0 at index 1"):
        rl.matmul(np.array([4, -2, 8]), 16, 16)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: rl.t_math(1e12, 0), "peak_flops_per_s must be a positive finite number"),
        (lambda: rl.t_math(-1, 1e12), "flops must be a non-negative finite number"),
        (lambda: rl.t_comms(1e9, float("inf")), "bandwidth_bytes_per_s must be a positive finite"),
        (lambda: rl.t_comms(float("nan"), 1e9), "bytes_moved must be a non-negative finite"),
        (lambda: rl.achievable_flops_per_s(-1, 1e14, 1e12), "intensity must be a non-negative"),
        (lambda: rl.model_flops_utilization(1e18, 0, 8, 1e15), "step_time_s must be a positive"),
        (lambda: rl.step_time_for_mfu(1e18, 1.5, 8, 1e15), "mfu must be a fraction"),
        (lambda: rl.critical_shard_dim(-1e15, 4.5e11), "peak_flops_per_s must be a positive"),
        (lambda: rl.estimate(1, 1, 1e12, 0), "bandwidth_bytes_per_s must be a positive"),
    ],
)
def test_bad_reals_name_the_parameter_and_the_allowed_range(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: rl.bytes_per_element("bf17"), r"unknown dtype 'bf17'; allowed: 'fp64'"),
        (lambda: rl.dot_product(8, "float"), r"unknown dtype 'float'"),
        (lambda: rl.matmul(8, 8, 8, "int4x"), r"unknown matmul dtypes 'int4x'; allowed: 'bf16'"),
        (lambda: rl.MatmulDtypes("bf16", "int3"), r"unknown dtype of y 'int3'"),
        (lambda: rl.elementwise(8, "gelu"), r"unknown flops_per_element 'gelu'; allowed: 'relu'"),
        (
            lambda: rl.critical_intensity("H100 SXM", "bf16", "dram"),
            r"no bandwidth for level 'dram'",
        ),
        (lambda: rl.critical_intensity("TPU v5e", "fp8"), r"no published peak for dtype 'fp8'"),
        (lambda: rl.sharded_matmul(8, 64, 8, 2, collective="ring"), r"unknown collective 'ring'"),
        (lambda: rl.get_chip("TPU v9"), r"unknown chip 'TPU v9'; known chips: H100 SXM"),
    ],
)
def test_unknown_names_raise_key_error_listing_the_allowed_names(call, message):
    with pytest.raises(KeyError, match=message) as info:
        call()
    assert isinstance(info.value, ValueError)


def test_inconsistent_shapes_are_explained():
    with pytest.raises(ValueError, match=r"do not broadcast: B\(3,\), D\(2,\)"):
        rl.matmul(np.array([1, 2, 3]), np.array([4, 5]), 8)
    with pytest.raises(ValueError, match="B must be a multiple of the tile size b_B"):
        rl.tiled_matmul(300, 256, 256, b_B=128, b_D=128, b_F=128)
    with pytest.raises(ValueError, match="D must be a multiple of n_chips"):
        rl.sharded_matmul(8, 100, 8, 3)
    with pytest.raises(ValueError, match="give both D and F"):
        rl.critical_batch_size("H100 SXM", D=4096)
    with pytest.raises(ValueError, match="give all of n_layers, seq_len and attention_width"):
        rl.training_flops(7e9, 1e6, n_layers=32)


def test_analyze_refuses_a_sharded_cost_on_a_memory_level():
    cost = rl.sharded_matmul(8, 64, 8, 2)
    with pytest.raises(ValueError, match="timed on a link of H100 SXM; allowed levels: 'nvlink4'"):
        rl.analyze(cost, "H100 SXM", level="hbm")
    with pytest.raises(ValueError, match="cost must be a Cost"):
        rl.analyze(3.0, "H100 SXM")  # type: ignore[arg-type]


def test_integral_floats_are_accepted_as_counts():
    assert rl.matmul(4.0, 8.0, 16.0).flops == rl.matmul(4, 8, 16).flops
    assert rl.training_flops(7e9, 1e12).dense_flops == pytest.approx(4.2e22)
