"""The time budget of one measurement run: a deadline on the wall clock.

The run's contract: peak compute and bandwidth are always measured (with at least the minimum
number of repeats); the sweep then runs point by point, each point only if its estimated time
(warm-up plus the minimum repeats) fits in what is left, so the budget trims the sweep rather
than being overrun. A step already started is finished, so the run can end late by at most the
error of one step's estimate.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

MIN_BUDGET_S = 1.0
"""Below this no run can fit its peak and bandwidth measurements, whatever the machine."""


def check_budget(budget_s: object) -> float:
    """``budget_s`` as a float number of seconds ≥ MIN_BUDGET_S, or a ValueError naming it."""
    if isinstance(budget_s, bool) or not isinstance(budget_s, int | float):
        raise ValueError(f"budget_s must be a number of seconds, got {budget_s!r}")
    value = float(budget_s)
    if not math.isfinite(value) or value < MIN_BUDGET_S:
        raise ValueError(
            f"budget_s must be a finite number of seconds ≥ {MIN_BUDGET_S:g}, got {budget_s!r}"
        )
    return value


@dataclass(frozen=True)
class Budget:
    """``total_s`` seconds from ``start``, a reading of ``clock`` (default: now).

    ``clock`` returns seconds (default :func:`time.perf_counter`); a test passes a simulated one,
    so that what the budget decides does not depend on how fast or busy the machine is.
    """

    total_s: float
    start: float | None = None
    clock: Callable[[], float] = time.perf_counter

    def __post_init__(self) -> None:
        if self.start is None:
            object.__setattr__(self, "start", self.clock())

    def elapsed_s(self) -> float:
        """Seconds since the run started."""
        assert self.start is not None  # set by __post_init__
        return self.clock() - self.start

    def remaining_s(self) -> float:
        """Seconds left before the deadline (negative once it has passed)."""
        return self.total_s - self.elapsed_s()

    def share_s(self, fraction: float) -> float:
        """``fraction`` of the total, capped at what is left (never negative), in seconds."""
        return max(0.0, min(self.total_s * fraction, self.remaining_s()))

    def fraction_done(self) -> float:
        """Elapsed / total, capped at 1: for a progress bar."""
        return min(1.0, self.elapsed_s() / self.total_s)
