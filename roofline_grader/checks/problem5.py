"""Problem 5: the H100 SXM's critical batch size for a dense bf16 matmul, from its datasheet.

References: the catalog's dense bf16 peak (``roofline_lib.get_chip("H100 SXM").peak("bf16")``,
half the datasheet's 2:4-sparse headline), ``roofline_lib.critical_intensity`` and
``roofline_lib.critical_batch_size``, for the H100 and for made-up chips.
"""

from __future__ import annotations

import random

from roofline_lib import Chip, critical_batch_size, critical_intensity, get_chip

from .base import Answers, Check, Finding, Part, Plan, call_probe, compare, value_probe
from .problem2 import chip_figures

H100 = get_chip("H100 SXM")
SPARSE_HINT = "the datasheet's 1,979 TFLOPS assumes 2:4 structured sparsity; the dense rate is half"


def _chip(peak: float, bandwidth: float) -> Chip:
    return Chip(
        name="a made-up chip", peak_flops_per_s={"bf16": peak}, hbm_bandwidth_bytes_per_s=bandwidth
    )


def _plan_peak(rng: random.Random):
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
            [(SPARSE_HINT, [2 * dense]), ("give FLOP/s, not TFLOP/s", [dense / 1e12])],
        )
    ]


def _plan_intensity(rng: random.Random):
    return [
        value_probe("h100_critical_intensity"),
        call_probe("critical_intensity", chip_figures(rng)),
    ]


def _verify_intensity(plan: Plan, answers: Answers) -> list[Finding]:
    chips = plan["critical_intensity"].calls
    value = critical_intensity(H100)
    return [
        compare(
            "h100_critical_intensity",
            plan["h100_critical_intensity"],
            answers,
            [value],
            "the critical intensity is the dense peak FLOP/s over the HBM bandwidth in bytes/s",
            [(SPARSE_HINT, [2 * value])],
        ),
        compare(
            "critical_intensity(peak_flops_per_s, hbm_bytes_per_s) on made-up chips",
            plan["critical_intensity"],
            answers,
            [critical_intensity(_chip(p, w)) for p, w in chips],
            "the critical intensity is peak FLOP/s divided by bandwidth in bytes/s",
        ),
    ]


def _plan_batch(rng: random.Random):
    return [value_probe("h100_critical_batch"), call_probe("critical_batch", chip_figures(rng))]


def _verify_batch(plan: Plan, answers: Answers) -> list[Finding]:
    chips = plan["critical_batch"].calls
    value = critical_batch_size(H100, "bf16")
    bf16_hint = (
        "with bf16 weights (two bytes each) the B ≪ D, F intensity is 2·B·D·F / (2·D·F) = B, so "
        "the critical batch equals the critical intensity"
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
        ),
        compare(
            "critical_batch(peak_flops_per_s, hbm_bytes_per_s) on made-up chips",
            plan["critical_batch"],
            answers,
            [critical_batch_size(_chip(p, w), "bf16") for p, w in chips],
            "for a bf16 matmul with B ≪ D, F the intensity is B: the critical batch is peak over "
            "bandwidth",
            [(bf16_hint, [p / w / 2 for p, w in chips])],
        ),
    ]


PARTS = (
    Part(
        "p5a_dense_peak",
        "problem5",
        "a",
        "dense bf16 peak from the datasheet",
        Check(_plan_peak, _verify_peak),
    ),
    Part(
        "p5b_intensity",
        "problem5",
        "b",
        "critical intensity",
        Check(_plan_intensity, _verify_intensity),
    ),
    Part(
        "p5c_batch",
        "problem5",
        "c",
        "critical batch size",
        Check(_plan_batch, _verify_batch),
    ),
)
