"""Hand-built measured rooflines, for tests that need a run of a known shape (trustworthy or
not) without measuring anything: roofline_lib.measure's verdict (test_measure_validity.py) and
the page that shows the build machine's run (tests/book/test_book_measured.py)."""

from __future__ import annotations

import roofline_lib as rl
from roofline_lib.measure import (
    BandwidthMeasurement,
    CpuInfo,
    Machine,
    MeasuredRoofline,
    PeakMeasurement,
    SweepPoint,
    TheoreticalPeak,
    Timing,
)

PEAK = 400e9
"""The hand-built runs' measured fp32 peak, FLOP/s."""
BANDWIDTH = 20e9
"""Their triad bandwidth, bytes/s."""
THEORY = 500e9
"""Their theoretical fp32 peak, FLOP/s (the measured peak is 80 % of it)."""
LLC = 2**25
"""Their last-level cache, bytes (32 MiB)."""
D = F = 4096
"""Their weight matrix: 64 MiB in fp32, more than twice the cache."""


def _timing(seconds: float, spread: float = 1.0) -> Timing:
    """Three repeats: ``seconds`` (the median), and the slowest ``spread`` times slower."""
    return Timing((seconds / 1.02, seconds, seconds * spread))


def run(
    efficiency: dict[int, float] | None = None,
    *,
    spread: float = 1.0,
    peak: float = PEAK,
    theory: float | None = THEORY,
    cpu_share: float | None = 0.97,
    dim: int = D,
) -> MeasuredRoofline:
    """A measured roofline built by hand: each B's achieved / predicted in ``efficiency``, each
    point's slowest repeat ``spread`` times its median."""
    cpu = CpuInfo(
        model="Test CPU",
        vendor="GenuineIntel",
        logical_cpus=2,
        physical_cores=2,
        cpu_quota=None,
        simd=("avx2", "fma"),
        clock_hz=3e9,
        clock_source="'cpu MHz' in /proc/cpuinfo: the current or nominal clock; turbo may run faster",
        llc_bytes=LLC,
        llc_source="L3",
    )
    machine = Machine("numpy", "cpu", cpu, 2, "OpenBLAS", 2, versions={}, platform="Linux")
    peak_m = PeakMeasurement("fp32", 2048, 2 * 2048**3, _timing(2 * 2048**3 / peak))
    elements = 4 * LLC // 8
    bandwidth = BandwidthMeasurement(
        "numpy", elements, 2, LLC, _timing(3 * 8 * elements / BANDWIDTH)
    )
    efficiency = efficiency or {1: 0.9, 16: 0.6, 64: 0.7, 512: 0.85, 4096: 0.95}
    sweep = []
    for b, eff in efficiency.items():
        cost = rl.matmul(b, dim, dim, "fp32")
        flops, moved = float(cost.flops), float(cost.bytes_total)
        predicted = min(peak, flops / moved * BANDWIDTH)
        seconds = flops / (eff * predicted)
        timing = _timing(seconds, spread)
        sweep.append(
            SweepPoint(b, dim, dim, "fp32", flops, moved, flops / moved, predicted, timing)
        )
    theoretical = {}
    if theory is not None:
        theoretical["fp32"] = TheoreticalPeak("fp32", theory, "isa", "2 × 3 GHz × 64", "test")
    return MeasuredRoofline(
        machine=machine,
        backend="numpy",
        dtype="fp32",
        peaks={"fp32": peak_m},
        bandwidth=bandwidth,
        sweep=tuple(sweep),
        D=dim,
        F=dim,
        theoretical_peaks=theoretical,
        cpu_share=cpu_share,
    )
