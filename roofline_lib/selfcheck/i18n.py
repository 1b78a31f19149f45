"""The Chinese of what the checks tell a student: every hint, note and line is shown in English and
in Chinese (中文), from one catalog.

The catalog's source is the gettext catalog ``locales/zh_CN/LC_MESSAGES/checks.po`` of the course
repository (msgid: the English exactly as a check writes it). ``make release`` compiles it into
``checks.zh_CN.json`` beside this module, which travels with ``roofline_lib`` wherever it goes (the
course's venv, the student kit's wheel, the grader), so a student's kernel needs no gettext
tooling, only the standard library. An entry is either

* a **message**, translated as it stands ("an int8 element is one byte, not two"), or
* a **template** whose ``{name}`` fields are filled in when it is shown ("no answer came back for
  {name}"). An English text that is an instance of a template is translated by matching it
  against the template; each filled-in value is itself translated when the catalog has it (a
  carried note's "part (a)"), and otherwise shown as it is (a function name, a number).

The English is never changed: :func:`bilingual` appends the Chinese, so every English hint a test or
a student's habit relies on reads exactly as before. A text the catalog lacks is shown in English
alone.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..words import text_width

CATALOG_PATH = Path(__file__).with_name("checks.zh_CN.json")
"""The compiled catalog: ``{"messages": {english: chinese}, "templates": {english: chinese}}``."""

FIELD = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
"""A template's field, ``{name}`` (str.format's syntax, without conversions or format specs)."""


@dataclass(frozen=True)
class Template:
    """An English template, the regular expression its instances match, and its Chinese."""

    english: str
    chinese: str
    pattern: re.Pattern[str]

    @property
    def literal_length(self) -> int:
        """How much fixed text the template has: the longer, the more specific a match is."""
        return len(FIELD.sub("", self.english))


def template_pattern(english: str) -> re.Pattern[str]:
    """The expression an instance of ``english`` matches in full; a field used twice must be
    filled in with the same text both times."""
    parts, seen, start = [], set(), 0
    for field in FIELD.finditer(english):
        parts.append(re.escape(english[start : field.start()]))
        name = field.group(1)
        parts.append(f"(?P={name})" if name in seen else f"(?P<{name}>.+?)")
        seen.add(name)
        start = field.end()
    parts.append(re.escape(english[start:]))
    return re.compile("".join(parts), re.DOTALL)


@dataclass(frozen=True)
class Catalog:
    """The compiled catalog, ready to translate with."""

    messages: dict[str, str]
    templates: tuple[Template, ...]

    @classmethod
    def from_json(cls, text: str) -> Catalog:
        data = json.loads(text)
        templates = [
            Template(english, chinese, template_pattern(english))
            for english, chinese in data.get("templates", {}).items()
        ]
        templates.sort(key=lambda t: -t.literal_length)
        return cls(dict(data.get("messages", {})), tuple(templates))

    def lookup(self, text: str) -> tuple[str | None, frozenset[str]]:
        """The Chinese of ``text`` (None when the catalog has none) and the English of every entry
        it used: the message or template itself, and those of the values filled in."""
        used: set[str] = set()
        return self._translate(text, used), frozenset(used)

    def _translate(self, text: str, used: set[str]) -> str | None:
        if text in self.messages:
            used.add(text)
            return self.messages[text]
        for template in self.templates:
            match = template.pattern.fullmatch(text)
            if match is None:
                continue
            used.add(template.english)
            values = {k: self._translate(v, used) or v for k, v in match.groupdict().items()}
            return template.chinese.format(**values)
        return None

    def template(self, english: str) -> str | None:
        """The Chinese of the template ``english`` itself (its fields not filled in)."""
        return next((t.chinese for t in self.templates if t.english == english), None)


@functools.cache
def catalog() -> Catalog:
    """The catalog shipped with the library (empty if the file is missing)."""
    if not CATALOG_PATH.is_file():
        return Catalog({}, ())
    return Catalog.from_json(CATALOG_PATH.read_text(encoding="utf-8"))


def translate(text: str) -> str | None:
    """The Chinese of an English message, or of an instance of a template; None when the catalog
    has neither, or when the Chinese would read the same as the English."""
    chinese, _ = catalog().lookup(text)
    return None if chinese is None or chinese == text else chinese


def zh(template: str, **values: str) -> str | None:
    """The Chinese of ``template`` with its fields filled in by ``values`` (given as they are to
    be shown in Chinese); None when the catalog lacks the template."""
    chinese = catalog().template(template)
    return None if chinese is None else chinese.format(**values)


def bilingual(text: str, separator: str = "\n") -> str:
    """``text`` followed by its Chinese (``English\\n中文``), or ``text`` alone when there is none."""
    chinese = translate(text)
    return text if chinese is None else f"{text}{separator}{chinese}"


# ----------------------------------------------------------------------------------------------
# Wrapping Chinese lines
# ----------------------------------------------------------------------------------------------

_NO_BREAK_BEFORE = set("，。；：、）！？”’」』》】,.;:!?)")


display_width = text_width
"""Columns ``text`` takes in a terminal: two for each wide (CJK) character, one otherwise."""


def _tokens(text: str) -> Iterator[str]:
    """Words of Latin text (with the spaces after them) and single wide characters; a
    punctuation mark that must not start a line stays with what precedes it."""
    tokens: list[str] = []
    for piece in re.findall(r"[^\s\u2e80-\uffef]+\s*|[\u2e80-\uffef]\s*|\s+", text):
        if tokens and piece[0] in _NO_BREAK_BEFORE:
            tokens[-1] += piece
        else:
            tokens.append(piece)
    yield from tokens


def wrap(text: str, width: int, indent: str = "") -> list[str]:
    """Lines of at most ``width`` columns (a CJK character takes two), each after the first
    starting with ``indent``; breaks between words and between CJK characters."""
    lines, line = [], ""
    for token in _tokens(text):
        if line.strip() and display_width(line + token.rstrip()) > width:
            lines.append(line.rstrip())
            line = indent
        line += token
    if line.strip():
        lines.append(line.rstrip())
    return lines


__all__ = [
    "CATALOG_PATH",
    "Catalog",
    "Template",
    "bilingual",
    "catalog",
    "display_width",
    "template_pattern",
    "translate",
    "wrap",
    "zh",
]
