"""A real (small) measurement has the documented fields, SI units and internal consistency."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import roofline_lib
from roofline_lib.measure import (
    BandwidthMeasurement,
    Machine,
    MeasuredRoofline,
    PeakMeasurement,
    SweepPoint,
)

from .conftest import SMALL_BUDGET_S, SMALL_SWEEP
from .handmade import run

pytestmark = pytest.mark.xdist_group("measure")


def test_result_has_the_documented_fields(result: MeasuredRoofline) -> None:
    assert isinstance(result, MeasuredRoofline)
    assert isinstance(result.machine, Machine)
    assert result.backend == "numpy"
    assert result.dtype == "fp32"
    assert isinstance(result.peak, PeakMeasurement)
    assert set(result.peaks) == {"fp32", "fp64"}
    assert result.peak is result.peaks["fp32"]
    assert isinstance(result.bandwidth, BandwidthMeasurement)
    assert all(isinstance(p, SweepPoint) for p in result.sweep)
    assert isinstance(result.trimmed, bool)
    assert (result.D, result.F) == (SMALL_SWEEP["D"], SMALL_SWEEP["D"])


def test_rates_are_positive_finite_si_units(result: MeasuredRoofline) -> None:
    for peak in result.peaks.values():
        assert 1e6 < peak.flops_per_s < 1e18  # FLOP/s, not GFLOP/s
        low, high = peak.spread
        assert 0 < low <= peak.flops_per_s <= high
        assert peak.repeats >= 3
        assert peak.flops == 2.0 * peak.n**3
    bw = result.bandwidth
    assert 1e6 < bw.bytes_per_s < 1e15  # bytes/s
    assert bw.spread[0] <= bw.bytes_per_s <= bw.spread[1]
    assert bw.repeats >= 3
    assert math.isclose(
        result.critical_intensity, result.peak.flops_per_s / result.bandwidth.bytes_per_s
    )


def test_triad_counts_bytes_as_stream_does(result: MeasuredRoofline) -> None:
    bw = result.bandwidth
    assert bw.array_bytes == 8 * bw.elements  # fp64
    assert bw.bytes_counted == 3 * 8 * bw.elements  # read b, read c, write a
    assert math.isclose(bw.bytes_per_s, bw.bytes_counted / bw.timing.median_s)


def test_triad_arrays_are_at_least_four_times_the_last_level_cache(
    result: MeasuredRoofline,
) -> None:
    bw = result.bandwidth
    if result.machine.cpu.llc_bytes:
        assert bw.cache_bytes == result.machine.cpu.llc_bytes
    assert bw.cache_multiple >= 4 or any("too small" in n for n in result.notes)


def test_measured_peaks_stay_below_the_theoretical_peaks(result: MeasuredRoofline) -> None:
    for dtype, theory in result.theoretical_peaks.items():
        assert result.peaks[dtype].flops_per_s < theory.flops_per_s, theory.formula
        fraction = result.peak_fraction_of(dtype)
        assert fraction is not None and 0 < fraction < 1
    if result.theoretical_peak_flops_per_s is None:
        assert result.peak_fraction is None
    else:
        assert result.peak_fraction == pytest.approx(
            result.peak.flops_per_s / result.theoretical_peak_flops_per_s
        )


def test_sweep_intensities_are_the_cost_models(result: MeasuredRoofline) -> None:
    assert result.sweep, "the small sweep should fit its budget"
    batches = np.array([p.batch for p in result.sweep])
    cost = roofline_lib.matmul(batches, result.D, result.F, roofline_lib.FP32)
    np.testing.assert_array_equal([p.intensity for p in result.sweep], cost.arithmetic_intensity)
    np.testing.assert_array_equal([p.flops for p in result.sweep], cost.flops)
    np.testing.assert_array_equal([p.bytes for p in result.sweep], cost.bytes_total)


def test_predictions_are_the_measured_roofline(result: MeasuredRoofline) -> None:
    expected = roofline_lib.achievable_flops_per_s(
        np.array([p.intensity for p in result.sweep]),
        result.peak.flops_per_s,
        result.bandwidth.bytes_per_s,
    )
    np.testing.assert_allclose([p.predicted_flops_per_s for p in result.sweep], expected)
    for p in result.sweep:
        assert p.predicted_flops_per_s == pytest.approx(result.predicted_flops_per_s(p.intensity))
        assert p.efficiency == pytest.approx(p.achieved_flops_per_s / p.predicted_flops_per_s)
        assert p.spread[0] <= p.achieved_flops_per_s <= p.spread[1]
        assert p.achieved_flops_per_s == pytest.approx(p.flops / p.timing.median_s)
        assert p.repeats >= 3


def test_sweep_runs_in_increasing_batch_and_reports_what_it_skipped(
    result: MeasuredRoofline,
) -> None:
    measured = [p.batch for p in result.sweep]
    assert measured == sorted(measured)
    assert measured + list(result.skipped_batches) == list(SMALL_SWEEP["batches"])
    assert result.trimmed == bool(result.skipped_batches)


def test_small_run_records_its_budget_and_its_time(
    measured: tuple[MeasuredRoofline, float],
) -> None:
    # that the budget is kept is tested on a simulated clock (test_measure_budget.py); a real
    # run's wall time depends on how busy the machine is
    result, wall_s = measured
    assert result.budget_s == SMALL_BUDGET_S
    assert 0 < result.elapsed_s <= wall_s


def test_machine_description_names_cpu_threads_and_blas(result: MeasuredRoofline) -> None:
    text = result.machine.describe()
    machine = result.machine
    assert machine.cpu.model in text
    assert f"{machine.threads} thread" in text
    assert machine.math_library in text
    assert "numpy" in text and machine.versions["numpy"] in text
    assert machine.threads >= 1 and machine.cpu.logical_cpus >= 1
    if machine.math_library_threads is not None:
        assert f"with {machine.math_library_threads} thread" in text


def test_dict_round_trip_gives_an_equal_result(result: MeasuredRoofline) -> None:
    d = result.to_dict()
    again = MeasuredRoofline.from_dict(json.loads(json.dumps(d)))
    assert again == result
    assert again.to_dict() == d


def test_json_file_round_trip(result: MeasuredRoofline, tmp_path) -> None:
    path = tmp_path / "m.json"
    text = result.to_json(path)
    assert json.loads(path.read_text()) == json.loads(text)
    again = MeasuredRoofline.from_json(path)
    assert again == result
    assert MeasuredRoofline.from_json(text) == result


def test_json_carries_the_derived_numbers_for_readers(result: MeasuredRoofline) -> None:
    d = json.loads(result.to_json())
    assert d["format"] == "roofline_lib.measure/1"
    assert d["peaks"]["fp32"]["flops_per_s"] == result.peak.flops_per_s
    assert d["bandwidth"]["bytes_per_s"] == result.bandwidth.bytes_per_s
    assert d["critical_intensity"] == result.critical_intensity
    assert [p["efficiency"] for p in d["sweep"]] == [p.efficiency for p in result.sweep]
    assert d["description"] == result.machine.describe()


def test_from_dict_rejects_other_data() -> None:
    with pytest.raises(ValueError, match="format"):
        MeasuredRoofline.from_dict({"format": "something else"})


def test_results_are_frozen(result: MeasuredRoofline) -> None:
    with pytest.raises(AttributeError):
        result.dtype = "fp64"  # type: ignore[misc]
    with pytest.raises(TypeError):
        result.peaks["fp16"] = result.peak  # type: ignore[index]


def test_the_notes_are_said_again_in_the_readers_language(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The book's Chinese edition reads the run the English build measured: its caveats (like
    its verdict) come in the reader's language, not the writer's."""
    written = run(cpu_share=0.24)
    text = MeasuredRoofline.from_dict(written.to_dict()).to_json()  # English notes inside
    english = MeasuredRoofline.from_json(text).notes
    assert any("CPU time" in note for note in english), english
    monkeypatch.setenv("ROOFLINE_LANG", "zh_CN")
    chinese = MeasuredRoofline.from_json(text).notes
    assert len(chinese) == len(english)
    assert any("CPU 时间" in note for note in chinese), chinese


def test_the_theoretical_peaks_words_are_said_again_in_the_readers_language(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The peak formula the English build wrote ("2 cores × 3 GHz × ...") reads in Chinese in the
    Chinese edition; a stored peak the derivation no longer gives is kept as written."""
    from dataclasses import replace

    from roofline_lib.measure.theory import theoretical_peaks

    written = run(theory=None)
    derived = theoretical_peaks(written.machine, ["fp32"])
    assert "cores ×" in derived["fp32"].formula
    text = replace(written, theoretical_peaks=derived).to_json()
    monkeypatch.setenv("ROOFLINE_LANG", "zh_CN")
    read = MeasuredRoofline.from_json(text).theoretical_peaks["fp32"]
    assert "核 ×" in read.formula and read.flops_per_s == derived["fp32"].flops_per_s
    kept = MeasuredRoofline.from_json(run().to_json()).theoretical_peaks["fp32"]
    assert kept.formula == "2 × 3 GHz × 64"
