"""A measured roofline's caveats: what in its own figures a reader should know, one sentence
each (weights that fit in the cache, a triad too small for the memory, a measured peak above the
theoretical one, matmuls above the roof, a busy machine, a trimmed sweep).

They are said from the result alone, in the environment's language
(:func:`roofline_lib.words.say`): :func:`~roofline_lib.measure.measure` says them when the run
ends, and :meth:`MeasuredRoofline.from_dict` says them again, so that a run measured in one
language and read in another (the book's Chinese edition reads the English build's run) gives
them in the reader's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..dtypes import bytes_per_element
from ..fmt import format_number, format_percent
from ..words import say
from .bandwidth import CACHE_MULTIPLE
from .machine import format_bytes

if TYPE_CHECKING:
    from .results import MeasuredRoofline


def _join(batches: Sequence[int]) -> str:
    return ", ".join(str(b) for b in batches)


def caveats(result: MeasuredRoofline) -> tuple[str, ...]:
    """The run's caveats, one sentence each, in the environment's language: what in its own
    figures a reader should know before trusting them (each from the result alone)."""
    cache_bytes = result.bandwidth.cache_bytes
    cache_name = (
        say("GPU's L2 cache") if result.machine.gpu is not None else say("last-level cache")
    )
    notes = []
    weights = result.D * result.F * bytes_per_element(result.dtype)
    if weights < 2 * cache_bytes:
        notes.append(
            say(
                "The weight matrix ({weights}) is less than twice the {cache} ({size}): small-B "
                "points may read it from cache and run above the memory roofline.",
                weights=format_bytes(weights),
                cache=cache_name,
                size=format_bytes(cache_bytes),
            )
        )
    bw = result.bandwidth
    if bw.cache_multiple < CACHE_MULTIPLE:
        notes.append(
            say(
                "The triad's arrays ({size} each) are only {multiple}× the {cache}, not "
                "{wanted}×: memory was too small, and part of the traffic may hit the cache.",
                size=format_bytes(bw.array_bytes),
                multiple=format_number(bw.cache_multiple, 2),
                cache=cache_name,
                wanted=CACHE_MULTIPLE,
            )
        )
    for dtype in result.peaks:
        fraction = result.peak_fraction_of(dtype)
        if fraction is not None and fraction > 1:
            notes.append(
                say(
                    "The measured {dtype} peak exceeds the theoretical one ({ratio}×): its "
                    "assumptions do not hold here ({assumptions}).",
                    dtype=dtype,
                    ratio=format_number(fraction, 3),
                    assumptions=result.theoretical_peaks[dtype].assumptions,
                )
            )
    ridge = result.critical_intensity
    memory = [p.batch for p in result.sweep if p.efficiency > 1.05 and p.intensity < ridge]
    compute = [p.batch for p in result.sweep if p.efficiency > 1.05 and p.intensity >= ridge]
    if memory:
        notes.append(
            say(
                "At B = {batches} the matmul ran above the memory roofline: it mostly reads (its "
                "weights), while the triad also writes and write-allocates, so a read stream can "
                "outrun the triad's bandwidth; data still in cache from the previous call costs "
                "no memory traffic either.",
                batches=_join(memory),
            )
        )
    if compute:
        notes.append(
            say(
                "At B = {batches} the matmul ran faster than the measured peak: the peak is "
                "itself a measurement (one {n}×{n} matmul, which a larger matmul can beat, or "
                "which ran while the machine was busier).",
                batches=_join(compute),
                n=result.peak.n,
            )
        )
    if result.busy and result.cpu_share is not None:
        notes.append(
            say(
                "The run got only {share} of the CPU time its {threads} thread(s) asked for: "
                "other processes were using the cores, so the rates understate this machine.",
                share=format_percent(result.cpu_share, 2),
                threads=result.machine.threads,
            )
        )
    if result.trimmed:
        skipped = result.skipped_batches
        notes.append(
            say(
                "The time budget ({budget} s) left out B = {batches}; a larger budget measures "
                "them."
                if len(skipped) > 1
                else "The time budget ({budget} s) left out B = {batches}; a larger budget "
                "measures it.",
                budget=format_number(result.budget_s, 3),
                batches=_join(skipped),
            )
        )
    return tuple(notes)
