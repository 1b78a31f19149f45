"""A progress bar on stderr: done/total, the run's tally so far, and the time left.

On a terminal it redraws one line; elsewhere (CI logs, a file) it prints a line every few seconds.
The tally is :class:`Tally`, the same counts the report gives (one definition of "a submission
with a problem", "missing" and "awaiting grading by hand" for both), and the last line is drawn
from the run's final tally, so the bar and the report cannot disagree.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable
from typing import TextIO

from roofline_grader.outputs.tally import Tally, format_duration
from roofline_grader.results import SubmissionResult


class Progress:
    """Progress of ``total`` tasks; ``already`` is the tally of those done before this run."""

    def __init__(
        self,
        total: int,
        already: Tally | None = None,
        stream: TextIO | None = None,
        width: int = 28,
    ) -> None:
        self.tally = already or Tally()
        self.total, self.already = total, self.tally.submissions
        self.done = self.already
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.started = time.monotonic()
        self._last = 0.0

    def advance(self, result: SubmissionResult, awaiting: Iterable[str] = ()) -> None:
        """One more submission graded (``awaiting``: its grade ids still to grade by hand)."""
        self.done += 1
        self.tally = self.tally.add(result, awaiting)
        self._draw(final=False)

    def finish(self, tally: Tally) -> None:
        """The last line, from the run's final tally (the report's)."""
        self.tally, self.done = tally, self.total
        self._draw(final=True)

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
        return f"grading [{bar}] {self.done}/{self.total}, {self.tally.words()}, {eta}"

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
