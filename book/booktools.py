"""Helpers every book page imports in its hidden setup cell.

* ``glue_number`` / ``glue_quantity`` / ``glue_percent`` put a number computed by roofline_lib into
  the prose, formatted by roofline_lib.fmt (the one formatter of the course), and return the text.
  In Markdown write ``{glue:text}`name``` to show it. ``glue_text`` does the same for a string the
  library computes (a regime, a chip's name).
* ``glue_figure`` makes a Figure available to ``{glue:figure}`` (with a caption and a label).
* ``glue_markdown`` makes Markdown (a generated table) available to ``{glue:md}`` with
  ``:format: myst``; ``markdown_table`` and ``cite`` build it.
* ``show`` displays a Figure returned by roofline_lib.plots (they are not pyplot figures).
* ``set_style`` applies the house matplotlib style once per page, with the font of the
  edition's language (``ROOFLINE_LANG``: roofline_lib.words).
* ``say`` (roofline_lib.words) gives every word a cell shows outside the prose (a figure's
  title, a table's header, a hint) in the edition's language.
* ``question`` makes a "predict, then check" answer box (an input, a Check button, a message
  area) for ``{glue:} name`` inside a sphinx-exercise ``exercise``: the library's answer, the
  tolerance, the known mistakes (roofline_lib.mistakes) and every message ride in ``data-*``
  attributes, and book/_ext/static/predict.js only compares numbers.

Figures are rendered to SVG here, explicitly: the book builds with ``MPLBACKEND=Agg``, under which
IPython would otherwise show a Figure as its text repr and the page would silently lose it. Before
rendering, a figure wider than :data:`PAGE_WIDTH_IN` is scaled down to it, text smaller than
``roofline_lib.plots.MIN_FONT_PT`` is raised to it (so that it stays legible when a phone shrinks
the picture to the screen), and titles too long for the figure are wrapped onto several lines.
"""

from __future__ import annotations

import html
import io
import json
import os
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import matplotlib as mpl
from IPython.display import HTML, SVG, Markdown, display
from matplotlib.figure import Figure
from myst_nb import glue

from roofline_lib import plots
from roofline_lib.fmt import format_batch, format_number, format_percent, format_quantity
from roofline_lib.hardware import Citation
from roofline_lib.mistakes import Convention, Mistake, answer_key
from roofline_lib.words import fields_of, say, say_later, use_language_font

if TYPE_CHECKING:
    from roofline_lib.measure import MeasuredRoofline

STYLE = {
    "figure.dpi": 110,
    "savefig.dpi": 160,
    "font.size": 10,
    "axes.titlesize": 10.5,
    "axes.labelsize": 10,
    "legend.fontsize": 8.5,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "svg.fonttype": "path",
    "svg.hashsalt": "roofline-course",  # stable SVG ids, so unchanged figures give unchanged files
}


def set_style() -> None:
    """Apply the house style to matplotlib, with the font of the edition's language."""
    mpl.rcParams.update(STYLE)
    use_language_font()


def glue_number(name: str, value: float, digits: int = 3) -> str:
    """Glue ``format_number(value, digits)`` under ``name`` and return the text."""
    text = format_number(value, digits)
    glue(name, text, display=False)
    return text


def glue_batch(name: str, critical_batch: float) -> str:
    """Glue a critical batch B* as ``format_batch`` prints it (whole tokens, rounded down, so that
    "compute-bound for B > {text}" holds as printed) and return the text."""
    text = format_batch(critical_batch)
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


def glue_text(name: str, text: str) -> str:
    """Glue a string the library computed (a regime, a chip name) and return it."""
    glue(name, str(text), display=False)
    return str(text)


PAGE_WIDTH_IN = plots.PAGE_WIDTH_IN
"""Figures are drawn at most this wide (inches), with text of at least ``plots.MIN_FONT_PT``
points: on a 390 px phone that text shows at about 9 CSS px (the browser test measures it)."""


def fit_to_page(fig: Figure) -> Figure:
    """Scale a figure down to :data:`PAGE_WIDTH_IN` wide (keeping its shape), raise text below
    ``plots.MIN_FONT_PT`` to it and wrap its titles (:func:`roofline_lib.plots.fit_figure`)."""
    return plots.fit_figure(fig)


PAD_IN = 0.06
"""Padding around a saved figure's tight bounding box, inches."""


def _saved_width_in(fig: Figure) -> float:
    """The width ``fig`` is saved at with ``bbox_inches="tight"``, inches: text outside the
    axes (a label, a legend) can make it wider than the figure itself."""
    renderer = fig.canvas.get_renderer() if hasattr(fig.canvas, "get_renderer") else None
    fig.draw_without_rendering()
    return fig.get_tightbbox(renderer).width + 2 * PAD_IN


def fit_saved_width(fig: Figure, width_in: float = PAGE_WIDTH_IN) -> Figure:
    """Fit ``fig`` to the page, then narrow it until the picture saved with its tight bounding
    box is at most ``width_in`` wide: a phone shows the picture at the column's width, so a
    wider picture would show its text smaller than the page's floor (the browser test measures
    it: at least 9 CSS px at 390 px)."""
    plots.fit_figure(fig, width_in=width_in)
    best_size, best = fig.get_size_inches().copy(), _saved_width_in(fig)
    for _ in range(6):
        if best <= width_in + 0.005:
            break
        width, height = best_size
        step = best - width_in + 0.01
        if width - step < 0.8 * width_in:
            break
        fig.set_size_inches(width - step, height)
        saved = _saved_width_in(fig)
        if best - saved < step / 2:  # text of a fixed width sticks out: narrowing cannot help
            break
        best_size, best = fig.get_size_inches().copy(), saved
    fig.set_size_inches(*best_size)
    return fig


def figure_svg(fig: Figure, width_in: float = PAGE_WIDTH_IN) -> SVG:
    """The Figure, fitted to ``width_in`` (:func:`fit_saved_width`), as an SVG image object
    (sharp on every screen)."""
    fit_saved_width(fig, width_in)
    buffer = io.StringIO()
    fig.savefig(
        buffer, format="svg", bbox_inches="tight", pad_inches=PAD_IN, metadata={"Date": None}
    )
    return SVG(buffer.getvalue())


def glue_figure(name: str, fig: Figure, width_in: float = PAGE_WIDTH_IN) -> None:
    """Make ``fig`` available to ``{glue:figure}`` without displaying it here, at most
    ``width_in`` wide (narrower for a figure shown indented, in a box or a dropdown).

    Returns None, so that a cell ending with this call shows no ``<Figure ...>`` text."""
    glue(name, figure_svg(fig, width_in), display=False)


def show(fig: Figure, width_in: float = PAGE_WIDTH_IN) -> None:
    """Display a Figure as the cell's output (as SVG), at most ``width_in`` wide."""
    display(figure_svg(fig, width_in))


def glue_markdown(name: str, text: str) -> None:
    """Glue Markdown for ``{glue:md} name`` with ``:format: myst`` (e.g. a generated table).

    Returns None, so that a cell ending with this call shows nothing."""
    glue(name, Markdown(text), display=False)


def _cell(value: object) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[object]], align: str = "") -> str:
    """A Markdown table. ``align`` has one letter per column: ``l``, ``r`` or ``c`` (default l)."""
    align = align or "l" * len(header)
    if len(align) != len(header) or any(len(row) != len(header) for row in rows):
        raise ValueError("every row and the align string need one entry per header column")
    rule = {"l": ":--", "r": "--:", "c": ":-:"}
    lines = [
        "| " + " | ".join(_cell(h) for h in header) + " |",
        "| " + " | ".join(rule[a] for a in align) + " |",
        *("| " + " | ".join(_cell(v) for v in row) + " |" for row in rows),
    ]
    return "\n".join(lines)


def cite(citation: Citation | None, text: str | None = None, quote: bool = False) -> str:
    """A Markdown link to a catalog figure's source: ``[text](url)``, the text defaulting to the
    source's title. With ``quote``, the source's words become the link's tooltip."""
    if citation is None:
        return say("no source (user-defined)")
    label = (text or citation.title).replace("[", "\\[").replace("]", "\\]")
    if quote and citation.quote:
        tooltip = citation.quote.replace("\\", "\\\\").replace('"', '\\"')
        return f'[{label}]({citation.url} "{tooltip}")'
    return f"[{label}]({citation.url})"


QUESTION_MESSAGES = {
    "empty": say_later("Type a number first."),
    "text": say_later("That is not a number: write it like 1e12, 0.0012 or 1,000."),
    "negative": say_later("The answer is a positive quantity, so a negative number cannot be it."),
    "zero": say_later("The answer is a positive quantity, so zero cannot be it."),
    "overflow": say_later(
        "That number is too large to be a number at all (it overflows): check the exponent."
    ),
    "right": say_later(
        "Right: within {tolerance} of the library's value. Open the solution to compare."
    ),
    "wrong": say_later("Not within {tolerance} of the answer. Try again, or open the solution."),
    "convention": say_later("Also right: {note}"),
    "show": say_later("Show the working now (it gives the answer away)"),
    "held": say_later("The working that answers the question above is folded until you answer it."),
    "held_many": say_later(
        "The working that answers the questions above is folded until you answer them."
    ),
}
"""What an answer box says, by case, in English (:func:`question` says it in the edition's
language); ``{tolerance}`` becomes the stated tolerance ("1%"); ``{note}`` stays for the browser
to fill with a convention's note. ``show`` and ``held`` (``held_many`` for several boxes) label
the working that the page folds until the box is answered (the ``hold-until-answered``
directive, book/_ext/course.py)."""

UNIT_WORDS = {"tokens": say_later("tokens"), "requests": say_later("requests")}
"""Units that are words: an answer box's label says them in the edition's language (the reader
may still type the English unit after the number, as for any unit)."""


def question(
    name: str,
    answer: float,
    unit: str = "",
    rtol: float = 0.01,
    mistakes: Sequence[Mistake] = (),
    conventions: Sequence[Convention] = (),
) -> HTML:
    """Glue under ``name`` (for ``{glue:} name``) and return a "predict, then check" answer box.

    ``answer`` is the library's value in ``unit``; a reader's number within ``rtol`` of it
    (``|x − answer| ≤ rtol·answer``) gets a tick, as does one within ``rtol`` of a convention the
    page itself teaches (``conventions``: exact bytes, the guide's rounded inputs), with its note.
    A number within ``rtol`` of one of the question's ``mistakes`` (computed with the library)
    gets that mistake's hint; anything else is plainly wrong: no hint is guessed. The tolerance
    must separate every listed value (:func:`roofline_lib.mistakes.answer_key` raises otherwise).
    The reader may add the unit with an SI prefix ("1.1 ms" for unit "s")."""
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise ValueError(f"name must be a lower-case identifier, got {name!r}")
    key = answer_key(answer, rtol, mistakes, conventions)
    tolerance = f"{100 * rtol:g}%"
    # {note} stays a field: the browser fills it with the convention's note
    fill = {"tolerance": tolerance, "note": "{note}"}
    messages = {
        k: say(v, **{f: fill[f] for f in fields_of(v)}) for k, v in QUESTION_MESSAGES.items()
    }
    data = {
        "answer": repr(float(key.answer)),
        "rtol": repr(float(key.rtol)),
        "unit": unit,
        "mistakes": json.dumps([{"value": m.value, "hint": m.hint} for m in key.mistakes]),
        "conventions": json.dumps([{"value": c.value, "note": c.note} for c in key.conventions]),
        "messages": json.dumps(messages),
    }
    attributes = " ".join(f'data-{k}="{html.escape(v, quote=True)}"' for k, v in data.items())
    ident = f"predict-{name.replace('_', '-')}"
    shown_unit = say(UNIT_WORDS[unit]) if unit in UNIT_WORDS else unit
    label = (
        say(
            "Your answer ({unit}), checked to within {tolerance}:",
            unit=shown_unit,
            tolerance=tolerance,
        )
        if unit
        else say("Your answer, checked to within {tolerance}:", tolerance=tolerance)
    )
    box = (
        f'<div class="predict" {attributes}>'
        f'<label for="{ident}">{html.escape(label)}</label> '
        f'<span class="predict-row"><input id="{ident}" type="text" inputmode="decimal" '
        'autocomplete="off" spellcheck="false"> '
        f'<button type="button" class="predict-check">{html.escape(say("Check"))}</button></span>'
        '<p class="predict-message" role="status" aria-live="polite"></p></div>'
    )
    shown = HTML(box)
    glue(name, shown, display=False)
    return shown


MEASUREMENT_ENV = "ROOFLINE_BOOK_MEASUREMENT"
"""Where a build of the book keeps the build machine's measurement (page 9), as
``write:PATH`` (measure, and save it there: tools/book.py does, before the editions build) or
``read:PATH`` (show the one saved there, if any: every edition, so all show the same figures);
unset: measure."""
MEASUREMENT_BUDGET_S = 20.0
"""How long page 9's measurement of the build machine may take (seconds)."""


def measured_roofline(budget_s: float = MEASUREMENT_BUDGET_S) -> MeasuredRoofline:
    """This machine's measured roofline (:func:`roofline_lib.measure.measure`), shared by the
    editions of one build through :data:`MEASUREMENT_ENV`."""
    from roofline_lib.measure import MeasuredRoofline, measure

    mode, _, path = os.environ.get(MEASUREMENT_ENV, "").partition(":")
    if mode == "read" and path and os.path.isfile(path):
        return MeasuredRoofline.from_json(path)
    result = measure(budget_s=budget_s)
    if mode == "write" and path:
        result.to_json(path)
    return result
