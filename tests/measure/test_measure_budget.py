"""The time budget trims the sweep rather than overrunning: on a simulated clock, given to the
budget and the timer (exact, whatever the machine's speed or load), and on the real machine with
a point no machine could fit (what is skipped, not how long it took)."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace

import pytest

from roofline_lib.measure import DEFAULT_BATCHES, measure, timing
from roofline_lib.measure.budget import Budget
from roofline_lib.measure.sweep import MIN_REPEATS, plan_sweep, run_sweep

pytestmark = pytest.mark.xdist_group("measure")

PEAK, BANDWIDTH = 200e9, 25e9  # FLOP/s, bytes/s: the simulated machine's roofline


class FakeClock:
    """A perf_counter that only moves when a simulated kernel runs."""

    def __init__(self) -> None:
        self.now = 1000.0

    def perf_counter(self) -> float:
        return self.now


class FakeKernel:
    def __init__(self, clock: FakeClock, seconds: float) -> None:
        self.clock, self.seconds = clock, seconds

    def __call__(self) -> None:
        self.clock.now += self.seconds


class FakeTimer:
    name = "fake"

    def __call__(self, fn: FakeKernel, calls: int) -> float:
        start = fn.clock.now
        for _ in range(calls):
            fn()
        return fn.clock.now - start


class FakeBackend:
    """Kernels take flops / (roofline × efficiency) simulated seconds."""

    name, device, min_repeat_s = "fake", "cpu", 0.002

    def __init__(self, clock: FakeClock, efficiency: Callable[[int], float]) -> None:
        self.clock, self.efficiency, self.timer = clock, efficiency, FakeTimer()
        self.allocated_for: int | None = None

    def sweep_matmuls(self, max_batch: int, D: int, F: int, dtype: str):
        self.allocated_for = max_batch
        plan = plan_sweep(DEFAULT_BATCHES, D, F, dtype, PEAK, BANDWIDTH)
        seconds = dict(zip(plan.batches, plan.roofline_s, strict=True))
        return lambda B: FakeKernel(self.clock, seconds[B] / self.efficiency(B))

    def release(self) -> None:
        pass


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    # the budget takes its clock as an argument; time_call's repeat limit reads timing.time
    monkeypatch.setattr(timing, "time", SimpleNamespace(perf_counter=fake.perf_counter))
    return fake


def _sweep(clock: FakeClock, budget_s: float, efficiency: Callable[[int], float]):
    plan = plan_sweep(DEFAULT_BATCHES, 4096, 4096, "fp32", PEAK, BANDWIDTH)
    backend = FakeBackend(clock, efficiency)
    b = Budget(budget_s, clock=clock.perf_counter)
    points, skipped = run_sweep(backend, plan, 4096, 4096, "fp32", b)
    return plan, backend, b, points, skipped


@pytest.mark.parametrize("budget_s", [0.5, 2.0, 5.0, 12.0])
def test_sweep_trims_itself_to_fit_the_budget(clock: FakeClock, budget_s: float) -> None:
    _, _, b, points, skipped = _sweep(clock, budget_s, lambda B: 0.9)
    assert b.elapsed_s() <= budget_s
    assert [p.batch for p in points] + list(skipped) == list(DEFAULT_BATCHES)
    assert skipped, "the full default sweep takes longer than these budgets at 90% efficiency"


def test_a_large_budget_measures_every_point_with_more_repeats(clock: FakeClock) -> None:
    _, _, b, points, skipped = _sweep(clock, 100.0, lambda B: 0.9)
    assert not skipped
    assert len(points) == len(DEFAULT_BATCHES)
    assert b.elapsed_s() <= 100.0
    assert all(p.repeats >= MIN_REPEATS for p in points)
    assert points[0].repeats > MIN_REPEATS  # cheap points get more repeats


def test_a_slower_machine_than_estimated_overruns_by_at_most_one_point(clock: FakeClock) -> None:
    # efficiency drops sharply at large B, so the planner's estimate (from the previous point)
    # is too optimistic for the last point it starts
    _, _, b, points, _ = _sweep(clock, 8.0, lambda B: 0.9 if B < 2048 else 0.3)
    worst_point_s = max(p.timing.median_s * (1 + p.repeats * p.timing.inner) for p in points)
    assert b.elapsed_s() <= 8.0 + worst_point_s


def test_operands_are_only_allocated_for_points_that_can_fit(clock: FakeClock) -> None:
    _, backend, _, points, skipped = _sweep(clock, 0.5, lambda B: 1.0)
    assert backend.allocated_for is not None
    assert backend.allocated_for < max(DEFAULT_BATCHES)
    assert points[-1].batch <= backend.allocated_for < skipped[-1]


def test_a_budget_too_small_for_any_point_skips_the_whole_sweep(clock: FakeClock) -> None:
    plan = plan_sweep(DEFAULT_BATCHES, 4096, 4096, "fp32", PEAK, BANDWIDTH)
    backend = FakeBackend(clock, lambda B: 1.0)
    b = Budget(1e-6, clock=clock.perf_counter)
    points, skipped = run_sweep(backend, plan, 4096, 4096, "fp32", b)
    assert points == () and skipped == DEFAULT_BATCHES
    assert backend.allocated_for is None


def test_budget_reads_the_clock_it_is_given(clock: FakeClock) -> None:
    b = Budget(10.0, clock=clock.perf_counter)
    assert b.start == clock.now and b.elapsed_s() == 0.0
    clock.now += 4.0
    assert b.elapsed_s() == 4.0 and b.remaining_s() == 6.0
    assert b.share_s(0.5) == 5.0 and b.share_s(0.9) == 6.0
    assert b.fraction_done() == pytest.approx(0.4)
    clock.now += 10.0
    assert b.remaining_s() == -4.0 and b.share_s(0.1) == 0.0 and b.fraction_done() == 1.0


REAL_D = 1024
"""The real run's weight shape: small, so its peaks, triad and three points take about two
seconds (at 4096 they took seven idle and thirty under load, and decided nothing more)."""
IMPOSSIBLE_BATCH = 2**30
"""At D = F = 1024 one call is 2·2³⁰·1024² ≈ 2.3e15 FLOPs: hours on any CPU, so the estimate
alone exceeds the budget and the point is skipped without running (or allocating its 4 TB)."""


def test_real_run_skips_the_point_the_budget_cannot_fit_and_says_so() -> None:
    # real numpy measurements, but the budget reads a clock that stands still: however slow or
    # busy the machine, no time passes for it, so B = 1, 2, 4 always fit and IMPOSSIBLE_BATCH
    # never does (its estimate alone is minutes); a real clock made this fail under load
    result = measure(
        backend="numpy",
        budget_s=2.0,  # shares of it bound the peaks and the triad: seconds, not tens
        D=REAL_D,
        batches=(1, 2, 4, IMPOSSIBLE_BATCH),
        clock=FakeClock().perf_counter,  # the measurements' own timing stays real
    )
    assert [p.batch for p in result.sweep] == [1, 2, 4]
    assert result.skipped_batches == (IMPOSSIBLE_BATCH,)
    assert result.trimmed
    assert any("time budget" in note and str(IMPOSSIBLE_BATCH) in note for note in result.notes)
