"""Cost of attention O = softmax(Q·Kᵀ/√d)·V, standard and flash, for Q, K, V, O of shape [H, S, d].

In the book's notation H counts heads (the independent attention problems: one sequence's heads;
a batch of sequences multiplies every count by the same factor and changes no intensity), S is
the sequence length, d the head dimension and s the bytes per element. The scores Q·Kᵀ and the
weights A = softmax(Q·Kᵀ/√d) are H×S×S. FLOPs count the two matmuls only, 4·H·S²·d; the softmax
(about 5·H·S² FLOPs) is ignored, as in the guide's Problem 6 (the original has no attention
problem).
"""

from __future__ import annotations

import numpy as np

from ._checks import ArrayLike, broadcast, positive_count, positive_real, ratio_or_inf
from .costs import Cost
from .dtypes import bytes_per_element


def _hsd(H: ArrayLike, S: ArrayLike, d: ArrayLike) -> list[np.ndarray]:
    return broadcast(H=positive_count("H", H), S=positive_count("S", S), d=positive_count("d", d))


def standard_attention(H: ArrayLike, S: ArrayLike, d: ArrayLike, dtype: str = "bf16") -> Cost:
    """Attention with the S×S scores and weights of every head materialised in HBM.

    Byte model (every arrow is one pass over HBM):

    * scores Q·Kᵀ: read Q and K (2·H·S·d·s), write the scores (H·S²·s);
    * A = softmax(scores): read the scores, write A (2·H·S²·s);
    * O = A·V: read A and V (H·S²·s + H·S·d·s), write O (H·S·d·s).

    bytes read = 3·H·S·d·s + 2·H·S²·s; bytes written = H·S·d·s + 2·H·S²·s;
    total = 4·s·H·S·(d + S). Intensity = S·d / (s·(S + d)), which tends to d/s
    (64 FLOPs/byte for d = 128 in bf16) as S grows: below every modern GPU's critical intensity.
    """
    h, s_, d_ = _hsd(H, S, d)
    s = bytes_per_element(dtype)
    hsd = h * s_ * d_
    hss = h * s_ * s_
    return Cost(
        "standard attention",
        4 * hss * d_,
        3 * hsd * s + 2 * hss * s,
        hsd * s + 2 * hss * s,
        dtype,
        (("q", dtype), ("k", dtype), ("v", dtype), ("o", dtype)),
    )


def flash_attention(
    H: ArrayLike, S: ArrayLike, d: ArrayLike, M: ArrayLike, dtype: str = "bf16"
) -> Cost:
    """Flash attention with tiles of M query rows kept on-chip; scores and A never reach HBM.

    Byte model: Q is split into ⌈S/M⌉ tiles of M rows. Each tile is read once, and for each tile
    the whole of K and V streams through on-chip memory; O is written once. The per-row softmax
    statistics (2 numbers per row) are ignored.

    bytes read = H·S·d·s (Q) + 2·⌈S/M⌉·H·S·d·s (K and V, once per tile);
    bytes written = H·S·d·s (O).
    Intensity = 2S / (s·(1 + ⌈S/M⌉)) → M·2/s for S ≫ M: M FLOPs/byte in bf16.

    The guide writes the limit as "≈ M/d" because it measures the tile in *elements* of on-chip
    memory (a tile of M elements holds M/d rows of a head); here M counts rows.
    """
    h, s_, d_, m = broadcast(
        H=positive_count("H", H),
        S=positive_count("S", S),
        d=positive_count("d", d),
        M=positive_count("M", M),
    )
    s = bytes_per_element(dtype)
    tiles = np.ceil(s_ / m)
    hsd = h * s_ * d_
    return Cost(
        "flash attention",
        4 * h * s_ * s_ * d_,
        hsd * s + 2 * tiles * hsd * s,
        hsd * s,
        dtype,
        (("q", dtype), ("k", dtype), ("v", dtype), ("o", dtype)),
    )


def standard_attention_critical_seq_len(
    d: ArrayLike, critical_intensity: ArrayLike, dtype: str = "bf16"
) -> ArrayLike:
    """Sequence length S above which standard attention becomes compute-bound; inf if never.

    Its intensity S·d/(s·(S + d)) grows with S towards d/s. It reaches the chip's critical
    intensity I* only if d > s·I*, at S* = s·I*·d / (d − s·I*). For d = 128 in bf16 (limit 64)
    and an H100 (I* ≈ 295) that never happens: standard attention is memory-bound at every S.
    """
    d_ = positive_count("d", d)
    i_star = positive_real("critical_intensity", critical_intensity, "FLOPs/byte")
    d_, i_star = broadcast(d=d_, critical_intensity=i_star)
    s = bytes_per_element(dtype)
    return ratio_or_inf(s * i_star * d_, d_ - s * i_star)


def grouped_heads(
    B: ArrayLike, S: ArrayLike, d: ArrayLike, q_heads: ArrayLike, kv_heads: ArrayLike
) -> list[np.ndarray]:
    """B, S, d, H (``q_heads``) and H_kv (``kv_heads``) checked as positive counts and broadcast
    together, for attention with grouped key/value heads. H must be a multiple of H_kv: each
    KV head serves a whole group of G = H / H_kv query heads."""
    b, s_, d_, hq, hkv = broadcast(
        B=positive_count("B", B),
        S=positive_count("S", S),
        d=positive_count("d", d),
        q_heads=positive_count("q_heads", q_heads),
        kv_heads=positive_count("kv_heads", kv_heads),
    )
    if np.any(np.mod(hq, hkv) != 0):
        raise ValueError(
            "q_heads must be a multiple of kv_heads (each KV head serves a whole group of query "
            f"heads), got q_heads = {hq.max():g} and kv_heads = {hkv.max():g}"
        )
    return [b, s_, d_, hq, hkv]


def decode_attention(
    B: ArrayLike,
    S: ArrayLike,
    d: ArrayLike,
    q_heads: ArrayLike,
    kv_heads: ArrayLike,
    dtype: str = "bf16",
) -> Cost:
    """One decode step of attention: B requests, each one new token against its own KV cache.

    Each request has a cache of S positions for ``kv_heads`` (H_kv) key/value heads of dimension d;
    ``q_heads`` (H) query heads share them in groups of G = H / H_kv (G = 1 is multi-head
    attention, 1 < G < q_heads grouped-query, G = q_heads multi-query). The scores stay on-chip,
    as in a fused decode kernel; the FLOPs are the two matmuls.

    FLOPs = 4·B·H·S·d (scores Q·Kᵀ and A·V, 2·S·d each per query head);
    bytes read = 2·B·H_kv·S·d·s (the K and V caches) + B·H·d·s (the new queries);
    bytes written = B·H·d·s (the outputs).
    Intensity = 2·G·S / (s·(S + G)) → 2G/s as S ≫ G: about G FLOPs/byte in bf16, whatever B
    is, since every request brings its own cache. Batching cannot raise it; sharing each K/V
    head among more query heads can (G = 8 for LLaMA-2-70B: 64 query heads, 8 KV heads).
    """
    b, s_, d_, hq, hkv = grouped_heads(B, S, d, q_heads, kv_heads)
    s = bytes_per_element(dtype)
    return Cost(
        "decode attention",
        4 * b * hq * s_ * d_,
        2 * b * hkv * s_ * d_ * s + b * hq * d_ * s,
        b * hq * d_ * s,
        dtype,
        (("q", dtype), ("k", dtype), ("v", dtype), ("o", dtype)),
    )
