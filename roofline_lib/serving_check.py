"""Published serving measurements beside the roofline: how far real servers run from it.

For a measurement of :data:`~roofline_lib.published.REPORTED_SERVING`, :func:`compare` builds the
same workload (model, chips, tensor-parallel degree, dtypes, batch, lengths) in
:func:`~roofline_lib.transformer.analysis.estimate_inference` and bounds it. Per replica of N_tp
chips, every figure per chip:

* one decode step: T_step ≥ its roofline bound, :attr:`~roofline_lib.transformer.analysis.Pass.t_bound_s`
  (max(Σ T_math, Σ T_hbm,compulsory, Σ T_net): the three resources overlapped perfectly);
* the prefill of B prompts of S_in tokens: TTFT ≥ the prefill's roofline bound;
* decode throughput ≤ R · B / T_step tokens/s for R = n_chips / N_tp replicas; for a static
  batch that also prefills, ≤ R · B · S_out / (T_prefill + S_out · T_step).

The workload, where the source does not print it all (:func:`roofline_workload`):

* B, requests decoded together per replica: the static batch when there is one; else, when a
  mean time per output token (TPOT) is printed, Little's law on the decode stream,
  B = (tokens/s per replica) × TPOT; else the engine's limit on requests in flight, the most
  generous choice (B / T_step grows with B).
* S, the context a decode step attends to: S_in + S_out / 2, the mean over the S_out steps. As
  T_step's bound is a maximum of functions affine in S (convex), S_out · T_step(mean S) ≤ Σ_t T_step(S_t),
  so the mean gives a bound still. A prompt length that is not printed counts as 0, the most
  generous choice.

Fractions are measured ÷ bound for a throughput and bound ÷ measured for a time, so each is the
share of the roofline the system reaches, at most 1.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .hardware import get_chip
from .published import REPORTED_SERVING, ReportedServing, Scenario
from .transformer.analysis import estimate_inference
from .transformer.model import Model
from .transformer.models import get_model
from .transformer.operations import InferenceDtypes


def served_model(reported: ReportedServing) -> Model:
    """The catalog model ``reported.model_key``, with the vocabulary as served (Llama 2 70B:
    Llama-3-70B's shape with V = 32,000), named as the measurement names it; its source is then the
    measurement's ``setup`` (a build command or config printing the shape), not a config.json."""
    base = get_model(reported.model_key)
    if reported.vocab == base.vocab:
        return base
    return replace(base, name=reported.model, vocab=reported.vocab, source=None)


def served_dtypes(reported: ReportedServing) -> InferenceDtypes:
    """The measurement's weights, activations and KV-cache dtypes."""
    return InferenceDtypes(
        weights=reported.weights_dtype,
        activations=reported.activations_dtype,
        kv_cache=reported.kv_cache_dtype,
    )


@dataclass(frozen=True)
class RooflineWorkload:
    """The workload a measurement is bounded at, per replica.

    Attributes:
        batch: B, requests in one decode step (and prompts in one prefill).
        context_tokens: S, the mean context a decode step attends to, tokens.
        prompt_tokens: S_in, tokens per prompt; ``None`` when the source prints none (no
            prefill bound then).
        how: which rule chose B and S, in words.
    """

    batch: int
    context_tokens: int
    prompt_tokens: int | None
    how: str


def roofline_workload(reported: ReportedServing) -> RooflineWorkload:
    """B and S for ``reported`` by the rules in the module docstring."""
    if reported.scenario is Scenario.STATIC_BATCH:
        assert reported.batch is not None  # ReportedServing refuses a static batch without one
        batch, how_b = reported.batch, "B = the static batch"
    elif reported.itl_s is not None and reported.output_tokens_per_s is not None:
        per_replica = reported.output_tokens_per_s / reported.replicas
        batch = max(1, round(per_replica * reported.itl_s))
        how_b = (
            f"B = tokens/s per replica × TPOT = {per_replica:.6g} × {reported.itl_s:.6g} s "
            "(Little's law)"
        )
    elif reported.batch is not None:
        batch, how_b = reported.batch, "B = the engine's limit on requests in flight (generous)"
    else:
        raise ValueError(
            f"{reported.system}: no batch, and no TPOT to infer one from; give batch or itl_s"
        )
    prompt = reported.input_tokens
    output = reported.output_tokens or 0.0
    context = max(1, round((prompt or 0) + output / 2))
    how_s = (
        "S = input + output / 2"
        if prompt is not None
        else "S = output / 2 (prompt length not printed: counted as 0, generous)"
    )
    return RooflineWorkload(batch, context, prompt, f"{how_b}; {how_s}")


@dataclass(frozen=True)
class ServingComparison:
    """A measurement beside the roofline bound of its workload.

    Attributes:
        reported: the measurement.
        workload: B, S and S_in it is bounded at (:func:`roofline_workload`).
        step_s: the decode step's roofline bound (:attr:`Pass.t_bound_s`), s.
        step_regime: the resource that sets it ('compute-bound', ...).
        prefill_s: the prefill's bound, s (``None`` without a prompt length).
        prefill_regime: the resource that sets the prefill's (``None`` likewise).
        output_tokens_per_s_bound: R · B / T_step, tokens/s over the whole system.
        output_tokens_per_s_bound_with_prefill: R · B · S_out / (T_prefill + S_out · T_step)
            for a static batch with known lengths, else ``None``.
    """

    reported: ReportedServing
    workload: RooflineWorkload
    step_s: float
    step_regime: str
    prefill_s: float | None
    prefill_regime: str | None
    output_tokens_per_s_bound: float
    output_tokens_per_s_bound_with_prefill: float | None

    @property
    def throughput_fraction(self) -> float | None:
        """Measured tokens/s ÷ R · B / T_step (``None`` if no throughput is printed)."""
        measured = self.reported.output_tokens_per_s
        return None if measured is None else measured / self.output_tokens_per_s_bound

    @property
    def throughput_fraction_with_prefill(self) -> float | None:
        """Measured tokens/s ÷ the bound that also counts the prefill, where there is one."""
        measured, bound = (
            self.reported.output_tokens_per_s,
            self.output_tokens_per_s_bound_with_prefill,
        )
        return None if measured is None or bound is None else measured / bound

    @property
    def itl_fraction(self) -> float | None:
        """T_step ÷ measured TPOT (``None`` if no TPOT is printed)."""
        return None if self.reported.itl_s is None else self.step_s / self.reported.itl_s

    @property
    def ttft_fraction(self) -> float | None:
        """Prefill bound ÷ measured TTFT (``None`` without both)."""
        if self.reported.ttft_s is None or self.prefill_s is None:
            return None
        return self.prefill_s / self.reported.ttft_s

    @property
    def fractions(self) -> dict[str, float]:
        """Every fraction this measurement allows, by metric name (for tables and JSON)."""
        found = {
            "output tokens/s": self.throughput_fraction,
            "output tokens/s, prefill counted": self.throughput_fraction_with_prefill,
            "time per output token": self.itl_fraction,
            "time to first token": self.ttft_fraction,
        }
        return {name: value for name, value in found.items() if value is not None}


def compare(reported: ReportedServing) -> ServingComparison:
    """Bound ``reported``'s workload on its chips (see the module docstring) and return the
    measurement beside the bound."""
    work = roofline_workload(reported)
    n = reported.tensor_parallel
    est = estimate_inference(
        served_model(reported),
        get_chip(reported.chip),
        batch=work.batch,
        context=work.context_tokens,
        prompt=work.prompt_tokens or 1,
        n_chips=n,
        dtypes=served_dtypes(reported),
    )
    step = float(est.decode.t_bound_s)
    prefill = None if work.prompt_tokens is None else float(est.prefill.t_bound_s)
    prefill_regime = None if work.prompt_tokens is None else str(est.prefill.regime)
    bound = reported.replicas * work.batch / step
    with_prefill = None
    if (
        reported.scenario is Scenario.STATIC_BATCH
        and prefill is not None
        and reported.output_tokens is not None
    ):
        out = reported.output_tokens
        with_prefill = reported.replicas * work.batch * out / (prefill + out * step)
    return ServingComparison(
        reported=reported,
        workload=work,
        step_s=step,
        step_regime=str(est.decode.regime),
        prefill_s=prefill,
        prefill_regime=prefill_regime,
        output_tokens_per_s_bound=bound,
        output_tokens_per_s_bound_with_prefill=with_prefill,
    )


def compare_all() -> tuple[ServingComparison, ...]:
    """:func:`compare` for every measurement of :data:`~roofline_lib.published.REPORTED_SERVING`."""
    return tuple(compare(r) for r in REPORTED_SERVING)
