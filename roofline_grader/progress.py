"""A progress bar on stderr: done/total, submissions with problems, and the time left.

On a terminal it redraws one line; elsewhere (CI logs, a file) it prints a line every few seconds.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


def format_duration(seconds: float) -> str:
    """'4s', '1m05s', '2h03m'."""
    s = max(0, round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


class Progress:
    """Progress of ``total`` tasks, of which ``already`` were done before this run started."""

    def __init__(
        self, total: int, already: int = 0, stream: TextIO | None = None, width: int = 28
    ) -> None:
        self.total, self.already = total, already
        self.done, self.problems = already, 0
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.started = time.monotonic()
        self._last = 0.0

    def advance(self, had_problem: bool) -> None:
        self.done += 1
        self.problems += int(had_problem)
        self._draw(final=self.done >= self.total)

    def line(self) -> str:
        fraction = self.done / self.total if self.total else 1.0
        filled = round(self.width * fraction)
        bar = "#" * filled + "." * (self.width - filled)
        fresh = self.done - self.already
        if self.done >= self.total:
            eta = f"done in {format_duration(time.monotonic() - self.started)}"
        elif fresh:
            rate = (time.monotonic() - self.started) / fresh
            eta = f"ETA {format_duration(rate * (self.total - self.done))}"
        else:
            eta = "ETA --"
        return f"grading [{bar}] {self.done}/{self.total}, {self.problems} with problems, {eta}"

    def start(self) -> None:
        self._draw(final=False, force=True)

    def _draw(self, final: bool, force: bool = False) -> None:
        now = time.monotonic()
        if self.tty:
            if final or force or now - self._last >= 0.1:
                self.stream.write("\r" + self.line() + ("\n" if final else ""))
                self.stream.flush()
                self._last = now
        elif final or force or now - self._last >= 5:
            self.stream.write(self.line() + "\n")
            self.stream.flush()
            self._last = now
