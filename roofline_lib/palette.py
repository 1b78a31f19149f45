"""The course's one colour palette: Okabe & Ito's eight colours, safe for colour-blind readers.

Okabe, M. and Ito, K. (2008), "Color Universal Design (CUD): How to make figures and
presentations that are friendly to colorblind people", https://jfly.uni-koeln.de/color/
"""

from __future__ import annotations

OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
}

SERIES = (
    OKABE_ITO["blue"],
    OKABE_ITO["vermillion"],
    OKABE_ITO["bluish_green"],
    OKABE_ITO["reddish_purple"],
    OKABE_ITO["orange"],
    OKABE_ITO["sky_blue"],
    OKABE_ITO["black"],
    OKABE_ITO["yellow"],
)
"""Colours for successive lines or chips, most distinct first."""

REGIONS = {
    "memory": OKABE_ITO["vermillion"],
    "mixed": OKABE_ITO["yellow"],
    "compute": OKABE_ITO["bluish_green"],
}
"""Fill colours for the roofline chart's regions: bandwidth-bound everywhere, bound at the low
bandwidth only, compute-bound everywhere (both sources' red, yellow and green)."""

REGION_ALPHA = 0.18
PEAK = OKABE_ITO["black"]
"""Colour of peak (roof) lines."""


def series_color(i: int) -> str:
    """The i-th series colour, cycling."""
    return SERIES[i % len(SERIES)]
