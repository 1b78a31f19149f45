"""Decode attention's intensity is about the group size G = query heads / KV heads, not 1, and the
published figures the book quotes are defined once, with their sources."""

from __future__ import annotations

import numpy as np
import pytest

import roofline_lib as rl
from roofline_lib import published


def _intensity(B, S, d, hq, hkv):
    """4·B·Hq·S·d FLOPs over 2·B·Hkv·S·d·2 (K, V caches) + 2·B·Hq·d·2 (Q in, O out) bytes."""
    return 4 * B * hq * S * d / (2 * B * hkv * S * d * 2 + 2 * B * hq * d * 2)


@pytest.mark.parametrize(("hq", "hkv"), [(64, 64), (64, 8), (64, 1), (32, 4)])
def test_decode_attention_matches_the_formula_by_hand(hq, hkv):
    cost = rl.decode_attention(16, 4096, 128, hq, hkv)
    assert cost.flops == 4 * 16 * hq * 4096 * 128
    assert cost.arithmetic_intensity == pytest.approx(_intensity(16, 4096, 128, hq, hkv))


def test_multi_head_decode_attention_is_about_one_flop_per_byte_at_any_batch():
    for batch in (1, 64, 1024):
        assert rl.decode_attention(batch, 4096, 128, 64, 64).arithmetic_intensity == (
            pytest.approx(1.0, abs=1e-3)
        )


def test_grouped_query_decode_attention_is_about_the_group_size():
    heads = published.LLAMA2_70B_ATTENTION
    assert heads.group_size == 8
    ai = rl.decode_attention(64, 4096, heads.head_dim, heads.q_heads, heads.kv_heads)
    assert ai.arithmetic_intensity == pytest.approx(8.0, rel=0.01)
    assert ai.arithmetic_intensity != pytest.approx(1.0, rel=0.5)


def test_decode_attention_broadcasts_arrays():
    ai = rl.decode_attention(np.array([1, 8, 64]), 4096, 128, 64, 8).arithmetic_intensity
    assert np.shape(ai) == (3,)
    assert np.allclose(ai, ai[0])  # batching does not raise it


def test_decode_attention_refuses_heads_that_do_not_group():
    with pytest.raises(ValueError, match="q_heads must be a multiple of kv_heads"):
        rl.decode_attention(1, 4096, 128, 64, 7)
    with pytest.raises(ValueError, match="kv_heads"):
        rl.decode_attention(1, 4096, 128, 8, 0)


def test_reported_mfus_are_cited_and_span_38_to_55_percent():
    assert published.PALM_540B_MFU.low == 0.462
    assert (published.LLAMA3_405B_MFU.low, published.LLAMA3_405B_MFU.high) == (0.38, 0.43)
    assert published.MEGASCALE_175B_MFU.high == 0.552  # MegaScale, the highest of the three
    assert (published.REPORTED_MFU_LOW, published.REPORTED_MFU_HIGH) == (0.38, 0.552)
    for run in published.REPORTED_MFU:
        assert run.citation.url.startswith("https://arxiv.org/")
        assert f"{run.high * 100:g}" in run.citation.quote


def test_original_footnotes_are_quoted_as_stated():
    gpu, tpu = (published.ACHIEVABLE_MATMUL_FRACTION[k] for k in ("gpu", "tpu"))
    assert (gpu.low, gpu.high, tpu.low) == (0.80, 0.85, 0.95)
    assert "80-85%" in gpu.citation.quote and "95%" in tpu.citation.quote
    assert "7e12" in published.TPU_V5P_VPU_CITATION.quote
    assert published.TPU_V5P_VPU_FLOPS_PER_S_PER_CORE == 7e12


def test_a_reported_mfu_outside_zero_to_one_is_refused():
    with pytest.raises(ValueError, match="MFU"):
        published.ReportedMFU("x", "y", 0.5, 1.2, published.PALM_540B_MFU.citation)
