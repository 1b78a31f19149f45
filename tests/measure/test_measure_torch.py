"""The torch backend: skipped cleanly when torch is absent; on the CPU when asked explicitly;
on a GPU when one is present."""

from __future__ import annotations

import numpy as np
import pytest

import roofline_lib
from roofline_lib.measure import BackendUnavailableError, measure, select_backend

torch = pytest.importorskip("torch", reason="torch is optional; the torch backend needs it")

pytestmark = pytest.mark.xdist_group("measure")

needs_gpu = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU here")


def test_torch_on_the_cpu_measures_when_asked_explicitly() -> None:
    result = measure(
        backend="torch", device="cpu", budget_s=4.0, D=512, batches=(1, 16, 256), threads=2
    )
    assert result.backend == "torch"
    assert result.machine.device == "cpu"
    assert result.dtype == "fp32"
    assert set(result.peaks) == {"fp32", "fp64"}
    assert result.peak.flops_per_s > 0 and result.bandwidth.bytes_per_s > 0
    assert "torch" in result.machine.describe()
    cost = roofline_lib.matmul(np.array([p.batch for p in result.sweep]), 512, 512, "fp32")
    np.testing.assert_array_equal([p.intensity for p in result.sweep], cost.arithmetic_intensity)
    assert result.bandwidth.bytes_counted == 24 * result.bandwidth.elements
    for dtype, theory in result.theoretical_peaks.items():
        assert result.peaks[dtype].flops_per_s < theory.flops_per_s


def test_torch_refuses_dtypes_it_does_not_measure_on_the_cpu() -> None:
    with pytest.raises(ValueError, match=r"dtype 'int8'.*allowed: 'fp32', 'fp64', 'bf16'"):
        measure(backend="torch", device="cpu", dtype="int8")


def test_torch_rejects_bad_devices() -> None:
    with pytest.raises(ValueError, match="device"):
        select_backend("torch", device="tpu")


@pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is present")
def test_torch_without_a_gpu_asks_for_device_cpu() -> None:
    with pytest.raises(BackendUnavailableError, match="device='cpu'"):
        select_backend("torch")
    assert select_backend("auto").name == "numpy"


@needs_gpu
def test_auto_picks_torch_on_a_gpu() -> None:
    backend = select_backend("auto")
    assert backend.name == "torch" and backend.device.startswith("cuda")


@needs_gpu
def test_gpu_sweep_is_bf16_and_synchronised() -> None:
    result = measure(backend="torch", budget_s=10.0)
    assert result.dtype == "bf16"
    assert result.machine.gpu is not None
    assert result.peak.timing.timer == "cuda events"
    assert result.D == 8192
    cost = roofline_lib.matmul(np.array([p.batch for p in result.sweep]), 8192, 8192, "bf16")
    np.testing.assert_array_equal([p.intensity for p in result.sweep], cost.arithmetic_intensity)
    if result.theoretical_peak_flops_per_s is not None:
        assert result.peak.flops_per_s < result.theoretical_peak_flops_per_s
