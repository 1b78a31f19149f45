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
from ..dtypes import bytes_per_element
from ..fmt import format_number, format_percent
from ..words import say
from .backends import select_backend
from .bandwidth import CACHE_MULTIPLE, measure_bandwidth
from .budget import Budget, check_budget
from .compute import measure_peak
from .machine import Machine, format_bytes
from .progress import ProgressBar
from .results import MeasuredRoofline
from .sweep import DEFAULT_BATCHES, plan_sweep, run_sweep
from .theory import TheoreticalPeak, cpu_theoretical_peak, gpu_theoretical_peak

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


def theoretical_peaks(machine: Machine, dtypes: Sequence[str]) -> dict[str, TheoreticalPeak]:
    """Theoretical peak per dtype on ``machine`` where one can be derived (see :mod:`.theory`):
    the catalog's for a GPU, cores × clock × FLOPs/cycle for a CPU."""
    out = {}
    for dtype in dtypes:
        if machine.gpu is not None:
            peak = gpu_theoretical_peak(machine.gpu.name, dtype)
        else:
            peak = cpu_theoretical_peak(machine.cpu, machine.threads, dtype)
        if peak is not None:
            out[dtype] = peak
    return out


def _join(batches: Sequence[int]) -> str:
    return ", ".join(str(b) for b in batches)


def _notes(result: MeasuredRoofline, cache_bytes: int, cache_name: str) -> tuple[str, ...]:
    """The run's caveats, one sentence each, in the environment's language (``cache_name`` is
    the cache's name in it)."""
    notes = []
    weights = result.D * result.F * bytes_per_element(result.dtype)
    if weights < 2 * cache_bytes:
        notes.append(
            say(
                "The weight matrix ({weights}) is less than twice the {cache} ({size}): small-B "
                "points may read it from cache and run above the memory roofline.",
                weights=format_bytes(weights),
                cache=cache_name,
                size=format_bytes(cache_bytes),
            )
        )
    bw = result.bandwidth
    if bw.cache_multiple < CACHE_MULTIPLE:
        notes.append(
            say(
                "The triad's arrays ({size} each) are only {multiple}× the {cache}, not "
                "{wanted}×: memory was too small, and part of the traffic may hit the cache.",
                size=format_bytes(bw.array_bytes),
                multiple=format_number(bw.cache_multiple, 2),
                cache=cache_name,
                wanted=CACHE_MULTIPLE,
            )
        )
    for dtype in result.peaks:
        fraction = result.peak_fraction_of(dtype)
        if fraction is not None and fraction > 1:
            notes.append(
                say(
                    "The measured {dtype} peak exceeds the theoretical one ({ratio}×): its "
                    "assumptions do not hold here ({assumptions}).",
                    dtype=dtype,
                    ratio=format_number(fraction, 3),
                    assumptions=result.theoretical_peaks[dtype].assumptions,
                )
            )
    ridge = result.critical_intensity
    memory = [p.batch for p in result.sweep if p.efficiency > 1.05 and p.intensity < ridge]
    compute = [p.batch for p in result.sweep if p.efficiency > 1.05 and p.intensity >= ridge]
    if memory:
        notes.append(
            say(
                "At B = {batches} the matmul ran above the memory roofline: it mostly reads (its "
                "weights), while the triad also writes and write-allocates, so a read stream can "
                "outrun the triad's bandwidth; data still in cache from the previous call costs "
                "no memory traffic either.",
                batches=_join(memory),
            )
        )
    if compute:
        notes.append(
            say(
                "At B = {batches} the matmul ran faster than the measured peak: the peak is "
                "itself a measurement (one {n}×{n} matmul, which a larger matmul can beat, or "
                "which ran while the machine was busier).",
                batches=_join(compute),
                n=result.peak.n,
            )
        )
    if result.busy and result.cpu_share is not None:
        notes.append(
            say(
                "The run got only {share} of the CPU time its {threads} thread(s) asked for: "
                "other processes were using the cores, so the rates understate this machine.",
                share=format_percent(result.cpu_share, 2),
                threads=result.machine.threads,
            )
        )
    if result.trimmed:
        skipped = result.skipped_batches
        notes.append(
            say(
                "The time budget ({budget} s) left out B = {batches}; a larger budget measures "
                "them."
                if len(skipped) > 1
                else "The time budget ({budget} s) left out B = {batches}; a larger budget "
                "measures it.",
                budget=format_number(result.budget_s, 3),
                batches=_join(skipped),
            )
        )
    return tuple(notes)


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
    cache_name = say("GPU's L2 cache") if machine.gpu is not None else say("last-level cache")
    return replace(result, notes=_notes(result, be.cache_bytes, cache_name))
