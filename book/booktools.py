"""Helpers every book page imports in its hidden setup cell.

* ``glue_number`` / ``glue_quantity`` / ``glue_percent`` put a number computed by roofline_lib into
  the prose, formatted by roofline_lib.fmt (the one formatter of the course), and return the text.
  In Markdown write ``{glue:text}`name``` to show it.
* ``glue_figure`` makes a Figure available to ``{glue:figure}`` (e.g. inside a worked solution).
* ``show`` displays a Figure returned by roofline_lib.plots (they are not pyplot figures).
* ``set_style`` applies the house matplotlib style once per page.
"""

from __future__ import annotations

import matplotlib as mpl
from IPython.display import display
from matplotlib.figure import Figure
from myst_nb import glue

from roofline_lib.fmt import format_number, format_percent, format_quantity

STYLE = {
    "figure.dpi": 110,
    "savefig.dpi": 160,
    "font.size": 10,
    "axes.titlesize": 10.5,
    "axes.labelsize": 10,
    "legend.fontsize": 8.5,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


def set_style() -> None:
    """Apply the house style to matplotlib."""
    mpl.rcParams.update(STYLE)


def glue_number(name: str, value: float, digits: int = 3) -> str:
    """Glue ``format_number(value, digits)`` under ``name`` and return the text."""
    text = format_number(value, digits)
    glue(name, text, display=False)
    return text


def glue_quantity(name: str, value: float, unit: str, digits: int = 3) -> str:
    """Glue ``format_quantity(value, unit, digits)`` (SI prefix on the unit) and return the text."""
    text = format_quantity(value, unit, digits)
    glue(name, text, display=False)
    return text


def glue_percent(name: str, fraction: float, digits: int = 3) -> str:
    """Glue ``format_percent(fraction, digits)`` and return the text."""
    text = format_percent(fraction, digits)
    glue(name, text, display=False)
    return text


def glue_figure(name: str, fig: Figure) -> Figure:
    """Make ``fig`` available to ``{glue:figure}`` without displaying it here."""
    glue(name, fig, display=False)
    return fig


def show(fig: Figure) -> None:
    """Display a Figure as the cell's output."""
    display(fig)
