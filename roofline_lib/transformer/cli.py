"""The command: a model served on N chips, printed as a per-layer table and totals.

``python -m roofline_lib.transformer --model llama-3-70b --chip "H100 SXM" --chips 8
--link nvlink4 --batch 64 --context 4096 --prompt 2048 [--json FILE]``; ``--config PATH`` in
place of ``--model`` reads a Hugging Face config.json (:mod:`~roofline_lib.transformer.hf_config`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from ..dtypes import DTYPES
from ..fmt import format_quantity
from ..hardware import chip_names, get_chip
from ..roofline import MEMORY_LEVELS, known_levels
from .analysis import InferenceEstimate, Pass, estimate_inference
from .hf_config import SUPPORTED_MODEL_TYPES, ConfigError, LoadedModel, load_hf_config
from .models import get_model, model_names
from .operations import InferenceDtypes


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m roofline_lib.transformer",
        description="A transformer's prefill and decode step on the roofline: per-layer "
        "operations, time bounds, regimes, and whether weights and KV cache fit in HBM. "
        "Every figure is per chip.",
    )
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--model", choices=model_names())
    which.add_argument(
        "--config",
        metavar="PATH",
        help="a Hugging Face config.json (or its folder) of model_type "
        f"{', '.join(SUPPORTED_MODEL_TYPES)}",
    )
    p.add_argument("--chip", required=True, choices=chip_names())
    p.add_argument("--chips", type=int, default=1, help="tensor-parallel degree N (default 1)")
    links = [k for k in known_levels() if k not in MEMORY_LEVELS]
    p.add_argument("--link", choices=links, help="default: the chip's default link")
    p.add_argument("--batch", type=int, default=1, help="requests B (default 1)")
    p.add_argument("--context", type=int, default=4096, help="decode context S (default 4096)")
    p.add_argument("--prompt", type=int, default=2048, help="prefill prompt S (default 2048)")
    for name in ("weights", "activations", "kv-cache"):
        p.add_argument(f"--{name}", choices=DTYPES, default="bf16", help="dtype (default bf16)")
    p.add_argument("--json", metavar="FILE", help="also write the estimate as JSON")
    return p


def _table(p: Pass) -> list[str]:
    head = (
        f"{'operation':<20}{'x':>4}{'FLOPs':>11}{'HBM bytes':>11}{'net bytes':>11}"
        f"{'T_math':>10}{'T_hbm':>10}{'T_net':>10}  regime"
    )
    lines = [f"{p.phase}: {format_quantity(float(p.tokens), 'tokens')} through the model", head]
    for op in p.operations:
        lines.append(
            f"{op.name:<20}{op.count:>4}"
            f"{format_quantity(float(op.flops), ''):>11}"
            f"{format_quantity(float(op.bytes), 'B'):>11}"
            f"{format_quantity(float(op.cost.network_bytes), 'B'):>11}"
            f"{format_quantity(float(op.t_math_s), 's'):>10}"
            f"{format_quantity(float(op.t_hbm_s), 's'):>10}"
            f"{format_quantity(float(op.t_network_s), 's'):>10}  {op.regime}"
        )
    lines.append(
        f"{'total':<24}{format_quantity(float(p.flops), ''):>11}"
        f"{format_quantity(float(p.bytes), 'B'):>11}"
        f"{format_quantity(float(p.network_bytes), 'B'):>11}"
        f"{format_quantity(float(p.t_math_s), 's'):>10}"
        f"{format_quantity(float(p.t_hbm_s), 's'):>10}"
        f"{format_quantity(float(p.t_network_s), 's'):>10}  {p.regime}"
    )
    lines.append(
        f"T_lower = {format_quantity(float(p.t_lower_s), 's')}, "
        f"T_upper = {format_quantity(float(p.t_upper_s), 's')}"
    )
    return lines


def report(est: InferenceEstimate) -> str:
    """The table and totals the command prints."""
    m = est.model
    where = f"{est.n_chips} x {est.chip.name}" + (f" over {est.link}" if est.link else "")
    dt = est.dtypes
    lines = [
        f"{m.name} on {where}; weights {dt.weights}, activations {dt.activations}, "
        f"KV cache {dt.kv_cache}; B = {est.batch:g}, prompt {est.prompt:g}, "
        f"context {est.context:g} (per chip)",
        f"params {format_quantity(m.params, '')} (active {format_quantity(m.active_params, '')}); "
        f"KV cache {format_quantity(est.kv_cache_bytes_per_token, 'B')}/token",
        "",
        *_table(est.prefill),
        "",
        *_table(est.decode),
        "",
        f"TTFT >= {format_quantity(float(est.ttft_lower_s), 's')}; "
        f"inter-token latency >= {format_quantity(float(est.itl_lower_s), 's')}; "
        f"decode <= {format_quantity(float(est.tokens_per_s), 'tokens/s')}",
        f"weight matmuls compute-bound in decode from B = {est.decode_critical_batch:.0f}",
        f"HBM per chip: weights {format_quantity(est.weight_bytes_per_chip, 'B')} + KV cache "
        f"{format_quantity(float(est.kv_cache_bytes_per_chip), 'B')} of "
        f"{format_quantity(est.hbm_capacity_bytes, 'B')}: "
        f"{'fits' if est.fits_in_hbm else 'does not fit'}; largest batch {est.max_batch:g}",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    chip = get_chip(args.chip)
    if args.link is not None and args.link not in chip.links:
        p.error(
            f"argument --link: {chip.name} has no link {args.link!r} "
            f"(choose from {', '.join(repr(k) for k in chip.links)})"
        )
    loaded: LoadedModel | None = None
    if args.config is not None:
        try:
            loaded = load_hf_config(args.config)
        except ConfigError as err:  # missing, not JSON, a key missing, refused or bad
            p.error(f"argument --config: {err}")
    try:
        est = estimate_inference(
            loaded.model if loaded else get_model(args.model),
            chip,
            batch=args.batch,
            context=args.context,
            prompt=args.prompt,
            n_chips=args.chips,
            link=args.link,
            dtypes=InferenceDtypes(args.weights, args.activations, args.kv_cache),
        )
    except ValueError as err:  # a dtype the chip lacks, N not dividing the heads, a bad size
        p.error(str(err))
    print(report(est))
    if loaded is not None:
        print(f"\n{loaded.model.name}: read from {loaded.source} (model_type {loaded.model_type})")
        for note in loaded.notes:
            print(f"note: {note}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(est.to_json(), handle, indent=2)
            handle.write("\n")
        print(f"wrote {args.json}", file=sys.stderr)
    return 0
