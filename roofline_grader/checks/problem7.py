"""Problem 7: a bf16 matmul X[B, D] · Y[D, F] split along D over N chips (a network roofline).

Each chip multiplies its shard, X[:, D/N] · Y[D/N, :], and the N partial sums Z_i[B, F] are
combined by a ring all-reduce, each chip sending 2(N−1)/N of its partial sum's bytes over a link
of W bytes/s one way. References: ``roofline_lib.sharded_matmul`` (FLOPs and network bytes per
chip), ``roofline_lib.t_math`` and ``t_comms`` on the H100 SXM's dense bf16 peak
(``chapter.PROBLEM_7_CHIP``), ``roofline_lib.critical_contracting_dim`` for the critical D, and
the catalog's NVLink 4 and InfiniBand NDR figures (one-way per GPU, ``LINK_SCOPE``).

Follow-through: (b)'s ``t_comms`` against the student's own ``network_bytes``; (c) against their
own ``t_math`` and ``t_comms`` (T_math grows in proportion to D and T_comms does not depend on
it, so their critical D is D₀·T_comms/T_math at any D₀, here D₀ = N); (d) against their own
``critical_d`` at the catalog's link figures.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import numpy as np

from roofline_lib import (
    Link,
    chapter,
    critical_contracting_dim,
    get_chip,
    matmul,
    sharded_matmul,
    t_comms,
    t_math,
)

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
    compare_bools,
    log_int,
    own_probe,
    own_values,
    ratio,
    shape_columns,
    shapes_of,
    value_probe,
    with_arrays,
)

H100 = get_chip(chapter.PROBLEM_7_CHIP)
PEAK = H100.peak("bf16")
NODE_LINK = H100.links[chapter.PROBLEM_7_NODE_LINK]
CLUSTER_LINK = H100.links[chapter.PROBLEM_7_CLUSTER_LINK]
NVLINK = NODE_LINK.one_way_bytes_per_s
IB = CLUSTER_LINK.one_way_bytes_per_s


def _per_port_bytes_per_s(link: Link) -> float:
    """One port's one-way bandwidth of ``link``, bytes/s (the catalog gives it for the H100's
    NVLink: one link for all of them is a mistake part (d) knows)."""
    if link.per_port_one_way_bytes_per_s is None:
        raise ValueError(f"{link.name} gives no per-port bandwidth: problem 7 needs it")
    return link.per_port_one_way_bytes_per_s


NVLINK_PER_PORT = _per_port_bytes_per_s(NODE_LINK)
COUNTS = chapter.PROBLEM_7_CHIP_COUNTS
CHIP_COUNTS = (1, 2, 3, 4, 6, 8, 16, 32, 64, 256)
"""N in the hidden checks: one chip (nothing to send), the usual powers of two and a few others."""

ALL_REDUCE_HINT = (
    "in a ring all-reduce each chip sends 2(N−1)/N times its partial sum's bytes (a "
    "reduce-scatter, then an all-gather), not the partial sum once"
)
TOTAL_FLOPS_HINT = "each chip does only its shard's FLOPs, 2·B·(D/N)·F: divide the matmul by N"
HALF_HINT = (
    "your times are half the right ones: a multiply-add is two FLOPs, and the peak is the dense "
    "one, not the datasheet's 2:4-sparse headline"
)


def _bdfn(rng: random.Random, n: int) -> list[tuple[int, int, int, int]]:
    """n shapes (B, D, F, N) with D a multiple of N (each chip holds an equal shard)."""
    out = []
    for _ in range(n):
        chips = rng.choice(CHIP_COUNTS)
        shard = log_int(rng, 1, 16384)
        out.append((log_int(rng, 1, 65536), chips * shard, log_int(rng, 1, 65536), chips))
    return out


def _link_speed(rng: random.Random) -> float:
    """A made-up one-way link bandwidth, bytes/s, three significant digits."""
    return float(f"{np.exp(rng.uniform(np.log(1e9), np.log(2e12))):.3g}")


def _ints(column: np.ndarray) -> np.ndarray:
    return column.astype(np.int64)


# -- (a) T_math ----------------------------------------------------------------------------------


def _plan_math(rng: random.Random) -> list[Probe]:
    calls = with_arrays([(1, 2, 1, 2), (1024, 8192, 8192, 8), *_bdfn(rng, 8)], _bdfn(rng, 6))
    return [call_probe("t_math", calls)]


def _verify_math(plan: Plan, answers: Answers) -> list[Finding]:
    B, D, F, N = (_ints(c) for c in shape_columns(plan["t_math"]))
    per_chip = np.asarray(t_math(sharded_matmul(B, D, F, N).flops_per_chip, PEAK))
    whole = np.asarray(t_math(matmul(B, D, F).flops, PEAK))
    return [
        compare(
            "t_math(B, D, F, N) on unseen shapes and chip counts, scalars and arrays",
            plan["t_math"],
            answers,
            per_chip.tolist(),
            "T_math is one chip's FLOPs, those of its shard X[B, D/N] · Y[D/N, F], divided by the "
            "H100's dense bf16 peak in FLOP/s",
            [
                (TOTAL_FLOPS_HINT, whole.tolist()),
                (HALF_HINT, (per_chip / 2).tolist()),
                (
                    "give the peak in FLOP/s, not TFLOP/s: T_math is in seconds",
                    (per_chip * 1e12).tolist(),
                ),
            ],
        )
    ]


# -- (b) network bytes and T_comms ---------------------------------------------------------------


def _network_probes(calls: Sequence[Call]) -> list[Probe]:
    return [
        call_probe("network_bytes", [args[:4] for args in calls]),
        call_probe("t_comms", calls),
    ]


def _bdfnw(rng: random.Random, n: int) -> list[Call]:
    return [(*shape, _link_speed(rng)) for shape in _bdfn(rng, n)]


def _plan_network(rng: random.Random) -> list[Probe]:
    fixed = [(1, 2, 1, 2, 1e9), (1024, 8192, 8192, 8, NVLINK), (64, 64, 64, 1, IB)]
    return _network_probes(with_arrays([*fixed, *_bdfnw(rng, 8)], _bdfnw(rng, 6)))


def _verify_network(plan: Plan, answers: Answers) -> list[Finding]:
    B, D, F, N, W = shape_columns(plan["t_comms"])
    B, D, F, N = (_ints(c) for c in (B, D, F, N))
    sent = np.asarray(sharded_matmul(B, D, F, N).network_bytes_per_chip, dtype=float)
    partial = np.asarray(matmul(B, D, F).bytes_written, dtype=float)  # one bf16 Z[B, F]
    scatter = np.asarray(
        sharded_matmul(B, D, F, N, collective="reduce_scatter").network_bytes_per_chip, dtype=float
    )
    own = own_values(answers, "network_bytes")
    carried = Carried(
        None
        if own is None or len(own) != len(W)
        else [ratio(b, w) for b, w in zip(own, W, strict=True)],
        "your network_bytes",
    )
    return [
        compare(
            "network_bytes(B, D, F, N) on unseen shapes and chip counts, scalars and arrays",
            plan["network_bytes"],
            answers,
            sent.tolist(),
            "each chip's partial sum is a bf16 [B, F] matrix; a ring all-reduce sends 2(N−1)/N "
            "times its bytes from each chip (none when N = 1)",
            [
                (ALL_REDUCE_HINT, partial.tolist()),
                (
                    "a ring does not send the whole partial sum to each of the other N − 1 chips: "
                    "each chip sends 2(N−1)/N times its bytes",
                    ((N - 1) * partial).tolist(),
                ),
                (
                    "(N−1)/N of the partial sum is only the reduce-scatter; the all-gather that "
                    "leaves every chip with all of Z sends as much again",
                    scatter.tolist(),
                ),
                (
                    "the partial sums are sent in bf16, two bytes per element, not fp32",
                    (2 * sent).tolist(),
                ),
                ("a bf16 element is two bytes", (sent / 2).tolist()),
                (
                    "the partial sum each chip sends has Z's shape [B, F], whatever D is",
                    (sent * D / F).tolist(),
                ),
            ],
        ),
        compare(
            "t_comms(B, D, F, N, W) on unseen shapes, chip counts and link speeds",
            plan["t_comms"],
            answers,
            np.asarray(t_comms(sent, W)).tolist(),
            "T_comms is the bytes each chip sends divided by the link's one-way bandwidth W in "
            "bytes/s",
            [
                (ALL_REDUCE_HINT, (partial / W).tolist()),
                ("divide the bytes by the bandwidth W, not multiply", (sent * W).tolist()),
            ],
            carried=carried,
        ),
    ]


# -- (c) the critical D, and the regime ----------------------------------------------------------


def _nw(rng: random.Random, n: int) -> list[tuple[int, float]]:
    return [(rng.choice(CHIP_COUNTS), _link_speed(rng)) for _ in range(n)]


def _dnw(rng: random.Random, n: int) -> list[tuple[int, int, float]]:
    """(D, N, W) around the critical D, from a tenth of it to ten times it, D a multiple of N."""
    out = []
    for chips, speed in _nw(rng, n):
        critical = float(critical_contracting_dim(PEAK, speed, chips)) or 1000.0 * chips
        shard = max(1, round(critical * np.exp(rng.uniform(np.log(0.1), np.log(10))) / chips))
        out.append((chips * shard, chips, speed))
    return out


def _at_shard_one(calls: Sequence[Call]) -> tuple[list[Call], list[Call]]:
    """The student's own t_math and t_comms at B = F = 1, D = N (one row per critical_d call)."""
    return [(1, n, 1, n) for n, _ in calls], [(1, n, 1, n, w) for n, w in calls]


def _regime_own(calls: Sequence[Call]) -> tuple[list[Call], list[Call]]:
    """The student's own t_math and t_comms at B = F = 1 for each (D, N, W)."""
    return [(1, d, 1, n) for d, n, _ in calls], [(1, d, 1, n, w) for d, n, w in calls]


def _critical_probes(critical: Sequence[Call], regime: Sequence[Call]) -> list[Probe]:
    math_at, comms_at = _at_shard_one(critical)
    math_regime, comms_regime = _regime_own(regime)
    return [
        call_probe("critical_d", critical),
        call_probe("is_network_bound", regime, "bool"),
        own_probe("t_math", math_at, key="own:t_math@critical"),
        own_probe("t_comms", comms_at, key="own:t_comms@critical"),
        own_probe("t_math", math_regime, key="own:t_math@regime"),
        own_probe("t_comms", comms_regime, key="own:t_comms@regime"),
    ]


def _plan_critical(rng: random.Random) -> list[Probe]:
    fixed = [(2, NVLINK), (8, NVLINK), (2, IB), (1, NVLINK)]
    critical = with_arrays([*fixed, *_nw(rng, 8)], _nw(rng, 6))
    regime = with_arrays(
        [(8192, 2, NVLINK), (8192, 2, IB), (8192, 8, NVLINK), (4096, 1, IB), *_dnw(rng, 14)],
        _dnw(rng, 10),
    )
    return _critical_probes(critical, regime)


def _own_critical(answers: Answers, N: np.ndarray) -> Carried:
    """D₀ · T_comms / T_math at D₀ = N, from the student's own (a) and (b)."""
    source = "your t_math (part (a)) and t_comms (part (b))"
    tm, tc = own_values(answers, "own:t_math@critical"), own_values(answers, "own:t_comms@critical")
    if tm is None or tc is None or not len(tm) == len(tc) == len(N):
        return Carried(None, source)
    return Carried([n * ratio(c, m) for n, m, c in zip(N, tm, tc, strict=True)], source)


def _own_regime(answers: Answers, count: int) -> Carried:
    """T_comms > T_math, from the student's own (a) and (b)."""
    source = "your t_math (part (a)) and t_comms (part (b))"
    tm, tc = own_values(answers, "own:t_math@regime"), own_values(answers, "own:t_comms@regime")
    if tm is None or tc is None or not len(tm) == len(tc) == count:
        return Carried(None, source)
    return Carried([c > m for m, c in zip(tm, tc, strict=True)], source)


def _network_bound(D: float, N: int, W: float) -> bool | None:
    """The reference regime, or None within 10⁻⁹ of the critical D (too close to call)."""
    critical = float(critical_contracting_dim(PEAK, W, int(N)))
    if abs(D - critical) <= 1e-9 * max(critical, 1.0):
        return None
    return D < critical


def _verify_critical(plan: Plan, answers: Answers) -> list[Finding]:
    N, W = shape_columns(plan["critical_d"])
    N = _ints(N)
    critical = np.asarray(critical_contracting_dim(PEAK, W, N), dtype=float)
    two_chip = np.asarray(critical_contracting_dim(PEAK, W, 2), dtype=float)
    regime = shapes_of(plan["is_network_bound"])
    return [
        compare(
            "critical_d(N, W) on unseen chip counts and link speeds, scalars and arrays",
            plan["critical_d"],
            answers,
            critical.tolist(),
            "the critical D is where T_math = T_comms on the H100: T_math grows with D, T_comms "
            "does not depend on it; solve for D",
            [
                (
                    "critical_d is the whole contracting dimension D, N shards of D/N: you gave "
                    "one chip's shard",
                    (critical / N).tolist(),
                ),
                (
                    "2C/W holds for two chips only: with N chips the all-reduce sends 2(N−1)/N "
                    "partial sums per chip, and each chip computes D/N",
                    np.where(N == 1, 0.0, two_chip).tolist(),
                ),
                (ALL_REDUCE_HINT, (N * two_chip / 2).tolist()),
            ],
            carried=_own_critical(answers, N),
        ),
        compare_bools(
            "is_network_bound(D, N, W) on unseen sizes, chip counts and link speeds",
            plan["is_network_bound"],
            answers,
            [_network_bound(*args) for args in regime],
            "the split is network-bound where T_comms exceeds T_math, that is where D falls "
            "below the critical D for N chips and that link",
            carried=_own_regime(answers, len(regime)),
        ),
    ]


# -- (d) the H100 inside a node and between nodes ------------------------------------------------

VALUES = tuple(
    (f"d_crit_{name}_{n}", key, n)
    for name, key in (("nvlink", "nvlink_bytes_per_s"), ("ib", "ib_bytes_per_s"))
    for n in COUNTS
)
"""(named value, its link's named bandwidth, N) for each critical D part (d) asks for."""

BIDIRECTIONAL_HINT = (
    "the datasheet's 900GB/s adds both directions of all 18 NVLinks; a ring sends one way at a "
    "time: W is one-way"
)
BITS_HINT = "InfiniBand's 400 Gb/s is in gigabits per second: eight bits to a byte"
PER_DIRECTION_HINT = "400 Gb/s is already the rate in each direction (full duplex): do not halve it"
ROUNDED_HINT = "do not round the critical D: the grader compares it to a relative 10⁻⁶"
ONE_LINK_HINT = "W is per GPU: all 18 NVLinks to the switch together, not one of them"
CRITICAL_D_HINT = (
    "the critical D for N = {n} on the H100's dense bf16 peak over that link's one-way bandwidth "
    "(your critical_d at it)"
)
SET_CRITICAL_D_HINT = "set {name} with your critical_d for N = {n} at {key}"
"""Templates (filled in for each N and link): the Chinese catalog translates each once."""


def _plan_links(rng: random.Random) -> list[Probe]:
    return [
        value_probe("nvlink_bytes_per_s"),
        value_probe("ib_bytes_per_s"),
        *[value_probe(name) for name, _, _ in VALUES],
        own_probe("critical_d", [(n, NVLINK if "nvlink" in key else IB) for _, key, n in VALUES]),
    ]


def _verify_links(plan: Plan, answers: Answers) -> list[Finding]:
    findings = [
        compare(
            "nvlink_bytes_per_s, NVLink 4 one-way per GPU",
            plan["nvlink_bytes_per_s"],
            answers,
            [NVLINK],
            "W is what one GPU sends one way over all its NVLinks, in bytes/s",
            [
                (BIDIRECTIONAL_HINT, [2 * NVLINK]),
                (ONE_LINK_HINT, [NVLINK_PER_PORT]),
                (ONE_LINK_HINT, [2 * NVLINK_PER_PORT]),
            ],
        ),
        compare(
            "ib_bytes_per_s, InfiniBand NDR one-way per GPU",
            plan["ib_bytes_per_s"],
            answers,
            [IB],
            "W is what one GPU sends one way over its InfiniBand port, in bytes/s",
            [(BITS_HINT, [8 * IB]), (PER_DIRECTION_HINT, [IB / 2])],
        ),
    ]
    own = own_values(answers, "own:critical_d")
    for i, (name, key, n) in enumerate(VALUES):
        link = NVLINK if "nvlink" in key else IB
        headline = (BIDIRECTIONAL_HINT, 2 * NVLINK) if "nvlink" in key else (BITS_HINT, 8 * IB)
        findings.append(
            compare(
                f"{name}, the critical D for {n} GPUs over {'NVLink' if 'nvlink' in key else 'InfiniBand'}",
                plan[name],
                answers,
                [float(critical_contracting_dim(PEAK, link, n))],
                CRITICAL_D_HINT.format(n=n),
                [
                    (headline[0], [float(critical_contracting_dim(PEAK, headline[1], n))]),
                    (ROUNDED_HINT, [round(float(critical_contracting_dim(PEAK, link, n)))]),
                    (ROUNDED_HINT, [math.ceil(float(critical_contracting_dim(PEAK, link, n)))]),
                ],
                carried=Carried(
                    None if own is None or len(own) != len(VALUES) else [own[i]],
                    "your critical_d (part (c))",
                ),
            )
        )
    return findings


HAND_SHAPES = [(1, 2, 1, 2), (2, 3, 5, 3), ([1, 2], [4, 6], [3, 5], [2, 3])]
"""The visible checks' shapes (B, D, F, N): small enough to work out by hand."""
HAND_LINKS = [(2, 3, 5, 3, 1e9), (1, 2, 1, 2, 2e9), ([2, 1], [3, 4], [5, 1], [3, 4], [1e9, 1e9])]
HAND_CRITICAL = [(2, PEAK), (4, PEAK), ([1, 3], [PEAK, PEAK])]
"""With W equal to the peak C the critical D is simply 2(N − 1)."""
HAND_REGIME = [(8192, 2, NVLINK), (8192, 2, IB), (4, 4, PEAK), ([8, 2], [4, 1], [PEAK, PEAK])]

TITLE = "A matmul split over chips"
"""The notebook header's title, after "Problem 7 · "."""
QUESTION = (
    "Split a bf16 matmul along its contracting dimension over N GPUs: how large must D be for the "
    "GPUs to compute longer than they talk, inside a node (NVLink) and between nodes (InfiniBand)?"
)
"""The question under the title (the header is rendered from checks/header.md)."""
TITLE_ZH = "切分到多个芯片上的矩阵乘法"
"""The Chinese header's title, after "习题 7 · "."""
QUESTION_ZH = (
    "把一个 bf16 矩阵乘法沿收缩维度切分到 N 块 GPU 上：D 要多大，"
    "GPU 计算的时间才会比通信的时间长？节点内（NVLink）和节点间（InfiniBand）分别如何？"
)
"""The question in Chinese (rendered from checks/header.zh_CN.md, below the English)."""

PARTS = (
    Part(
        "p7a_math",
        "problem7",
        "a",
        "T_math per chip",
        points=2,
        check=Check(_plan_math, _verify_math, visible_calls=(call_probe("t_math", HAND_SHAPES),)),
    ),
    Part(
        "p7b_network",
        "problem7",
        "b",
        "network bytes and T_comms per chip",
        points=3,
        check=Check(
            _plan_network, _verify_network, visible_calls=tuple(_network_probes(HAND_LINKS))
        ),
    ),
    Part(
        "p7c_critical",
        "problem7",
        "c",
        "the critical D and the regime",
        points=2,
        check=Check(
            _plan_critical,
            _verify_critical,
            visible_calls=tuple(_critical_probes(HAND_CRITICAL, HAND_REGIME)),
        ),
    ),
    Part(
        "p7d_links",
        "problem7",
        "d",
        "inside a node and between nodes",
        points=3,
        check=Check(
            _plan_links,
            _verify_links,
            visible_values=(
                Relation(
                    "nvlink_bytes_per_s", "NVLINK4_HEADLINE_BYTES_PER_S", BIDIRECTIONAL_HINT, False
                ),
                Relation("ib_bytes_per_s", "IB_NDR_PORT_BITS_PER_S", BITS_HINT, False),
                Within(
                    "nvlink_bytes_per_s",
                    1e10,
                    "NVLINK4_HEADLINE_BYTES_PER_S",
                    "a bandwidth in bytes/s, one way, no more than the datasheet's headline",
                ),
                Within(
                    "ib_bytes_per_s",
                    1e9,
                    "IB_NDR_PORT_BITS_PER_S",
                    "a bandwidth in bytes/s, one way, no more than the port's bit rate",
                ),
                *[
                    Relation(
                        name,
                        f"critical_d({n}, {key})",
                        SET_CRITICAL_D_HINT.format(name=name, n=n, key=key),
                    )
                    for name, key, n in VALUES
                ],
            ),
        ),
    ),
)
