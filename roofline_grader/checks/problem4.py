"""Problem 4: a different int8 weight matrix per batch element, int8[B, D] × int8[B, D, F] → int8[B, F].

Reference: ``roofline_lib.batched_matmul(B, D, F, "int8")``. Its intensity 2BDF / (BD + BDF + BF)
stays below 2 whatever B; the bound is the intensity's limit for large D and F. Part (c), why
batching does not help, is a written answer graded by hand.
"""

from __future__ import annotations

import math
import random

from roofline_lib import Cost, batched_matmul

from .base import (
    Answers,
    Call,
    Check,
    Finding,
    Part,
    Plan,
    Probe,
    Within,
    call_probe,
    carried_from,
    compare,
    matmul_shapes,
    own_probe,
    ratio,
    value_probe,
)

LARGE = 10**8
"""D = F = 1e8 puts the intensity within 1e-7 of its bound."""


def _costs(plan: Plan, key: str) -> list[tuple[Call, Cost]]:
    return [((B, D, F), batched_matmul(B, D, F, "int8")) for B, D, F in plan[key].call_args]


def _plan_costs(rng: random.Random) -> list[Probe]:
    shapes = matmul_shapes(rng)
    return [call_probe("bytes_moved", shapes), call_probe("ops", shapes)]


def _verify_costs(plan: Plan, answers: Answers) -> list[Finding]:
    costs = _costs(plan, "bytes_moved")
    return [
        compare(
            "bytes_moved(B, D, F) on unseen shapes",
            plan["bytes_moved"],
            answers,
            [c.bytes_total for _, c in costs],
            "bytes moved are X, all B weight matrices, and Z, one byte per int8 element",
            [
                (
                    "each batch element has its own D×F weight matrix: the weights are B·D·F bytes",
                    [B * D + D * F + B * F for (B, D, F), _ in costs],
                ),
                (
                    "count the bytes written (the output Z) as well as the bytes loaded",
                    [B * D + B * D * F for (B, D, F), _ in costs],
                ),
            ],
        ),
        compare(
            "ops(B, D, F) on unseen shapes",
            plan["ops"],
            answers,
            [c.flops for _, c in costs],
            "each batch element does a length-D dot product for each of its F outputs",
            [("a multiply-add counts as two operations", [B * D * F for (B, D, F), _ in costs])],
        ),
    ]


def _plan_intensity(rng: random.Random) -> list[Probe]:
    shapes = matmul_shapes(rng)
    return [
        call_probe("arithmetic_intensity", shapes),
        *(own_probe(name, shapes) for name in ("ops", "bytes_moved")),
        value_probe("intensity_bound"),
    ]


def _verify_intensity(plan: Plan, answers: Answers) -> list[Finding]:
    costs = _costs(plan, "arithmetic_intensity")
    return [
        compare(
            "arithmetic_intensity(B, D, F) on unseen shapes",
            plan["arithmetic_intensity"],
            answers,
            [c.arithmetic_intensity for _, c in costs],
            "intensity is the OPs over all bytes moved, with a separate weight matrix per element",
            [
                (
                    "each batch element has its own D×F weight matrix: the weights are B·D·F bytes",
                    [2 * B * D * F / (B * D + D * F + B * F) for (B, D, F), _ in costs],
                )
            ],
            carried=carried_from(answers, "part (a)", ratio, "ops", "bytes_moved"),
        ),
        compare(
            "intensity_bound, the most intensity any B, D, F can reach",
            plan["intensity_bound"],
            answers,
            [batched_matmul(1, LARGE, LARGE, "int8").arithmetic_intensity],
            "the bound is the least number the intensity never exceeds: see how it depends on B, "
            "then let D and F grow large",
            rtol=1e-6,
        ),
    ]


HAND = ((2, 3, 4),)
"""The visible checks' shape: B = 2, D = 3, F = 4, small enough to count by hand."""

TITLE = "A different weight matrix per batch element"
"""The notebook header's title, after "Problem 4 · "."""
QUESTION = (
    "Batching raised the intensity of every matmul so far. What if each batch element brings "
    "its own weights?"
)
"""The question under the title (the header is rendered from checks/header.md)."""
TITLE_ZH = "每个批元素各有一个权重矩阵"
"""The Chinese header's title, after "习题 4 · "."""
QUESTION_ZH = "到目前为止，增大批总能提高每个矩阵乘法的算术强度。如果每个批元素都带着自己的权重呢？"
"""The question in Chinese (rendered from checks/header.zh_CN.md, below the English)."""

PARTS = (
    Part(
        "p4a_costs",
        "problem4",
        "a",
        "bytes moved and operations",
        points=2,
        check=Check(
            _plan_costs,
            _verify_costs,
            visible_calls=(call_probe("bytes_moved", HAND), call_probe("ops", HAND)),
        ),
    ),
    Part(
        "p4b_intensity",
        "problem4",
        "b",
        "arithmetic intensity and its bound",
        points=2,
        check=Check(
            _plan_intensity,
            _verify_intensity,
            visible_calls=(
                call_probe("arithmetic_intensity", HAND),
                *(own_probe(name, HAND) for name in ("ops", "bytes_moved")),
                value_probe("intensity_bound"),
            ),
            visible_values=(
                Within(
                    "intensity_bound",
                    "arithmetic_intensity(1000, 512, 512)",
                    math.inf,
                    "the bound is never below an intensity your function gives",
                ),
            ),
        ),
    ),
    Part("p4c_why", "problem4", "c", "why batching does not help (written answer)", points=2),
)
