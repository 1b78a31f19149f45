"""The command: a model served on N chips, printed as a per-layer table and totals.

``python -m roofline_lib.transformer --model llama-3-70b --chip "H100 SXM" --chips 8
--link nvlink4 --batch 64 --context 4096 --prompt 2048 [--json FILE]``; ``--config PATH`` in
place of ``--model`` reads a Hugging Face config.json (:mod:`~roofline_lib.transformer.hf_config`).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence

from ..dtypes import DTYPES
from ..fmt import format_quantity
from ..hardware import chip_names, get_chip
from ..roofline import MEMORY_LEVELS, known_levels
from .analysis import InferenceEstimate, Pass, PassTimes, estimate_inference
from .hf_config import SUPPORTED_MODEL_TYPES, ConfigError, LoadedModel, load_hf_config
from .models import get_model, model_names
from .operations import InferenceDtypes


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m roofline_lib.transformer",
        description="A transformer's prefill and decode step on the roofline: per-layer "
        "operations, three named times (roofline bound, per-operation estimate, upper bound), "
        "regimes, and whether weights and KV cache fit in HBM. Each figure says its scope: "
        "per chip, all N chips, or the whole model.",
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
    p.add_argument(
        "--all-reduce",
        choices=DTYPES,
        help="dtype the all-reduces send (default: the activations')",
    )
    p.add_argument("--json", metavar="FILE", help="also write the estimate as JSON")
    return p


def _times(t: PassTimes, regime: str) -> list[str]:
    """The three named times of a pass, one a line, each saying what it assumes."""
    q = format_quantity
    return [
        f"  roofline bound     >= {q(float(t.bound_s), 's'):>9}  max of the totals: {regime}",
        f"  per-op estimate       {q(float(t.estimate_s), 's'):>9}  each operation waits for its "
        "slowest resource; no overlap between operations",
        f"  upper bound           {q(float(t.upper_s), 's'):>9}  no overlap at all, every "
        "resource at its peak",
    ]


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
        f"{'compulsory HBM (weights, KV cache)':<46}"
        f"{format_quantity(float(p.compulsory_bytes), 'B'):>11}{'':>21}"
        f"{format_quantity(float(p.t_hbm_compulsory_s), 's'):>10}"
    )
    return [*lines, *_times(p.times, str(p.regime))]


def report(est: InferenceEstimate) -> str:
    """The table and totals the command prints; each figure says its scope (per chip, the
    group of N, or the whole model)."""
    m, n, q = est.model, est.n_chips, format_quantity
    if est.link is not None and est.link_one_way_bytes_per_s is not None:
        where = (
            f"{n} x {est.chip.name}, tensor-parallel over {est.chip.level_name(est.link)} "
            f"({q(est.link_one_way_bytes_per_s, 'B/s')} one-way per chip at N = {n})"
        )
    else:
        where = f"one {est.chip.name}"
    dt = est.dtypes
    rate, per_chip = est.decode_tokens_per_s, est.decode_tokens_per_s_per_chip
    lines = [
        f"{m.name} on {where}",
        f"weights {dt.weights}, activations {dt.activations}, KV cache {dt.kv_cache}, "
        f"all-reduces {dt.collective}; "
        f"B = {est.batch:g} requests, prompt {est.prompt:g} tokens, decode context "
        f"{est.context:g} tokens",
        f"whole model: {q(m.params, '')} parameters ({q(m.active_params, '')} active per token); "
        f"KV cache {q(est.kv_cache_bytes_per_token, 'B')} per token",
        "",
        "Per chip, each operation times its count (every chip runs the same operations on its "
        "shard):",
        *_table(est.prefill),
        "",
        *_table(est.decode),
        "",
        f"time to first token  >= {q(float(est.ttft.bound_s), 's')} (bound); "
        f"{q(float(est.ttft.estimate_s), 's')} per-op estimate; "
        f"{q(float(est.ttft.upper_s), 's')} upper bound",
        f"inter-token latency  >= {q(float(est.itl.bound_s), 's')} (bound); "
        f"{q(float(est.itl.estimate_s), 's')} per-op estimate; "
        f"{q(float(est.itl.upper_s), 's')} upper bound",
        f"decode throughput, all {n} chips: <= {q(float(rate.most), 'tokens/s')} (bound), "
        f"{q(float(rate.estimate), 'tokens/s')} per-op estimate"
        + (
            f"; per chip <= {q(float(per_chip.most), 'tokens/s')}, "
            f"{q(float(per_chip.estimate), 'tokens/s')}"
            if n > 1
            else ""
        ),
        f"weight matmuls compute-bound in decode for B > {math.floor(est.decode_critical_batch)} "
        "(the largest of the matmuls' critical batches)"
        if math.isfinite(est.decode_critical_batch)
        else "weight matmuls never all compute-bound in decode",
        f"HBM per chip: weights {q(est.weight_bytes_per_chip, 'B')} + KV cache "
        f"{q(float(est.kv_cache_bytes_per_chip), 'B')} of "
        f"{q(est.hbm_capacity_bytes, 'B')}: "
        f"{'fits' if est.fits_in_hbm else 'does not fit'}; largest batch {est.max_batch:g} "
        "requests",
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
            dtypes=InferenceDtypes(args.weights, args.activations, args.kv_cache, args.all_reduce),
        )
    except ValueError as err:  # a dtype the chip lacks, N not dividing the heads, a bad size
        p.error(str(err))
    print(report(est))
    if loaded is not None:
        print(f"\n{loaded.model.name}: read from {loaded.source} (model_type {loaded.model_type})")
        for note in loaded.notes:
            print(f"note: {note}")
    if args.json:
        data = est.to_json()
        if loaded is not None:  # where a user's model came from, and what it simplifies
            data["model"] |= {"config": str(loaded.source), "notes": list(loaded.notes)}
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2, allow_nan=False)
            handle.write("\n")
        print(f"wrote {args.json}", file=sys.stderr)
    return 0
