"""Peak compute: the FLOP/s a large square matmul achieves.

An n×n by n×n matmul does 2n³ FLOPs on 3n² elements, an intensity of n/3·(2/s) FLOPs/byte (s =
bytes per element): far above any machine's critical intensity for the sizes used here, so its
throughput is the compute roof. The size is chosen by doubling from ``sizes[0]`` while the next
size's estimated time (at the rate just measured, an over-estimate, since larger matmuls run
faster) fits the time limit, up to ``sizes[-1]``: 2048 on a CPU, 8192 on a GPU.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .timing import Timing, time_call

if TYPE_CHECKING:
    from .backends import Backend

MIN_REPEATS = 3
"""Timed repeats every peak measurement gets, whatever the time limit."""
MAX_REPEATS = 7
"""Timed repeats a peak measurement gets when its time limit allows."""


@dataclass(frozen=True)
class PeakMeasurement:
    """The measured peak of one dtype: an n×n·n×n matmul, timed (see :mod:`.timing`).

    Attributes:
        dtype: e.g. ``"fp32"``.
        n: the matrices' size.
        flops: FLOPs per call, 2n³.
        timing: seconds per call over the repeats.
    """

    dtype: str
    n: int
    flops: float
    timing: Timing

    @property
    def flops_per_s(self) -> float:
        """Median throughput, FLOP/s: 2n³ / median seconds per call."""
        return self.timing.rate(self.flops)

    @property
    def spread(self) -> tuple[float, float]:
        """(slowest, fastest) repeat, FLOP/s."""
        return self.timing.rate_spread(self.flops)

    @property
    def repeats(self) -> int:
        """Timed repeats behind the median."""
        return self.timing.repeats

    def to_dict(self) -> dict[str, Any]:
        return {
            "dtype": self.dtype,
            "n": self.n,
            "flops": self.flops,
            "timing": self.timing.to_dict(),
            "flops_per_s": self.flops_per_s,
            "spread": list(self.spread),
            "repeats": self.repeats,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> PeakMeasurement:
        return cls(d["dtype"], int(d["n"]), float(d["flops"]), Timing.from_dict(d["timing"]))


def square_matmul_flops(n: int) -> float:
    """FLOPs of an n×n by n×n matmul: 2n³ (a multiply-add is 2 FLOPs)."""
    return 2.0 * n**3


def measure_peak(
    backend: Backend, dtype: str, *, time_limit_s: float, max_repeats: int = MAX_REPEATS
) -> PeakMeasurement:
    """Measure ``dtype``'s peak FLOP/s on ``backend`` within about ``time_limit_s`` seconds.

    The smallest size is called twice (the first call pays one-time set-up, the second gives the
    rate), each larger size probed once; these calls are not in the statistics. The chosen size
    then gets one more warm-up call and between MIN_REPEATS and ``max_repeats`` repeats.
    """
    sizes = backend.peak_sizes
    timer = backend.timer
    n = sizes[0]
    kernel = backend.square_matmul(n, dtype)
    spent = timer(kernel, 1)  # the first call pays one-time set-up (BLAS threads, cuBLAS handles)
    t = timer(kernel, 1)
    spent += t
    while n * 2 <= sizes[-1]:
        t_next = t * 8  # 8× the FLOPs, at no better a rate than n's
        if spent + t_next * (2 + MIN_REPEATS) > time_limit_s:
            break
        n *= 2
        kernel = backend.square_matmul(n, dtype)
        t = timer(kernel, 1)
        spent += t
    timing = time_call(
        kernel,
        timer,
        repeats=max_repeats,
        min_repeats=MIN_REPEATS,
        warmup=1,
        min_repeat_s=backend.min_repeat_s,
        time_limit_s=max(0.0, time_limit_s - spent - t),
    )
    del kernel
    backend.release()
    return PeakMeasurement(dtype, n, square_matmul_flops(n), timing)
