"""Problem 1: the int8 matmul X int8[B, D] · Y int8[D, F] → Z int8[B, F].

Givens (chapter.PROBLEM_1): HBM 8.1e11 bytes/s, 3.94e14 int8 OP/s. References:
``roofline_lib.matmul(B, D, F, "int8")``, ``matmul_small_batch`` for the B ≪ D, F limit and
``roofline_lib.estimate`` for the times.
"""

from __future__ import annotations

import random

from roofline_lib import chapter, estimate, matmul, matmul_small_batch

from .base import Answers, Check, Finding, Part, Plan, call_probe, compare, log_int, matmul_shapes

GIVENS = chapter.PROBLEM_1
PEAK = GIVENS.peak_flops_per_s
BANDWIDTH = GIVENS.hbm_bandwidth_bytes_per_s


def _shapes_plan(*names: str):
    def plan(rng: random.Random):
        shapes = matmul_shapes(rng)
        return [call_probe(name, shapes) for name in names]

    return plan


def _costs(plan: Plan, key: str):
    return [(s, matmul(*s, "int8")) for s in plan[key].calls]


def _verify_bytes(plan: Plan, answers: Answers) -> list[Finding]:
    costs = _costs(plan, "bytes_loaded")
    return [
        compare(
            "bytes_loaded(B, D, F) on unseen shapes",
            plan["bytes_loaded"],
            answers,
            [c.bytes_read for _, c in costs],
            "bytes loaded should be every byte of X[B, D] and of Y[D, F], each read once",
            [
                (
                    "bytes loaded should count both operands: the activations X[B, D] as well as "
                    "the weights Y[D, F]",
                    [D * F for (B, D, F), _ in costs],
                ),
                (
                    "an int8 element is one byte, not two",
                    [2 * (B * D + D * F) for (B, D, F), _ in costs],
                ),
                (
                    "the output Z is written to HBM, not loaded: bytes loaded counts X and Y only",
                    [B * D + D * F + B * F for (B, D, F), _ in costs],
                ),
            ],
        ),
        compare(
            "bytes_written(B, D, F) on unseen shapes",
            plan["bytes_written"],
            answers,
            [c.bytes_written for _, c in costs],
            "bytes written should be the bytes of the output Z[B, F], re-quantised to int8",
            [
                (
                    "the output is re-quantised to int8: one byte per element",
                    [2 * B * F for (B, D, F), _ in costs],
                )
            ],
        ),
    ]


def _verify_ops(plan: Plan, answers: Answers) -> list[Finding]:
    costs = _costs(plan, "ops")
    return [
        compare(
            "ops(B, D, F) on unseen shapes",
            plan["ops"],
            answers,
            [c.flops for _, c in costs],
            "each of the B·F outputs is a length-D dot product: D multiply-adds",
            [
                (
                    "a multiply-add counts as two operations",
                    [B * D * F for (B, D, F), _ in costs],
                )
            ],
        )
    ]


def _plan_intensity(rng: random.Random):
    shapes = matmul_shapes(rng)
    batches = [(1,), (7,), *((log_int(rng, 1, 100000),) for _ in range(6))]
    return [call_probe("arithmetic_intensity", shapes), call_probe("intensity_limit", batches)]


def _verify_intensity(plan: Plan, answers: Answers) -> list[Finding]:
    costs = _costs(plan, "arithmetic_intensity")
    batches = [b for (b,) in plan["intensity_limit"].calls]
    return [
        compare(
            "arithmetic_intensity(B, D, F) on unseen shapes",
            plan["arithmetic_intensity"],
            answers,
            [c.arithmetic_intensity for _, c in costs],
            "intensity is OPs divided by all bytes moved: loaded and written",
            [
                (
                    "intensity is OPs per byte moved, loaded and written: include the output Z",
                    [2 * B * D * F / (B * D + D * F) for (B, D, F), _ in costs],
                ),
                (
                    "count 2 OPs per multiply-add: 2·B·D·F OPs",
                    [B * D * F / (B * D + D * F + B * F) for (B, D, F), _ in costs],
                ),
            ],
        ),
        compare(
            "intensity_limit(B), the B ≪ D, F limit",
            plan["intensity_limit"],
            answers,
            [matmul_small_batch(b, 1, 1, "int8").arithmetic_intensity for b in batches],
            "when B ≪ D, F only the weights' D·F bytes matter: divide the OPs by them",
            [("with one-byte weights the limit is twice B, not B", batches)],
        ),
    ]


def _estimates(plan: Plan, key: str):
    out = []
    for s in plan[key].calls:
        c = matmul(*s, "int8")
        out.append((s, estimate(c.flops, c.bytes_total, PEAK, BANDWIDTH)))
    return out


def _verify_times(plan: Plan, answers: Answers) -> list[Finding]:
    est = _estimates(plan, "t_math")
    return [
        compare(
            "t_math(B, D, F) on unseen shapes",
            plan["t_math"],
            answers,
            [e.t_math_s for _, e in est],
            "T_math is the OPs divided by the int8 peak, in seconds",
            [
                (
                    "int8 arithmetic runs at the int8 peak, twice the bf16 rate",
                    [2 * B * D * F / (PEAK / 2) for (B, D, F), _ in est],
                ),
                (
                    "count 2 OPs per multiply-add",
                    [B * D * F / PEAK for (B, D, F), _ in est],
                ),
            ],
        ),
        compare(
            "t_comms(B, D, F) on unseen shapes",
            plan["t_comms"],
            answers,
            [e.t_comms_s for _, e in est],
            "T_comms is all bytes moved through HBM (loaded and written) divided by the bandwidth",
            [
                (
                    "T_comms should include the bytes written as well as the bytes loaded",
                    [(B * D + D * F) / BANDWIDTH for (B, D, F), _ in est],
                )
            ],
        ),
    ]


def _verify_bounds(plan: Plan, answers: Answers) -> list[Finding]:
    est = _estimates(plan, "runtime_lower_bound")
    lower = [e.lower_bound_s for _, e in est]
    upper = [e.upper_bound_s for _, e in est]
    swapped = (
        "the lower bound assumes perfect overlap, max(T_math, T_comms); the upper none, their sum"
    )
    return [
        compare(
            "runtime_lower_bound(B, D, F) on unseen shapes",
            plan["runtime_lower_bound"],
            answers,
            lower,
            "with perfect overlap the runtime is the larger of T_math and T_comms",
            [(swapped, upper)],
        ),
        compare(
            "runtime_upper_bound(B, D, F) on unseen shapes",
            plan["runtime_upper_bound"],
            answers,
            upper,
            "with no overlap at all the runtime is T_math plus T_comms",
            [(swapped, lower)],
        ),
    ]


PARTS = (
    Part(
        "p1a_bytes",
        "problem1",
        "a",
        "bytes loaded and written",
        Check(_shapes_plan("bytes_loaded", "bytes_written"), _verify_bytes),
    ),
    Part("p1b_ops", "problem1", "b", "operations", Check(_shapes_plan("ops"), _verify_ops)),
    Part(
        "p1c_intensity",
        "problem1",
        "c",
        "arithmetic intensity and its B ≪ D, F limit",
        Check(_plan_intensity, _verify_intensity),
    ),
    Part(
        "p1d_times",
        "problem1",
        "d",
        "T_math and T_comms",
        Check(_shapes_plan("t_math", "t_comms"), _verify_times),
    ),
    Part(
        "p1e_bounds",
        "problem1",
        "e",
        "lower and upper bounds on the runtime",
        Check(_shapes_plan("runtime_lower_bound", "runtime_upper_bound"), _verify_bounds),
    ),
)
