"""What the book's live (client-side) explorer needs from the library, as one JSON-ready dict.

The static book cannot run Python, so its explorer (``book/_ext/live_explorer.py`` and
``roofline-explorer.js``) works from data exported here at build time: every catalog chip with
its dense peaks per dtype, its bandwidth per memory level and per link (one-way, per chip), each
figure's citation; the bytes per element of every dtype; the matmul dtype presets; the
operations; and the sliders' ranges. Nothing is copied: each value is read from the module that
owns it (:mod:`~roofline_lib.hardware`, :mod:`~roofline_lib.dtypes`, :mod:`~roofline_lib.costs`,
:mod:`~roofline_lib.sharding`, :mod:`~roofline_lib.explorer`).

The JavaScript writes the cost formulas a second time; :func:`reference` is the library's answer
for one of its configurations, and the book's browser test holds the two to a relative 1e-12.

Words: the labels, and every text the JavaScript writes (:data:`LIVE_WORDS`, its ``say("...")``
calls), are exported in the edition's language (:func:`roofline_lib.words.say`), the JavaScript's
own English templates as keys.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .attention import flash_attention, standard_attention
from .costs import (
    ELEMENTWISE_FLOPS_PER_ELEMENT,
    PRESETS,
    Cost,
    MatmulDtypes,
    batched_matmul,
    dot_product,
    elementwise,
    matmul,
    matmul_dtypes,
)
from .dtypes import BYTES_PER_ELEMENT
from .explorer import INTENSITY_RANGE, NUMBER_FORMATS, SHARDS, SLIDER_EXPONENTS, VECTOR_NOTE
from .hardware import CATALOG, Chip, Citation, Link, get_chip
from .roofline import MEMORY_LEVELS, REGIMES, RooflineEstimate, analyze
from .sharding import (
    COLLECTIVES,
    DEFAULT_COLLECTIVE,
    ShardedMatmulCost,
    collective_factor,
    sharded_matmul,
)
from .words import say, say_later

LIVE_SLIDER_EXPONENTS: dict[str, tuple[float, float, float]] = {
    **SLIDER_EXPONENTS,
    "k": (0, 7, 1),
    "H": (0, 8, 1),
    "S": (7, 20, 1),
    "d": (5, 9, 1),
    "M": (4, 12, 1),
    "N": (0, 6, 1),
}
"""Each slider's range as powers of two (min, max, step): B, D, F as in the JupyterLab explorer
(:data:`roofline_lib.explorer.SLIDER_EXPONENTS`); k FLOPs per element 1–128; H heads 1–256;
sequence length S 128–2²⁰; head dimension d 32–512; flash tile M 16–4,096 rows; N chips 1–64
(at most the smallest D, so that D always splits evenly)."""

SLIDER_LABELS: dict[str, str] = {
    "B": say_later("B, tokens"),
    "D": say_later("D, contracting dimension"),
    "F": say_later("F, output features"),
    "k": say_later("k, FLOPs per element"),
    "H": say_later("H, attention heads"),
    "S": say_later("S, sequence length"),
    "d": say_later("d, head dimension"),
    "M": say_later("M, query rows per flash tile"),
    "N": say_later("N, chips"),
}

COLLECTIVE_LABELS: dict[str, str] = {
    "exchange": say_later("exchange"),
    "reduce_scatter": say_later("reduce scatter"),
    "all_reduce": say_later("all reduce"),
}
"""What the collective menu shows for each of :data:`roofline_lib.sharding.COLLECTIVES`."""

ONCHIP_NOTE = say_later(
    "Idealised at {level}: the bytes counted here are the HBM bytes (each input read once, "
    "each output written once), as if each crossed {level} once. A real kernel writes every "
    "byte into {level} and reads its tiles back many times; the library has no model of that "
    "traffic, so the true intensity at {level} is lower and this point is optimistic: an "
    "operation drawn compute-bound here may be bound by {level}."
)
"""What the readout says when the bytes cross on-chip memory (SMEM, VMEM): the costs count HBM
traffic only (:mod:`roofline_lib.costs`), and :func:`roofline_lib.roofline.analyze` times those
same bytes against the on-chip bandwidth. The library has no honest count of on-chip traffic
(:func:`roofline_lib.costs.tiled_matmul` counts HBM re-reads for a given tile, not reads from
the tile), so the explorer says so instead of inventing one."""

LIVE_WORDS = (
    # the readout (as roofline_lib.explorer.readout_rows words it)
    say_later("Operation"),
    say_later("FLOPs"),
    say_later("FLOPs per chip"),
    say_later("Bytes moved ({level})"),
    say_later("Bytes moved per chip ({level})"),
    say_later("Arithmetic intensity"),
    say_later("Critical intensity ({chip}, {dtype}, {level})"),
    say_later("Regime"),
    say_later("T_math = FLOPs / peak"),
    say_later("T_comms = bytes / {level} bandwidth"),
    say_later("Lower bound, max(T_math, T_comms)"),
    say_later("Upper bound, T_math + T_comms"),
    say_later("Achievable throughput"),
    say_later("{rate} ({percent} of peak)"),
    say_later("Readout (roofline_lib's formulas and formatting)"),
    say_later(
        "{operation} is {regime} on {chip}: intensity {intensity} {relation} critical "
        "{critical}; it can reach {rate}."
    ),
    say_later("Not a valid setting: {error}"),
    say_later(
        "Not a valid setting: the collective “{collective}” needs N = {needs}, and N is {n}. "
        "Move N to {needs}, or choose a collective allowed at N = {n}: {allowed}."
    ),
    say_later("No point: this setting is not valid (the readout says why)."),
    say_later(", "),  # between the collectives it lists
    # why a menu's option is greyed out (its title)
    say_later("needs N = {needs}"),
    say_later("{chip} publishes no {dtype} peak"),
    say_later("{chip} has no network link in the catalog"),
    say_later("{label} ({why})"),
    # the controls
    say_later("Explorer settings"),
    say_later("Chip"),
    say_later("Numbers"),
    say_later("Bytes cross"),
    say_later("Collective"),
    # the sources
    say_later("Peak, {dtype}"),
    say_later("{level}, one-way per chip at N = {n}"),
    say_later("{level} bandwidth"),
    say_later("Sources of the {chip} figures used here"),
    say_later("{label}: {value}. "),
    say_later(": “{quote}” ({basis}; verified {date})"),
    say_later(". {note}"),
    say_later("no citation in the catalog"),
    # the chart
    say_later(
        "Roofline of the {chip} ({dtype}, {level}): the point, at intensity {intensity} "
        "FLOPs/byte, reaches {rate} under a roof of {peak}."
    ),
    say_later("The chart library did not load; the readout below is complete."),
    say_later("Arithmetic intensity (FLOPs/byte)"),
    say_later("Achievable FLOP/s"),
    say_later("roofline, HBM"),
    say_later("roofline, {level}"),
    say_later("the operation"),
    # the chart's labels (the words of roofline_lib.plots' static rooflines)
    say_later("peak {value}"),
    say_later("ridge: I* = {value} FLOPs/byte"),
    say_later("{level}: {bandwidth}"),
    ONCHIP_NOTE,
    *REGIMES,
)
"""Every text roofline-explorer.js writes with its ``say(...)`` (English templates, ``{name}``
fields), and the regimes it says; :func:`explorer_data` exports them in the edition's language."""

DEFAULTS: dict[str, int] = {
    "B": 256,
    "D": 8192,
    "F": 8192,
    "k": ELEMENTWISE_FLOPS_PER_ELEMENT["layernorm"],
    "H": 32,
    "S": 4096,
    "d": 128,
    "M": 128,
    "N": SHARDS,
}
"""Each slider's starting value."""


@dataclass(frozen=True)
class LiveOperation:
    """One operation of the live explorer.

    Attributes:
        label: what the menu shows.
        uses: the sliders it depends on (keys of :data:`LIVE_SLIDER_EXPONENTS`).
        build: (sizes, matmul dtypes, collective) → its cost, from the library.
        network: True if it is timed on a link (per chip) instead of a memory level.
        vector: True for work that runs on vector units (its peak is below the one drawn).
    """

    label: str
    uses: tuple[str, ...]
    build: Callable[[Mapping[str, int], MatmulDtypes, str], Cost | ShardedMatmulCost]
    network: bool = False
    vector: bool = False


LIVE_OPERATIONS: dict[str, LiveOperation] = {
    "dot_product": LiveOperation(
        say_later("dot product of two length-D vectors"),
        ("D",),
        lambda n, dt, c: dot_product(n["D"], dt.x),
        vector=True,
    ),
    "elementwise": LiveOperation(
        say_later("elementwise, k FLOPs per element of a [B, D] activation"),
        ("B", "D", "k"),
        lambda n, dt, c: elementwise(n["B"] * n["D"], n["k"], dt.x),
        vector=True,
    ),
    "matmul": LiveOperation(
        say_later("matmul X[B, D] · Y[D, F]"),
        ("B", "D", "F"),
        lambda n, dt, c: matmul(n["B"], n["D"], n["F"], dt),
    ),
    "batched_matmul": LiveOperation(
        say_later("batched matmul: a different Y[D, F] for each of the B rows"),
        ("B", "D", "F"),
        lambda n, dt, c: batched_matmul(n["B"], n["D"], n["F"], dt),
    ),
    "attention_standard": LiveOperation(
        say_later("attention, standard (scores in HBM)"),
        ("H", "S", "d"),
        lambda n, dt, c: standard_attention(n["H"], n["S"], n["d"], dt.x),
    ),
    "attention_flash": LiveOperation(
        say_later("attention, flash (tiles of M query rows on chip)"),
        ("H", "S", "d", "M"),
        lambda n, dt, c: flash_attention(n["H"], n["S"], n["d"], n["M"], dt.x),
    ),
    "sharded_matmul": LiveOperation(
        say_later("matmul split along D over N chips (network)"),
        ("B", "D", "F", "N"),
        lambda n, dt, c: sharded_matmul(n["B"], n["D"], n["F"], n["N"], dt, c),
        network=True,
    ),
}
"""The live explorer's operations, by key. Vector work and attention use the activation dtype
(x) of the number format, as :mod:`roofline_lib.explorer` does."""


def allowed_chip_counts(collective: str) -> list[int]:
    """The N of the N slider (:data:`LIVE_SLIDER_EXPONENTS`) at which the library accepts
    ``collective`` (:func:`roofline_lib.sharding.collective_factor`): ``[2]`` for "exchange",
    every N for the others. The explorer greys a collective out at any other N."""
    lo, hi, step = LIVE_SLIDER_EXPONENTS["N"]
    counts = [round(2**e) for e in _exponents(lo, hi, step)]
    allowed = []
    for n in counts:
        try:
            collective_factor(n, collective)
        except ValueError:
            continue
        allowed.append(n)
    return allowed


def _exponents(lo: float, hi: float, step: float) -> list[float]:
    return [lo + i * step for i in range(round((hi - lo) / step) + 1)]


def _citation(citation: Citation | None, language: str | None) -> dict[str, str] | None:
    if citation is None:
        return None
    return {
        "title": citation.title,
        "url": citation.url,
        "quote": citation.quote,
        "note": citation.note,
        "basis": citation.basis_in(language),
        "verified": citation.verified,
    }


def _topology(link: Link) -> dict[str, Any]:
    """What the JavaScript needs to give a link's bandwidth at N chips, as
    :meth:`~roofline_lib.hardware.Link.one_way_bytes_per_s_at` does: the topology, the
    per-port one-way bytes/s and the ports with every port in use (null for a link given only
    its total)."""
    return {
        "topology": link.topology.value,
        "per_port_bytes_per_s": link.per_port_one_way_bytes_per_s,
        "ports_used": link.ports_used,
    }


def chip_data(chip: Chip, language: str | None = None) -> dict[str, Any]:
    """One chip as JSON: dense peaks (FLOP/s) by dtype, levels (bytes/s, one-way per chip for
    links, with every port in use, and each link's topology, per-port figure and port count, so
    that the explorer gives its bandwidth at the N chosen) in the chip's order, the default
    link, and each figure's citation (or null), its basis in ``language`` (quotes and notes in
    the catalog's words)."""
    levels = [
        {
            "key": level,
            "name": chip.level_name(level),
            "bytes_per_s": chip.bandwidth(level),
            "network": level in chip.links,
            "citation": _citation(
                chip.links[level].citation
                if level in chip.links
                else chip.citations.get(f"{level}_bandwidth_bytes_per_s"),
                language,
            ),
            "scope": chip.links[level].basis_in(language) if level in chip.links else "",
            **(_topology(chip.links[level]) if level in chip.links else {}),
        }
        for level in chip.levels
    ]
    return {
        "name": chip.name,
        "vendor": chip.vendor,
        "peak_flops_per_s": dict(chip.peak_flops_per_s),
        "peak_citations": {
            dtype: _citation(chip.citations.get(f"peak_flops_per_s.{dtype}"), language)
            for dtype in chip.peak_flops_per_s
        },
        "levels": levels,
        "default_link": chip.default_link,
    }


def explorer_data(language: str | None = None) -> dict[str, Any]:
    """Everything the live explorer shows, as a JSON-ready dict (see the module docstring), its
    words in ``language`` (default: :func:`roofline_lib.words.language`)."""
    return {
        "chips": [chip_data(chip, language) for chip in CATALOG.values()],
        "bytes_per_element": dict(BYTES_PER_ELEMENT),
        "formats": {
            key: {"label": say(label, language=language), **vars(PRESETS[key])}
            for key, label in NUMBER_FORMATS.items()
        },
        "operations": {
            key: {
                "label": say(op.label, language=language),
                "uses": list(op.uses),
                "network": op.network,
                "vector": op.vector,
            }
            for key, op in LIVE_OPERATIONS.items()
        },
        "collectives": list(COLLECTIVES),
        "collective_labels": {
            key: say(COLLECTIVE_LABELS[key], language=language) for key in COLLECTIVES
        },
        "default_collective": DEFAULT_COLLECTIVE,
        "collective_chip_counts": {key: allowed_chip_counts(key) for key in COLLECTIVES},
        "sliders": {
            key: {
                "exponents": list(LIVE_SLIDER_EXPONENTS[key]),
                "label": say(SLIDER_LABELS[key], language=language),
            }
            for key in LIVE_SLIDER_EXPONENTS
        },
        "defaults": dict(DEFAULTS),
        "intensity_range": list(INTENSITY_RANGE),
        "vector_note": say(VECTOR_NOTE, language=language),
        "onchip_levels": list(MEMORY_LEVELS[1:]),
        "words": {english: say(english, language=language) for english in LIVE_WORDS},
    }


def reference(config: Mapping[str, Any]) -> RooflineEstimate:
    """The library's verdict on one live-explorer configuration.

    ``config`` has ``chip`` (a catalog name), ``format`` (a key of
    :data:`~roofline_lib.explorer.NUMBER_FORMATS`), ``op`` (a key of :data:`LIVE_OPERATIONS`),
    ``level`` (a memory level, or a link key for the network operation; default HBM and the
    chip's default link), ``collective`` (network only) and the sizes the operation uses.
    """
    op = LIVE_OPERATIONS[config["op"]]
    chip = get_chip(config["chip"])
    sizes = {key: int(config.get(key, DEFAULTS[key])) for key in DEFAULTS}
    cost = op.build(
        sizes, matmul_dtypes(config["format"]), config.get("collective", DEFAULT_COLLECTIVE)
    )
    default_level = chip.default_link if op.network else "hbm"
    return analyze(cost, chip, config.get("level") or default_level)
