"""roofline_lib: the single source of truth for every number in the Roofline course.

Modules, one idea each:

* :mod:`~roofline_lib.hardware` — cited catalog of chips and links (dense FLOP/s, one-way bytes/s);
* :mod:`~roofline_lib.dtypes` — bytes per element;
* :mod:`~roofline_lib.costs` — FLOPs and HBM bytes of vector ops and matmuls;
* :mod:`~roofline_lib.attention` — standard, flash and decode attention;
* :mod:`~roofline_lib.sharding` — matmuls sharded over chips, network intensity, critical D;
* :mod:`~roofline_lib.roofline` — T_math, T_comms, bounds, regimes, critical intensity and batch;
* :mod:`~roofline_lib.throughput` — a matmul's achievable FLOP/s over a range of batch sizes;
* :mod:`~roofline_lib.mfu` — training FLOPs and MFU;
* :mod:`~roofline_lib.transformer` — a whole model's prefill and decode step on the roofline;
* :mod:`~roofline_lib.plots` and :mod:`~roofline_lib.palette` — charts;
* :mod:`~roofline_lib.fmt` — numbers for prose;
* :mod:`~roofline_lib.chapter` — the sources' rounded figures and their problems' givens;
* :mod:`~roofline_lib.published` — cited figures from papers and the original (MFU of real runs).
* :mod:`~roofline_lib.serving_check` — published serving measurements beside the roofline bound
  of the same workload.

Plotting, the explorer and measurement are imported on first use, so ``import roofline_lib``
stays light.
"""

from __future__ import annotations

from . import chapter, published, transformer
from ._checks import UnknownNameError
from .attention import (
    decode_attention,
    flash_attention,
    standard_attention,
    standard_attention_critical_seq_len,
)
from .costs import (
    BF16,
    ELEMENTWISE_FLOPS_PER_ELEMENT,
    FP32,
    INT8,
    W8A16,
    Cost,
    MatmulDtypes,
    batched_matmul,
    dot_product,
    elementwise,
    matmul,
    matmul_dtypes,
    matmul_small_batch,
    tile_intensity,
    tiled_matmul,
)
from .dtypes import BYTES_PER_ELEMENT, DTYPES, bytes_per_element
from .fmt import format_batch, format_number, format_percent, format_quantity, indefinite_article
from .hardware import CATALOG, LINKS, Chip, Citation, Link, chip_names, get_chip, get_link
from .mfu import TrainingFlops, model_flops_utilization, step_time_for_mfu, training_flops
from .roofline import (
    RooflineEstimate,
    achievable_flops_per_s,
    analyze,
    critical_batch_size,
    critical_intensity,
    estimate,
    lower_bound,
    regime,
    t_comms,
    t_math,
    upper_bound,
)
from .sharding import (
    COLLECTIVES,
    ShardedMatmulCost,
    collective_factor,
    critical_contracting_dim,
    critical_shard_dim,
    sharded_matmul,
)
from .throughput import matmul_throughput
from .transformer import (
    MODELS,
    InferenceDtypes,
    InferenceEstimate,
    MlpKind,
    Model,
    decode_critical_batch,
    estimate_inference,
    get_model,
    model_names,
)

__all__ = [
    "BF16",
    "BYTES_PER_ELEMENT",
    "CATALOG",
    "COLLECTIVES",
    "DTYPES",
    "ELEMENTWISE_FLOPS_PER_ELEMENT",
    "FP32",
    "INT8",
    "LINKS",
    "MODELS",
    "W8A16",
    "Chip",
    "Citation",
    "Cost",
    "InferenceDtypes",
    "InferenceEstimate",
    "Link",
    "MatmulDtypes",
    "MlpKind",
    "Model",
    "RooflineEstimate",
    "ShardedMatmulCost",
    "TrainingFlops",
    "UnknownNameError",
    "achievable_flops_per_s",
    "analyze",
    "batched_matmul",
    "bytes_per_element",
    "chapter",
    "chip_names",
    "collective_factor",
    "critical_batch_size",
    "critical_contracting_dim",
    "critical_intensity",
    "critical_shard_dim",
    "decode_attention",
    "decode_critical_batch",
    "dot_product",
    "elementwise",
    "estimate",
    "estimate_inference",
    "flash_attention",
    "format_batch",
    "format_number",
    "format_percent",
    "format_quantity",
    "get_chip",
    "get_link",
    "get_model",
    "indefinite_article",
    "lower_bound",
    "matmul",
    "matmul_dtypes",
    "matmul_small_batch",
    "matmul_throughput",
    "model_flops_utilization",
    "model_names",
    "published",
    "regime",
    "sharded_matmul",
    "standard_attention",
    "standard_attention_critical_seq_len",
    "step_time_for_mfu",
    "t_comms",
    "t_math",
    "tile_intensity",
    "tiled_matmul",
    "training_flops",
    "transformer",
    "upper_bound",
]

__version__ = "0.1.0"
