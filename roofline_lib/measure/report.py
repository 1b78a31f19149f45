"""A measured roofline as text: the summary and the sweep table the command line prints."""

from __future__ import annotations

import textwrap

from ..fmt import format_number, format_percent, format_quantity
from .machine import format_bytes
from .results import MeasuredRoofline


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)
    ]
    line = "  ".join(h.rjust(w) for h, w in zip(header, widths, strict=True))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return out


def _range(low: float, high: float, unit: str) -> str:
    return f"{format_quantity(low, unit)} – {format_quantity(high, unit)}"


def format_report(result: MeasuredRoofline, width: int = 100) -> str:
    """The machine, measured peaks and bandwidth, critical intensity and the sweep, as text."""
    lines = textwrap.wrap(result.machine.describe(), width)
    lines.append("")
    for dtype, peak in result.peaks.items():
        theory = result.theoretical_peaks.get(dtype)
        tail = ""
        if theory is not None:
            tail = (
                f"  = {format_percent(peak.flops_per_s / theory.flops_per_s)} of theoretical "
                f"{format_quantity(theory.flops_per_s, 'FLOP/s')}"
            )
        lines.append(
            f"peak {dtype:5s} {format_quantity(peak.flops_per_s, 'FLOP/s'):>13s}  "
            f"(n = {peak.n}, median of {peak.repeats}, range {_range(*peak.spread, 'FLOP/s')}){tail}"
        )
    bw = result.bandwidth
    lines.append(
        f"bandwidth  {format_quantity(bw.bytes_per_s, 'B/s'):>13s}  (STREAM triad, 3 × "
        f"{format_bytes(bw.array_bytes)} arrays, {bw.threads} thread(s), median of "
        f"{bw.repeats}, range {_range(*bw.spread, 'B/s')})"
    )
    lines.append(
        f"critical intensity {format_number(result.critical_intensity, 3)} FLOPs/byte "
        f"({result.dtype} peak / triad bandwidth)"
    )
    assumptions = []
    for dtype, theory in result.theoretical_peaks.items():
        lines.append(f"theoretical {dtype}: {theory.formula}")
        if theory.assumptions not in assumptions:
            assumptions.append(theory.assumptions)
    for text in assumptions:
        lines += textwrap.wrap(f"  assuming {text}", width, subsequent_indent="    ")
    lines.append("")
    lines.append(
        f"Sweep: X[B, {result.D}] · Y[{result.D}, {result.F}] in {result.dtype}; predicted = "
        "min(measured peak, intensity × measured bandwidth)"
    )
    rows = [
        [
            str(p.batch),
            format_number(p.intensity, 3),
            "compute" if p.intensity >= result.critical_intensity else "memory",
            format_quantity(p.predicted_flops_per_s, "FLOP/s"),
            format_quantity(p.achieved_flops_per_s, "FLOP/s"),
            _range(*p.spread, "FLOP/s"),
            format_percent(p.efficiency),
            str(p.repeats),
        ]
        for p in result.sweep
    ]
    header = ["B", "FLOPs/byte", "bound", "predicted", "achieved", "range", "efficiency", "n"]
    lines += _table(header, rows)
    if result.trimmed:
        lines.append(f"skipped (time budget): B = {', '.join(map(str, result.skipped_batches))}")
    share = (
        f"; CPU share {format_percent(result.cpu_share, 2)}" if result.cpu_share is not None else ""
    )
    lines.append(
        f"elapsed {format_number(result.elapsed_s, 3)} s of a "
        f"{format_number(result.budget_s, 3)} s budget{share}"
    )
    for note in result.notes:
        lines += textwrap.wrap("note: " + note, width, subsequent_indent="  ")
    validity = result.validity
    if validity.trustworthy:
        lines.append("verdict: a roofline (the run passed its own checks)")
    else:
        lines.append("verdict: NOT a roofline; its figures are not this machine's limits:")
        for reason in validity.reasons:
            lines += textwrap.wrap(
                "- " + reason, width, initial_indent="  ", subsequent_indent="    "
            )
    return "\n".join(lines)
