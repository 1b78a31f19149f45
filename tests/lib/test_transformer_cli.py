"""``python -m roofline_lib.transformer``: the table, the JSON and the errors, run as a user would."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from roofline_lib import transformer as tf

ISSUE_COMMAND = [
    "--model",
    "llama-3-70b",
    "--chip",
    "H100 SXM",
    "--chips",
    "8",
    "--link",
    "nvlink4",
    "--batch",
    "64",
    "--context",
    "4096",
    "--prompt",
    "2048",
]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "roofline_lib.transformer", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_issues_command_prints_a_per_layer_table_and_writes_the_json(tmp_path: Path) -> None:
    out = tmp_path / "llama.json"
    done = run(*ISSUE_COMMAND, "--json", str(out))
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert text.startswith("Llama-3-70B on 8 x H100 SXM over nvlink4")
    for section in ("prefill:", "decode:"):
        assert section in text
    for op in ("qkv projection", "attention", "output projection", "mlp up", "mlp down"):
        assert len(re.findall(rf"^{op} +\d+ ", text, re.M)) == 2  # one row in each table
    assert "TTFT >=" in text and "inter-token latency >=" in text and "largest batch" in text

    data = json.loads(out.read_text())
    for key in ("params", "kv_cache_bytes_per_token", "fits_in_hbm", "max_batch"):
        assert key in data
    for phase in ("prefill", "decode"):
        for key in ("flops", "bytes", "t_math_s", "t_comms_s", "t_lower_s", "t_upper_s", "regime"):
            assert key in data[phase], (phase, key)
    est = tf.estimate_inference(
        "llama-3-70b", "H100 SXM", batch=64, context=4096, prompt=2048, n_chips=8, link="nvlink4"
    )
    assert data["params"] == 70_553_706_496
    assert data["kv_cache_bytes_per_token"] == 327_680
    assert data["decode"]["t_lower_s"] == pytest.approx(est.itl_lower_s)
    assert data["prefill"]["flops"] == pytest.approx(est.prefill.flops)
    assert data["decode"]["regime"] == "memory-bound"
    assert data["fits_in_hbm"] is True and data["max_batch"] == est.max_batch


@pytest.mark.parametrize(
    "args, words",
    [
        (["--model", "gpt-5", "--chip", "H100 SXM"], ["--model", "llama-3-70b", "mixtral-8x7b"]),
        (["--model", "llama-3-8b", "--chip", "H1000"], ["--chip", "H100 SXM", "TPU v5e"]),
        (["--model", "llama-3-8b", "--chip", "H100 SXM", "--link", "carrier-pigeon"], ["nvlink4"]),
        (["--model", "llama-3-8b", "--chip", "H100 SXM", "--link", "ici"], ["no link 'ici'"]),
        (["--model", "llama-3-8b", "--chip", "H100 SXM", "--weights", "fp4"], ["no fp4", "fp8"]),
        (["--model", "llama-3-70b", "--chip", "H100 SXM", "--chips", "3"], ["64 query heads"]),
        (["--model", "llama-3-8b", "--chip", "H100 SXM", "--batch", "0"], ["batch must be"]),
    ],
    ids=["model", "chip", "link", "link-of-chip", "dtype", "chips", "batch"],
)
def test_bad_arguments_exit_2_naming_the_allowed_values(args: list[str], words: list[str]) -> None:
    done = run(*args)
    assert done.returncode == 2
    for word in words:
        assert word in done.stderr
