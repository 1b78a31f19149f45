"""Measured rooflines: the machine at hand's peak FLOP/s, memory bandwidth and a matmul sweep.

    from roofline_lib.measure import measure
    result = measure(budget_s=20.0)          # numpy on the CPU, or torch on a GPU if present
    print(result.machine.describe())
    result.peak.flops_per_s, result.bandwidth.bytes_per_s, result.critical_intensity
    for p in result.sweep: p.batch, p.intensity, p.predicted_flops_per_s, p.achieved_flops_per_s

From the shell: ``python -m roofline_lib.measure [--budget S] [--json FILE] [--plot FILE.png]``.

Modules, one idea each: :mod:`.cpuinfo` and :mod:`.machine` (what the machine is),
:mod:`.theory` (theoretical peaks), :mod:`.timing` (warm-up, repeats, median), :mod:`.budget`,
:mod:`.compute` (peak FLOP/s), :mod:`.bandwidth` (STREAM triad), :mod:`.sweep` (matmuls over B),
:mod:`.backends` with :mod:`.numpy_backend` and :mod:`.torch_backend`, :mod:`.results` (plain
data and JSON), :mod:`.run` (:func:`measure`), :mod:`.caveats` (what a reader should know about
a run), :mod:`.validity` (is the run a roofline at all: ``result.validity``), :mod:`.report`
and :mod:`.progress` (the command line's text), :mod:`.plot` (the charts, ``from
roofline_lib.measure.plot import plot_measured_roofline``; it alone imports matplotlib).
``import roofline_lib`` does not import this package.
"""

from __future__ import annotations

from .backends import BACKENDS, BackendUnavailableError, select_backend
from .bandwidth import BandwidthMeasurement
from .compute import PeakMeasurement
from .cpuinfo import CpuInfo, read_cpu_info
from .machine import GpuInfo, Machine
from .report import format_report
from .results import MeasuredRoofline
from .run import measure
from .sweep import DEFAULT_BATCHES, SweepPoint
from .theory import TheoreticalPeak
from .timing import Timing, naive_time, time_call
from .validity import Criterion, Failure, Validity

__all__ = [
    "BACKENDS",
    "DEFAULT_BATCHES",
    "BackendUnavailableError",
    "BandwidthMeasurement",
    "CpuInfo",
    "Criterion",
    "Failure",
    "GpuInfo",
    "Machine",
    "MeasuredRoofline",
    "PeakMeasurement",
    "SweepPoint",
    "TheoreticalPeak",
    "Timing",
    "Validity",
    "format_report",
    "measure",
    "naive_time",
    "read_cpu_info",
    "select_backend",
    "time_call",
]
