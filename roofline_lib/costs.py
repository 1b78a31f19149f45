"""Cost models: how many FLOPs an operation performs and how many bytes it moves through HBM.

Every function returns a :class:`Cost`. Sizes may be Python numbers or numpy arrays; arrays
broadcast together and every field of the Cost is then an array of the broadcast shape.

Counting conventions (used throughout the course):

* A multiply-add is 2 FLOPs. A length-D dot product is counted as 2D FLOPs in a matmul
  (both sources' ``2BDF``), and exactly as 2N−1 in :func:`dot_product`.
* Bytes are HBM traffic: every input read once from HBM, every output written once, nothing
  reused from caches. This is the model both sources use; :func:`tiled_matmul`
  is the exception and models re-reads explicitly.
* Arithmetic intensity = FLOPs / (bytes read + bytes written), in FLOPs per byte.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import (
    ArrayLike,
    broadcast,
    choice,
    nonnegative_real,
    out,
    positive_count,
    ratio_or_inf,
)
from .dtypes import DTYPES, bytes_per_element


@dataclass(frozen=True)
class Cost:
    """FLOPs and HBM bytes of one operation.

    Attributes:
        op: what the operation is, e.g. ``"matmul"``.
        flops: floating-point (or integer) operations, FLOPs.
        bytes_read: bytes read from HBM.
        bytes_written: bytes written to HBM.
        compute_dtype: the dtype the arithmetic runs in; it selects the chip's peak rate.
        dtypes: the dtype of each operand, e.g. ``{"x": "bf16", "y": "int8", "z": "bf16"}``.
    """

    op: str
    flops: ArrayLike
    bytes_read: ArrayLike
    bytes_written: ArrayLike
    compute_dtype: str
    dtypes: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        choice("compute_dtype", self.compute_dtype, DTYPES)
        for name in ("flops", "bytes_read", "bytes_written"):
            value = getattr(self, name)
            arr = np.asarray(value)
            if arr.dtype.kind == "f" and np.any(np.isposinf(arr)):
                raise ValueError(
                    f"{name} of {self.op!r} overflows a 64-bit float (above 1.8e308): the sizes "
                    "are too large to count; check their units"
                )
            object.__setattr__(self, name, out(nonnegative_real(name, value)))

    @property
    def bytes_total(self) -> ArrayLike:
        """Bytes read plus bytes written."""
        return out(np.asarray(self.bytes_read) + np.asarray(self.bytes_written))

    @property
    def arithmetic_intensity(self) -> ArrayLike:
        """FLOPs per byte of HBM traffic: ``flops / (bytes_read + bytes_written)``."""
        return ratio_or_inf(self.flops, self.bytes_total)


# --------------------------------------------------------------------------------------------
# Dtype combinations for a matmul
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MatmulDtypes:
    """Dtypes of a matmul X·Y → Z and the dtype its arithmetic runs in.

    ``compute`` defaults to the wider of ``x`` and ``y``: an int8 weight multiplied with a bf16
    activation is up-cast and multiplied at the bf16 rate.
    """

    x: str = "bf16"
    y: str = "bf16"
    z: str = "bf16"
    compute: str = ""

    def __post_init__(self) -> None:
        for name in ("x", "y", "z"):
            choice(f"dtype of {name}", getattr(self, name), DTYPES)
        if not self.compute:
            wider = self.x if bytes_per_element(self.x) >= bytes_per_element(self.y) else self.y
            object.__setattr__(self, "compute", wider)
        choice("compute dtype", self.compute, DTYPES)

    def as_tuple(self) -> tuple[tuple[str, str], ...]:
        return (("x", self.x), ("y", self.y), ("z", self.z))


BF16 = MatmulDtypes("bf16", "bf16", "bf16")
"""bf16 × bf16 → bf16."""
INT8 = MatmulDtypes("int8", "int8", "int8")
"""int8 × int8 → int8 (the output re-quantised to int8, as in both sources' Problem 1)."""
W8A16 = MatmulDtypes("bf16", "int8", "bf16")
"""bf16 activations × int8 weights → bf16, computed at the bf16 rate."""
FP32 = MatmulDtypes("fp32", "fp32", "fp32")
"""fp32 × fp32 → fp32 (CPU measurements)."""

PRESETS = {"bf16": BF16, "int8": INT8, "w8a16": W8A16, "fp32": FP32}


def matmul_dtypes(dtypes: MatmulDtypes | str) -> MatmulDtypes:
    """Accept a :class:`MatmulDtypes` or a preset name: 'bf16', 'int8', 'w8a16', 'fp32'."""
    if isinstance(dtypes, MatmulDtypes):
        return dtypes
    return PRESETS[choice("matmul dtypes", dtypes, PRESETS)]


# --------------------------------------------------------------------------------------------
# Vector operations
# --------------------------------------------------------------------------------------------


def dot_product(D: ArrayLike, dtype: str = "bf16") -> Cost:
    """x · y for x, y of length D: read 2D elements, do D multiplies and D−1 adds, write 1.

    FLOPs = 2D − 1; bytes read = 2·D·s; bytes written = s, where s = bytes per element.
    Intensity (2D−1)/(2Ds + s) → 1/(2s) as D grows: 0.5 FLOPs/byte in bf16. (A dot product is
    the matmul X[1, D] · Y[D, 1]; the book's notation gives a vector's length the letter D.)
    """
    d = positive_count("D", D)
    s = bytes_per_element(dtype)
    return Cost("dot product", 2 * d - 1, 2 * d * s, s + 0 * d, dtype, (("x", dtype), ("y", dtype)))


ELEMENTWISE_FLOPS_PER_ELEMENT = {
    "relu": 1,
    "layernorm": 8,
    "softmax": 5,
}
"""Typical FLOPs per element, counted as in the book:

* relu: one comparison, max(x, 0).
* layernorm: mean (1 add), variance (subtract, square, add: 3), normalise (subtract, multiply by
  the reciprocal square root: 2), scale and shift (2) — 8 in all; per-row reductions amortised.
* softmax: running max (1), subtract (1), exp (1), sum (1), divide (1) — 5.
"""


def elementwise(
    D: ArrayLike, flops_per_element: ArrayLike | str = 1, dtype: str = "bf16", inputs: int = 1
) -> Cost:
    """An elementwise op over D elements: read ``inputs``·D elements, write D, k FLOPs each.

    ``flops_per_element`` is a number k or a name in ``ELEMENTWISE_FLOPS_PER_ELEMENT``
    ('relu', 'layernorm', 'softmax'). FLOPs = k·D; bytes = (inputs + 1)·D·s.
    Intensity = k / ((inputs + 1)·s): it does not grow with D, which is why such ops are
    memory-bound unless fused into a neighbouring matmul.
    """
    n = positive_count("D", D)
    if isinstance(flops_per_element, str):
        name = choice("flops_per_element", flops_per_element, ELEMENTWISE_FLOPS_PER_ELEMENT)
        k = np.asarray(ELEMENTWISE_FLOPS_PER_ELEMENT[name], dtype=np.float64)
        op = name
    else:
        k = positive_count("flops_per_element", flops_per_element)
        op = "elementwise"
    inputs_ = positive_count("inputs", inputs)
    s = bytes_per_element(dtype)
    n, k = broadcast(D=n, flops_per_element=k)
    return Cost(op, k * n, inputs_ * n * s, n * s, dtype, (("x", dtype),))


# --------------------------------------------------------------------------------------------
# Matrix multiplication
# --------------------------------------------------------------------------------------------


def _shapes(**sizes: ArrayLike) -> list[np.ndarray]:
    checked = {name: positive_count(name, value) for name, value in sizes.items()}
    return broadcast(**checked)


def matmul(B: ArrayLike, D: ArrayLike, F: ArrayLike, dtypes: MatmulDtypes | str = BF16) -> Cost:
    """X[B, D] · Y[D, F] → Z[B, F], exact bytes.

    FLOPs = 2·B·D·F; bytes read = B·D·s_x + D·F·s_y; bytes written = B·F·s_z.
    In bf16 the intensity is B·D·F / (B·D + D·F + B·F), which is below B and tends to B when
    D, F ≫ B (see :func:`matmul_small_batch`).
    """
    dt = matmul_dtypes(dtypes)
    b, d, f = _shapes(B=B, D=D, F=F)
    sx, sy, sz = (bytes_per_element(t) for t in (dt.x, dt.y, dt.z))
    return Cost(
        "matmul", 2 * b * d * f, b * d * sx + d * f * sy, b * f * sz, dt.compute, dt.as_tuple()
    )


def matmul_small_batch(
    B: ArrayLike, D: ArrayLike, F: ArrayLike, dtypes: MatmulDtypes | str = BF16
) -> Cost:
    """The B ≪ D, F approximation of :func:`matmul`: only the weight matrix Y is counted.

    FLOPs = 2·B·D·F; bytes read ≈ D·F·s_y; bytes written ≈ 0.
    Intensity = 2B / s_y: B for bf16 weights, 2B for int8 weights. It overestimates the exact
    intensity; the error is small when B ≪ D and B ≪ F.
    """
    dt = matmul_dtypes(dtypes)
    b, d, f = _shapes(B=B, D=D, F=F)
    sy = bytes_per_element(dt.y)
    return Cost("matmul (B ≪ D, F)", 2 * b * d * f, d * f * sy, 0 * b, dt.compute, dt.as_tuple())


def batched_matmul(
    B: ArrayLike, D: ArrayLike, F: ArrayLike, dtypes: MatmulDtypes | str = INT8
) -> Cost:
    """X[B, D] · Y[B, D, F] → Z[B, F]: a different weight matrix for every batch element.

    FLOPs = 2·B·D·F; bytes read = B·D·s_x + B·D·F·s_y; bytes written = B·F·s_z.
    Intensity = 2DF / (D·s_x + D·F·s_y + F·s_z), independent of B and below 2/s_y: batching
    does not help, because each element brings its own weights (the MoE and per-request-adapter
    problem).
    """
    dt = matmul_dtypes(dtypes)
    b, d, f = _shapes(B=B, D=D, F=F)
    sx, sy, sz = (bytes_per_element(t) for t in (dt.x, dt.y, dt.z))
    return Cost(
        "batched matmul",
        2 * b * d * f,
        b * d * sx + b * d * f * sy,
        b * f * sz,
        dt.compute,
        dt.as_tuple(),
    )


def tiled_matmul(
    B: ArrayLike,
    D: ArrayLike,
    F: ArrayLike,
    *,
    b_B: ArrayLike,
    b_D: ArrayLike,
    b_F: ArrayLike,
    dtypes: MatmulDtypes | str = BF16,
) -> Cost:
    """X[B, D] · Y[D, F] computed tile by tile: tiles b_B×b_D of X and b_D×b_F of Y on-chip.

    The tile sizes are keyword-only (``tiled_matmul(B, D, F, b_B=128, b_D=128, b_F=128)``): a
    swapped positional call would give a wrong number without complaint.

    With t_B = B/b_B, t_D = D/b_D, t_F = F/b_F tiles along each axis (each must divide exactly):
    FLOPs = 2·t_B·t_F·t_D·b_B·b_F·b_D = 2·B·D·F;
    bytes read = t_B·t_F·t_D·(b_B·b_D·s_x + b_D·b_F·s_y)   (every output tile re-reads its
    operands); bytes written = B·F·s_z (each output tile written once, after its D-loop).
    For large D the intensity tends to :func:`tile_intensity`, b_B·b_F/(b_B + b_F) in bf16.
    """
    dt = matmul_dtypes(dtypes)
    B_, D_, F_, bB, bD, bF = _shapes(B=B, D=D, F=F, b_B=b_B, b_D=b_D, b_F=b_F)
    for size, tile, sname, tname in (
        (B_, bB, "B", "b_B"),
        (D_, bD, "D", "b_D"),
        (F_, bF, "F", "b_F"),
    ):
        if np.any(np.mod(size, tile) != 0):
            raise ValueError(f"{sname} must be a multiple of the tile size {tname}")
    tiles = (B_ / bB) * (F_ / bF) * (D_ / bD)
    sx, sy, sz = (bytes_per_element(t) for t in (dt.x, dt.y, dt.z))
    return Cost(
        "tiled matmul",
        2 * B_ * D_ * F_,
        tiles * (bB * bD * sx + bD * bF * sy),
        B_ * F_ * sz,
        dt.compute,
        dt.as_tuple(),
    )


def tile_intensity(
    *, b_B: ArrayLike, b_F: ArrayLike, b_D: ArrayLike = 128, dtypes: MatmulDtypes | str = BF16
) -> ArrayLike:
    """Intensity of one tile step: 2·b_B·b_F·b_D FLOPs per (b_B·b_D·s_x + b_D·b_F·s_y) bytes.

    Keyword-only, like :func:`tiled_matmul`'s tile sizes: ``tile_intensity(b_B=128, b_F=256)``.

    In bf16 this is b_B·b_F/(b_B + b_F), independent of b_D: 64, 128 and 256 FLOPs/byte for
    square tiles of 128, 256 and 512. Larger on-chip memory → larger tiles → more reuse.
    """
    dt = matmul_dtypes(dtypes)
    bB, bF, bD = _shapes(b_B=b_B, b_F=b_F, b_D=b_D)
    sx, sy = bytes_per_element(dt.x), bytes_per_element(dt.y)
    return out(2 * bB * bF * bD / (bB * bD * sx + bD * bF * sy))
