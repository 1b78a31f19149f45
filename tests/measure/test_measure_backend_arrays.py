"""A backend makes new arrays on its device and waits for it through public methods, so code that
times its own loops (tools/bench_measure.py) needs none of a backend's private attributes."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from roofline_lib import UnknownNameError
from roofline_lib.measure import select_backend

pytestmark = pytest.mark.xdist_group("measure")

ROOT = Path(__file__).resolve().parents[2]


def test_numpy_new_array_is_normal_or_filled_in_the_dtype_asked() -> None:
    backend = select_backend("numpy")
    x = backend.new_array((64, 32), "fp32")
    assert isinstance(x, np.ndarray) and x.shape == (64, 32) and x.dtype == np.float32
    assert abs(float(x.mean())) < 0.5 and 0.5 < float(x.std()) < 1.5  # standard normal
    y = backend.new_array((10,), "fp64", 2.0)
    assert y.dtype == np.float64
    np.testing.assert_array_equal(y, np.full(10, 2.0))
    assert backend.new_array((3,), "fp32") is not backend.new_array((3,), "fp32")


def test_numpy_new_array_refuses_a_dtype_numpy_has_not() -> None:
    with pytest.raises(UnknownNameError, match=r"dtype 'bf16'.*'fp32', 'fp64'"):
        select_backend("numpy").new_array((4,), "bf16")


def test_numpy_synchronize_returns_at_once() -> None:
    assert select_backend("numpy").synchronize() is None


def test_torch_new_array_on_the_cpu() -> None:
    torch = pytest.importorskip("torch", reason="torch is optional; the torch backend needs it")
    backend = select_backend("torch", device="cpu")
    x = backend.new_array((8, 4), "bf16")
    assert x.dtype == torch.bfloat16 and tuple(x.shape) == (8, 4) and x.device.type == "cpu"
    assert float(backend.new_array((5,), "fp64", 1.5).sum()) == pytest.approx(7.5)
    backend.synchronize()
    with pytest.raises(UnknownNameError, match="dtype 'int8'"):
        backend.new_array((4,), "int8")


def test_the_bench_reads_no_private_attribute_of_a_backend() -> None:
    tree = ast.parse((ROOT / "tools" / "bench_measure.py").read_text())
    private = [
        f"line {node.lineno}: .{node.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr.startswith("_")
        and not node.attr.startswith("__")
    ]
    assert private == []
