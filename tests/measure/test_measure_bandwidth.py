"""The STREAM triad: computes a = b + s·c, sizes its arrays from the cache, counts 24 bytes."""

from __future__ import annotations

import numpy as np
import pytest

from roofline_lib.measure.backends import select_backend
from roofline_lib.measure.bandwidth import (
    TRIAD_SCALAR,
    NumpyTriad,
    triad_block,
    triad_elements,
    triad_size,
)

pytestmark = pytest.mark.xdist_group("measure")


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_blocked_threaded_triad_computes_b_plus_s_times_c(threads: int) -> None:
    triad = NumpyTriad(elements=100_003, threads=threads, block=2**14)  # ragged last block
    a, b, c = triad.arrays
    b[:] = np.arange(a.size)
    c[:] = 0.5
    triad()
    np.testing.assert_array_equal(a, np.arange(a.size) + TRIAD_SCALAR * 0.5)
    triad.close()


def test_arrays_hold_four_times_the_cache() -> None:
    n, capped = triad_elements(32 * 2**20, available_memory_bytes=None, multiple_of=2**18)
    assert not capped
    assert n * 8 >= 4 * 32 * 2**20
    assert n % 2**18 == 0


def test_arrays_shrink_to_a_quarter_of_the_available_memory() -> None:
    n, capped = triad_elements(1 << 30, available_memory_bytes=8 << 30, multiple_of=1024)
    assert capped
    assert 3 * 8 * n <= 0.25 * (8 << 30)


def test_blocks_of_three_arrays_fit_half_the_cache_per_thread() -> None:
    block = triad_block(32 * 2**20, threads=2)
    assert 3 * 8 * 2 * block <= 16 * 2**20
    assert block & (block - 1) == 0  # a power of two
    assert triad_block(1024, threads=64) == 2**14  # never below 16 Ki elements


def test_a_triad_size_given_is_used_as_is_and_none_sizes_from_the_cache() -> None:
    assert triad_size(1000, 32 * 2**20, None, multiple_of=2**18) == 1000
    assert (
        triad_size(None, 32 * 2**20, None, multiple_of=2**18)
        == triad_elements(32 * 2**20, None, multiple_of=2**18)[0]
    )
    for bad in (0, -5, 2.5):
        with pytest.raises(ValueError, match=r"elements must be a positive integer"):
            triad_size(bad, 32 * 2**20, None)  # type: ignore[arg-type]


def test_numpy_backend_triad_runs_on_the_elements_asked() -> None:
    backend = select_backend("numpy")
    triad = backend.triad(5_000)
    try:
        assert triad.elements == 5_000
        triad()  # arrays first touched as a = 0, b = 1, c = 2
        np.testing.assert_array_equal(triad.arrays[0], np.full(5_000, 1.0 + TRIAD_SCALAR * 2.0))
    finally:
        triad.close()
    with pytest.raises(ValueError, match="elements must be a positive integer, got 0"):
        backend.triad(0)


def test_torch_backend_triad_runs_on_the_elements_asked() -> None:
    torch = pytest.importorskip("torch", reason="torch is optional; the torch backend needs it")
    triad = select_backend("torch", device="cpu").triad(4_096)
    try:
        assert triad.elements == 4_096
        triad()
        expected = torch.full((4_096,), 1.0 + TRIAD_SCALAR * 2.0, dtype=torch.float64)
        assert torch.equal(triad.arrays[0], expected)
    finally:
        triad.close()
