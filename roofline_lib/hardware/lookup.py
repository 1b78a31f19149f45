"""Finding a chip by name: a :class:`Catalog` derived from a list of chips.

Adding a chip to the course is one edit, the :class:`~roofline_lib.hardware.types.Chip` value in
:data:`roofline_lib.hardware.catalog.CHIPS`; the name→chip mapping and every alias that finds a
chip are derived here by :func:`catalog_of`, which refuses a name or alias that would find two
chips.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from .._checks import UnknownNameError
from .types import Chip, Link

_IGNORED = re.compile(r"[\s_-]+")


def alias_key(name: str) -> str:
    """The form a chip name is looked up in: lower case, without spaces, hyphens or underscores,
    so ``"H100 SXM"``, ``"h100-sxm"`` and ``"h100sxm"`` are one key (``"h100sxm"``)."""
    return _IGNORED.sub("", name).lower()


@dataclass(frozen=True)
class Catalog:
    """Chips by display name, and the chip each lookup key finds.

    Attributes:
        chips: every chip by its display name, in the order given.
        aliases: :func:`alias_key` of every display name and declared alias → display name.
    """

    chips: Mapping[str, Chip]
    aliases: Mapping[str, str]

    def names(self) -> tuple[str, ...]:
        """Display names, in the order given."""
        return tuple(self.chips)

    def get(self, name: str | Chip) -> Chip:
        """The chip ``name`` finds: its display name or an alias, in any case, with or without
        spaces, hyphens or underscores. A :class:`Chip` passes through unchanged. An unknown name
        raises UnknownNameError (a KeyError and ValueError) listing the known names."""
        if isinstance(name, Chip):
            return name
        if isinstance(name, str):
            if name in self.chips:
                return self.chips[name]
            found = self.aliases.get(alias_key(name))
            if found is not None:
                return self.chips[found]
        raise UnknownNameError(f"unknown chip {name!r}; known chips: {', '.join(self.chips)}")


def catalog_of(chips: Iterable[Chip]) -> Catalog:
    """The :class:`Catalog` of ``chips``: each found by its name and by its ``aliases``.

    Raises ValueError when two chips share a display name, or when a name or alias finds two
    chips (or is declared twice), after :func:`alias_key`; the message names both.
    """
    by_name: dict[str, Chip] = {}
    aliases: dict[str, str] = {}
    for chip in chips:
        if not isinstance(chip, Chip):
            raise TypeError(f"a catalog holds Chip values, got {chip!r}")
        if chip.name in by_name:
            raise ValueError(f"two catalog chips are named {chip.name!r}")
        by_name[chip.name] = chip
        for alias in (chip.name, *chip.aliases):
            key = alias_key(alias)
            if not key:
                raise ValueError(f"chip {chip.name!r}: alias {alias!r} has no letters or digits")
            if key in aliases:
                owner = aliases[key]
                what = "itself" if owner == chip.name else repr(owner)
                raise ValueError(
                    f"duplicate chip alias: {alias!r} of {chip.name!r} already finds {what} "
                    f"(names are compared as {key!r}: case, spaces, hyphens and underscores "
                    "ignored)"
                )
            aliases[key] = chip.name
    return Catalog(MappingProxyType(by_name), MappingProxyType(aliases))


def links_by_key(links: Iterable[Link]) -> Mapping[str, Link]:
    """``links`` by key, read-only; raises ValueError when two share a key."""
    by_key: dict[str, Link] = {}
    for link in links:
        if link.key in by_key:
            raise ValueError(f"two links share the key {link.key!r}")
        by_key[link.key] = link
    return MappingProxyType(by_key)
