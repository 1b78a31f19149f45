"""A measured roofline as plain data: what :func:`roofline_lib.measure.measure` returns.

Every class here is a frozen dataclass with ``to_dict`` (JSON-ready: numbers, strings, lists)
and ``from_dict``; ``to_dict`` also writes the derived values (medians, rates, efficiencies) for
readers of the JSON, and ``from_dict`` recomputes them rather than trusting them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from .bandwidth import BandwidthMeasurement
from .caveats import caveats
from .compute import PeakMeasurement
from .machine import Machine
from .sweep import SweepPoint
from .theory import TheoreticalPeak, theoretical_peaks
from .validity import Validity, assess

BUSY_CPU_SHARE = 0.8
"""Below this ``cpu_share`` a result counts as measured on a busy machine (``busy``)."""

FORMAT = "roofline_lib.measure/1"
"""The ``format`` key of a result's dict: the schema's name and version."""


@dataclass(frozen=True)
class MeasuredRoofline:
    """The measured roofline of one machine: peak, bandwidth and a matmul sweep.

    Attributes:
        machine: where it ran (:meth:`Machine.describe` for a paragraph).
        backend: ``"numpy"`` or ``"torch"``.
        dtype: the sweep's dtype, e.g. ``"fp32"``; ``peak`` is this dtype's peak.
        peaks: measured peak by dtype (fp32 and fp64 on a CPU; bf16 on a GPU).
        bandwidth: the STREAM triad bandwidth.
        sweep: the matmul points measured, in increasing B.
        D, F: the sweep's weight shape, X[B, D]·Y[D, F].
        skipped_batches: the B values the time budget left out (in increasing order).
        theoretical_peaks: theoretical peak by dtype, where one can be derived.
        budget_s: the time budget, seconds.
        elapsed_s: how long the run took, seconds.
        created: when the run ended (ISO 8601, UTC).
        notes: the run's caveats, one sentence each (:mod:`.caveats`; said again in the
            reader's language when read from JSON).
        cpu_share: CPU seconds the run's process got / (wall seconds × compute threads), for a
            CPU backend (None on a GPU): near 1 on an otherwise idle machine; well below 1 means
            other processes took the cores and the rates understate the machine.
    """

    machine: Machine
    backend: str
    dtype: str
    peaks: Mapping[str, PeakMeasurement]
    bandwidth: BandwidthMeasurement
    sweep: tuple[SweepPoint, ...]
    D: int
    F: int
    skipped_batches: tuple[int, ...] = ()
    theoretical_peaks: Mapping[str, TheoreticalPeak] = field(default_factory=dict)
    budget_s: float = math.inf
    elapsed_s: float = 0.0
    created: str = ""
    notes: tuple[str, ...] = ()
    cpu_share: float | None = None

    def __post_init__(self) -> None:
        if self.dtype not in self.peaks:
            raise ValueError(
                f"peaks must include the sweep's dtype {self.dtype!r}; got {', '.join(self.peaks)}"
            )
        object.__setattr__(self, "peaks", MappingProxyType(dict(self.peaks)))
        object.__setattr__(
            self, "theoretical_peaks", MappingProxyType(dict(self.theoretical_peaks))
        )
        object.__setattr__(self, "sweep", tuple(self.sweep))
        object.__setattr__(self, "skipped_batches", tuple(self.skipped_batches))
        object.__setattr__(self, "notes", tuple(self.notes))

    # -- the roofline ------------------------------------------------------------------------

    @property
    def peak(self) -> PeakMeasurement:
        """The sweep dtype's measured peak."""
        return self.peaks[self.dtype]

    @property
    def critical_intensity(self) -> float:
        """Measured peak / measured bandwidth, FLOPs/byte: where the measured roofline bends."""
        return self.peak.flops_per_s / self.bandwidth.bytes_per_s

    @property
    def theoretical(self) -> TheoreticalPeak | None:
        """The sweep dtype's theoretical peak, or None."""
        return self.theoretical_peaks.get(self.dtype)

    @property
    def theoretical_peak_flops_per_s(self) -> float | None:
        """The sweep dtype's theoretical peak, FLOP/s, or None where it cannot be derived."""
        return self.theoretical.flops_per_s if self.theoretical else None

    @property
    def peak_fraction(self) -> float | None:
        """Measured peak / theoretical peak for the sweep dtype, or None."""
        return self.peak_fraction_of(self.dtype)

    def peak_fraction_of(self, dtype: str) -> float | None:
        """Measured / theoretical peak for ``dtype``, or None where either is missing."""
        if dtype not in self.peaks or dtype not in self.theoretical_peaks:
            return None
        return self.peaks[dtype].flops_per_s / self.theoretical_peaks[dtype].flops_per_s

    @property
    def busy(self) -> bool:
        """True when other processes took a noticeable share of the CPU during the run
        (``cpu_share`` below BUSY_CPU_SHARE): its rates then understate the machine."""
        return self.cpu_share is not None and self.cpu_share < BUSY_CPU_SHARE

    @property
    def trimmed(self) -> bool:
        """True when the time budget cut the sweep short (see ``skipped_batches``)."""
        return bool(self.skipped_batches)

    @property
    def validity(self) -> Validity:
        """The run's verdict on itself (:mod:`.validity`): trustworthy, or not a roofline and
        why (its measured figures were not this machine's limits)."""
        return assess(self)

    def predicted_flops_per_s(self, intensity: float) -> float:
        """The measured roofline at ``intensity`` FLOPs/byte: min(peak, intensity × bandwidth)."""
        return min(self.peak.flops_per_s, intensity * self.bandwidth.bytes_per_s)

    # -- plain data --------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict; derived values (rates, fractions) are included for readers."""
        return {
            "format": FORMAT,
            "machine": self.machine.to_dict(),
            "description": self.machine.describe(),
            "backend": self.backend,
            "dtype": self.dtype,
            "D": self.D,
            "F": self.F,
            "peaks": {k: v.to_dict() for k, v in self.peaks.items()},
            "bandwidth": self.bandwidth.to_dict(),
            "sweep": [p.to_dict() for p in self.sweep],
            "skipped_batches": list(self.skipped_batches),
            "theoretical_peaks": {k: v.to_dict() for k, v in self.theoretical_peaks.items()},
            "budget_s": self.budget_s,
            "elapsed_s": self.elapsed_s,
            "created": self.created,
            "notes": list(self.notes),
            "cpu_share": self.cpu_share,
            "critical_intensity": self.critical_intensity,
            "theoretical_peak_flops_per_s": self.theoretical_peak_flops_per_s,
            "peak_fraction": self.peak_fraction,
            "trimmed": self.trimmed,
            "busy": self.busy,
            "validity": {
                "trustworthy": self.validity.trustworthy,
                "reasons": list(self.validity.reasons),
            },
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> MeasuredRoofline:
        """Rebuild a result from :meth:`to_dict`'s output. Derived values are recomputed, and so
        are the notes (:mod:`.caveats`) and the theoretical peaks' words, in the reader's language
        rather than the writer's."""
        if d.get("format") != FORMAT:
            raise ValueError(
                f"not a measured roofline: format must be {FORMAT!r}, got {d.get('format')!r}"
            )
        machine = Machine.from_dict(d["machine"])
        result = cls(
            machine=machine,
            backend=d["backend"],
            dtype=d["dtype"],
            peaks={k: PeakMeasurement.from_dict(v) for k, v in d["peaks"].items()},
            bandwidth=BandwidthMeasurement.from_dict(d["bandwidth"]),
            sweep=tuple(SweepPoint.from_dict(p) for p in d["sweep"]),
            D=int(d["D"]),
            F=int(d["F"]),
            skipped_batches=tuple(int(b) for b in d.get("skipped_batches", ())),
            theoretical_peaks=_said_again(machine, d.get("theoretical_peaks", {})),
            budget_s=float(d.get("budget_s", math.inf)),
            elapsed_s=float(d.get("elapsed_s", 0.0)),
            created=d.get("created", ""),
            cpu_share=d.get("cpu_share"),
        )
        return replace(result, notes=caveats(result))

    def to_json(self, path: str | Path | None = None) -> str:
        """The result as JSON text; written to ``path`` too when given."""
        text = json.dumps(self.to_dict(), indent=2, ensure_ascii=False)
        if path is not None:
            Path(path).write_text(text + "\n", encoding="utf-8")
        return text

    @classmethod
    def from_json(cls, source: str | Path) -> MeasuredRoofline:
        """Read a result from JSON text or from a path to a JSON file."""
        text = str(source)
        if not text.lstrip().startswith("{"):
            text = Path(source).read_text(encoding="utf-8")
        return cls.from_dict(json.loads(text))


def _said_again(machine: Machine, stored: Mapping[str, Any]) -> dict[str, TheoreticalPeak]:
    """The stored theoretical peaks, each derived again from the machine (so its formula and
    assumptions are in the reader's language) where that gives the stored peak; the stored one
    where it does not (a file written by another version of the derivation)."""
    peaks = {dtype: TheoreticalPeak.from_dict(peak) for dtype, peak in stored.items()}
    again = theoretical_peaks(machine, tuple(peaks))
    return {
        dtype: again[dtype]
        if dtype in again and math.isclose(again[dtype].flops_per_s, peak.flops_per_s)
        else peak
        for dtype, peak in peaks.items()
    }
