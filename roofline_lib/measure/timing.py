"""Honest timing: warm-up, several timed repeats, the median and the spread.

A kernel is timed by a *timer*, a callable ``timer(fn, calls) -> seconds`` that runs ``fn``
``calls`` times back to back and returns the elapsed wall-clock time, synchronised with the
device (:class:`PerfCounterTimer` on the CPU, :class:`CudaEventTimer` on a GPU). On top of it
:func:`time_call` does what a bare ``perf_counter`` loop leaves out (the guide's loop has the
warm-up, but times one run of its calls and takes the mean):

1. **warm-up** calls, untimed for the statistics, so that first-call costs (thread-pool start,
   page faults on fresh outputs, library initialisation, GPU clocks ramping) do not count;
2. **several repeats**, each of ``inner`` calls where one call is shorter than ``min_repeat_s``
   (so the timer's own resolution and overhead stay small against what it measures);
3. the **median** of the repeats as the estimate, and their min and max as the spread, because
   a background process can only ever make a repeat slower, never faster.

:func:`naive_time` is the guide's loop without its warm-up (one timed run, the mean), kept for
the benchmark that shows what careful timing changes.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

Kernel = Callable[[], object]


class Timer(Protocol):
    """Runs ``fn`` ``calls`` times back to back; returns the elapsed seconds, synchronised."""

    name: str

    def __call__(self, fn: Kernel, calls: int) -> float: ...


class PerfCounterTimer:
    """Wall-clock time from :func:`time.perf_counter` (CPU work is synchronous)."""

    name = "perf_counter"

    def __call__(self, fn: Kernel, calls: int) -> float:
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        return time.perf_counter() - start


@dataclass(frozen=True)
class Timing:
    """Seconds per call of one kernel over several timed repeats.

    Attributes:
        times_s: seconds per call in each timed repeat (a repeat's time divided by ``inner``).
        inner: calls per repeat, run back to back between two timer readings.
        warmup: untimed warm-up calls before the first repeat.
        timer: how time was read: 'perf_counter' or 'cuda events'.
    """

    times_s: tuple[float, ...]
    inner: int = 1
    warmup: int = 1
    timer: str = "perf_counter"

    def __post_init__(self) -> None:
        times = tuple(float(t) for t in self.times_s)
        if not times or any(not math.isfinite(t) or t <= 0 for t in times):
            raise ValueError(f"times_s must be one or more positive seconds, got {self.times_s!r}")
        object.__setattr__(self, "times_s", times)

    @property
    def repeats(self) -> int:
        """Number of timed repeats."""
        return len(self.times_s)

    @property
    def median_s(self) -> float:
        """Median seconds per call: the estimate every rate is computed from."""
        return statistics.median(self.times_s)

    @property
    def min_s(self) -> float:
        """Fastest repeat, seconds per call."""
        return min(self.times_s)

    @property
    def max_s(self) -> float:
        """Slowest repeat, seconds per call."""
        return max(self.times_s)

    def rate(self, work: float) -> float:
        """``work`` per second at the median: work / median_s (FLOP/s for FLOPs, bytes/s for bytes)."""
        return work / self.median_s

    def rate_spread(self, work: float) -> tuple[float, float]:
        """(slowest, fastest) rate over the repeats: (work / max_s, work / min_s)."""
        return (work / self.max_s, work / self.min_s)

    def to_dict(self) -> dict[str, Any]:
        return {
            "times_s": list(self.times_s),
            "inner": self.inner,
            "warmup": self.warmup,
            "timer": self.timer,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Timing:
        return cls(tuple(d["times_s"]), int(d["inner"]), int(d["warmup"]), str(d["timer"]))


MAX_INNER = 10_000
"""Upper limit on calls per repeat, whatever ``min_repeat_s`` asks for."""


def time_call(
    fn: Kernel,
    timer: Timer | None = None,
    *,
    repeats: int = 5,
    min_repeats: int = 3,
    warmup: int = 1,
    min_repeat_s: float = 0.0,
    time_limit_s: float = math.inf,
) -> Timing:
    """Time ``fn``: ``warmup`` calls, then up to ``repeats`` timed repeats of ``inner`` calls.

    ``inner`` = ⌈min_repeat_s / t_warm⌉ (at least 1), where t_warm is the last warm-up call's
    time. Repeats stop early, once ``min_repeats`` are done, when the repeats have taken
    ``time_limit_s`` seconds. Returns a :class:`Timing` (seconds per call).
    """
    timer = timer or PerfCounterTimer()
    if not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be a positive integer, got {repeats!r}")
    if not isinstance(min_repeats, int) or not 1 <= min_repeats:
        raise ValueError(f"min_repeats must be a positive integer, got {min_repeats!r}")
    if not isinstance(warmup, int) or warmup < 1:
        raise ValueError(f"warmup must be a positive integer (at least one call), got {warmup!r}")
    t_warm = 0.0
    for _ in range(warmup):
        t_warm = timer(fn, 1)
    inner = 1
    if min_repeat_s > 0 and t_warm < min_repeat_s:
        inner = min(MAX_INNER, math.ceil(min_repeat_s / max(t_warm, 1e-9)))
    times: list[float] = []
    started = time.perf_counter()
    for _ in range(max(repeats, min_repeats)):
        times.append(timer(fn, inner) / inner)
        done = len(times)
        if done >= repeats or (
            done >= min_repeats and time.perf_counter() - started >= time_limit_s
        ):
            break
    return Timing(tuple(times), inner=inner, warmup=warmup, timer=timer.name)


def naive_time(fn: Kernel, iters: int = 10, sync: Callable[[], object] | None = None) -> float:
    """The guide's loop, less its warm-up: seconds per call = (perf_counter after ``iters`` calls
    − before) / iters.

    No warm-up and a mean instead of a median, so first-call costs and any interruption land in
    the result. ``sync`` (e.g. ``torch.cuda.synchronize``) is called once after the loop, as the
    guide does.
    """
    if not isinstance(iters, int) or iters < 1:
        raise ValueError(f"iters must be a positive integer, got {iters!r}")
    start = time.perf_counter()
    for _ in range(iters):
        fn()
    if sync is not None:
        sync()
    return (time.perf_counter() - start) / iters
