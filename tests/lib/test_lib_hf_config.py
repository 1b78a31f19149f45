"""roofline_lib.transformer.hf_config and the command's ``--config PATH``: a user's model read
from a Hugging Face config.json, checked from first principles against published configs and
parameter counts.

Each config below is a published config.json as printed (JSON's true/false/null written as
Python's True/False/None), copied from a copy kept in a public repository, found with the course's
code search (the Hugging Face pages could not be reached from where this was written); each says
where. The parameter totals are Hugging Face's safetensors counts, as quoted in public
repositories found the same way, and the rounded totals the model pages print.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
from pathlib import Path

import jsonschema
import pytest

from roofline_lib import transformer as tf
from roofline_lib.transformer import (
    ConfigError,
    LoadedModel,
    json_schema,
    load_hf_config,
    model_from_hf_config,
)
from roofline_lib.transformer.cli import main

ROOT = Path(__file__).resolve().parents[2]

# meta-llama/Meta-Llama-3-8B config.json, as a test fixture of a public repository holds it
# (found searching for '"_name_or_path": "meta-llama/Meta-Llama-3-8B"'); the shape keys equal the
# Instruct model's in kevinstephano/thunder_model_blocks,
# thunder_model_blocks/llama/llama_3_8B_Instruct_config.py.
LLAMA_3_8B = {
    "_name_or_path": "meta-llama/Meta-Llama-3-8B",
    "architectures": ["LlamaForCausalLM"],
    "attention_bias": False,
    "attention_dropout": 0.0,
    "bos_token_id": 128000,
    "eos_token_id": 128001,
    "hidden_act": "silu",
    "hidden_size": 4096,
    "initializer_range": 0.02,
    "intermediate_size": 14336,
    "max_position_embeddings": 8192,
    "model_type": "llama",
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "pretraining_tp": 1,
    "rms_norm_eps": 1e-05,
    "rope_scaling": None,
    "rope_theta": 500000.0,
    "tie_word_embeddings": False,
    "torch_dtype": "float16",
    "transformers_version": "4.38.2",
    "use_cache": True,
    "vocab_size": 128256,
}

# meta-llama/Meta-Llama-3-70B-Instruct config.json (the base model's shape keys are the same:
# hidden_size 8192, intermediate_size 28672, 64 heads, 8 KV heads, 80 layers, vocab 128256, as
# the Llama 3.1 70B table of vulkomilev/oumi configs/recipes/llama3_1/README.md also prints).
LLAMA_3_70B = {
    "architectures": ["LlamaForCausalLM"],
    "attention_bias": False,
    "attention_dropout": 0.0,
    "bos_token_id": 128000,
    "eos_token_id": 128009,
    "hidden_act": "silu",
    "hidden_size": 8192,
    "initializer_range": 0.02,
    "intermediate_size": 28672,
    "max_position_embeddings": 8192,
    "model_type": "llama",
    "num_attention_heads": 64,
    "num_hidden_layers": 80,
    "num_key_value_heads": 8,
    "pretraining_tp": 1,
    "rms_norm_eps": 1e-05,
    "rope_scaling": None,
    "rope_theta": 500000.0,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.40.0.dev0",
    "use_cache": True,
    "vocab_size": 128256,
}

# mistralai/Mistral-7B-v0.1 config.json, as tanganke/fusion_bench's depth-upscaling docs copy it
# from https://huggingface.co/mistralai/Mistral-7B-v0.1/resolve/main/config.json.
MISTRAL_7B = {
    "architectures": ["MistralForCausalLM"],
    "bos_token_id": 1,
    "eos_token_id": 2,
    "hidden_act": "silu",
    "hidden_size": 4096,
    "initializer_range": 0.02,
    "intermediate_size": 14336,
    "max_position_embeddings": 32768,
    "model_type": "mistral",
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "rms_norm_eps": 1e-05,
    "rope_theta": 10000.0,
    "sliding_window": 4096,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.34.0.dev0",
    "use_cache": True,
    "vocab_size": 32000,
}

# mistralai/Mixtral-8x7B-v0.1 config.json, as NVIDIA/TensorRT-LLM's
# tests/unittest/_torch/modeling/test_modeling_mixtral.py holds it (MIXTRAL_8X7B_CONFIG).
MIXTRAL_8X7B = {
    "architectures": ["MixtralForCausalLM"],
    "attention_dropout": 0.0,
    "bos_token_id": 1,
    "eos_token_id": 2,
    "hidden_act": "silu",
    "hidden_size": 4096,
    "initializer_range": 0.02,
    "intermediate_size": 14336,
    "max_position_embeddings": 32768,
    "model_type": "mixtral",
    "num_attention_heads": 32,
    "num_experts_per_tok": 2,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "num_local_experts": 8,
    "output_router_logits": False,
    "rms_norm_eps": 1e-05,
    "rope_theta": 1000000.0,
    "router_aux_loss_coef": 0.02,
    "sliding_window": None,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.36.0.dev0",
    "use_cache": True,
    "vocab_size": 32000,
}

# Qwen/Qwen2-7B-Instruct's config as transformers 4.45.2 prints it, in Retruth/deontic
# nlp_models/qwen2/README.md (which also prints the module tree: q_proj, k_proj and v_proj with
# bias=True, o_proj and the MLP without).
QWEN2_7B = {
    "_name_or_path": "Qwen/Qwen2-7B-Instruct",
    "architectures": ["Qwen2ForCausalLM"],
    "attention_dropout": 0.0,
    "bos_token_id": 151643,
    "eos_token_id": 151645,
    "hidden_act": "silu",
    "hidden_size": 3584,
    "initializer_range": 0.02,
    "intermediate_size": 18944,
    "max_position_embeddings": 32768,
    "max_window_layers": 28,
    "model_type": "qwen2",
    "num_attention_heads": 28,
    "num_hidden_layers": 28,
    "num_key_value_heads": 4,
    "rms_norm_eps": 1e-06,
    "rope_scaling": None,
    "rope_theta": 1000000.0,
    "sliding_window": None,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.45.2",
    "use_cache": True,
    "use_sliding_window": False,
    "vocab_size": 152064,
}

# Qwen/Qwen2-0.5B config.json, as rwth-i6/i6_experiments holds it in
# users/juanola/experiments/e25_11_13_ctc/configurations/qwen2/qwen2_configs.py ("Qwen2-0_5B").
QWEN2_0_5B = {
    "architectures": ["Qwen2ForCausalLM"],
    "attention_dropout": 0.0,
    "bos_token_id": 151643,
    "eos_token_id": 151643,
    "hidden_act": "silu",
    "hidden_size": 896,
    "initializer_range": 0.02,
    "intermediate_size": 4864,
    "max_position_embeddings": 131072,
    "max_window_layers": 24,
    "model_type": "qwen2",
    "num_attention_heads": 14,
    "num_hidden_layers": 24,
    "num_key_value_heads": 2,
    "rms_norm_eps": 1e-06,
    "rope_theta": 1000000.0,
    "sliding_window": 131072,
    "tie_word_embeddings": True,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.40.1",
    "use_cache": True,
    "use_sliding_window": False,
    "vocab_size": 151936,
}

# mistralai/Mistral-Nemo-Base-2407 config.json, as kevinstephano/thunder_model_blocks holds it
# in thunder_model_blocks/mistral/mistral_config.py: head_dim 128, where hidden_size / heads = 160.
MISTRAL_NEMO = {
    "_name_or_path": "mistralai/Mistral-Nemo-Base-2407",
    "architectures": ["MistralForCausalLM"],
    "attention_dropout": 0.0,
    "bos_token_id": 1,
    "eos_token_id": 2,
    "head_dim": 128,
    "hidden_act": "silu",
    "hidden_size": 5120,
    "initializer_range": 0.02,
    "intermediate_size": 14336,
    "max_position_embeddings": 128000,
    "model_type": "mistral",
    "num_attention_heads": 32,
    "num_hidden_layers": 40,
    "num_key_value_heads": 8,
    "rms_norm_eps": 1e-05,
    "rope_theta": 1000000.0,
    "sliding_window": None,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.43.3",
    "use_cache": True,
    "vocab_size": 131072,
}

# -- the shipped models, reproduced ---------------------------------------------------------------

SHAPE = [f.name for f in dataclasses.fields(tf.Model) if f.name not in ("name", "source")]


@pytest.mark.parametrize(
    "key, config",
    [
        ("llama-3-8b", LLAMA_3_8B),
        ("llama-3-70b", LLAMA_3_70B),
        ("mistral-7b", MISTRAL_7B),
        ("mixtral-8x7b", MIXTRAL_8X7B),
    ],
)
def test_each_shipped_model_is_reproduced_from_its_published_config(key, config):
    shipped, read = tf.get_model(key), model_from_hf_config(config)
    assert {f: getattr(read, f) for f in SHAPE} == {f: getattr(shipped, f) for f in SHAPE}
    assert read.source is None  # a user's model: no citation is claimed for it


# -- parameter counts -----------------------------------------------------------------------------
# (config, the checkpoint's exact count, the rounded total its page prints, half a unit of that
# total's last digit). The exact counts, Hugging Face's safetensors metadata as quoted in public
# repositories: Llama-3-8B 8,030,261,248 and Llama-3-70B 70,553,706,496 (also in
# tests/lib/test_transformer_cli.py); Mistral-7B-v0.1 7,241,732,096; Mixtral-8x7B 46,702,792,704;
# Qwen2.5-7B-Instruct 7,615,616,512 and Qwen2.5-0.5B-Instruct 494,032,768 (the same shapes as
# Qwen2-7B and Qwen2-0.5B); Mistral-Nemo-Instruct-2407 12,247,782,400. The rounded totals are
# the model pages' (Qwen2-0.5B: the Qwen2 announcement's "0.49B").
COUNTS = [
    (LLAMA_3_8B, 8_030_261_248, 8.03e9, 0.005e9),
    (LLAMA_3_70B, 70_553_706_496, 70.6e9, 0.05e9),
    (MISTRAL_7B, 7_241_732_096, 7.24e9, 0.005e9),
    (MIXTRAL_8X7B, 46_702_792_704, 46.7e9, 0.05e9),
    (QWEN2_7B, 7_615_616_512, 7.62e9, 0.005e9),
    (QWEN2_0_5B, 494_032_768, 0.49e9, 0.005e9),
    (MISTRAL_NEMO, 12_247_782_400, 12.2e9, 0.05e9),
]
COUNT_IDS = ["llama-3-8b", "llama-3-70b", "mistral-7b", "mixtral", "qwen2-7b", "qwen2-0.5b", "nemo"]


@pytest.mark.parametrize("config, exact, published, tolerance", COUNTS, ids=COUNT_IDS)
def test_the_checkpoint_count_is_exact_once_the_noted_biases_are_added(
    config, exact, published, tolerance
):
    loaded = load_hf_config(config)
    assert loaded.checkpoint_params == exact
    assert loaded.model.params + loaded.unmodelled_params == exact


@pytest.mark.parametrize("config, exact, published, tolerance", COUNTS, ids=COUNT_IDS)
def test_the_models_own_count_rounds_to_the_published_total(config, exact, published, tolerance):
    """Leaving out Qwen2's biases (0.002-0.006%) moves no total off its printed digits."""
    assert abs(model_from_hf_config(config).params - published) <= tolerance


def test_qwen2s_qkv_biases_are_counted_and_said():
    """L·(H + 2·H_kv)·d = 28·(28 + 2·4)·128 = 129,024 for Qwen2-7B."""
    loaded = load_hf_config(QWEN2_7B)
    assert loaded.unmodelled_params == 28 * (28 + 2 * 4) * 128 == 129_024
    (note,) = loaded.notes
    assert "Q, K and V projections have biases" in note and "129,024" in note


def test_llama_and_mistral_have_no_biases_and_nothing_to_note():
    for config in (LLAMA_3_8B, LLAMA_3_70B, MISTRAL_NEMO, MIXTRAL_8X7B):
        loaded = load_hf_config(config)
        assert loaded.unmodelled_params == 0 and loaded.notes == ()


def test_llamas_attention_and_mlp_biases_are_counted_when_set():
    """attention_bias: L·((H + 2H_kv)·d + D); mlp_bias: L·(2F + D), Llama-3-8B's shape."""
    loaded = load_hf_config({**LLAMA_3_8B, "attention_bias": True, "mlp_bias": True})
    attention = 32 * ((32 + 2 * 8) * 128 + 4096)
    mlp = 32 * (2 * 14336 + 4096)
    assert loaded.unmodelled_params == attention + mlp
    assert loaded.model == model_from_hf_config(LLAMA_3_8B)
    assert [n.split(":")[0] for n in loaded.notes] == ["attention_bias", "mlp_bias"]


# -- shapes ---------------------------------------------------------------------------------------


def test_qwen2_0_5b_ties_its_embeddings():
    model = model_from_hf_config(QWEN2_0_5B)
    assert model.tied_embeddings is True
    assert model.embedding_params == 151936 * 896  # one V·D table, not two
    assert model.matmul_params == model.params  # the tied table is also the output projection


def test_mistral_nemos_head_dim_is_read_not_derived():
    model = model_from_hf_config(MISTRAL_NEMO)
    assert 5120 // 32 == 160 and model.d == 128
    assert model.attention_params == 2 * 5120 * 32 * 128 + 2 * 5120 * 8 * 128
    assert model.kv_cache_bytes_per_token() == 2 * 40 * 8 * 128 * 2 == 163_840


def test_mixtral_routes_each_token_to_two_of_eight_experts():
    """'only uses 12.9B parameters per token' (https://mistral.ai/news/mixtral-of-experts/)."""
    model = model_from_hf_config(MIXTRAL_8X7B)
    assert (model.experts, model.experts_per_token) == (8, 2)
    assert abs(model.active_params - 12.9e9) <= 0.05e9


def test_every_family_has_a_gated_mlp():
    for config in (LLAMA_3_8B, MISTRAL_7B, MIXTRAL_8X7B, QWEN2_7B):
        assert model_from_hf_config(config).mlp is tf.MlpKind.GATED


# -- defaults and ignored keys --------------------------------------------------------------------


def _without(config: dict, *keys: str) -> dict:
    return {k: v for k, v in config.items() if k not in keys}


def test_null_kv_heads_means_multi_head_attention_in_every_family():
    for config in (LLAMA_3_8B, MISTRAL_7B, MIXTRAL_8X7B, QWEN2_7B):
        assert (
            model_from_hf_config({**config, "num_key_value_heads": None}).kv_heads
            == (config["num_attention_heads"])
        )


@pytest.mark.parametrize(
    "config, kv_heads, noted",
    [
        (LLAMA_3_8B, 32, False),  # LlamaConfig: None, then num_attention_heads
        (MISTRAL_7B, 8, True),  # MistralConfig's default 8
        (MIXTRAL_8X7B, 8, True),  # MixtralConfig's default 8
    ],
    ids=["llama", "mistral", "mixtral"],
)
def test_absent_kv_heads_take_the_config_classs_default(config, kv_heads, noted):
    """As transformers' config classes read an absent num_key_value_heads (configuration_llama.py,
    configuration_mistral.py, configuration_mixtral.py); a default other than H is said."""
    loaded = load_hf_config(_without(config, "num_key_value_heads"))
    assert loaded.model.kv_heads == kv_heads
    assert any("num_key_value_heads is absent" in n for n in loaded.notes) is noted


def test_qwen2s_default_of_32_kv_heads_must_still_divide_the_heads():
    """Qwen2Config defaults num_key_value_heads to 32, which 28 heads cannot be grouped by."""
    with pytest.raises(ConfigError, match=r"num_key_value_heads: 32 must divide .*\(28\)") as err:
        load_hf_config(_without(QWEN2_7B, "num_key_value_heads"))
    assert err.value.keys == ("num_key_value_heads",)


def test_absent_tie_word_embeddings_means_untied_and_absent_experts_mixtrals_defaults():
    assert (
        model_from_hf_config(_without(QWEN2_0_5B, "tie_word_embeddings")).tied_embeddings is False
    )
    loaded = load_hf_config(_without(MIXTRAL_8X7B, "num_local_experts", "num_experts_per_tok"))
    assert (loaded.model.experts, loaded.model.experts_per_token) == (8, 2)
    assert len(loaded.notes) == 2 and all("MixtralConfig's default" in n for n in loaded.notes)


def test_mixtrals_num_experts_is_read_as_num_local_experts():
    """MixtralConfig.attribute_map = {"num_experts": "num_local_experts"}."""
    config = {**_without(MIXTRAL_8X7B, "num_local_experts"), "num_experts": 4}
    assert model_from_hf_config(config).experts == 4


def test_keys_that_change_neither_flops_nor_bytes_are_ignored():
    extra = {
        "rope_scaling": {"factor": 8.0, "rope_type": "llama3"},
        "bos_token_id": 1,
        "eos_token_id": [128001, 128009],
        "torch_dtype": "float32",
        "max_position_embeddings": 131072,
        "hidden_act": "gelu",
        "some_future_key": {"nested": True},
    }
    loaded = load_hf_config({**LLAMA_3_8B, **extra})
    assert loaded.model == model_from_hf_config(LLAMA_3_8B) and loaded.notes == ()


# -- simplifications said -------------------------------------------------------------------------


def test_mistral_7bs_sliding_window_is_said_not_modelled():
    (note,) = load_hf_config(MISTRAL_7B).notes
    assert note.startswith("sliding_window 4096 on every layer is not modelled")


def test_mistrals_default_window_is_said_when_the_key_is_absent():
    (note,) = load_hf_config(_without(MISTRAL_7B, "sliding_window")).notes
    assert "sliding_window 4096 (absent: the config class's default)" in note


def test_qwen2s_window_counts_only_when_use_sliding_window_is_true():
    off = load_hf_config(QWEN2_0_5B)  # sliding_window 131072, use_sliding_window false
    assert not any(n.startswith("sliding_window") for n in off.notes)
    on = load_hf_config({**QWEN2_0_5B, "use_sliding_window": True})
    assert any(
        n.startswith("sliding_window 131072 on layers from max_window_layers (24) on")
        for n in on.notes
    )


def test_a_quantization_config_is_said_not_read():
    quantized = {**MIXTRAL_8X7B, "quantization_config": {"quant_method": "awq", "bits": 4}}
    (note,) = load_hf_config(quantized).notes
    assert note.startswith("quantization_config (awq) is not read") and "--weights" in note


# -- refusals -------------------------------------------------------------------------------------

DEEPSEEK_V3_LIKE = {
    "model_type": "deepseek_v3",
    "hidden_size": 7168,
    "intermediate_size": 18432,
    "num_hidden_layers": 61,
    "num_attention_heads": 128,
    "num_key_value_heads": 128,
    "vocab_size": 129280,
    "kv_lora_rank": 512,
    "q_lora_rank": 1536,
    "moe_intermediate_size": 2048,
    "n_routed_experts": 256,
    "n_shared_experts": 1,
    "first_k_dense_replace": 3,
}


@pytest.mark.parametrize(
    "config, key, words",
    [
        ({**LLAMA_3_8B, "model_type": "gpt2"}, "model_type", ["'gpt2'", "'llama'", "'qwen2'"]),
        (_without(LLAMA_3_8B, "model_type"), "model_type", ["missing", "'mixtral'"]),
        (
            {"model_type": "llava", "text_config": LLAMA_3_8B},
            "text_config",
            ["multimodal", "text_config part"],
        ),
        (
            {**QWEN2_7B, "shared_expert_intermediate_size": 20480},
            "shared_expert_intermediate_size",
            ["shared experts", "Mixtral-style"],
        ),
        ({**LLAMA_3_8B, "kv_lora_rank": 512}, "kv_lora_rank", ["latent", "grouped-query"]),
        ({**MIXTRAL_8X7B, "moe_intermediate_size": 1408}, "moe_intermediate_size", ["width"]),
        ({**MISTRAL_7B, "num_local_experts": 8}, "num_local_experts", ["dense", "'mixtral'"]),
        ({**QWEN2_7B, "num_experts": 60}, "num_experts", ["dense", "'mixtral'"]),
        ({**LLAMA_3_8B, "num_key_value_heads": 6}, "num_key_value_heads", ["6 must divide", "32"]),
        ({**LLAMA_3_8B, "num_key_value_heads": 0}, "num_key_value_heads", ["positive integer"]),
        (_without(LLAMA_3_8B, "hidden_size"), "hidden_size", ["missing", "width"]),
        ({**LLAMA_3_8B, "hidden_size": "4096"}, "hidden_size", ["positive integer", "'4096'"]),
        ({**LLAMA_3_8B, "num_hidden_layers": True}, "num_hidden_layers", ["positive integer"]),
        ({**LLAMA_3_8B, "vocab_size": 128256.5}, "vocab_size", ["positive integer"]),
        ({**LLAMA_3_8B, "head_dim": 0}, "head_dim", ["positive integer or null"]),
        ({**LLAMA_3_8B, "hidden_size": 4100}, "head_dim", ["does not divide", "give head_dim"]),
        ({**LLAMA_3_8B, "tie_word_embeddings": "yes"}, "tie_word_embeddings", ["true or false"]),
        ({**MIXTRAL_8X7B, "num_experts_per_tok": 9}, "num_experts_per_tok", ["must not exceed"]),
        ({**MISTRAL_7B, "sliding_window": -1}, "sliding_window", ["positive integer or null"]),
        (
            {**QWEN2_7B, "layer_types": ["linear_attention"] * 28},
            "layer_types",
            ["linear_attention", "'full_attention'"],
        ),
    ],
)
def test_each_refusal_names_its_key_and_what_is_supported(config, key, words):
    with pytest.raises(ConfigError) as caught:
        load_hf_config(config)
    err = caught.value
    assert key in err.keys and f"{key}: " in str(err)
    for word in words:
        assert word in str(err)
    assert str(err).startswith("<mapping>: ")


def test_qwen2_moe_is_refused_for_its_model_type_and_its_shared_expert():
    qwen2_moe = {
        **QWEN2_7B,
        "model_type": "qwen2_moe",
        "num_experts": 60,
        "moe_intermediate_size": 1408,
        "shared_expert_intermediate_size": 5632,
    }
    with pytest.raises(ConfigError) as caught:
        load_hf_config(qwen2_moe)
    assert set(caught.value.keys) == {
        "shared_expert_intermediate_size",
        "moe_intermediate_size",
        "model_type",
    }
    assert "'qwen2_moe' is not supported" in str(caught.value)


def test_every_key_a_deepseek_config_cannot_be_read_by_is_named_at_once():
    with pytest.raises(ConfigError) as caught:
        load_hf_config(DEEPSEEK_V3_LIKE)
    assert set(caught.value.keys) == {
        "kv_lora_rank",
        "q_lora_rank",
        "moe_intermediate_size",
        "n_routed_experts",
        "n_shared_experts",
        "first_k_dense_replace",
        "model_type",
    }
    # keys refused for one reason are named together, the reason said once
    assert "kv_lora_rank, q_lora_rank: multi-head latent attention" in str(caught.value)
    assert str(caught.value).count("multi-head latent attention") == 1


def test_a_config_error_is_a_value_error():
    assert issubclass(ConfigError, ValueError)


# -- files and names ------------------------------------------------------------------------------


def _write(path: Path, config: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(config, indent=2), encoding="utf-8")
    return path


def test_a_file_and_its_folder_read_alike(tmp_path):
    file = _write(tmp_path / "my-llama" / "config.json", _without(LLAMA_3_8B, "_name_or_path"))
    by_file, by_folder = load_hf_config(file), load_hf_config(file.parent)
    assert by_file == by_folder
    assert by_file.source == str(file) and by_file.model.name == "my-llama"


def test_the_name_comes_from_name_or_path_then_the_folder_then_the_stem(tmp_path):
    assert model_from_hf_config(QWEN2_7B).name == "Qwen2-7B-Instruct"
    assert model_from_hf_config(MIXTRAL_8X7B).name == "custom model"
    assert model_from_hf_config(QWEN2_7B, name="mine").name == "mine"
    snapshot = tmp_path / "models--Qwen--Qwen2-0.5B" / "snapshots" / ("0" * 40) / "config.json"
    assert model_from_hf_config(_write(snapshot, QWEN2_0_5B)).name == "Qwen2-0.5B"
    assert model_from_hf_config(_write(tmp_path / "nemo-ft.json", MISTRAL_7B)).name == "nemo-ft"


@pytest.mark.parametrize(
    "text, words",
    [
        (None, ["no such file"]),
        ('{"model_type": "llama",', ["not JSON", "line 1"]),
        ("[1, 2]", ["JSON object", "list"]),
    ],
    ids=["missing", "not-json", "not-an-object"],
)
def test_a_bad_file_is_named_in_the_error(tmp_path, text, words):
    file = tmp_path / "config.json"
    if text is not None:
        file.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_hf_config(file)
    assert str(caught.value).startswith(f"{file}: ")
    for word in words:
        assert word in str(caught.value)


def test_a_loaded_model_is_frozen():
    loaded = load_hf_config(QWEN2_7B)
    assert isinstance(loaded, LoadedModel)
    with pytest.raises(dataclasses.FrozenInstanceError):
        loaded.notes = ()  # type: ignore[misc]


# -- the command ----------------------------------------------------------------------------------


def test_the_command_with_a_config_prints_the_report_and_the_notes(tmp_path, capsys):
    file = _write(tmp_path / "qwen" / "config.json", QWEN2_7B)
    assert main(["--config", str(file), "--chip", "H100 SXM", "--batch", "8"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Qwen2-7B-Instruct on one H100 SXM")
    assert "whole model: 7.62 G parameters (7.62 G active per token)" in out
    assert f"Qwen2-7B-Instruct: read from {file} (model_type qwen2)" in out
    assert re.search(r"^note: Q, K and V projections have biases.*129,024", out, re.M)
    written = tmp_path / "qwen.json"
    args = ["--config", str(file), "--chip", "H100 SXM", "--json", str(written)]
    assert main(args) == 0
    data = json.loads(written.read_text())
    assert data["model"]["config"] == str(file) and "129,024" in data["model"]["notes"][0]
    assert jsonschema.Draft202012Validator(json_schema()).is_valid(data)


def test_a_config_of_a_shipped_model_prints_what_model_prints(tmp_path, capsys):
    """The same shape through --config and through --model: the same report, line for line,
    but for the model's name (the file's folder here) and the lines saying where it was read."""
    file = _write(tmp_path / "Llama-3-70B" / "config.json", LLAMA_3_70B)
    args = ["--chip", "H100 SXM", "--chips", "8", "--batch", "64"]
    assert main(["--model", "llama-3-70b", *args]) == 0
    shipped = capsys.readouterr().out
    assert main(["--config", str(file), *args]) == 0
    read = capsys.readouterr().out
    assert read.startswith(shipped)
    assert read[len(shipped) :] == f"\nLlama-3-70B: read from {file} (model_type llama)\n"


@pytest.mark.parametrize(
    "config, words",
    [
        (None, ["no such file"]),
        ({**LLAMA_3_8B, "kv_lora_rank": 512}, ["kv_lora_rank: multi-head latent attention"]),
        (_without(LLAMA_3_8B, "vocab_size"), ["vocab_size: missing"]),
    ],
    ids=["missing", "refused", "key-missing"],
)
def test_a_bad_config_exits_2_naming_the_file_and_key(tmp_path, capsys, config, words):
    file = tmp_path / "config.json"
    if config is not None:
        _write(file, config)
    with pytest.raises(SystemExit) as done:
        main(["--config", str(file), "--chip", "H100 SXM"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert f"error: argument --config: {file}: " in err and "Traceback" not in err
    for word in words:
        assert word in err


@pytest.mark.parametrize(
    "args, words",
    [
        (["--chip", "H100 SXM"], ["one of the arguments --model --config is required"]),
        (
            ["--model", "llama-3-8b", "--config", "x.json", "--chip", "H100 SXM"],
            ["not allowed with argument"],
        ),
    ],
    ids=["neither", "both"],
)
def test_model_and_config_are_one_or_the_other(capsys, args, words):
    with pytest.raises(SystemExit) as done:
        main(args)
    assert done.value.code == 2
    err = capsys.readouterr().err
    for word in words:
        assert word in err


def test_the_readmes_config_example_runs(tmp_path, capsys):
    """README.md shows one --config command; it runs, on a config.json written where it says."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (line,) = [
        m
        for m in re.findall(r"`(python -m roofline_lib\.transformer [^`]+)`", readme)
        if "--config" in m
    ]
    argv = shlex.split(line)[3:]
    given = argv[argv.index("--config") + 1]
    file = _write(tmp_path / Path(given).parent.name / "config.json", QWEN2_7B)
    argv[argv.index("--config") + 1] = str(file)
    assert main(argv) == 0
    assert "note: Q, K and V projections have biases" in capsys.readouterr().out
