"""tools/bench_measure.py (run by ``make bench``) prints the peak fraction and the ratios."""

from __future__ import annotations

import pytest

from tools import bench_measure

pytestmark = pytest.mark.xdist_group("measure")


def test_bench_prints_peak_fraction_and_careful_over_naive(capsys) -> None:
    assert bench_measure.main(["--backend", "numpy", "--iters", "2", "--unrelated-flag"]) == 0
    out = capsys.readouterr().out
    assert "achieved peak / theoretical peak" in out
    assert "careful/naive" in out
    lines = [line for line in out.splitlines() if "matmul" in line or "triad" in line]
    assert len(lines) == 3
    for line in lines:
        float(line.split()[-1])  # the ratio
