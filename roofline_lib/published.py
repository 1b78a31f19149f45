"""Figures the book quotes from published papers and from the original, each cited.

These are reported results and stated rules of thumb, not hardware specifications (those live in
:mod:`roofline_lib.hardware`) and not the sources' rounded arithmetic (:mod:`roofline_lib.chapter`).
Every page that states one glues it from here, so that "a good MFU" means the same thing on every
page.

* :data:`ORIGINAL` — the one version of the original that the book quotes and links to
  (:data:`ORIGINAL_COMMIT`);
* :data:`REPORTED_MFU` — model FLOPs utilisation of published large training runs;
* :data:`ACHIEVABLE_MATMUL_FRACTION` — the share of the claimed peak that matmuls reach in practice,
  as the original states it;
* :data:`TPU_V5P_VPU_FLOPS_PER_S_PER_CORE` — the vector unit's peak behind the original's VPU roof;
* :data:`LLAMA2_70B_ATTENTION` — the attention heads of the LLaMA-70B the book uses;
* :data:`REPORTED_SERVING` — published measurements of a 70B Llama served on H100s (MLPerf
  Inference, TensorRT-LLM's performance tables), which :mod:`roofline_lib.serving_check` sets
  beside the roofline bound of the same workload.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._compat import StrEnum
from .hardware.types import Citation, Source

ORIGINAL_REPOSITORY = "jax-ml/scaling-book"
"""The original's source repository on GitHub."""
ORIGINAL_COMMIT = "0296c23df30bd34055ee1f02ae1d8c73699109dc"
"""The commit of jax-ml/scaling-book whose ``roofline.md`` the book quotes and links to.

Every quotation of the original on pages 1, 2, 4 and 8 is in this version; several are not in the
earlier :data:`ORIGINAL_EARLIER_COMMIT` (the footnote on 80–85% of the peak, the one on the
critical batch being per copy of the weights). The web page (jax-ml.github.io/scaling-book) is
revised without notice, so the book links to this commit's file, not to the page."""
ORIGINAL_URL = f"https://github.com/{ORIGINAL_REPOSITORY}/blob/{ORIGINAL_COMMIT}/roofline.md"
"""``roofline.md`` at :data:`ORIGINAL_COMMIT`: the link every "(source)" of the original uses."""
ORIGINAL_EARLIER_COMMIT = "0819a7d8c55ddc113f5cba0285a5f97380cac1e3"
"""An earlier commit (18 February 2025) the book used to quote. At it the original still printed
the H100's critical intensity as "1e15 / 3.35e12 = 298" and worked Problem 1 with 8.1e11 bytes/s
("3.94e14 / 8.1e11 = 486", "486 / 2 = 243"); at :data:`ORIGINAL_COMMIT` these read
"9.89e14 / 3.35e12 = 295" and "3.94e14 / 8.2e11 = 480", "480 / 2 = 240"."""
ORIGINAL_EARLIER_DATE = "2025-02-18"
"""The date of :data:`ORIGINAL_EARLIER_COMMIT`."""

ORIGINAL = Source(
    title='How to Scale Your Model, Part 1: "All About Rooflines" (Austin et al., 2025), '
    f"roofline.md at commit {ORIGINAL_COMMIT[:7]}",
    url=ORIGINAL_URL,
)
"""The original, as the book quotes it: :data:`ORIGINAL_URL`."""


@dataclass(frozen=True)
class ReportedMFU:
    """MFU a paper reports for one training run (fractions of the dense peak).

    Attributes:
        model: the model trained.
        hardware: the chips, as the paper states them.
        low, high: the MFU reported (equal when the paper gives one figure).
        citation: where it is reported, with the sentence that reports it.
    """

    model: str
    hardware: str
    low: float
    high: float
    citation: Citation

    def __post_init__(self) -> None:
        if not 0 < self.low <= self.high <= 1:
            raise ValueError(f"{self.model}: MFU must satisfy 0 < low <= high <= 1")


PALM_540B_MFU = ReportedMFU(
    "PaLM 540B",
    "6,144 TPU v4 chips",
    0.462,
    0.462,
    Citation(
        title="PaLM: Scaling Language Modeling with Pathways (Chowdhery et al., 2022), Appendix B",
        url="https://arxiv.org/abs/2204.02311",
        quote=(
            "the model FLOPs utilization is 45.7% without self-attention "
            "((238.3×6×540)/(275×6144)) or 46.2% with it"
        ),
        note="MFU with self-attention counted, against 275 TFLOP/s dense bf16 per TPU v4",
        verified="2026-12-01",
    ),
)

LLAMA3_405B_MFU = ReportedMFU(
    "Llama 3 405B",
    "8,192 to 16,384 H100 GPUs",
    0.38,
    0.43,
    Citation(
        title="The Llama 3 Herd of Models (Llama Team, AI @ Meta, 2024), Section 3.3.2",
        url="https://arxiv.org/abs/2407.21783",
        quote=(
            "we achieve an overall BF16 Model FLOPs Utilization (MFU; Chowdhery et al., 2023) of "
            "38-43% for the configurations shown in Table 4"
        ),
        verified="2026-12-01",
    ),
)

MEGASCALE_175B_MFU = ReportedMFU(
    "MegaScale 175B",
    "12,288 GPUs",
    0.552,
    0.552,
    Citation(
        title=(
            "MegaScale: Scaling Large Language Model Training to More Than 10,000 GPUs "
            "(Jiang et al., NSDI 2024), abstract"
        ),
        url="https://arxiv.org/abs/2402.15627",
        quote=(
            "MegaScale achieves 55.2% Model FLOPs Utilization (MFU) when training a 175B LLM "
            "model on 12,288 GPUs, improving the MFU by 1.34x compared to Megatron-LM"
        ),
        note=(
            "a GPT-3-sized model with the paper's own changes to the block (parallel attention "
            "and MLP, sliding-window attention) and optimizer (LAMB); NVIDIA Ampere GPUs"
        ),
        verified="2026-12-04",
    ),
)

REPORTED_MFU: tuple[ReportedMFU, ...] = (LLAMA3_405B_MFU, PALM_540B_MFU, MEGASCALE_175B_MFU)
"""Published large training runs, lowest MFU first: where a real run lands. Three runs of three
groups on three kinds of chips, not a bound: a run can do worse, and a better one can be
published tomorrow."""

REPORTED_MFU_LOW = min(r.low for r in REPORTED_MFU)
"""Lowest MFU among :data:`REPORTED_MFU` (0.38, Llama 3 405B)."""
REPORTED_MFU_HIGH = max(r.high for r in REPORTED_MFU)
"""Highest MFU among :data:`REPORTED_MFU` (0.552, MegaScale)."""


@dataclass(frozen=True)
class AchievableFraction:
    """The share of the claimed peak FLOP/s that matmuls reach in normal use (a rule of thumb)."""

    chips: str
    low: float
    high: float
    citation: Citation


_ACHIEVABLE_QUOTE = (
    "H100s and B200s can usually only achieve around 80-85% of the claimed peak FLOPs, while "
    "TPUs can get closer to 95% in normal use."
)
ACHIEVABLE_MATMUL_FRACTION = {
    "gpu": AchievableFraction(
        "H100, B200",
        0.80,
        0.85,
        Citation(**ORIGINAL, quote=_ACHIEVABLE_QUOTE, note="footnote", verified="2026-12-04"),
    ),
    "tpu": AchievableFraction(
        "TPUs",
        0.95,
        0.95,
        Citation(**ORIGINAL, quote=_ACHIEVABLE_QUOTE, note="footnote", verified="2026-12-04"),
    ),
}
"""The original's footnote on how close real matmuls come to the datasheet peak."""

TPU_V5P_VPU_FLOPS_PER_S_PER_CORE = 7e12
"""Peak FLOP/s of a TPU v5p's vector unit (VPU), per core, as the original states it."""
TPU_V5P_VPU_CITATION = Citation(
    **ORIGINAL,
    quote=(
        "a dot-product is performed on the VPU and not the MXU. The TPU v5p VPU can do roughly "
        "7e12 FLOPs / second per core, so its critical intensity is around 3"
    ),
    note="footnote to the dot-product example",
    verified="2026-12-04",
)
TPU_V5P_VPU_CRITICAL_INTENSITY_ORIGINAL = 3
"""The original's rounded critical intensity of the TPU v5p VPU ("around 3"), FLOPs/byte."""


@dataclass(frozen=True)
class AttentionHeads:
    """A model's attention shape: query heads, key/value heads and head dimension."""

    model: str
    q_heads: int
    kv_heads: int
    head_dim: int
    citation: Citation

    @property
    def group_size(self) -> int:
        """Query heads per key/value head, G = q_heads / kv_heads."""
        return self.q_heads // self.kv_heads


@dataclass(frozen=True)
class MatmulWidth:
    """One wide matmul dimension of a published model."""

    model: str
    what: str
    width: int
    citation: Citation


LLAMA3_405B_FFN = MatmulWidth(
    "Llama 3 405B",
    "MLP hidden width F (the down projection contracts over it)",
    53248,
    Citation(
        title="The Llama 3 Herd of Models (Llama Team, AI @ Meta, 2024), Table 3",
        url="https://arxiv.org/abs/2407.21783",
        quote="405B: Layers 126, Model Dimension 16,384, FFN Dimension 53,248",
        note="the 405B column of Table 3; also config.json of meta-llama/Llama-3.1-405B "
        '("hidden_size": 16384, "intermediate_size": 53248)',
        verified="2026-12-04",
    ),
)
"""The widest contracting dimension the book names: Llama 3 405B's MLP down projection, F = 53,248
(its model width D is 16,384)."""
LLAMA3_405B_D_MODEL = 16384
"""Llama 3 405B's model width D (:data:`LLAMA3_405B_FFN`'s citation)."""


LLAMA2_70B_ATTENTION = AttentionHeads(
    "LLaMA-2-70B",
    64,
    8,
    128,
    Citation(
        title="meta-llama/Llama-2-70b-hf, config.json",
        url="https://huggingface.co/meta-llama/Llama-2-70b-hf/blob/main/config.json",
        quote='"hidden_size": 8192, "num_attention_heads": 64, "num_key_value_heads": 8',
        note=(
            "head dimension 8192 / 64 = 128; grouped-query attention for the 70B model is "
            "also stated in Llama 2 (Touvron et al., 2023, arXiv:2307.09288), Table 1"
        ),
        verified="2026-12-01",
    ),
)


# -- published serving measurements -------------------------------------------------------------


class Scenario(StrEnum):
    """How the requests of a serving measurement arrived.

    * ``STATIC_BATCH``: B requests of the same input and output lengths start together and
      finish together (TensorRT-LLM's early ``gptSessionBenchmark``); B is known exactly.
    * ``OFFLINE``: every request is queued at once and the server batches them as it likes
      (MLPerf's Offline scenario); only the throughput is reported.
    * ``SERVER``: requests arrive at random (Poisson) times under latency limits (MLPerf's
      Server scenario); the throughput and the mean TTFT and time per output token are reported.
    """

    STATIC_BATCH = "static batch"
    OFFLINE = "offline"
    SERVER = "server"


@dataclass(frozen=True)
class ReportedServing:
    """One published measurement of a 70B Llama served on H100s, and the setup it ran.

    Comparable to the roofline bound of the same workload on the same chips (see
    :func:`roofline_lib.serving_check.compare`): a measured throughput to B / T_step, a measured
    time per output token to T_step, a measured TTFT to the prefill's bound. SI units throughout.

    Attributes:
        system: who measured what, e.g. ``"MLPerf Inference v4.1, NVIDIA DGX H100, Offline"``.
        model: the model as the source names it.
        model_key: the catalog shape it has (:func:`roofline_lib.transformer.models.get_model`).
        vocab: its vocabulary V as served; every other dimension is ``model_key``'s (Llama 2 70B
            is Llama-3-70B's shape with V = 32,000 instead of 128,256).
        chip: the chips' catalog name (:func:`roofline_lib.hardware.get_chip`).
        n_chips: chips in the measured system.
        tensor_parallel: chips each copy of the model is split over; ``n_chips /
            tensor_parallel`` copies (replicas) serve requests side by side.
        weights_dtype, activations_dtype, kv_cache_dtype: storage dtypes, as
            :class:`roofline_lib.transformer.operations.InferenceDtypes` names them.
        scenario: how requests arrived (:class:`Scenario`).
        input_tokens: prompt tokens per request; ``None`` where only a maximum is published
            (then in ``citation.note``).
        output_tokens: mean generated tokens per request (``None`` for a TTFT-only figure).
        batch: requests per replica: the static batch (``STATIC_BATCH``), or the engine's limit
            on requests in flight (``OFFLINE``, ``SERVER``); ``None`` if not published.
        output_tokens_per_s: generated tokens per second over the whole system.
        ttft_s: mean time to first token, s.
        itl_s: mean time per output token after the first (TPOT), s.
        citation: where the measured figures are printed (a pinned URL), with the quote.
        setup: where parallelism, dtypes and batch are stated, when that is another document.
        input_tokens_max: the longest prompt the workload allows, where only that is published.
        ttft_limit_s, itl_limit_s: the latency limits the run had to meet (MLPerf Server: at
            the 99th percentile), s.
    """

    system: str
    model: str
    model_key: str
    vocab: int
    chip: str
    n_chips: int
    tensor_parallel: int
    weights_dtype: str
    activations_dtype: str
    kv_cache_dtype: str
    scenario: Scenario
    input_tokens: int | None
    output_tokens: float | None
    batch: int | None
    output_tokens_per_s: float | None
    ttft_s: float | None
    itl_s: float | None
    citation: Citation
    setup: tuple[Citation, ...] = ()
    input_tokens_max: int | None = None
    ttft_limit_s: float | None = None
    itl_limit_s: float | None = None

    def __post_init__(self) -> None:
        for name in ("vocab", "n_chips", "tensor_parallel"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{self.system}: {name} must be a positive integer, got {value!r}")
        if self.n_chips % self.tensor_parallel:
            raise ValueError(
                f"{self.system}: tensor_parallel ({self.tensor_parallel}) must divide n_chips "
                f"({self.n_chips}): each replica holds tensor_parallel whole chips"
            )
        if not isinstance(self.scenario, Scenario):
            raise ValueError(
                f"{self.system}: scenario must be a Scenario "
                f"({', '.join(repr(s.value) for s in Scenario)}), got {self.scenario!r}"
            )
        for name in ("input_tokens", "batch", "input_tokens_max"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value < 1):
                raise ValueError(
                    f"{self.system}: {name} must be a positive integer or None, got {value!r}"
                )
        for name in (
            "output_tokens",
            "output_tokens_per_s",
            "ttft_s",
            "itl_s",
            "ttft_limit_s",
            "itl_limit_s",
        ):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise ValueError(f"{self.system}: {name} must be positive or None, got {value!r}")
        if self.output_tokens_per_s is None and self.ttft_s is None and self.itl_s is None:
            raise ValueError(
                f"{self.system}: give at least one measured figure: output_tokens_per_s, "
                "ttft_s or itl_s"
            )
        if self.scenario is Scenario.STATIC_BATCH and self.batch is None:
            raise ValueError(f"{self.system}: a static batch needs its batch size")

    @property
    def replicas(self) -> int:
        """Copies of the model serving side by side: n_chips / tensor_parallel."""
        return self.n_chips // self.tensor_parallel

    @property
    def output_tokens_per_s_per_chip(self) -> float | None:
        """output_tokens_per_s / n_chips (tokens/s per chip), or None."""
        if self.output_tokens_per_s is None:
            return None
        return self.output_tokens_per_s / self.n_chips


_CHECKED_SERVING = "2026-12-04"
# The quotes below join the source's lines with " / " (with "; " between the lines of one class in
# a config file), collapse runs of spaces (the tables pad their cells), and mark omitted text "...".

_MLPERF_V41 = "a2f5d66d17e8f75c02fd74dfe810ecca6a046696"
_MLPERF_V41_NVIDIA = (
    f"https://github.com/mlcommons/inference_results_v4.1/blob/{_MLPERF_V41}/closed/NVIDIA"
)
_MLPERF_H100_RESULTS = f"{_MLPERF_V41_NVIDIA}/results/DGX-H100_H100-SXM-80GBx8_TRT/llama2-70b-99.9"
_MLPERF_SYSTEM = Citation(
    title="MLPerf Inference v4.1 results, NVIDIA: DGX-H100_H100-SXM-80GBx8_TRT.json",
    url=f"{_MLPERF_V41_NVIDIA}/systems/DGX-H100_H100-SXM-80GBx8_TRT.json",
    quote=(
        '"accelerator_interconnect": "18x 4th Gen NVLink, 900GB/s", "accelerator_model_name": '
        '"NVIDIA H100-SXM-80GB", "accelerators_per_node": 8, "framework": "TensorRT 10.2.0, '
        'CUDA 12.4", "system_name": "NVIDIA DGX H100 (8x H100-SXM-80GB, TensorRT)"'
    ),
    verified=_CHECKED_SERVING,
)
_MLPERF_FP8 = Citation(
    title="MLPerf Inference v4.1 results, NVIDIA: code/llama2-70b/tensorrt/README.md",
    url=f"{_MLPERF_V41_NVIDIA}/code/llama2-70b/tensorrt/README.md",
    quote=(
        "python build/TRTLLM/examples/quantization/quantize.py --dtype float16 --qformat fp8 "
        "--kv_cache_dtype fp8"
    ),
    note="fp8 weights and fp8 KV cache, from NVIDIA's quantisation step for this benchmark",
    verified=_CHECKED_SERVING,
)
_MLPERF_INPUT = Citation(
    title="MLPerf Inference v4.1 results, NVIDIA: documentation/bandwidth_requirement.md",
    url=f"{_MLPERF_V41_NVIDIA}/documentation/bandwidth_requirement.md",
    quote="| Llama2 | ... | max_input_len = 1024; dtype_size = 4B |",
    note=(
        "the benchmark's prompts are at most 1,024 tokens (input_tokens_max); their mean is not "
        "printed in the results, so input_tokens is None"
    ),
    verified=_CHECKED_SERVING,
)

MLPERF_V41_H100_OFFLINE = ReportedServing(
    system="MLPerf Inference v4.1 (closed), NVIDIA DGX H100, TensorRT-LLM, Offline",
    model="Llama 2 70B (Llama-2-70b-chat-hf), 99.9% accuracy target",
    model_key="llama-3-70b",
    vocab=32000,
    chip="H100 SXM",
    n_chips=8,
    tensor_parallel=2,
    weights_dtype="fp8",
    activations_dtype="fp8",
    kv_cache_dtype="fp8",
    scenario=Scenario.OFFLINE,
    input_tokens=None,
    output_tokens=24524.9 / 84.4792,
    batch=896,
    output_tokens_per_s=24524.9,
    ttft_s=None,
    itl_s=None,
    citation=Citation(
        title=(
            "MLPerf Inference v4.1 results, NVIDIA DGX H100 (8x H100-SXM-80GB), llama2-70b-99.9 "
            "Offline: mlperf_log_summary.txt"
        ),
        url=f"{_MLPERF_H100_RESULTS}/Offline/performance/run_1/mlperf_log_summary.txt",
        quote=(
            "Scenario : Offline / Samples per second: 84.4792 / Tokens per second: 24524.9 / "
            "Result is : VALID"
        ),
        note=(
            "tokens are generated tokens (loadgen counts each response's tokens); mean output "
            "per request = 24524.9 / 84.4792 = 290.3 tokens. Prompts are at most 1,024 tokens "
            "(documentation/bandwidth_requirement.md); their mean is not printed."
        ),
        verified=_CHECKED_SERVING,
    ),
    setup=(
        Citation(
            title="MLPerf Inference v4.1 results, NVIDIA: configs/llama2-70b/Offline/__init__.py",
            url=f"{_MLPERF_V41_NVIDIA}/configs/llama2-70b/Offline/__init__.py",
            quote=(
                "class H100_SXM_80GB_TP2x1(OfflineGPUBaseConfig): system = "
                "KnownSystem.H100_SXM_80GBx2; gpu_batch_size = {'llama2-70b': 896}; use_fp8 = "
                "True; tensor_parallelism = 2 ... class H100_SXM_80GB_TP2x4(H100_SXM_80GB_TP2x2):"
                " system = KnownSystem.H100_SXM_80GBx8; offline_expected_qps = 80 ... class "
                "H100_SXM_80GB_TP2x4_HighAccuracy(H100_SXM_80GB_TP2x4): pass"
            ),
            note="four tensor-parallel pairs on the 8 GPUs, each taking up to 896 requests",
            verified=_CHECKED_SERVING,
        ),
        _MLPERF_SYSTEM,
        _MLPERF_FP8,
        _MLPERF_INPUT,
    ),
    input_tokens_max=1024,
)

MLPERF_V41_H100_SERVER = ReportedServing(
    system="MLPerf Inference v4.1 (closed), NVIDIA DGX H100, TensorRT-LLM, Server",
    model="Llama 2 70B (Llama-2-70b-chat-hf), 99.9% accuracy target",
    model_key="llama-3-70b",
    vocab=32000,
    chip="H100 SXM",
    n_chips=8,
    tensor_parallel=2,
    weights_dtype="fp8",
    activations_dtype="fp8",
    kv_cache_dtype="fp8",
    scenario=Scenario.SERVER,
    input_tokens=None,
    output_tokens=21605.79 / 74.42,
    batch=1024,
    output_tokens_per_s=21605.79,
    ttft_s=275926440e-9,
    itl_s=154960329e-9,
    citation=Citation(
        title=(
            "MLPerf Inference v4.1 results, NVIDIA DGX H100 (8x H100-SXM-80GB), llama2-70b-99.9 "
            "Server: mlperf_log_summary.txt"
        ),
        url=f"{_MLPERF_H100_RESULTS}/Server/performance/run_1/mlperf_log_summary.txt",
        quote=(
            "Scenario : Server / Completed samples per second    : 74.42 / Completed tokens per "
            "second: 21605.79 / Result is : VALID / Mean First Token latency (ns)               :"
            " 275926440 / Mean Time to Output Token (ns)               : 154960329 / "
            "ttft_latency (ns): 2000000000 / tpot_latency (ns): 200000000"
        ),
        note=(
            "latencies printed in ns: TTFT 275926440 ns = 0.276 s, time per output token "
            "154960329 ns = 0.155 s (limits: 2 s and 0.2 s at the 99th percentile); mean output "
            "per request = 21605.79 / 74.42 = 290.3 tokens"
        ),
        verified=_CHECKED_SERVING,
    ),
    setup=(
        Citation(
            title="MLPerf Inference v4.1 results, NVIDIA: configs/llama2-70b/Server/__init__.py",
            url=f"{_MLPERF_V41_NVIDIA}/configs/llama2-70b/Server/__init__.py",
            quote=(
                "class H100_SXM_80GB_TP2x1(ServerGPUBaseConfig): system = "
                "KnownSystem.H100_SXM_80GBx2; gpu_batch_size = {'llama2-70b': 1024}; use_fp8 = "
                "True; tensor_parallelism = 2; server_target_qps = 18.4 ... class "
                "H100_SXM_80GB_TP2x4(H100_SXM_80GB_TP2x2): system = KnownSystem.H100_SXM_80GBx8;"
                " server_target_qps = 75"
            ),
            note="four tensor-parallel pairs on the 8 GPUs, each taking up to 1,024 requests",
            verified=_CHECKED_SERVING,
        ),
        _MLPERF_SYSTEM,
        _MLPERF_FP8,
        _MLPERF_INPUT,
    ),
    input_tokens_max=1024,
    ttft_limit_s=2000000000e-9,
    itl_limit_s=200000000e-9,
)

_TRTLLM_PERF = Source(
    title="TensorRT-LLM, docs/source/performance.md (data of v0.6.1 and v0.5)",
    url=(
        "https://github.com/NVIDIA/TensorRT-LLM/blob/138f96d45f90b9667426f7c47297d8c06bafac73/"
        "docs/source/performance.md"
    ),
)
_TRTLLM_70B_BUILD = Citation(
    **_TRTLLM_PERF,
    quote=(
        "### Llama2-70b ... --enable_fp8 --fp8_kv_cache --strongly_typed --n_layer 80 --n_head 64"
        " --n_kv_head 8 --n_embd 8192 --inter_size 28672 --vocab_size 32000"
    ),
    note=(
        "the engine's build command: fp8 weights and fp8 KV cache; the shape of Llama 2 70B "
        "(Llama-3-70B's but for vocab_size 32000). The command says --tp_size 4 where the "
        "tables give TP 2 for some rows; the tables' TP is used."
    ),
    verified=_CHECKED_SERVING,
)

TRTLLM_H100_STATIC_2048 = ReportedServing(
    system="TensorRT-LLM v0.6.1 performance table, H100 (FP8), static batch",
    model="LLaMA 70B (Llama 2 70B)",
    model_key="llama-3-70b",
    vocab=32000,
    chip="H100 SXM",
    n_chips=2,
    tensor_parallel=2,
    weights_dtype="fp8",
    activations_dtype="fp8",
    kv_cache_dtype="fp8",
    scenario=Scenario.STATIC_BATCH,
    input_tokens=2048,
    output_tokens=2048,
    batch=64,
    output_tokens_per_s=547 * 2,
    ttft_s=None,
    itl_s=None,
    citation=Citation(
        **_TRTLLM_PERF,
        quote=(
            "### H100 GPUs (FP8) | Model | Batch Size | TP (1) | Input Length | Output Length | "
            "Throughput (out tok/s/GPU) | ... | LLaMA 70B | 64 | 2 | 2048 | 2048 | 547 |"
        ),
        note=(
            "547 generated tokens/s per GPU × 2 GPUs (TP 2) = 1,094 tokens/s; 'This data has "
            "been updated for v0.6.1'; measured with gptSessionBenchmark, which runs the batch "
            "of 64 from prefill to the last token"
        ),
        verified=_CHECKED_SERVING,
    ),
    setup=(_TRTLLM_70B_BUILD,),
)

TRTLLM_H100_TTFT_2048 = ReportedServing(
    system="TensorRT-LLM v0.5 performance table, H100 (FP8), first-token latency",
    model="LLaMA 70B (Llama 2 70B)",
    model_key="llama-3-70b",
    vocab=32000,
    chip="H100 SXM",
    n_chips=4,
    tensor_parallel=4,
    weights_dtype="fp8",
    activations_dtype="fp8",
    kv_cache_dtype="fp8",
    scenario=Scenario.STATIC_BATCH,
    input_tokens=2048,
    output_tokens=None,
    batch=1,
    output_tokens_per_s=None,
    ttft_s=109e-3,
    itl_s=None,
    citation=Citation(
        **_TRTLLM_PERF,
        quote=(
            "The following data is from TensorRT-LLM v0.5. ... ### H100 GPUs (FP8) | Model | "
            "Batch Size | TP (1) | Input Length | 1st Token Latency (ms) | ... | LLaMA 70B | 1 | 4 "
            "| 2048 | 109 |"
        ),
        note="109 ms = 0.109 s: one 2,048-token prompt, batch 1, on 4 H100s (TP 4)",
        verified=_CHECKED_SERVING,
    ),
    setup=(_TRTLLM_70B_BUILD,),
)

REPORTED_SERVING: tuple[ReportedServing, ...] = (
    MLPERF_V41_H100_OFFLINE,
    MLPERF_V41_H100_SERVER,
    TRTLLM_H100_STATIC_2048,
    TRTLLM_H100_TTFT_2048,
)
"""Published measurements of Llama 2 70B (Llama-3-70B's shape but for its vocabulary) served on
H100 SXM GPUs. Each is comparable to the roofline bound of its own workload on its own chips:
:func:`roofline_lib.serving_check.compare` builds that workload and says how the batch and the
context were chosen where the source does not print them."""
