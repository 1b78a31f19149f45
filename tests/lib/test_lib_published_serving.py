"""Published serving measurements (issue 25, item 6): each value agrees with the sentence it is
quoted from, in SI units, on chips and a model shape the catalog has; and the comparison with the
roofline bound is the bound the module docstring states."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest

from roofline_lib import published
from roofline_lib.hardware import get_chip
from roofline_lib.published import REPORTED_SERVING, ReportedServing, Scenario
from roofline_lib.serving_check import (
    compare,
    compare_all,
    roofline_workload,
    served_dtypes,
    served_model,
)
from roofline_lib.transformer.analysis import estimate_inference
from roofline_lib.transformer.models import get_model

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
    served_dtypes(r).check_on(chip)  # fp8 exists on an H100
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
        ("ttft_latency (ns): 2000000000", "ttft_limit_s", 2.0),
        ("tpot_latency (ns): 200000000", "itl_limit_s", 0.2),
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
        assert f"max_input_len = {r.input_tokens_max}" in setup
    else:
        assert f"| {r.batch} | {r.tensor_parallel} |" in r.citation.quote
        assert "--enable_fp8 --fp8_kv_cache" in setup
        assert r.n_chips == r.tensor_parallel  # the tables are per engine
    assert (r.weights_dtype, r.activations_dtype, r.kv_cache_dtype) == ("fp8", "fp8", "fp8")


def test_llama2_70b_is_llama3_70bs_shape_but_for_the_vocabulary() -> None:
    """The shape the TensorRT-LLM build command prints, against the catalog's Llama-3-70B."""
    quote = published.TRTLLM_H100_STATIC_2048.setup[0].quote
    printed = {k: int(v) for k, v in re.findall(r"--(\w+) (\d+)", quote)}
    llama2 = served_model(published.TRTLLM_H100_STATIC_2048)
    assert printed == {
        "n_layer": llama2.layers,
        "n_head": llama2.heads,
        "n_kv_head": llama2.kv_heads,
        "n_embd": llama2.d_model,
        "inter_size": llama2.mlp_width,
        "vocab_size": llama2.vocab,
    }
    llama3 = get_model("llama-3-70b")
    assert llama2.vocab == 32000 != llama3.vocab
    assert replace(llama2, name=llama3.name, vocab=llama3.vocab, source=llama3.source) == llama3


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
    with pytest.raises(ValueError, match="input_tokens_max must be a positive integer"):
        replace(r, input_tokens_max=0)
    with pytest.raises(ValueError, match="scenario must be a Scenario"):
        replace(r, scenario="offline")


# -- the comparison -----------------------------------------------------------------------------


@pytest.mark.parametrize("c", compare_all(), ids=IDS)
def test_every_measurement_runs_below_its_roofline(c) -> None:
    assert c.fractions, f"{c.reported.system}: nothing to compare"
    for metric, fraction in c.fractions.items():
        assert 0 < fraction <= 1, f"{c.reported.system}: {metric} at {fraction:.3g} of the bound"


def test_the_step_bound_is_the_max_of_the_totals_not_a_sum_of_maxima() -> None:
    est = estimate_inference(
        "llama-3-70b", "H100 SXM", batch=64, context=4096, prompt=2048, n_chips=8
    )
    d = est.decode
    assert d.t_bound_s == max(d.t_math_s, d.t_hbm_compulsory_s, d.t_network_s)
    assert d.t_bound_s <= d.t_estimate_s  # Σ of per-operation maxima is never below it


def test_a_static_batch_is_bounded_at_its_own_batch_and_mean_context() -> None:
    r = published.TRTLLM_H100_STATIC_2048
    c = compare(r)
    assert (c.workload.batch, c.workload.context_tokens) == (64, 2048 + 1024)
    est = estimate_inference(
        served_model(r), "H100 SXM", batch=64, context=3072, prompt=2048, n_chips=2,
        dtypes=served_dtypes(r),
    )  # fmt: skip
    step = max(est.decode.t_math_s, est.decode.t_hbm_compulsory_s, est.decode.t_network_s)
    assert c.output_tokens_per_s_bound == pytest.approx(64 / step)
    prefill = max(est.prefill.t_math_s, est.prefill.t_hbm_compulsory_s, est.prefill.t_network_s)
    assert c.output_tokens_per_s_bound_with_prefill == pytest.approx(
        64 * 2048 / (prefill + 2048 * step)
    )
    assert c.throughput_fraction < c.throughput_fraction_with_prefill


def test_the_mean_context_keeps_the_bound_a_bound() -> None:
    """T_step is convex in S, so S_out steps at the mean context take no longer than the steps
    one by one: the bound from the mean is at least the bound from every step."""
    r = published.TRTLLM_H100_STATIC_2048
    steps = np.arange(2048, 2048 + 2048, 16)  # every 16th step, enough to see the sum
    est = estimate_inference(
        served_model(r), "H100 SXM", batch=64, context=steps, prompt=2048, n_chips=2,
        dtypes=served_dtypes(r),
    )  # fmt: skip
    each = est.decode.t_bound_s
    mean = estimate_inference(
        served_model(r), "H100 SXM", batch=64, context=int(steps.mean()), prompt=2048,
        n_chips=2, dtypes=served_dtypes(r),
    )  # fmt: skip
    assert len(steps) * mean.decode.t_bound_s <= each.sum() * (1 + 1e-9)


def test_server_latencies_are_within_the_limits_the_run_had_to_meet() -> None:
    r = published.MLPERF_V41_H100_SERVER
    assert r.ttft_s < r.ttft_limit_s and r.itl_s < r.itl_limit_s  # means below the p99 limits


def test_server_batch_is_littles_law_on_the_decode_stream() -> None:
    r = published.MLPERF_V41_H100_SERVER
    w = roofline_workload(r)
    assert w.batch == round(r.output_tokens_per_s / r.replicas * r.itl_s)
    assert w.batch <= r.batch  # within the engine's limit of requests in flight
    assert "Little" in w.how
    # tokens/s = R·B/TPOT by construction, so the two fractions agree (B rounded)
    c = compare(r)
    assert c.throughput_fraction == pytest.approx(c.itl_fraction, rel=1e-3)


def test_an_unprinted_prompt_length_counts_as_zero_the_generous_choice() -> None:
    r = published.MLPERF_V41_H100_OFFLINE
    w = roofline_workload(r)
    assert w.prompt_tokens is None and w.context_tokens == round(r.output_tokens / 2)
    assert w.batch == r.batch and "generous" in w.how
    c = compare(r)
    assert c.prefill_s is None and c.prefill_regime is None and c.ttft_fraction is None
    longer = compare(replace(r, input_tokens=r.input_tokens_max))  # the longest prompt allowed
    assert longer.output_tokens_per_s_bound <= c.output_tokens_per_s_bound


def test_a_ttft_is_compared_with_the_prefill_bound() -> None:
    r = published.TRTLLM_H100_TTFT_2048
    c = compare(r)
    est = estimate_inference(
        served_model(r), "H100 SXM", batch=1, context=2048, prompt=2048, n_chips=4,
        dtypes=served_dtypes(r),
    )  # fmt: skip
    assert c.prefill_s == pytest.approx(est.prefill.t_bound_s)
    assert c.prefill_regime == est.prefill.regime == "compute-bound"  # one prompt, on the roof
    assert c.ttft_fraction == pytest.approx(c.prefill_s / 0.109)
    assert set(c.fractions) == {"time to first token"}


def test_replicas_multiply_the_bound() -> None:
    r = published.MLPERF_V41_H100_OFFLINE
    one_pair = replace(r, n_chips=2, output_tokens_per_s=r.output_tokens_per_s / 4)
    assert compare(r).output_tokens_per_s_bound == pytest.approx(
        4 * compare(one_pair).output_tokens_per_s_bound
    )
    assert compare(r).throughput_fraction == pytest.approx(compare(one_pair).throughput_fraction)


def test_a_throughput_without_batch_or_tpot_cannot_be_bounded() -> None:
    r = replace(published.MLPERF_V41_H100_OFFLINE, batch=None)
    with pytest.raises(ValueError, match="no batch, and no TPOT"):
        roofline_workload(r)


def test_scenarios_are_a_closed_set() -> None:
    assert {s.value for s in Scenario} == {"static batch", "offline", "server"}
