"""A decoder-only transformer's shape, and the parameter and KV-cache counts that follow from it.

In the book's notation: L layers of width D (``d_model``), H query heads and H_kv key/value heads
of dimension d (G = H/H_kv query heads share each KV head), an MLP of width F, a vocabulary of V
tokens, and optionally E experts of which k serve each token (a mixture of experts, MoE).

Assumptions, as in the Llama and Mistral families this describes: no biases, RMSNorm (D weights
per norm: two per layer and one at the end), rotary positions (no position-embedding table).
"""

from __future__ import annotations

from dataclasses import dataclass

from .._checks import ArrayLike, broadcast, out, positive_count
from .._compat import StrEnum
from ..dtypes import bytes_per_element
from ..hardware import Citation


class MlpKind(StrEnum):
    """The MLP's kind: ``gated`` (SwiGLU: up and gate D→F, down F→D, 3·D·F weights) or
    ``plain`` (up D→F, down F→D, 2·D·F weights)."""

    GATED = "gated"
    PLAIN = "plain"

    @property
    def up_matrices(self) -> int:
        """Matrices D→F before the nonlinearity: 2 when gated (gate and up), 1 when plain."""
        return 2 if self is MlpKind.GATED else 1


def kv_cache_bytes_per_token(
    layers: ArrayLike, kv_heads: ArrayLike, head_dim: ArrayLike, dtype: str = "bf16"
) -> ArrayLike:
    """KV-cache bytes one token occupies over the whole model: 2·L·H_kv·d·s.

    Every layer caches one key and one value vector (the 2) of d elements per KV head, at s bytes
    each (s of ``dtype``). Query heads share the KV heads in groups, so H does not appear: only
    H_kv heads are cached. Llama-3-8B in bf16: 2·32·8·128·2 = 131,072 bytes. Arrays broadcast.
    """
    L, h_kv, d = broadcast(
        layers=positive_count("layers", layers),
        kv_heads=positive_count("kv_heads", kv_heads),
        head_dim=positive_count("head_dim", head_dim),
    )
    return out(2.0 * L * h_kv * d * bytes_per_element(dtype))


def _count(name: str, value: object) -> int:
    return int(positive_count(name, value))


@dataclass(frozen=True)
class Model:
    """A decoder-only transformer (sizes in elements, counts in heads, layers or tokens).

    Attributes:
        name: how tables show it, e.g. ``"Llama-3-70B"``.
        layers: L.
        d_model: D, the residual stream's width.
        heads: H, query heads.
        kv_heads: H_kv, key/value heads (H_kv = H: multi-head; 1: multi-query; else grouped).
        mlp_width: F, the MLP's hidden width (each expert's, for a MoE).
        vocab: V, tokens in the vocabulary.
        head_dim: d; ``None`` means D/H (then H must divide D).
        mlp: :class:`MlpKind`, gated (SwiGLU) or plain.
        tied_embeddings: the output projection reuses the input embedding table.
        experts: E, experts per MoE layer (1: a dense MLP).
        experts_per_token: k, experts each token is routed to (1 for a dense MLP).
        source: where the figures come from (the model's published config.json), or ``None``
            for a user's model.
    """

    name: str
    layers: int
    d_model: int
    heads: int
    kv_heads: int
    mlp_width: int
    vocab: int
    head_dim: int | None = None
    mlp: MlpKind = MlpKind.GATED
    tied_embeddings: bool = False
    experts: int = 1
    experts_per_token: int = 1
    source: Citation | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"Model name must be a non-empty string, got {self.name!r}")
        for field in (
            "layers",
            "d_model",
            "heads",
            "kv_heads",
            "mlp_width",
            "vocab",
            "experts",
            "experts_per_token",
        ):
            object.__setattr__(self, field, _count(f"{self.name}: {field}", getattr(self, field)))
        if self.head_dim is None:
            if self.d_model % self.heads:
                raise ValueError(
                    f"{self.name}: heads ({self.heads}) must divide d_model ({self.d_model}) "
                    "when head_dim is not given (d = D/H); give head_dim explicitly otherwise"
                )
            object.__setattr__(self, "head_dim", self.d_model // self.heads)
        else:
            object.__setattr__(self, "head_dim", _count(f"{self.name}: head_dim", self.head_dim))
        if self.heads % self.kv_heads:
            raise ValueError(
                f"{self.name}: kv_heads ({self.kv_heads}) must divide heads ({self.heads}): each "
                "key/value head serves a whole group of G = H/H_kv query heads"
            )
        if self.experts_per_token > self.experts:
            raise ValueError(
                f"{self.name}: experts_per_token ({self.experts_per_token}) must not exceed "
                f"experts ({self.experts})"
            )
        try:
            object.__setattr__(self, "mlp", MlpKind(self.mlp))
        except ValueError:
            allowed = ", ".join(repr(k.value) for k in MlpKind)
            raise ValueError(f"{self.name}: unknown mlp {self.mlp!r}; allowed: {allowed}") from None
        if not isinstance(self.tied_embeddings, bool):
            raise ValueError(
                f"{self.name}: tied_embeddings must be True or False, got {self.tied_embeddings!r}"
            )

    # -- shape ------------------------------------------------------------------------------

    @property
    def d(self) -> int:
        """Head dimension d (``head_dim``, resolved)."""
        assert self.head_dim is not None  # resolved in __post_init__
        return self.head_dim

    @property
    def group_size(self) -> int:
        """G = H / H_kv, query heads per key/value head."""
        return self.heads // self.kv_heads

    @property
    def is_moe(self) -> bool:
        return self.experts > 1

    # -- parameters ---------------------------------------------------------------------------

    @property
    def attention_params(self) -> int:
        """One layer's attention weights: D·H·d (Q) + 2·D·H_kv·d (K, V) + H·d·D (O)."""
        return 2 * self.d_model * self.heads * self.d + 2 * self.d_model * self.kv_heads * self.d

    @property
    def expert_params(self) -> int:
        """One expert's (or the dense MLP's) weights: (m + 1)·D·F, m = 2 gated, 1 plain."""
        return (self.mlp.up_matrices + 1) * self.d_model * self.mlp_width

    @property
    def router_params(self) -> int:
        """One layer's router D·E (0 for a dense MLP)."""
        return self.d_model * self.experts if self.is_moe else 0

    @property
    def norm_params(self) -> int:
        """Every RMSNorm weight: 2·D per layer and D at the end, (2L + 1)·D."""
        return (2 * self.layers + 1) * self.d_model

    @property
    def embedding_params(self) -> int:
        """V·D for the input table, plus V·D for the output projection unless tied."""
        return self.vocab * self.d_model * (1 if self.tied_embeddings else 2)

    @property
    def params(self) -> int:
        """Total parameters P = L·(attention + E·expert + router) + norms + embeddings."""
        per_layer = self.attention_params + self.experts * self.expert_params + self.router_params
        return self.layers * per_layer + self.norm_params + self.embedding_params

    @property
    def active_params(self) -> int:
        """Parameters one token uses: as :attr:`params` with k experts instead of E."""
        return self.params - self.layers * (self.experts - self.experts_per_token) * (
            self.expert_params
        )

    @property
    def matmul_params(self) -> int:
        """P in MFU's 6PB: the parameters a token is multiplied by, :attr:`active_params` less
        the input embedding table V·D, which is looked up (one row per token), not multiplied.

        A tied table is also the output projection, so it stays. The norms' (2L + 1)·D weights
        stay too (elementwise, 0.001% of Llama-3-8B). Llama-3-70B: 70.55e9 − 1.05e9 = 69.50e9.
        """
        looked_up = 0 if self.tied_embeddings else self.vocab * self.d_model
        return self.active_params - looked_up

    def kv_cache_bytes_per_token(self, dtype: str = "bf16") -> float:
        """KV-cache bytes one token occupies over the whole model: 2·L·H_kv·d·s (K and V).

        Llama-3-70B in bf16: 2·80·8·128·2 = 327,680 bytes (:func:`kv_cache_bytes_per_token`)."""
        return float(kv_cache_bytes_per_token(self.layers, self.kv_heads, self.d, dtype))
