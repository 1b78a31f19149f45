"""Cost of attention O = softmax(Q·Kᵀ/√d)·V, standard and flash, for Q, K, V, O of shape [B, N, d].

B counts independent attention problems (batch × heads), N is the sequence length, d the head
dimension, s the bytes per element. FLOPs count the two matmuls only, 4·B·N²·d; the softmax
(about 5·B·N² FLOPs) is ignored, as in the guide's Problem 6 (the original has no attention
problem).
"""

from __future__ import annotations

import numpy as np

from ._checks import ArrayLike, broadcast, out, positive_count, positive_real
from .costs import Cost
from .dtypes import bytes_per_element


def _bnd(B: ArrayLike, N: ArrayLike, d: ArrayLike) -> list[np.ndarray]:
    return broadcast(B=positive_count("B", B), N=positive_count("N", N), d=positive_count("d", d))


def standard_attention(B: ArrayLike, N: ArrayLike, d: ArrayLike, dtype: str = "bf16") -> Cost:
    """Attention with the N×N score matrices materialised in HBM.

    Byte model (every arrow is one pass over HBM):

    * S = Q·Kᵀ: read Q and K (2·B·N·d·s), write S (B·N²·s);
    * P = softmax(S): read S, write P (2·B·N²·s);
    * O = P·V: read P and V (B·N²·s + B·N·d·s), write O (B·N·d·s).

    bytes read = 3·B·N·d·s + 2·B·N²·s; bytes written = B·N·d·s + 2·B·N²·s;
    total = 4·s·B·N·(d + N). Intensity = N·d / (s·(N + d)), which tends to d/s
    (64 FLOPs/byte for d = 128 in bf16) as N grows: below every modern GPU's critical intensity.
    """
    b, n, d_ = _bnd(B, N, d)
    s = bytes_per_element(dtype)
    bnd = b * n * d_
    bnn = b * n * n
    return Cost(
        "standard attention",
        4 * bnn * d_,
        3 * bnd * s + 2 * bnn * s,
        bnd * s + 2 * bnn * s,
        dtype,
        (("q", dtype), ("k", dtype), ("v", dtype), ("o", dtype)),
    )


def flash_attention(
    B: ArrayLike, N: ArrayLike, d: ArrayLike, M: ArrayLike, dtype: str = "bf16"
) -> Cost:
    """Flash attention with tiles of M query rows kept on-chip; S and P never reach HBM.

    Byte model: Q is split into ⌈N/M⌉ tiles of M rows. Each tile is read once, and for each tile
    the whole of K and V streams through on-chip memory; O is written once. The per-row softmax
    statistics (2 numbers per row) are ignored.

    bytes read = B·N·d·s (Q) + 2·⌈N/M⌉·B·N·d·s (K and V, once per tile);
    bytes written = B·N·d·s (O).
    Intensity = 2N / (s·(1 + ⌈N/M⌉)) → M·2/s for N ≫ M: M FLOPs/byte in bf16.

    The guide writes the limit as "≈ M/d" because it measures the tile in *elements* of on-chip
    memory (a tile of M elements holds M/d rows of a head); here M counts rows.
    """
    b, n, d_, m = broadcast(
        B=positive_count("B", B),
        N=positive_count("N", N),
        d=positive_count("d", d),
        M=positive_count("M", M),
    )
    s = bytes_per_element(dtype)
    tiles = np.ceil(n / m)
    bnd = b * n * d_
    return Cost(
        "flash attention",
        4 * b * n * n * d_,
        bnd * s + 2 * tiles * bnd * s,
        bnd * s,
        dtype,
        (("q", dtype), ("k", dtype), ("v", dtype), ("o", dtype)),
    )


def standard_attention_critical_seq_len(
    d: ArrayLike, critical_intensity: ArrayLike, dtype: str = "bf16"
) -> ArrayLike:
    """Sequence length N above which standard attention becomes compute-bound; inf if never.

    Its intensity N·d/(s·(N + d)) grows with N towards d/s. It reaches the chip's critical
    intensity I* only if d > s·I*, at N* = s·I*·d / (d − s·I*). For d = 128 in bf16 (limit 64)
    and an H100 (I* ≈ 295) that never happens: standard attention is memory-bound at every N.
    """
    d_ = positive_count("d", d)
    i_star = positive_real("critical_intensity", critical_intensity, "FLOPs/byte")
    d_, i_star = broadcast(d=d_, critical_intensity=i_star)
    s = bytes_per_element(dtype)
    margin = d_ - s * i_star
    with np.errstate(divide="ignore"):
        n_star = np.where(margin > 0, s * i_star * d_ / np.where(margin > 0, margin, 1), np.inf)
    return out(n_star)


def decode_attention(
    B: ArrayLike,
    S: ArrayLike,
    d: ArrayLike,
    q_heads: ArrayLike,
    kv_heads: ArrayLike,
    dtype: str = "bf16",
) -> Cost:
    """One decode step of attention: B requests, each one new token against its own KV cache.

    Each request has a cache of S positions for ``kv_heads`` key/value heads of dimension d;
    ``q_heads`` query heads share them in groups of G = q_heads / kv_heads (G = 1 is multi-head
    attention, 1 < G < q_heads grouped-query, G = q_heads multi-query). The scores stay on-chip,
    as in a fused decode kernel; the FLOPs are the two matmuls.

    FLOPs = 4·B·H_q·S·d (scores Q·Kᵀ and P·V, 2·S·d each per query head);
    bytes read = 2·B·H_kv·S·d·s (the K and V caches) + B·H_q·d·s (the new queries);
    bytes written = B·H_q·d·s (the outputs).
    Intensity = 2·G·S / (s·(S + G)) → 2G/s as S ≫ G: about G FLOPs/byte in bf16, whatever B
    is, since every request brings its own cache. Batching cannot raise it; sharing each K/V
    head among more query heads can (G = 8 for LLaMA-2-70B: 64 query heads, 8 KV heads).
    """
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
    s = bytes_per_element(dtype)
    return Cost(
        "decode attention",
        4 * b * hq * s_ * d_,
        2 * b * hkv * s_ * d_ * s + b * hq * d_ * s,
        b * hq * d_ * s,
        dtype,
        (("q", dtype), ("k", dtype), ("v", dtype), ("o", dtype)),
    )
