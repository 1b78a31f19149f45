"""Benchmark of roofline_lib.measure: how close the measured peak gets to the theoretical one, and
what careful timing changes against the chapter's naive loop, measured side by side in one run.

* **achieved / theoretical peak** for each dtype the backend measures (fp32 and fp64 on a CPU;
  bf16 on a GPU), the theoretical peak being cores × clock × FLOPs/cycle (an upper bound, see
  roofline_lib.measure.theory) or the catalog's dense figure;
* **careful / naive** throughput for three kernels: a large square matmul, a memory-bound matmul
  (B = 1) and the STREAM triad. *Naive* is the chapter's loop (section 2.9) without its warm-up:
  fresh operands, ``_ = X @ W`` (a new output every call; for the triad ``b + s * c``, with its
  temporary), ``time.perf_counter`` around N calls, one synchronise at the end, the mean.
  *Careful* is :func:`roofline_lib.measure.time_call` on the library's kernels: preallocated
  outputs, a warm-up call, several repeats, the median. Each naive loop runs just before its
  careful twin, first, as it would at the top of a script. A ratio above 1 means the naive loop
  under-reported the throughput.

``python -m tools.bench_measure [--backend auto|numpy|torch] [--iters N] [--quick]``; ``make bench``
runs it. ``--quick`` is a smoke run of the same code on small sizes (the peak's smallest matmul,
D = 512, 8 MiB triad arrays), in a second or two; its ratios say little.
"""

from __future__ import annotations

import argparse
import sys

from roofline_lib.fmt import format_number, format_percent, format_quantity
from roofline_lib.measure import select_backend, time_call
from roofline_lib.measure.backends import Backend
from roofline_lib.measure.bandwidth import BYTES_PER_ELEMENT, COUNTED_ARRAYS, TRIAD_SCALAR
from roofline_lib.measure.compute import measure_peak, square_matmul_flops
from roofline_lib.measure.machine import format_bytes
from roofline_lib.measure.theory import theoretical_peaks
from roofline_lib.measure.timing import Kernel, naive_time

NAIVE_ITERS = 10
"""Calls in the naive loop (the chapter uses 100 on a GPU; 10 keeps a CPU run short)."""
PEAK_TIME_LIMIT_S = 2.0
"""Seconds for each dtype's careful peak measurement."""
QUICK_PEAK_TIME_LIMIT_S = 0.0
"""--quick: no time to grow the peak's matmul, so it stays at the backend's smallest size (with
the minimum of repeats)."""
QUICK_DIM = 512
"""--quick: D = F of the B = 1 matmul (otherwise the backend's default_dim)."""
QUICK_TRIAD_ELEMENTS = 2**20
"""--quick: fp64 elements per triad array, 8 MiB (otherwise at least 4 × the last-level cache):
allocated and touched in milliseconds, so its ratio measures the cache more than memory."""


def naive_matmul_s(
    backend: Backend, x_shape: tuple[int, int], w_shape: tuple[int, int], dtype: str, iters: int
) -> float:
    """Seconds per call of the chapter's loop ``_ = X @ W`` on fresh operands."""
    x, w = backend.new_array(x_shape, dtype), backend.new_array(w_shape, dtype)
    return naive_time(lambda: x @ w, iters, backend.synchronize)


def naive_triad_s(backend: Backend, elements: int, iters: int) -> float:
    """Seconds per call of ``b + s * c`` on fresh fp64 arrays (a temporary and a new output)."""
    b = backend.new_array((elements,), "fp64", 1.0)
    c = backend.new_array((elements,), "fp64", 2.0)
    return naive_time(lambda: b + TRIAD_SCALAR * c, iters, backend.synchronize)


def careful_s(backend: Backend, kernel: Kernel) -> float:
    """Median seconds per call with warm-up and repeats."""
    timing = time_call(kernel, backend.timer, repeats=9, min_repeat_s=backend.min_repeat_s)
    return timing.median_s


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.bench_measure", description=__doc__)
    parser.add_argument("--backend", default="auto", choices=("auto", "numpy", "torch"))
    parser.add_argument("--iters", type=int, default=NAIVE_ITERS, help="calls in the naive loop")
    parser.add_argument(
        "--quick", action="store_true", help="smoke run: small sizes, seconds instead of a minute"
    )
    args, _unknown = parser.parse_known_args(argv or [])  # tools.bench passes one argv to all
    backend = select_backend(args.backend)
    rows: list[tuple[str, float, float]] = []  # (kernel, naive rate, careful rate)
    units: list[str] = []
    with backend.session():
        machine = backend.machine()
        dtype = backend.default_dtype
        print(f"roofline_lib.measure on {machine.name} ({backend.name}, {backend.device})")

        peaks = {
            dt: measure_peak(
                backend,
                dt,
                time_limit_s=QUICK_PEAK_TIME_LIMIT_S if args.quick else PEAK_TIME_LIMIT_S,
            )
            for dt in backend.peak_dtypes(dtype)
        }
        theory = theoretical_peaks(machine, list(peaks))
        print("\nachieved peak / theoretical peak")
        for dt, peak in peaks.items():
            achieved = format_quantity(peak.flops_per_s, "FLOP/s")
            if dt not in theory:
                print(f"  {dt:5s} {achieved:>13s}  (no theoretical peak for this machine)")
                continue
            t = theory[dt]
            fraction = format_percent(peak.flops_per_s / t.flops_per_s)
            print(
                f"  {dt:5s} {achieved:>13s} of {format_quantity(t.flops_per_s, 'FLOP/s'):>13s} "
                f"= {fraction:>6s}   ({t.formula})"
            )

        n = peaks[dtype].n
        flops = square_matmul_flops(n)
        naive = naive_matmul_s(backend, (n, n), (n, n), dtype, args.iters)
        careful = careful_s(backend, backend.square_matmul(n, dtype))
        rows.append((f"{dtype} matmul {n}×{n}·{n}×{n}", flops / naive, flops / careful))
        units.append("FLOP/s")
        backend.release()

        D = QUICK_DIM if args.quick else backend.default_dim
        flops = 2.0 * D * D
        naive = naive_matmul_s(backend, (1, D), (D, D), dtype, args.iters)
        careful = careful_s(backend, backend.sweep_matmuls(1, D, D, dtype)(1))
        rows.append((f"{dtype} matmul B=1, D=F={D}", flops / naive, flops / careful))
        units.append("FLOP/s")
        backend.release()

        triad = backend.triad(QUICK_TRIAD_ELEMENTS if args.quick else None)
        counted = COUNTED_ARRAYS * BYTES_PER_ELEMENT * triad.elements
        label = f"triad a = b + s·c, 3 × {format_bytes(triad.elements * BYTES_PER_ELEMENT)}"
        try:
            naive = naive_triad_s(backend, triad.elements, args.iters)
            careful = careful_s(backend, triad)
        finally:
            triad.close()
            backend.release()
        rows.append((label, counted / naive, counted / careful))
        units.append("B/s")

    print(
        f"\ncareful (warm-up, median of repeats) / naive (the chapter's loop: {args.iters} calls, "
        "no warm-up, mean)"
    )
    width = max(len(r[0]) for r in rows)
    print(f"  {'kernel':{width}s}  {'naive':>13s}  {'careful':>13s}  careful/naive")
    for (label, naive_rate, careful_rate), unit in zip(rows, units, strict=True):
        print(
            f"  {label:{width}s}  {format_quantity(naive_rate, unit):>13s}  "
            f"{format_quantity(careful_rate, unit):>13s}  "
            f"{format_number(careful_rate / naive_rate, 3):>8s}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
