"""A progress bar on stderr, for the command line and ``measure(progress=True)``.

On a terminal it redraws one line (``\\r``); elsewhere (a log, a CI job) it prints one line per
step, so the output stays readable.
"""

from __future__ import annotations

import sys
from typing import TextIO


class ProgressBar:
    """Call with (fraction done in [0, 1], what is running); :meth:`close` ends the line."""

    def __init__(self, stream: TextIO | None = None, width: int = 28) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._last = ""

    def __call__(self, fraction: float, label: str) -> None:
        fraction = min(max(float(fraction), 0.0), 1.0)
        filled = round(fraction * self.width)
        line = f"[{'█' * filled}{'·' * (self.width - filled)}] {fraction:4.0%}  {label}"
        if self._tty:
            self.stream.write("\r" + line.ljust(len(self._last)))
        elif label != self._last:
            self.stream.write(line + "\n")
        self._last = line if self._tty else label
        self.stream.flush()

    def close(self) -> None:
        if self._tty and self._last:
            self.stream.write("\n")
            self.stream.flush()
        self._last = ""
