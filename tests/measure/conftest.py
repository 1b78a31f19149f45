"""Shared fixtures for the measurement tests: one small real measurement for the whole session.

Every test in this package runs in one xdist group (``--dist loadgroup``), so two measurements
never compete for the same cores; the tests assert behaviour and units, never speed (the time
budget's contract is checked on a simulated clock, test_measure_budget.py).
"""

from __future__ import annotations

import time

import pytest

from roofline_lib.measure import MeasuredRoofline, measure

SMALL_SWEEP = {"D": 512, "batches": (1, 4, 16, 64, 256, 1024)}
"""A sweep that takes well under a second on two idle cores: D = F = 512."""
SMALL_BUDGET_S = 8.0
"""Generous for the small sweep, so that it is measured even on a busy machine; an idle one
finishes in a few seconds and the run ends early."""


@pytest.fixture(scope="session")
def measured() -> tuple[MeasuredRoofline, float]:
    """(result, wall seconds) of ``measure(backend='numpy', budget_s=8, D=512, ...)``."""
    start = time.perf_counter()
    result = measure(backend="numpy", budget_s=SMALL_BUDGET_S, **SMALL_SWEEP)
    return result, time.perf_counter() - start


@pytest.fixture(scope="session")
def result(measured: tuple[MeasuredRoofline, float]) -> MeasuredRoofline:
    return measured[0]
