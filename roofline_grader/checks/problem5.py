"""Problem 5: the H100 SXM's critical batch size for a dense bf16 matmul, from its datasheet.

References: the catalog's dense bf16 peak (``roofline_lib.get_chip("H100 SXM").peak("bf16")``,
half the datasheet's 2:4-sparse headline), ``roofline_lib.critical_intensity`` and
``roofline_lib.critical_batch_size``, for the H100 and for made-up chips.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from roofline_lib import critical_batch_size, critical_intensity, get_chip

from .base import (
    Answers,
    Call,
    Carried,
    Check,
    Finding,
    Part,
    Plan,
    Probe,
    Relation,
    Within,
    call_probe,
    compare,
    own_probe,
    own_values,
    value_probe,
)
from .problem2 import chip_figures, made_up_chip

H100 = get_chip("H100 SXM")
BANDWIDTH = H100.hbm_bandwidth_bytes_per_s
SPARSE_HINT = (
    "the datasheet's 1,979 TFLOPS counts 2:4 structured sparsity: a dense matmul does not reach it "
    "(read the set-up again)"
)
TERA_HINT = "give FLOP/s, not TFLOP/s"
INVERTED_HINT = "the critical intensity is in FLOPs per byte: check which rate is on top"
OWN_DENSE = "own:dense_bf16_flops_per_s"


def _own_dense(answers: Answers) -> Carried:
    """The student's own dense peak over the H100's bandwidth: their critical intensity, which is
    also their critical batch for a bf16 matmul."""
    dense = own_values(answers, OWN_DENSE)
    return Carried(None if dense is None else [dense[0] / BANDWIDTH], "part (a)")


def _plan_peak(rng: random.Random) -> list[Probe]:
    return [value_probe("dense_bf16_flops_per_s")]


def _verify_peak(plan: Plan, answers: Answers) -> list[Finding]:
    dense = H100.peak("bf16")
    return [
        compare(
            "dense_bf16_flops_per_s",
            plan["dense_bf16_flops_per_s"],
            answers,
            [dense],
            "give the dense bf16 peak in FLOP/s (not TFLOP/s)",
            [(SPARSE_HINT, [2 * dense]), (TERA_HINT, [dense / 1e12]), (TERA_HINT, [dense / 5e11])],
        )
    ]


def _plan_intensity(rng: random.Random) -> list[Probe]:
    return [
        value_probe("h100_critical_intensity"),
        call_probe("critical_intensity", chip_figures(rng)),
        value_probe("dense_bf16_flops_per_s", key=OWN_DENSE),
    ]


def _verify_intensity(plan: Plan, answers: Answers) -> list[Finding]:
    chips = plan["critical_intensity"].call_args
    value = critical_intensity(H100)
    return [
        compare(
            "h100_critical_intensity",
            plan["h100_critical_intensity"],
            answers,
            [value],
            "the critical intensity is the dense peak FLOP/s over the HBM bandwidth in bytes/s",
            [(SPARSE_HINT, [2 * value])],
            carried=_own_dense(answers),
        ),
        compare(
            "critical_intensity(peak_flops_per_s, hbm_bytes_per_s) on made-up chips",
            plan["critical_intensity"],
            answers,
            [critical_intensity(made_up_chip(p, w)) for p, w in chips],
            "the critical intensity is the FLOPs a chip can do per byte it can move, in FLOPs "
            "per byte",
            [(INVERTED_HINT, [w / p for p, w in chips])],
        ),
    ]


def _batch_probes(chips: Sequence[Call]) -> list[Probe]:
    return [
        value_probe("h100_critical_batch"),
        call_probe("critical_batch", chips),
        value_probe("dense_bf16_flops_per_s", key=OWN_DENSE),
        own_probe("critical_intensity", [*chips, (H100.peak("bf16"), BANDWIDTH)]),
    ]


def _plan_batch(rng: random.Random) -> list[Probe]:
    return _batch_probes(chip_figures(rng))


def _own_intensity(answers: Answers, count: int) -> tuple[Carried, Carried]:
    """The student's own critical_intensity (part (b)): on the made-up chips, and on the H100."""
    own = own_values(answers, "own:critical_intensity")
    if own is None or len(own) != count + 1:
        return Carried(None, "part (b)"), Carried(None, "part (b)")
    return Carried(own[:count], "part (b)"), Carried(own[count:], "part (b)")


def _verify_batch(plan: Plan, answers: Answers) -> list[Finding]:
    chips = plan["critical_batch"].call_args
    value = float(critical_batch_size(H100, "bf16"))
    on_chips, on_h100 = _own_intensity(answers, len(chips))
    bf16_hint = (
        "the weights here are bf16, two bytes per element (Problem 2's were int8, one byte): "
        "count the weights' bytes at that size"
    )
    return [
        compare(
            "h100_critical_batch",
            plan["h100_critical_batch"],
            answers,
            [value],
            "find the batch B at which the B ≪ D, F intensity reaches the critical intensity",
            [
                (SPARSE_HINT, [2 * value]),
                (bf16_hint, [value / 2]),
                ("do not round the answer", [round(value)]),
            ],
            carried=(_own_dense(answers), on_h100),
        ),
        compare(
            "critical_batch(peak_flops_per_s, hbm_bytes_per_s) on made-up chips",
            plan["critical_batch"],
            answers,
            [critical_batch_size(made_up_chip(p, w), "bf16") for p, w in chips],
            "find the batch at which the B ≪ D, F intensity of a bf16 matmul (FLOPs over the "
            "weights' bytes) reaches the critical intensity",
            [(bf16_hint, [p / w / 2 for p, w in chips])],
            carried=on_chips,
        ),
    ]


HAND_CHIP = ((2e14, 1e12),)
"""The visible checks' made-up chip: 2·10¹⁴ FLOP/s and 10¹² bytes/s."""

TITLE = "The H100's critical batch size"
"""The notebook header's title, after "Problem 5 · "."""
QUESTION = (
    "Read a GPU's datasheet the way the roofline needs it: what batch size makes a dense bf16 "
    "matmul compute-bound on an H100 SXM?"
)
"""The question under the title (the header is rendered from checks/header.md)."""
TITLE_ZH = "H100 的临界批大小"
"""The Chinese header's title, after "习题 5 · "."""
QUESTION_ZH = (
    "按 Roofline 模型的需要读懂一份 GPU 数据手册：批大小多大时，"
    "稠密 bf16 矩阵乘法在 H100 SXM 上会变成计算受限？"
)
"""The question in Chinese (rendered from checks/header.zh_CN.md, below the English)."""

PARTS = (
    Part(
        "p5a_dense_peak",
        "problem5",
        "a",
        "dense bf16 peak from the datasheet",
        points=1,
        check=Check(
            _plan_peak,
            _verify_peak,
            visible_values=(
                Relation(
                    "dense_bf16_flops_per_s", "H100_HEADLINE_BF16_FLOPS_PER_S", SPARSE_HINT, False
                ),
                Within("dense_bf16_flops_per_s", 1e14, 1e16, TERA_HINT),
            ),
        ),
    ),
    Part(
        "p5b_intensity",
        "problem5",
        "b",
        "critical intensity",
        points=2,
        check=Check(
            _plan_intensity,
            _verify_intensity,
            visible_calls=(
                value_probe("h100_critical_intensity"),
                call_probe("critical_intensity", HAND_CHIP),
            ),
            visible_values=(
                Relation(
                    "h100_critical_intensity",
                    "critical_intensity(dense_bf16_flops_per_s, H100_HBM_BYTES_PER_S)",
                    "set h100_critical_intensity with your critical_intensity at the H100's dense "
                    "peak and bandwidth",
                ),
            ),
        ),
    ),
    Part(
        "p5c_batch",
        "problem5",
        "c",
        "critical batch size",
        points=2,
        check=Check(
            _plan_batch,
            _verify_batch,
            visible_calls=tuple(_batch_probes(HAND_CHIP)),
            visible_values=(
                Relation(
                    "h100_critical_batch",
                    "critical_batch(dense_bf16_flops_per_s, H100_HBM_BYTES_PER_S)",
                    "set h100_critical_batch with your critical_batch at the H100's dense peak "
                    "and bandwidth",
                ),
            ),
        ),
    ),
)
