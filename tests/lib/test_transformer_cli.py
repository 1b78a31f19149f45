"""``python -m roofline_lib.transformer``: the table, the JSON and the errors, run as a user would."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from roofline_lib import transformer as tf
from roofline_lib.transformer import cli
from roofline_lib.transformer.analysis import SCHEMA_ID

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
    assert text.startswith("Llama-3-70B on 8 x H100 SXM, tensor-parallel over NVLink 4")
    for section in ("prefill:", "decode:"):
        assert section in text
    for op in ("qkv projection", "attention", "output projection", "mlp up", "mlp down"):
        assert len(re.findall(rf"^{op} +\d+ ", text, re.M)) == 2  # one row in each table
    # three named times, each pass and overall; only the bound is a "≥"
    assert len(re.findall(r"^  roofline bound +>= ", text, re.M)) == 2
    assert len(re.findall(r"^  per-op estimate +\d", text, re.M)) == 2
    assert len(re.findall(r"^  upper bound +\d", text, re.M)) == 2
    assert "time to first token  >= 2.31 s (bound); 3.43 s per-op estimate" in text
    assert "inter-token latency  >= 8.39 ms (bound); 8.82 ms per-op estimate" in text
    # scope said, never "(per chip)" on a group's figure
    assert "decode throughput, all 8 chips: <= 7.63 ktokens/s (bound)" in text
    assert "per chip <= 953 tokens/s" in text
    assert "whole model: 70.6 G parameters" in text and "largest batch" in text

    data = json.loads(out.read_text())
    assert data["schema"] == SCHEMA_ID
    est = tf.estimate_inference(
        "llama-3-70b", "H100 SXM", batch=64, context=4096, prompt=2048, n_chips=8, link="nvlink4"
    )
    assert data["model"]["params"] == 70_553_706_496
    assert data["model"]["kv_cache_bytes_per_token"] == 327_680
    assert data["group"]["itl"]["bound_s"] == pytest.approx(est.itl.bound_s)
    assert data["group"]["ttft"]["estimate_s"] == pytest.approx(est.ttft.estimate_s)
    assert data["decode"]["times"]["bound_s"] == pytest.approx(est.itl.bound_s)
    assert data["prefill"]["per_chip"]["flops"] == pytest.approx(est.prefill.flops)
    assert data["decode"]["regime"] == "memory-bound"
    assert data["per_chip"]["fits_in_hbm"] is True
    assert data["group"]["max_batch"] == est.max_batch
    rates = data["group"]["decode_tokens_per_s"]
    assert rates["most"] == pytest.approx(64 / est.itl.bound_s)
    assert data["decode"]["tokens_per_s"]["per_chip"]["most"] == pytest.approx(rates["most"] / 8)
    assert "per_chip" not in data["model"] and "tokens_per_s" not in data["per_chip"]


def test_the_json_follows_its_schema_for_every_shipped_model(tmp_path: Path, capsys) -> None:
    """The schema (estimate.schema.json) validates what the command writes, for every shipped
    model, on one chip (no link: nulls) and on eight; and it refuses a document missing a
    scope, so a figure cannot lose the section that says whose it is."""
    schema = tf.json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for key in tf.model_names():
        for chips in ("1", "8"):
            out = tmp_path / f"{key}-{chips}.json"
            args = ["--model", key, "--chip", "H100 SXM", "--chips", chips, "--json", str(out)]
            assert cli.main(args) == 0
            data = json.loads(out.read_text())
            errors = [e.message for e in validator.iter_errors(data)]
            assert errors == [], (key, chips, errors)
            if chips == "1":
                assert data["hardware"]["link"] is None
                assert data["hardware"]["link_one_way_bytes_per_s"] is None
    broken = dict(data)
    broken["per_chip"] = {**broken["per_chip"], "tokens_per_s": 1.0}
    assert not validator.is_valid(broken)
    del broken["group"]
    assert not validator.is_valid(broken)


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


def test_two_mi300x_report_the_one_link_they_share(tmp_path: Path, capsys) -> None:
    """Two MI300Xs share one Infinity Fabric link, 64 GB/s one way; eight drive seven, 448 GB/s:
    the command states the figure its all-reduces are timed at, for its N. One decode token of
    Llama-3-8B (D = 4,096, bf16): each all-reduce sends 2(N−1)/N · 4,096 · 2 bytes per chip."""
    for chips, shown, figure in (("2", "64 GB/s", 64e9), ("8", "448 GB/s", 448e9)):
        out = tmp_path / f"mi300x-{chips}.json"
        args = ["--model", "llama-3-8b", "--chip", "MI300X", "--chips", chips, "--json", str(out)]
        assert cli.main(args) == 0
        assert f"({shown} one-way per chip at N = {chips})" in capsys.readouterr().out
        data = json.loads(out.read_text())
        assert data["hardware"]["link_one_way_bytes_per_s"] == figure
        n = int(chips)
        sent = 2 * (n - 1) / n * 4096 * 2
        op = next(o for o in data["decode"]["operations"] if o["name"] == "mlp down")
        assert op["network_bytes"] == pytest.approx(sent)
        assert op["t_network_s"] == pytest.approx(sent / figure)
