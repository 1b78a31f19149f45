"""The hardware catalog's types: a :class:`Citation`, a :class:`Link`, a :class:`Chip`.

The conventions every catalog figure follows (dense FLOP/s, one-way link bytes/s in
:data:`LINK_SCOPE`, bytes as the source writes them) are in :mod:`roofline_lib.hardware`'s
docstring; the data is in :mod:`roofline_lib.hardware.catalog`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import date
from types import MappingProxyType
from typing import Any, TypedDict, overload

import numpy as np

from .._checks import ArrayLike, UnknownNameError, out, positive_count, positive_real
from .._compat import StrEnum
from ..dtypes import DTYPES
from ..words import say, say_later

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


class Source(TypedDict):
    """A document that figures are cited from: ``Citation(**source, quote=..., ...)``."""

    title: str
    url: str


@dataclass(frozen=True)
class Citation:
    """Where a figure comes from and how the stored SI value follows from what the source prints.

    Attributes:
        title: the document's title.
        url: where to read it.
        quote: the figure as the source prints it, e.g. ``"BF16 Tensor Core: 1,979 teraFLOPS*"``.
        verified: the date the quoted figure was last checked against the source, ISO
            ``yyyy-mm-dd`` (a real date, not in the future). Whoever re-reads the source and
            finds the quote still there moves it forward; whoever changes the quote sets it to
            that day.
        sparse_headline: the printed figure assumes 2:4 structured sparsity; the catalog halves it.
        bidirectional_headline: the printed figure adds both directions; the catalog halves it.
        derived: no source prints this figure; it is computed from published ones (see ``note``).
        note: the arithmetic from ``quote`` to the stored value, and any caveat.
        assumed: what the figure takes for granted that no cited source states, and why
            (empty when every input is sourced).
    """

    title: str
    url: str
    quote: str
    verified: str
    sparse_headline: bool = False
    bidirectional_headline: bool = False
    derived: bool = False
    note: str = ""
    assumed: str = ""

    def __post_init__(self) -> None:
        if not self.title.strip() or not self.url.startswith("https://"):
            raise ValueError("a Citation needs a title and an https:// url")
        if not isinstance(self.verified, str) or not _ISO_DATE.fullmatch(self.verified):
            raise ValueError(
                f"Citation verified must be an ISO date 'yyyy-mm-dd', got {self.verified!r}"
            )
        try:
            checked = date.fromisoformat(self.verified)
        except ValueError:
            raise ValueError(
                f"Citation verified must be a real date, got {self.verified!r}"
            ) from None
        if checked > date.today():
            raise ValueError(
                f"Citation verified must not be in the future, got {self.verified!r} "
                f"(today is {date.today().isoformat()})"
            )

    @property
    def basis(self) -> str:
        """A short label for tables: how the stored value relates to the printed one, in English
        (:meth:`basis_in` says it in a language, as the book's tables do)."""
        return self.basis_in("en")

    def basis_in(self, language: str | None = None) -> str:
        """:attr:`basis` in ``language`` (default: the environment's; what is assumed stays in
        the catalog's words)."""
        parts = []
        if self.sparse_headline:
            parts.append(say("dense = sparse headline ÷ 2", language=language))
        if self.bidirectional_headline:
            parts.append(say("one-way = bidirectional headline ÷ 2", language=language))
        if self.derived:
            parts.append(say("derived", language=language))
        if self.assumed:
            parts.append(say("assumed: {what}", language=language, what=self.assumed))
        return say("; ", language=language).join(parts) or say("as printed", language=language)


LINK_SCOPE = say_later("one-way bytes/s per chip, in the pattern a ring collective uses")
"""The scope of every catalog link figure (see :mod:`roofline_lib.hardware`)."""


class Topology(StrEnum):
    """How a link's ports reach the other chips of a group, which sets how many of them a ring
    collective over N chips drives at once (:meth:`Link.ports_at`).

    * ``SWITCHED``: every port goes to a switch (NVLink to the NVSwitch fabric), so a chip
      drives all of them whatever N ≥ 2: ``ports(N) = ports_used``.
    * ``FULLY_CONNECTED``: one direct link to each peer (AMD Infinity Fabric in an 8-GPU
      MI300X platform); a group of N uses the links to its N − 1 peers:
      ``ports(N) = min(N − 1, ports_used)``.
    * ``TORUS_AXIS``: the ports along one axis of a torus, one to each ring neighbour (TPU ICI,
      ``ports_used = 2``); two chips are each other's only neighbour and share one link:
      ``ports(N) = min(N − 1, ports_used)``, 1 at N = 2 and 2 for N ≥ 3.
    * ``SINGLE_PORT``: one port per chip at any N (one InfiniBand NIC, one PCIe slot):
      ``ports(N) = 1``.
    """

    SWITCHED = "switched"
    FULLY_CONNECTED = "fully_connected"
    TORUS_AXIS = "torus_axis"
    SINGLE_PORT = "single_port"


TOPOLOGIES = tuple(t.value for t in Topology)
"""The allowed values of :attr:`Link.topology`, as strings."""


@dataclass(frozen=True)
class Link:
    """A chip-to-chip (or chip-to-host) link, as seen from one chip.

    A link's bandwidth depends on how many chips share the work: :meth:`one_way_bytes_per_s_at`
    gives it for N chips from the :class:`Topology`; :attr:`one_way_bytes_per_s` is the figure
    with every port in use (the largest group the link serves: an 8-GPU MI300X platform, a TPU
    ring of three or more chips).

    Attributes:
        key: short name used as a roofline *level*, e.g. ``"nvlink4"``.
        name: display name, e.g. ``"NVLink 4"``.
        one_way_bytes_per_s: bandwidth in one direction with every port in use, bytes/s, in the
            stated ``scope``: ``per_port_one_way_bytes_per_s × ports_used`` when those are given.
        scope: what the figure covers; :data:`LINK_SCOPE` for every catalog link.
        ports: the hardware behind the figure, e.g. "18 NVLink 4 links to the NVSwitch fabric".
        citation: the figure's source (optional for user-defined links).
        per_port_one_way_bytes_per_s: one link's (one port's) one-way bandwidth, bytes/s.
        ports_used: how many such links the chip drives at once with every port in use.
        topology: how the ports reach the other chips (a :class:`Topology` or its value, one of
            :data:`TOPOLOGIES`); it sets the ports a group of N uses. ``"fully_connected"`` and
            ``"torus_axis"`` need the per-port figure and ``ports_used``; ``"single_port"``
            needs ``ports_used = 1`` if it is given. Default ``"switched"``: the figure holds
            at any N (a user's link given only its total).
    """

    key: str
    name: str
    one_way_bytes_per_s: float
    scope: str = ""
    citation: Citation | None = None
    ports: str = ""
    per_port_one_way_bytes_per_s: float | None = None
    ports_used: int | None = None
    topology: Topology = Topology.SWITCHED

    def __post_init__(self) -> None:
        if not isinstance(self.key, str) or not self.key.isidentifier():
            raise ValueError(
                f"Link key must be a short identifier such as 'nvlink4', got {self.key!r}"
            )
        if not isinstance(self.topology, str) or self.topology not in TOPOLOGIES:
            raise UnknownNameError(
                f"Link {self.key!r}: topology must be one of "
                f"{', '.join(repr(t) for t in TOPOLOGIES)}, got {self.topology!r}"
            )
        object.__setattr__(self, "topology", Topology(self.topology))
        object.__setattr__(
            self,
            "one_way_bytes_per_s",
            plausible_rate(
                f"Link {self.key!r}: one_way_bytes_per_s",
                float(
                    positive_real(
                        f"{self.key}.one_way_bytes_per_s", self.one_way_bytes_per_s, "bytes/s"
                    )
                ),
                "bytes/s",
            ),
        )
        per_port, count = self.per_port_one_way_bytes_per_s, self.ports_used
        if (per_port is None) != (count is None):
            raise ValueError(
                f"Link {self.key!r}: give both per_port_one_way_bytes_per_s and ports_used, "
                "or neither"
            )
        if per_port is None:
            if self.topology in (Topology.FULLY_CONNECTED, Topology.TORUS_AXIS):
                raise ValueError(
                    f"Link {self.key!r}: topology {self.topology.value!r} uses some of its "
                    "ports at small N; give per_port_one_way_bytes_per_s and ports_used"
                )
            return
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ValueError(
                f"Link {self.key!r}: ports_used must be a whole number ≥ 1, got {count!r}"
            )
        if self.topology is Topology.SINGLE_PORT and count != 1:
            raise ValueError(
                f"Link {self.key!r}: topology 'single_port' needs ports_used = 1, got {count}"
            )
        per_port = float(
            positive_real(f"{self.key}.per_port_one_way_bytes_per_s", per_port, "bytes/s")
        )
        object.__setattr__(self, "per_port_one_way_bytes_per_s", per_port)
        if abs(per_port * count - self.one_way_bytes_per_s) > 1e-9 * self.one_way_bytes_per_s:
            raise ValueError(
                f"Link {self.key!r}: one_way_bytes_per_s ({self.one_way_bytes_per_s:g}) must "
                f"equal per_port_one_way_bytes_per_s × ports_used ({per_port:g} × {count})"
            )

    def ports_at(self, n_chips: ArrayLike) -> ArrayLike:
        """How many ports a ring collective over ``n_chips`` chips drives at once, per chip.

        ``switched``: ports_used; ``fully_connected`` and ``torus_axis``:
        min(N − 1, ports_used); ``single_port``: 1 (see :class:`Topology`). N = 1 sends
        nothing (φ = 0); it is given the two-chip count so that a bandwidth stays finite and
        T_comms = 0 / W = 0. A link given only its total counts as one port. ``n_chips`` may be
        an array (the result has its shape); it must hold positive whole numbers.
        """
        n = positive_count("n_chips", n_chips).astype(np.int64)
        used = 1 if self.ports_used is None else self.ports_used
        if self.topology in (Topology.FULLY_CONNECTED, Topology.TORUS_AXIS):
            ports = np.minimum(np.maximum(n, 2) - 1, used)
        else:
            ports = np.full_like(n, used)
        return int(ports) if ports.ndim == 0 else ports

    def one_way_bytes_per_s_at(self, n_chips: ArrayLike) -> ArrayLike:
        """One-way bytes/s per chip when a ring collective runs over ``n_chips`` chips.

        W(N) = per_port_one_way_bytes_per_s × :meth:`ports_at` (N): an MI300X's Infinity Fabric
        gives 64 GB/s at N = 2, 192 GB/s at N = 4, 448 GB/s at N = 8; a TPU v5e's ICI 50 GB/s at
        N = 2 and 100 GB/s for N ≥ 3; NVLink and InfiniBand the same at any N. A link given only
        its total (no per-port figure) has :attr:`one_way_bytes_per_s` at every N. Arrays
        broadcast; a float for a scalar N.
        """
        ports = np.asarray(self.ports_at(n_chips), dtype=float)
        if self.per_port_one_way_bytes_per_s is None:
            return out(np.full_like(ports, self.one_way_bytes_per_s))
        return out(self.per_port_one_way_bytes_per_s * ports)

    @property
    def basis(self) -> str:
        """How the figure is built, for tables: the scope and ``ports_used × per-port`` (what
        the ports are is in :attr:`ports`), in English, as :attr:`Citation.basis`."""
        return self.basis_in("en")

    def basis_in(self, language: str | None = None) -> str:
        """:attr:`basis` in ``language``: the catalog's scope (:data:`LINK_SCOPE`) is translated,
        a scope of the user's own stays as written."""
        parts = []
        if self.scope:
            scope = self.scope
            parts.append(say(scope, language=language) if scope == LINK_SCOPE else scope)
        if self.ports_used is not None and self.per_port_one_way_bytes_per_s is not None:
            parts.append(f"{self.ports_used} × {self.per_port_one_way_bytes_per_s / 1e9:g} GB/s")
        return say("; ", language=language).join(parts)


MIN_PLAUSIBLE_FLOPS_PER_S = 1e6
"""Below this a peak in FLOP/s (OP/s) is taken for a unit slip, not a chip: the smallest
microcontrollers do ~1e7–1e8 FLOP/s, while a datasheet's 989.5 TFLOP/s typed as 989.5 is 1e3."""
MIN_PLAUSIBLE_BYTES_PER_S = 1e6
"""Below this a bandwidth in bytes/s is taken for a unit slip (TB/s or GB/s typed as bytes/s): a
microcontroller's memory moves ~1e8 bytes/s, a slow serial link ~1e5–1e6 bits/s is no roofline
level."""


def plausible_rate(name: str, value: float, unit: str) -> float:
    """``value`` if it is a plausible rate in ``unit`` ("FLOP/s" or "bytes/s"), else a ValueError
    naming the parameter, the unit it takes and what the number would be in the unit it was
    probably given in: peak_flops_per_s['bf16'] = 989.5 → "did you give TFLOP/s? 989.5 TFLOP/s
    is 9.895e14 FLOP/s"."""
    floor, big = (
        (MIN_PLAUSIBLE_FLOPS_PER_S, "TFLOP/s")
        if unit == "FLOP/s"
        else (MIN_PLAUSIBLE_BYTES_PER_S, "TB/s" if value < 100 else "GB/s")
    )
    if value >= floor:
        return value
    scale = 1e12 if big.startswith("T") else 1e9

    def sci(x: float) -> str:
        return f"{x:.4g}".replace("e+", "e")

    raise ValueError(
        f"{name} is {value:g} {unit}, too small for any real chip (at least {sci(floor).replace('e0', 'e')} "
        f"{unit}): it takes {unit}, not {big}. Did you give {big}? {value:g} {big} is "
        f"{sci(value * scale)} {unit}"
    )


MEMORY_LEVELS = ("hbm", "onchip")
"""Roofline levels inside a chip. A chip's link keys are levels too (see :meth:`Chip.levels`)."""


@dataclass(frozen=True)
class Chip:
    """One accelerator chip: dense peak rates, memories and links, in SI units.

    Attributes:
        name: display name, e.g. ``"H100 SXM"``.
        peak_flops_per_s: dense peak FLOP/s (OP/s for integer dtypes) by dtype name.
        hbm_bandwidth_bytes_per_s: main-memory (HBM) bandwidth, bytes/s.
        hbm_capacity_bytes: main-memory capacity, bytes (optional).
        onchip_name: what the vendor calls its programmer-managed on-chip memory ("SMEM", "VMEM").
        onchip_capacity_bytes: total on-chip memory, bytes (optional).
        onchip_bandwidth_bytes_per_s: on-chip memory bandwidth, bytes/s (optional).
        links: interconnects by key; each key is also a roofline level.
        default_link: the key of the link a network cost is timed on when no level is named
            (e.g. ``"nvlink4"`` for an H100: its fastest network, not the host's PCIe). It must
            be one of ``links``; left out, it is the only link of a one-link chip and None for
            a chip without links. A chip with two or more links must name it.
        citations: sources, keyed by figure: ``"peak_flops_per_s.bf16"``, ``"hbm_bandwidth_bytes_per_s"``,
            ``"hbm_capacity_bytes"``, ``"onchip_capacity_bytes"``, ``"onchip_bandwidth_bytes_per_s"``.
        vendor: the maker.
        aliases: other names that find this chip in a catalog besides its display name, e.g.
            ``("H100",)``. Case, spaces, hyphens and underscores never matter in lookup, so
            ``"h100 sxm"``, ``"H100-SXM"`` and ``"h100sxm"`` need no alias (see
            :func:`~roofline_lib.hardware.lookup.alias_key`).
    """

    name: str
    peak_flops_per_s: Mapping[str, float]
    hbm_bandwidth_bytes_per_s: float
    hbm_capacity_bytes: float | None = None
    onchip_name: str = "on-chip memory"
    onchip_capacity_bytes: float | None = None
    onchip_bandwidth_bytes_per_s: float | None = None
    links: Mapping[str, Link] = field(default_factory=dict)
    citations: Mapping[str, Citation] = field(default_factory=dict)
    vendor: str = ""
    default_link: str | None = None
    aliases: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"Chip name must be a non-empty string, got {self.name!r}")
        if not self.peak_flops_per_s:
            raise ValueError(f"Chip {self.name!r}: peak_flops_per_s needs at least one dtype")
        peaks = {}
        for dtype, rate in self.peak_flops_per_s.items():
            if dtype not in DTYPES:
                raise UnknownNameError(
                    f"Chip {self.name!r}: unknown dtype {dtype!r} in peak_flops_per_s; "
                    f"allowed: {', '.join(DTYPES)}"
                )
            key = f"peak_flops_per_s[{dtype!r}]"
            peaks[dtype] = plausible_rate(
                f"Chip {self.name!r}: {key}",
                float(positive_real(key, rate, "FLOP/s")),
                "FLOP/s",
            )
        object.__setattr__(self, "peak_flops_per_s", MappingProxyType(peaks))
        object.__setattr__(
            self,
            "hbm_bandwidth_bytes_per_s",
            plausible_rate(
                f"Chip {self.name!r}: hbm_bandwidth_bytes_per_s",
                float(
                    positive_real(
                        "hbm_bandwidth_bytes_per_s", self.hbm_bandwidth_bytes_per_s, "bytes/s"
                    )
                ),
                "bytes/s",
            ),
        )
        for attr, unit in (
            ("hbm_capacity_bytes", "bytes"),
            ("onchip_capacity_bytes", "bytes"),
            ("onchip_bandwidth_bytes_per_s", "bytes/s"),
        ):
            value = getattr(self, attr)
            if value is not None:
                checked = float(positive_real(attr, value, unit))
                if unit == "bytes/s":
                    checked = plausible_rate(f"Chip {self.name!r}: {attr}", checked, unit)
                object.__setattr__(self, attr, checked)
        links = dict(self.links)
        for key, link in links.items():
            if not isinstance(link, Link) or link.key != key:
                raise ValueError(
                    f"Chip {self.name!r}: links[{key!r}] must be a Link with key {key!r}"
                )
            if key in MEMORY_LEVELS:
                raise ValueError(f"Chip {self.name!r}: a link may not be called {key!r}")
        object.__setattr__(self, "links", MappingProxyType(links))
        object.__setattr__(self, "default_link", self._checked_default_link())
        aliases = tuple(self.aliases) if not isinstance(self.aliases, str) else (self.aliases,)
        for alias in aliases:
            if not isinstance(alias, str) or not alias.strip():
                raise ValueError(
                    f"Chip {self.name!r}: aliases must be non-empty strings, got {alias!r}"
                )
        object.__setattr__(self, "aliases", aliases)
        object.__setattr__(self, "citations", MappingProxyType(dict(self.citations)))

    def _checked_default_link(self) -> str | None:
        """``default_link`` validated against ``links``, or inferred where only one choice exists."""
        if self.default_link is not None:
            if self.default_link not in self.links:
                allowed = ", ".join(repr(k) for k in self.links) or "none (the chip has no links)"
                raise ValueError(
                    f"Chip {self.name!r}: default_link must be one of its links; "
                    f"allowed: {allowed}, got {self.default_link!r}"
                )
            return self.default_link
        if len(self.links) > 1:
            raise ValueError(
                f"Chip {self.name!r} has {len(self.links)} links "
                f"({', '.join(repr(k) for k in self.links)}): name the one a network cost is "
                "timed on by default with default_link"
            )
        return next(iter(self.links), None)  # the only link, or None

    # -- lookups --------------------------------------------------------------------------

    @property
    def dtypes(self) -> tuple[str, ...]:
        """The dtypes this chip has a published dense peak for."""
        return tuple(self.peak_flops_per_s)

    def peak(self, dtype: str = "bf16") -> float:
        """Dense peak FLOP/s for ``dtype``; raises UnknownNameError listing the chip's dtypes."""
        if dtype not in self.peak_flops_per_s:
            raise UnknownNameError(
                f"{self.name} has no published peak for dtype {dtype!r}; "
                f"allowed: {', '.join(repr(d) for d in self.dtypes)}"
            )
        return self.peak_flops_per_s[dtype]

    @property
    def levels(self) -> tuple[str, ...]:
        """Roofline levels with a known bandwidth: 'hbm', 'onchip' (if known), then link keys."""
        levels = ["hbm"]
        if self.onchip_bandwidth_bytes_per_s is not None:
            levels.append("onchip")
        return (*levels, *self.links)

    @overload
    def bandwidth(self, level: str = "hbm", n_chips: None = None) -> float: ...

    @overload
    def bandwidth(self, level: str, n_chips: ArrayLike) -> ArrayLike: ...

    def bandwidth(self, level: str = "hbm", n_chips: ArrayLike | None = None) -> ArrayLike:
        """Bandwidth in bytes/s at a roofline level (one-way, per chip, for links).

        ``level`` is ``"hbm"``, ``"onchip"`` or one of the chip's link keys. For a link,
        ``n_chips`` is the size N of the group that shares the work, and the result is
        :meth:`Link.one_way_bytes_per_s_at` (N) (an array for an array of N); left out, it is
        the figure with every port in use, :attr:`Link.one_way_bytes_per_s`. Network timings
        pass N. A memory level takes no ``n_chips``.
        """
        if level in self.links:
            link = self.links[level]
            if n_chips is None:
                return link.one_way_bytes_per_s
            return link.one_way_bytes_per_s_at(n_chips)
        if n_chips is not None and level in self.levels:
            raise ValueError(
                f"n_chips applies to a link level ({', '.join(repr(k) for k in self.links)}); "
                f"level {level!r} is memory inside one chip: leave n_chips out"
            )
        if level == "hbm":
            return self.hbm_bandwidth_bytes_per_s
        if level == "onchip" and self.onchip_bandwidth_bytes_per_s is not None:
            return self.onchip_bandwidth_bytes_per_s
        raise UnknownNameError(
            f"{self.name} has no bandwidth for level {level!r}; "
            f"allowed: {', '.join(repr(lv) for lv in self.levels)}"
        )

    def level_name(self, level: str) -> str:
        """Display name of a level: 'HBM', the on-chip memory's name, or the link's name."""
        self.bandwidth(level)  # validates
        if level == "hbm":
            return "HBM"
        if level == "onchip":
            return self.onchip_name
        return self.links[level].name

    def figures(self) -> Iterator[tuple[str, float, Citation | None]]:
        """Every numeric figure of the chip as ``(key, value, citation)``; links as ``link.<key>``."""
        for dtype, rate in self.peak_flops_per_s.items():
            key = f"peak_flops_per_s.{dtype}"
            yield key, rate, self.citations.get(key)
        for attr in (
            "hbm_bandwidth_bytes_per_s",
            "hbm_capacity_bytes",
            "onchip_capacity_bytes",
            "onchip_bandwidth_bytes_per_s",
        ):
            value = getattr(self, attr)
            if value is not None:
                yield attr, value, self.citations.get(attr)
        for key, link in self.links.items():
            yield f"link.{key}", link.one_way_bytes_per_s, link.citation

    def with_figures(self, name: str | None = None, **changes: Any) -> Chip:
        """A copy with some figures replaced (e.g. the sources' rounded numbers); citations kept
        only for the figures left unchanged. A copy under a new name keeps none of the
        original's ``aliases`` (they name the original)."""
        if name is not None and name != self.name:
            changes.setdefault("aliases", ())
        dropped = set(changes)
        if "peak_flops_per_s" in changes:
            dropped |= {f"peak_flops_per_s.{d}" for d in self.peak_flops_per_s}
        citations = {k: v for k, v in self.citations.items() if k not in dropped}
        return replace(self, name=name or self.name, citations=citations, **changes)
