"""Roofline analysis: time bounds, regimes, critical intensities and achievable throughput.

For an operation doing F FLOPs and moving B bytes on a chip with peak C FLOP/s and bandwidth W
bytes/s at some level (HBM, on-chip memory, or a network link):

* T_math = F / C and T_comms = B / W (seconds);
* if compute and data movement overlap perfectly the time is max(T_math, T_comms) (the lower
  bound); if they do not overlap at all it is T_math + T_comms (the upper bound), which is never
  more than twice the lower bound;
* the operation is compute-bound when T_math ≥ T_comms, i.e. when its arithmetic intensity F/B
  reaches the chip's critical intensity C/W;
* its achievable throughput is F / max(T_math, T_comms) = min(C, intensity × W).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import (
    ArrayLike,
    UnknownNameError,
    broadcast,
    choice,
    nonnegative_real,
    out,
    positive_count,
    positive_real,
    ratio_or_inf,
)
from .costs import BF16, Cost, MatmulDtypes, matmul_dtypes
from .dtypes import bytes_per_element
from .hardware import CATALOG, LINKS, Chip, get_chip
from .sharding import ShardedMatmulCost
from .words import say_later


def t_math(flops: ArrayLike, peak_flops_per_s: ArrayLike) -> ArrayLike:
    """Compute time in seconds: T_math = FLOPs / peak FLOP/s."""
    f, c = broadcast(
        flops=nonnegative_real("flops", flops, "FLOPs"),
        peak_flops_per_s=positive_real("peak_flops_per_s", peak_flops_per_s, "FLOP/s"),
    )
    return out(f / c)


def t_comms(bytes_moved: ArrayLike, bandwidth_bytes_per_s: ArrayLike) -> ArrayLike:
    """Communication time in seconds: T_comms = bytes / bandwidth (bytes/s)."""
    b, w = broadcast(
        bytes_moved=nonnegative_real("bytes_moved", bytes_moved, "bytes"),
        bandwidth_bytes_per_s=positive_real(
            "bandwidth_bytes_per_s", bandwidth_bytes_per_s, "bytes/s"
        ),
    )
    return out(b / w)


def lower_bound(t_math_s: ArrayLike, t_comms_s: ArrayLike) -> ArrayLike:
    """Runtime with perfect overlap, in seconds: max(T_math, T_comms)."""
    tm, tc = _times(t_math_s, t_comms_s)
    return out(np.maximum(tm, tc))


def upper_bound(t_math_s: ArrayLike, t_comms_s: ArrayLike) -> ArrayLike:
    """Runtime with no overlap, in seconds: T_math + T_comms (≤ 2 × the lower bound)."""
    tm, tc = _times(t_math_s, t_comms_s)
    return out(tm + tc)


def _times(t_math_s: ArrayLike, t_comms_s: ArrayLike) -> list[np.ndarray]:
    return broadcast(
        t_math_s=nonnegative_real("t_math_s", t_math_s, "s"),
        t_comms_s=nonnegative_real("t_comms_s", t_comms_s, "s"),
    )


MEMORY_LEVELS = ("hbm", "onchip")
"""Levels whose bytes are memory traffic; their non-compute regime is 'memory-bound'."""

COMPUTE_BOUND = say_later("compute-bound")
MEMORY_BOUND = say_later("memory-bound")
NETWORK_BOUND = say_later("network-bound")
REGIMES = (COMPUTE_BOUND, MEMORY_BOUND, NETWORK_BOUND)
"""The regimes an estimate can be in, as the library names them (in English; shown in a
language with :func:`roofline_lib.words.say`)."""


def known_levels() -> tuple[str, ...]:
    """Every roofline level the catalog knows: 'hbm', 'onchip', then each link key."""
    keys = dict.fromkeys(LINKS)
    for chip in CATALOG.values():
        keys.update(dict.fromkeys(chip.links))
    return MEMORY_LEVELS + tuple(keys)


def regime_name(level: str) -> str:
    """'memory-bound' for 'hbm' and 'onchip'; 'network-bound' for a link key of the catalog.

    Any other name (``"HBM"``, ``"hmb"``) is an UnknownNameError listing the allowed levels."""
    choice("level", level, known_levels())
    return MEMORY_BOUND if level in MEMORY_LEVELS else NETWORK_BOUND


def _no_work(name_a: str, a: np.ndarray, name_b: str, b: np.ndarray) -> None:
    """Refuse an operation with neither FLOPs nor bytes: it has no time, intensity or regime."""
    idle = (a == 0) & (b == 0)
    if idle.any():
        where = "" if idle.ndim == 0 else f" at index {tuple(int(i) for i in np.argwhere(idle)[0])}"
        raise ValueError(
            f"{name_a} and {name_b} are both 0{where}: an operation that does no work has no "
            f"roofline time, intensity or regime; give {name_a} or {name_b} a positive value"
        )


def regime(t_math_s: ArrayLike, t_comms_s: ArrayLike, level: str = "hbm") -> str | np.ndarray:
    """'compute-bound' where T_math ≥ T_comms, else 'memory-bound' (or 'network-bound' for a
    link level). Arrays give an array of strings. Both times 0 is an error (no work)."""
    bound = regime_name(level)
    tm, tc = _times(t_math_s, t_comms_s)
    _no_work("t_math_s", tm, "t_comms_s", tc)
    return _regime(tm, tc, bound)


def _regime(tm: np.ndarray, tc: np.ndarray, bound: str) -> str | np.ndarray:
    result = np.where(tm >= tc, COMPUTE_BOUND, bound)
    return str(result) if result.ndim == 0 else result


def critical_intensity(
    chip: Chip | str, dtype: str = "bf16", level: str = "hbm", n_chips: int | None = None
) -> float:
    """The chip's critical (ridge-point) intensity, FLOPs/byte: peak(dtype) / bandwidth(level).

    TPU v5e: 197e12 / 819e9 ≈ 240 (bf16). H100 SXM: 989.5e12 / 3.35e12 ≈ 295 (bf16). For a
    link, ``n_chips`` is the group size N and the bandwidth is the link's at N
    (:meth:`~roofline_lib.hardware.Chip.bandwidth`); left out, every port in use.
    """
    c = get_chip(chip)
    if n_chips is None:
        return c.peak(dtype) / c.bandwidth(level)
    return c.peak(dtype) / float(c.bandwidth(level, n_chips))


def achievable_flops_per_s(
    intensity: ArrayLike, peak_flops_per_s: ArrayLike, bandwidth_bytes_per_s: ArrayLike
) -> ArrayLike:
    """Roofline throughput in FLOP/s: min(peak, intensity × bandwidth)."""
    i, c, w = broadcast(
        intensity=nonnegative_real("intensity", intensity, "FLOPs/byte"),
        peak_flops_per_s=positive_real("peak_flops_per_s", peak_flops_per_s, "FLOP/s"),
        bandwidth_bytes_per_s=positive_real(
            "bandwidth_bytes_per_s", bandwidth_bytes_per_s, "bytes/s"
        ),
    )
    return out(np.minimum(c, i * w))


def critical_batch_size(
    chip: Chip | str,
    dtypes: MatmulDtypes | str = BF16,
    level: str = "hbm",
    D: ArrayLike | None = None,
    F: ArrayLike | None = None,
) -> ArrayLike:
    """The critical token batch B*: X[B, D]·Y[D, F] is compute-bound on ``chip`` for B > B*.

    B* is a threshold, in general not a whole number: at B = B* the matmul sits exactly on the
    ridge, and the smallest compute-bound whole batch is ⌊B*⌋ + 1. For prose,
    :func:`roofline_lib.fmt.format_batch` prints ⌊B*⌋, so that "compute-bound for B > ⌊B*⌋" is
    exact for whole batches. With I* = peak(compute dtype) / bandwidth(level):

    * without D and F, the B ≪ D, F limit: intensity 2B/s_y = I*, so B* = I*·s_y / 2
      (240 for bf16 on a TPU v5e; 240 for int8 × int8 with the int8 peak; 120 for int8
      weights with bf16 activations);
    * with D and F, exact bytes: 2BDF = I*·(B·D·s_x + D·F·s_y + B·F·s_z), so
      B* = I*·s_y·D·F / (2·D·F − I*·(s_x·D + s_z·F)), and inf when the denominator is ≤ 0
      (the matmul is then memory-bound at every B).
    """
    dt = matmul_dtypes(dtypes)
    if level not in MEMORY_LEVELS:
        raise UnknownNameError(
            f"critical_batch_size counts a matmul's memory traffic; level must be one of "
            f"{', '.join(repr(lv) for lv in MEMORY_LEVELS)}, got {level!r} (for a link, see "
            "sharding.critical_shard_dim: over a network the contracting dimension decides)"
        )
    i_star = critical_intensity(chip, dt.compute, level)
    sx, sy, sz = (bytes_per_element(t) for t in (dt.x, dt.y, dt.z))
    if D is None and F is None:
        return i_star * sy / 2
    if D is None or F is None:
        raise ValueError("give both D and F for the exact critical batch size, or neither")
    d, f = broadcast(D=positive_count("D", D), F=positive_count("F", F))
    denominator = 2 * d * f - i_star * (sx * d + sz * f)
    return ratio_or_inf(i_star * sy * d * f, denominator)


@dataclass(frozen=True)
class RooflineEstimate:
    """The roofline's verdict on one operation at one level (arrays if the inputs were arrays).

    Attributes:
        level: 'hbm', 'onchip' or a link key.
        flops: FLOPs done (per chip for sharded work).
        bytes_moved: bytes moved at this level (per chip, one way, for a link).
        peak_flops_per_s: the peak used, FLOP/s.
        bandwidth_bytes_per_s: the bandwidth used, bytes/s (for a link, at the cost's N chips:
            an array where N is one).
        t_math_s, t_comms_s: the two times, seconds.
        lower_bound_s, upper_bound_s: max and sum of the two, seconds.
        regime: 'compute-bound', 'memory-bound' or 'network-bound'.
    """

    level: str
    flops: ArrayLike
    bytes_moved: ArrayLike
    peak_flops_per_s: float
    bandwidth_bytes_per_s: ArrayLike
    t_math_s: ArrayLike
    t_comms_s: ArrayLike
    lower_bound_s: ArrayLike
    upper_bound_s: ArrayLike
    regime: str | np.ndarray

    @property
    def arithmetic_intensity(self) -> ArrayLike:
        """FLOPs per byte moved at this level."""
        return ratio_or_inf(self.flops, self.bytes_moved)

    @property
    def critical_intensity(self) -> ArrayLike:
        """peak / bandwidth, FLOPs/byte (an array where the bandwidth is one, per N chips)."""
        return out(self.peak_flops_per_s / np.asarray(self.bandwidth_bytes_per_s))

    @property
    def achievable_flops_per_s(self) -> ArrayLike:
        """FLOPs / lower bound = min(peak, intensity × bandwidth), never above peak.

        F / max(F/C, B/W) can round to a hair above C; it is clipped to C."""
        t = np.asarray(self.lower_bound_s, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            rate = np.where(t > 0, np.asarray(self.flops) / t, self.peak_flops_per_s)
        return out(np.minimum(rate, self.peak_flops_per_s))

    @property
    def fraction_of_peak(self) -> ArrayLike:
        """Achievable FLOP/s as a fraction of peak: the best MFU this operation allows."""
        return out(np.asarray(self.achievable_flops_per_s) / self.peak_flops_per_s)


def estimate(
    flops: ArrayLike,
    bytes_moved: ArrayLike,
    peak_flops_per_s: float,
    bandwidth_bytes_per_s: float,
    level: str = "hbm",
) -> RooflineEstimate:
    """Roofline estimate from raw numbers (FLOPs, bytes, FLOP/s, bytes/s), no chip needed.

    ``level`` names what the bytes cross: 'hbm', 'onchip' or a link key of the catalog (see
    :func:`known_levels`); it decides whether the slow regime is 'memory-bound' or
    'network-bound'. Zero FLOPs *and* zero bytes is an error: no work has no roofline.
    """
    return _estimate(
        flops, bytes_moved, peak_flops_per_s, bandwidth_bytes_per_s, level, regime_name(level)
    )


def _estimate(
    flops: ArrayLike,
    bytes_moved: ArrayLike,
    peak_flops_per_s: float,
    bandwidth_bytes_per_s: ArrayLike,
    level: str,
    bound: str,
    per_n_chips: bool = False,
) -> RooflineEstimate:
    f = nonnegative_real("flops", flops, "FLOPs")
    b = nonnegative_real("bytes_moved", bytes_moved, "bytes")
    f, b = broadcast(flops=f, bytes_moved=b)
    _no_work("flops", f, "bytes_moved", b)
    c = _one_figure("peak_flops_per_s", peak_flops_per_s, "FLOP/s")
    if per_n_chips:  # a link's bandwidth for each chip count: broadcast with the work
        w_arr = positive_real("bandwidth_bytes_per_s", bandwidth_bytes_per_s, "bytes/s")
        f, b, w_arr = broadcast(flops=f, bytes_moved=b, bandwidth_bytes_per_s=w_arr)
        w: ArrayLike = out(w_arr)
    else:
        w = _one_figure("bandwidth_bytes_per_s", bandwidth_bytes_per_s, "bytes/s")
    tm, tc = f / c, b / np.asarray(w)
    return RooflineEstimate(
        level=level,
        flops=out(f),
        bytes_moved=out(b),
        peak_flops_per_s=c,
        bandwidth_bytes_per_s=w,
        t_math_s=out(tm),
        t_comms_s=out(tc),
        lower_bound_s=out(np.maximum(tm, tc)),
        upper_bound_s=out(tm + tc),
        regime=_regime(tm, tc, bound),
    )


def _one_figure(name: str, value: object, unit: str) -> float:
    """One chip's peak or bandwidth: a single positive number, not an array of them."""
    arr = positive_real(name, value, unit)
    if arr.size != 1:
        raise ValueError(
            f"{name} must be a single number (one chip's figure, in {unit}), got an array of "
            f"shape {arr.shape}; call estimate once per chip"
        )
    return float(arr.item())


def analyze(
    cost: Cost | ShardedMatmulCost,
    chip: Chip | str,
    level: str | None = None,
    dtype: str | None = None,
) -> RooflineEstimate:
    """Roofline estimate of a cost on a chip.

    A :class:`Cost` counts memory traffic, so it is timed at a memory level: 'hbm' (default) or
    'onchip' where the chip publishes it; a link key is an error. A :class:`ShardedMatmulCost`
    is timed on a network link, ``level`` being the link key (default: the chip's
    :attr:`~roofline_lib.hardware.Chip.default_link`), at the link's one-way bandwidth for the
    cost's ``n_chips``, W(N) = :meth:`~roofline_lib.hardware.Link.one_way_bytes_per_s_at` (N)
    (an MI300X pair shares one Infinity Fabric link, 64 GB/s; eight use all seven, 448 GB/s);
    an array of N gives arrays, ``bandwidth_bytes_per_s`` included. Its memory side is
    ``cost.hbm``. ``dtype`` overrides the cost's compute dtype.
    """
    c = get_chip(chip)
    if isinstance(cost, ShardedMatmulCost):
        link = level if level is not None else c.default_link
        if link is None or link not in c.links:
            allowed = ", ".join(repr(k) for k in c.links) or "none"
            raise ValueError(
                f"a sharded matmul is timed on a link of {c.name}; allowed levels: {allowed} "
                f"(got {level!r}; its HBM side is analyze(cost.hbm, chip))"
            )
        peak = c.peak(dtype or cost.compute_dtype)
        return _estimate(
            cost.flops_per_chip,
            cost.network_bytes_per_chip,
            peak,
            c.bandwidth(link, n_chips=cost.n_chips),
            link,
            "network-bound",
            per_n_chips=True,
        )
    if not isinstance(cost, Cost):
        raise ValueError(f"cost must be a Cost or ShardedMatmulCost, got {type(cost).__name__}")
    lvl = "hbm" if level is None else level
    if lvl not in MEMORY_LEVELS:
        memory = [lv for lv in c.levels if lv in MEMORY_LEVELS]
        what = f"a link of {c.name}" if lvl in c.links else "not a level"
        raise UnknownNameError(
            f"level {lvl!r} ({what}) cannot time a {cost.op!r} Cost: its bytes are memory "
            f"traffic; allowed levels: {', '.join(repr(lv) for lv in memory)} (network bytes "
            "come from sharded_matmul)"
        )
    bandwidth = c.bandwidth(lvl)
    return _estimate(
        cost.flops,
        cost.bytes_total,
        c.peak(dtype or cost.compute_dtype),
        bandwidth,
        lvl,
        "memory-bound",
    )
