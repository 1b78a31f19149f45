"""Training FLOPs and Model FLOPs Utilization (MFU).

MFU = (model FLOPs per step / step time) / (number of chips × peak FLOP/s per chip).
"Model FLOPs" are the FLOPs the model needs, not what the hardware executed: activation
recomputation does not count, so MFU cannot be raised by doing redundant work.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import ArrayLike, broadcast, out, positive_count, positive_real


@dataclass(frozen=True)
class TrainingFlops:
    """FLOPs of one training step (forward and backward).

    Attributes:
        dense_flops: 6 · parameters · tokens (6·P·B).
        attention_flops: 12 · layers · seq_len · attention_width · tokens (12·L·S·H·d·B; 0 if
            not requested),
            attention_width being query heads × head dimension.
    """

    dense_flops: ArrayLike
    attention_flops: ArrayLike

    @property
    def total(self) -> ArrayLike:
        return out(np.asarray(self.dense_flops) + np.asarray(self.attention_flops))


def training_flops(
    n_params: ArrayLike,
    tokens: ArrayLike,
    n_layers: ArrayLike | None = None,
    seq_len: ArrayLike | None = None,
    attention_width: ArrayLike | None = None,
) -> TrainingFlops:
    """Training FLOPs for ``tokens`` tokens through a dense transformer of ``n_params`` parameters.

    In the book's notation (P parameters, B tokens in the step, L layers, sequence length S,
    H query heads of dimension d):

    dense = 6·P·B: each parameter does one multiply-add (2 FLOPs) per token in the forward pass
    and twice that in the backward pass (gradients for activations and for weights): 2 + 4 = 6.

    attention = 12·L·S·H·d·B (pass n_layers L, seq_len S and attention_width H·d to include it),
    PaLM's formula (Chowdhery et al. 2022, Appendix B: model FLOPs per token 6N + 12·L·H·Q·T in
    their letters, N parameters, H heads of dimension Q, sequence length T). Per token and layer,
    the scores Q·Kᵀ and the weighted sum A·V cost 2·2·S·H·d FLOPs forward, ×3 with backward.
    ``attention_width`` = query heads × head dimension, which need not equal d_model: PaLM-540B
    has 48 × 256 = 12,288 against d_model 18,432, and Gemma-7B 16 × 256 = 4,096 against 3,072.
    Grouped-query attention shares K and V between heads but not these FLOPs, so count the query
    heads. The full S×S score matrix is counted (no causal halving), as PaLM and Megatron-LM do.
    Per *sequence* this is 12·L·S²·H·d; per step it is multiplied by the number of sequences,
    which B = sequences × S does here.
    """
    p = positive_count("n_params", n_params)
    t = positive_count("tokens", tokens)
    p, t = broadcast(n_params=p, tokens=t)
    dense = 6 * p * t
    given = [x is not None for x in (n_layers, seq_len, attention_width)]
    if any(given) and not all(given):
        raise ValueError(
            "give all of n_layers, seq_len and attention_width (query heads × head dimension) "
            "for the attention term, or none"
        )
    if all(given):
        layers, length, width, t = broadcast(
            n_layers=positive_count("n_layers", n_layers),
            seq_len=positive_count("seq_len", seq_len),
            attention_width=positive_count("attention_width", attention_width),
            tokens=t,
        )
        attention = 12 * layers * length * width * t
        dense = np.broadcast_to(dense, attention.shape)
    else:
        attention = np.zeros_like(dense)
    return TrainingFlops(out(dense), out(attention))


def model_flops_utilization(
    model_flops_per_step: ArrayLike,
    step_time_s: ArrayLike,
    n_chips: ArrayLike,
    peak_flops_per_s: ArrayLike,
) -> ArrayLike:
    """MFU = model FLOPs per step / (step time · chips · peak FLOP/s per chip), a fraction.

    An MFU above 1 is impossible (the chips would beat their own peak), so it is an error that
    names the four inputs: one of them is inconsistent with the others (a step time too short, a
    sparse or wrong-dtype peak, too few chips, or FLOPs that count recomputation or the wrong
    model).
    """
    f, t, n, c = broadcast(
        model_flops_per_step=positive_real("model_flops_per_step", model_flops_per_step, "FLOPs"),
        step_time_s=positive_real("step_time_s", step_time_s, "s"),
        n_chips=positive_count("n_chips", n_chips),
        peak_flops_per_s=positive_real("peak_flops_per_s", peak_flops_per_s, "FLOP/s"),
    )
    mfu = f / (t * n * c)
    if np.any(mfu > 1):
        index = () if mfu.ndim == 0 else tuple(int(i) for i in np.argwhere(mfu > 1)[0])
        where = "" if mfu.ndim == 0 else f" at index {index[0] if len(index) == 1 else index}"
        fb, tb, nb, cb = (x[index] for x in (f, t, n, c))
        raise ValueError(
            f"MFU = model_flops_per_step / (step_time_s · n_chips · peak_flops_per_s) = "
            f"{fb:.4g} / ({tb:.4g} · {nb:.0f} · {cb:.4g}) = {mfu[index]:.3g}{where}, above 1: "
            "the chips would exceed their peak. These inputs are inconsistent: the step time is "
            "too short, the FLOPs too many (recomputation or a wrong model), the peak too low "
            "(use the dense peak for the dtype trained in) or the chip count too small"
        )
    return out(mfu)


def step_time_for_mfu(
    model_flops_per_step: ArrayLike, mfu: ArrayLike, n_chips: ArrayLike, peak_flops_per_s: ArrayLike
) -> ArrayLike:
    """The step time in seconds at which a run reaches a given MFU: F / (MFU · chips · peak)."""
    f = positive_real("model_flops_per_step", model_flops_per_step, "FLOPs")
    u = positive_real("mfu", mfu)
    if np.any(u > 1):
        raise ValueError(f"mfu must be a fraction in (0, 1], got {mfu!r}")
    f, u, n, c = broadcast(
        model_flops_per_step=f,
        mfu=u,
        n_chips=positive_count("n_chips", n_chips),
        peak_flops_per_s=positive_real("peak_flops_per_s", peak_flops_per_s, "FLOP/s"),
    )
    return out(f / (u * n * c))
