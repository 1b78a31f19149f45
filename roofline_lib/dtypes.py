"""Number formats: how many bytes one element of each dtype occupies in memory.

The roofline model only needs the storage size of a dtype (bytes per element) and, separately,
the chip's peak rate for arithmetic in that dtype (see ``hardware``). ``tf32`` is stored as fp32
(4 bytes) and only differs in how tensor cores multiply it. Sub-byte formats are stored packed:
``fp4`` and ``int4`` put two values in a byte (0.5 bytes per element), ``fp6`` four values in
three bytes (0.75). Byte counts are therefore real numbers, not integers: an fp4 matrix of
``n`` elements occupies ``n / 2`` bytes (``ceil(n / 2)`` in memory when ``n`` is odd, a
difference of under one byte that the roofline model ignores).
"""

from __future__ import annotations

from types import MappingProxyType

from ._checks import choice

BYTES_PER_ELEMENT: MappingProxyType[str, float] = MappingProxyType(
    {
        "fp64": 8.0,
        "fp32": 4.0,
        "tf32": 4.0,
        "bf16": 2.0,
        "fp16": 2.0,
        "fp8": 1.0,
        "fp6": 0.75,
        "int8": 1.0,
        "fp4": 0.5,
        "int4": 0.5,
    }
)
"""Storage size of one element, in bytes, for every dtype the library knows."""

DTYPES: tuple[str, ...] = tuple(BYTES_PER_ELEMENT)


def bytes_per_element(dtype: str) -> float:
    """Bytes one element of ``dtype`` occupies (``bf16`` → 2.0, ``int8`` → 1.0, ``fp4`` → 0.5).

    Raises ``UnknownNameError`` (a KeyError and ValueError) listing the known dtypes.
    """
    return BYTES_PER_ELEMENT[choice("dtype", dtype, DTYPES)]
