"""Memory bandwidth: the STREAM triad a = b + s·c on arrays far larger than the caches.

**Bytes are counted as STREAM counts them**: 3 arrays × 8 bytes per fp64 element (read b,
read c, write a), so bytes/s = 24·N / t for N elements per array. Like STREAM, this leaves out
the write-allocate read of ``a`` that most CPUs do before a store to an uncached line, so the
memory system moves up to 32 bytes per element while 24 are counted; figures compare directly
with published STREAM results. Each array holds at least 4× the last-level cache (STREAM's own
rule; the L2 on a GPU), so the triad streams from memory rather than cache.

**numpy without temporaries.** ``a = b + s * c`` would allocate a temporary for ``s * c``. The
triad is written as two passes with ``out=``::

    np.multiply(c, s, out=a)
    np.add(a, b, out=a)

Run over whole arrays, these two passes would move 40 bytes per element (pass 1 reads c and
writes a, 16; pass 2 reads a and b and writes a, 24): 5/3 of STREAM's count, and the counted
bandwidth would understate the memory system by that factor. So the passes run **block by
block**, each block small enough that all threads' blocks of the three arrays fill at most half
the last-level cache: ``a``'s block is still in cache when the second pass reads it, and memory
sees STREAM's traffic (read b and c, write a, once each), the 24 bytes counted. The arrays are
split into one contiguous part per thread, each run by a Python thread (numpy releases the GIL
inside ufuncs), and each thread first touches its own part (so pages land near the core that
uses them). Python's per-block overhead (two ufunc calls per block of ≥ 16 Ki elements) is a few
percent, so the figure is slightly conservative.

**torch** has the fused form, ``torch.add(b, c, alpha=s, out=a)``: one pass, one kernel, exactly
STREAM's traffic, with no blocking needed.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._checks import positive_count
from .timing import Timing, time_call

if TYPE_CHECKING:
    from .backends import Backend

TRIAD_SCALAR = 3.0
"""s in a = b + s·c (STREAM's value)."""
BYTES_PER_ELEMENT = 8
"""fp64, as in STREAM."""
COUNTED_ARRAYS = 3
"""STREAM's count for the triad: b and c read, a written."""
CACHE_MULTIPLE = 4
"""Each array holds at least this many times the last-level cache (STREAM's rule)."""
MEMORY_FRACTION = 0.25
"""The three arrays may use at most this fraction of the memory available when the run starts."""
MIN_REPEATS = 3
MAX_REPEATS = 9


@dataclass(frozen=True)
class BandwidthMeasurement:
    """A STREAM triad bandwidth measurement.

    Attributes:
        method: how the triad ran (two blocked passes in numpy, or one fused torch kernel).
        elements: N, elements per array (fp64).
        threads: threads that ran it (1 for a GPU kernel's host thread).
        cache_bytes: the cache the array size is measured against (LLC, or a GPU's L2), bytes.
        timing: seconds per triad over the repeats.
    """

    method: str
    elements: int
    threads: int
    cache_bytes: int
    timing: Timing

    @property
    def array_bytes(self) -> int:
        """Bytes of one array: N × 8."""
        return self.elements * BYTES_PER_ELEMENT

    @property
    def bytes_counted(self) -> int:
        """Bytes STREAM counts for one triad: 3 × N × 8."""
        return COUNTED_ARRAYS * self.array_bytes

    @property
    def bytes_per_s(self) -> float:
        """Median bandwidth, bytes/s: 24·N / median seconds per triad."""
        return self.timing.rate(self.bytes_counted)

    @property
    def spread(self) -> tuple[float, float]:
        """(slowest, fastest) repeat, bytes/s."""
        return self.timing.rate_spread(self.bytes_counted)

    @property
    def repeats(self) -> int:
        return self.timing.repeats

    @property
    def cache_multiple(self) -> float:
        """array_bytes / cache_bytes: ≥ 4 unless memory was too small for that."""
        return self.array_bytes / self.cache_bytes

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "elements": self.elements,
            "threads": self.threads,
            "cache_bytes": self.cache_bytes,
            "timing": self.timing.to_dict(),
            "array_bytes": self.array_bytes,
            "bytes_counted": self.bytes_counted,
            "bytes_per_s": self.bytes_per_s,
            "spread": list(self.spread),
            "repeats": self.repeats,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> BandwidthMeasurement:
        return cls(
            d["method"],
            int(d["elements"]),
            int(d["threads"]),
            int(d["cache_bytes"]),
            Timing.from_dict(d["timing"]),
        )


def triad_elements(
    cache_bytes: int, available_memory_bytes: int | None, multiple_of: int = 1
) -> tuple[int, bool]:
    """(N, capped): elements per fp64 array, N·8 ≥ 4 × ``cache_bytes`` rounded up to a multiple
    of ``multiple_of``; ``capped`` when the three arrays had to shrink to fit
    MEMORY_FRACTION of the available memory."""
    n = math.ceil(CACHE_MULTIPLE * cache_bytes / BYTES_PER_ELEMENT)
    capped = False
    if available_memory_bytes:
        limit = int(MEMORY_FRACTION * available_memory_bytes / (3 * BYTES_PER_ELEMENT))
        if n > limit:
            n, capped = limit, True
    step = max(1, multiple_of)
    n = (n // step) * step if capped else math.ceil(n / step) * step
    return max(step, n), capped


def triad_size(
    elements: int | None,
    cache_bytes: int,
    available_memory_bytes: int | None,
    multiple_of: int = 1,
) -> int:
    """Elements per fp64 array of a backend's triad: ``elements`` when given (a positive integer;
    arrays that fit in cache measure the cache, not memory: a smoke run's size), else the N of
    :func:`triad_elements` (≥ 4 × ``cache_bytes`` per array, capped by memory)."""
    if elements is None:
        return triad_elements(cache_bytes, available_memory_bytes, multiple_of)[0]
    return int(positive_count("elements", elements))


def triad_block(cache_bytes: int, threads: int) -> int:
    """Elements per block of the numpy triad: the largest power of two with
    3 arrays × 8 bytes × threads × block ≤ cache_bytes / 2, between 2¹⁴ and 2²⁰."""
    fit = cache_bytes / (2 * COUNTED_ARRAYS * BYTES_PER_ELEMENT * max(threads, 1))
    return int(min(2**20, max(2**14, 2 ** math.floor(math.log2(max(fit, 1))))))


def _blocked_triad(a: np.ndarray, b: np.ndarray, c: np.ndarray, s: float, block: int) -> None:
    for start in range(0, a.size, block):
        out = a[start : start + block]
        np.multiply(c[start : start + block], s, out=out)
        np.add(out, b[start : start + block], out=out)


def _first_touch(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> None:
    a.fill(0.0)
    b.fill(1.0)
    c.fill(2.0)


class NumpyTriad:
    """The numpy triad kernel over ``elements`` fp64 elements per array on ``threads`` threads,
    in blocks of ``block`` elements (see the module docstring). Call it to run one triad;
    :meth:`close` frees the arrays and the threads."""

    def __init__(self, elements: int, threads: int, block: int) -> None:
        self.elements, self.threads, self.block = elements, max(1, threads), block
        self._arrays = [np.empty(elements) for _ in range(3)]
        bounds = np.linspace(0, elements, self.threads + 1).astype(int)
        self._parts = [
            tuple(x[lo:hi] for x in self._arrays) for lo, hi in itertools.pairwise(bounds)
        ]
        self._pool = ThreadPoolExecutor(self.threads) if self.threads > 1 else None
        self._each(_first_touch)

    def _each(self, fn: Any, *args: Any) -> None:
        if self._pool is None:
            fn(*self._parts[0], *args)
            return
        for future in [self._pool.submit(fn, *part, *args) for part in self._parts]:
            future.result()

    def __call__(self) -> None:
        self._each(_blocked_triad, TRIAD_SCALAR, self.block)

    @property
    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(a, b, c)."""
        a, b, c = self._arrays
        return a, b, c

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
        self._arrays, self._parts = [], []


def measure_bandwidth(
    backend: Backend, *, time_limit_s: float, max_repeats: int = MAX_REPEATS
) -> BandwidthMeasurement:
    """Measure the triad bandwidth on ``backend``: one warm-up triad, then MIN_REPEATS to
    ``max_repeats`` timed ones within about ``time_limit_s`` seconds."""
    kernel = backend.triad()
    try:
        timing = time_call(
            kernel,
            backend.timer,
            repeats=max_repeats,
            min_repeats=MIN_REPEATS,
            warmup=1,
            min_repeat_s=backend.min_repeat_s,
            time_limit_s=time_limit_s,
        )
        return BandwidthMeasurement(
            backend.triad_method, kernel.elements, kernel.threads, backend.cache_bytes, timing
        )
    finally:
        kernel.close()
        backend.release()
