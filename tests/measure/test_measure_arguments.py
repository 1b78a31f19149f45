"""Bad arguments raise ValueError naming the parameter and what is allowed; backends are picked
by name or automatically, and torch is never needed."""

from __future__ import annotations

import sys

import pytest

from roofline_lib.measure import BackendUnavailableError, measure, select_backend

pytestmark = pytest.mark.xdist_group("measure")


def test_unknown_backend_names_the_allowed_ones() -> None:
    with pytest.raises(ValueError, match=r"backend 'tpu'.*'auto', 'numpy', 'torch'"):
        measure(backend="tpu")


@pytest.mark.parametrize("budget_s", [0.5, 0, -3, float("nan"), float("inf"), "20", True])
def test_bad_budget_names_budget_s(budget_s: object) -> None:
    with pytest.raises(ValueError, match="budget_s"):
        measure(budget_s=budget_s)  # type: ignore[arg-type]


@pytest.mark.parametrize("dtype", ["fp16", "int8"])
def test_numpy_refuses_dtypes_it_would_measure_without_blas(dtype: str) -> None:
    with pytest.raises(ValueError, match=rf"dtype '{dtype}'.*BLAS.*'fp32', 'fp64'"):
        measure(backend="numpy", dtype=dtype)


@pytest.mark.parametrize("dtype", ["bf16", "fp8", "int4"])
def test_numpy_refuses_dtypes_it_does_not_have(dtype: str) -> None:
    with pytest.raises(ValueError, match=rf"dtype '{dtype}'.*numpy has no"):
        measure(backend="numpy", dtype=dtype)


def test_unknown_dtype_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"dtype 'float32'.*'fp32'"):
        measure(backend="numpy", dtype="float32")


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"D": 0}, "D"),
        ({"D": 2.5}, "D"),
        ({"F": -1}, "F"),
        ({"batches": []}, "batches"),
        ({"batches": [1, 0]}, "batches"),
        ({"batches": "1,2"}, "batches"),
        ({"threads": 0}, "threads"),
        ({"progress": "yes"}, "progress"),
        ({"device": "cuda"}, "device"),
    ],
)
def test_bad_arguments_name_the_parameter(kwargs: dict, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        measure(backend="numpy", **kwargs)


def test_auto_without_a_gpu_picks_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    from roofline_lib.measure import backends

    monkeypatch.setattr(backends, "torch_gpu_available", lambda: False)
    assert select_backend("auto").name == "numpy"


def test_torch_backend_without_torch_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch now fails, installed or not
    with pytest.raises(BackendUnavailableError, match="PyTorch"):
        select_backend("torch")
    assert select_backend("auto").name == "numpy"


def test_numpy_backend_never_imports_torch() -> None:
    import subprocess

    code = (
        "import sys; from roofline_lib.measure import select_backend; "
        "b = select_backend('numpy'); b.machine(); print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_import_roofline_lib_does_not_import_measurement() -> None:
    import subprocess

    code = (
        "import sys, roofline_lib; "
        "print(any(m.startswith('roofline_lib.measure') for m in sys.modules), 'torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
