"""The figures the course's two sources work with, and the givens of their problems.

The sources are *How to Scale Your Model*, Part 1, "All About Rooflines" (**the original**,
quoted at one commit of jax-ml/scaling-book, :data:`roofline_lib.published.ORIGINAL_COMMIT`), and
the Chinese study guide that retells it,
《Scaling Book 第 2 章：性能分析基石 — Roofline 模型》 (**the guide**). Each docstring here says
which prints a figure: "the original", "the guide", or "both sources" where they agree. (The
module and its ``*_CHAPTER`` names keep the word for the part of either source they come from.)

Both sources round vendor figures (H100 bf16 "9.89e14", TPU v6e "9.1e14" and "1.6 TB/s", TPU v5e
"8.2e11", and the guide's Problem 1 "8.1×10¹¹"); the guide adds round figures of its own for
tensor parallelism and its LLaMA-70B example. To reproduce their arithmetic exactly, the book's
errata page and the tests use these rounded chips; everywhere else the cited catalog in
:mod:`roofline_lib.hardware` is used, and the errata page lists where the two differ.
"""

from __future__ import annotations

from dataclasses import dataclass

from .hardware import H100_SXM, TPU_V5E, TPU_V6E, Chip, Link

CHAPTER_LINK_SCOPE = "one-way bytes/s over one link, as both sources state it"
"""The scope of the sources' own link figures (both state ICI one-way over one link). The
catalog's links use :data:`roofline_lib.hardware.LINK_SCOPE` (per chip, in the pattern a ring
collective uses)."""

V5E_ICI_CHAPTER_BYTES_PER_S = 4.5e10
"""Both sources' TPU v5e ICI figure, one-way over one link (the original: "Say we can copy
`4.5e10` bytes/s in each direction"; the guide: "~45 GB/s 每方向"). It is the original's own
per-link figure, not Google's: Google states 400 GB/s per chip, bidirectional, over 4 ports, which
is 5e10 one-way per port (:data:`V5E_ICI_ORIGINAL_FIRST_BYTES_PER_S`). The catalog's TPU v5e ICI
is 1e11: that 5e10 per port × the 2 ports a ring along one axis uses."""
V5E_ICI_ORIGINAL_FIRST_BYTES_PER_S = 5e10
"""The TPU v5e ICI figure of the original's first versions ("copy `5e10` bytes in each
direction", from its first commit, 0a702b6 of 2 February 2025, until 9b2c5cf of 8 February 2025
changed it to 4.5e10): Google's figure per port, one-way."""
V5E_ICI_ORIGINAL_CHANGED = "2025-02-08"
"""When the original changed its TPU v5e ICI figure from 5e10 to 4.5e10 (commit 9b2c5cf)."""

H100_CHAPTER = H100_SXM.with_figures(
    name="H100 (both sources' figures)",
    peak_flops_per_s={"bf16": 9.89e14},
    hbm_bandwidth_bytes_per_s=3.35e12,
)
"""H100 as both sources write it: 9.89e14 bf16 FLOP/s, 3.35e12 bytes/s."""

TPU_V5E_CHAPTER = TPU_V5E.with_figures(
    name="TPU v5e (both sources' figures)",
    peak_flops_per_s={"bf16": 1.97e14, "int8": 3.94e14},
    hbm_bandwidth_bytes_per_s=8.2e11,
    links={
        "ici": Link(
            "ici",
            "ICI (both sources)",
            V5E_ICI_CHAPTER_BYTES_PER_S,
            CHAPTER_LINK_SCOPE,
            ports="one ICI link between two chips, one direction",
            per_port_one_way_bytes_per_s=V5E_ICI_CHAPTER_BYTES_PER_S,
            ports_used=1,
        )
    },
)
"""TPU v5e as both sources write it: 1.97e14 bf16, 3.94e14 int8, 8.2e11 bytes/s HBM, and ICI at
4.5e10 bytes/s one-way over one link, so their two-chip example (D = 8192 split in two: network
intensity 4096 < 1.97e14 / 4.5e10 ≈ 4378) comes out network-bound, as both say (D > 8755)."""

TPU_V6E_CHAPTER = TPU_V6E.with_figures(
    name="TPU v6e (both sources' figures)",
    peak_flops_per_s={"bf16": 9.1e14},
    hbm_bandwidth_bytes_per_s=1.6e12,
)
"""TPU v6e as both sources write it: 9.1e14 bf16 FLOP/s, 1.6e12 bytes/s."""

T_V6E_ORIGINAL_S = 1.1e-3
"""The original's time for 1e12 FLOPs on a TPU v6e ("`1e12 / 9.1e14 = 1.1ms`"); the guide works
the example on an H100 only ("1e12 / 9.89e14 ≈ 1.01ms")."""
GUIDE_SMEM_CRITICAL_INTENSITY = 33
"""The guide's H100 critical intensity at shared memory, as its key points round it ("SMEM（~33）");
it states no shared-memory bandwidth. The original gives none."""

NVLINK_CHAPTER_BYTES_PER_S = 4.5e11
"""The guide's H100 NVLink figure, one-way ("~450 GB/s（双向 900 GB/s）"); the original gives
none."""
IB_CHAPTER_BYTES_PER_S = 5e10
"""The guide's InfiniBand figure per GPU, one-way ("~50 GB/s"); the original gives none."""
TP_PEAK_CHAPTER_FLOPS_PER_S = 1e15
"""The round peak the guide uses for its tensor-parallelism arithmetic (1e15 / 4.5e11 ≈ 2222)."""


@dataclass(frozen=True)
class ProblemGivens:
    """Hardware figures a problem statement gives the student (SI units)."""

    hbm_bandwidth_bytes_per_s: float
    peak_flops_per_s: float
    peak_dtype: str

    def chip(self, name: str) -> Chip:
        """The givens as a Chip, so the library's analysis functions apply to them."""
        return Chip(
            name=name,
            peak_flops_per_s={self.peak_dtype: self.peak_flops_per_s},
            hbm_bandwidth_bytes_per_s=self.hbm_bandwidth_bytes_per_s,
        )


PROBLEM_1 = ProblemGivens(
    hbm_bandwidth_bytes_per_s=8.1e11, peak_flops_per_s=3.94e14, peak_dtype="int8"
)
"""Problem 1 (int8 matmul), as the guide states it: HBM 8.1e11 bytes/s, 3.94e14 int8 OP/s.

The original stated 8.1e11 too at :data:`~roofline_lib.published.ORIGINAL_EARLIER_COMMIT` ("3.94e14
/ 8.1e11 = 486", "486 / 2 = 243"); at :data:`~roofline_lib.published.ORIGINAL_COMMIT` it states
8.2e11 ("3.94e14 / 8.2e11 = 480", "480 / 2 = 240"), the figure :data:`PROBLEM_1_ORIGINAL_BANDWIDTH`
holds. The course keeps the guide's statement."""
PROBLEM_1_ORIGINAL_BANDWIDTH = 8.2e11
"""Problem 1's HBM bandwidth in the original at :data:`~roofline_lib.published.ORIGINAL_COMMIT`,
bytes/s."""
PROBLEM_2 = ProblemGivens(
    hbm_bandwidth_bytes_per_s=8.2e11, peak_flops_per_s=1.97e14, peak_dtype="bf16"
)
"""Problems 2 and 3 (int8 weights, bf16 activations): HBM 8.2e11 bytes/s, 1.97e14 bf16 FLOP/s.

Problem 2 in both sources gives only the FLOP rate and reasons with the TPU v5e critical
intensity of 240 (1.97e14 / 8.2e11); the guide's Problem 3 code divides by 8.2e11 (the original
gives no code). The course states 8.2e11."""
PROBLEM_3_SHAPES = (4096, 1024)
"""Problem 3 plots D = F = 4096 and D = F = 1024 (the guide's choice; the original asks for
"several values of D and F")."""
PROBLEM_6_CHIP = "H100 SXM"
"""The guide's Problem 6 (flash attention; the original has five problems) asks about an H100
(the guide: 3.35 TB/s, 990 TFLOP/s)."""

LLAMA_70B_RUN = {
    "n_params": 70e9,
    "n_chips": 512,
    "sequences_per_step": 2048,
    "seq_len": 4096,
    "step_time_s": 7.0,
    "n_layers": 80,
    "d_model": 8192,
    "peak_flops_per_s": 990e12,
    "claimed_mfu": 0.49,
}
"""The guide's LLaMA-70B MFU example (512 H100s, 2048 × 4096 tokens per step, 7 s per step); the
original has no MFU section."""

PROBLEM_7_CHIP = "H100 SXM"
"""Problem 7 (a matmul split over chips; the course's own, neither source has it) times the split
on the catalog's H100 SXM: its dense bf16 peak and two of its links."""
PROBLEM_7_NODE_LINK = "nvlink4"
"""Problem 7's link inside a node: NVLink 4, one-way per GPU (the datasheet's 900 GB/s halved)."""
PROBLEM_7_CLUSTER_LINK = "ib_ndr"
"""Problem 7's link between nodes: InfiniBand NDR, one 400 Gb/s port per GPU, one-way."""
PROBLEM_7_CHIP_COUNTS = (2, 8)
"""Problem 7 (d) asks for the critical D over each link for two GPUs and for eight (a node)."""
PROBLEM_9_MODEL = "llama-3-8b"
"""Problem 9 (one decode step, the course's own: neither source has it) serves this shipped model
(:data:`roofline_lib.transformer.MODELS`) ..."""
PROBLEM_9_CHIP = "H100 SXM"
"""... on one chip of this kind (its dense bf16 peak, HBM bandwidth and 80 GB of HBM) ..."""
PROBLEM_9_DTYPE = "bf16"
"""... with its weights and KV cache in this dtype."""


@dataclass(frozen=True)
class TrainingRunGivens:
    """A training run a problem describes: a model, its chips, and its step's shape and times.

    Attributes:
        model: a key of :data:`roofline_lib.transformer.MODELS` (P, L, H, d come from it).
        chip: a catalog chip name; its dense peak in ``dtype`` is C.
        dtype: the dtype trained in.
        seq_len: S, tokens per sequence.
        sequences_per_step: sequences in one training step (B = sequences · S tokens).
        n_chips: N.
        measured_step_time_s: the step time the run measures, s.
        target_mfu: an MFU to reach, a fraction.
        claimed_step_time_s: a step time someone claims for the same run, s.
    """

    model: str
    chip: str
    dtype: str
    seq_len: int
    sequences_per_step: int
    n_chips: int
    measured_step_time_s: float
    target_mfu: float
    claimed_step_time_s: float

    @property
    def tokens_per_step(self) -> int:
        """B = sequences per step · S."""
        return self.sequences_per_step * self.seq_len


PROBLEM_8 = TrainingRunGivens(
    model="llama-3-8b",
    chip="H100 SXM",
    dtype="bf16",
    seq_len=8192,
    sequences_per_step=512,
    n_chips=256,
    measured_step_time_s=2.5,
    target_mfu=0.5,
    claimed_step_time_s=0.9,
)
"""Problem 8 (MFU of a whole model; neither source has this problem): Llama-3-8B trained on 256
H100 SXMs in bf16, 512 sequences of 8,192 tokens per step, measured at 2.5 s per step; the target
MFU is 50%, and the claimed 0.9 s per step is impossible once attention is counted (its MFU would
exceed 1) though not with 6PB alone or with the sparse peak."""
