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
* :data:`LLAMA2_70B_ATTENTION` — the attention heads of the LLaMA-70B the book uses.
"""

from __future__ import annotations

from dataclasses import dataclass

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
