"""``python -m roofline_lib.measure``: the table, the progress bar, --budget, --json and --plot.

The run is small (``--dim 512``) with a budget generous enough that even a loaded machine
measures its sweep (an idle one finishes in seconds, and the run ends early): the tests check
what the command prints and writes, never how long it took. That the budget is kept is tested
on a simulated clock (test_measure_budget.py).
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest

from roofline_lib.measure import MeasuredRoofline, measure
from roofline_lib.measure.__main__ import parser

pytestmark = pytest.mark.xdist_group("measure")

ROOT = Path(__file__).resolve().parents[2]
CLI_BUDGET_S = 10.0
"""Seconds for the small run: the peaks and the triad take their shares (2.5 s), and the sweep at
D = 512, well under a second on an idle core, has the other 7.5 s, room for a machine ten times
slower or busier (the run takes the whole budget, so a larger one only costs time)."""


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("cli")
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "roofline_lib.measure",
            "--backend",
            "numpy",
            "--dim",
            "512",
            "--budget",
            str(CLI_BUDGET_S),
            "--json",
            str(out / "m.json"),
            "--plot",
            str(out / "m.png"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=600,
    )
    return proc, out


def test_the_command_line_budget_is_measures_default() -> None:
    default_s = inspect.signature(measure).parameters["budget_s"].default
    assert parser().parse_args([]).budget == default_s
    assert f"default {default_s:g}" in parser().format_help()


def test_prints_peak_bandwidth_critical_intensity_and_the_sweep(cli_run) -> None:
    proc, _ = cli_run
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for text in ("peak fp32", "peak fp64", "bandwidth", "critical intensity", "FLOPs/byte"):
        assert text in out
    header = next(line for line in out.splitlines() if line.strip().startswith("B "))
    for column in ("predicted", "achieved", "efficiency"):
        assert column in header
    assert "GFLOP/s" in out and "GB/s" in out


def test_progress_bar_goes_to_stderr(cli_run) -> None:
    proc, _ = cli_run
    assert "%" in proc.stderr and "sweep B=1" in proc.stderr
    assert "sweep B=" not in proc.stdout


def test_json_file_is_a_measured_roofline(cli_run) -> None:
    _, out = cli_run
    result = MeasuredRoofline.from_json(out / "m.json")
    assert result.budget_s == CLI_BUDGET_S
    assert (result.D, result.F, result.backend) == (512, 512, "numpy")
    assert result.sweep and result.sweep[0].batch == 1


def test_plot_is_a_real_png(cli_run) -> None:
    from matplotlib import image

    _, out = cli_run
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
