"""``measure()``: the whole run — machine, peaks, bandwidth, sweep — inside one time budget.

Order and shares of the budget: each peak dtype gets up to 15 % of the budget between them, the
triad up to 10 %, and the sweep everything left (see :mod:`.sweep` for how it trims itself).
"""

from __future__ import annotations

import datetime as _dt
import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from .._checks import positive_count
from .backends import select_backend
from .bandwidth import measure_bandwidth
from .budget import Budget, check_budget
from .caveats import caveats
from .compute import measure_peak
from .machine import Machine
from .progress import ProgressBar
from .results import MeasuredRoofline
from .sweep import DEFAULT_BATCHES, plan_sweep, run_sweep
from .theory import theoretical_peaks

PEAK_SHARE = 0.15
"""Fraction of the budget for all peak measurements together."""
BANDWIDTH_SHARE = 0.10
"""Fraction of the budget for the triad."""

Progress = Callable[[float, str], None]


def _count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(positive_count(name, value))


def _batches(batches: Sequence[int] | None) -> tuple[int, ...]:
    if batches is None:
        return DEFAULT_BATCHES
    if isinstance(batches, str | bytes) or not isinstance(batches, Sequence) or not batches:
        raise ValueError(
            f"batches must be a non-empty sequence of positive integers, got {batches!r}"
        )
    return tuple(sorted({_count("batches", b) for b in batches}))


def _progress(progress: bool | Progress) -> tuple[Progress | None, ProgressBar | None]:
    if progress is True:
        bar = ProgressBar()
        return bar, bar
    if progress is False or progress is None:
        return None, None
    if callable(progress):
        return progress, None
    raise ValueError(
        f"progress must be True, False or a callable(fraction, label), got {progress!r}"
    )


def _cpu_share(machine: Machine, cpu_s: float, wall_s: float) -> float | None:
    """CPU seconds the process got / (wall seconds × compute threads), at most 1; None on a
    GPU, whose host thread mostly waits."""
    if machine.gpu is not None or wall_s <= 0:
        return None
    return min(1.0, cpu_s / (wall_s * max(1, min(machine.threads, machine.cpu.logical_cpus))))


def measure(
    backend: str = "auto",
    budget_s: float = 20.0,
    progress: bool | Progress = False,
    *,
    dtype: str | None = None,
    D: int | None = None,
    F: int | None = None,
    batches: Sequence[int] | None = None,
    device: str | None = None,
    threads: int | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> MeasuredRoofline:
    """Measure this machine's roofline: peak FLOP/s, STREAM bandwidth and a matmul sweep.

    Args:
        backend: 'auto' (torch on a GPU if there is one, else numpy), 'numpy' or 'torch'.
        budget_s: the run's time budget in seconds (≥ 1). Peaks and bandwidth are always
            measured; the sweep is trimmed to fit (``result.trimmed``, ``skipped_batches``).
        progress: True for a progress bar on stderr, or a callable(fraction, label).
        dtype: the sweep's dtype (default: 'fp32' on a CPU, 'bf16' on a GPU). numpy measures
            'fp32' and 'fp64' only (see :mod:`.numpy_backend` for why not int8 or fp16).
        D, F: the sweep's weight shape (default 4096 on a CPU, 8192 on a GPU; F defaults to D).
        batches: the sweep's B values (default 1, 2, 4, …, 8192).
        device: for torch: 'cuda', 'cuda:N', or 'cpu' to run torch on the CPU.
        threads: cap on CPU compute threads (default: the math library's own).
        clock: the budget's clock, seconds (default :func:`time.perf_counter`): what the budget
            decides depends on it alone, so a test that passes a simulated clock gets the same
            sweep on a fast, slow or busy machine. Each measurement still times itself with
            the real clock.

    Returns:
        a :class:`MeasuredRoofline`.
    """
    total_s = check_budget(budget_s)
    report, bar = _progress(progress)
    be = select_backend(backend, device=device, threads=threads)
    dtype = be.check_dtype(dtype if dtype is not None else be.default_dtype)
    D = _count("D", D) if D is not None else be.default_dim
    F = _count("F", F) if F is not None else D
    batch_list = _batches(batches)
    budget = Budget(total_s, clock=clock)
    cpu_start = time.process_time()

    def step(label: str) -> None:
        if report:
            report(budget.fraction_done(), label)

    try:
        with be.session():
            step("machine")
            machine = be.machine()
            peak_dtypes = be.peak_dtypes(dtype)
            peaks = {}
            for dt in peak_dtypes:
                step(f"peak {dt}")
                limit = budget.share_s(PEAK_SHARE / len(peak_dtypes))
                peaks[dt] = measure_peak(be, dt, time_limit_s=limit)
            step("bandwidth (triad)")
            bandwidth = measure_bandwidth(be, time_limit_s=budget.share_s(BANDWIDTH_SHARE))
            plan = plan_sweep(
                batch_list, D, F, dtype, peaks[dtype].flops_per_s, bandwidth.bytes_per_s
            )
            sweep, skipped = run_sweep(be, plan, D, F, dtype, budget, report)
        if report:
            report(1.0, "done")
    finally:
        if bar is not None:
            bar.close()
    result = MeasuredRoofline(
        machine=machine,
        backend=be.name,
        dtype=dtype,
        peaks=peaks,
        bandwidth=bandwidth,
        sweep=sweep,
        D=D,
        F=F,
        skipped_batches=skipped,
        theoretical_peaks=theoretical_peaks(machine, peak_dtypes),
        budget_s=total_s,
        elapsed_s=budget.elapsed_s(),
        cpu_share=_cpu_share(machine, time.process_time() - cpu_start, budget.elapsed_s()),
        created=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
    )
    return replace(result, notes=caveats(result))
