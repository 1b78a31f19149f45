"""A progress bar on stderr: done/total, the run's tally so far, and the time left.

On a terminal it redraws one line; elsewhere (CI logs, a file) it prints a line every few seconds.
The tally is :class:`Tally`, the same counts the report gives (one definition of "a submission
with a problem", "missing" and "awaiting grading by hand" for both), and the last line is drawn
from the run's final tally, so the bar and the report cannot disagree.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TextIO

from .results import SubmissionResult


@dataclass(frozen=True)
class Tally:
    """What a run found, counted once for the progress bar and the report.

    Attributes:
        submissions: student × problem pairs seen.
        with_problems: submissions with a problem besides being missing
            (:attr:`SubmissionResult.had_problem`).
        missing: submissions with no notebook (:attr:`SubmissionResult.is_missing`).
        by_hand: per grade id, the parts with neither an automatic nor a hand score yet.
    """

    submissions: int = 0
    with_problems: int = 0
    missing: int = 0
    by_hand: Mapping[str, int] = field(default_factory=dict)

    @property
    def awaiting_by_hand(self) -> int:
        return sum(self.by_hand.values())

    def add(self, result: SubmissionResult, awaiting: Iterable[str] = ()) -> Tally:
        """This tally with one more submission (``awaiting``: its grade ids still to grade)."""
        by_hand = dict(self.by_hand)
        for gid in awaiting:
            by_hand[gid] = by_hand.get(gid, 0) + 1
        return Tally(
            self.submissions + 1,
            self.with_problems + result.had_problem,
            self.missing + result.is_missing,
            by_hand,
        )

    def words(self) -> str:
        """'3 with problems, 2 missing, 1 part to grade by hand' (the nonzero extras only)."""
        text = f"{self.with_problems} with problems"
        if self.missing:
            text += f", {self.missing} missing"
        if self.awaiting_by_hand:
            parts = "part" if self.awaiting_by_hand == 1 else "parts"
            text += f", {self.awaiting_by_hand} {parts} to grade by hand"
        return text


def format_duration(seconds: float) -> str:
    """'4s', '1m05s', '2h03m'."""
    s = max(0, round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


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
