"""What the library needs from Python 3.11 that Python 3.10 lacks, for the student kit (3.10–3.13).

``StrEnum``: :class:`enum.StrEnum` where it exists; on 3.10 a ``str`` enum whose ``str()`` and
``format()`` are its value, as 3.11's are.
"""

from __future__ import annotations

import enum
import sys

if sys.version_info >= (3, 11):  # noqa: UP036 (the kit runs on 3.10 too)
    from enum import StrEnum
else:  # pragma: no cover - exercised by the kit's install test on Python 3.10

    class StrEnum(str, enum.Enum):  # noqa: UP042
        """A string enum whose members are their values wherever a string is read."""

        def __str__(self) -> str:
            return str(self.value)

        def __format__(self, spec: str) -> str:
            return format(str(self.value), spec)


__all__ = ["StrEnum"]
