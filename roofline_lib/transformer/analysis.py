"""A whole model on the roofline: prefill and one decode step timed operation by operation.

Each operation on one chip has three times: T_math = FLOPs / C, T_hbm = HBM bytes / W_hbm and
T_net = bytes sent / W_link (one-way, at the link's bandwidth for N chips), from
:func:`~roofline_lib.roofline.analyze`. HBM and the network are separate paths, so its
communication time is T_comms = max(T_hbm, T_net). Its own roofline bound is
max(T_math, T_hbm, T_net); its regime names the largest of the three.

A pass (a prefill, or one decode step) runs its operations one after another, and every chip
runs the same ones on its shard, so a pass has three named times (:class:`PassTimes`), each per
chip and equally the group's wall-clock time:

* the **roofline bound** max(Σ T_math, Σ T_hbm,compulsory, Σ T_net): no chip can do its FLOPs
  faster than C, move the HBM bytes it cannot avoid (the weights, the KV cache read and written;
  not the activations between operations, which a fused kernel keeps on chip) faster than W_hbm,
  or send its bytes faster than W_link, whatever overlaps with what. The only "≥": TTFT ≥ the
  prefill's bound, inter-token latency ≥ the decode step's, decode throughput ≤ B / that bound;
* the **per-operation estimate** Σ_ops max(T_math, T_hbm, T_net): each operation waits for its
  own slowest resource and nothing overlaps *across* operations (a kernel per operation, the
  all-reduce not hidden behind the next matmul). An estimate, not a bound: a fused or
  overlapped implementation beats it, a kernel below peak misses it;
* the **upper bound** Σ_ops (T_math + T_hbm + T_net): nothing overlaps at all, every resource at
  its peak. Real kernels below peak can still be slower.

bound ≤ estimate ≤ upper always. The pass's regime is the resource that sets the bound (the
largest of Σ T_math, Σ T_hbm,compulsory, Σ T_net), not a count of operations.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from typing import Any

import numpy as np

from .._checks import ArrayLike, broadcast, out, positive_count
from ..hardware import Chip, get_chip
from ..roofline import (
    COMPUTE_BOUND,
    MEMORY_BOUND,
    NETWORK_BOUND,
    RooflineEstimate,
    analyze,
    critical_batch_size,
)
from .model import Model
from .models import get_model
from .operations import (
    InferenceDtypes,
    OperationCost,
    check_tensor_parallel,
    end_operations,
    layer_operations,
    weight_bytes_per_chip,
)

SCHEMA_ID = "roofline-course/transformer-estimate/2"
"""The ``schema`` every :meth:`InferenceEstimate.to_json` carries; its JSON Schema is
``estimate.schema.json`` beside this module (:func:`json_schema`)."""


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of :meth:`InferenceEstimate.to_json`."""
    text = resources.files(__package__).joinpath("estimate.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def _regime(t_math: ArrayLike, t_hbm: ArrayLike, t_net: ArrayLike) -> str | np.ndarray:
    """'compute-bound' where T_math ≥ max(T_hbm, T_net), else 'memory-bound' or
    'network-bound' after the larger of the two."""
    tm, th, tn = (np.asarray(t, dtype=np.float64) for t in (t_math, t_hbm, t_net))
    slow = np.where(th >= tn, MEMORY_BOUND, NETWORK_BOUND)
    result = np.where(tm >= np.maximum(th, tn), COMPUTE_BOUND, slow)
    return str(result) if result.ndim == 0 else result


@dataclass(frozen=True)
class Operation:
    """One operation timed on one chip.

    Attributes:
        cost: what it costs (:class:`~roofline_lib.transformer.operations.OperationCost`).
        count: how many times a pass runs it (L for a layer's operation, 1 otherwise).
        hbm: its roofline at HBM.
        network: its roofline on the link (``None`` when nothing is sent).
    """

    cost: OperationCost
    count: int
    hbm: RooflineEstimate
    network: RooflineEstimate | None

    @property
    def name(self) -> str:
        return self.cost.name

    @property
    def flops(self) -> ArrayLike:
        return self.cost.hbm.flops

    @property
    def bytes(self) -> ArrayLike:
        """HBM bytes read and written."""
        return self.cost.hbm.bytes_total

    @property
    def intensity(self) -> ArrayLike:
        """FLOPs per HBM byte."""
        return self.cost.hbm.arithmetic_intensity

    @property
    def t_math_s(self) -> ArrayLike:
        return self.hbm.t_math_s

    @property
    def t_hbm_s(self) -> ArrayLike:
        return self.hbm.t_comms_s

    @property
    def t_network_s(self) -> ArrayLike:
        return 0.0 if self.network is None else self.network.t_comms_s

    @property
    def compulsory_bytes(self) -> ArrayLike:
        """The HBM bytes no implementation avoids: weights read, KV cache read and written.
        Activations between operations are left out (a fused kernel can keep them on chip)."""
        cost = self.cost
        return out(
            np.asarray(cost.weight_bytes)
            + np.asarray(cost.kv_read_bytes)
            + np.asarray(cost.kv_written_bytes)
        )

    @property
    def t_hbm_compulsory_s(self) -> ArrayLike:
        """compulsory bytes / W_hbm."""
        return out(np.asarray(self.compulsory_bytes) / self.hbm.bandwidth_bytes_per_s)

    @property
    def t_comms_s(self) -> ArrayLike:
        """max(T_hbm, T_net): HBM and the link move bytes at the same time."""
        return out(np.maximum(self.t_hbm_s, self.t_network_s))

    @property
    def t_bound_s(self) -> ArrayLike:
        """max(T_math, T_hbm, T_net): this operation's roofline bound (perfect overlap)."""
        return out(np.maximum(self.t_math_s, self.t_comms_s))

    @property
    def t_upper_s(self) -> ArrayLike:
        """T_math + T_hbm + T_net: no overlap, every resource at its peak."""
        return out(np.asarray(self.t_math_s) + self.t_hbm_s + self.t_network_s)

    @property
    def regime(self) -> str | np.ndarray:
        return _regime(self.t_math_s, self.t_hbm_s, self.t_network_s)


def _time(
    cost: OperationCost, count: int, chip: Chip, link: str | None, dtypes: InferenceDtypes
) -> Operation:
    compute = dtypes.matmul.compute
    hbm = analyze(cost.hbm, chip, dtype=compute)
    network = None if cost.network is None else analyze(cost.network, chip, link, dtype=compute)
    return Operation(cost, count, hbm, network)


@dataclass(frozen=True)
class TokenRates:
    """Tokens per second a pass delivers: ``most`` = tokens / bound (no implementation can beat
    it), ``estimate`` = tokens / the per-operation estimate, ``least`` = tokens / the upper bound.
    """

    most: ArrayLike
    estimate: ArrayLike
    least: ArrayLike

    def per_chip(self, n_chips: int) -> TokenRates:
        """The same rates shared over N chips (each / N)."""
        n = float(positive_count("n_chips", n_chips))
        return TokenRates(
            out(np.asarray(self.most) / n),
            out(np.asarray(self.estimate) / n),
            out(np.asarray(self.least) / n),
        )


@dataclass(frozen=True)
class PassTimes:
    """The three named times of a pass (see the module docstring); bound ≤ estimate ≤ upper.

    Attributes:
        bound_s: the roofline bound, max(Σ T_math, Σ T_hbm, Σ T_net).
        estimate_s: the per-operation estimate, Σ_ops max(T_math, T_hbm, T_net).
        upper_s: the upper bound, Σ_ops (T_math + T_hbm + T_net).
    """

    bound_s: ArrayLike
    estimate_s: ArrayLike
    upper_s: ArrayLike

    def rates(self, tokens: ArrayLike) -> TokenRates:
        """``tokens`` per pass as tokens/s at each of the three times."""
        t = np.asarray(tokens, dtype=np.float64)
        return TokenRates(
            out(t / np.asarray(self.bound_s)),
            out(t / np.asarray(self.estimate_s)),
            out(t / np.asarray(self.upper_s)),
        )


@dataclass(frozen=True)
class Pass:
    """A prefill or one decode step of the whole model, on one chip.

    FLOPs and bytes are per chip; the times are per chip and, every chip running the same
    operations in step, the group's too.

    Attributes:
        phase: 'prefill' or 'decode'.
        batch: B, requests.
        tokens: T, tokens through the model (B·S for a prefill, B for a decode step).
        layer: one layer's operations (each ``count`` = L).
        ends: the embedding lookup, final norm and lm head (``count`` = 1).
    """

    phase: str
    batch: ArrayLike
    tokens: ArrayLike
    layer: tuple[Operation, ...]
    ends: tuple[Operation, ...]

    @property
    def operations(self) -> tuple[Operation, ...]:
        return self.layer + self.ends

    def total(self, quantity: str) -> ArrayLike:
        """Σ over operations of count × ``quantity`` (an :class:`Operation` attribute or an
        :class:`~roofline_lib.transformer.operations.OperationCost` one, e.g. 'weight_bytes')."""
        result: Any = 0.0
        for op in self.operations:
            source = op if hasattr(op, quantity) else op.cost
            result = result + op.count * np.asarray(getattr(source, quantity))
        return out(result)

    @property
    def flops(self) -> ArrayLike:
        return self.total("flops")

    @property
    def bytes(self) -> ArrayLike:
        """HBM bytes."""
        return self.total("bytes")

    @property
    def network_bytes(self) -> ArrayLike:
        return self.total("network_bytes")

    @property
    def weight_bytes(self) -> ArrayLike:
        return self.total("weight_bytes")

    @property
    def kv_read_bytes(self) -> ArrayLike:
        return self.total("kv_read_bytes")

    @property
    def kv_written_bytes(self) -> ArrayLike:
        return self.total("kv_written_bytes")

    @property
    def activation_bytes(self) -> ArrayLike:
        return self.total("activation_bytes")

    @property
    def t_math_s(self) -> ArrayLike:
        """Σ T_math."""
        return self.total("t_math_s")

    @property
    def t_hbm_s(self) -> ArrayLike:
        """Σ T_hbm."""
        return self.total("t_hbm_s")

    @property
    def t_network_s(self) -> ArrayLike:
        """Σ T_net."""
        return self.total("t_network_s")

    @property
    def compulsory_bytes(self) -> ArrayLike:
        """HBM bytes no implementation avoids: weights, KV cache read and written."""
        return self.total("compulsory_bytes")

    @property
    def t_hbm_compulsory_s(self) -> ArrayLike:
        """Σ compulsory bytes / W_hbm (≤ Σ T_hbm)."""
        return self.total("t_hbm_compulsory_s")

    @property
    def t_bound_s(self) -> ArrayLike:
        """The roofline bound max(Σ T_math, Σ T_hbm,compulsory, Σ T_net): the pass takes at least
        this, however its operations overlap or fuse."""
        return out(np.maximum(np.maximum(self.t_math_s, self.t_hbm_compulsory_s), self.t_network_s))

    @property
    def t_estimate_s(self) -> ArrayLike:
        """The per-operation estimate Σ_ops max(T_math, T_hbm, T_net) (an estimate, not a
        bound: see the module docstring)."""
        return self.total("t_bound_s")

    @property
    def t_upper_s(self) -> ArrayLike:
        """The upper bound Σ_ops (T_math + T_hbm + T_net): nothing overlaps."""
        return self.total("t_upper_s")

    @cached_property
    def times(self) -> PassTimes:
        """The three named times (each a sum over the operations: worked out once per pass, as
        the TTFT, inter-token latency, throughput and JSON all read them)."""
        return PassTimes(self.t_bound_s, self.t_estimate_s, self.t_upper_s)

    @property
    def regime(self) -> str | np.ndarray:
        """The resource that sets the bound: the largest of Σ T_math, Σ T_hbm,compulsory and
        Σ T_net."""
        return _regime(self.t_math_s, self.t_hbm_compulsory_s, self.t_network_s)

    @property
    def tokens_per_s(self) -> TokenRates:
        """Tokens the pass completes per second, for the whole group of chips: B per decode
        step (one token per request), T = B·S per prefill."""
        done = self.batch if self.phase == "decode" else self.tokens
        return self.times.rates(done)


def _pass(
    model: Model,
    phase: str,
    batch: np.ndarray,
    seq_len: np.ndarray,
    n: int,
    chip: Chip,
    link: str | None,
    dtypes: InferenceDtypes,
) -> Pass:
    tokens = batch * seq_len if phase == "prefill" else batch
    layer = layer_operations(model, phase, batch, seq_len, n, dtypes)
    ends = end_operations(model, batch, tokens, n, dtypes)
    return Pass(
        phase,
        out(batch),
        out(tokens),
        tuple(_time(op, model.layers, chip, link, dtypes) for op in layer),
        tuple(_time(op, 1, chip, link, dtypes) for op in ends),
    )


def decode_critical_batch(
    model: Model | str, chip: Chip | str, n_chips: int = 1, dtypes: InferenceDtypes | None = None
) -> float:
    """The batch B at which every weight matmul of a decode step is compute-bound on HBM.

    For each weight matmul X[B, D_in]·Y[D_in, D_out] on one chip (qkv D→(H + 2H_kv)·d/N, output
    H·d/N→D, mlp up D→m·F/N, mlp down F/N→D, lm head D→⌈V/N⌉; the tiny router is left out),
    :func:`~roofline_lib.roofline.critical_batch_size` with exact bytes,
    B* = I*·s_w·D_in·D_out / (2·D_in·D_out − I*·(s_a·D_in + s_a·D_out)), ≈ I*·s_w/2 when
    B ≪ D_in, D_out; the largest of them. An MoE's experts each see B·k/E tokens (all experts
    touched, uniform routing), so theirs is scaled by E/k. inf if one never is.
    """
    m_, c = get_model(model), get_chip(chip)
    dt = dtypes if dtypes is not None else InferenceDtypes()
    dt.check_on(c)
    n = check_tensor_parallel(m_, n_chips)
    D, d, mm = m_.d_model, m_.d, dt.matmul
    f = m_.mlp_width // n
    shapes = [
        (D, (m_.heads + 2 * m_.kv_heads) // n * d, 1.0),
        (m_.heads // n * d, D, 1.0),
        (D, m_.mlp.up_matrices * f, m_.experts / m_.experts_per_token),
        (f, D, m_.experts / m_.experts_per_token),
        (D, int(np.ceil(m_.vocab / n)), 1.0),
    ]
    return max(
        scale * float(critical_batch_size(c, mm, D=d_in, F=d_out)) for d_in, d_out, scale in shapes
    )


@dataclass(frozen=True)
class InferenceEstimate:
    """A model served on N chips: its prefill, one decode step, and whether it fits.

    The passes' FLOPs and bytes are per chip; the model's sizes (:attr:`Model.params`,
    :attr:`kv_cache_bytes_per_token`) are the whole model's; throughput is the group's, and per
    chip where named so. Attributes:
        model, chip: what runs where.
        n_chips: N, tensor-parallel degree.
        link: the link key the all-reduces cross (``None`` on one chip).
        dtypes: weights, activations and KV cache dtypes.
        batch: B requests; prompt: S of each prefill; context: S each decode step attends to.
        prefill, decode: the two :class:`Pass` es.
        decode_critical_batch: see :func:`decode_critical_batch`.
    """

    model: Model
    chip: Chip
    n_chips: int
    link: str | None
    dtypes: InferenceDtypes
    batch: ArrayLike
    prompt: ArrayLike
    context: ArrayLike
    prefill: Pass
    decode: Pass
    decode_critical_batch: float = field(default=float("nan"))

    @property
    def weight_bytes_per_chip(self) -> float:
        """Weights resident in each chip's HBM (see
        :func:`~roofline_lib.transformer.operations.weight_bytes_per_chip`)."""
        return weight_bytes_per_chip(self.model, self.n_chips, self.dtypes.weights)

    @property
    def kv_cache_bytes_per_token(self) -> float:
        """2·L·H_kv·d·s_kv over the whole model (all chips)."""
        return self.model.kv_cache_bytes_per_token(self.dtypes.kv_cache)

    @property
    def kv_cache_bytes_per_chip(self) -> ArrayLike:
        """B·S·2·L·H_kv·d·s_kv / N: the caches of B requests of context S, split by KV head."""
        b, s = np.asarray(self.batch), np.asarray(self.context)
        return out(b * s * self.kv_cache_bytes_per_token / self.n_chips)

    @property
    def hbm_capacity_bytes(self) -> float:
        if self.chip.hbm_capacity_bytes is None:
            raise ValueError(f"{self.chip.name} publishes no HBM capacity; fit is unknown")
        return self.chip.hbm_capacity_bytes

    @property
    def fits_in_hbm(self) -> bool | np.ndarray:
        """weights + KV caches ≤ HBM capacity, per chip (activations are not counted)."""
        total = self.weight_bytes_per_chip + np.asarray(self.kv_cache_bytes_per_chip)
        result = total <= self.hbm_capacity_bytes
        return bool(result) if result.ndim == 0 else result

    @property
    def max_batch(self) -> ArrayLike:
        """Largest B that fits at this context: ⌊(capacity − weights) / (S·kv per token / N)⌋,
        0 when the weights alone do not fit."""
        free = self.hbm_capacity_bytes - self.weight_bytes_per_chip
        per_request = np.asarray(self.context) * self.kv_cache_bytes_per_token / self.n_chips
        return out(np.floor(np.maximum(free, 0.0) / per_request))

    @property
    def ttft(self) -> PassTimes:
        """Time to first token: the prefill's three times (TTFT ≥ ``ttft.bound_s``)."""
        return self.prefill.times

    @property
    def itl(self) -> PassTimes:
        """Inter-token latency: the decode step's three times (ITL ≥ ``itl.bound_s``)."""
        return self.decode.times

    @property
    def decode_tokens_per_s(self) -> TokenRates:
        """Decode throughput of the whole group of N chips: at most B / ``itl.bound_s``."""
        return self.decode.tokens_per_s

    @property
    def decode_tokens_per_s_per_chip(self) -> TokenRates:
        """:attr:`decode_tokens_per_s` / N."""
        return self.decode_tokens_per_s.per_chip(self.n_chips)

    @property
    def link_one_way_bytes_per_s(self) -> float | None:
        """The one-way bandwidth each chip's all-reduces are timed at: the link's for a group of
        N chips (its topology decides how many ports it drives); ``None`` on one chip."""
        if self.link is None:
            return None
        return float(self.chip.bandwidth(self.link, self.n_chips))

    def to_json(self) -> dict[str, Any]:
        """The estimate as JSON-ready values (arrays as lists), in the layout of
        ``estimate.schema.json`` beside this module (:data:`SCHEMA_ID`): every figure is in a
        section that says its scope ("model": the whole model; "per_chip": one chip of the N;
        "group": all N chips together; a pass's times are per chip and the group's alike)."""

        def plain(value: object) -> Any:
            arr = np.asarray(value)
            return arr.item() if arr.ndim == 0 else arr.tolist()

        def times_json(t: PassTimes) -> dict[str, Any]:
            return {
                "bound_s": plain(t.bound_s),
                "estimate_s": plain(t.estimate_s),
                "upper_s": plain(t.upper_s),
            }

        def rates_json(r: TokenRates) -> dict[str, Any]:
            return {"most": plain(r.most), "estimate": plain(r.estimate), "least": plain(r.least)}

        def pass_json(p: Pass) -> dict[str, Any]:
            per_chip = (
                "flops",
                "bytes",
                "network_bytes",
                "weight_bytes",
                "kv_read_bytes",
                "kv_written_bytes",
                "activation_bytes",
                "compulsory_bytes",
                "t_math_s",
                "t_hbm_s",
                "t_hbm_compulsory_s",
                "t_network_s",
            )
            return {
                "tokens": plain(p.tokens),
                "per_chip": {key: plain(getattr(p, key)) for key in per_chip},
                "times": times_json(p.times),
                "regime": plain(p.regime),
                "tokens_per_s": {
                    "group": rates_json(p.tokens_per_s),
                    "per_chip": rates_json(p.tokens_per_s.per_chip(self.n_chips)),
                },
                "operations": [
                    {
                        "name": op.name,
                        "count": op.count,
                        "flops": plain(op.flops),
                        "bytes": plain(op.bytes),
                        "network_bytes": plain(op.cost.network_bytes),
                        "t_math_s": plain(op.t_math_s),
                        "t_hbm_s": plain(op.t_hbm_s),
                        "t_network_s": plain(op.t_network_s),
                        "t_bound_s": plain(op.t_bound_s),
                        "regime": plain(op.regime),
                    }
                    for op in p.operations
                ],
            }

        return {
            "schema": SCHEMA_ID,
            "model": {
                "name": self.model.name,
                "params": self.model.params,
                "active_params": self.model.active_params,
                "kv_cache_bytes_per_token": self.kv_cache_bytes_per_token,
            },
            "hardware": {
                "chip": self.chip.name,
                "n_chips": self.n_chips,
                "link": self.link,
                "link_one_way_bytes_per_s": self.link_one_way_bytes_per_s,
            },
            "workload": {
                "batch": plain(self.batch),
                "prompt": plain(self.prompt),
                "context": plain(self.context),
                "dtypes": {
                    "weights": self.dtypes.weights,
                    "activations": self.dtypes.activations,
                    "kv_cache": self.dtypes.kv_cache,
                    "all_reduce": self.dtypes.collective,
                },
            },
            "per_chip": {
                "weight_bytes": self.weight_bytes_per_chip,
                "kv_cache_bytes": plain(self.kv_cache_bytes_per_chip),
                "hbm_capacity_bytes": self.hbm_capacity_bytes,
                "fits_in_hbm": plain(self.fits_in_hbm),
            },
            "group": {
                "max_batch": plain(self.max_batch),
                "decode_critical_batch": (
                    self.decode_critical_batch if np.isfinite(self.decode_critical_batch) else None
                ),
                "ttft": times_json(self.ttft),
                "itl": times_json(self.itl),
                "decode_tokens_per_s": rates_json(self.decode_tokens_per_s),
            },
            "prefill": pass_json(self.prefill),
            "decode": pass_json(self.decode),
        }


def estimate_inference(
    model: Model | str,
    chip: Chip | str,
    *,
    batch: ArrayLike,
    context: ArrayLike,
    prompt: ArrayLike,
    n_chips: int = 1,
    link: str | None = None,
    dtypes: InferenceDtypes | None = None,
) -> InferenceEstimate:
    """Prefill B prompts of ``prompt`` tokens, and one decode step of B requests at ``context``,
    on N chips tensor-parallel over ``link`` (default: the chip's default link; unused on one
    chip). ``batch``, ``context`` and ``prompt`` broadcast as numpy arrays. Raises on a dtype
    the chip lacks, an N that does not divide H, H_kv or F, or a link the chip does not have.
    """
    m_, c = get_model(model), get_chip(chip)
    dt = dtypes if dtypes is not None else InferenceDtypes()
    dt.check_on(c)
    n = check_tensor_parallel(m_, n_chips)
    if link is not None and link not in c.links:
        allowed = ", ".join(repr(k) for k in c.links) or "none"
        raise ValueError(f"{c.name} has no link {link!r}; allowed: {allowed}")
    lk = (link if link is not None else c.default_link) if n > 1 else None
    b, s_ctx, s_prompt = broadcast(
        batch=positive_count("batch", batch),
        context=positive_count("context", context),
        prompt=positive_count("prompt", prompt),
    )
    return InferenceEstimate(
        model=m_,
        chip=c,
        n_chips=n,
        link=lk,
        dtypes=dt,
        batch=out(b),
        prompt=out(s_prompt),
        context=out(s_ctx),
        prefill=_pass(m_, "prefill", b, s_prompt, n, c, lk, dt),
        decode=_pass(m_, "decode", b, s_ctx, n, c, lk, dt),
        decode_critical_batch=decode_critical_batch(m_, c, n, dt),
    )
