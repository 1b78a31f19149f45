"""The operations of one transformer layer (and of the model's ends), per chip, as costs.

Tensor parallelism over N chips, Megatron-style: Q, K, V and the MLP's up (and gate) matrices
are split by columns (each chip holds H/N query heads, H_kv/N KV heads and F/N of the MLP), the
output and down projections by rows, so each ends in an all-reduce of its [T, D] result
(:func:`~roofline_lib.sharding.sharded_matmul`, φ = 2(N−1)/N). Norms, residual adds and the router
run on every chip; the vocabulary is split over chips (⌈V/N⌉ rows each).

T is the number of tokens in the pass: B·S for a prefill of B prompts of S tokens, B for one
decode step of B requests. s_w, s_a and s_kv are the bytes per element of the weights, the
activations and the KV cache.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import ArrayLike, UnknownNameError, broadcast, out, positive_count
from ..attention import decode_attention, grouped_heads
from ..costs import Cost, MatmulDtypes, elementwise, matmul
from ..dtypes import bytes_per_element
from ..hardware import Chip
from ..sharding import ShardedMatmulCost, collective_factor, sharded_matmul
from ..words import say_later
from .model import Model, kv_cache_bytes_per_token


@dataclass(frozen=True)
class InferenceDtypes:
    """Storage dtypes of the weights (s_w), the activations (s_a) and the KV cache (s_kv), and
    the dtype the all-reduces send (s_c).

    A matmul multiplies activations by weights at the wider of the two dtypes (int8 weights with
    bf16 activations run at the bf16 rate), as :class:`~roofline_lib.costs.MatmulDtypes` does.
    ``all_reduce`` defaults to the activations' dtype; serving stacks that run fp8 activations
    usually still all-reduce in bf16, which ``all_reduce="bf16"`` says.
    """

    weights: str = "bf16"
    activations: str = "bf16"
    kv_cache: str = "bf16"
    all_reduce: str | None = None

    def __post_init__(self) -> None:
        if self.all_reduce is None:
            object.__setattr__(self, "all_reduce", self.activations)
        for field in ("weights", "activations", "kv_cache", "all_reduce"):
            bytes_per_element(getattr(self, field))  # an unknown name lists the known dtypes

    @property
    def collective(self) -> str:
        """The all-reduces' dtype, resolved (the activations' unless given)."""
        return self.all_reduce if self.all_reduce is not None else self.activations

    @property
    def matmul(self) -> MatmulDtypes:
        """Activations X times weights Y, the result Z in the activations' dtype."""
        return MatmulDtypes(x=self.activations, y=self.weights, z=self.activations)

    def check_on(self, chip: Chip) -> None:
        """Refuse a dtype the chip has no published peak for (fp4 on an H100, fp8 on a TPU v5e)."""
        for field in ("weights", "activations", "kv_cache"):
            dtype = getattr(self, field)
            if dtype not in chip.dtypes:
                raise UnknownNameError(
                    f"{chip.name} has no {dtype} arithmetic, so {field} cannot be {dtype!r}; "
                    f"allowed on {chip.name}: {', '.join(repr(d) for d in chip.dtypes)}"
                )


@dataclass(frozen=True)
class OperationCost:
    """What one operation costs one chip, and which of its HBM bytes are what.

    Attributes:
        name: e.g. ``"qkv projection"``.
        hbm: FLOPs and HBM bytes (:class:`~roofline_lib.costs.Cost`).
        weight_bytes: bytes of weights read (part of ``hbm.bytes_read``).
        kv_read_bytes: bytes of KV cache read.
        kv_written_bytes: bytes of KV cache written.
        network: the all-reduce ending a row-split matmul, or ``None``.
    """

    name: str
    hbm: Cost
    weight_bytes: ArrayLike = 0.0
    kv_read_bytes: ArrayLike = 0.0
    kv_written_bytes: ArrayLike = 0.0
    network: ShardedMatmulCost | None = None

    @property
    def activation_bytes(self) -> ArrayLike:
        """HBM bytes that are neither weights nor KV cache: activations read and written."""
        kv = np.asarray(self.kv_read_bytes) + np.asarray(self.kv_written_bytes)
        return out(np.asarray(self.hbm.bytes_total) - np.asarray(self.weight_bytes) - kv)

    @property
    def network_bytes(self) -> ArrayLike:
        """Bytes each chip sends over the link (0 without an all-reduce)."""
        return 0.0 if self.network is None else self.network.network_bytes_per_chip


def check_tensor_parallel(model: Model, n_chips: int) -> int:
    """N as an int, refused unless it divides H, H_kv and F (each chip holds whole heads)."""
    n = int(positive_count("n_chips", n_chips))
    for count, what in (
        (model.heads, "query heads (heads)"),
        (model.kv_heads, "KV heads (kv_heads)"),
        (model.mlp_width, "MLP width (mlp_width)"),
    ):
        if count % n:
            raise ValueError(
                f"n_chips = {n} does not divide the {count} {what} of {model.name}: "
                "tensor parallelism gives each chip an equal share"
            )
    return n


def _kv_write(model: Model, tokens: np.ndarray, n: int, dt: InferenceDtypes) -> OperationCost:
    """Append K and V for T tokens: 0 FLOPs, 2·T·(H_kv/N)·d·s_kv bytes written."""
    written = 2 * tokens * (model.kv_heads // n) * model.d * bytes_per_element(dt.kv_cache)
    cost = Cost(say_later("kv-cache write"), 0 * tokens, 0 * tokens, written, dt.activations)
    return OperationCost(cost.op, cost, kv_written_bytes=out(written))


def prefill_attention(
    B: ArrayLike,
    S: ArrayLike,
    d: ArrayLike,
    q_heads: ArrayLike,
    kv_heads: ArrayLike,
    dtype: str,
    *,
    causal: bool = True,
) -> Cost:
    """Attention over B prompts of S tokens in one fused (flash) kernel, GQA-aware.

    A decoder's attention is causal: token i attends to tokens 0…i, so each head computes
    S(S+1)/2 scores, not S², and a causal kernel skips the masked tiles. Each score costs 2d
    FLOPs in Q·Kᵀ and 2d in A·V: FLOPs = 4·B·H·d·S(S+1)/2 = 2·B·H·d·S(S+1) (``causal=False``:
    4·B·H·S²·d, the full square, as :func:`~roofline_lib.mfu.training_flops` and Problem 6 count).
    Bytes read = B·S·d·s·(H + 2·H_kv) (Q, and K and V once: each KV head's tiles stay on-chip
    for its G query heads); bytes written = B·S·H·d·s (O), causal or not. For H_kv = H and
    ``causal=False`` this is :func:`~roofline_lib.attention.flash_attention` with a tile of
    M = S rows, its least traffic. Intensity ≈ 2·H·(S+1) / (s·(2H + 2H_kv)) causal: it grows with
    S, so long prompts are compute-bound.
    """
    if not isinstance(causal, bool):
        raise ValueError(f"causal must be True or False, got {causal!r}")
    b, s_, d_, h, hkv = grouped_heads(B, S, d, q_heads, kv_heads)
    s = bytes_per_element(dtype)
    scores = s_ * (s_ + 1) / 2 if causal else s_ * s_
    return Cost(
        "prefill attention",
        4 * b * h * scores * d_,
        b * s_ * d_ * s * (h + 2 * hkv),
        b * s_ * h * d_ * s,
        dtype,
        (("q", dtype), ("k", dtype), ("v", dtype), ("o", dtype)),
    )


def experts_touched(model: Model, tokens: ArrayLike) -> ArrayLike:
    """Expected distinct experts T tokens use, each routed to k of E uniformly and independently:
    E·(1 − (1 − k/E)^T). 1 for a dense MLP; → E as T grows (all of them by T ≈ 3E/k)."""
    t = positive_count("tokens", tokens)
    e, k = model.experts, model.experts_per_token
    return out(e * (1 - (1 - k / e) ** t))


def _mlp_matmul(
    model: Model, tokens: np.ndarray, d_in: float, d_out: float, dt: InferenceDtypes
) -> tuple[Cost, np.ndarray]:
    """An MLP matmul X[T·k, d_in]·Y[d_in, d_out] over the experts the tokens touch.

    It is :func:`~roofline_lib.costs.matmul` of the T·k token-expert pairs, plus the weights of
    the other touched experts: (E_touched − 1)·d_in·d_out·s_w more bytes read. A dense MLP
    (E = k = 1) is exactly the matmul. Returns the cost and its weight bytes.
    """
    pairs = tokens * model.experts_per_token
    base = matmul(pairs, d_in, d_out, dt.matmul)
    one = d_in * d_out * bytes_per_element(dt.weights)
    touched = np.asarray(experts_touched(model, tokens))
    weights = touched * one
    if not model.is_moe:
        return base, weights
    cost = Cost(
        "expert matmul",
        base.flops,
        np.asarray(base.bytes_read) + (touched - 1) * one,
        base.bytes_written,
        base.compute_dtype,
        base.dtypes,
    )
    return cost, weights


def _row_split(
    name: str, hbm: Cost, weights: ArrayLike, tokens: np.ndarray, model: Model, n: int, dt: str
) -> OperationCost:
    """An operation ending in the all-reduce of its partial [T, D] result: φ·T·D·s_c bytes, in
    the all-reduce dtype ``dt``."""
    phi = np.asarray(collective_factor(n))
    network = ShardedMatmulCost(
        out(np.asarray(float(n))),
        "all_reduce",
        hbm,
        out(phi * tokens * model.d_model * bytes_per_element(dt)),
    )
    return OperationCost(name, hbm, weight_bytes=weights, network=network if n > 1 else None)


def layer_operations(
    model: Model,
    phase: str,
    batch: ArrayLike,
    seq_len: ArrayLike,
    n_chips: int,
    dtypes: InferenceDtypes,
) -> tuple[OperationCost, ...]:
    """The operations of one layer on one chip, in order, for ``phase`` 'prefill' or 'decode'.

    ``seq_len`` is S: the prompt length in a prefill (T = B·S tokens), the context each request
    attends to in a decode step (T = B). Weight bytes of a matmul X[T, D_in]·Y[D_in, D_out] are
    D_in·D_out·s_w; with n = N chips:

    * attention norm, mlp norm: RMSNorm over T·D elements (counted as ``"layernorm"``);
    * qkv projection: X[T, D]·Y[D, (H + 2H_kv)·d/N];
    * kv-cache write: 2·T·(H_kv/N)·d·s_kv bytes;
    * attention: :func:`prefill_attention` (causal: S(S+1)/2 scores per head) or
      :func:`~roofline_lib.attention.decode_attention` over H/N and H_kv/N heads, in s_kv;
    * output projection: :func:`~roofline_lib.sharding.sharded_matmul` X[T, H·d]·Y[H·d, D], split
      N ways along H·d, then an all-reduce of φ·T·D·s_c bytes (s_c: ``dtypes.collective``);
    * residual adds: two adds of [T, D], elementwise over 2·T·D elements with 2 inputs;
    * router (MoE only): X[T, D]·Y[D, E] on every chip;
    * mlp up: X[T·k, D]·Y[D, m·F/N] over the experts touched (m = 2 gated, 1 plain);
    * mlp activation: 1 FLOP per element over T·k·F/N elements, m inputs;
    * mlp down: X[T·k, F/N]·Y[F/N, D] over the experts touched, then an all-reduce of
      φ·T·D·s_c bytes.
    """
    n = check_tensor_parallel(model, n_chips)
    b, s_ = broadcast(B=positive_count("batch", batch), S=positive_count("seq_len", seq_len))
    if phase == "prefill":
        tokens = b * s_
    elif phase == "decode":
        tokens = b
    else:
        raise UnknownNameError(f"unknown phase {phase!r}; allowed: 'prefill', 'decode'")
    D, d, act, mm = model.d_model, model.d, dtypes.activations, dtypes.matmul
    sw = bytes_per_element(dtypes.weights)
    hq, hkv, f = model.heads // n, model.kv_heads // n, model.mlp_width // n
    m = model.mlp.up_matrices

    norm = elementwise(tokens * D, "layernorm", act)
    qkv_width = (hq + 2 * hkv) * d
    qkv = matmul(tokens, D, qkv_width, mm)
    if phase == "prefill":
        attn = prefill_attention(b, s_, d, hq, hkv, dtypes.kv_cache)
        kv_read = b * s_ * 2 * hkv * d * bytes_per_element(dtypes.kv_cache)
    else:
        attn = decode_attention(b, s_, d, hq, hkv, dtypes.kv_cache)
        kv_read = 2 * b * hkv * s_ * d * bytes_per_element(dtypes.kv_cache)
    o_proj = sharded_matmul(tokens, model.heads * d, D, n, mm).hbm
    up, up_weights = _mlp_matmul(model, tokens, D, m * f, dtypes)
    down, down_weights = _mlp_matmul(model, tokens, f, D, dtypes)
    ops = [
        OperationCost(say_later("attention norm"), norm),
        OperationCost(
            say_later("qkv projection"), qkv, weight_bytes=D * qkv_width * sw + 0 * tokens
        ),
        _kv_write(model, tokens, n, dtypes),
        OperationCost(say_later("attention"), attn, kv_read_bytes=out(kv_read)),
        _row_split(
            say_later("output projection"),
            o_proj,
            model.heads // n * d * D * sw,
            tokens,
            model,
            n,
            dtypes.collective,
        ),
        OperationCost(say_later("residual adds"), elementwise(2 * tokens * D, 1, act, inputs=2)),
        OperationCost(say_later("mlp norm"), norm),
    ]
    if model.is_moe:
        router = matmul(tokens, D, model.experts, mm)
        ops.append(OperationCost(say_later("router"), router, weight_bytes=D * model.experts * sw))
    ops += [
        OperationCost(say_later("mlp up"), up, weight_bytes=out(up_weights)),
        OperationCost(
            say_later("mlp activation"),
            elementwise(tokens * model.experts_per_token * f, 1, act, inputs=m),
        ),
        _row_split(
            say_later("mlp down"), down, out(down_weights), tokens, model, n, dtypes.collective
        ),
    ]
    return tuple(ops)


def end_operations(
    model: Model, batch: ArrayLike, tokens: ArrayLike, n_chips: int, dtypes: InferenceDtypes
) -> tuple[OperationCost, ...]:
    """The operations outside the layers, once per pass, on one chip.

    * embedding lookup: read T rows of the table, T·D·s_w bytes, write T·D·s_a (0 FLOPs);
    * final norm and lm head on the B last tokens only (one next token per request):
      RMSNorm over B·D elements, and X[B, D]·Y[D, ⌈V/N⌉] (the vocabulary split over chips; the
      logits' reduction to a token, B numbers per chip, is not counted).
    """
    n = check_tensor_parallel(model, n_chips)
    b, t = broadcast(B=positive_count("batch", batch), T=positive_count("tokens", tokens))
    D, act = model.d_model, dtypes.activations
    sw, sa = bytes_per_element(dtypes.weights), bytes_per_element(act)
    vocab = int(np.ceil(model.vocab / n))
    embed = Cost(say_later("embedding lookup"), 0 * t, t * D * sw, t * D * sa, act)
    return (
        OperationCost(embed.op, embed, weight_bytes=out(t * D * sw)),
        OperationCost(say_later("final norm"), elementwise(b * D, "layernorm", act)),
        OperationCost(
            say_later("lm head"),
            matmul(b, D, vocab, dtypes.matmul),
            weight_bytes=out(D * vocab * sw + 0 * b),
        ),
    )


def weight_bytes_per_chip(model: Model, n_chips: int, dtype: str) -> float:
    """Weights resident in one chip's HBM: (P_split/N + P_replicated)·s_w, where the norms and
    the router are replicated and everything else (including the embedding tables, ⌈V/N⌉ rows
    each) is split N ways."""
    n = check_tensor_parallel(model, n_chips)
    replicated = model.norm_params + model.layers * model.router_params
    vocab_rows = int(np.ceil(model.vocab / n))
    embeddings = vocab_rows * model.d_model * (1 if model.tied_embeddings else 2)
    split = model.params - replicated - model.embedding_params
    return (split / n + replicated + embeddings) * bytes_per_element(dtype)


def decode_step_cost(
    params: ArrayLike,
    layers: ArrayLike,
    heads: ArrayLike,
    kv_heads: ArrayLike,
    head_dim: ArrayLike,
    batch: ArrayLike,
    context: ArrayLike,
    dtype: str = "bf16",
) -> Cost:
    """One decode step of a dense model on one chip, on the back of an envelope.

    B requests (``batch``), each one new token against its own cache of S tokens (``context``);
    weights and KV cache both in ``dtype`` (s bytes per element):

    * FLOPs = 2·B·P (one multiply-add per parameter per token) + L·4·B·H·S·d (each layer's
      attention, Q·Kᵀ and A·V: :func:`~roofline_lib.attention.decode_attention`);
    * bytes read = P·s (every weight once, shared by the whole batch; on one chip this is
      :func:`weight_bytes_per_chip`) + B·S·2·L·H_kv·d·s (each request's own K and V caches,
      :func:`~roofline_lib.transformer.model.kv_cache_bytes_per_token`); nothing written.

    Left out: activations, the new tokens' K and V, the norms' FLOPs, and that the embedding
    lookup reads only B rows of its table (counted here as a whole, and as 2·D FLOPs per row).
    :func:`~roofline_lib.transformer.analysis.estimate_inference` counts all of them operation by
    operation; for Llama-3-8B on one H100 at B = 64, S = 4,096 this step's max(T_math, T_HBM)
    and that one's per-operation estimate agree within 1% (the FLOPs here are 6% more: the input
    table's 2·D per token). Arrays
    broadcast.
    """
    p = positive_count("params", params)
    b, s_ = broadcast(B=positive_count("batch", batch), S=positive_count("context", context))
    L = positive_count("layers", layers)
    attention = decode_attention(b, s_, head_dim, heads, kv_heads, dtype)
    cache = kv_cache_bytes_per_token(layers, kv_heads, head_dim, dtype)
    return Cost(
        "decode step",
        2 * b * p + L * np.asarray(attention.flops),
        p * bytes_per_element(dtype) + b * s_ * np.asarray(cache),
        0 * b * p,
        dtype,
    )
