"""Problem 6: standard and flash attention for Q, K, V, O of shape bf16[H, S, d].

References: ``roofline_lib.standard_attention`` and ``roofline_lib.flash_attention`` (their
docstrings are the byte models the statement spells out), ``roofline_lib.analyze`` on the H100 SXM
for the regime, and ``roofline_lib.standard_attention_critical_seq_len``. Limits are the
intensities at S = 10¹² (standard) or S = 10⁹·M (flash), within 10⁻⁸ of the limit.

H counts heads, S is the sequence length and d the head dimension (the book's notation). The
probes call a student's functions positionally, so a submission written with the old parameter
names (B, N, d) grades the same.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import numpy as np

from roofline_lib import (
    analyze,
    chapter,
    critical_intensity,
    flash_attention,
    get_chip,
    standard_attention,
    standard_attention_critical_seq_len,
)

from .base import (
    Answers,
    Call,
    Carried,
    Check,
    Finding,
    Holds,
    Part,
    Plan,
    Probe,
    Relation,
    Within,
    call_probe,
    carried_from,
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

H100 = get_chip(chapter.PROBLEM_6_CHIP)
I_STAR = float(critical_intensity(H100))
HEAD_DIMS = (16, 32, 64, 80, 96, 128, 192, 256)


def _hsd(rng: random.Random, n: int) -> list[tuple[int, int, int]]:
    return [(log_int(rng, 1, 64), log_int(rng, 1, 32768), rng.choice(HEAD_DIMS)) for _ in range(n)]


def _own_limit(answers: Answers, key: str, source: str) -> Carried:
    return Carried(own_values(answers, key), source)


LIMIT_S = 1e12
"""The student's own intensity at S = 10¹² stands for its S ≫ d limit (as the reference's does)."""


def _plan_standard(rng: random.Random) -> list[Probe]:
    calls = with_arrays([(1, 1, 1), (2, 4096, 128), *_hsd(rng, 8)], _hsd(rng, 8))
    return [call_probe("standard_flops", calls), call_probe("standard_bytes", calls)]


def _verify_standard(plan: Plan, answers: Answers) -> list[Finding]:
    H, S, d = shape_columns(plan["standard_flops"])
    cost = standard_attention(H, S, d)
    return [
        compare(
            "standard_flops(H, S, d) on unseen shapes, scalars and arrays",
            plan["standard_flops"],
            answers,
            np.asarray(cost.flops).tolist(),
            "count the FLOPs of the two matmuls, Q·Kᵀ and A·V, at 2 per multiply-add",
            [
                (
                    "there are two matmuls, Q·Kᵀ and A·V: count the FLOPs of both",
                    (2 * H * S * S * d).tolist(),
                )
            ],
        ),
        compare(
            "standard_bytes(H, S, d) on unseen shapes, scalars and arrays",
            plan["standard_bytes"],
            answers,
            np.asarray(cost.bytes_total).tolist(),
            "follow the statement's byte model: each of the three steps reads its inputs from HBM "
            "and writes its output back, two bytes per bf16 element",
            [
                (
                    "standard attention writes the scores and the weights A to HBM and reads them "
                    "back: count the S×S matrices",
                    (8 * H * S * d).tolist(),
                ),
                (
                    "the scores are written by Q·Kᵀ and read by the softmax, A written by the "
                    "softmax and read by A·V: four passes over an S×S matrix",
                    (8 * H * S * d + 4 * H * S * S).tolist(),
                ),
                ("bf16 elements are two bytes each", (4 * H * S * d + 4 * H * S * S).tolist()),
            ],
        ),
    ]


def _standard_intensity_probes(calls: Sequence[Call], dims: Sequence[Call]) -> list[Probe]:
    at_limit = [(1, LIMIT_S, d) for (d,) in dims]
    return [
        call_probe("standard_intensity", calls),
        call_probe("standard_intensity_limit", dims),
        own_probe("standard_flops", calls),
        own_probe("standard_bytes", calls),
        own_probe("standard_intensity", at_limit, key="own:standard_intensity_at_limit"),
    ]


def _plan_standard_intensity(rng: random.Random) -> list[Probe]:
    calls = with_arrays([(1, 1, 1), *_hsd(rng, 8)], _hsd(rng, 8))
    dims = [(d,) for d in (1, 64, 128)] + [([16, 100, 128, 1000, 4096],)]
    return _standard_intensity_probes(calls, dims)


def _verify_standard_intensity(plan: Plan, answers: Answers) -> list[Finding]:
    H, S, d = shape_columns(plan["standard_intensity"])
    (dims,) = shape_columns(plan["standard_intensity_limit"])
    return [
        compare(
            "standard_intensity(H, S, d) on unseen shapes, scalars and arrays",
            plan["standard_intensity"],
            answers,
            np.asarray(standard_attention(H, S, d).arithmetic_intensity).tolist(),
            "intensity is the FLOPs over the bytes of the statement's byte model",
            carried=carried_from(answers, "part (a)", ratio, "standard_flops", "standard_bytes"),
        ),
        compare(
            "standard_intensity_limit(d), the limit for S ≫ d",
            plan["standard_intensity_limit"],
            answers,
            np.asarray(standard_attention(1, 10**12, dims).arithmetic_intensity).tolist(),
            "let S grow much larger than d in the intensity and keep what remains",
            [("bf16 elements are two bytes each", dims.tolist())],
            carried=_own_limit(
                answers, "own:standard_intensity_at_limit", "your standard_intensity"
            ),
        ),
    ]


def _hsdm(rng: random.Random, n: int) -> list[tuple[int, int, int, int]]:
    return [(*hsd, rng.choice((16, 32, 64, 100, 128, 256, 1000))) for hsd in _hsd(rng, n)]


def _flash_probes(calls: Sequence[Call], tiles: Sequence[Call]) -> list[Probe]:
    at_limit = [
        (1, [LIMIT_S / 1e3 * m for m in M] if isinstance(M, list) else LIMIT_S / 1e3 * M, 128, M)
        for (M,) in tiles
    ]
    return [
        call_probe("flash_bytes", calls),
        call_probe("flash_intensity", calls),
        call_probe("flash_intensity_limit", tiles),
        own_probe("standard_flops", [args[:3] for args in calls]),
        own_probe("flash_intensity", at_limit, key="own:flash_intensity_at_limit"),
    ]


def _plan_flash(rng: random.Random) -> list[Probe]:
    calls = with_arrays([(1, 1, 1, 1), (1, 1000, 64, 128), *_hsdm(rng, 8)], _hsdm(rng, 8))
    tiles = [(m,) for m in (1, 64, 128)] + [([16, 100, 1000],)]
    return _flash_probes(calls, tiles)


def _flash_carried(answers: Answers) -> Carried:
    """The student's own FLOPs (part (a)) over their own flash_bytes (this part)."""
    source = "your standard_flops (part (a)) and flash_bytes"
    flops, moved = own_values(answers, "own:standard_flops"), own_values(answers, "flash_bytes")
    if flops is None or moved is None or len(flops) != len(moved):
        return Carried(None, source)
    return Carried([ratio(f, m) for f, m in zip(flops, moved, strict=True)], source)


def _verify_flash(plan: Plan, answers: Answers) -> list[Finding]:
    H, S, d, M = shape_columns(plan["flash_bytes"])
    cost = flash_attention(H, S, d, M)
    (tiles,) = shape_columns(plan["flash_intensity_limit"])
    return [
        compare(
            "flash_bytes(H, S, d, M) on unseen shapes, scalars and arrays",
            plan["flash_bytes"],
            answers,
            np.asarray(cost.bytes_total).tolist(),
            "Q is read once, K and V once per tile of M query rows, O written once",
            [
                (
                    "a partial last tile still streams all of K and V: there are ⌈S/M⌉ tiles "
                    "(np.ceil for arrays)",
                    (4 * H * S * d + 4 * (S / M) * H * S * d).tolist(),
                ),
                (
                    "K and V are streamed through on-chip memory once per tile of Q, not once in all",
                    (8 * H * S * d).tolist(),
                ),
            ],
        ),
        compare(
            "flash_intensity(H, S, d, M) on unseen shapes, scalars and arrays",
            plan["flash_intensity"],
            answers,
            np.asarray(cost.arithmetic_intensity).tolist(),
            "intensity is the FLOPs (as in standard attention) over flash attention's bytes",
            carried=_flash_carried(answers),
        ),
        compare(
            "flash_intensity_limit(M), the limit for S ≫ M",
            plan["flash_intensity_limit"],
            answers,
            np.asarray(flash_attention(1, 10**9 * tiles, 128, tiles).arithmetic_intensity).tolist(),
            "let S grow much larger than M in the intensity and keep what remains",
            carried=_own_limit(answers, "own:flash_intensity_at_limit", "your flash_intensity"),
        ),
    ]


def _regime_probes(calls: Sequence[Call]) -> list[Probe]:
    return [
        call_probe("is_memory_bound", calls, "bool"),
        own_probe("standard_intensity", [(1, *args) for args in calls]),
        value_probe("critical_seq_len_d128"),
    ]


def _plan_regime(rng: random.Random) -> list[Probe]:
    dims = (64, 128, 256, 512, 600, 640, 1024, 2048, 4096)
    scalars = [(log_int(rng, 1, 10**7), rng.choice(dims)) for _ in range(14)]
    arrays = [(log_int(rng, 1, 10**7), rng.choice(dims)) for _ in range(10)]
    return _regime_probes(with_arrays([(10**6, 128), (2000, 1024), *scalars], arrays))


def _memory_bound(S: float, d: float) -> bool | None:
    """The reference regime, or None when the intensity is within 1e-9 of the critical one."""
    estimate = analyze(standard_attention(1, S, d), H100)
    if abs(float(estimate.arithmetic_intensity) - I_STAR) <= 1e-9 * I_STAR:
        return None
    return estimate.regime == "memory-bound"


def _verify_regime(plan: Plan, answers: Answers) -> list[Finding]:
    probe = plan["is_memory_bound"]
    expected = [_memory_bound(S, d) for S, d in shapes_of(probe)]
    n_star = standard_attention_critical_seq_len(128, I_STAR)
    return [
        compare_bools(
            "is_memory_bound(S, d) on an H100, scalars and arrays",
            probe,
            answers,
            expected,
            "compare standard attention's intensity with the H100's critical intensity (dense bf16 "
            "peak over HBM bandwidth); it is memory-bound when it falls short",
            carried=carried_from(answers, "part (b)", lambda i: i < I_STAR, "standard_intensity"),
        ),
        compare(
            "critical_seq_len_d128",
            plan["critical_seq_len_d128"],
            answers,
            [n_star],
            "compare the most intensity standard attention reaches for d = 128 (its S ≫ d limit) "
            "with the H100's critical intensity: is there an S at which it becomes compute-bound?",
        ),
    ]


HAND = [(1, 2, 3), ([1, 2], [2, 4], [3, 8])]
"""The visible checks' shapes: H = 1, S = 2, d = 3 by hand, and two at once as arrays."""

TITLE = "Standard and flash attention"
"""The notebook header's title, after "Problem 6 · "."""
QUESTION = "Why is standard attention memory-bound, and how does flash attention fix it?"
"""The question under the title (the header is rendered from checks/header.md)."""
TITLE_ZH = "标准注意力与 FlashAttention"
"""The Chinese header's title, after "习题 6 · "."""
QUESTION_ZH = (
    "为什么标准注意力是内存带宽受限（memory-bound）的？FlashAttention 又是怎样解决这个问题的？"
)
"""The question in Chinese (rendered from checks/header.zh_CN.md, below the English)."""

PARTS = (
    Part(
        "p6a_standard",
        "problem6",
        "a",
        "standard attention: FLOPs and bytes",
        points=2,
        check=Check(
            _plan_standard,
            _verify_standard,
            visible_calls=(call_probe("standard_flops", HAND), call_probe("standard_bytes", HAND)),
        ),
    ),
    Part(
        "p6b_standard_intensity",
        "problem6",
        "b",
        "standard attention: intensity and its limit",
        points=2,
        check=Check(
            _plan_standard_intensity,
            _verify_standard_intensity,
            visible_calls=tuple(_standard_intensity_probes(HAND, [(128,)])),
            visible_values=(
                Relation(
                    "standard_intensity_limit(128)",
                    "standard_intensity(1, 10**12, 128)",
                    "standard_intensity_limit(d) is what your standard_intensity(H, S, d) "
                    "approaches when S is huge: let S grow and keep what remains",
                ),
            ),
            not_shown=("standard_intensity_limit",),
        ),
    ),
    Part(
        "p6c_flash",
        "problem6",
        "c",
        "flash attention: bytes, intensity and its limit",
        points=3,
        check=Check(
            _plan_flash,
            _verify_flash,
            visible_calls=tuple(
                _flash_probes([(1, 2, 3, 1), ([1, 1], [4, 5], [3, 3], [2, 2])], [(128,)])
            ),
            visible_values=(
                Relation(
                    "flash_intensity_limit(128)",
                    "flash_intensity(1, 128 * 10**9, 128, 128)",
                    "flash_intensity_limit(M) is what your flash_intensity(H, S, d, M) approaches "
                    "when S is huge: let S grow and keep what remains",
                ),
            ),
            not_shown=("flash_intensity_limit",),
        ),
    ),
    Part(
        "p6d_regime",
        "problem6",
        "d",
        "when standard attention is memory-bound on an H100",
        points=3,
        check=Check(
            _plan_regime,
            _verify_regime,
            visible_calls=tuple(
                _regime_probes([(10**6, 128), (2000, 1024), ([10**6, 2000], [128, 1024])])
            ),
            visible_values=(
                Within(
                    "critical_seq_len_d128",
                    1,
                    math.inf,
                    "a sequence length: a positive number (the statement says what to write if "
                    "there is none)",
                ),
                Holds(
                    "critical_seq_len_d128",
                    "math.isinf(critical_seq_len_d128) "
                    "or not is_memory_bound(critical_seq_len_d128, 128)",
                    "your is_memory_bound says that d = 128 is still memory-bound at "
                    "S = critical_seq_len_d128, so that S is not where it becomes compute-bound",
                ),
            ),
        ),
    ),
)
