"""tools/bench_measure.py (run by ``make bench``) prints the peak fraction and the ratios.

The test runs its ``--quick`` smoke run: the same code path on small sizes (the peak's smallest
matmul, D = 512, 8 MiB triad arrays), a second or two instead of a minute; what is printed is the
same.
"""

from __future__ import annotations

import re

import pytest

from roofline_lib.measure import select_backend
from tools import bench_measure

pytestmark = pytest.mark.xdist_group("measure")


def test_quick_bench_prints_peak_fraction_and_careful_over_naive(capsys) -> None:
    argv = ["--backend", "numpy", "--iters", "2", "--quick", "--unrelated-flag"]
    assert bench_measure.main(argv) == 0
    out = capsys.readouterr().out
    backend = select_backend("numpy")
    assert "achieved peak / theoretical peak" in out
    for dtype in backend.peak_dtypes(backend.default_dtype):
        peak = rf"^\s+{dtype}\s+[\d.]+ \w?FLOP/s( of |\s+\(no theoretical peak)"
        assert re.search(peak, out, flags=re.MULTILINE), f"no peak line for {dtype}:\n{out}"
    assert "careful/naive" in out
    rows = [line for line in out.splitlines() if "matmul" in line or "triad" in line]
    assert len(rows) == 3
    n = backend.peak_sizes[0]  # --quick leaves the peak at the smallest size
    assert f"matmul {n}×{n}·{n}×{n}" in rows[0]
    assert f"B=1, D=F={bench_measure.QUICK_DIM}" in rows[1]
    triad_mib = bench_measure.QUICK_TRIAD_ELEMENTS * 8 // 2**20
    assert rows[2].lstrip().startswith(f"triad a = b + s·c, 3 × {triad_mib} MiB")
    for row in rows:
        assert float(row.split()[-1]) > 0  # careful / naive
