"""Problem 1: the int8 matmul X int8[B, D] · Y int8[D, F] → Z int8[B, F].

Givens (chapter.PROBLEM_1): HBM 8.1e11 bytes/s, 3.94e14 int8 OP/s. References:
``roofline_lib.matmul(B, D, F, "int8")``, ``matmul_small_batch`` for the B ≪ D, F limit and
``roofline_lib.estimate`` for the times.

Follow-through: (c) is checked against the student's own ``ops`` and bytes, (d) against their own
``ops`` and bytes, (e) against their own ``t_math`` and ``t_comms``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from roofline_lib import Cost, RooflineEstimate, chapter, estimate, matmul, matmul_small_batch

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
    call_probe,
    carried_from,
    compare,
    log_int,
    matmul_shapes,
    own_probe,
    own_values,
    ratio,
)

GIVENS = chapter.PROBLEM_1
PEAK = GIVENS.peak_flops_per_s
BANDWIDTH = GIVENS.hbm_bandwidth_bytes_per_s


HAND = ((2, 3, 4),)
"""The visible checks' shape: B = 2, D = 3, F = 4, small enough to count by hand (and to tell
every known mistake apart)."""
LIMIT_D_PER_B = 10**12
"""The student's own intensity at D = F = 10¹²·B stands for its B ≪ D, F limit (within 10⁻¹¹)."""


def _shapes_plan(*names: str, own: tuple[str, ...] = ()) -> Callable[[random.Random], list[Probe]]:
    def plan(rng: random.Random) -> list[Probe]:
        shapes = matmul_shapes(rng)
        return [call_probe(name, shapes) for name in names] + [own_probe(n, shapes) for n in own]

    return plan


def _hand(*names: str, own: tuple[str, ...] = ()) -> tuple[Probe, ...]:
    return tuple(call_probe(name, HAND) for name in names) + tuple(own_probe(n, HAND) for n in own)


def _costs(plan: Plan, key: str) -> list[tuple[Call, Cost]]:
    return [((B, D, F), matmul(B, D, F, "int8")) for B, D, F in plan[key].call_args]


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


def _intensity_probes(shapes: Sequence[Call], batches: Sequence[Call]) -> list[Probe]:
    limit_shapes = [(b, float(LIMIT_D_PER_B * b), float(LIMIT_D_PER_B * b)) for (b,) in batches]
    return [
        call_probe("arithmetic_intensity", shapes),
        call_probe("intensity_limit", batches),
        *(own_probe(name, shapes) for name in ("ops", "bytes_loaded", "bytes_written")),
        own_probe("arithmetic_intensity", limit_shapes, key="own:intensity_at_limit"),
    ]


def _plan_intensity(rng: random.Random) -> list[Probe]:
    shapes = matmul_shapes(rng)
    batches = [(1,), (7,), *((log_int(rng, 1, 100000),) for _ in range(6))]
    return _intensity_probes(shapes, batches)


def _verify_intensity(plan: Plan, answers: Answers) -> list[Finding]:
    costs = _costs(plan, "arithmetic_intensity")
    batches = [b for (b,) in plan["intensity_limit"].call_args]
    own_limit = own_values(answers, "own:intensity_at_limit")
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
            carried=carried_from(
                answers, "parts (a) and (b)", lambda o, l, w: ratio(o, l + w), "ops", *BYTES
            ),
        ),
        compare(
            "intensity_limit(B), the B ≪ D, F limit",
            plan["intensity_limit"],
            answers,
            [matmul_small_batch(b, 1, 1, "int8").arithmetic_intensity for b in batches],
            "when B ≪ D, F only the weights' D·F bytes matter: divide the OPs by them",
            [("count 2 OPs per multiply-add, over one byte per weight", batches)],
            carried=Carried(own_limit, "your arithmetic_intensity"),
        ),
    ]


BYTES = ("bytes_loaded", "bytes_written")


def _estimates(plan: Plan, key: str) -> list[tuple[Call, RooflineEstimate]]:
    out = []
    for B, D, F in plan[key].call_args:
        c = matmul(B, D, F, "int8")
        out.append(((B, D, F), estimate(c.flops, c.bytes_total, PEAK, BANDWIDTH)))
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
            carried=carried_from(answers, "part (b)", lambda o: o / PEAK, "ops"),
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
                ),
                (
                    "T_comms is bytes divided by the bandwidth in bytes/s, not multiplied by it",
                    [(B * D + D * F + B * F) * BANDWIDTH for (B, D, F), _ in est],
                ),
            ],
            carried=carried_from(answers, "part (a)", lambda l, w: (l + w) / BANDWIDTH, *BYTES),
        ),
    ]


TIMES = ("t_math", "t_comms")
FASTER_HINT = (
    "with perfect overlap the runtime cannot be shorter than either time: the one that takes "
    "longer sets it"
)


def _verify_bounds(plan: Plan, answers: Answers) -> list[Finding]:
    est = _estimates(plan, "runtime_lower_bound")
    lower = [e.lower_bound_s for _, e in est]
    upper = [e.upper_bound_s for _, e in est]
    swapped = (
        "the lower bound is the case of perfect overlap and the upper bound the case of none: "
        "the two are swapped"
    )
    return [
        compare(
            "runtime_lower_bound(B, D, F) on unseen shapes",
            plan["runtime_lower_bound"],
            answers,
            lower,
            "with perfect overlap, compute and memory traffic run at the same time: the runtime "
            "is set by whichever takes longer",
            [
                (swapped, upper),
                (
                    FASTER_HINT,
                    [e.t_math_s if e.t_math_s < e.t_comms_s else e.t_comms_s for _, e in est],
                ),
            ],
            carried=carried_from(answers, "part (d)", max, *TIMES),
        ),
        compare(
            "runtime_upper_bound(B, D, F) on unseen shapes",
            plan["runtime_upper_bound"],
            answers,
            upper,
            "with no overlap at all, compute and memory traffic take turns",
            [(swapped, lower)],
            carried=carried_from(answers, "part (d)", lambda m, c: m + c, *TIMES),
        ),
    ]


TITLE = "An int8 matmul"
"""The notebook header's title, after "Problem 1 · "."""
QUESTION = (
    "How many bytes and operations does an int8 matmul cost, how much work does it do per byte,"
    " and how long must it take?"
)
"""The question under the title (the header is rendered from checks/header.md)."""
TITLE_ZH = "int8 矩阵乘法"
"""The Chinese header's title, after "习题 1 · "."""
QUESTION_ZH = (
    "一次 int8 矩阵乘法（matmul）要搬运多少字节、做多少次运算，每个字节对应多少计算，"
    "至少要花多长时间？"
)
"""The question in Chinese (rendered from checks/header.zh_CN.md, below the English)."""

PARTS = (
    Part(
        "p1a_bytes",
        "problem1",
        "a",
        "bytes loaded and written",
        points=2,
        check=Check(
            _shapes_plan(*BYTES),
            _verify_bytes,
            visible_calls=_hand(*BYTES),
        ),
    ),
    Part(
        "p1b_ops",
        "problem1",
        "b",
        "operations",
        points=1,
        check=Check(_shapes_plan("ops"), _verify_ops, visible_calls=_hand("ops")),
    ),
    Part(
        "p1c_intensity",
        "problem1",
        "c",
        "arithmetic intensity and its B ≪ D, F limit",
        points=2,
        check=Check(
            _plan_intensity,
            _verify_intensity,
            visible_calls=tuple(_intensity_probes(list(HAND), [(4,)])),
            visible_values=(
                Relation(
                    "intensity_limit(4)",
                    "arithmetic_intensity(4, 10**9, 10**9)",
                    "intensity_limit(B) is what your arithmetic_intensity(B, D, F) approaches when "
                    "D and F are huge: let them grow and keep what remains",
                ),
            ),
            not_shown=("intensity_limit",),
        ),
    ),
    Part(
        "p1d_times",
        "problem1",
        "d",
        "T_math and T_comms",
        points=2,
        check=Check(
            _shapes_plan(*TIMES, own=("ops", *BYTES)),
            _verify_times,
            visible_calls=_hand(*TIMES, own=("ops", *BYTES)),
        ),
    ),
    Part(
        "p1e_bounds",
        "problem1",
        "e",
        "lower and upper bounds on the runtime",
        points=2,
        check=Check(
            _shapes_plan("runtime_lower_bound", "runtime_upper_bound", own=TIMES),
            _verify_bounds,
            visible_calls=_hand("runtime_lower_bound", "runtime_upper_bound", own=TIMES),
        ),
    ),
)
