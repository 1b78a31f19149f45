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
        dense_flops: 6 · parameters · tokens.
        attention_flops: 12 · layers · seq_len · d_model · tokens (0 if not requested).
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
    d_model: ArrayLike | None = None,
) -> TrainingFlops:
    """Training FLOPs for ``tokens`` tokens through a dense transformer of ``n_params`` parameters.

    dense = 6·P·T: each parameter does one multiply-add (2 FLOPs) per token in the forward pass
    and twice that in the backward pass (gradients for activations and for weights): 2 + 4 = 6.

    attention = 12·L·s·h·T (pass n_layers L, seq_len s and d_model h to include it): per token
    and layer, QKᵀ and P·V cost 2·2·s·h FLOPs forward, ×3 with backward. Per *sequence* this is
    12·L·s²·h, the Megatron-LM term; per step it must be multiplied by the number of sequences,
    which is what T = sequences × s does here.
    """
    p = positive_count("n_params", n_params)
    t = positive_count("tokens", tokens)
    p, t = broadcast(n_params=p, tokens=t)
    dense = 6 * p * t
    given = [x is not None for x in (n_layers, seq_len, d_model)]
    if any(given) and not all(given):
        raise ValueError(
            "give all of n_layers, seq_len and d_model for the attention term, or none"
        )
    if all(given):
        attention = (
            12
            * positive_count("n_layers", n_layers)
            * positive_count("seq_len", seq_len)
            * positive_count("d_model", d_model)
            * t
        )
    else:
        attention = np.zeros_like(dense)
    return TrainingFlops(out(dense), out(attention))


def model_flops_utilization(
    model_flops_per_step: ArrayLike,
    step_time_s: ArrayLike,
    n_chips: ArrayLike,
    peak_flops_per_s: ArrayLike,
) -> ArrayLike:
    """MFU = model FLOPs per step / (step time · chips · peak FLOP/s per chip), a fraction."""
    f = positive_real("model_flops_per_step", model_flops_per_step, "FLOPs")
    t = positive_real("step_time_s", step_time_s, "s")
    n = positive_count("n_chips", n_chips)
    c = positive_real("peak_flops_per_s", peak_flops_per_s, "FLOP/s")
    return out(f / (t * n * c))


def step_time_for_mfu(
    model_flops_per_step: ArrayLike, mfu: ArrayLike, n_chips: ArrayLike, peak_flops_per_s: ArrayLike
) -> ArrayLike:
    """The step time in seconds at which a run reaches a given MFU: F / (MFU · chips · peak)."""
    f = positive_real("model_flops_per_step", model_flops_per_step, "FLOPs")
    u = positive_real("mfu", mfu)
    if np.any(u > 1):
        raise ValueError(f"mfu must be a fraction in (0, 1], got {mfu!r}")
    n = positive_count("n_chips", n_chips)
    c = positive_real("peak_flops_per_s", peak_flops_per_s, "FLOP/s")
    return out(f / (u * n * c))
