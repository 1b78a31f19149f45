"""The models refuse what they cannot mean (issue 11): collectives, training FLOPs, MFU above 1,
no-work estimates, unknown or mismatched levels, positional tile sizes."""

from __future__ import annotations

import numpy as np
import pytest

import roofline_lib as rl

# -- collectives -----------------------------------------------------------------------------------


def test_all_reduce_is_the_default_collective():
    assert rl.COLLECTIVES[0] == "all_reduce"
    cost = rl.sharded_matmul(8, 64, 8, 4)
    assert cost.collective == "all_reduce"
    assert rl.collective_factor(4) == pytest.approx(2 * 3 / 4)


@pytest.mark.parametrize("n", [3, 4, 8, 64])
def test_no_default_charges_less_than_the_all_reduce_bound(n):
    """Every chip must end with Z; a ring sends 2(N−1)/N of it per chip, the lower bound."""
    cost = rl.sharded_matmul(16, 64 * n, 32, n)
    partial_sum_bytes = 16 * 32 * 2
    assert cost.network_bytes_per_chip == pytest.approx(2 * (n - 1) / n * partial_sum_bytes)


@pytest.mark.parametrize("n", [1, 3, 4, 8])
def test_exchange_is_refused_unless_two_chips(n):
    with pytest.raises(ValueError, match=r"'exchange' .* needs n_chips = 2, got .*all_reduce"):
        rl.sharded_matmul(8, 24 * n, 8, n, collective="exchange")
    with pytest.raises(ValueError, match="needs n_chips = 2"):
        rl.critical_shard_dim(1e15, 4.5e11, "bf16", n, "exchange")


def test_exchange_is_refused_for_any_array_entry_but_two():
    with pytest.raises(ValueError, match="needs n_chips = 2, got 4"):
        rl.collective_factor(np.array([2, 4]), "exchange")


def test_two_chips_swap_equals_the_all_reduce_and_keeps_the_chapters_threshold():
    for collective in rl.COLLECTIVES[::2]:
        assert rl.collective_factor(2, collective) == 1.0
    # the chapter: two TPU v5e chips, 1.97e14 FLOP/s over 4.5e10 bytes/s: D > 8755.6
    for collective in ("all_reduce", "exchange"):
        d_star = rl.critical_contracting_dim(1.97e14, 4.5e10, 2, "bf16", collective)
        assert d_star == pytest.approx(2 * 1.97e14 / 4.5e10)


def test_one_chip_has_no_network_term():
    cost = rl.sharded_matmul(8, 64, 8, 1)
    assert cost.network_bytes_per_chip == 0.0
    assert cost.network_intensity == np.inf
    assert rl.critical_shard_dim(1e15, 4.5e11, "bf16", 1) == 0.0
    est = rl.analyze(cost, "H100 SXM", "nvlink4")
    assert est.regime == "compute-bound" and est.t_comms_s == 0.0


def test_reduce_scatter_sends_half_the_all_reduce():
    n = np.array([2, 4, 8])
    ratio = np.asarray(rl.collective_factor(n, "reduce_scatter")) / np.asarray(
        rl.collective_factor(n, "all_reduce")
    )
    assert np.allclose(ratio, 0.5)


# -- training FLOPs: PaLM's 6N + 12·L·H·Q·T ----------------------------------------------------------

# PaLM-540B (Chowdhery et al. 2022, arXiv:2204.02311): 118 layers, 48 heads, d_model 18,432
# (Table 1), head size 256 (the table's footnote), sequence length 2048; Appendix B: "238.3K
# tokens/sec ... model FLOPs utilization is 45.7% without self-attention
# ((238.3×6×540)/(275×6144)) or 46.2% with it" on 6144 TPU v4 chips of 275 TFLOP/s (bf16, dense).
PALM = {"n_params": 540e9, "layers": 118, "heads": 48, "head_dim": 256, "d_model": 18432}
PALM_TOKENS_PER_S, PALM_CHIPS, PALM_PEAK, PALM_SEQ = 238.3e3, 6144, 275e12, 2048
# Gemma-7B (google/gemma-7b config.json): 28 layers, hidden_size 3072, 16 heads, head_dim 256.
GEMMA = {"layers": 28, "heads": 16, "head_dim": 256, "d_model": 3072}


def _palm_mfu(attention_width):
    per_token = rl.training_flops(PALM["n_params"], 1, PALM["layers"], PALM_SEQ, attention_width)
    return rl.model_flops_utilization(
        per_token.total * PALM_TOKENS_PER_S, 1.0, PALM_CHIPS, PALM_PEAK
    )


def test_palm_540b_reproduces_the_papers_mfu_with_heads_times_head_dim():
    dense = rl.training_flops(PALM["n_params"], PALM_TOKENS_PER_S).dense_flops
    assert rl.model_flops_utilization(dense, 1.0, PALM_CHIPS, PALM_PEAK) == pytest.approx(
        0.457, abs=5e-4
    )
    assert _palm_mfu(PALM["heads"] * PALM["head_dim"]) == pytest.approx(0.462, abs=5e-4)
    # d_model in place of H·Q overstates the attention term 1.5× and misses the paper's figure
    assert PALM["d_model"] / (PALM["heads"] * PALM["head_dim"]) == 1.5
    assert _palm_mfu(PALM["d_model"]) != pytest.approx(0.462, abs=5e-4)


def test_gemma_7b_attention_width_is_a_third_more_than_d_model():
    width = GEMMA["heads"] * GEMMA["head_dim"]
    right = rl.training_flops(7e9, 8192, GEMMA["layers"], 8192, width).attention_flops
    wrong = rl.training_flops(7e9, 8192, GEMMA["layers"], 8192, GEMMA["d_model"]).attention_flops
    assert right == 12 * GEMMA["layers"] * 8192 * 4096 * 8192
    assert wrong / right == pytest.approx(0.75)  # d_model counts 25 % too little


def test_training_flops_no_longer_takes_d_model():
    with pytest.raises(TypeError, match="d_model"):
        rl.training_flops(7e9, 1e6, n_layers=32, seq_len=4096, d_model=4096)


# -- MFU above 1 ---------------------------------------------------------------------------------------


def test_mfu_above_one_names_the_inputs_that_disagree():
    with pytest.raises(
        ValueError, match=r"step_time_s .* n_chips .* peak_flops_per_s.*= 2, above 1"
    ):
        rl.model_flops_utilization(2e15, 1.0, 1, 1e15)
    with pytest.raises(ValueError, match="at index 1"):
        rl.model_flops_utilization(np.array([1e14, 3e15]), 1.0, 2, 1e15)


def test_mfu_of_exactly_one_is_allowed():
    assert rl.model_flops_utilization(1e15, 1.0, 1, 1e15) == 1.0


# -- no work, unknown levels, mismatched levels -------------------------------------------------------


def test_estimate_of_no_work_is_an_error():
    with pytest.raises(ValueError, match="flops and bytes_moved are both 0"):
        rl.estimate(0, 0, 1e15, 1e12)
    with pytest.raises(ValueError, match=r"both 0 at index \(1,\)"):
        rl.estimate([1e9, 0], [0, 0], 1e15, 1e12)
    with pytest.raises(ValueError, match="t_math_s and t_comms_s are both 0"):
        rl.regime(0, 0)


def test_zero_flops_or_zero_bytes_alone_is_still_an_answer():
    copy = rl.estimate(0, 1e9, 1e15, 1e12)
    assert copy.regime == "memory-bound" and copy.achievable_flops_per_s == 0.0
    on_chip = rl.estimate(1e9, 0, 1e15, 1e12)
    assert on_chip.regime == "compute-bound" and on_chip.achievable_flops_per_s == 1e15


@pytest.mark.parametrize("level", ["HBM", "hmb", "Hbm", "nvlink", "", "network"])
def test_unknown_level_is_an_error_listing_the_levels(level):
    with pytest.raises(rl.UnknownNameError, match=r"unknown level .*allowed: 'hbm', 'onchip'"):
        rl.estimate(1e9, 1e9, 1e15, 1e12, level)
    with pytest.raises(rl.UnknownNameError, match="unknown level"):
        rl.regime(1.0, 2.0, level)


def test_link_levels_still_say_network_bound():
    assert rl.regime(1.0, 2.0, "ici") == "network-bound"
    assert rl.estimate(1, 1e9, 1e15, 1e11, "nvlink4").regime == "network-bound"
    assert rl.regime(1.0, 2.0, "onchip") == "memory-bound"


@pytest.mark.parametrize(("chip", "link"), [("H100 SXM", "nvlink4"), ("TPU v5e", "ici")])
def test_a_network_level_on_an_hbm_cost_is_an_error(chip, link):
    with pytest.raises(rl.UnknownNameError, match=rf"level '{link}' \(a link of .*memory traffic"):
        rl.analyze(rl.matmul(64, 8192, 8192), chip, link)


def test_an_hbm_level_on_a_network_cost_is_an_error():
    with pytest.raises(ValueError, match="timed on a link of"):
        rl.analyze(rl.sharded_matmul(64, 8192, 8192, 2), "H100 SXM", "hbm")


# -- tile sizes are keyword-only ------------------------------------------------------------------


def test_tile_sizes_must_be_named():
    with pytest.raises(TypeError):
        rl.tile_intensity(128, 256)  # type: ignore[misc]
    with pytest.raises(TypeError):
        rl.tiled_matmul(256, 256, 256, 128, 128, 128)  # type: ignore[misc]
    assert rl.tile_intensity(b_B=128, b_F=256) == pytest.approx(128 * 256 / (128 + 256))
    # the order of the keywords does not matter, unlike the old positional orders
    a = rl.tiled_matmul(512, 1024, 256, b_B=128, b_D=256, b_F=64)
    b = rl.tiled_matmul(512, 1024, 256, b_F=64, b_B=128, b_D=256)
    assert a == b
