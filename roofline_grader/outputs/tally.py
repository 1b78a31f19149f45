"""What a run found, counted: one definition of "a submission with a problem", "missing" and
"awaiting grading by hand" for the progress bar and the report, and a run's duration in words."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from roofline_grader.results import SubmissionResult


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
