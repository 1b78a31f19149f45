"""The book's translation catalogs: refresh them from the English sources and say what needs work.

``make translations`` runs this: it extracts every page's messages (Sphinx's gettext builder,
one ``.pot`` per page, into ``_build/gettext``), merges them into
``locales/<language>/LC_MESSAGES/book/<page>.po`` with sphinx-intl (a changed English message
becomes fuzzy or new, a removed one obsolete), and prints, page by page, how many messages are
translated, fuzzy, untranslated and obsolete, and every translation that lost a glued number, a
math expression, a cross-reference, a link target or inline code of its English message::

    .venv/bin/python -m tools.translations            # refresh and report (make translations)
    .venv/bin/python -m tools.translations --check    # report only; exit 1 if anything needs work

What must survive translation (:func:`protected`): each ``{glue...}`` reference, ``{eq}``
reference and substitution exactly; each ``$...$`` / ``$$...$$`` math; each inline code span;
the target of each ``{ref}``, ``{doc}``, ``{numref}``, ``{download}`` role (its link text is
translated); and each link's URL.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
LOCALES = ROOT / "locales"
LANGUAGES = ("zh_CN",)
"""The book's other editions, by Sphinx language code."""
GETTEXT_OUTPUT = ROOT / "_build" / "gettext-build"
"""Where the gettext build writes (its ``_build/gettext`` holds one ``.pot`` per page)."""

_ROLE = re.compile(r"\{(?P<role>[a-z:]*)\}`(?P<content>[^`]*)`")
_TARGETED = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>$", re.DOTALL)
_DISPLAY_MATH = re.compile(r"\$\$.+?\$\$", re.DOTALL)
_INLINE_MATH = re.compile(r"(?<![\\$])\$(?!\$)(?P<math>[^$]+?)(?<!\\)\$")
_CODE = re.compile(r"(?<![}`])`(?P<code>[^`]+)`")
_LINK = re.compile(r"\]\((?P<url>[^)\s]+)\)")
_SUBSTITUTION = re.compile(r"\{\{[^}]+\}\}")

LINK_ROLES = frozenset({"ref", "doc", "numref", "download", "term"})
"""Roles whose link text is translated and whose target is kept."""


def protected(text: str) -> Counter[str]:
    """What of a message must appear unchanged in its translation, with multiplicity."""
    found: Counter[str] = Counter()
    rest = text
    for match in _ROLE.finditer(text):
        role, content = match.group("role"), match.group("content")
        targeted = _TARGETED.match(content)
        if role in LINK_ROLES and targeted:
            found[f"{{{role}}}<{targeted.group('target')}>"] += 1
        elif role in LINK_ROLES:
            found[f"{{{role}}}<{content}>"] += 1
        else:
            found[match.group(0)] += 1
    rest = _ROLE.sub(" ", rest)
    for match in _DISPLAY_MATH.finditer(rest):
        found[match.group(0)] += 1
    rest = _DISPLAY_MATH.sub(" ", rest)
    for match in _INLINE_MATH.finditer(rest):
        found[f"${match.group('math')}$"] += 1
    rest = _INLINE_MATH.sub(" ", rest)
    for match in _CODE.finditer(rest):
        found[f"`{match.group('code')}`"] += 1
    for match in _LINK.finditer(rest):
        found[f"({match.group('url')})"] += 1
    for match in _SUBSTITUTION.finditer(rest):
        found[match.group(0)] += 1
    return found


def lost_in_translation(msgid: str, msgstr: str) -> list[str]:
    """What the translation lacks of its English (or has in addition): an empty list if none."""
    english, translated = protected(msgid), protected(msgstr)
    problems = [f"missing {token}" for token in (english - translated).elements()]
    problems += [f"extra {token}" for token in (translated - english).elements()]
    return problems


@dataclass
class PageReport:
    """One page's catalog against the page's current English messages."""

    page: str
    messages: int = 0
    translated: int = 0
    fuzzy: list[str] = field(default_factory=list)
    untranslated: list[str] = field(default_factory=list)
    obsolete: list[str] = field(default_factory=list)
    broken: list[tuple[str, list[str]]] = field(default_factory=list)
    """(msgid, what it lost) for each translation missing a protected part."""

    @property
    def complete(self) -> bool:
        return not (self.fuzzy or self.untranslated or self.obsolete or self.broken)


def _read(path: Path) -> Catalog:
    with path.open("rb") as stream:
        return read_po(stream)


def _ids(catalog: Catalog) -> set[str]:
    return {str(message.id) for message in catalog if message.id}


def page_report(page: str, english: Iterable[str], catalog: Catalog | None) -> PageReport:
    """Compare a page's English messages with its catalog (None: there is no catalog yet)."""
    report = PageReport(page)
    wanted = set(english)
    report.messages = len(wanted)
    entries = {str(m.id): m for m in catalog if m.id} if catalog is not None else {}
    for msgid in sorted(wanted):
        entry = entries.get(msgid)
        if entry is None or not entry.string:
            report.untranslated.append(msgid)
        elif entry.fuzzy:
            report.fuzzy.append(msgid)
        else:
            report.translated += 1
            lost = lost_in_translation(msgid, str(entry.string))
            if lost:
                report.broken.append((msgid, lost))
    if catalog is not None:
        report.obsolete = sorted(str(m.id) for m in catalog.obsolete.values() if m.id)
        report.obsolete += sorted(set(entries) - wanted)
    return report


def catalog_reports(pot_dir: Path, language: str, locales: Path = LOCALES) -> list[PageReport]:
    """A report for each page's ``.pot`` in ``pot_dir`` against ``locales/<language>``."""
    reports = []
    for pot in sorted(pot_dir.rglob("*.pot")):
        page = str(pot.relative_to(pot_dir).with_suffix(""))
        po = locales / language / "LC_MESSAGES" / f"{page}.po"
        reports.append(page_report(page, _ids(_read(pot)), _read(po) if po.is_file() else None))
    return reports


def extract(output: Path = GETTEXT_OUTPUT, config: Path | None = None) -> Path:
    """Run Sphinx's gettext builder on the book; return the folder of ``.pot`` files.

    Every page is read again (the doctrees are dropped; executed notebooks stay cached), so the
    catalogs never miss a change that Sphinx's incremental build would not notice."""
    for stale in (output / "_build" / ".doctrees", output / "_build" / "gettext"):
        shutil.rmtree(stale, ignore_errors=True)
    bin_dir = Path(sys.executable).parent
    subprocess.run(
        [
            str(bin_dir / "jupyter-book"),
            "build",
            str(ROOT),
            "--all",
            "--builder",
            "custom",
            "--custom-builder",
            "gettext",
            *(["--config", str(config)] if config else []),
            "--path-output",
            str(output),
        ],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return output / "_build" / "gettext"


def refresh(pot_dir: Path, language: str, locales: Path = LOCALES) -> None:
    """Merge the ``.pot`` files into the language's catalogs (sphinx-intl update), then drop
    obsolete entries: a changed English message is kept as a fuzzy entry with its old
    translation to start from, and git history keeps the rest."""
    bin_dir = Path(sys.executable).parent
    subprocess.run(
        [
            str(bin_dir / "sphinx-intl"),
            "update",
            "--pot-dir",
            str(pot_dir),
            "--locale-dir",
            str(locales),
            "--language",
            language,
            "--line-width",
            "0",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    for po in (locales / language / "LC_MESSAGES" / "book").rglob("*.po"):
        catalog = _read(po)
        if catalog.obsolete:
            catalog.obsolete.clear()
            with po.open("wb") as stream:
                write_po(stream, catalog, width=0)


def format_report(language: str, reports: list[PageReport]) -> str:
    """Coverage page by page, then every message that needs work."""
    lines = [f"{language}: messages translated / fuzzy / untranslated / obsolete / broken"]
    for r in reports:
        lines.append(
            f"  {r.page:40} {r.translated:4}/{r.messages:<4} {len(r.fuzzy):3} "
            f"{len(r.untranslated):4} {len(r.obsolete):3} {len(r.broken):3}"
        )
    total = sum(r.messages for r in reports)
    done = sum(r.translated - len(r.broken) for r in reports)
    lines.append(f"  {'all pages':40} {done:4}/{total:<4} complete")
    for r in reports:
        for kind, messages in (
            ("fuzzy (English changed)", r.fuzzy),
            ("untranslated", r.untranslated),
            ("obsolete (delete it)", r.obsolete),
        ):
            lines += [f"{r.page}: {kind}: {m[:100]!r}" for m in messages]
        lines += [f"{r.page}: lost {', '.join(lost)} in {m[:80]!r}" for m, lost in r.broken]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check", action="store_true", help="report on the catalogs without refreshing them"
    )
    parser.add_argument(
        "--pot-dir", type=Path, help="use these .pot files instead of extracting them again"
    )
    args = parser.parse_args(argv)
    pot_dir = args.pot_dir or extract()
    complete = True
    for language in LANGUAGES:
        if not args.check:
            refresh(pot_dir, language)
        reports = catalog_reports(pot_dir, language)
        print(format_report(language, reports))
        complete = complete and all(r.complete for r in reports)
    return 0 if complete else 1


if __name__ == "__main__":
    sys.exit(main())
