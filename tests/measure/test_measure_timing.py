"""time_call: warm-up, repeats, inner calls, median and spread, on a scripted timer."""

from __future__ import annotations

import math
import statistics

import pytest

from roofline_lib.measure import Timing, naive_time, time_call
from roofline_lib.measure.timing import PerfCounterTimer

pytestmark = pytest.mark.xdist_group("measure")


class ScriptedTimer:
    """Returns the next scripted seconds-per-call × calls, and records what it was asked."""

    name = "scripted"

    def __init__(self, per_call_s: list[float]) -> None:
        self.per_call_s = list(per_call_s)
        self.calls: list[int] = []

    def __call__(self, fn, calls: int) -> float:
        self.calls.append(calls)
        return self.per_call_s.pop(0) * calls


def test_warmup_is_not_counted_and_the_median_is_reported() -> None:
    timer = ScriptedTimer([9.0, 1.0, 3.0, 2.0, 100.0, 2.5])
    t = time_call(lambda: None, timer, repeats=5, warmup=1)
    assert t.times_s == (1.0, 3.0, 2.0, 100.0, 2.5)  # the 9 s cold call is gone
    assert t.median_s == 2.5  # one interrupted repeat does not move the median
    assert (t.min_s, t.max_s) == (1.0, 100.0)
    assert t.repeats == 5 and t.warmup == 1 and t.timer == "scripted"


def test_short_calls_are_timed_in_groups_of_inner_calls() -> None:
    timer = ScriptedTimer([1e-4] * 10)
    t = time_call(lambda: None, timer, repeats=3, min_repeat_s=0.01)
    assert t.inner == 100
    assert timer.calls == [1, 100, 100, 100]
    assert t.median_s == pytest.approx(1e-4)


def test_rates_and_spread_use_the_median_and_the_extremes() -> None:
    t = Timing((1.0, 2.0, 4.0))
    assert t.rate(8.0) == 4.0
    assert t.rate_spread(8.0) == (2.0, 8.0)


def test_time_limit_stops_after_the_minimum_repeats() -> None:
    t = time_call(
        lambda: sum(range(20_000)),
        PerfCounterTimer(),
        repeats=1000,
        min_repeats=3,
        time_limit_s=0.0,
    )
    assert t.repeats == 3


def test_real_timer_times_real_work() -> None:
    t = time_call(lambda: sum(range(10_000)), repeats=5)
    assert t.repeats == 5
    assert all(x > 0 for x in t.times_s)
    assert t.min_s <= statistics.median(t.times_s) <= t.max_s


def test_naive_time_is_the_mean_of_a_loop() -> None:
    calls = []
    assert naive_time(lambda: calls.append(1), iters=7) > 0
    assert len(calls) == 7


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [({"repeats": 0}, "repeats"), ({"min_repeats": 0}, "min_repeats"), ({"warmup": 0}, "warmup")],
)
def test_bad_timing_arguments_name_the_parameter(kwargs: dict, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        time_call(lambda: None, **kwargs)


def test_timing_rejects_non_positive_times() -> None:
    with pytest.raises(ValueError, match="times_s"):
        Timing((1.0, 0.0))
    with pytest.raises(ValueError, match="times_s"):
        Timing((math.nan,))
    with pytest.raises(ValueError, match="iters"):
        naive_time(lambda: None, iters=0)


def test_cuda_event_timer_synchronises_and_converts_milliseconds() -> None:
    from types import SimpleNamespace

    from roofline_lib.measure.torch_backend import CudaEventTimer

    log: list[str] = []

    class Event:
        def __init__(self, enable_timing: bool) -> None:
            assert enable_timing

        def record(self) -> None:
            log.append("record")

        def synchronize(self) -> None:
            log.append("wait for end")

        def elapsed_time(self, end: Event) -> float:
            return 2.5  # milliseconds, as CUDA reports

    cuda = SimpleNamespace(Event=Event, synchronize=lambda device: log.append("sync"))
    timer = CudaEventTimer(SimpleNamespace(cuda=cuda), "cuda:0")
    assert timer(lambda: log.append("call"), 3) == pytest.approx(2.5e-3)
    assert log == ["sync", "record", "call", "call", "call", "record", "wait for end"]


@pytest.mark.parametrize(
    ("text", "version"),
    [
        (
            "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 2024\n",
            "550.54.15",
        ),
        (
            "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  535.129.03  Release Build\n",
            "535.129.03",
        ),
    ],
)
def test_nvidia_driver_version_is_read_from_proc(tmp_path, text: str, version: str) -> None:
    from roofline_lib.measure.torch_backend import nvidia_driver_version

    assert nvidia_driver_version(tmp_path) == ""
    (tmp_path / "proc/driver/nvidia").mkdir(parents=True)
    (tmp_path / "proc/driver/nvidia/version").write_text(text)
    assert nvidia_driver_version(tmp_path) == version
