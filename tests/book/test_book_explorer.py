"""The explorer's callbacks: moving a widget recomputes the reading with the library and redraws
the readout and the chart. No kernel or browser is needed: ipywidgets runs its observers in
plain Python."""

from __future__ import annotations

import pytest

import roofline_lib as rl
from roofline_lib.explorer import (
    NUMBER_FORMATS,
    OPERATIONS,
    Explorer,
    evaluate,
    explore,
    readout_html,
    readout_rows,
    snapshot,
)
from roofline_lib.fmt import format_number, format_percent, format_quantity


def _readout(explorer: Explorer) -> dict[str, str]:
    assert explorer.reading is not None
    assert explorer.readout.value == readout_html(explorer.reading)
    return dict(readout_rows(explorer.reading))


def _times(estimate: rl.RooflineEstimate) -> dict[str, str]:
    return {
        "T_math = FLOPs / peak": format_quantity(estimate.t_math_s, "s"),
        "Lower bound, max(T_math, T_comms)": format_quantity(estimate.lower_bound_s, "s"),
        "Upper bound, T_math + T_comms": format_quantity(estimate.upper_bound_s, "s"),
        "Regime": estimate.regime,
    }


def test_initial_readout_is_the_library_verdict() -> None:
    explorer = explore("TPU v5e", "bf16", "matmul", B=128, D=8192, F=8192)
    expected = rl.analyze(rl.matmul(128, 8192, 8192), "TPU v5e")
    rows = _readout(explorer)
    for label, value in _times(expected).items():
        assert rows[label] == value
    assert rows["T_comms = bytes / HBM bandwidth"] == format_quantity(expected.t_comms_s, "s")
    assert (
        rows["Arithmetic intensity"] == f"{format_number(expected.arithmetic_intensity)} FLOPs/byte"
    )
    assert explorer.chart.value, "the chart was not drawn"


def test_moving_the_batch_slider_updates_the_readout_and_the_chart() -> None:
    explorer = explore("TPU v5e", "bf16", "matmul", B=64, D=8192, F=8192)
    before, chart_before = _readout(explorer), bytes(explorer.chart.value)
    explorer.B.value = 4096
    after = _readout(explorer)
    expected = rl.analyze(rl.matmul(4096, 8192, 8192), "TPU v5e")
    assert explorer.reading is not None and explorer.reading.B == 4096
    assert before["Regime"] == "memory-bound" and after["Regime"] == "compute-bound"
    for label, value in _times(expected).items():
        assert after[label] == value
    assert after["Achievable throughput"].endswith(f"({format_percent(1.0)} of peak)")
    assert bytes(explorer.chart.value) != chart_before, "the chart did not follow the slider"


def test_changing_the_chip_uses_its_peak_and_keeps_a_valid_format() -> None:
    explorer = explore("H100 SXM", "fp32", "matmul", B=256, D=4096, F=4096)
    assert _readout(explorer)["Critical intensity (H100 SXM, fp32, HBM)"] == (
        f"{format_number(rl.critical_intensity('H100 SXM', 'fp32'))} FLOPs/byte"
    )
    explorer.chip.value = rl.get_chip("TPU v5e")  # no fp32 peak published: falls back
    assert explorer.number_format.value in ("bf16", "int8", "w8a16")
    assert [v for _, v in explorer.number_format.options] == ["bf16", "int8", "w8a16"]
    rows = _readout(explorer)
    dtype = explorer.reading.compute_dtype
    key = f"Critical intensity (TPU v5e, {dtype}, HBM)"
    assert rows[key] == f"{format_number(rl.critical_intensity('TPU v5e', dtype))} FLOPs/byte"


def test_int8_uses_the_int8_peak_and_w8a16_the_bf16_peak() -> None:
    explorer = explore("TPU v5e", "bf16", "matmul", B=128, D=8192, F=8192)
    explorer.number_format.value = "int8"
    int8 = rl.analyze(rl.matmul(128, 8192, 8192, "int8"), "TPU v5e")
    assert _readout(explorer)["T_math = FLOPs / peak"] == format_quantity(int8.t_math_s, "s")
    explorer.number_format.value = "w8a16"
    w8a16 = rl.analyze(rl.matmul(128, 8192, 8192, "w8a16"), "TPU v5e")
    rows = _readout(explorer)
    assert rows["T_comms = bytes / HBM bandwidth"] == format_quantity(w8a16.t_comms_s, "s")
    assert "bf16" in next(k for k in rows if k.startswith("Critical intensity"))


def test_the_network_operation_depends_on_D_not_on_B() -> None:
    explorer = explore("TPU v5e", "bf16", "sharded_matmul", B=1024, D=8192, F=8192)
    rows = _readout(explorer)
    expected = rl.analyze(rl.sharded_matmul(1024, 8192, 8192, 2), "TPU v5e", "ici")
    assert rows["Regime"] == expected.regime == "compute-bound"
    # Two chips share one ICI link, 50 GB/s one way: C/W = 197e12 / 50e9 = 3,940.
    assert rows["ICI, one-way per chip at N = 2"] == "50 GB/s"
    assert rows["Critical intensity (TPU v5e, bf16, ICI)"] == (
        f"{format_number(197e12 / 50e9, 4)} FLOPs/byte"
    )
    explorer.B.value = 64
    assert _readout(explorer)["Arithmetic intensity"] == rows["Arithmetic intensity"]
    # C/W = 3,940 over the link two chips share: D = 2048 gives shards of 1,024.
    explorer.D.value = 2048
    assert _readout(explorer)["Regime"] == "network-bound"


def test_vector_operations_disable_the_sliders_they_ignore() -> None:
    explorer = explore("H100 SXM", "bf16", "dot_product", D=4096)
    assert explorer.B.disabled and explorer.F.disabled and not explorer.D.disabled
    dot = rl.analyze(rl.dot_product(4096), "H100 SXM")
    assert _readout(explorer)["Lower bound, max(T_math, T_comms)"] == format_quantity(
        dot.lower_bound_s, "s"
    )
    assert "vector units" in explorer.readout.value
    explorer.op.value = "layernorm"
    assert not explorer.B.disabled and explorer.F.disabled
    norm = rl.analyze(rl.elementwise(256 * 4096, "layernorm"), "H100 SXM")
    assert _readout(explorer)["Bytes moved (HBM)"] == format_quantity(norm.bytes_moved, "B")


def test_an_invalid_setting_is_explained_not_raised() -> None:
    explorer = explore("TPU v5e", "bf16", "sharded_matmul", B=64, D=8192, F=8192)
    explorer.D.value = 101  # odd: cannot be split over two chips
    assert explorer.reading is None
    assert "Not a valid setting" in explorer.readout.value and "multiple" in explorer.readout.value
    with pytest.raises(ValueError, match="invalid"):
        explorer.figure()
    explorer.D.value = 128
    assert explorer.reading is not None


def test_snapshot_disables_every_control_and_says_how_to_go_live() -> None:
    frozen = snapshot("TPU v5e", "bf16", "matmul", B=128)
    assert all(control.disabled for control in frozen.controls)
    assert "make lab" in frozen.widget.children[0].value
    assert frozen.readout.value == readout_html(evaluate("TPU v5e", "bf16", "matmul", 128))
    bundle = frozen._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle


def test_a_user_defined_chip_without_links_gets_no_network_operation() -> None:
    chip = rl.Chip(name="My NPU", peak_flops_per_s={"bf16": 4e14}, hbm_bandwidth_bytes_per_s=1e12)
    explorer = explore(chip, "bf16", "matmul", B=512)
    assert "sharded_matmul" not in [v for _, v in explorer.op.options]
    assert _readout(explorer)["Critical intensity (My NPU, bf16, HBM)"] == "400 FLOPs/byte"
    with pytest.raises(ValueError, match="no network link"):
        evaluate(chip, "bf16", "sharded_matmul")


@pytest.mark.parametrize("op", sorted(OPERATIONS))
@pytest.mark.parametrize("number_format", sorted(NUMBER_FORMATS))
def test_every_operation_and_format_is_evaluated_on_a_gpu_and_a_tpu(
    op: str, number_format: str
) -> None:
    for chip in ("H100 SXM", "TPU v5e"):
        if number_format == "fp32" and chip == "TPU v5e":
            continue  # no published fp32 peak
        reading = evaluate(chip, number_format, op, B=256, D=2048, F=2048)
        assert reading.estimate.regime in ("compute-bound", "memory-bound", "network-bound")


def test_evaluate_names_the_allowed_values() -> None:
    with pytest.raises(ValueError, match="allowed: 'matmul'"):
        evaluate("TPU v5e", "bf16", "conv2d")
    with pytest.raises(ValueError, match="allowed: 'bf16'"):
        evaluate("TPU v5e", "fp4", "matmul")


def test_the_readout_counts_flops_with_an_si_prefix_as_it_does_bytes_and_times() -> None:
    """One number format for every row (issue 29): a reviewer read "8,390,000" FLOPs beside
    rows in × 10ⁿ; every count, time and rate now carries a prefix on its unit."""
    rows = dict(readout_rows(evaluate("TPU v5e", "bf16", "matmul", 64, 256, 256)))
    assert rows["FLOPs"] == "8.39 MFLOP"
    for B in (1, 1024, 2**20):
        for op in OPERATIONS:
            values = [value for _, value in readout_rows(evaluate("H100 SXM", "bf16", op, B))]
            assert not any("× 10" in value for value in values), (op, B, values)


def test_the_live_explorer_allows_exchange_at_two_chips_only_as_the_library_does() -> None:
    from roofline_lib.explorer_data import LIVE_SLIDER_EXPONENTS, allowed_chip_counts
    from roofline_lib.sharding import COLLECTIVES, collective_factor

    lo, hi, _ = LIVE_SLIDER_EXPONENTS["N"]
    every_n = [2**e for e in range(int(lo), int(hi) + 1)]
    assert allowed_chip_counts("exchange") == [2]
    for collective in COLLECTIVES:
        for n in every_n:
            if n not in allowed_chip_counts(collective):
                with pytest.raises(ValueError, match="needs n_chips = 2"):
                    collective_factor(n, collective)
    assert allowed_chip_counts("all_reduce") == every_n == allowed_chip_counts("reduce_scatter")
