"""Published serving measurements (issue 25, item 6): each value agrees with the sentence it is
quoted from, in SI units, on chips and a model shape the catalog has."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from roofline_lib import published
from roofline_lib.hardware import get_chip
from roofline_lib.published import REPORTED_SERVING, ReportedServing
from roofline_lib.transformer.models import get_model
from roofline_lib.transformer.operations import InferenceDtypes

IDS = [r.system for r in REPORTED_SERVING]
PINNED = re.compile(r"https://github\.com/[^/]+/[^/]+/blob/[0-9a-f]{40}/")


def _all_citations(r: ReportedServing):
    return (r.citation, *r.setup)


# -- the data -----------------------------------------------------------------------------------


def test_there_are_two_to_four_measurements() -> None:
    assert 2 <= len(REPORTED_SERVING) <= 4


@pytest.mark.parametrize("r", REPORTED_SERVING, ids=IDS)
def test_chip_model_and_dtypes_are_in_the_catalog(r: ReportedServing) -> None:
    chip = get_chip(r.chip)
    get_model(r.model_key)
    InferenceDtypes(r.weights_dtype, r.activations_dtype, r.kv_cache_dtype).check_on(chip)
    assert r.n_chips % r.tensor_parallel == 0


@pytest.mark.parametrize("r", REPORTED_SERVING, ids=IDS)
def test_every_source_is_a_pinned_github_permalink_checked_on_a_date(r: ReportedServing) -> None:
    for c in _all_citations(r):
        assert PINNED.match(c.url), f"{r.system}: {c.url} is not a commit permalink"
        assert c.quote.strip() and c.verified


@pytest.mark.parametrize("r", REPORTED_SERVING, ids=IDS)
def test_a_measurement_states_a_throughput_or_a_latency(r: ReportedServing) -> None:
    assert any(x is not None for x in (r.output_tokens_per_s, r.ttft_s, r.itl_s))


# What each quote prints, and the stored SI value it becomes.
QUOTED = {
    published.MLPERF_V41_H100_OFFLINE.system: [
        ("Tokens per second: 24524.9", "output_tokens_per_s", 24524.9),
    ],
    published.MLPERF_V41_H100_SERVER.system: [
        ("Completed tokens per second: 21605.79", "output_tokens_per_s", 21605.79),
        ("Mean First Token latency (ns)               : 275926440", "ttft_s", 0.275926440),
        ("Mean Time to Output Token (ns)               : 154960329", "itl_s", 0.154960329),
    ],
    published.TRTLLM_H100_STATIC_2048.system: [
        # 547 tokens/s per GPU, 2 GPUs
        ("| LLaMA 70B | 64 | 2 | 2048 | 2048 | 547 |", "output_tokens_per_s", 547 * 2),
    ],
    published.TRTLLM_H100_TTFT_2048.system: [
        ("| LLaMA 70B | 1 | 4 | 2048 | 109 |", "ttft_s", 0.109),
    ],
}


@pytest.mark.parametrize("r", REPORTED_SERVING, ids=IDS)
def test_each_value_is_the_quoted_figure_in_si_units(r: ReportedServing) -> None:
    for text, field, value in QUOTED[r.system]:
        assert text in r.citation.quote, f"{r.system}: the quote does not print {text!r}"
        assert getattr(r, field) == pytest.approx(value, rel=1e-12), f"{r.system}: {field}"


@pytest.mark.parametrize(
    "r",
    [published.MLPERF_V41_H100_OFFLINE, published.MLPERF_V41_H100_SERVER],
    ids=["offline", "server"],
)
def test_mlperf_output_per_request_is_tokens_over_samples(r: ReportedServing) -> None:
    """Loadgen prints samples/s and tokens/s; their ratio is the mean output per request."""
    samples = re.search(r"samples per second\s*: ([\d.]+)", r.citation.quote, re.IGNORECASE)
    tokens = re.search(r"tokens per second: ([\d.]+)", r.citation.quote, re.IGNORECASE)
    assert samples and tokens, f"{r.system}: the quote prints samples/s and tokens/s"
    assert r.output_tokens == pytest.approx(float(tokens.group(1)) / float(samples.group(1)))
    assert 280 < r.output_tokens < 300  # the reference's 294.45 tokens per sample, within 5%


@pytest.mark.parametrize("r", REPORTED_SERVING, ids=IDS)
def test_parallelism_batch_and_dtypes_are_the_setups(r: ReportedServing) -> None:
    setup = " ".join(c.quote for c in _all_citations(r))
    if r.system.startswith("MLPerf"):
        assert f"tensor_parallelism = {r.tensor_parallel}" in setup
        assert f"gpu_batch_size = {{'llama2-70b': {r.batch}}}" in setup
        assert "use_fp8 = True" in setup and "--kv_cache_dtype fp8" in setup
        assert f'"accelerators_per_node": {r.n_chips}' in setup
        assert "max_input_len = 1024" in setup
    else:
        assert f"| {r.batch} | {r.tensor_parallel} |" in r.citation.quote
        assert "--enable_fp8 --fp8_kv_cache" in setup
        assert r.n_chips == r.tensor_parallel  # the tables are per engine
    assert (r.weights_dtype, r.activations_dtype, r.kv_cache_dtype) == ("fp8", "fp8", "fp8")


def test_a_bad_measurement_names_what_is_wrong() -> None:
    r = published.TRTLLM_H100_STATIC_2048
    with pytest.raises(ValueError, match="tensor_parallel \\(3\\) must divide n_chips"):
        replace(r, tensor_parallel=3)
    with pytest.raises(ValueError, match="at least one measured figure"):
        replace(r, output_tokens_per_s=None)
    with pytest.raises(ValueError, match="itl_s must be positive"):
        replace(r, itl_s=-0.1)
    with pytest.raises(ValueError, match="static batch needs its batch size"):
        replace(r, batch=None)
    with pytest.raises(ValueError, match="scenario must be a Scenario"):
        replace(r, scenario="offline")
