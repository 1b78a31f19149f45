"""A user's model from a local Hugging Face ``config.json``: the command's ``--config PATH``.

:func:`load_hf_config` reads the file (or a mapping already parsed from one) of a decoder of
``model_type`` ``llama``, ``mistral``, ``mixtral`` or ``qwen2`` and returns a
:class:`LoadedModel`: the :class:`~roofline_lib.transformer.model.Model` and the notes that say
what the model simplifies. :func:`model_from_hf_config` returns the model alone. Nothing is
fetched: the file is the user's.

The keys read, as transformers' ``LlamaConfig``, ``MistralConfig``, ``MixtralConfig`` and
``Qwen2Config`` define them:

* ``hidden_size`` → D, ``num_hidden_layers`` → L, ``num_attention_heads`` → H,
  ``intermediate_size`` → F, ``vocab_size`` → V: required, positive integers;
* ``num_key_value_heads`` → H_kv: ``null`` means H (all four classes); absent means the class's
  default, which is H for ``llama``, 8 for ``mistral`` and ``mixtral``, 32 for ``qwen2`` (said in
  a note);
* ``head_dim`` → d when given and not ``null`` (Mistral-Nemo: 128, where D/H = 160), else D/H;
* ``tie_word_embeddings``: absent means untied, the default of all four classes;
* ``num_local_experts`` (alias ``num_experts``) → E and ``num_experts_per_tok`` → k, for
  ``mixtral`` only (absent: 8 and 2, the class's defaults, said in a note).

Every MLP of these families is gated (gate, up and down projections, whatever ``hidden_act``
is). Keys that change neither FLOPs nor bytes (``rope_scaling``, ``rope_theta``, token ids,
``torch_dtype``, ``max_position_embeddings``, ``rms_norm_eps``, ...) are ignored.

Accepted but simplified, each said in a note: biases, which :class:`Model` leaves out (Qwen2's
Q, K and V biases, L·(H + 2H_kv)·d parameters; Llama's ``attention_bias`` and ``mlp_bias``),
counted in :attr:`LoadedModel.unmodelled_params`; a sliding attention window (attention is priced
over the whole context); a ``quantization_config`` (the weights' dtype is the caller's choice).

Refused, with a :class:`ConfigError` naming each key: a ``model_type`` outside the four; keys of
structures :class:`Model` cannot represent (shared experts, DeepSeek's multi-head latent
attention, a MoE on some layers only, a multimodal config's nested ``text_config``); experts on a
dense family; and values that are missing, not positive integers, or inconsistent
(``num_key_value_heads`` not dividing ``num_attention_heads``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .model import MlpKind, Model

SUPPORTED_MODEL_TYPES: tuple[str, ...] = ("llama", "mistral", "mixtral", "qwen2")
"""The ``model_type`` values :func:`load_hf_config` reads."""


class ConfigError(ValueError):
    """A config.json that cannot be read as a :class:`Model`.

    Attributes:
        source: the file read, or ``"<mapping>"``.
        problems: ``(key, what is wrong and what is supported)`` pairs, one per key; the key
            is ``""`` for the file itself (missing, not JSON).
    """

    def __init__(self, source: str, problems: list[tuple[str, str]]) -> None:
        self.source = source
        self.problems: tuple[tuple[str, str], ...] = tuple(problems)
        keys_by_reason: dict[str, list[str]] = {}  # keys refused for one reason, named together
        for key, why in self.problems:
            keys_by_reason.setdefault(why, []).append(key)
        text = "; ".join(
            f"{', '.join(k for k in keys if k)}: {why}" if any(keys) else why
            for why, keys in keys_by_reason.items()
        )
        super().__init__(f"{source}: {text}")

    @property
    def keys(self) -> tuple[str, ...]:
        """The keys named, in the order found."""
        return tuple(key for key, _ in self.problems if key)


@dataclass(frozen=True)
class LoadedModel:
    """A model read from a config.json, and what the reading simplified.

    Attributes:
        model: the :class:`Model` (``source`` is ``None``: it is the user's).
        notes: one sentence per simplification or default applied, for the command to print.
        unmodelled_params: parameters the checkpoint has that :class:`Model` does not count
            (biases); 0 when there are none.
        source: the file read, or ``"<mapping>"``.
        model_type: the config's ``model_type``.
    """

    model: Model
    notes: tuple[str, ...]
    unmodelled_params: int
    source: str
    model_type: str

    @property
    def checkpoint_params(self) -> int:
        """The checkpoint's parameter count: ``model.params`` + :attr:`unmodelled_params`."""
        return self.model.params + self.unmodelled_params


@dataclass(frozen=True)
class _Family:
    """How one ``model_type`` reads a config (its transformers config class's defaults)."""

    config_class: str
    kv_heads_default: int | None  # absent num_key_value_heads; None: = num_attention_heads
    moe: bool  # reads num_local_experts and num_experts_per_tok
    qkv_bias: bool  # Q, K and V projections always have biases
    bias_keys: bool  # reads attention_bias and mlp_bias
    window_default: int | None  # absent sliding_window (for families that read it)
    window: str  # "none": no sliding window; "always": sliding_window; "opt-in": Qwen2's


_FAMILIES: Mapping[str, _Family] = {
    "llama": _Family("LlamaConfig", None, False, False, True, None, "none"),
    "mistral": _Family("MistralConfig", 8, False, False, False, 4096, "always"),
    "mixtral": _Family("MixtralConfig", 8, True, False, False, None, "always"),
    "qwen2": _Family("Qwen2Config", 32, False, True, False, 4096, "opt-in"),
}

_REQUIRED: tuple[tuple[str, str], ...] = (
    ("hidden_size", "D, the residual stream's width"),
    ("num_hidden_layers", "L, the number of layers"),
    ("num_attention_heads", "H, the query heads"),
    ("intermediate_size", "F, the MLP's hidden width"),
    ("vocab_size", "V, the vocabulary"),
)

_UNREPRESENTABLE: tuple[tuple[tuple[str, ...], str], ...] = (
    (
        ("text_config", "vision_config", "audio_config"),
        "a multimodal config nests its language model; give the text_config part as a config of "
        "its own (its model_type must be one of the supported ones)",
    ),
    (
        ("kv_lora_rank", "q_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim"),
        "multi-head latent attention (DeepSeek) caches a compressed latent, not K and V per "
        "head; the model here has grouped-query attention only",
    ),
    (
        ("shared_expert_intermediate_size", "n_shared_experts", "num_shared_experts"),
        "shared experts (every token uses them besides its routed ones) are not modelled; "
        "supported: Mixtral-style routed experts of one width",
    ),
    (
        (
            "moe_intermediate_size",
            "n_routed_experts",
            "decoder_sparse_step",
            "mlp_only_layers",
            "first_k_dense_replace",
            "moe_layer_freq",
        ),
        "experts of a width other than intermediate_size, or on some layers only, are not "
        "modelled; supported: Mixtral-style experts in every layer",
    ),
)


def read_hf_config(path: str | os.PathLike[str]) -> dict[str, object]:
    """The JSON object in ``path``, a config.json or a folder holding one.

    Raises :class:`ConfigError` naming the file when it is missing, not JSON, or not an object.
    """
    file = Path(path).expanduser()
    if file.is_dir():
        file = file / "config.json"
    where = str(file)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(where, [("", "no such file")]) from None
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(where, [("", f"cannot be read ({err})")]) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ConfigError(
            where, [("", f"not JSON ({err.msg} at line {err.lineno}, column {err.colno})")]
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(
            where, [("", f"must hold a JSON object of keys, got a {type(data).__name__}")]
        )
    return data


def load_hf_config(
    config: str | os.PathLike[str] | Mapping[str, object], *, name: str | None = None
) -> LoadedModel:
    """A :class:`LoadedModel` from a Hugging Face config.json (a path, a folder holding one, or
    the parsed mapping). See the module's docstring for the keys read, noted and refused.

    ``name`` overrides the model's name, which is otherwise the last part of ``_name_or_path``
    (``"meta-llama/Meta-Llama-3-8B"`` → ``"Meta-Llama-3-8B"``), else the file's folder (the
    repository's name in a Hugging Face cache ``models--org--name/snapshots/<hash>/``), else the
    file's stem, else ``"custom model"``.

    Raises :class:`ConfigError` naming every key it cannot interpret.
    """
    file: Path | None = None
    if isinstance(config, Mapping):
        where, data = "<mapping>", config
    else:
        file = Path(config).expanduser()
        file = file / "config.json" if file.is_dir() else file
        where, data = str(file), read_hf_config(file)
    return _interpret(data, where, name or _name(data, file))


def model_from_hf_config(
    config: str | os.PathLike[str] | Mapping[str, object], *, name: str | None = None
) -> Model:
    """The :class:`Model` of :func:`load_hf_config`, without its notes."""
    return load_hf_config(config, name=name).model


# -- the reading --------------------------------------------------------------------------------


def _name(data: Mapping[str, object], file: Path | None) -> str:
    given = data.get("_name_or_path")
    if isinstance(given, str) and given.strip("/ "):
        return given.strip("/ ").replace("\\", "/").split("/")[-1]
    if file is None:
        return "custom model"
    folder = file.resolve().parent
    if folder.parent.name == "snapshots" and folder.parent.parent.name.startswith("models--"):
        return folder.parent.parent.name.split("--")[-1]
    if file.name == "config.json" and folder.name:
        return folder.name
    return file.stem or "custom model"


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _interpret(data: Mapping[str, object], where: str, name: str) -> LoadedModel:
    problems: list[tuple[str, str]] = []
    for keys, why in _UNREPRESENTABLE:
        problems += [(key, why) for key in keys if data.get(key) is not None]

    model_type = data.get("model_type")
    supported = ", ".join(repr(t) for t in SUPPORTED_MODEL_TYPES)
    if model_type is None:
        problems.append(("model_type", f"missing; supported: {supported}"))
    elif model_type not in _FAMILIES:
        problems.append(("model_type", f"{model_type!r} is not supported; supported: {supported}"))
    if problems:
        raise ConfigError(where, problems)
    assert isinstance(model_type, str)
    family = _FAMILIES[model_type]
    notes: list[str] = []

    size: dict[str, int] = {}
    for key, meaning in _REQUIRED:
        value = data.get(key)
        if key not in data:
            problems.append((key, f"missing (required: {meaning})"))
        elif not _is_count(value):
            problems.append((key, f"must be a positive integer ({meaning}), got {value!r}"))
        else:
            assert isinstance(value, int)
            size[key] = value

    kv_heads = _kv_heads(data, family, size.get("num_attention_heads"), notes, problems)
    head_dim = _head_dim(data, size, problems)
    tied = data.get("tie_word_embeddings", False)
    if not isinstance(tied, bool):
        problems.append(("tie_word_embeddings", f"must be true or false, got {tied!r}"))
    experts, per_token = _experts(data, family, model_type, notes, problems)
    layer_types = data.get("layer_types")
    if isinstance(layer_types, list):
        other = sorted({str(t) for t in layer_types} - {"full_attention", "sliding_attention"})
        if other:
            problems.append(
                (
                    "layer_types",
                    f"{', '.join(other)} not modelled; supported: 'full_attention' "
                    "('sliding_attention' is accepted and noted)",
                )
            )
    if problems:
        raise ConfigError(where, problems)
    assert isinstance(tied, bool) and kv_heads is not None

    model = Model(
        name=name,
        layers=size["num_hidden_layers"],
        d_model=size["hidden_size"],
        heads=size["num_attention_heads"],
        kv_heads=kv_heads,
        mlp_width=size["intermediate_size"],
        vocab=size["vocab_size"],
        head_dim=head_dim,
        mlp=MlpKind.GATED,
        tied_embeddings=tied,
        experts=experts,
        experts_per_token=per_token,
    )
    unmodelled = _biases(data, family, model, notes)
    _window(data, family, model, notes, problems)
    if problems:
        raise ConfigError(where, problems)
    quantization = data.get("quantization_config")
    if isinstance(quantization, Mapping):
        method = quantization.get("quant_method", "unnamed")
        notes.append(
            f"quantization_config ({method}) is not read: the weights are priced at the dtype "
            "chosen for them (the command's --weights), not at the checkpoint's"
        )
    return LoadedModel(
        model=model,
        notes=tuple(notes),
        unmodelled_params=unmodelled,
        source=where,
        model_type=model_type,
    )


def _kv_heads(
    data: Mapping[str, object],
    family: _Family,
    heads: int | None,
    notes: list[str],
    problems: list[tuple[str, str]],
) -> int | None:
    """H_kv: the key's value; ``null`` → H; absent → the config class's default (noted)."""
    if "num_key_value_heads" not in data:
        value: object = family.kv_heads_default
        if value is None:
            value = heads
        else:
            notes.append(
                f"num_key_value_heads is absent: {value}, {family.config_class}'s default, as "
                "transformers reads it"
            )
    else:
        value = data["num_key_value_heads"]
        value = heads if value is None else value
    if heads is None:
        return None  # num_attention_heads is already a problem
    if not _is_count(value):
        problems.append(("num_key_value_heads", f"must be a positive integer, got {value!r}"))
        return None
    assert isinstance(value, int)
    if heads % value:
        problems.append(
            (
                "num_key_value_heads",
                f"{value} must divide num_attention_heads ({heads}): each key/value head "
                "serves a whole group of query heads",
            )
        )
        return None
    return value


def _head_dim(
    data: Mapping[str, object], size: Mapping[str, int], problems: list[tuple[str, str]]
) -> int | None:
    """d: ``head_dim`` when given and not ``null``, else D/H (H must divide D)."""
    value = data.get("head_dim")
    if value is not None:
        if _is_count(value):
            assert isinstance(value, int)
            return value
        problems.append(("head_dim", f"must be a positive integer or null, got {value!r}"))
        return None
    d_model, heads = size.get("hidden_size"), size.get("num_attention_heads")
    if d_model is not None and heads is not None and d_model % heads:
        problems.append(
            (
                "head_dim",
                f"absent, and num_attention_heads ({heads}) does not divide hidden_size "
                f"({d_model}); give head_dim",
            )
        )
    return None


def _experts(
    data: Mapping[str, object],
    family: _Family,
    model_type: str,
    notes: list[str],
    problems: list[tuple[str, str]],
) -> tuple[int, int]:
    """(E, k): Mixtral's ``num_local_experts`` (or ``num_experts``) and ``num_experts_per_tok``
    (absent: 8 and 2, ``MixtralConfig``'s defaults); (1, 1) for a dense family."""
    keys = ("num_local_experts", "num_experts", "num_experts_per_tok")
    if not family.moe:
        problems.extend(
            (
                key,
                f"model_type {model_type!r} is dense; only 'mixtral' routes tokens to experts",
            )
            for key in keys
            if data.get(key) is not None
        )
        return 1, 1
    count_key = "num_experts" if "num_experts" in data else "num_local_experts"
    found: list[int] = []
    for key, default in ((count_key, 8), ("num_experts_per_tok", 2)):
        value = data.get(key, default)
        if key not in data:
            notes.append(f"{key} is absent: {default}, MixtralConfig's default")
        if not _is_count(value):
            problems.append((key, f"must be a positive integer, got {value!r}"))
            found.append(1)
            continue
        assert isinstance(value, int)
        found.append(value)
    experts, per_token = found
    if per_token > experts:
        problems.append(
            ("num_experts_per_tok", f"{per_token} must not exceed {count_key} ({experts})")
        )
    return experts, per_token


def _biases(data: Mapping[str, object], family: _Family, model: Model, notes: list[str]) -> int:
    """Bias parameters :class:`Model` leaves out, each kind noted; their count.

    Q, K, V biases: L·(H + 2H_kv)·d; an output bias L·D; MLP biases L·(2F + D).
    """
    L, D, F, d = model.layers, model.d_model, model.mlp_width, model.d
    qkv = L * (model.heads + 2 * model.kv_heads) * d
    total = 0

    def note(what: str, count: int) -> None:
        share = count / (model.params + count)
        notes.append(
            f"{what}: {count:,} parameters ({share:.4%} of the checkpoint) that the model here "
            "leaves out of its parameter count, weight bytes and FLOPs"
        )

    if family.qkv_bias:
        note("Q, K and V projections have biases, L·(H + 2·H_kv)·d", qkv)
        total += qkv
    if family.bias_keys and data.get("attention_bias") is True:
        note("attention_bias: Q, K, V and O biases, L·((H + 2·H_kv)·d + D)", qkv + L * D)
        total += qkv + L * D
    if family.bias_keys and data.get("mlp_bias") is True:
        note("mlp_bias: gate, up and down biases, L·(2F + D)", L * (2 * F + D))
        total += L * (2 * F + D)
    return total


def _window(
    data: Mapping[str, object],
    family: _Family,
    model: Model,
    notes: list[str],
    problems: list[tuple[str, str]],
) -> None:
    """Note a sliding attention window, which the model here does not price."""
    if family.window == "none":
        return
    if family.window == "opt-in" and data.get("use_sliding_window") is not True:
        return  # Qwen2Config ignores sliding_window unless use_sliding_window is true
    window = data.get("sliding_window", family.window_default)
    if window is None:
        return
    if not _is_count(window):
        problems.append(("sliding_window", f"must be a positive integer or null, got {window!r}"))
        return
    which = "every layer"
    if family.window == "opt-in":
        first = data.get("max_window_layers", 28)
        which = f"layers from max_window_layers ({first}) on"
    absent = " (absent: the config class's default)" if "sliding_window" not in data else ""
    notes.append(
        f"sliding_window {window}{absent} on {which} is not modelled: attention is priced over "
        f"the whole context, an overestimate of its FLOPs and KV-cache reads beyond {window} "
        "tokens"
    )
