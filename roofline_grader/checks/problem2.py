"""Problem 2: int8 weights with bf16 activations, bf16[B, D] × int8[D, F] → bf16[B, F].

Givens (chapter.PROBLEM_2): 1.97e14 bf16 FLOP/s, HBM 8.2e11 bytes/s. References:
``roofline_lib.critical_batch_size(chip, "w8a16")`` in the B ≪ D, F limit and with ``D=``, ``F=``
for exact bytes.
"""

from __future__ import annotations

import math
import random

from roofline_lib import Chip, chapter, critical_batch_size, critical_intensity

from .base import (
    Answers,
    Check,
    Finding,
    Part,
    Plan,
    Probe,
    Relation,
    call_probe,
    compare,
    log_int,
    value_probe,
)

CHIP = chapter.PROBLEM_2.chip("Problem 2 (int8 weights, bf16 activations)")
I_STAR = float(critical_intensity(CHIP))


def chip_figures(rng: random.Random, n: int = 10) -> list[tuple[float, float]]:
    """n made-up chips: (peak FLOP/s, HBM bytes/s), rounded to three significant digits."""
    out = []
    for _ in range(n):
        peak = float(f"{math.exp(rng.uniform(math.log(1e13), math.log(5e15))):.3g}")
        bandwidth = float(f"{math.exp(rng.uniform(math.log(1e11), math.log(1e13))):.3g}")
        out.append((peak, bandwidth))
    return out


def made_up_chip(peak: float, bandwidth: float) -> Chip:
    """One of :func:`chip_figures`' chips as a Chip: bf16 peak FLOP/s and HBM bytes/s."""
    return Chip(
        name="a made-up chip", peak_flops_per_s={"bf16": peak}, hbm_bandwidth_bytes_per_s=bandwidth
    )


def _plan_limit(rng: random.Random) -> list[Probe]:
    return [
        value_probe("critical_batch_small"),
        call_probe("critical_batch_limit", chip_figures(rng)),
    ]


def _verify_limit(plan: Plan, answers: Answers) -> list[Finding]:
    chips = plan["critical_batch_limit"].call_args
    limit_hint = (
        "the weights are int8, one byte per element, not two as in a bf16 matmul: count the "
        "weights' bytes at that size"
    )
    return [
        compare(
            "critical_batch_small, the critical batch when B ≪ D, F",
            plan["critical_batch_small"],
            answers,
            [critical_batch_size(CHIP, "w8a16")],
            "set the batch at which the B ≪ D, F intensity equals peak FLOP/s over bandwidth",
            [(limit_hint, [I_STAR]), ("do not round the answer", [round(I_STAR / 2)])],
        ),
        compare(
            "critical_batch_limit(peak_flops_per_s, hbm_bytes_per_s) on made-up chips",
            plan["critical_batch_limit"],
            answers,
            [critical_batch_size(made_up_chip(p, w), "w8a16") for p, w in chips],
            "find the batch at which the B ≪ D, F intensity (FLOPs over the weights' bytes) "
            "reaches the critical intensity, peak FLOP/s over bandwidth",
            [(limit_hint, [p / w for p, w in chips])],
        ),
    ]


def _plan_exact(rng: random.Random) -> list[Probe]:
    fixed = [(4096, 4096), (1024, 1024), (256, 256), (8192, 1024), (300, 100000)]
    drawn = [(log_int(rng, 64, 65536), log_int(rng, 64, 65536)) for _ in range(9)]
    return [value_probe("critical_batch_4096"), call_probe("critical_batch", fixed + drawn)]


def _verify_exact(plan: Plan, answers: Answers) -> list[Finding]:
    shapes = plan["critical_batch"].call_args
    exact = [critical_batch_size(CHIP, "w8a16", D=D, F=F) for D, F in shapes]
    raw = [I_STAR * D * F / (2 * D * F - 2 * I_STAR * (D + F)) for D, F in shapes]
    approx = (
        "use exact bytes: the activations X[B, D] and the output Z[B, F] (bf16, two bytes each) "
        "count too, not only the weights"
    )
    return [
        compare(
            "critical_batch_4096, the exact critical batch for D = F = 4096",
            plan["critical_batch_4096"],
            answers,
            [critical_batch_size(CHIP, "w8a16", D=4096, F=4096)],
            "count every byte of X, Y and Z and solve intensity = critical intensity for B, with "
            "D = F = 4096",
            [(approx, [critical_batch_size(CHIP, "w8a16")])],
        ),
        compare(
            "critical_batch(D, F) on unseen shapes",
            plan["critical_batch"],
            answers,
            exact,
            "count every byte of X, Y and Z at its own size and solve intensity = critical "
            "intensity for B; mind the shapes for which no batch size is enough",
            [
                (approx, [critical_batch_size(CHIP, "w8a16")] * len(shapes)),
                (
                    "for some shapes the matmul is memory-bound at every batch size and solving "
                    "gives a negative or infinite B: the statement says what to return then",
                    raw,
                ),
            ],
        ),
    ]


TITLE = "int8 weights, bf16 activations"
"""The notebook header's title, after "Problem 2 · "."""
QUESTION = (
    "Storing the weights in int8 halves their bytes. At what batch size does the matmul become "
    "compute-bound?"
)
"""The question under the title (the header is rendered from checks/header.md)."""
TITLE_ZH = "int8 权重，bf16 激活"
"""The Chinese header's title, after "习题 2 · "."""
QUESTION_ZH = (
    "把权重存成 int8，权重的字节数就减半。批大小（batch size）到多大时，"
    "这个矩阵乘法会变成计算受限（compute-bound）？"
)
"""The question in Chinese (rendered from checks/header.zh_CN.md, below the English)."""

PARTS = (
    Part(
        "p2a_limit",
        "problem2",
        "a",
        "critical batch size when B ≪ D, F",
        points=2,
        check=Check(
            _plan_limit,
            _verify_limit,
            visible_calls=(
                value_probe("critical_batch_small"),
                call_probe("critical_batch_limit", [(4e14, 1e12)]),
            ),
            visible_values=(
                Relation(
                    "critical_batch_small",
                    "critical_batch_limit(PEAK_BF16_FLOPS_PER_S, HBM_BYTES_PER_S)",
                    "set critical_batch_small with your critical_batch_limit at this problem's chip",
                ),
            ),
        ),
    ),
    Part(
        "p2b_exact",
        "problem2",
        "b",
        "exact critical batch size for given D and F",
        points=3,
        check=Check(
            _plan_exact,
            _verify_exact,
            visible_calls=(
                value_probe("critical_batch_4096"),
                call_probe("critical_batch", [(8192, 8192), (128, 128)]),
            ),
            visible_values=(
                Relation(
                    "critical_batch_4096",
                    "critical_batch(4096, 4096)",
                    "set critical_batch_4096 with your critical_batch at D = F = 4096",
                ),
            ),
        ),
    ),
)
