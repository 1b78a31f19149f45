"""``python -m roofline_lib.measure`` with its default budget: the table, the progress bar,
--json and --plot, within the 20-second contract."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from roofline_lib.measure import MeasuredRoofline

from .conftest import budget_slack_s

pytestmark = pytest.mark.xdist_group("measure")

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_BUDGET_S = 20.0
PYTHON_START_S = 3.0
"""Interpreter, numpy and matplotlib start-up, outside measure()'s budget."""


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("cli")
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "roofline_lib.measure",
            "--json",
            str(out / "m.json"),
            "--plot",
            str(out / "m.png"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    return proc, time.perf_counter() - start, out


def test_default_run_respects_the_20_second_budget(cli_run) -> None:
    proc, wall_s, _ = cli_run
    assert proc.returncode == 0, proc.stderr
    limit = DEFAULT_BUDGET_S + budget_slack_s(DEFAULT_BUDGET_S) + PYTHON_START_S
    assert wall_s <= limit


def test_prints_peak_bandwidth_critical_intensity_and_the_sweep(cli_run) -> None:
    proc, _, _ = cli_run
    out = proc.stdout
    for text in ("peak fp32", "peak fp64", "bandwidth", "critical intensity", "FLOPs/byte"):
        assert text in out
    header = next(line for line in out.splitlines() if line.strip().startswith("B "))
    for column in ("predicted", "achieved", "efficiency"):
        assert column in header
    assert "GFLOP/s" in out and "GB/s" in out


def test_progress_bar_goes_to_stderr(cli_run) -> None:
    proc, _, _ = cli_run
    assert "%" in proc.stderr and "sweep B=1" in proc.stderr
    assert "sweep B=" not in proc.stdout


def test_json_file_is_a_measured_roofline(cli_run) -> None:
    _, _, out = cli_run
    result = MeasuredRoofline.from_json(out / "m.json")
    assert result.budget_s == DEFAULT_BUDGET_S
    assert result.sweep


def test_plot_is_a_real_png(cli_run) -> None:
    from matplotlib import image

    _, _, out = cli_run
    data = (out / "m.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pixels = image.imread(out / "m.png")
    assert pixels.shape[0] > 300 and pixels.shape[1] > 500
    assert pixels.std() > 0.05  # not a blank canvas


def test_bad_backend_is_refused_by_the_command_line() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "roofline_lib.measure", "--backend", "tpu"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 2
    assert "--backend" in proc.stderr and "numpy" in proc.stderr


def test_bad_dtype_is_an_error_message_not_a_traceback() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "roofline_lib.measure", "--backend", "numpy", "--dtype", "int8"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: dtype 'int8'")
    assert "Traceback" not in proc.stderr
