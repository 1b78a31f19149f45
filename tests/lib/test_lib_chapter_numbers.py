"""The chapter's worked numbers, reproduced from roofline_lib.

Each test states the chapter's figure, the tolerance, and where the library disagrees with the
text, what the text got wrong. Chips "with the chapter's figures" come from roofline_lib.chapter;
everything else uses the cited catalog.
"""

from __future__ import annotations

import numpy as np
import pytest

import roofline_lib as rl
from roofline_lib import chapter

H100 = rl.get_chip("H100 SXM")
V5E = rl.get_chip("TPU v5e")
V6E = rl.get_chip("TPU v6e")


def rel(x: float, expected: float, tol: float) -> bool:
    return abs(x - expected) <= tol * abs(expected)


# -- 2.1 where the time goes --------------------------------------------------------------------


def test_1e12_flops_take_about_1_01_ms_on_an_h100():
    # chapter: 1e12 / 9.89e14 ≈ 1.01 ms. Same to 3 digits with the datasheet's 989.5 TFLOP/s.
    assert rl.t_math(1e12, chapter.H100_CHAPTER.peak("bf16")) == pytest.approx(1.01e-3, rel=5e-3)
    assert rl.t_math(1e12, H100.peak("bf16")) == pytest.approx(1.01e-3, rel=5e-3)


def test_1e12_flops_take_about_1_1_ms_on_a_tpu_v6e():
    # chapter: 9.1e14 FLOP/s → 1.099 ms ("1.1 ms"); Google's 918 TFLOP/s → 1.089 ms, also "1.1".
    assert rl.t_math(1e12, chapter.TPU_V6E_CHAPTER.peak("bf16")) == pytest.approx(1.1e-3, rel=1e-2)
    assert rl.t_math(1e12, V6E.peak("bf16")) == pytest.approx(1.1e-3, rel=1.5e-2)


# -- 2.2 critical intensities ---------------------------------------------------------------


def test_tpu_v5e_critical_intensity_is_240_bf16_and_480_int8():
    # chapter: 1.97e14 / 8.2e11 = 240 and 3.94e14 / 8.2e11 = 480. The catalog (Google's page:
    # 197 TFLOP/s, 393 TOP/s, 819 GB/s) gives 240.5 and 479.9: within 0.5%.
    assert rl.critical_intensity(chapter.TPU_V5E_CHAPTER, "bf16") == pytest.approx(240, rel=2e-3)
    assert rl.critical_intensity(chapter.TPU_V5E_CHAPTER, "int8") == pytest.approx(480, rel=2e-3)
    assert rl.critical_intensity(V5E, "bf16") == pytest.approx(240, rel=5e-3)
    assert rl.critical_intensity(V5E, "int8") == pytest.approx(480, rel=5e-3)


def test_h100_bf16_critical_intensity_is_295_not_298():
    # The chapter says "~298". That is 1e15 / 3.35e12 = 298.5: the peak rounded up to 1e15.
    # With the dense peak it quotes itself (9.89e14), or the datasheet's 1,979 / 2 = 989.5 TFLOP/s,
    # the ratio is 295.2 or 295.4.
    assert rl.critical_intensity(H100, "bf16") == pytest.approx(295.4, abs=0.05)
    assert rl.critical_intensity(chapter.H100_CHAPTER, "bf16") == pytest.approx(295.2, abs=0.05)
    assert 1e15 / H100.bandwidth("hbm") == pytest.approx(298.5, abs=0.05)


def test_tpu_v6e_critical_intensity_is_569_with_the_chapters_figures():
    # 9.1e14 / 1.6e12 = 568.75. Google's current page (918 TFLOP/s, 1638 GB/s) gives 560.4.
    assert rl.critical_intensity(chapter.TPU_V6E_CHAPTER) == pytest.approx(569, rel=1e-3)
    assert rl.critical_intensity(V6E) == pytest.approx(560.4, abs=0.05)


def test_dot_product_intensity_tends_to_one_half():
    # chapter: (2N − 1) FLOPs over 4N + 2 bytes in bf16 → 0.5 FLOPs/byte.
    n = np.array([1e3, 1e6, 1e9])
    intensity = rl.dot_product(n).arithmetic_intensity
    assert np.all(intensity < 0.5)
    assert intensity[-1] == pytest.approx(0.5, rel=1e-6)
    assert rl.dot_product(1000).flops == 1999
    assert rl.dot_product(1000).bytes_total == 4 * 1000 + 2


# -- 2.4 matmuls --------------------------------------------------------------------------------


def test_bf16_matmul_intensity_is_about_b_when_b_is_much_smaller_than_d_and_f():
    for b in (16, 64, 240):
        exact = rl.matmul(b, 65536, 65536).arithmetic_intensity
        assert exact < b
        assert exact == pytest.approx(b, rel=2 * b / 65536 * 1.01)
        assert rl.matmul_small_batch(b, 65536, 65536).arithmetic_intensity == pytest.approx(b)


def test_tiles_of_128_256_512_give_intensity_64_128_256():
    for tile, expected in ((128, 64), (256, 128), (512, 256)):
        assert rl.tile_intensity(b_B=tile, b_F=tile) == pytest.approx(expected)
        # The whole tiled matmul tends to the tile's intensity as k grows (one output write).
        tiled = rl.tiled_matmul(
            8192, 2**20, 8192, b_B=tile, b_D=tile, b_F=tile
        ).arithmetic_intensity
        assert tiled == pytest.approx(expected, rel=1e-3)


def test_megatron_matmul_shards_are_compute_bound_on_an_h100():
    # chapter: 2048 sequences of 4096 tokens over DP = 16 → 524,288 tokens per replica; with one
    # sequence per micro-batch each matmul sees B = 4096 tokens, and TP = 8 splits F = 28,672
    # into shards of 3,584 but leaves B whole. Each shard's matmul 4096 × 8192 × 3584 has
    # intensity ≈ 1,550, far above the H100's ≈ 295: compute-bound, even for a global batch of 32.
    B, D, F_shard = 4096, 8192, 28_672 // 8
    shard = rl.analyze(rl.matmul(B, D, F_shard), H100)
    assert shard.regime == "compute-bound"
    assert shard.arithmetic_intensity == pytest.approx(1549.8, abs=0.1)
    assert rl.critical_batch_size(H100) < B
    # the micro-batch, not the replica's batch, is what a matmul sees: 8 tokens would not do
    assert rl.analyze(rl.matmul(8, D, F_shard), H100).regime == "memory-bound"


# -- 2.5 network rooflines ------------------------------------------------------------------


def test_two_chip_v5e_split_along_d_is_compute_bound_above_8755():
    # chapter: T_math = BDF / C, T_comms = 2BF / W → compute-bound when D > 2C / W = 8755.6.
    d_star = rl.critical_contracting_dim(1.97e14, chapter.V5E_ICI_CHAPTER_BYTES_PER_S, n_chips=2)
    assert d_star == pytest.approx(8755.6, abs=0.1)
    chip = chapter.TPU_V5E_CHAPTER
    for d, expected in ((8754, "network-bound"), (8758, "compute-bound")):
        cost = rl.sharded_matmul(4096, d, 8192, 2)
        est = rl.estimate(
            cost.flops_per_chip, cost.network_bytes_per_chip, chip.peak(), 4.5e10, level="ici"
        )
        assert est.regime == expected
    # B and F cancel: the verdict does not depend on them.
    for b, f in ((1, 1), (128, 4096), (65536, 128)):
        a = rl.sharded_matmul(b, 8758, f, 2)
        assert a.network_intensity == pytest.approx(8758 / 2)


def test_tensor_parallel_shard_must_exceed_2222_over_nvlink_and_20000_over_ib():
    # chapter: at ~1e15 FLOP/s, 1e15 / 4.5e11 ≈ 2222 and 1e15 / 5e10 = 20000.
    peak = chapter.TP_PEAK_CHAPTER_FLOPS_PER_S
    assert rl.critical_shard_dim(peak, chapter.NVLINK_CHAPTER_BYTES_PER_S) == pytest.approx(
        2222.2, abs=0.1
    )
    assert rl.critical_shard_dim(peak, chapter.IB_CHAPTER_BYTES_PER_S) == pytest.approx(20000)
    # hidden 8192: D/2 = 4096 passes over NVLink and fails over IB; D/8 = 512 fails even on NVLink.
    nvlink = rl.critical_shard_dim(H100.peak(), H100.bandwidth("nvlink4"))
    ib = rl.critical_shard_dim(H100.peak(), H100.bandwidth("ib_ndr"))
    assert 8192 / 2 > nvlink and 8192 / 2 < ib and 8192 / 8 < nvlink


# -- 2.6 low precision --------------------------------------------------------------------


def test_int8_critical_batch_is_240_and_w8a16_critical_batch_is_120():
    chip = chapter.TPU_V5E_CHAPTER
    assert rl.critical_batch_size(chip, "int8") == pytest.approx(240, rel=2e-3)
    assert rl.critical_batch_size(chip, "w8a16") == pytest.approx(120, rel=2e-3)
    assert rl.critical_batch_size(chip, "bf16") == pytest.approx(240, rel=2e-3)
    # int8 matmul intensity is 2B in the small-batch limit
    assert rl.matmul_small_batch(100, 8192, 8192, "int8").arithmetic_intensity == pytest.approx(200)


def test_problem_givens_are_the_chapters():
    assert chapter.PROBLEM_1.hbm_bandwidth_bytes_per_s == 8.1e11
    assert chapter.PROBLEM_1.peak_flops_per_s == 3.94e14
    assert chapter.PROBLEM_2.peak_flops_per_s == 1.97e14


# -- 2.8 MFU ----------------------------------------------------------------------------------


def test_llama_70b_mfu_example_is_99_percent_not_49():
    """The chapter: 6 × 70e9 × 2048 × 4096 = 3.5e18 FLOPs in 7 s on 512 H100s at 990 TFLOP/s,
    "achieved = 5e17, peak = 5.07e17, MFU ≈ 5e17 / 5.07e17 ≈ 49%".

    What the text got wrong: 5e17 / 5.07e17 is 0.99, not 0.49. The library gives 99.3% from the
    6·P·T term alone, and 107% with the attention term (12·L·s·h per token, i.e. the chapter's
    12·L·s²·h per sequence times 2048 sequences, which its code forgets to multiply by), which is
    impossible: the 7 s step time and the 49% cannot both hold. 49% MFU needs a 14.2 s step.
    """
    run = chapter.LLAMA_70B_RUN
    tokens = run["sequences_per_step"] * run["seq_len"]
    flops = rl.training_flops(
        run["n_params"], tokens, run["n_layers"], run["seq_len"], attention_width=run["d_model"]
    )
    assert flops.dense_flops == pytest.approx(3.5e18, rel=1e-2)
    achieved = flops.dense_flops / run["step_time_s"]
    assert achieved == pytest.approx(5e17, rel=1e-2)
    assert run["n_chips"] * run["peak_flops_per_s"] == pytest.approx(5.07e17, rel=1e-3)
    mfu = rl.model_flops_utilization(
        flops.dense_flops, run["step_time_s"], run["n_chips"], run["peak_flops_per_s"]
    )
    assert mfu == pytest.approx(0.993, abs=1e-3)
    assert mfu != pytest.approx(run["claimed_mfu"], abs=0.1)
    # With attention the claimed step time would need 107 % of peak: the library refuses it.
    assert flops.total / run["step_time_s"] / (run["n_chips"] * run["peak_flops_per_s"]) > 1.0
    with pytest.raises(ValueError, match=r"= 1\.07, above 1: the chips would exceed their peak"):
        rl.model_flops_utilization(
            flops.total, run["step_time_s"], run["n_chips"], run["peak_flops_per_s"]
        )
    assert rl.step_time_for_mfu(
        flops.dense_flops, run["claimed_mfu"], run["n_chips"], run["peak_flops_per_s"]
    ) == pytest.approx(14.19, abs=0.01)


# -- 2.7 problem 6 and 2.9 inference ---------------------------------------------------------------


def test_standard_attention_intensity_tends_to_half_the_head_dim_and_flash_to_the_tile():
    d = 128
    big_n = 2**20
    assert rl.standard_attention(1, big_n, d).arithmetic_intensity == pytest.approx(d / 2, rel=1e-3)
    assert rl.flash_attention(1, big_n, d, 128).arithmetic_intensity == pytest.approx(128, rel=1e-3)
    # memory-bound at every S on an H100: d/2 = 64 < 295
    assert rl.standard_attention_critical_seq_len(d, rl.critical_intensity(H100)) == np.inf


def test_chapters_sweep_table_intensities_are_off():
    """The chapter's sample output for D = F = 8192 on an H100 lists AI 127.5 (B=128), 504.0
    (B=512) and 3641 (B=4096). The bf16 intensity B·D·F / (B·D + D·F + B·F) it prints is 124.1,
    455.1 and 2048; the matmul turns compute-bound at B ≈ 318, not "B < 300"."""
    intensity = rl.matmul(np.array([1, 128, 512, 4096]), 8192, 8192).arithmetic_intensity
    np.testing.assert_allclose(intensity, [0.99976, 124.12, 455.11, 2048.0], rtol=1e-4)
    assert rl.critical_batch_size(H100, "bf16", D=8192, F=8192) == pytest.approx(318.3, abs=0.1)
