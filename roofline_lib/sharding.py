"""A matmul sharded over chips along its contracting dimension, and its network roofline.

X[B, D] · Y[D, F] with D split into N equal shards: chip i holds X[:, D_i] and Y[D_i, :],
computes the partial sum Z_i = X[:, D_i] · Y[D_i, :] of shape [B, F], and the chips combine the
partial sums over the network. Each chip then sends φ · B·F·s_z bytes, with φ set by the collective:

* ``"all_reduce"`` (default): a ring all-reduce, a reduce-scatter then an all-gather; each chip
  sends (and receives) φ = 2(N−1)/N of one partial sum and ends with all of Z. 2(N−1)/N is the
  lower bound for any all-reduce the chips do among themselves (a switch that reduces in the
  network can do better), so no cheaper chip-to-chip model is offered.
* ``"reduce_scatter"``: the first half of the ring, φ = (N−1)/N; each chip ends with one 1/N
  slice of Z (enough when the next layer is sharded the same way).
* ``"exchange"``: two chips swap their partial sums, φ = 1, and both end with Z. Defined for
  N = 2 only, where it equals the all-reduce (2·(2−1)/2 = 1); for N ≥ 3 "send the partial sum
  once" would charge less than the all-reduce bound, so it is refused there.

With N = 1 there is nothing to combine: φ = 0 and no network term (the all-reduce and
reduce-scatter formulas give 0 at N = 1).

Network bytes are per chip, per direction, so they are timed against a link's one-way bandwidth.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import (
    ArrayLike,
    broadcast,
    choice,
    out,
    positive_count,
    positive_real,
    ratio_or_inf,
)
from .costs import BF16, Cost, MatmulDtypes, matmul, matmul_dtypes
from .dtypes import bytes_per_element

COLLECTIVES = ("all_reduce", "reduce_scatter", "exchange")
"""The collectives that combine the partial sums; the first is the default."""
DEFAULT_COLLECTIVE = "all_reduce"


def collective_factor(n_chips: ArrayLike, collective: str = DEFAULT_COLLECTIVE) -> ArrayLike:
    """Bytes each chip sends, as a multiple φ of one partial sum.

    φ = 2(N−1)/N for ``"all_reduce"``, (N−1)/N for ``"reduce_scatter"``, and 1 for
    ``"exchange"`` (N = 2 only). φ = 0 at N = 1: one chip has nothing to send.
    """
    choice("collective", collective, COLLECTIVES)
    n = positive_count("n_chips", n_chips)
    if collective == "exchange":
        if np.any(n != 2):
            bad = n if n.ndim == 0 else n[n != 2][0]
            raise ValueError(
                f"collective 'exchange' (two chips swap partial sums) needs n_chips = 2, got "
                f"{float(bad):g}; for other chip counts use 'all_reduce' (φ = 2(N−1)/N, every "
                "chip ends with Z) or 'reduce_scatter' (φ = (N−1)/N, each ends with a slice)"
            )
        return out(np.ones_like(n))
    if collective == "reduce_scatter":
        return out((n - 1) / n)
    return out(2 * (n - 1) / n)


@dataclass(frozen=True)
class ShardedMatmulCost:
    """Per-chip cost of a matmul sharded along D.

    Attributes:
        n_chips: number of chips N.
        collective: how the partial sums are combined (see the module docstring).
        hbm: the per-chip matmul X[B, D/N] · Y[D/N, F] as an HBM :class:`Cost`.
        network_bytes_per_chip: bytes each chip sends in one direction.
    """

    n_chips: ArrayLike
    collective: str
    hbm: Cost
    network_bytes_per_chip: ArrayLike

    @property
    def flops_per_chip(self) -> ArrayLike:
        """2·B·(D/N)·F FLOPs."""
        return self.hbm.flops

    @property
    def compute_dtype(self) -> str:
        return self.hbm.compute_dtype

    @property
    def network_intensity(self) -> ArrayLike:
        """FLOPs per chip / network bytes per chip, 2·(D/N) / (φ·s_z); inf for N = 1 (no bytes).

        D/N in bf16 for two chips (φ = 1)."""
        return ratio_or_inf(self.flops_per_chip, self.network_bytes_per_chip)


def sharded_matmul(
    B: ArrayLike,
    D: ArrayLike,
    F: ArrayLike,
    n_chips: ArrayLike,
    dtypes: MatmulDtypes | str = BF16,
    collective: str = DEFAULT_COLLECTIVE,
) -> ShardedMatmulCost:
    """X[B, D] · Y[D, F] with D split over ``n_chips`` chips (D must divide evenly).

    FLOPs per chip = 2·B·(D/N)·F; network bytes per chip = φ·B·F·s_z with φ from
    :func:`collective_factor` (2(N−1)/N for the default ring all-reduce; 0 for N = 1);
    network intensity = 2·(D/N) / (φ·s_z).
    """
    dt = matmul_dtypes(dtypes)
    b, d, f, n = broadcast(
        B=positive_count("B", B),
        D=positive_count("D", D),
        F=positive_count("F", F),
        n_chips=positive_count("n_chips", n_chips),
    )
    if np.any(np.mod(d, n) != 0):
        raise ValueError("D must be a multiple of n_chips (each chip holds an equal shard of D)")
    factor = np.asarray(collective_factor(n, collective))
    per_chip = matmul(b, d / n, f, dt)
    network = factor * b * f * bytes_per_element(dt.z)
    return ShardedMatmulCost(out(n), collective, per_chip, out(network))


def critical_shard_dim(
    peak_flops_per_s: ArrayLike,
    link_bytes_per_s: ArrayLike,
    dtype: str = "bf16",
    n_chips: ArrayLike = 2,
    collective: str = DEFAULT_COLLECTIVE,
) -> ArrayLike:
    """Smallest per-chip shard D/N for which the sharded matmul is compute-bound on the network.

    Compute-bound when 2·B·(D/N)·F / C ≥ φ·B·F·s / W, i.e. D/N ≥ φ·s·C / (2W).
    B and F cancel: it is the model dimension, not the batch, that decides. For two chips in
    bf16 (φ = 1) this is simply C/W (≈ 2222 for 1e15 FLOP/s over 450 GB/s NVLink); for N chips
    with a ring all-reduce, (N−1)/N · s·C/W. For N = 1 it is 0: no network, no threshold.
    """
    c = positive_real("peak_flops_per_s", peak_flops_per_s, "FLOP/s")
    w = positive_real("link_bytes_per_s", link_bytes_per_s, "bytes/s")
    factor = np.asarray(collective_factor(n_chips, collective))
    c, w, factor = broadcast(peak_flops_per_s=c, link_bytes_per_s=w, n_chips=factor)
    return out(factor * bytes_per_element(dtype) * c / (2 * w))


def critical_contracting_dim(
    peak_flops_per_s: ArrayLike,
    link_bytes_per_s: ArrayLike,
    n_chips: ArrayLike = 2,
    dtype: str = "bf16",
    collective: str = DEFAULT_COLLECTIVE,
) -> ArrayLike:
    """Smallest full D for which the sharded matmul is compute-bound: N × :func:`critical_shard_dim`.

    Two TPU v5e chips (1.97e14 FLOP/s, 4.5e10 bytes/s one-way): D > 2·1.97e14/4.5e10 ≈ 8756.
    """
    n = positive_count("n_chips", n_chips)
    shard = np.asarray(critical_shard_dim(peak_flops_per_s, link_bytes_per_s, dtype, n, collective))
    return out(n * shard)
