"""A matmul sharded over chips along its contracting dimension, and its network roofline.

X[B, D] · Y[D, F] with D split into N equal shards: chip i holds X[:, D_i] and Y[D_i, :],
computes the partial sum Z_i = X[:, D_i] · Y[D_i, :] of shape [B, F], and the chips combine the
partial sums over the network. The network bytes depend on how they are combined:

* ``"exchange"`` (default, the chapter's model): each chip sends its whole partial sum once,
  B·F·s bytes. For two chips this is the swap that leaves both with Z.
* ``"reduce_scatter"``: a bandwidth-optimal ring; each chip sends (N−1)/N · B·F·s bytes and ends
  with one 1/N slice of Z.
* ``"all_reduce"``: a ring all-reduce; each chip sends 2·(N−1)/N · B·F·s bytes and ends with Z.

Network bytes are per chip, per direction, so they are timed against a link's one-way bandwidth.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import ArrayLike, broadcast, choice, out, positive_count, positive_real
from .costs import BF16, Cost, MatmulDtypes, matmul, matmul_dtypes
from .dtypes import bytes_per_element

COLLECTIVES = ("exchange", "reduce_scatter", "all_reduce")


def collective_factor(n_chips: ArrayLike, collective: str = "exchange") -> ArrayLike:
    """Bytes each chip sends, as a multiple of one partial sum: 1, (N−1)/N or 2(N−1)/N."""
    choice("collective", collective, COLLECTIVES)
    n = positive_count("n_chips", n_chips)
    if collective == "exchange":
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
        """FLOPs per chip / network bytes per chip; D/N for bf16 with the exchange model."""
        return out(np.asarray(self.flops_per_chip) / np.asarray(self.network_bytes_per_chip))


def sharded_matmul(
    B: ArrayLike,
    D: ArrayLike,
    F: ArrayLike,
    n_chips: ArrayLike,
    dtypes: MatmulDtypes | str = BF16,
    collective: str = "exchange",
) -> ShardedMatmulCost:
    """X[B, D] · Y[D, F] with D split over ``n_chips`` chips (D must divide evenly).

    FLOPs per chip = 2·B·(D/N)·F; network bytes per chip = factor · B·F·s_z with the factor of
    :func:`collective_factor`; network intensity = 2·(D/N) / (factor·s_z).
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
    collective: str = "exchange",
) -> ArrayLike:
    """Smallest per-chip shard D/N for which the sharded matmul is compute-bound on the network.

    Compute-bound when 2·B·(D/N)·F / C ≥ factor·B·F·s / W, i.e. D/N ≥ factor·s·C / (2W).
    B and F cancel: it is the model dimension, not the batch, that decides. With the exchange
    model in bf16 this is simply C/W (≈ 2222 for 1e15 FLOP/s over 450 GB/s NVLink).
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
    collective: str = "exchange",
) -> ArrayLike:
    """Smallest full D for which the sharded matmul is compute-bound: N × :func:`critical_shard_dim`.

    Two TPU v5e chips (1.97e14 FLOP/s, 4.5e10 bytes/s one-way): D > 2·1.97e14/4.5e10 ≈ 8756.
    """
    n = positive_count("n_chips", n_chips)
    shard = np.asarray(critical_shard_dim(peak_flops_per_s, link_bytes_per_s, dtype, n, collective))
    return out(n * shard)
