"""Achievable throughput of a matmul over a range of batch sizes: the roofline applied to its cost.

:func:`matmul_throughput` is the curve the throughput-against-batch charts draw (pages 4 and 6):
for each B, min(C, I(B)·W) with I(B) the exact arithmetic intensity of X[B, D]·Y[D, F]
(:func:`roofline_lib.matmul`), C the chip's dense peak for the compute dtype and W its bandwidth
at ``level``. It lives apart from :mod:`roofline_lib.plots` so that the number a chart shows can
be computed, tested and glued into prose without drawing anything.
"""

from __future__ import annotations

import numpy as np

from ._checks import ArrayLike
from .costs import BF16, MatmulDtypes, matmul
from .hardware import Chip
from .roofline import analyze


def matmul_throughput(
    chip: Chip | str,
    B: ArrayLike,
    D: int,
    F: int,
    dtypes: MatmulDtypes | str = BF16,
    level: str = "hbm",
) -> np.ndarray:
    """Roofline FLOP/s of X[B, D]·Y[D, F] at each batch size B (exact bytes), as an array.

    FLOP/s(B) = min(C, I(B)·W), I(B) = 2·B·D·F / (bytes of X, Y and Z at B).

    ``chip`` is a :class:`~roofline_lib.Chip` or its name; ``level`` a memory level ('hbm' or
    'onchip'). Units: FLOP/s.
    """
    return np.asarray(analyze(matmul(B, D, F, dtypes), chip, level).achievable_flops_per_s)
