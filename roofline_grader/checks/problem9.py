"""Problem 9: one decode step of Llama-3-8B on an H100 SXM, on the back of an envelope.

References, all from ``roofline_lib``: ``transformer.kv_cache_bytes_per_token`` (2·L·H_kv·d·s) and
``Model.kv_cache_bytes_per_token``; ``transformer.decode_step_cost`` (weights read once, P·s, plus
each request's KV cache; 2·P FLOPs per token plus ``decode_attention``'s), the statement's
simplified step; ``critical_batch_size`` in its B ≪ D, F limit (I*·s/2) on made-up chips and on the
H100; ``estimate_inference(...).max_batch`` (weights and caches in HBM, activations not counted);
and ``analyze(decode_step_cost(...), H100).lower_bound_s`` for the inter-token latency bound.

Parts (a) and (b) are probed on unseen model shapes (random L, H, H_kv with H_kv dividing H, d, and
the parameter count P of a random model of that shape) and dtypes; (c) on made-up chips; (d) and
(e) on unseen batches and contexts of the given model and chip. Later parts are carried forward
from the student's own KV bytes per token ((a)) and decode FLOPs and bytes ((b)).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np

from roofline_lib import Chip, Cost, MatmulDtypes, analyze, chapter, critical_batch_size, get_chip
from roofline_lib.transformer import (
    Model,
    decode_step_cost,
    estimate_inference,
    get_model,
    kv_cache_bytes_per_token,
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
    call_probe,
    compare,
    log_int,
    own_probe,
    own_values,
    ratio,
    shapes_of,
    value_probe,
)

MODEL = get_model(chapter.PROBLEM_9_MODEL)
H100 = get_chip(chapter.PROBLEM_9_CHIP)
DTYPE = chapter.PROBLEM_9_DTYPE
S_BYTES = 2.0
"""Bytes per bf16 element, the given model's weights and KV cache."""
PEAK = H100.peak(DTYPE)
BANDWIDTH = H100.hbm_bandwidth_bytes_per_s


def _hbm_capacity_bytes(chip: Chip) -> float:
    """The chip's HBM capacity, bytes (the catalog gives the H100's: part (d) needs it)."""
    if chip.hbm_capacity_bytes is None:
        raise ValueError(f"{chip.name} publishes no HBM capacity: problem 9's part (d) needs it")
    return chip.hbm_capacity_bytes


CAPACITY = _hbm_capacity_bytes(H100)
SHAPE = (MODEL.params, MODEL.layers, MODEL.heads, MODEL.kv_heads, MODEL.d)
"""The given model's (P, L, H, H_kv, d), the first arguments of decode_bytes and decode_flops."""

DTYPE_OF = {0.5: "fp4", 1.0: "int8", 2.0: "bf16", 4.0: "fp32"}
"""The dtype of each byte size s the checks try."""
HEAD_DIMS = (64, 80, 96, 128, 256)

KV_HEADS_HINT = (
    "only the H_kv key/value heads are cached: the G = H/H_kv query heads of a group share one"
)
KV_BOTH_HINT = "each layer caches a key and a value vector per KV head: count both K and V"
S_HINT = "give bytes, not elements: multiply by s bytes per element"
SECONDS_HINT = "give the time in seconds"


def _random_model(rng: random.Random) -> Model:
    """A decoder of random shape (H_kv divides H; d, F and V free), for its parameter count."""
    kv = rng.choice((1, 2, 4, 8, 16))
    heads = kv * rng.choice((1, 2, 4, 8))
    d = rng.choice(HEAD_DIMS)
    width = heads * d
    return Model(
        name="an unseen model",
        layers=log_int(rng, 1, 128),
        d_model=width,
        heads=heads,
        kv_heads=kv,
        mlp_width=256 * max(1, round(width * rng.uniform(2.5, 4.0) / 256)),
        vocab=log_int(rng, 1000, 256_000),
        head_dim=d,
        tied_embeddings=rng.random() < 0.3,
    )


def _shape(model: Model) -> tuple[int, int, int, int, int]:
    return (model.params, model.layers, model.heads, model.kv_heads, model.d)


def _size(rng: random.Random) -> float:
    return rng.choice(tuple(DTYPE_OF))


def _as_arrays(calls: Sequence[Call]) -> Call:
    """The calls as one call whose every argument is a list (elementwise)."""
    return tuple(list(column) for column in zip(*calls, strict=True))


def _floats(values: object) -> list[float]:
    return np.asarray(values, dtype=float).ravel().tolist()


# -- (a) KV-cache bytes per token ------------------------------------------------------------------


def _kv_reference(L: float, kv: float, d: float, s: float) -> float:
    return float(kv_cache_bytes_per_token(int(L), int(kv), int(d), DTYPE_OF[float(s)]))


def _kv_probes(calls: Sequence[Call]) -> list[Probe]:
    return [call_probe("kv_bytes_per_token", calls), value_probe("llama_kv_bytes_per_token")]


def _plan_kv(rng: random.Random) -> list[Probe]:
    drawn = [_random_model(rng) for _ in range(16)]
    rows = [(m.layers, m.kv_heads, m.d, _size(rng)) for m in drawn]
    return _kv_probes([(32, 8, 128, 2), (80, 8, 128, 1), *rows[:8], _as_arrays(rows[8:])])


def _verify_kv(plan: Plan, answers: Answers) -> list[Finding]:
    probe = plan["kv_bytes_per_token"]
    L, kv, d, s = (np.array(c, dtype=float) for c in zip(*shapes_of(probe), strict=True))
    want = [_kv_reference(*row) for row in shapes_of(probe)]
    value = MODEL.kv_cache_bytes_per_token(DTYPE)
    return [
        compare(
            "kv_bytes_per_token(L, H_kv, d, s) on unseen shapes and dtypes, scalars and arrays",
            probe,
            answers,
            want,
            "every layer caches, for every key/value head, one key and one value vector of d "
            "elements of s bytes each",
            [
                (KV_BOTH_HINT, _floats(L * kv * d * s)),
                (S_HINT, _floats(2 * L * kv * d)),
                ("the cache is kept for every layer: multiply by L", _floats(2 * kv * d * s)),
            ],
        ),
        compare(
            "llama_kv_bytes_per_token (Llama-3-8B, bf16)",
            plan["llama_kv_bytes_per_token"],
            answers,
            [value],
            "use the given model's L, H_kv and d, and s for bf16",
            [
                (KV_HEADS_HINT, [value * MODEL.group_size]),
                ("the KV cache is bf16 here: two bytes per element, not four", [2 * value]),
                (
                    "count both K and V, at two bytes per bf16 element",
                    [value / 2],
                ),
            ],
        ),
    ]


# -- (b) one decode step's bytes and FLOPs --------------------------------------------------------


def _step_rows(rng: random.Random) -> list[Call]:
    """(P, L, H, H_kv, d, s, B, S): the given model, unseen models, and one call with arrays of
    batches and contexts."""
    rows: list[Call] = [(*SHAPE, 2.0, 64, 4096), (*SHAPE, 2.0, 1, 1)]
    for _ in range(8):
        rows.append(
            (
                *_shape(_random_model(rng)),
                _size(rng),
                log_int(rng, 1, 1024),
                log_int(rng, 1, 131_072),
            )
        )
    model, s = _random_model(rng), _size(rng)
    batches = [log_int(rng, 1, 1024) for _ in range(6)]
    contexts = [log_int(rng, 1, 131_072) for _ in range(6)]
    rows.append((*_shape(model), s, batches, contexts))
    return rows


def _step_probes(rows: Sequence[Call]) -> list[Probe]:
    flops_rows = [(p, L, h, kv, d, b, S) for (p, L, h, kv, d, _s, b, S) in rows]
    kv_rows = [(L, kv, d, s) for (_p, L, _h, kv, d, s, _b, _S) in rows]
    return [
        call_probe("decode_bytes", rows),
        call_probe("decode_flops", flops_rows),
        own_probe("kv_bytes_per_token", kv_rows),
    ]


def _plan_step(rng: random.Random) -> list[Probe]:
    return _step_probes(_step_rows(rng))


def _step_columns(plan: Plan) -> list[np.ndarray]:
    """P, L, H, H_kv, d, s, B, S per value the decode_bytes probe returns."""
    return [np.array(c, dtype=float) for c in zip(*shapes_of(plan["decode_bytes"]), strict=True)]


def _step_cost(row: Sequence[float]) -> Cost:
    p, L, h, kv, d, s, b, S = row
    return decode_step_cost(int(p), int(L), int(h), int(kv), int(d), int(b), int(S), DTYPE_OF[s])


def _per_value(probe: Probe, own: Sequence[Any]) -> list[Any] | None:
    """A value per call of ``probe`` repeated for each value that call returns (an array call
    returns one per element), or None when there is not one per call."""
    calls = probe.calls or ()
    if len(own) != len(calls):
        return None
    sizes = [max([len(a) for a in args if isinstance(a, list)], default=1) for args in calls]
    return [value for value, n in zip(own, sizes, strict=True) for _ in range(n)]


def _own_step_bytes(answers: Answers, plan: Plan) -> Carried:
    """P·s plus B·S times the student's own KV bytes per token (part (a))."""
    own = own_values(answers, "own:kv_bytes_per_token")
    per_value = None if own is None else _per_value(plan["decode_bytes"], own)
    if per_value is None:
        return Carried(None, "part (a)")
    rows = shapes_of(plan["decode_bytes"])
    return Carried(
        [
            p * s + b * S * k
            for (p, _L, _h, _kv, _d, s, b, S), k in zip(rows, per_value, strict=True)
        ],
        "part (a)",
    )


def _verify_step(plan: Plan, answers: Answers) -> list[Finding]:
    P, L, H, kv, d, s, B, S = _step_columns(plan)
    costs = [_step_cost(row) for row in shapes_of(plan["decode_bytes"])]
    cache = 2 * L * kv * d * s
    weights = P * s
    attention = 4 * B * L * H * S * d
    return [
        compare(
            "decode_bytes(P, L, H, H_kv, d, s, B, S) on unseen models, batches and contexts",
            plan["decode_bytes"],
            answers,
            [float(c.bytes_total) for c in costs],
            "a decode step reads every weight once (P·s bytes, shared by the batch) and each "
            "request's own KV cache of S tokens",
            [
                (
                    "every request has its own KV cache of S tokens: count B of them",
                    _floats(weights + S * cache),
                ),
                (
                    "the weights are read once per step and shared by the whole batch, not once "
                    "per request",
                    _floats(B * weights + B * S * cache),
                ),
                ("a decode step also reads every weight: add P·s bytes", _floats(B * S * cache)),
                (KV_HEADS_HINT, _floats(weights + B * S * 2 * L * H * d * s)),
            ],
            carried=_own_step_bytes(answers, plan),
        ),
        compare(
            "decode_flops(P, L, H, H_kv, d, B, S) on unseen models, batches and contexts",
            plan["decode_flops"],
            answers,
            [float(c.flops) for c in costs],
            "count 2 FLOPs per parameter per token, plus each layer's attention: the new token's "
            "H query heads against S cached keys (Q·Kᵀ) and values (A·V)",
            [
                (
                    "count attention's FLOPs too: in every layer each new token's H query heads "
                    "meet its S cached keys and values",
                    _floats(2 * B * P),
                ),
                (
                    "every query head computes its own scores and output: count H heads, not H_kv",
                    _floats(2 * B * P + 4 * B * L * kv * S * d),
                ),
                ("a multiply-add is two FLOPs", _floats(B * P + attention / 2)),
                (
                    "attention has two matmuls per head, Q·Kᵀ and A·V: count both",
                    _floats(2 * B * P + attention / 2),
                ),
            ],
        ),
    ]


# -- (c) the batch where the weight matmuls turn compute-bound ------------------------------------


def _made_up_critical_batch(peak: float, bandwidth: float, s: float) -> float:
    """The library's B ≪ D, F critical batch on a chip of peak C and bandwidth W, for weights of
    s bytes multiplied (with bf16 activations) at that peak."""
    chip = Chip(
        name="a made-up chip", peak_flops_per_s={"bf16": peak}, hbm_bandwidth_bytes_per_s=bandwidth
    )
    return float(critical_batch_size(chip, MatmulDtypes(y=DTYPE_OF[s], compute="bf16")))


def _critical_probes(chips: Sequence[Call]) -> list[Probe]:
    return [
        call_probe("weights_critical_batch", chips),
        value_probe("h100_weights_critical_batch"),
    ]


def _plan_critical(rng: random.Random) -> list[Probe]:
    chips = []
    for _ in range(10):
        peak = float(f"{np.exp(rng.uniform(np.log(1e13), np.log(5e15))):.3g}")
        bandwidth = float(f"{np.exp(rng.uniform(np.log(1e11), np.log(1e13))):.3g}")
        chips.append((peak, bandwidth, _size(rng)))
    return _critical_probes([(PEAK, BANDWIDTH, 2.0), (PEAK, BANDWIDTH, 1.0), *chips])


def _verify_critical(plan: Plan, answers: Answers) -> list[Finding]:
    chips = shapes_of(plan["weights_critical_batch"])
    C, W, s = (np.array(c, dtype=float) for c in zip(*chips, strict=True))
    value = float(critical_batch_size(H100, DTYPE))
    return [
        compare(
            "weights_critical_batch(C, W, s) on made-up chips and weight dtypes",
            plan["weights_critical_batch"],
            answers,
            [_made_up_critical_batch(*chip) for chip in chips],
            "the weight matmuls do 2·P·B FLOPs on P·s bytes of weights: find the B at which "
            "this intensity reaches the critical intensity C/W",
            [
                ("count 2 FLOPs per weight per token: a multiply and an add", _floats(C * s / W)),
                (
                    "the weights' bytes depend on their dtype: each weight is s bytes",
                    _floats(C / W),
                ),
                (
                    "the critical intensity is C/W, FLOPs per byte: check which rate is on top",
                    _floats(W * s / (2 * C)),
                ),
            ],
        ),
        compare(
            "h100_weights_critical_batch (bf16 weights)",
            plan["h100_weights_critical_batch"],
            answers,
            [value],
            "use the H100's dense bf16 peak and HBM bandwidth, and s for bf16 weights",
            [
                ("do not round the answer", [round(value)]),
                ("do not round the answer", [value // 1]),
            ],
        ),
    ]


# -- (d) the largest batch that fits in HBM --------------------------------------------------------


def _fit_probes(contexts: Sequence[Call]) -> list[Probe]:
    kv_args = (MODEL.layers, MODEL.kv_heads, MODEL.d, S_BYTES)
    return [
        call_probe("max_batch", contexts),
        own_probe("kv_bytes_per_token", [kv_args]),
        value_probe("llama_kv_bytes_per_token", key="own:llama_kv_bytes_per_token"),
    ]


def _plan_fit(rng: random.Random) -> list[Probe]:
    contexts = [(8192,), (131_072,), (10**7,), *((log_int(rng, 1, 10**6),) for _ in range(8))]
    return _fit_probes([*contexts, ([log_int(rng, 1, 10**6) for _ in range(6)],)])


def _fit_from(per_token: Sequence[float] | None, S: np.ndarray, source: str) -> Carried:
    """floor((capacity − P·s) / (S · the student's own KV bytes per token))."""
    if per_token is None or len(per_token) != 1 or not per_token[0] > 0:
        return Carried(None, source)
    free = CAPACITY - MODEL.params * S_BYTES
    return Carried(_floats(np.floor(free / (S * per_token[0]))), source)


def _verify_fit(plan: Plan, answers: Answers) -> list[Finding]:
    (S,) = (np.array(c, dtype=float) for c in zip(*shapes_of(plan["max_batch"]), strict=True))
    est = estimate_inference(MODEL, H100, batch=1, context=S.astype(int), prompt=1)
    per_request = S * MODEL.kv_cache_bytes_per_token(DTYPE)
    weights = MODEL.params * S_BYTES
    exact = (CAPACITY - weights) / per_request
    return [
        compare(
            "max_batch(S) for Llama-3-8B on one H100, on unseen contexts, scalars and arrays",
            plan["max_batch"],
            answers,
            _floats(est.max_batch),
            "the weights and B caches of S tokens must fit in HBM: find the largest whole B",
            [
                ("a batch is a whole number of requests: round down (np.floor)", _floats(exact)),
                (
                    "the largest batch that fits: round down, not to the nearest",
                    _floats(np.round(exact)),
                ),
                (
                    "the weights take their share of HBM first: only what is left holds caches",
                    _floats(np.floor(CAPACITY / per_request)),
                ),
                (
                    "the weights are stored once, shared by every request",
                    _floats(np.floor(CAPACITY / (per_request + weights))),
                ),
            ],
            carried=(
                _fit_from(own_values(answers, "own:kv_bytes_per_token"), S, "part (a)"),
                _fit_from(own_values(answers, "own:llama_kv_bytes_per_token"), S, "part (a)"),
            ),
        )
    ]


# -- (e) the inter-token latency bound -------------------------------------------------------------


def _latency_probes(calls: Sequence[Call]) -> list[Probe]:
    given = [(*SHAPE, *args) for args in calls]
    return [
        call_probe("itl_lower_s", calls),
        call_probe("decode_tokens_per_s", calls),
        own_probe("decode_flops", given),
        own_probe("decode_bytes", [(*SHAPE, S_BYTES, *args) for args in calls]),
    ]


def _plan_latency(rng: random.Random) -> list[Probe]:
    memory = [(log_int(rng, 1, 256), log_int(rng, 256, 131_072)) for _ in range(5)]
    compute = [(log_int(rng, 400, 4096), log_int(rng, 1, 64)) for _ in range(4)]
    batches = [log_int(rng, 1, 4096) for _ in range(6)]
    contexts = [log_int(rng, 1, 131_072) for _ in range(6)]
    return _latency_probes([(64, 4096), (2048, 16), *memory, *compute, (batches, contexts)])


def _own_latency(answers: Answers) -> list[float] | None:
    """max(your FLOPs / C, your bytes / W) from your own decode_flops and decode_bytes."""
    flops = own_values(answers, "own:decode_flops")
    moved = own_values(answers, "own:decode_bytes")
    if flops is None or moved is None or len(flops) != len(moved):
        return None
    return [max(f / PEAK, m / BANDWIDTH) for f, m in zip(flops, moved, strict=True)]


def _tokens(B: np.ndarray, times: list[float] | None) -> list[float] | None:
    """B / T per value: the tokens per second of the student's own times."""
    if times is None or len(times) != len(B):
        return None
    return [ratio(b, t) for b, t in zip(B.tolist(), times, strict=True)]


def _verify_latency(plan: Plan, answers: Answers) -> list[Finding]:
    B, S = (np.array(c, dtype=float) for c in zip(*shapes_of(plan["itl_lower_s"]), strict=True))
    cost = decode_step_cost(*SHAPE, B.astype(int), S.astype(int), DTYPE)
    est = analyze(cost, H100)
    t_math, t_hbm = np.asarray(est.t_math_s), np.asarray(est.t_comms_s)
    lower = np.asarray(est.lower_bound_s)
    own = _own_latency(answers)
    mine = own_values(answers, "itl_lower_s")
    return [
        compare(
            "itl_lower_s(B, S) for Llama-3-8B on one H100, on unseen batches and contexts",
            plan["itl_lower_s"],
            answers,
            _floats(lower),
            "the bound is the larger of the time at peak compute (FLOPs / C) and the time to "
            "move the bytes (bytes / W), with part (b)'s counts",
            [
                (
                    "the lower bound assumes perfect overlap: the larger of the two times, not "
                    "their sum",
                    _floats(t_math + t_hbm),
                ),
                (
                    "large batches over short contexts are compute-bound: take the larger of "
                    "T_math and T_HBM",
                    _floats(t_hbm),
                ),
                (SECONDS_HINT, _floats(1e3 * lower)),
            ],
            carried=Carried(own, "part (b)"),
        ),
        compare(
            "decode_tokens_per_s(B, S), Llama-3-8B on one H100, on unseen batches and contexts",
            plan["decode_tokens_per_s"],
            answers,
            _floats(B / lower),
            "each decode step gives every one of the B requests one token",
            [
                ("each step makes one token per request: B tokens per step", _floats(1 / lower)),
            ],
            carried=(
                Carried(_tokens(B, mine), "your itl_lower_s"),
                Carried(_tokens(B, own), "part (b)"),
            ),
        ),
    ]


# -- the parts -------------------------------------------------------------------------------------

HAND_KV = [(1, 1, 1, 2), (2, 1, 3, 1), ([1, 2], [1, 4], [1, 1], [4, 0.5])]
"""The visible checks' shapes: L, H_kv, d, s small enough to work out by hand."""
HAND_STEP = [(10, 1, 2, 1, 1, 2, 3, 4), (100, 2, 1, 1, 2, 1, 1, 5)]
"""P = 10, L = 1, H = 2, H_kv = 1, d = 1, s = 2, B = 3, S = 4; and a second made-up model."""
HAND_CHIP = [(2e14, 1e12, 2), (2e14, 1e12, 4), (2e14, 1e12, 0.5)]
"""A made-up chip of 2·10¹⁴ FLOP/s and 10¹² bytes/s, with weights of 2, 4 and ½ bytes."""
HAND_CONTEXT = [(1000,), (100_000,), ([1000, 100_000],)]
HAND_STEPS = [(1, 1000), (1024, 8), ([1, 1024], [1000, 8])]

TITLE = "One decode step"
"""The notebook header's title, after "Problem 9 · "."""
QUESTION = (
    "How many requests can Llama-3-8B decode at once on an H100, and how fast does each get its "
    "next token?"
)
"""The question under the title (the header is rendered from checks/header.md)."""
TITLE_ZH = "解码的一步"
"""The Chinese header's title, after "习题 9 · "."""
QUESTION_ZH = "Llama-3-8B 在一块 H100 上能同时解码多少个请求？每个请求多快能拿到下一个 token？"
"""The question in Chinese (rendered from checks/header.zh_CN.md, below the English)."""

PARTS = (
    Part(
        "p9a_kv_cache",
        "problem9",
        "a",
        "KV-cache bytes per token",
        points=2,
        check=Check(
            _plan_kv,
            _verify_kv,
            visible_calls=tuple(_kv_probes(HAND_KV)),
            visible_values=(
                Relation(
                    "llama_kv_bytes_per_token",
                    "kv_bytes_per_token(LLAMA.layers, LLAMA.kv_heads, LLAMA.d, 2)",
                    "set llama_kv_bytes_per_token with your kv_bytes_per_token at Llama-3-8B's "
                    "L, H_kv and d, in bf16",
                ),
            ),
        ),
    ),
    Part(
        "p9b_decode_step",
        "problem9",
        "b",
        "one decode step: HBM bytes and FLOPs",
        points=3,
        check=Check(_plan_step, _verify_step, visible_calls=tuple(_step_probes(HAND_STEP))),
    ),
    Part(
        "p9c_critical_batch",
        "problem9",
        "c",
        "the batch where the weight matmuls turn compute-bound",
        points=2,
        check=Check(
            _plan_critical,
            _verify_critical,
            visible_calls=tuple(_critical_probes(HAND_CHIP)),
            visible_values=(
                Relation(
                    "h100_weights_critical_batch",
                    "weights_critical_batch(H100_PEAK_BF16_FLOPS_PER_S, H100_HBM_BYTES_PER_S, 2)",
                    "set h100_weights_critical_batch with your weights_critical_batch at the "
                    "H100's figures, for bf16 weights",
                ),
            ),
        ),
    ),
    Part(
        "p9d_max_batch",
        "problem9",
        "d",
        "the largest batch that fits in HBM",
        points=2,
        check=Check(
            _plan_fit,
            _verify_fit,
            visible_calls=tuple(_fit_probes(HAND_CONTEXT)),
        ),
    ),
    Part(
        "p9e_latency",
        "problem9",
        "e",
        "the inter-token latency bound and tokens per second",
        points=3,
        check=Check(
            _plan_latency, _verify_latency, visible_calls=tuple(_latency_probes(HAND_STEPS))
        ),
    ),
)
