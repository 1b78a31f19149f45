"""A measured roofline's verdict on itself (``result.validity``), on hand-built results: a clean
run is trustworthy, and each criterion of roofline_lib.measure.validity fails a run for its own
reason, at its named threshold and not below it. No measurement runs here."""

from __future__ import annotations

import json

import pytest

from roofline_lib.measure import Criterion, MeasuredRoofline, Validity, format_report
from roofline_lib.measure.validity import (
    ABOVE_ROOF_LIMIT,
    MIN_CPU_SHARE,
    MIN_PEAK_FRACTION,
    WEIGHTS_IN_CACHE,
)

from .handmade import LLC, THEORY, run


def test_a_clean_run_is_trustworthy_with_no_reasons() -> None:
    validity = run().validity
    assert isinstance(validity, Validity)
    assert validity.trustworthy
    assert validity.reasons == () and validity.criteria == ()


def test_a_point_a_little_above_its_roof_is_within_the_noise_and_the_models_gaps() -> None:
    """A read-mostly matmul may beat the triad by up to 4/3, a large matmul the n×n peak."""
    assert run({16: 1.3, 4096: 1.2}).validity.trustworthy


def test_a_point_far_above_its_roof_means_the_measured_peak_was_not_the_peak() -> None:
    validity = run({64: 0.7, 512: 2.8, 4096: 5.8}).validity
    assert not validity.trustworthy
    assert validity.criteria == (Criterion.ABOVE_ROOF,)
    (reason,) = validity.reasons
    assert "B = 512, 4096" in reason and "2.7–5.7×" in reason, reason
    assert "not this machine's limits" in reason


def test_a_point_above_its_roof_only_at_its_fastest_repeat_is_noise() -> None:
    """The slowest repeat is the cautious reading: a median above the limit whose slowest
    repeat is under it does not fail the run."""
    assert run({4096: 2.0}, spread=1.5).validity.trustworthy
    assert not run({4096: 2.0}, spread=1.1).validity.trustworthy


def test_the_above_roof_limit_is_where_the_slowest_repeat_meets_the_generous_roof() -> None:
    # the peak's fastest repeat is 1.02× its median, so the generous roof is 1.02 × PEAK
    just_under = ABOVE_ROOF_LIMIT * 1.02 * 0.99
    just_over = ABOVE_ROOF_LIMIT * 1.02 * 1.01
    assert run({4096: just_under}).validity.trustworthy
    assert run({4096: just_over}).validity.criteria == (Criterion.ABOVE_ROOF,)


def test_memory_bound_points_are_not_held_to_the_memory_roof_when_the_weights_fit_in_cache() -> (
    None
):
    small = 1024  # 4 MiB of fp32 weights, under twice the 32 MiB cache
    assert small * small * 4 < WEIGHTS_IN_CACHE * LLC
    assert run({1: 3.0, 4096: 0.9}, dim=small).validity.trustworthy
    # ... but the compute-bound ones still are held to the peak
    assert not run({1: 3.0, 4096: 3.0}, dim=small).validity.trustworthy
    # and with weights far larger than the cache, the memory-bound point fails
    assert run({1: 3.0, 4096: 0.9}).validity.criteria == (Criterion.ABOVE_ROOF,)


def test_a_peak_a_tiny_fraction_of_the_theoretical_one_is_a_starved_process() -> None:
    validity = run(peak=0.018 * THEORY).validity
    assert validity.criteria == (Criterion.PEAK_FRACTION,)
    (reason,) = validity.reasons
    assert "1.8%" in reason and "10%" in reason, reason


def test_the_peak_fraction_limit_is_min_peak_fraction() -> None:
    assert run(peak=MIN_PEAK_FRACTION * 1.01 * THEORY).validity.trustworthy
    assert not run(peak=MIN_PEAK_FRACTION * 0.99 * THEORY).validity.trustworthy


def test_no_theoretical_peak_no_peak_fraction_criterion() -> None:
    assert run(peak=1e9, theory=None).validity.trustworthy


def test_a_run_that_got_too_small_a_share_of_the_cpu_is_not_a_roofline() -> None:
    validity = run(cpu_share=0.24).validity
    assert validity.criteria == (Criterion.CPU_SHARE,)
    (reason,) = validity.reasons
    assert "24%" in reason and "50%" in reason, reason


def test_the_cpu_share_limit_is_min_cpu_share_and_a_gpu_has_none() -> None:
    assert run(cpu_share=MIN_CPU_SHARE).validity.trustworthy
    assert not run(cpu_share=MIN_CPU_SHARE - 0.01).validity.trustworthy
    assert run(cpu_share=None).validity.trustworthy
    # busy (below BUSY_CPU_SHARE) but above the limit: a busy machine's roofline, still shown
    busy = run(cpu_share=0.6)
    assert busy.busy and busy.validity.trustworthy


def test_the_reviewers_run_fails_every_criterion_in_order() -> None:
    """The run issue 25 found published: peak 1.8 % of theory, points 180–480 % above the roof,
    24 % of the CPU time."""
    validity = run(
        {1: 0.9, 64: 2.8, 512: 5.8, 4096: 4.0}, peak=0.018 * THEORY, cpu_share=0.24
    ).validity
    assert not validity.trustworthy
    assert validity.criteria == (
        Criterion.ABOVE_ROOF,
        Criterion.PEAK_FRACTION,
        Criterion.CPU_SHARE,
    )
    assert len(validity.reasons) == 3


def test_the_verdict_is_in_the_json_and_recomputed_when_read() -> None:
    bad = run(cpu_share=0.24)
    data = json.loads(bad.to_json())
    assert data["validity"] == {"trustworthy": False, "reasons": list(bad.validity.reasons)}
    data["validity"] = {"trustworthy": True, "reasons": []}  # a stale verdict is not trusted
    assert MeasuredRoofline.from_dict(data).validity == bad.validity


def test_the_reasons_are_said_in_the_readers_language(monkeypatch: pytest.MonkeyPatch) -> None:
    bad = run({4096: 5.0}, peak=0.018 * THEORY, cpu_share=0.24)
    monkeypatch.setenv("ROOFLINE_LANG", "zh_CN")
    reasons = bad.validity.reasons
    assert len(reasons) == 3
    assert all("机器" in r or "进程" in r for r in reasons), reasons


def test_the_report_gives_the_verdict() -> None:
    assert "verdict: a roofline" in format_report(run())
    text = format_report(run(cpu_share=0.24))
    assert "verdict: NOT a roofline" in text and "24%" in text
