"""Shared fixtures for the measurement tests: one small real measurement for the whole session.

Every test in this package runs in one xdist group (``--dist loadgroup``), so two measurements
never compete for the same cores; the tests assert behaviour and units, never speed (the time
budget's contract is checked on a simulated clock, test_measure_budget.py, and the shared run's
budget reads a slowed clock, so that no load can make it skip its sweep).
"""

from __future__ import annotations

import time

import pytest

from roofline_lib.measure import MeasuredRoofline, measure

SMALL_SWEEP = {"D": 512, "batches": (1, 4, 16, 64, 256, 1024)}
"""A sweep that takes well under a second on two idle cores: D = F = 512."""
SMALL_BUDGET_S = 3.0
"""The small run's budget, on :func:`slow_clock`: an idle machine finishes in a few seconds and
the run ends early."""
CLOCK_SLOWDOWN = 100.0


def slow_clock() -> float:
    """Seconds at a hundredth of real speed: the budget the small run reads. On a real clock a
    busy machine (two test workers, or CI beside another job) used the whole budget on the peaks
    and the triad, and the sweep was skipped; on this one the budget never runs out, whatever the
    load, and the run's elapsed_s still grows (the trimming itself is tested on a simulated
    clock, test_measure_budget.py)."""
    return time.perf_counter() / CLOCK_SLOWDOWN


@pytest.fixture(scope="session")
def measured() -> tuple[MeasuredRoofline, float]:
    """(result, wall seconds) of ``measure(backend="numpy", budget_s=3, D=512, ...)``, its
    budget read on :func:`slow_clock`."""
    start = time.perf_counter()
    result = measure(backend="numpy", budget_s=SMALL_BUDGET_S, clock=slow_clock, **SMALL_SWEEP)
    return result, time.perf_counter() - start


@pytest.fixture(scope="session")
def result(measured: tuple[MeasuredRoofline, float]) -> MeasuredRoofline:
    return measured[0]
