"""Open models' shapes, each from its published config.json.

Adding a model is one :class:`~roofline_lib.transformer.model.Model` value in :data:`MODELS` (see
CONTRIBUTING.md, "How to add a model"); :func:`get_model` and :func:`model_names` read it.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from .._checks import UnknownNameError
from ..hardware import Citation
from ..hardware.lookup import alias_key
from .model import MlpKind, Model

_CHECKED = "2026-12-01"
_HOW = (
    "Figures checked against copies of this config.json kept in public repositories (found with "
    "the course's code search), not against the Hugging Face page itself, which could not be "
    "reached from where this was written."
)


def _config(repo: str, quote: str, note: str = "") -> Citation:
    return Citation(
        title=f"{repo}: config.json",
        url=f"https://huggingface.co/{repo}/blob/main/config.json",
        quote=quote,
        verified=_CHECKED,
        note=" ".join(part for part in (note, _HOW) if part),
    )


LLAMA_3_8B = Model(
    name="Llama-3-8B",
    layers=32,
    d_model=4096,
    heads=32,
    kv_heads=8,
    mlp_width=14336,
    vocab=128256,
    mlp=MlpKind.GATED,
    source=_config(
        "meta-llama/Meta-Llama-3-8B",
        '"hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32, '
        '"num_hidden_layers": 32, "num_key_value_heads": 8, "vocab_size": 128256, '
        '"tie_word_embeddings": false, "hidden_act": "silu"',
    ),
)

LLAMA_3_70B = Model(
    name="Llama-3-70B",
    layers=80,
    d_model=8192,
    heads=64,
    kv_heads=8,
    mlp_width=28672,
    vocab=128256,
    mlp=MlpKind.GATED,
    source=_config(
        "meta-llama/Meta-Llama-3-70B",
        '"hidden_size": 8192, "intermediate_size": 28672, "num_attention_heads": 64, '
        '"num_hidden_layers": 80, "num_key_value_heads": 8, "vocab_size": 128256, '
        '"tie_word_embeddings": false, "hidden_act": "silu"',
    ),
)

MISTRAL_7B = Model(
    name="Mistral-7B-v0.1",
    layers=32,
    d_model=4096,
    heads=32,
    kv_heads=8,
    mlp_width=14336,
    vocab=32000,
    mlp=MlpKind.GATED,
    source=_config(
        "mistralai/Mistral-7B-v0.1",
        '"hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32, '
        '"num_hidden_layers": 32, "num_key_value_heads": 8, "vocab_size": 32000, '
        '"sliding_window": 4096, "tie_word_embeddings": false',
        note="Its 4,096-token sliding window is not modelled: attention reads the whole context "
        "(an overestimate of its KV-cache traffic beyond 4,096 tokens).",
    ),
)

MIXTRAL_8X7B = Model(
    name="Mixtral-8x7B-v0.1",
    layers=32,
    d_model=4096,
    heads=32,
    kv_heads=8,
    mlp_width=14336,
    vocab=32000,
    mlp=MlpKind.GATED,
    experts=8,
    experts_per_token=2,
    source=_config(
        "mistralai/Mixtral-8x7B-v0.1",
        '"hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32, '
        '"num_hidden_layers": 32, "num_key_value_heads": 8, "num_local_experts": 8, '
        '"num_experts_per_tok": 2, "vocab_size": 32000, "tie_word_embeddings": false',
    ),
)

MODELS: Mapping[str, Model] = MappingProxyType(
    {
        "llama-3-8b": LLAMA_3_8B,
        "llama-3-70b": LLAMA_3_70B,
        "mistral-7b": MISTRAL_7B,
        "mixtral-8x7b": MIXTRAL_8X7B,
    }
)
"""The shipped models by key (the command's ``--model``)."""


def model_names() -> tuple[str, ...]:
    """Keys of the shipped models: 'llama-3-8b', 'llama-3-70b', 'mistral-7b', 'mixtral-8x7b'."""
    return tuple(MODELS)


def get_model(name: str | Model) -> Model:
    """A shipped model by key or display name, in any case, with or without spaces, hyphens or
    underscores (``"llama-3-70b"``, ``"Llama-3-70B"``). A :class:`Model` passes through. An
    unknown name raises UnknownNameError listing the keys."""
    if isinstance(name, Model):
        return name
    if isinstance(name, str):
        for key, model in MODELS.items():
            if alias_key(name) in (alias_key(key), alias_key(model.name)):
                return model
    raise UnknownNameError(f"unknown model {name!r}; known models: {', '.join(MODELS)}")
