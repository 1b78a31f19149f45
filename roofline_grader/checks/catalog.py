"""The Chinese of every message the checks can show a student: ``locales/zh_CN/LC_MESSAGES/checks.po``.

The exercises are bilingual: a hint, a follow-through note and each line a visible check prints
are shown in English and then in Chinese (:mod:`roofline_lib.selfcheck.i18n`). The Chinese comes
from one gettext catalog, whose msgids are the English exactly as the checks write it:

* :func:`messages` lists every English text a check can show, found the way the visible checks
  find their cases: each check's ``verify`` is run without answers on a hidden plan and on its
  visible calls (:func:`~roofline_grader.checks.base.expectations`), which records its general
  hints, its misconceptions' hints and its follow-through notes; then the hints of its visible
  values, and the templates of what a finding, the visible checks and the student's kernel say when
  there is nothing to judge (``base.TEMPLATES``, ``selfcheck.MESSAGES``,
  ``selfcheck.answers.MESSAGES``), and, given by :mod:`roofline_grader.outputs.catalog`, what a
  feedback page says of its own;
* an entry whose msgid has ``{fields}`` is a template (flagged ``python-brace-format``): a hint
  written with a number or a name in it ("no line matches achievable FLOP/s for D = F = 4096…") is
  translated through its template, never entry by entry;
* :func:`problems` says, in words, what keeps the catalog from covering the checks: a message
  without a translation, a fuzzy or empty entry, an entry no check produces (obsolete), a
  translation that drops a template's field, a number or a name of its English, and a compiled
  catalog that is not the ``.po``'s. A test fails on any of them;
* :func:`write_compiled` writes the catalog the student's kernel reads,
  ``roofline_lib/selfcheck/checks.zh_CN.json`` (``make release`` runs it, through
  ``python -m roofline_grader.checks.visible``), so the student kit, which ships ``roofline_lib``
  alone, carries it.

``python -m roofline_grader.outputs.catalog`` reports the catalog's coverage; ``--update`` first adds
every message that has no entry yet (empty, to be translated) and refreshes each entry's comment of
where it is used.
"""

from __future__ import annotations

import io
import json
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from roofline_lib import selfcheck
from roofline_lib.selfcheck import answers
from roofline_lib.selfcheck.i18n import CATALOG_PATH, FIELD, Catalog

from . import PARTS, base, make_plan
from .base import expectations, label_words

if TYPE_CHECKING:  # babel is imported where it is used: the visible checks never need it
    from babel.messages.catalog import Catalog as BabelCatalog
    from babel.messages.catalog import Message

ROOT = Path(__file__).resolve().parents[2]
PO_PATH = ROOT / "locales" / "zh_CN" / "LC_MESSAGES" / "checks.po"
"""The catalog's source, edited by translators (gettext's format)."""

TEMPLATE_FLAG = "python-brace-format"
CLI = "roofline_grader.outputs.catalog"
"""The command that updates and reports the catalog (it adds what the feedback page says)."""
KEPT = re.compile(
    r"(?!e\.g\b|i\.e\b)[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+"  # np.maximum
    r"|[A-Za-z0-9]*_[A-Za-z0-9_]+"  # critical_batch, T_math, own:_…
    r"|\d+(?:[.,:]\d+)*"  # 2, 1,979, 2:4
)
"""What a translation keeps exactly as its English has it: names from code, and numbers."""


def _where_checks() -> Iterable[tuple[str, str]]:
    """(text, grade id) for every hint, mistake and note the checks record, and visible values."""
    for grade_id, part in PARTS.items():
        check = part.check
        if check is None:
            continue
        plans = [make_plan(check, "catalog")]
        if check.visible_calls:
            plans.append({p.key: p for p in check.visible_calls})
        for plan in plans:
            for expected in expectations(check, plan):
                yield expected.hint, grade_id
                yield label_words(expected.label)[2], grade_id  # a feedback page's words
                yield from ((hint, grade_id) for hint, _ in expected.mistakes)
                yield from ((note, grade_id) for note in expected.notes)
        yield from ((value.hint, grade_id) for value in check.visible_values)


def sources() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The modules whose templates and fixed messages a student may see, with them."""
    return (
        (
            "roofline_grader.checks.base",
            (*base.TEMPLATES, base.FEEDBACK_INTRO, base.NOT_GRADED_YET),
        ),
        ("roofline_lib.selfcheck", selfcheck.MESSAGES),
        ("roofline_lib.selfcheck.answers", answers.MESSAGES),
    )


Sources = Iterable[tuple[str, Iterable[str]]]
"""(module, the texts it shows a student): what rooms above the checks add (the feedback page's
words, :mod:`roofline_grader.outputs.catalog`), since the checks may not import them."""


def messages(shown: Sources = ()) -> dict[str, tuple[str, ...]]:
    """Every English text the checks (and the ``shown`` sources) can show a student, with where
    it comes from (grade ids, or the module of a template), sorted."""
    found: dict[str, set[str]] = defaultdict(set)
    for text, where in _where_checks():
        if text:
            found[text].add(where)
    for module, templates in (*sources(), *shown):
        for template in templates:
            found[template].add(module)
    return {text: tuple(sorted(where)) for text, where in sorted(found.items())}


# ----------------------------------------------------------------------------------------------
# The .po file
# ----------------------------------------------------------------------------------------------


def read_po(path: Path = PO_PATH) -> BabelCatalog:
    """The catalog at ``path`` (babel's ``Catalog``)."""
    from babel.messages.pofile import read_po as babel_read_po

    with path.open("rb") as f:
        return babel_read_po(f, locale="zh_CN", domain="checks")


def write_po(po: BabelCatalog, path: Path = PO_PATH) -> None:
    from babel.messages.pofile import write_po as babel_write_po

    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    babel_write_po(buffer, po, width=0, sort_output=True, omit_header=False)
    path.write_bytes(buffer.getvalue())


HEADER = """\
Chinese (zh_CN) of every message the exercises' checks can show a student.
msgid: the English exactly as a check writes it; an entry flagged python-brace-format is a
template whose {fields} are filled in when it is shown. Keep names from code and numbers exact.
Check: python -m roofline_grader.checks.catalog (a test runs it); compiled by make release."""


def new_po() -> BabelCatalog:
    """An empty catalog with the course's header."""
    from babel.messages.catalog import Catalog as BabelCatalog

    po = BabelCatalog(
        locale="zh_CN",
        domain="checks",
        project="roofline-course checks",
        version="0.1.0",
        copyright_holder="the Roofline course",
        last_translator="the Roofline course",
        language_team="zh_CN",
        fuzzy=False,
    )
    po.header_comment = "\n".join(f"# {line}" for line in HEADER.splitlines())
    return po


@dataclass(frozen=True)
class Entry:
    """One entry of the catalog, its texts as text (babel's ids may be a plural's tuple; this
    catalog has no plural entries).

    Attributes:
        english: the msgid, the English exactly as a check writes it.
        chinese: the msgstr, its Chinese ("" while untranslated).
        fuzzy: flagged fuzzy (the English changed since the translation).
        flags: every flag of the entry.
        message: babel's own entry, to set its comment.
    """

    english: str
    chinese: str
    fuzzy: bool
    flags: frozenset[str]
    message: Message

    @classmethod
    def of(cls, message: Message) -> Entry:
        if not isinstance(message.id, str) or not isinstance(message.string, str):
            raise ValueError(f"the catalog has no plural entries, got {message.id!r}")
        return cls(message.id, message.string, message.fuzzy, frozenset(message.flags), message)


def _entries(po: BabelCatalog) -> list[Entry]:
    """The catalog's entries, without its header (the entry whose id is empty)."""
    return [Entry.of(m) for m in po if m.id]


def is_template(msgid: str) -> bool:
    """Whether an entry is a template: its English has ``{fields}``."""
    return FIELD.search(msgid) is not None


def compiled_text(po: BabelCatalog) -> str:
    """The compiled catalog (JSON): every translated entry that is not fuzzy, messages apart from
    templates."""
    data: dict[str, dict[str, str]] = {"messages": {}, "templates": {}}
    for m in _entries(po):
        if m.chinese and not m.fuzzy:
            data["templates" if is_template(m.english) else "messages"][m.english] = m.chinese
    return json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def write_compiled(po_path: Path = PO_PATH, path: Path = CATALOG_PATH) -> Path:
    """Compile the ``.po`` at ``po_path`` into the catalog the visible checks read."""
    path.write_text(compiled_text(read_po(po_path)), encoding="utf-8")
    return path


def update(po_path: Path = PO_PATH, shown: Sources = ()) -> list[str]:
    """Add an empty entry for every message the catalog cannot translate yet, and set each
    entry's comment to where it is used (the messages it translates, a template's instances and
    the values filled into them included); returns the messages added."""
    po = read_po(po_path) if po_path.is_file() else new_po()
    found = messages(shown)
    translator = Catalog.from_json(compiled_text(po))
    added: list[str] = []
    uses: defaultdict[str, set[str]] = defaultdict(set)
    for text, where in found.items():
        chinese, entries = translator.lookup(text)
        if po.get(text) is None and chinese is None:
            po.add(text, "", flags=[TEMPLATE_FLAG] if is_template(text) else [])
            added.append(text)
            entries = frozenset({text})
        for entry in entries | ({text} if po.get(text) is not None else set()):
            uses[entry].update(where)
    for m in _entries(po):
        if uses.get(m.english):
            m.message.auto_comments = [", ".join(sorted(uses[m.english]))]
    write_po(po, po_path)
    return added


# ----------------------------------------------------------------------------------------------
# What keeps the catalog from covering the checks
# ----------------------------------------------------------------------------------------------


def _fields(text: str) -> list[str]:
    return sorted(FIELD.findall(text))


def lost_in_translation(english: str, chinese: str) -> list[str]:
    """Names from code and numbers of ``english`` that ``chinese`` lacks (fields aside)."""
    plain = FIELD.sub(" ", english)
    return [kept for kept in dict.fromkeys(KEPT.findall(plain)) if kept not in chinese]


def _ambiguous(text: str, translator: Catalog) -> str | None:
    """Why ``text`` would be translated through another template than its own (a template is its
    own instance; the most specific match wins, so two as specific are ambiguous)."""
    if text in translator.messages:
        return None
    matching = [t for t in translator.templates if t.pattern.fullmatch(text)]
    if is_template(text) and matching and matching[0].english != text:
        return f"the template {text!r} is taken for an instance of {matching[0].english!r}"
    tied = [t.english for t in matching if t.literal_length == matching[0].literal_length]
    if not is_template(text) and len(tied) > 1:
        return f"{text!r} is an instance of several templates: {tied}"
    return None


def problems(
    po_path: Path = PO_PATH, compiled: Path = CATALOG_PATH, shown: Sources = ()
) -> list[str]:
    """Everything that keeps the catalog from giving every message (the checks' and ``shown``)
    its Chinese, in words; empty when the catalog is complete."""
    if not po_path.is_file():
        return [f"{po_path.relative_to(ROOT)} is missing: run `python -m {CLI} --update`"]
    po = read_po(po_path)
    out = []
    for m in _entries(po):
        if not m.chinese:
            out.append(f"untranslated: {m.english!r}")
        elif m.fuzzy:
            out.append(f"fuzzy (the English changed): {m.english!r}")
        elif is_template(m.english) and _fields(m.english) != _fields(m.chinese):
            out.append(f"the translation's fields are not {_fields(m.english)}: {m.english!r}")
        elif lost := lost_in_translation(m.english, m.chinese):
            out.append(f"the translation lacks {', '.join(lost)}: {m.english!r}")
        if is_template(m.english) != (TEMPLATE_FLAG in m.flags):
            out.append(f"flag it {TEMPLATE_FLAG} if and only if it has fields: {m.english!r}")
    translator = Catalog.from_json(compiled_text(po))
    used: set[str] = set()
    for text in messages(shown):
        chinese, entries = translator.lookup(text)
        used |= entries
        if chinese is None and po.get(text) is None:
            out.append(f"no translation: {text!r}")
        if (why := _ambiguous(text, translator)) is not None:
            out.append(why)
    out += [
        f"obsolete (no check says it): {m.english!r}" for m in _entries(po) if m.english not in used
    ]
    if not compiled.is_file() or compiled.read_text(encoding="utf-8") != compiled_text(po):
        out.append(f"{compiled.name} is not the compiled {po_path.name}: run `make release`")
    return out


def coverage(po_path: Path = PO_PATH, shown: Sources = ()) -> str:
    """One line: messages, entries, translated, fuzzy, untranslated."""
    po = read_po(po_path)
    entries = _entries(po)
    translated = sum(bool(m.chinese) and not m.fuzzy for m in entries)
    templates = sum(is_template(m.english) for m in entries)
    return (
        f"checks.po: {len(entries)} entries ({templates} templates), {translated} translated, "
        f"{sum(bool(m.fuzzy) for m in entries)} fuzzy, "
        f"{sum(not m.chinese for m in entries)} untranslated; "
        f"{len(messages(shown))} messages the checks can show"
    )
