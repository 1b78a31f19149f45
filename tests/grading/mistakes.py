"""A catalogue of the mistakes students make, per part, as test data.

Each :class:`Mistake` is a reference solution with one misconception written into it (an edit of
the model answer, as a student would write it). The tests hold every one of them to three promises:

* ``nbgrader validate`` (the student's Validate button) fails on it and shows ``visible_hint``
  (the hint of the visible check that catches it);
* the hidden checks fail the part where it is made, with ``hint``;
* ``roofline-grade`` takes away the points of that part only, plus those of ``also_loses``: the
  parts that truly depend on the wrong number and are not computed from the student's own earlier
  answers. A later part computed from the wrong earlier one keeps its points, and its feedback
  says "carried forward" (follow-through).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .grading_cases import FULL, model_answers


@dataclass(frozen=True)
class Mistake:
    """One misconception: where it is made, how it is written, and what must be said about it.

    Attributes:
        key: a short unique name (also the student id in the grading run: ``mistake-<key>``).
        part: the grade id of the part where the mistake is made.
        what: the mistake in words (for the closing table).
        edits: (answer cell grade id, text of the model answer, what the student wrote instead).
        hint: a phrase the hidden check's hint for ``part`` contains.
        visible_hint: a phrase the failing visible check shows (default: ``hint``).
        also_loses: other parts that lose their points (default: none, by follow-through).
        carried: parts that keep their points only by follow-through (their feedback says so).
    """

    key: str
    part: str
    what: str
    edits: tuple[tuple[str, str, str], ...]
    hint: str
    visible_hint: str = ""
    also_loses: tuple[str, ...] = ()
    carried: tuple[str, ...] = ()

    @property
    def problem(self) -> str:
        return f"problem{self.part[1]}"

    @property
    def student(self) -> str:
        return f"mistake-{self.key}"

    @property
    def shown(self) -> str:
        return self.visible_hint or self.hint

    def answers(self) -> dict[str, str]:
        """The answer cells of the reference with the mistake written in, by grade id."""
        answers = model_answers(self.problem)
        for cell, old, new in self.edits:
            assert answers[cell].count(old) == 1, (self.key, cell, old)
            answers[cell] = answers[cell].replace(old, new)
        return answers

    def expected_points(self) -> dict[str, float]:
        """Points per autograded part of the problem: full, except where the mistake costs."""
        lost = {self.part, *self.also_loses}
        return {
            gid: points
            for gid, points in FULL.items()
            if gid.startswith(self.part[:2]) and gid not in lost
        }


def _one(cell: str, old: str, new: str) -> tuple[tuple[str, str, str], ...]:
    return ((cell, old, new),)


BF16_BYTES = (
    ("p1a-answer", "return B * D + D * F", "return 2 * (B * D + D * F)"),
    ("p1a-answer", "return B * F", "return 2 * B * F"),
    # a student who thinks in bf16 also halves the intensity's limit: consistent with (a)
    ("p1c-answer", "return 2 * B\n", "return B\n"),
    # and computes the intensity from their own functions
    (
        "p1c-answer",
        "return 2 * B * D * F / (B * D + D * F + B * F)",
        "return ops(B, D, F) / (bytes_loaded(B, D, F) + bytes_written(B, D, F))",
    ),
)

MISTAKES: tuple[Mistake, ...] = (
    # -- Problem 1 ------------------------------------------------------------------------------
    Mistake(
        "p1a-bf16",
        "p1a_bytes",
        "two bytes per element (bf16) instead of int8's one",
        BF16_BYTES,
        "an int8 element is one byte, not two",
        carried=("p1c_intensity", "p1d_times", "p1e_bounds"),
    ),
    Mistake(
        "p1a-weights-only",
        "p1a_bytes",
        "bytes loaded counts only the weights Y",
        _one("p1a-answer", "return B * D + D * F", "return D * F"),
        "count both operands",
        carried=("p1d_times", "p1e_bounds"),
    ),
    Mistake(
        "p1a-output-loaded",
        "p1a_bytes",
        "the output Z counted among the bytes loaded",
        _one("p1a-answer", "return B * D + D * F", "return B * D + D * F + B * F"),
        "written to HBM, not loaded",
        carried=("p1d_times", "p1e_bounds"),
    ),
    Mistake(
        "p1b-one-op",
        "p1b_ops",
        "a multiply-add counted as one operation",
        _one("p1b-answer", "return 2 * B * D * F", "return B * D * F"),
        "a multiply-add counts as two operations",
        carried=("p1d_times", "p1e_bounds"),
    ),
    Mistake(
        "p1b-no-D",
        "p1b_ops",
        "the length-D dot product left out",
        _one("p1b-answer", "return 2 * B * D * F", "return 2 * B * F"),
        "length-D dot product",
        carried=("p1d_times", "p1e_bounds"),
    ),
    Mistake(
        "p1c-no-output",
        "p1c_intensity",
        "intensity over the bytes loaded only",
        _one(
            "p1c-answer",
            "return 2 * B * D * F / (B * D + D * F + B * F)",
            "return 2 * B * D * F / (B * D + D * F)",
        ),
        "include the output Z",
    ),
    Mistake(
        "p1c-limit-B",
        "p1c_intensity",
        "the B ≪ D, F limit taken as B",
        _one("p1c-answer", "return 2 * B\n", "return B\n"),
        "count 2 OPs per multiply-add, over one byte per weight",
        visible_hint="what your arithmetic_intensity(B, D, F) approaches",
    ),
    Mistake(
        "p1d-bf16-rate",
        "p1d_times",
        "T_math at the bf16 rate (half the int8 peak)",
        _one(
            "p1d-answer",
            "return ops(B, D, F) / PEAK_INT8_OPS_PER_S",
            "return ops(B, D, F) / (PEAK_INT8_OPS_PER_S / 2)",
        ),
        "int8 arithmetic runs at the int8 peak",
        carried=("p1e_bounds",),
    ),
    Mistake(
        "p1d-loaded-only",
        "p1d_times",
        "T_comms without the bytes written",
        _one(
            "p1d-answer",
            "return (bytes_loaded(B, D, F) + bytes_written(B, D, F)) / HBM_BYTES_PER_S",
            "return bytes_loaded(B, D, F) / HBM_BYTES_PER_S",
        ),
        "include the bytes written",
        carried=("p1e_bounds",),
    ),
    Mistake(
        "p1d-times-bandwidth",
        "p1d_times",
        "bytes multiplied by the bandwidth",
        _one(
            "p1d-answer",
            "return (bytes_loaded(B, D, F) + bytes_written(B, D, F)) / HBM_BYTES_PER_S",
            "return (bytes_loaded(B, D, F) + bytes_written(B, D, F)) * HBM_BYTES_PER_S",
        ),
        "divided by the bandwidth in bytes/s, not multiplied",
        carried=("p1e_bounds",),
    ),
    Mistake(
        "p1e-min",
        "p1e_bounds",
        "min instead of max for the lower bound",
        _one(
            "p1e-answer",
            "return max(t_math(B, D, F), t_comms(B, D, F))",
            "return min(t_math(B, D, F), t_comms(B, D, F))",
        ),
        "the one that takes longer sets it",
    ),
    Mistake(
        "p1e-swapped",
        "p1e_bounds",
        "lower and upper bounds swapped",
        (
            (
                "p1e-answer",
                "return max(t_math(B, D, F), t_comms(B, D, F))",
                "return t_math(B, D, F) + t_comms(B, D, F)  # swapped",
            ),
            (
                "p1e-answer",
                "return t_math(B, D, F) + t_comms(B, D, F)\n",
                "return max(t_math(B, D, F), t_comms(B, D, F))\n",
            ),
        ),
        "the two are swapped",
    ),
    # -- Problem 2 ------------------------------------------------------------------------------
    Mistake(
        "p2a-bf16-weights",
        "p2a_limit",
        "the weights counted as two bytes: critical batch = critical intensity",
        _one(
            "p2a-answer",
            "return peak_flops_per_s / hbm_bytes_per_s / 2",
            "return peak_flops_per_s / hbm_bytes_per_s",
        ),
        "the weights are int8, one byte per element",
    ),
    Mistake(
        "p2a-rounded",
        "p2a_limit",
        "the critical batch rounded to a whole number",
        _one(
            "p2a-answer",
            "critical_batch_small = critical_batch_limit(PEAK_BF16_FLOPS_PER_S, HBM_BYTES_PER_S)",
            "critical_batch_small = round(critical_batch_limit(PEAK_BF16_FLOPS_PER_S, "
            "HBM_BYTES_PER_S))",
        ),
        "do not round",
        visible_hint="set critical_batch_small with your critical_batch_limit",
    ),
    Mistake(
        "p2b-weights-only",
        "p2b_exact",
        "the exact batch computed from the weights' bytes only",
        _one(
            "p2b-answer",
            "    denominator = 2 * D * F - 2 * i_star * (D + F)\n"
            "    if denominator <= 0:\n"
            "        return math.inf\n"
            "    return i_star * D * F / denominator",
            "    return i_star / 2",
        ),
        "use exact bytes",
    ),
    Mistake(
        "p2b-no-inf",
        "p2b_exact",
        "shapes that are memory-bound at every batch get a negative batch",
        _one("p2b-answer", "    if denominator <= 0:\n        return math.inf\n", ""),
        "the statement says what to return then",
    ),
    # -- Problem 3 ------------------------------------------------------------------------------
    Mistake(
        "p3a-no-peak",
        "p3a_function",
        "achievable FLOP/s not capped at the peak",
        _one(
            "p3a-answer",
            "runtime = np.maximum(flops / PEAK_BF16_FLOPS_PER_S, bytes_moved / HBM_BYTES_PER_S)",
            "runtime = bytes_moved / HBM_BYTES_PER_S",
        ),
        "can never exceed the peak",
        carried=("p3b_curves",),
    ),
    Mistake(
        "p3a-python-max",
        "p3a_function",
        "Python's max, which fails on arrays",
        _one("p3a-answer", "np.maximum(", "max("),
        "must work elementwise",
        also_loses=("p3b_curves", "p3c_peak_and_labels"),  # the figure cannot be drawn
    ),
    Mistake(
        "p3a-weights-only",
        "p3a_function",
        "only the weights' bytes counted",
        _one("p3a-answer", "bytes_moved = 2 * B * D + D * F + 2 * B * F", "bytes_moved = D * F"),
        "use exact bytes",
        carried=("p3b_curves",),
    ),
    Mistake(
        "p3b-wrong-size",
        "p3b_curves",
        "the second curve drawn for D = F = 2048, not 1024",
        _one("p3bc-answer", '(1024, "#D55E00")', '(2048, "#D55E00")'),
        "for D = F = 1024",
    ),
    Mistake(
        "p3b-few-batches",
        "p3b_curves",
        "curves drawn for B = 1 … 100 only",
        _one("p3bc-answer", "batch = np.arange(1, 513)", "batch = np.arange(1, 101)"),
        "every whole batch size from B = 1 to B = 512",
    ),
    Mistake(
        "p3c-no-labels",
        "p3c_peak_and_labels",
        "axes without labels",
        (
            ("p3bc-answer", '    ax.set_xlabel("batch size B (tokens)")\n', ""),
            ("p3bc-answer", '    ax.set_ylabel("achievable throughput")\n', ""),
        ),
        "label both axes",
    ),
    Mistake(
        "p3c-no-peak",
        "p3c_peak_and_labels",
        "no line at the peak",
        _one(
            "p3bc-answer",
            "    ax.axhline(\n"
            '        PEAK_BF16_FLOPS_PER_S, color="#000000", linestyle="--", label="bf16 peak"\n'
            "    )\n",
            "",
        ),
        "horizontal line at the",
    ),
    # -- Problem 4 ------------------------------------------------------------------------------
    Mistake(
        "p4a-shared-weights",
        "p4a_costs",
        "one weight matrix shared by the batch",
        _one("p4a-answer", "return B * D + B * D * F + B * F", "return B * D + D * F + B * F"),
        "its own D×F weight matrix",
        carried=("p4b_intensity",),
    ),
    Mistake(
        "p4a-no-output",
        "p4a_costs",
        "the output's bytes left out",
        _one("p4a-answer", "return B * D + B * D * F + B * F", "return B * D + B * D * F"),
        "count the bytes written",
        carried=("p4b_intensity",),
    ),
    Mistake(
        "p4a-one-op",
        "p4a_costs",
        "a multiply-add counted as one operation",
        _one("p4a-answer", "return 2 * B * D * F", "return B * D * F"),
        "a multiply-add counts as two operations",
        carried=("p4b_intensity",),
    ),
    Mistake(
        "p4b-shared-weights",
        "p4b_intensity",
        "intensity with the weights shared, as in Problem 1",
        _one(
            "p4b-answer",
            "return ops(B, D, F) / bytes_moved(B, D, F)",
            "return 2 * B * D * F / (B * D + D * F + B * F)",
        ),
        "its own D×F weight matrix",
    ),
    Mistake(
        "p4b-bound-one",
        "p4b_intensity",
        "a bound below what the intensity reaches",
        _one("p4b-answer", "2.0  # 2BDF", "1.0  # 2BDF"),
        "the bound is the least number the intensity never exceeds",
        visible_hint="the bound is never below an intensity your function gives",
    ),
    # -- Problem 5 ------------------------------------------------------------------------------
    Mistake(
        "p5a-sparse",
        "p5a_dense_peak",
        "the datasheet's 2:4-sparse headline taken as the dense peak",
        _one(
            "p5a-answer",
            "dense_bf16_flops_per_s = H100_HEADLINE_BF16_FLOPS_PER_S / 2",
            "dense_bf16_flops_per_s = H100_HEADLINE_BF16_FLOPS_PER_S",
        ),
        "2:4 structured sparsity",
        carried=("p5b_intensity", "p5c_batch"),
    ),
    Mistake(
        "p5a-tera",
        "p5a_dense_peak",
        "TFLOP/s instead of FLOP/s",
        _one(
            "p5a-answer",
            "dense_bf16_flops_per_s = H100_HEADLINE_BF16_FLOPS_PER_S / 2",
            "dense_bf16_flops_per_s = 1979 / 2",
        ),
        "give FLOP/s, not TFLOP/s",
        carried=("p5b_intensity", "p5c_batch"),
    ),
    Mistake(
        "p5b-inverted",
        "p5b_intensity",
        "bandwidth over peak",
        _one(
            "p5b-answer",
            "return peak_flops_per_s / hbm_bytes_per_s",
            "return hbm_bytes_per_s / peak_flops_per_s",
        ),
        "check which rate is on top",
        carried=("p5c_batch",),  # the model's critical_batch calls critical_intensity
    ),
    Mistake(
        "p5b-sparse-value",
        "p5b_intensity",
        "the H100's critical intensity from the sparse headline",
        _one(
            "p5b-answer",
            "dense_bf16_flops_per_s, H100_HBM_BYTES_PER_S\n)",
            "H100_HEADLINE_BF16_FLOPS_PER_S, H100_HBM_BYTES_PER_S\n)",
        ),
        "2:4 structured sparsity",
        visible_hint="set h100_critical_intensity with your critical_intensity",
    ),
    Mistake(
        "p5c-int8-weights",
        "p5c_batch",
        "the weights counted as one byte (Problem 2's int8)",
        _one(
            "p5c-answer",
            "return critical_intensity(peak_flops_per_s, hbm_bytes_per_s)",
            "return critical_intensity(peak_flops_per_s, hbm_bytes_per_s) / 2",
        ),
        "the weights here are bf16, two bytes per element",
    ),
    Mistake(
        "p5c-rounded",
        "p5c_batch",
        "the critical batch rounded",
        _one(
            "p5c-answer",
            "h100_critical_batch = critical_batch(dense_bf16_flops_per_s, H100_HBM_BYTES_PER_S)",
            "h100_critical_batch = round(critical_batch(dense_bf16_flops_per_s, "
            "H100_HBM_BYTES_PER_S))",
        ),
        "do not round",
        visible_hint="set h100_critical_batch with your critical_batch",
    ),
    # -- Problem 6 ------------------------------------------------------------------------------
    Mistake(
        "p6a-one-matmul",
        "p6a_standard",
        "the FLOPs of one matmul only",
        _one("p6a-answer", "return 4 * H * S * S * d", "return 2 * H * S * S * d"),
        "count the FLOPs of both",
        carried=("p6b_standard_intensity", "p6c_flash", "p6d_regime"),
    ),
    Mistake(
        "p6a-no-SxS",
        "p6a_standard",
        "the scores and A not counted in HBM traffic",
        _one("p6a-answer", "return 2 * (4 * H * S * d + 4 * H * S * S)", "return 8 * H * S * d"),
        "count the S×S matrices",
        carried=("p6b_standard_intensity", "p6d_regime"),
    ),
    Mistake(
        "p6a-one-byte",
        "p6a_standard",
        "bf16 elements counted as one byte",
        _one(
            "p6a-answer",
            "return 2 * (4 * H * S * d + 4 * H * S * S)",
            "return 4 * H * S * d + 4 * H * S * S",
        ),
        "bf16 elements are two bytes each",
        carried=("p6b_standard_intensity", "p6d_regime"),
    ),
    Mistake(
        "p6b-inverted",
        "p6b_standard_intensity",
        "bytes over FLOPs",
        _one(
            "p6b-answer",
            "return standard_flops(H, S, d) / standard_bytes(H, S, d)",
            "return standard_bytes(H, S, d) / standard_flops(H, S, d)",
        ),
        "intensity is the FLOPs over the bytes",
        carried=("p6d_regime",),  # the model's is_memory_bound calls standard_intensity
    ),
    Mistake(
        "p6b-limit-d",
        "p6b_standard_intensity",
        "the S ≫ d limit taken as d",
        _one("p6b-answer", "return d / 2", "return d"),
        "bf16 elements are two bytes each",
        visible_hint="what your standard_intensity(H, S, d) approaches",
    ),
    Mistake(
        "p6c-no-ceil",
        "p6c_flash",
        "S/M tiles instead of ⌈S/M⌉",
        _one("p6c-answer", "tiles = np.ceil(S / M)", "tiles = S / M"),
        "there are ⌈S/M⌉ tiles",
    ),
    Mistake(
        "p6c-kv-once",
        "p6c_flash",
        "K and V streamed once in all, not once per tile",
        _one("p6c-answer", "2 * tiles * H * S * d", "2 * H * S * d"),
        "once per tile of Q",
    ),
    Mistake(
        "p6c-chapter-M-over-d",
        "p6c_flash",
        "the chapter's M/d as the limit (M counted in elements)",
        _one("p6c-answer", "return M * 1.0", "return M / 128"),
        "let S grow much larger than M",
        visible_hint="what your flash_intensity(H, S, d, M) approaches",
    ),
    Mistake(
        "p6d-reversed",
        "p6d_regime",
        "memory-bound where the intensity exceeds the critical one",
        _one(
            "p6d-answer",
            "return standard_intensity(1, S, d) < critical",
            "return standard_intensity(1, S, d) > critical",
        ),
        "it is memory-bound when it falls short",
    ),
    Mistake(
        "p6d-4096",
        "p6d_regime",
        "a finite critical sequence length for d = 128 (4096)",
        _one("p6d-answer", "critical_seq_len_d128 = math.inf", "critical_seq_len_d128 = 4096"),
        "is there an S at which it becomes compute-bound",
        visible_hint="so that S is not where it becomes compute-bound",
    ),
    # -- Problem 7 ------------------------------------------------------------------------------
    Mistake(
        "p7a-whole-matmul",
        "p7a_math",
        "the whole matmul's FLOPs on each GPU, not its shard's",
        _one(
            "p7a-answer",
            "return 2 * B * (D / N) * F / H100_BF16_FLOPS_PER_S",
            "return 2 * B * D * F / H100_BF16_FLOPS_PER_S",
        ),
        "divide the matmul by N",
    ),
    Mistake(
        "p7a-sparse-peak",
        "p7a_math",
        "the datasheet's 2:4-sparse 1,979 TFLOPS as the peak",
        _one(
            "p7a-answer",
            "return 2 * B * (D / N) * F / H100_BF16_FLOPS_PER_S",
            "return 2 * B * (D / N) * F / 1979e12",
        ),
        "not the datasheet's 2:4-sparse headline",
    ),
    Mistake(
        "p7b-sent-once",
        "p7b_network",
        "each GPU sends its partial sum once (the two-GPU swap), for any N",
        (
            (
                "p7b-answer",
                "return 2 * (N - 1) / N * partial_sum_bytes",
                "return partial_sum_bytes",
            ),
            # and solves T_math = T_comms with that: D = N·C/W, consistent with (b)
            (
                "p7c-answer",
                "return 2 * (N - 1) * H100_BF16_FLOPS_PER_S / W",
                "return N * H100_BF16_FLOPS_PER_S / W",
            ),
        ),
        "not the partial sum once",
        carried=("p7c_critical", "p7d_links"),
    ),
    Mistake(
        "p7b-n-minus-1",
        "p7b_network",
        "the whole partial sum sent to each of the other N − 1 GPUs",
        _one(
            "p7b-answer",
            "return 2 * (N - 1) / N * partial_sum_bytes",
            "return (N - 1) * partial_sum_bytes",
        ),
        "to each of the other N − 1 chips",
    ),
    Mistake(
        "p7b-fp32",
        "p7b_network",
        "the partial sums sent in fp32",
        _one("p7b-answer", "partial_sum_bytes = 2 * B * F", "partial_sum_bytes = 4 * B * F"),
        "sent in bf16, two bytes per element",
    ),
    Mistake(
        "p7b-B-by-D",
        "p7b_network",
        "the partial sum counted as B·D elements",
        _one("p7b-answer", "partial_sum_bytes = 2 * B * F", "partial_sum_bytes = 2 * B * D"),
        "Z's shape [B, F], whatever D is",
    ),
    Mistake(
        "p7c-shard",
        "p7c_critical",
        "the critical shard D/N given as the critical D",
        _one(
            "p7c-answer",
            "return 2 * (N - 1) * H100_BF16_FLOPS_PER_S / W",
            "return 2 * (N - 1) / N * H100_BF16_FLOPS_PER_S / W",
        ),
        "you gave one chip's shard",
        carried=("p7d_links",),  # the model's d_crit values call critical_d
    ),
    Mistake(
        "p7c-reversed",
        "p7c_critical",
        "network-bound where D exceeds the critical D",
        _one("p7c-answer", "return D < critical_d(N, W)", "return D > critical_d(N, W)"),
        "where D falls below the critical D",
    ),
    Mistake(
        "p7d-bidirectional",
        "p7d_links",
        "NVLink's bidirectional 900 GB/s headline as W",
        _one(
            "p7d-answer",
            "nvlink_bytes_per_s = NVLINK4_HEADLINE_BYTES_PER_S / 2",
            "nvlink_bytes_per_s = NVLINK4_HEADLINE_BYTES_PER_S",
        ),
        "adds both directions",
    ),
    Mistake(
        "p7d-bits",
        "p7d_links",
        "InfiniBand's 400 Gb/s read as bytes/s",
        _one(
            "p7d-answer",
            "ib_bytes_per_s = IB_NDR_PORT_BITS_PER_S / 8",
            "ib_bytes_per_s = IB_NDR_PORT_BITS_PER_S",
        ),
        "eight bits to a byte",
    ),
    # -- Problem 8 ------------------------------------------------------------------------------
    Mistake(
        "p8a-forward-only",
        "p8a_dense",
        "2PB, the forward pass only",
        _one("p8a-answer", "return 6 * P * B", "return 2 * P * B"),
        "that is the forward pass only",
        carried=("p8b_attention", "p8c_mfu", "p8d_target", "p8e_possible"),
    ),
    Mistake(
        "p8a-one-flop",
        "p8a_dense",
        "a multiply-add counted as one FLOP: 3PB",
        _one("p8a-answer", "return 6 * P * B", "return 3 * P * B"),
        "a multiply-add counts as two FLOPs",
        carried=("p8b_attention", "p8c_mfu", "p8d_target", "p8e_possible"),
    ),
    Mistake(
        "p8b-per-sequence-squared",
        "p8b_attention",
        "the per-sequence 12·L·S²·H·d times the step's tokens",
        _one("p8b-answer", "return 12 * L * S * H * d * B", "return 12 * L * S**2 * H * d * B"),
        "12·L·S²·H·d is one sequence's attention",
        carried=("p8c_mfu", "p8d_target", "p8e_possible"),
    ),
    Mistake(
        "p8b-kv-heads",
        "p8b_attention",
        "the run's attention counted over the key/value heads H_kv",
        _one("p8b-answer", "MODEL.heads, MODEL.head_dim", "MODEL.kv_heads, MODEL.head_dim"),
        "count the query heads H",
        visible_hint="set step_flops with your training_flops_per_step for the run",
        carried=("p8c_mfu", "p8d_target", "p8e_possible"),
    ),
    Mistake(
        "p8c-percent",
        "p8c_mfu",
        "MFU in percent",
        _one(
            "p8c-answer",
            "return flops_per_step / step_time_s / (n_chips * peak_flops_per_s)",
            "return 100 * flops_per_step / step_time_s / (n_chips * peak_flops_per_s)",
        ),
        "not a percent",
    ),
    Mistake(
        "p8c-one-chip",
        "p8c_mfu",
        "MFU against one chip's peak",
        _one(
            "p8c-answer",
            "return flops_per_step / step_time_s / (n_chips * peak_flops_per_s)",
            "return flops_per_step / step_time_s / peak_flops_per_s",
        ),
        "divide by the peak of all of them",
    ),
    Mistake(
        "p8c-sparse-peak",
        "p8c_mfu",
        "the run's MFU against the datasheet's 2:4-sparse headline",
        _one(
            "p8c-answer",
            "run_mfu = mfu(step_flops, MEASURED_STEP_TIME_S, N_CHIPS, H100_PEAK_BF16_FLOPS_PER_S)",
            "run_mfu = mfu(step_flops, MEASURED_STEP_TIME_S, N_CHIPS, 1979e12)",
        ),
        "2:4 structured sparsity",
        visible_hint="set run_mfu with your mfu",
    ),
    Mistake(
        "p8d-times-mfu",
        "p8d_target",
        "the step time multiplied by the target MFU instead of divided",
        _one(
            "p8d-answer",
            "return flops_per_step / (target_mfu * n_chips * peak_flops_per_s)",
            "return flops_per_step * target_mfu / (n_chips * peak_flops_per_s)",
        ),
        "a higher MFU means a shorter step",
    ),
    Mistake(
        "p8d-dense-only",
        "p8d_target",
        "the target step time from 6PB alone",
        _one(
            "p8d-answer",
            "target_step_time_s = step_time_for_mfu(step_flops, TARGET_MFU,",
            "target_step_time_s = step_time_for_mfu(\n"
            "    dense_training_flops(MODEL.matmul_params, SEQUENCES_PER_STEP * SEQ_LEN), TARGET_MFU,",
        ),
        "6PB and the attention FLOPs",
        visible_hint="set target_step_time_s with your step_time_for_mfu",
    ),
    Mistake(
        "p8e-one-chip",
        "p8e_possible",
        "the shortest step on one chip's peak",
        _one(
            "p8e-answer",
            "return flops_per_step / (n_chips * peak_flops_per_s)",
            "return flops_per_step / peak_flops_per_s",
        ),
        "divide by the peak of all of them",
    ),
    Mistake(
        "p8e-reversed",
        "p8e_possible",
        "possible only when the step is faster than the bound",
        _one(
            "p8e-answer",
            "return step_time_s >= min_step_time_s(",
            "return step_time_s < min_step_time_s(",
        ),
        "a step time is possible when it is at least the shortest possible step",
    ),
    # -- Problem 9 ------------------------------------------------------------------------------
    Mistake(
        "p9a-query-heads",
        "p9a_kv_cache",
        "the cache counted for all H query heads instead of the H_kv key/value heads",
        _one("p9a-answer", "LLAMA.kv_heads, LLAMA.d, 2)", "LLAMA.heads, LLAMA.d, 2)"),
        "only the H_kv key/value heads are cached",
        visible_hint="set llama_kv_bytes_per_token with your kv_bytes_per_token",
        carried=("p9d_max_batch",),  # the model's max_batch divides by llama_kv_bytes_per_token
    ),
    Mistake(
        "p9a-keys-only",
        "p9a_kv_cache",
        "only the keys cached (the 2 for K and V forgotten)",
        _one("p9a-answer", "return 2 * L * H_kv * d * s", "return L * H_kv * d * s"),
        "count both K and V",
        carried=("p9b_decode_step", "p9d_max_batch", "p9e_latency"),
    ),
    Mistake(
        "p9a-elements",
        "p9a_kv_cache",
        "elements instead of bytes (s forgotten)",
        _one("p9a-answer", "return 2 * L * H_kv * d * s", "return 2 * L * H_kv * d"),
        "give bytes, not elements",
        carried=("p9b_decode_step", "p9d_max_batch", "p9e_latency"),
    ),
    Mistake(
        "p9a-fp32-cache",
        "p9a_kv_cache",
        "the Llama-3-8B cache taken as fp32, four bytes per element",
        _one("p9a-answer", "LLAMA.kv_heads, LLAMA.d, 2)", "LLAMA.kv_heads, LLAMA.d, 4)"),
        "two bytes per element, not four",
        visible_hint="in bf16",
        carried=("p9d_max_batch",),
    ),
    Mistake(
        "p9b-one-cache",
        "p9b_decode_step",
        "one KV cache for the whole batch instead of one per request",
        _one(
            "p9b-answer",
            "return P * s + B * S * kv_bytes_per_token(L, H_kv, d, s)",
            "return P * s + S * kv_bytes_per_token(L, H_kv, d, s)",
        ),
        "every request has its own KV cache",
        carried=("p9e_latency",),
    ),
    Mistake(
        "p9b-weights-per-request",
        "p9b_decode_step",
        "the weights read once per request instead of once per step",
        _one(
            "p9b-answer",
            "return P * s + B * S * kv_bytes_per_token(L, H_kv, d, s)",
            "return B * (P * s + S * kv_bytes_per_token(L, H_kv, d, s))",
        ),
        "shared by the whole batch",
        carried=("p9e_latency",),
    ),
    Mistake(
        "p9b-no-attention",
        "p9b_decode_step",
        "the FLOPs of the weight matmuls only, attention left out",
        _one("p9b-answer", "return 2 * P * B + 4 * B * L * H * S * d", "return 2 * P * B"),
        "count attention's FLOPs too",
        carried=("p9e_latency",),
    ),
    Mistake(
        "p9b-attention-kv-heads",
        "p9b_decode_step",
        "attention's FLOPs counted over the H_kv key/value heads instead of the H query heads",
        _one(
            "p9b-answer",
            "return 2 * P * B + 4 * B * L * H * S * d",
            "return 2 * P * B + 4 * B * L * H_kv * S * d",
        ),
        "count H heads, not H_kv",
        carried=("p9e_latency",),
    ),
    Mistake(
        "p9c-one-flop",
        "p9c_critical_batch",
        "one FLOP per weight per token instead of two",
        _one("p9c-answer", "return C / W * s / 2", "return C / W * s"),
        "count 2 FLOPs per weight per token",
    ),
    Mistake(
        "p9c-no-s",
        "p9c_critical_batch",
        "the critical batch taken as C/W whatever the weights' dtype",
        _one("p9c-answer", "return C / W * s / 2", "return C / W"),
        "each weight is s bytes",
    ),
    Mistake(
        "p9c-rounded",
        "p9c_critical_batch",
        "the H100's critical batch rounded",
        _one(
            "p9c-answer",
            "H100_HBM_BYTES_PER_S, 2\n)\n",
            "H100_HBM_BYTES_PER_S, 2\n)\nh100_weights_critical_batch = round(h100_weights_critical_batch)\n",
        ),
        "do not round",
        visible_hint="set h100_weights_critical_batch with your weights_critical_batch",
    ),
    Mistake(
        "p9d-fractional",
        "p9d_max_batch",
        "a fractional number of requests (not rounded down)",
        _one(
            "p9d-answer",
            "return np.floor(free / (S * llama_kv_bytes_per_token))",
            "return free / (S * llama_kv_bytes_per_token)",
        ),
        "round down (np.floor)",
    ),
    Mistake(
        "p9d-no-weights",
        "p9d_max_batch",
        "the whole HBM given to the caches, the weights forgotten",
        _one(
            "p9d-answer",
            "free = H100_HBM_BYTES - LLAMA.params * 2",
            "free = H100_HBM_BYTES",
        ),
        "the weights take their share of HBM first",
    ),
    Mistake(
        "p9d-math-floor",
        "p9d_max_batch",
        "math.floor, which fails on an array of contexts",
        _one(
            "p9d-answer",
            "return np.floor(free / (S * llama_kv_bytes_per_token))",
            "return math.floor(free / (S * llama_kv_bytes_per_token))",
        ),
        "must work elementwise",
    ),
    Mistake(
        "p9e-sum",
        "p9e_latency",
        "T_math + T_HBM (the upper bound) instead of their maximum",
        _one("p9e-answer", "return np.maximum(t_math, t_hbm)", "return t_math + t_hbm"),
        "not their sum",
    ),
    Mistake(
        "p9e-memory-only",
        "p9e_latency",
        "the time to move the bytes alone, as if decode were always memory-bound",
        _one("p9e-answer", "return np.maximum(t_math, t_hbm)", "return t_hbm"),
        "large batches over short contexts are compute-bound",
    ),
    Mistake(
        "p9e-one-token",
        "p9e_latency",
        "one token per step for the whole batch instead of one per request",
        _one("p9e-answer", "return B / itl_lower_s(B, S)", "return 1 / itl_lower_s(B, S)"),
        "B tokens per step",
    ),
)
"""Every mistake in the catalogue."""

BY_KEY: Mapping[str, Mistake] = {m.key: m for m in MISTAKES}


def mistake_cases(release):  # -> list[grading_cases.Case]
    """Every mistake as a student of the shared grading run, with the points it must get."""
    from .grading_cases import Case, solved

    return [
        Case(m.student, {m.problem: solved(release, m.problem, **m.answers())}, m.expected_points())
        for m in MISTAKES
    ]
