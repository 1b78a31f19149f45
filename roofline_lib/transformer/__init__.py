"""A transformer on the roofline: a model's shape, its prefill and decode step, operation by
operation, on one chip or tensor-parallel over N.

* :mod:`~roofline_lib.transformer.model` — :class:`Model` (L, D, H, H_kv, d, F, V, MoE) and its
  parameter and KV-cache counts;
* :mod:`~roofline_lib.transformer.models` — open models' shapes as data, each with its source;
* :mod:`~roofline_lib.transformer.hf_config` — a user's model from a local Hugging Face
  config.json (:func:`load_hf_config`), with notes on what it simplifies;
* :mod:`~roofline_lib.transformer.operations` — one layer's operations as costs, built from
  :mod:`~roofline_lib.costs`, :mod:`~roofline_lib.attention` and :mod:`~roofline_lib.sharding`;
* :mod:`~roofline_lib.transformer.analysis` — each operation timed with
  :func:`~roofline_lib.roofline.analyze`, summed into a prefill and a decode step with three
  named times each (the roofline bound, the per-operation estimate, the upper bound): TTFT and
  inter-token latency, tokens/s, the critical decode batch, and whether it fits in HBM;
* ``python -m roofline_lib.transformer`` — the command (:mod:`~roofline_lib.transformer.cli`).
"""

from __future__ import annotations

from .analysis import (
    InferenceEstimate,
    Operation,
    Pass,
    PassTimes,
    TokenRates,
    decode_critical_batch,
    estimate_inference,
    json_schema,
)
from .hf_config import ConfigError, LoadedModel, load_hf_config, model_from_hf_config
from .model import MlpKind, Model, kv_cache_bytes_per_token
from .models import MODELS, get_model, model_names
from .operations import (
    InferenceDtypes,
    OperationCost,
    decode_step_cost,
    end_operations,
    experts_touched,
    layer_operations,
    prefill_attention,
    weight_bytes_per_chip,
)

__all__ = [
    "MODELS",
    "ConfigError",
    "InferenceDtypes",
    "InferenceEstimate",
    "LoadedModel",
    "MlpKind",
    "Model",
    "Operation",
    "OperationCost",
    "Pass",
    "PassTimes",
    "TokenRates",
    "decode_critical_batch",
    "decode_step_cost",
    "end_operations",
    "estimate_inference",
    "experts_touched",
    "get_model",
    "json_schema",
    "kv_cache_bytes_per_token",
    "layer_operations",
    "load_hf_config",
    "model_from_hf_config",
    "model_names",
    "prefill_attention",
    "weight_bytes_per_chip",
]
