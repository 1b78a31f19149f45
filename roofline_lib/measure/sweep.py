"""The sweep: matmul throughput X[B, D]·Y[D, F] over batch sizes B, predicted and achieved.

Each point carries its FLOPs, bytes and arithmetic intensity from roofline_lib's cost model
(:func:`roofline_lib.matmul`, exact bytes: every operand read once, the output written once),
the roofline's prediction from the *measured* peak C and bandwidth W,

    predicted = min(C, I × W)   (FLOP/s),

and the achieved median FLOP/s with its spread.

The sweep runs in increasing B inside the time budget. A point's time per call is estimated as
the roofline's time ÷ the previous point's efficiency (capped at 1), × SAFETY. A point runs only
if a warm-up call plus MIN_REPEATS repeats fit in what is left; once one does not fit, it and
every larger B are skipped (each larger B costs more). A point gets more repeats, up to
MAX_REPEATS, only from time not needed by the points still to come at their minimum.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..costs import MatmulDtypes, matmul
from ..roofline import achievable_flops_per_s
from .budget import Budget
from .timing import Timing, time_call

if TYPE_CHECKING:
    from .backends import Backend

DEFAULT_BATCHES = tuple(2**k for k in range(14))
"""B = 1, 2, 4, …, 8192."""
MIN_REPEATS = 3
MAX_REPEATS = 9
SAFETY = 1.25
"""Estimated times are the roofline's time ÷ the last point's efficiency, × this margin."""

Progress = Callable[[float, str], None]


@dataclass(frozen=True)
class SweepPoint:
    """One matmul X[B, D]·Y[D, F] of the sweep.

    Attributes:
        batch: B.
        D, F: the weight matrix's shape.
        dtype: operands' and output's dtype.
        flops: 2·B·D·F.
        bytes: B·D·s + D·F·s + B·F·s (s bytes per element), the cost model's exact bytes.
        intensity: flops / bytes, FLOPs/byte (from :func:`roofline_lib.matmul`).
        predicted_flops_per_s: min(measured peak, intensity × measured bandwidth), FLOP/s.
        timing: seconds per call over the repeats.
    """

    batch: int
    D: int
    F: int
    dtype: str
    flops: float
    bytes: float
    intensity: float
    predicted_flops_per_s: float
    timing: Timing

    @property
    def achieved_flops_per_s(self) -> float:
        """Median throughput, FLOP/s: flops / median seconds per call."""
        return self.timing.rate(self.flops)

    @property
    def spread(self) -> tuple[float, float]:
        """(slowest, fastest) repeat, FLOP/s."""
        return self.timing.rate_spread(self.flops)

    @property
    def efficiency(self) -> float:
        """achieved / predicted: 1 on the roofline; above 1 where the measured roof is not the
        true limit (e.g. a read-only stream outrunning the triad's bandwidth, or data in cache)."""
        return self.achieved_flops_per_s / self.predicted_flops_per_s

    @property
    def repeats(self) -> int:
        return self.timing.repeats

    def to_dict(self) -> dict[str, Any]:
        return {
            "batch": self.batch,
            "D": self.D,
            "F": self.F,
            "dtype": self.dtype,
            "flops": self.flops,
            "bytes": self.bytes,
            "intensity": self.intensity,
            "predicted_flops_per_s": self.predicted_flops_per_s,
            "timing": self.timing.to_dict(),
            "achieved_flops_per_s": self.achieved_flops_per_s,
            "spread": list(self.spread),
            "efficiency": self.efficiency,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> SweepPoint:
        return cls(
            int(d["batch"]),
            int(d["D"]),
            int(d["F"]),
            d["dtype"],
            float(d["flops"]),
            float(d["bytes"]),
            float(d["intensity"]),
            float(d["predicted_flops_per_s"]),
            Timing.from_dict(d["timing"]),
        )


@dataclass(frozen=True)
class SweepPlan:
    """The cost model's view of the sweep, before anything runs (arrays over ``batches``)."""

    batches: tuple[int, ...]
    flops: np.ndarray
    bytes: np.ndarray
    intensity: np.ndarray
    predicted_flops_per_s: np.ndarray

    @property
    def roofline_s(self) -> np.ndarray:
        """Seconds per call on the measured roofline: flops / predicted."""
        return np.asarray(self.flops / self.predicted_flops_per_s, dtype=np.float64)


def plan_sweep(
    batches: Sequence[int],
    D: int,
    F: int,
    dtype: str,
    peak_flops_per_s: float,
    bandwidth_bytes_per_s: float,
) -> SweepPlan:
    """FLOPs, bytes, intensity and predicted FLOP/s of X[B, D]·Y[D, F] for each B, in ``dtype``."""
    cost = matmul(np.asarray(batches), D, F, MatmulDtypes(dtype, dtype, dtype))
    intensity = np.atleast_1d(np.asarray(cost.arithmetic_intensity, dtype=float))
    predicted = np.atleast_1d(
        np.asarray(achievable_flops_per_s(intensity, peak_flops_per_s, bandwidth_bytes_per_s))
    )
    return SweepPlan(
        tuple(int(b) for b in batches),
        np.atleast_1d(np.asarray(cost.flops, dtype=float)),
        np.atleast_1d(np.asarray(cost.bytes_total, dtype=float)),
        intensity,
        predicted,
    )


def run_sweep(
    backend: Backend,
    plan: SweepPlan,
    D: int,
    F: int,
    dtype: str,
    budget: Budget,
    progress: Progress | None = None,
    max_repeats: int = MAX_REPEATS,
) -> tuple[tuple[SweepPoint, ...], tuple[int, ...]]:
    """Run the sweep inside ``budget``; returns (points measured, batch sizes skipped)."""
    min_call = backend.min_repeat_s
    cost_min = (1 + MIN_REPEATS) * np.maximum(plan.roofline_s * SAFETY, min_call)
    fits = [b for b, c in zip(plan.batches, cost_min, strict=True) if c <= budget.remaining_s()]
    if not fits:
        return (), plan.batches
    largest = max(fits)
    kernels = backend.sweep_matmuls(largest, D, F, dtype)
    points: list[SweepPoint] = []
    skipped: list[int] = []
    efficiency = 1.0
    try:
        for i, B in enumerate(plan.batches):
            if skipped or B > largest:
                skipped.append(B)
                continue
            est = max(plan.roofline_s[i] / min(max(efficiency, 0.1), 1.0) * SAFETY, min_call)
            reserve = float(
                sum(
                    c
                    for b, c in zip(plan.batches[i + 1 :], cost_min[i + 1 :], strict=True)
                    if b <= largest
                )
            )
            remaining = budget.remaining_s()
            if (1 + MIN_REPEATS) * est > remaining:
                skipped.append(B)
                continue
            for_repeats = max(remaining - reserve - est, MIN_REPEATS * est)
            repeats = int(min(max_repeats, max(MIN_REPEATS, math.floor(for_repeats / est))))
            if progress:
                progress(budget.fraction_done(), f"sweep B={B}")
            timing = time_call(
                kernels(B),
                backend.timer,
                repeats=repeats,
                min_repeats=MIN_REPEATS,
                warmup=1,
                min_repeat_s=min_call,
                time_limit_s=for_repeats,
            )
            point = SweepPoint(
                B,
                D,
                F,
                dtype,
                float(plan.flops[i]),
                float(plan.bytes[i]),
                float(plan.intensity[i]),
                float(plan.predicted_flops_per_s[i]),
                timing,
            )
            points.append(point)
            efficiency = point.efficiency
    finally:
        del kernels
        backend.release()
    return tuple(points), tuple(skipped)
