"""Is a measured roofline a roofline? The run's verdict on itself, from named criteria.

A measured roofline is only worth drawing as a roofline when its roof is this machine's limit:
the measured peak C and triad bandwidth W must be what the machine does, and every matmul of
the sweep must run at or below min(C, I × W). A run on a busy or throttled machine can fail
that: its peak measured while other processes had the cores, its sweep run when they had left,
and the chart then shows matmuls several times above their "roof". :func:`assess` checks three
criteria (:class:`Criterion`), each with a named threshold:

1. **above the roof** (:data:`ABOVE_ROOF_LIMIT`): no sweep point may beat its roof by more than
   the timing noise allows. A background process can only make a repeat slower, never faster
   (:mod:`.timing`), so a point's *slowest* repeat is its most cautious reading and the fastest
   repeats of the peak and the triad give the most generous roof,
   min(C_fastest, I × W_fastest). A point whose slowest repeat is above that roof by more than
   ``ABOVE_ROOF_LIMIT`` × beat it whatever the noise: the measured peak (or bandwidth) was not
   the machine's. The limit leaves room for what the model knowingly leaves out: a larger matmul
   can beat the peak's n×n matmul, and a read-mostly matmul can outrun the triad, whose
   write-allocate traffic STREAM does not count (up to 4/3). A memory-bound point whose weights
   fit in the cache (the weight matrix under twice the last-level cache, the run's own caveat) is
   not held to the memory roof at all: it reads from a cache the triad does not measure.
2. **peak fraction** (:data:`MIN_PEAK_FRACTION`): the measured peak of the sweep's dtype is at
   least this fraction of the theoretical peak, where one can be derived. A working BLAS on an
   idle machine gets a large share of it (even the theoretical peak's doubtful assumptions,
   :mod:`.theory`, err by about 2×); a tiny fraction means the run measured a starved process.
3. **CPU share** (:data:`MIN_CPU_SHARE`): on a CPU backend, the run got at least this share of
   the CPU time its threads asked for (``cpu_share``). Below it, other processes had the cores
   most of the time, and the peak, the triad and the sweep ran under different loads. A share
   between this and ``results.BUSY_CPU_SHARE`` is a busy machine whose rates understate it, said
   in the chart's title, but still a roofline if the other criteria hold.

Reasons are sentences in the environment's language (:func:`roofline_lib.words.say`), made when
the verdict is asked for, so a result read from JSON gives them in the reader's language.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..dtypes import bytes_per_element
from ..fmt import format_number, format_percent
from ..words import say

if TYPE_CHECKING:
    from .results import MeasuredRoofline
    from .sweep import SweepPoint

ABOVE_ROOF_LIMIT = 1.5
"""A sweep point's slowest repeat may be at most this many times its most generous roof,
min(fastest peak repeat, intensity × fastest triad repeat)."""
MIN_PEAK_FRACTION = 0.1
"""The measured peak must be at least this fraction of the theoretical peak (where known)."""
MIN_CPU_SHARE = 0.5
"""A CPU run must get at least this share of the CPU time its threads asked for."""
WEIGHTS_IN_CACHE = 2
"""Weights under this many times the last-level cache may be read from it (as the run's caveat
says): memory-bound points are then not held to the memory roof."""


class Criterion(enum.Enum):
    """What a measured roofline is checked against (see the module's docstring)."""

    ABOVE_ROOF = "above_roof"
    PEAK_FRACTION = "peak_fraction"
    CPU_SHARE = "cpu_share"


@dataclass(frozen=True)
class Failure:
    """One criterion a run failed, and why, in a sentence."""

    criterion: Criterion
    reason: str


@dataclass(frozen=True)
class Validity:
    """A measured roofline's verdict on itself: the criteria it failed (none: trustworthy)."""

    failures: tuple[Failure, ...] = ()

    @property
    def trustworthy(self) -> bool:
        """True when the run failed no criterion: its chart is a roofline."""
        return not self.failures

    @property
    def reasons(self) -> tuple[str, ...]:
        """Why it is not trustworthy, one sentence per failed criterion (empty when it is)."""
        return tuple(f.reason for f in self.failures)

    @property
    def criteria(self) -> tuple[Criterion, ...]:
        """The criteria it failed, in the order checked."""
        return tuple(f.criterion for f in self.failures)


def generous_roof_flops_per_s(result: MeasuredRoofline, intensity: float) -> float:
    """min(fastest peak repeat, intensity × fastest triad repeat), FLOP/s: the highest roof the
    run's own repeats allow at ``intensity`` FLOPs/byte."""
    return min(result.peak.spread[1], intensity * result.bandwidth.spread[1])


def weights_fit_in_cache(result: MeasuredRoofline) -> bool:
    """True when the weight matrix (D × F elements) is under :data:`WEIGHTS_IN_CACHE` × the cache
    the triad was sized against: small-B matmuls may then read it from the cache."""
    weights = result.D * result.F * bytes_per_element(result.dtype)
    return weights < WEIGHTS_IN_CACHE * result.bandwidth.cache_bytes


def above_roof(result: MeasuredRoofline) -> tuple[tuple[SweepPoint, float], ...]:
    """The sweep points above their roof beyond the noise, with their slowest repeat ÷ generous
    roof (> :data:`ABOVE_ROOF_LIMIT`). Memory-bound points are skipped when the weights fit in
    the cache (:func:`weights_fit_in_cache`)."""
    skip_memory = weights_fit_in_cache(result)
    ridge = result.critical_intensity
    out = []
    for point in result.sweep:
        if skip_memory and point.intensity < ridge:
            continue
        ratio = point.spread[0] / generous_roof_flops_per_s(result, point.intensity)
        if ratio > ABOVE_ROOF_LIMIT:
            out.append((point, ratio))
    return tuple(out)


def _batches(result: MeasuredRoofline, batches: list[int]) -> str:
    """``32–4096`` for a run of consecutive sweep points, else the values, comma-separated."""
    sweep = [p.batch for p in result.sweep]
    first, last = sweep.index(batches[0]), sweep.index(batches[-1])
    if len(batches) > 2 and last - first + 1 == len(batches):
        return f"{batches[0]}–{batches[-1]}"
    return ", ".join(str(b) for b in batches)


def _times(low: float, high: float) -> str:
    lo, hi = format_number(low, 2), format_number(high, 2)
    return f"{lo}×" if lo == hi else f"{lo}–{hi}×"


def assess(result: MeasuredRoofline) -> Validity:
    """The run's verdict on itself: each criterion of the module's docstring it fails."""
    failures = []
    over = above_roof(result)
    if over:
        ratios = [ratio for _, ratio in over]
        failures.append(
            Failure(
                Criterion.ABOVE_ROOF,
                say(
                    "At B = {batches} even the slowest repeat ran at {times} its roof (more than "
                    "the {limit}× that timing noise and the model's known gaps allow): the "
                    "measured peak and bandwidth were not this machine's limits.",
                    batches=_batches(result, [p.batch for p, _ in over]),
                    times=_times(min(ratios), max(ratios)),
                    limit=format_number(ABOVE_ROOF_LIMIT, 2),
                ),
            )
        )
    fraction = result.peak_fraction
    if fraction is not None and fraction < MIN_PEAK_FRACTION:
        failures.append(
            Failure(
                Criterion.PEAK_FRACTION,
                say(
                    "The measured {dtype} peak is {percent} of the theoretical one, under the "
                    "{limit} an idle machine reaches: the run measured a starved process, not "
                    "this machine's peak.",
                    dtype=result.dtype,
                    percent=format_percent(fraction, 2),
                    limit=format_percent(MIN_PEAK_FRACTION, 2),
                ),
            )
        )
    if result.cpu_share is not None and result.cpu_share < MIN_CPU_SHARE:
        failures.append(
            Failure(
                Criterion.CPU_SHARE,
                say(
                    "The run got {share} of the CPU time it asked for, under {limit}: other "
                    "processes had the cores most of the time, so its figures were measured "
                    "under different loads.",
                    share=format_percent(result.cpu_share, 2),
                    limit=format_percent(MIN_CPU_SHARE, 2),
                ),
            )
        )
    return Validity(tuple(failures))
