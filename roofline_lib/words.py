"""Every word the course shows outside its prose, by language, from one place.

The book's prose is translated by Sphinx's catalogs (``locales/``); what code writes — a
figure's title, axis labels and legend, a regime glued into a sentence, a table built in a code
cell, an answer box, the live explorer's labels — is translated here. Code keeps the English
text, which is also the key of each language's table, so it stays readable::

    say("Arithmetic intensity (FLOPs/byte)")                  # the environment's language
    say("{chip}: critical {value}", chip="H100", value="295")  # formatted parts: same fields
    say(estimate.regime, language="zh_CN")                    # "计算受限"

* :func:`language` reads the language from ``$ROOFLINE_LANG`` (one of :data:`LANGUAGES`, default
  English): the book's translated edition runs its code cells with it set.
* :func:`say` gives a text in a language. English is the key itself; any other language raises
  KeyError at once for a text its table lacks (a page is never silently half English), and a
  translation must have exactly the key's ``{fields}`` (tests/lib/test_words.py checks both for
  every ``say("...")`` in the repository).
* :func:`say_later` marks a text defined in one place and said in another (a regime the library
  computes, a menu label of the live explorer): it returns the English unchanged.
* :func:`use_language_font` makes matplotlib draw the language's glyphs, from the CJK font at
  ``$ROOFLINE_CJK_FONT``, after the usual Latin font: numbers and Latin words keep the English
  figures' look. :func:`math_text_family` names the font for a text that mixes ``$math$`` with
  CJK words (mathtext has no fallback font).

Numbers keep their English formatting (:mod:`roofline_lib.fmt`), units stay (FLOP/s, GB/s, ms),
and quotations of datasheets stay in the words they quote.

Not said here: the book's prose, which its catalogs translate. Everything code writes onto a
page is said here, including the tables a page pastes with a block ``{glue:md}``: those are data
(book/_ext/i18n.py keeps them out of the catalogs), so a new chip or a changed figure changes
the page and never a translation. A citation's basis is said with
:meth:`~roofline_lib.hardware.Citation.basis_in`.
"""

from __future__ import annotations

import logging
import os
import string
import unicodedata
from pathlib import Path

from .words_zh_cn import ZH_CN

LANGUAGES = ("en", "zh_CN")
"""The languages the course speaks: English, the original, and Simplified Chinese."""
LANGUAGE_ENV = "ROOFLINE_LANG"
"""The environment variable that chooses the language (the book sets it for each edition)."""
FONT_ENV = "ROOFLINE_CJK_FONT"
"""The environment variable naming an OpenType font with the CJK glyphs figures need."""

TABLES: dict[str, dict[str, str]] = {"zh_CN": ZH_CN}
"""Each translated language's table: English text (a :meth:`str.format` template) -> its
translation, with the same fields."""

CJK_LANGUAGES = frozenset({"zh_CN"})
"""Languages whose figures need the CJK font of :data:`FONT_ENV`."""


def language() -> str:
    """The language of the environment: ``$ROOFLINE_LANG``, or "en" when unset or empty."""
    chosen = os.environ.get(LANGUAGE_ENV, "") or "en"
    return _checked(chosen)


def _checked(lang: str) -> str:
    if lang not in LANGUAGES:
        allowed = ", ".join(LANGUAGES)
        raise ValueError(f"{LANGUAGE_ENV} must be one of {allowed}, got {lang!r}")
    return lang


def fields_of(template: str) -> frozenset[str]:
    """The names of a template's ``{fields}`` (``{{`` and ``}}`` are literal braces)."""
    return frozenset(
        name for _, name, _, _ in string.Formatter().parse(template) if name is not None
    )


def say(english: str, /, *, language: str | None = None, **fields: object) -> str:
    """``english`` in ``language`` (default: :func:`language`), formatted with ``fields``.

    English is the text itself; another language looks it up in :data:`TABLES` and raises
    KeyError for a text the table lacks. With fields, the text is a :meth:`str.format` template
    and every field it names must be given (and no other)."""
    lang = _checked(language or _env_language())
    text = english if lang == "en" else _translation(english, lang)
    if not fields:
        return text
    wanted = fields_of(english)
    if set(fields) != wanted:
        raise KeyError(f"say({english!r}) takes the fields {sorted(wanted)}, got {sorted(fields)}")
    return text.format(**fields)


def _env_language() -> str:
    return language()


def _translation(english: str, lang: str) -> str:
    try:
        return TABLES[lang][english]
    except KeyError:
        raise KeyError(
            f"no {lang} translation for {english!r}: add it to roofline_lib/words_{lang.lower()}.py"
        ) from None


def say_later(english: str, /) -> str:
    """``english`` unchanged: marks a text that is defined here and said elsewhere with
    :func:`say` (a regime, a menu label), so that the tests find it in the tables."""
    return english


def font_path() -> Path:
    """The CJK font of ``$ROOFLINE_CJK_FONT``; FileNotFoundError naming the variable when it is
    unset or names no file (a figure of empty boxes is worse than no figure)."""
    value = os.environ.get(FONT_ENV, "")
    if not value or not Path(value).is_file():
        raise FileNotFoundError(
            f"{FONT_ENV} must name an OpenType font with CJK glyphs to draw figures in "
            f"{language()} (the book's is book/_fonts/IBMPlexSansSC-Regular.otf, fetched by "
            f"`make setup`), got {value!r}"
        )
    return Path(value)


def use_language_font(language: str | None = None) -> None:
    """Make matplotlib draw text in ``language`` (default: :func:`language`). English changes
    nothing. A CJK language registers the font at ``$ROOFLINE_CJK_FONT`` and sets the font
    family to the font matplotlib uses now followed by it: each glyph comes from the first font
    that has it, so Latin text and numbers look as in English and Chinese comes from the CJK
    font. Figures saved as SVG keep ``svg.fonttype: path``: glyphs are drawn as paths, so no
    reader needs the font. Other weights of the same family beside the font are registered too
    (bold text). Call it before a figure is created (its text takes the font then)."""
    lang = _checked(language or _env_language())
    if lang not in CJK_LANGUAGES:
        return
    path = font_path()
    from matplotlib import font_manager, rcParams

    cjk = _family(path)
    families = list(rcParams["font.family"])
    if cjk in families:
        return
    for face in sorted(path.parent.glob("*.[ot]tf")):  # its other weights, for bold text
        if face == path or _family(face) == cjk:
            font_manager.fontManager.addfont(str(face))
    # a generic family ("sans-serif") names one font, without fallback: name the font itself
    latin = font_manager.findfont(font_manager.FontProperties(family=families))
    first = font_manager.FontProperties(fname=latin).get_name()
    rcParams["font.family"] = [first, cjk]
    logging.getLogger(font_manager.__name__).addFilter(_NearestWeight(cjk))


class _NearestWeight(logging.Filter):
    """Drops matplotlib's warning that the CJK family has no face of a text's exact weight (the
    book's font has Regular and SemiBold; bold text gets SemiBold), which a notebook would show
    under every cell that draws bold text."""

    def __init__(self, family: str) -> None:
        super().__init__()
        self.family = family

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not (
            message.startswith("findfont: Failed to find font weight")
            and f" for {self.family}, " in message
        )


def _family(path: Path) -> str:
    from matplotlib import font_manager

    return str(font_manager.FontProperties(fname=path).get_name())


def text_width(text: str) -> int:
    """``text``'s width in columns: 2 for a wide (CJK) character, 1 for any other. A figure's
    title is filled to it (:func:`roofline_lib.plots.fill`), a hint in a terminal wrapped to it
    (:func:`roofline_lib.selfcheck.i18n.wrap`)."""
    return sum(2 if unicodedata.east_asian_width(c) in ("W", "F") else 1 for c in text)


def math_text_family(text: str, language: str | None = None) -> str | None:
    """The font family to draw ``text`` with when it mixes mathtext (``$...$``) with CJK
    characters in a CJK ``language``, else None. mathtext draws the words around the math in one
    font, with no fallback, so Chinese beside ``$b_F$`` needs the CJK font itself (its Latin
    letters look slightly different there; the math keeps matplotlib's math fonts)."""
    lang = _checked(language or _env_language())
    maths = text.count("$") - text.count(r"\$")
    if lang not in CJK_LANGUAGES or maths < 2 or text_width(text) == len(text):
        return None
    return _family(font_path())
