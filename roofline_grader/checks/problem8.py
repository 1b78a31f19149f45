"""Problem 8: MFU from a model and a step time (Llama-3-8B on H100 SXMs, chapter.PROBLEM_8).

References: ``roofline_lib.training_flops`` (dense 6·P·B, attention 12·L·S·H·d·B),
``roofline_lib.model_flops_utilization`` and ``roofline_lib.step_time_for_mfu``; the shortest
possible step is ``step_time_for_mfu`` at an MFU of 1. The run's model is
``roofline_lib.get_model(PROBLEM_8.model)`` and its peak the catalog's dense bf16 H100 SXM figure.

The hidden checks call a student's functions on unseen models, each a
``roofline_lib.transformer.Model`` drawn at random (L, D, H, H_kv, d, F, V; P is its ``matmul_params``),
with unseen sequence lengths, token counts, chip counts, peaks and step times. Every FLOP count
is a plain number (the statement asks for scalars), so large counts never overflow an integer
array. A known mistake's values are the library's reference scaled by the factor the mistake
introduces (forward only: a third), never a formula written again here.

Follow-through: (b)'s total is carried from the student's own (a) and attention FLOPs; the run's
MFU (c), its step time for the target MFU (d) and its shortest possible step (e) from the
student's own ``step_flops`` (b); ``is_possible`` (e) from their own ``mfu`` (c).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

from roofline_lib import (
    TrainingFlops,
    chapter,
    get_chip,
    get_model,
    model_flops_utilization,
    step_time_for_mfu,
    training_flops,
)
from roofline_lib.transformer import Model

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
    carried_from,
    compare,
    compare_bools,
    log_int,
    own_probe,
    own_values,
    shapes_of,
    value_probe,
)

RUN = chapter.PROBLEM_8
MODEL = get_model(RUN.model)
PEAK = get_chip(RUN.chip).peak(RUN.dtype)
HEAD_DIMS = (32, 64, 80, 96, 128, 192, 256)
OWN_STEP = "own:step_flops"

SPARSE_HINT = (
    "use the dense bf16 peak the set-up gives: the datasheet's headline counts 2:4 structured "
    "sparsity, a rate no dense model's matmuls reach"
)
CHIPS_HINT = "the run has N chips: divide by the peak of all of them, N·C"
PERCENT_HINT = "give MFU as a fraction between 0 and 1, not a percent"
ATTENTION_HINT = "count every FLOP of the step: 6PB and the attention FLOPs"
INVERTED_HINT = "MFU is the achieved FLOP/s over the peak FLOP/s, not the other way round"
SHORTER_HINT = "a higher MFU means a shorter step: divide by the target MFU"


# -- unseen models and runs ---------------------------------------------------------------------


def _model(rng: random.Random) -> Model:
    """A transformer no student has seen; H·d need not equal D."""
    heads = log_int(rng, 1, 128)
    d = rng.choice(HEAD_DIMS)
    d_model = rng.choice((heads * d, 64 * log_int(rng, 1, 256)))
    return Model(
        name="an unseen model",
        layers=log_int(rng, 1, 128),
        d_model=d_model,
        heads=heads,
        kv_heads=rng.choice([k for k in range(1, heads + 1) if heads % k == 0]),
        mlp_width=log_int(rng, d_model, 4 * d_model),
        vocab=log_int(rng, 1000, 256000),
        head_dim=d,
    )


def _shapes(rng: random.Random, n: int) -> list[tuple[int, int, int, int, int, int]]:
    """n runs (P, L, S, H, d, B): a model, a sequence length S ≥ 2 and B = sequences · S."""
    runs = []
    for _ in range(n):
        model = _model(rng)
        seq_len = log_int(rng, 2, 131072)
        tokens = log_int(rng, 1, 4096) * seq_len
        runs.append((model.matmul_params, model.layers, seq_len, model.heads, model.d, tokens))
    return runs


def _flops(P: float, L: float, S: float, H: float, d: float, B: float) -> TrainingFlops:
    """The library's training FLOPs of a run (dense, attention, total)."""
    return training_flops(P, B, n_layers=L, seq_len=S, attention_width=H * d)


def _step_flops(rng: random.Random, n: int) -> list[float]:
    """FLOPs of n unseen training steps, attention included."""
    return [float(_flops(*run).total) for run in _shapes(rng, n)]


def _hardware(rng: random.Random) -> tuple[int, float]:
    """A chip count N and a dense peak C (FLOP/s), from one chip to a large cluster."""
    return log_int(rng, 1, 16384), 10 ** rng.uniform(13, 15.7)


def _scaled(values: Sequence[float], factor: float) -> list[float]:
    return [float(v) * factor for v in values]


# -- the run of the statement -------------------------------------------------------------------


def _run_args(heads: int = MODEL.heads) -> tuple[int, int, int, int, int, int]:
    """(P, L, S, H, d, B) of the statement's run; ``heads`` H_kv for the grouped-heads mistake."""
    return (MODEL.matmul_params, MODEL.layers, RUN.seq_len, heads, MODEL.d, RUN.tokens_per_step)


RUN_FLOPS = _flops(*_run_args())
STEP_FLOPS = float(RUN_FLOPS.total)


def _own_step(answers: Answers, combine: Callable[[float], float]) -> Carried:
    """``combine`` of the student's own ``step_flops`` (part (b)), if it is a positive number
    (the library refuses any other FLOP count)."""
    own = own_values(answers, OWN_STEP)
    try:
        return Carried(None if own is None else [combine(own[0])], "part (b)")
    except ValueError:
        return Carried(None, "part (b)")


def _shortest(flops: float, n_chips: float, peak: float) -> float:
    """The shortest possible step: every FLOP at the peak of every chip (an MFU of 1)."""
    return float(step_time_for_mfu(flops, 1.0, n_chips, peak))


# -- (a) dense FLOPs ----------------------------------------------------------------------------


def _plan_dense(rng: random.Random) -> list[Probe]:
    calls = [(1, 1), *[(P, B) for P, _, _, _, _, B in _shapes(rng, 11)]]
    return [call_probe("dense_training_flops", calls)]


def _verify_dense(plan: Plan, answers: Answers) -> list[Finding]:
    probe = plan["dense_training_flops"]
    want = [float(training_flops(P, B).dense_flops) for P, B in shapes_of(probe)]
    return [
        compare(
            "dense_training_flops(P, B) on unseen models and token counts",
            probe,
            answers,
            want,
            "each parameter does one multiply-add (2 FLOPs) per token in the forward pass and "
            "twice that in the backward pass",
            [
                (
                    "that is the forward pass only: training adds the backward pass, which costs "
                    "twice the forward (gradients for the activations and for the weights)",
                    _scaled(want, 1 / 3),
                ),
                ("a multiply-add counts as two FLOPs", _scaled(want, 1 / 2)),
                ("that is the backward pass only: add the forward pass", _scaled(want, 2 / 3)),
            ],
        )
    ]


# -- (b) attention FLOPs and the step's total ---------------------------------------------------


def _attention_probes(runs: Sequence[Call], run_calls: Sequence[Call]) -> list[Probe]:
    return [
        call_probe("attention_training_flops", [r[1:] for r in runs]),
        call_probe("training_flops_per_step", runs),
        value_probe("step_flops"),
        own_probe("dense_training_flops", [(r[0], r[5]) for r in runs]),
        own_probe("training_flops_per_step", run_calls),
    ]


def _plan_attention(rng: random.Random) -> list[Probe]:
    return _attention_probes([(1, 1, 2, 1, 1, 2), *_shapes(rng, 11)], [_run_args()])


def _own_total(answers: Answers) -> Carried:
    """The student's own dense FLOPs (part (a)) plus their own attention FLOPs."""
    source = "your dense_training_flops (part (a)) and attention_training_flops"
    dense = own_values(answers, "own:dense_training_flops")
    attention = own_values(answers, "attention_training_flops")
    if dense is None or attention is None or len(dense) != len(attention):
        return Carried(None, source)
    return Carried([a + b for a, b in zip(dense, attention, strict=True)], source)


def _verify_attention(plan: Plan, answers: Answers) -> list[Finding]:
    runs = shapes_of(plan["training_flops_per_step"])
    flops = [_flops(*run) for run in runs]
    attention = [float(f.attention_flops) for f in flops]
    per_sequence = [  # 12·L·S²·H·d: one sequence's attention, not the step's
        float(_flops(P, L, S, H, d, S).attention_flops) for P, L, S, H, d, _ in runs
    ]
    per_token = [float(_flops(P, L, S, H, d, 1).attention_flops) for P, L, S, H, d, _ in runs]
    squared = [a * S for a, (_, _, S, _, _, _) in zip(attention, runs, strict=True)]
    dense = [float(f.dense_flops) for f in flops]
    grouped = float(_flops(*_run_args(MODEL.kv_heads)).total)
    by_sequences = float(_flops(*_run_args()[:5], RUN.sequences_per_step).total)
    return [
        compare(
            "attention_training_flops(L, S, H, d, B) on unseen models and token counts",
            plan["attention_training_flops"],
            answers,
            attention,
            "per token and layer, Q·Kᵀ and A·V each cost 2·S·H·d FLOPs forward, and the backward "
            "pass doubles the forward; multiply by the L layers and the B tokens",
            [
                (
                    "12·L·S²·H·d is one sequence's attention; per token it is 12·L·S·H·d, and a "
                    "step of B tokens costs B times that",
                    squared,
                ),
                ("that is one sequence's attention: the step has B/S sequences", per_sequence),
                ("that is one token's attention: multiply by the step's B tokens", per_token),
                (
                    "that is the forward pass only: with the backward pass it triples",
                    _scaled(attention, 1 / 3),
                ),
                (
                    "count the full S×S score matrix (no causal halving), as the statement says",
                    _scaled(attention, 1 / 2),
                ),
            ],
        ),
        compare(
            "training_flops_per_step(P, L, S, H, d, B) on unseen models and token counts",
            plan["training_flops_per_step"],
            answers,
            [float(f.total) for f in flops],
            "the step's FLOPs are the dense FLOPs of part (a) plus the attention FLOPs",
            [("add the attention FLOPs to the dense FLOPs", dense)],
            carried=_own_total(answers),
        ),
        compare(
            "step_flops, the run's FLOPs per step",
            plan["step_flops"],
            answers,
            [STEP_FLOPS],
            "use your training_flops_per_step with the run's model, sequence length and tokens",
            [
                (
                    "count the query heads H: grouped-query attention shares K and V between "
                    "heads, not the attention FLOPs",
                    [grouped],
                ),
                (ATTENTION_HINT, [float(RUN_FLOPS.dense_flops)]),
                ("B counts the step's tokens: sequences × S", [by_sequences]),
            ],
            carried=carried_from(
                answers, "your training_flops_per_step", float, "training_flops_per_step"
            ),
        ),
    ]


# -- (c) MFU ------------------------------------------------------------------------------------


def _mfu_calls(rng: random.Random, n: int) -> list[tuple[float, float, int, float]]:
    """(flops per step, step time, N, C) with an MFU between 5% and 95%."""
    calls = []
    for flops in _step_flops(rng, n):
        n_chips, peak = _hardware(rng)
        step = float(step_time_for_mfu(flops, rng.uniform(0.05, 0.95), n_chips, peak))
        calls.append((flops, step, n_chips, peak))
    return calls


def _mfu_probes(calls: Sequence[Call]) -> list[Probe]:
    return [call_probe("mfu", calls), value_probe("run_mfu"), value_probe("step_flops", OWN_STEP)]


def _plan_mfu(rng: random.Random) -> list[Probe]:
    return _mfu_probes(_mfu_calls(rng, 12))


def _verify_mfu(plan: Plan, answers: Answers) -> list[Finding]:
    probe = plan["mfu"]
    calls = shapes_of(probe)
    want = [float(model_flops_utilization(*c)) for c in calls]
    T, N = RUN.measured_step_time_s, RUN.n_chips
    run = float(model_flops_utilization(STEP_FLOPS, T, N, PEAK))
    return [
        compare(
            "mfu(flops_per_step, step_time_s, n_chips, peak_flops_per_s) on unseen runs",
            probe,
            answers,
            want,
            "MFU is the FLOP/s the step achieves (its FLOPs over its time) over the peak FLOP/s "
            "of all the chips, a fraction",
            [
                (PERCENT_HINT, _scaled(want, 100)),
                (CHIPS_HINT, [w * n for w, (_, _, n, _) in zip(want, calls, strict=True)]),
                (INVERTED_HINT, [1 / w for w in want]),
                (
                    "the achieved rate is the step's FLOPs divided by its step time",
                    [w * t * t for w, (_, t, _, _) in zip(want, calls, strict=True)],
                ),
            ],
        ),
        compare(
            "run_mfu, the run's MFU",
            plan["run_mfu"],
            answers,
            [run],
            "use your mfu with the run's FLOPs per step (step_flops), its measured step time, its "
            "chips and the dense peak",
            [
                (SPARSE_HINT, [run / 2]),
                (ATTENTION_HINT, [run * float(RUN_FLOPS.dense_flops) / STEP_FLOPS]),
                (PERCENT_HINT, [run * 100]),
                (CHIPS_HINT, [run * N]),
            ],
            carried=_own_step(answers, lambda own: _shortest(own, N, PEAK) / T),
        ),
    ]


# -- (d) the step time for a target MFU ---------------------------------------------------------


def _target_probes(calls: Sequence[Call]) -> list[Probe]:
    return [
        call_probe("step_time_for_mfu", calls),
        value_probe("target_step_time_s"),
        value_probe("step_flops", OWN_STEP),
    ]


def _plan_target(rng: random.Random) -> list[Probe]:
    calls = []
    for flops in _step_flops(rng, 12):
        n_chips, peak = _hardware(rng)
        calls.append((flops, round(rng.uniform(0.05, 1.0), 2), n_chips, peak))
    return _target_probes(calls)


def _verify_target(plan: Plan, answers: Answers) -> list[Finding]:
    probe = plan["step_time_for_mfu"]
    calls = shapes_of(probe)
    want = [float(step_time_for_mfu(*c)) for c in calls]
    u, N = RUN.target_mfu, RUN.n_chips
    run = float(step_time_for_mfu(STEP_FLOPS, u, N, PEAK))
    return [
        compare(
            "step_time_for_mfu(flops_per_step, target_mfu, n_chips, peak_flops_per_s) on unseen "
            "runs",
            probe,
            answers,
            want,
            "solve the MFU's definition for the step time: at the target MFU the chips do the "
            "step's FLOPs at that fraction of their combined peak",
            [
                (SHORTER_HINT, [w * m * m for w, (_, m, _, _) in zip(want, calls, strict=True)]),
                (CHIPS_HINT, [w * n for w, (_, _, n, _) in zip(want, calls, strict=True)]),
                (
                    "the target MFU is already a fraction: do not divide it by 100",
                    _scaled(want, 100),
                ),
            ],
        ),
        compare(
            "target_step_time_s, the run's step time at the target MFU",
            plan["target_step_time_s"],
            answers,
            [run],
            "use your step_time_for_mfu with the run's FLOPs per step (step_flops), the target MFU, "
            "its chips and the dense peak",
            [
                (SPARSE_HINT, [run / 2]),
                (ATTENTION_HINT, [run * float(RUN_FLOPS.dense_flops) / STEP_FLOPS]),
                (CHIPS_HINT, [run * N]),
                (SHORTER_HINT, [run * u * u]),
            ],
            carried=_own_step(answers, lambda own: float(step_time_for_mfu(own, u, N, PEAK))),
        ),
    ]


# -- (e) the shortest possible step, and an impossible measurement ------------------------------


def _possible_probes(shortest_calls: Sequence[Call], possible_calls: Sequence[Call]) -> list[Probe]:
    return [
        call_probe("min_step_time_s", shortest_calls),
        call_probe("is_possible", possible_calls, "bool"),
        value_probe("run_min_step_time_s"),
        value_probe("step_flops", OWN_STEP),
    ]


def _plan_possible(rng: random.Random) -> list[Probe]:
    shortest = []
    for flops in _step_flops(rng, 10):
        shortest.append((flops, *_hardware(rng)))
    possible = []
    for flops in _step_flops(rng, 16):
        n_chips, peak = _hardware(rng)
        factor = math.exp(rng.uniform(math.log(0.3), math.log(3)))  # a step time near the bound
        possible.append((flops, _shortest(flops, n_chips, peak) * factor, n_chips, peak))
    # own mfu (part (c)) on the same calls: is_possible may be written as mfu(...) <= 1
    return [*_possible_probes(shortest, possible), own_probe("mfu", possible)]


def _possible(flops: float, step: float, n_chips: float, peak: float) -> bool | None:
    """Whether the step time is at least the shortest possible; None within 10⁻⁹ of it."""
    shortest = _shortest(flops, n_chips, peak)
    if abs(step - shortest) <= 1e-9 * shortest:
        return None
    return step >= shortest


def _verify_possible(plan: Plan, answers: Answers) -> list[Finding]:
    shortest_probe, possible_probe = plan["min_step_time_s"], plan["is_possible"]
    shortest_calls = shapes_of(shortest_probe)
    want = [_shortest(*c) for c in shortest_calls]
    N = RUN.n_chips
    run = _shortest(STEP_FLOPS, N, PEAK)
    own_mfu = own_values(answers, "own:mfu")
    return [
        compare(
            "min_step_time_s(flops_per_step, n_chips, peak_flops_per_s) on unseen runs",
            shortest_probe,
            answers,
            want,
            "the shortest possible step does every FLOP at the peak of every chip: an MFU of 1",
            [(CHIPS_HINT, [w * n for w, (_, n, _) in zip(want, shortest_calls, strict=True)])],
        ),
        compare_bools(
            "is_possible(flops_per_step, step_time_s, n_chips, peak_flops_per_s) on unseen runs",
            possible_probe,
            answers,
            [_possible(*c) for c in shapes_of(possible_probe)],
            "a step time is possible when it is at least the shortest possible step, that is "
            "when its MFU is at most 1",
            carried=Carried(
                None if own_mfu is None else [m <= 1 for m in own_mfu], "your mfu (part (c))"
            ),
        ),
        compare(
            "run_min_step_time_s, the run's shortest possible step",
            plan["run_min_step_time_s"],
            answers,
            [run],
            "use your min_step_time_s with the run's FLOPs per step (step_flops), its chips and "
            "the dense peak",
            [
                (SPARSE_HINT, [run / 2]),
                (ATTENTION_HINT, [run * float(RUN_FLOPS.dense_flops) / STEP_FLOPS]),
                (CHIPS_HINT, [run * N]),
            ],
            carried=_own_step(answers, lambda own: _shortest(own, N, PEAK)),
        ),
    ]


# -- the parts ----------------------------------------------------------------------------------

HAND_MODEL = ((10, 2, 3, 4, 5, 6),)
"""The visible checks' run: P = 10, L = 2, S = 3, H = 4, d = 5, B = 6 (dense 360, attention
8,640 FLOPs), worked by hand."""
RUN_CALL = (
    "(MODEL.matmul_params, MODEL.layers, SEQ_LEN, MODEL.heads, MODEL.head_dim, "
    "SEQUENCES_PER_STEP * SEQ_LEN)"
)
ON_THE_RUN = "N_CHIPS, H100_PEAK_BF16_FLOPS_PER_S)"

TITLE = "MFU from a model and a step time"
"""The notebook header's title, after "Problem 8 · "."""
QUESTION = (
    "How many FLOPs does one training step of Llama-3-8B cost, what MFU does a measured step time "
    "mean, and which step times can no run on these chips achieve?"
)
"""The question under the title (the header is rendered from checks/header.md)."""
TITLE_ZH = "由模型和单步时间求 MFU"
"""The Chinese header's title, after "习题 8 · "."""
QUESTION_ZH = (
    "Llama-3-8B 训练一步要多少 FLOPs？一个实测的单步时间意味着多大的 MFU？"
    "哪些单步时间是任何训练在这些芯片上都达不到的？"
)
"""The question in Chinese (rendered from checks/header.zh_CN.md, below the English)."""

PARTS = (
    Part(
        "p8a_dense",
        "problem8",
        "a",
        "dense training FLOPs, 6PB",
        points=2,
        check=Check(
            _plan_dense,
            _verify_dense,
            visible_calls=(call_probe("dense_training_flops", [(1, 1), (10, 6), (7, 1000)]),),
        ),
    ),
    Part(
        "p8b_attention",
        "problem8",
        "b",
        "attention FLOPs and the step's total",
        points=2,
        check=Check(
            _plan_attention,
            _verify_attention,
            visible_calls=tuple(_attention_probes([(1, 1, 2, 1, 1, 2), *HAND_MODEL], [])),
            visible_values=(
                Relation(
                    "step_flops",
                    f"training_flops_per_step{RUN_CALL}",
                    "set step_flops with your training_flops_per_step for the run: its model's P, "
                    "L, query heads H and d, its sequence length S and its B tokens per step",
                ),
            ),
        ),
    ),
    Part(
        "p8c_mfu",
        "problem8",
        "c",
        "MFU from a step time",
        points=2,
        check=Check(
            _plan_mfu,
            _verify_mfu,
            visible_calls=tuple(_mfu_probes([(6, 1, 1, 12), (12, 2, 2, 12), (24, 2, 3, 10)])),
            visible_values=(
                Within("run_mfu", 0, 1, PERCENT_HINT),
                Relation(
                    "run_mfu",
                    f"mfu(step_flops, MEASURED_STEP_TIME_S, {ON_THE_RUN}",
                    "set run_mfu with your mfu at the run's FLOPs per step, measured step time, "
                    "chips and dense peak",
                ),
            ),
        ),
    ),
    Part(
        "p8d_target",
        "problem8",
        "d",
        "the step time for a target MFU",
        points=2,
        check=Check(
            _plan_target,
            _verify_target,
            visible_calls=tuple(
                _target_probes([(6, 0.5, 1, 12), (24, 0.5, 2, 12), (60, 0.25, 4, 10)])
            ),
            visible_values=(
                Relation(
                    "target_step_time_s",
                    f"step_time_for_mfu(step_flops, TARGET_MFU, {ON_THE_RUN}",
                    "set target_step_time_s with your step_time_for_mfu at the run's FLOPs per "
                    "step, the target MFU, its chips and the dense peak",
                ),
            ),
        ),
    ),
    Part(
        "p8e_possible",
        "problem8",
        "e",
        "the shortest possible step, and an impossible measurement",
        points=2,
        check=Check(
            _plan_possible,
            _verify_possible,
            visible_calls=tuple(
                _possible_probes(
                    [(12, 2, 3), (100, 4, 5)],
                    [(12, 1, 2, 3), (12, 3, 2, 3), (100, 4, 4, 5), (100, 6, 4, 5)],
                )
            ),
            visible_values=(
                Relation(
                    "run_min_step_time_s",
                    f"min_step_time_s(step_flops, {ON_THE_RUN}",
                    "set run_min_step_time_s with your min_step_time_s at the run's FLOPs per "
                    "step, its chips and the dense peak",
                ),
            ),
        ),
    ),
)
