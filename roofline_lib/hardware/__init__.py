"""Hardware catalog: chips and links, every figure with its source.

* :mod:`~roofline_lib.hardware.types` — :class:`Citation`, :class:`Link`, :class:`Chip`;
* :mod:`~roofline_lib.hardware.catalog` — the data: every catalog chip once, in :data:`CHIPS`;
* :mod:`~roofline_lib.hardware.lookup` — :func:`catalog_of`, which derives lookup by name and
  alias from a list of chips; :data:`CATALOG` and :func:`get_chip` are that, for :data:`CHIPS`.

Conventions
-----------
* Compute rates are **dense** peak rates in FLOP/s (or OP/s for integers). Where a vendor's
  headline figure assumes 2:4 structured sparsity, the catalog stores half of it and the
  figure's :class:`Citation` says so (``sparse_headline=True``).
* Link bandwidths follow one scope, :data:`LINK_SCOPE`: **one-way bytes/s per chip, in the
  pattern a ring collective uses**, i.e. the bytes a chip can send per second (while it
  receives as many) over the links a ring collective over its group of N chips drives at once,
  which depend on N through the link's :class:`Topology`:
  ``Link.one_way_bytes_per_s_at(N) = per_port_one_way_bytes_per_s × Link.ports_at(N)``. A
  GPU's NVLinks to the NVSwitch fabric are all used at any N (``switched``, 18 links); an
  MI300X uses the links to its N − 1 peers (``fully_connected``: 1 of 7 at N = 2, all 7 at
  N = 8); a TPU ring along one torus axis uses the two ports on that axis, one to each
  neighbour, but two chips share one link (``torus_axis``); InfiniBand and PCIe use one port
  (``single_port``). ``Link.one_way_bytes_per_s`` is the figure with every port in use
  (``per_port_one_way_bytes_per_s × ports_used``); network timings ask for N
  (``Chip.bandwidth(level, n_chips)``). Where the vendor's figure adds both directions, the
  per-port figure is half of it (``bidirectional_headline=True``). Each link records its scope
  (:attr:`Link.scope`), its per-port figure, its port count and its topology.
* Memory sizes are in bytes (GiB = 2**30 bytes, GB = 1e9 bytes, as the source writes them).
* A figure computed from other published figures (no vendor states it) has ``derived=True``
  and its note shows the arithmetic.
* Every citation says when its quote was last checked against the source
  (:attr:`Citation.verified`, ``yyyy-mm-dd``).

A user-defined chip is an ordinary :class:`Chip`; citations are optional for it::

    my_chip = Chip(name="My NPU", peak_flops_per_s={"bf16": 4e14}, hbm_bandwidth_bytes_per_s=1.2e12)
"""

from __future__ import annotations

from collections.abc import Mapping

from .._checks import UnknownNameError
from .catalog import (
    A100_80GB,
    B200,
    CHIPS,
    H100_SXM,
    H200,
    IB_HDR,
    IB_NDR,
    ICI_V4,
    ICI_V5E,
    ICI_V5P,
    ICI_V6E,
    INFINITY_FABRIC,
    MI300X,
    NETWORK_LINKS,
    NVLINK3,
    NVLINK4,
    NVLINK5,
    PCIE4,
    PCIE5,
    TPU_V4,
    TPU_V5E,
    TPU_V5P,
    TPU_V6E,
)
from .lookup import Catalog, alias_key, catalog_of, links_by_key
from .types import LINK_SCOPE, MEMORY_LEVELS, TOPOLOGIES, Chip, Citation, Link, Topology

_CATALOG = catalog_of(CHIPS)

CATALOG: Mapping[str, Chip] = _CATALOG.chips
"""Every catalog chip by display name, derived from :data:`CHIPS`."""

LINKS: Mapping[str, Link] = links_by_key(NETWORK_LINKS)
"""The GPU interconnects by key, derived from :data:`NETWORK_LINKS`. TPU ICI differs per
generation; see each TPU chip's ``links``."""


def chip_names() -> tuple[str, ...]:
    """Display names of the catalog chips."""
    return _CATALOG.names()


def get_chip(name: str | Chip) -> Chip:
    """Look up a catalog chip by name (``"H100 SXM"``, ``"h100-sxm"``, ``"h100"``, ``"v5e"``).

    Case, spaces, hyphens and underscores do not matter; besides its display name a chip is found
    by the ``aliases`` it declares. A :class:`Chip` passes through unchanged, so functions can
    take either. An unknown name raises UnknownNameError (a KeyError and ValueError) listing the
    known names.
    """
    return _CATALOG.get(name)


def get_link(key: str) -> Link:
    """Look up a GPU interconnect by key (``"nvlink4"``, ``"ib_ndr"``, ``"pcie5"``, ...)."""
    if key in LINKS:
        return LINKS[key]
    raise UnknownNameError(f"unknown link {key!r}; known links: {', '.join(LINKS)}")


__all__ = [
    "A100_80GB",
    "B200",
    "CATALOG",
    "CHIPS",
    "H100_SXM",
    "H200",
    "IB_HDR",
    "IB_NDR",
    "ICI_V4",
    "ICI_V5E",
    "ICI_V5P",
    "ICI_V6E",
    "INFINITY_FABRIC",
    "LINKS",
    "LINK_SCOPE",
    "MEMORY_LEVELS",
    "MI300X",
    "NETWORK_LINKS",
    "NVLINK3",
    "NVLINK4",
    "NVLINK5",
    "PCIE4",
    "PCIE5",
    "TOPOLOGIES",
    "TPU_V4",
    "TPU_V5E",
    "TPU_V5P",
    "TPU_V6E",
    "Catalog",
    "Chip",
    "Citation",
    "Link",
    "Topology",
    "alias_key",
    "catalog_of",
    "chip_names",
    "get_chip",
    "get_link",
    "links_by_key",
]
