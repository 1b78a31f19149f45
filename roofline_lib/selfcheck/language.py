"""The language a student reads the exercises in: one at a time, the other a click away.

The release is one set of notebooks for every student (one nbgrader assignment, one gradebook):
each statement cell holds its English, a rule (:data:`RULE`) and its Chinese. A student chooses
English or 中文 once (the kit's ``start_lab.py --language``, remembered in the work folder's
:data:`SETTING_FILE`, defaulting from the system's locale), and from then on

* JupyterLab shows each statement in that language, with the other folded below it in a
  ``<details>`` element (:func:`shown`; the lab's contents manager, :mod:`.lab`, does it as a
  notebook is opened, and :func:`released` undoes it as it is saved, so the file on disk, which
  Validate and the grader read, stays exactly as released);
* the visible checks print their lines in that language only (:func:`chosen_language`, which the
  kernel reads from :data:`LANGUAGE_ENV` or the setting file);
* the feedback page is written in it (the contents manager records the language in the
  notebook's metadata, :data:`METADATA_KEY`, which a submission carries to the grader).

With no choice made anywhere, everything stays bilingual, as released.

Standard library only: the kit's launcher and a student's kernel both read this module.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

LANGUAGES = ("en", "zh_CN")
"""The languages a student can choose: English, and simplified Chinese."""
LANGUAGE_NAMES = {"en": "English", "zh_CN": "中文"}
"""Each language as its readers name it (the fold's label)."""
LANGUAGE_ENV = "ROOFLINE_LAB_LANGUAGE"
"""The environment variable the launcher sets for JupyterLab and so for every kernel."""
SETTING_FILE = ".roofline-language"
"""The file in the work folder that remembers the choice (one line: ``en`` or ``zh_CN``)."""
METADATA_KEY = "roofline_language"
"""The notebook metadata entry that records the language the student read it in."""
RULE = "\n\n---\n\n"
"""What parts a statement cell's English from its Chinese in the release: a horizontal rule."""

_FOLD = re.compile(
    r"\A(?P<first>.*)\n\n<details class=\"other-language\" lang=\"(?P<lang>[A-Za-z-]+)\">"
    r"<summary>(?P<label>[^<]*)</summary>\n\n(?P<second>.*)\n\n</details>\Z",
    re.S,
)
"""A statement as :func:`shown` writes it: the chosen language, then the other one folded."""


def checked_language(value: str, where: str) -> str:
    """``value`` as one of :data:`LANGUAGES` (``zh``, ``zh-CN`` and ``zh_cn`` are ``zh_CN``);
    ValueError naming ``where`` it came from and the allowed values otherwise."""
    text = value.strip()
    if text.lower().replace("-", "_") in ("zh", "zh_cn", "zh_hans", "中文"):
        return "zh_CN"
    if text.lower() in ("en", "english"):
        return "en"
    allowed = ", ".join(LANGUAGES)
    raise ValueError(f"{where} must be one of {allowed} (got {value!r})")


def remembered_language(folder: Path) -> str | None:
    """The language :data:`SETTING_FILE` in ``folder`` or the nearest folder above it names, or
    None when there is none (a file that names no language is ignored)."""
    for place in (folder, *folder.parents):
        setting = place / SETTING_FILE
        try:
            text = setting.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        try:
            return checked_language(text, str(setting))
        except ValueError:
            return None
    return None


LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE")
"""The environment variables that name the system's language, in POSIX's order of precedence."""


def system_language(environ: Mapping[str, str] | None = None) -> str:
    """``zh_CN`` when the system speaks Chinese (a ``zh`` locale in :data:`LOCALE_VARIABLES`, or
    on Windows a Chinese user locale), else ``en``."""
    env = os.environ if environ is None else environ
    for name in LOCALE_VARIABLES:
        value = env.get(name, "").strip()
        if value and value not in ("C", "POSIX") and not value.startswith("C."):
            return "zh_CN" if value.lower().startswith("zh") else "en"
    import locale

    code = locale.getlocale()[0] or ""
    return "zh_CN" if code.lower().startswith(("zh", "chinese")) else "en"


def chosen_language(
    environ: Mapping[str, str] | None = None, folder: Path | None = None
) -> str | None:
    """The student's language: :data:`LANGUAGE_ENV` if set (ValueError when it names no
    language), else the setting file nearest ``folder`` (default: the working directory, which
    in a kernel is the notebook's folder), else None: both languages."""
    env = os.environ if environ is None else environ
    if env.get(LANGUAGE_ENV, "").strip():
        return checked_language(env[LANGUAGE_ENV], LANGUAGE_ENV)
    return remembered_language(Path.cwd() if folder is None else folder)


def languages_of(source: str) -> tuple[str, str] | None:
    """(English, Chinese) of a released statement cell, or None for any other text."""
    english, rule, chinese = source.partition(RULE)
    if not rule or not english.strip() or not chinese.strip() or RULE in chinese:
        return None
    return english, chinese


def shown(source: str, language: str) -> str:
    """A released statement in ``language``, the other language folded below it::

        ## (a) 搬运的字节数 — 2 分
        ...
        <details class="other-language" lang="en"><summary>English</summary>

        ## (a) Bytes moved — 2 points
        ...

        </details>

    Any other text (a code cell's, a student's answer, a statement already shown) is returned as
    it is. :func:`released` undoes it."""
    parts = languages_of(source)
    if parts is None:
        return source
    english, chinese = parts
    first, second, other = (
        (chinese, english, "en") if language == "zh_CN" else (english, chinese, "zh_CN")
    )
    lang = other.replace("_", "-")
    label = html.escape(LANGUAGE_NAMES[other])
    return (
        f'{first}\n\n<details class="other-language" lang="{lang}"><summary>{label}</summary>'
        f"\n\n{second}\n\n</details>"
    )


def released(source: str) -> str:
    """A statement as released (English, rule, Chinese) from the form :func:`shown` writes it in;
    any other text as it is."""
    fold = _FOLD.match(source)
    if fold is None:
        return source
    if fold["lang"] == "en":
        return fold["second"] + RULE + fold["first"]
    return fold["first"] + RULE + fold["second"]


def _markdown_cells(notebook: Mapping[str, Any]) -> list[dict[str, Any]]:
    cells = notebook.get("cells")
    return [c for c in cells if c.get("cell_type") == "markdown"] if isinstance(cells, list) else []


def _text(source: object) -> str | None:
    if isinstance(source, list) and all(isinstance(line, str) for line in source):
        return "".join(source)
    return source if isinstance(source, str) else None


def show_notebook(notebook: dict[str, Any], language: str) -> None:
    """Every released statement of ``notebook`` (nbformat's dict) :func:`shown` in ``language``,
    in place."""
    for cell in _markdown_cells(notebook):
        text = _text(cell.get("source"))
        if text is not None:
            cell["source"] = shown(text, language)


def release_notebook(notebook: dict[str, Any], language: str | None) -> None:
    """Every statement of ``notebook`` back as released, in place, and the ``language`` the
    student read it in recorded in its metadata (:data:`METADATA_KEY`; nothing when None)."""
    for cell in _markdown_cells(notebook):
        text = _text(cell.get("source"))
        if text is not None:
            cell["source"] = released(text)
    if language is not None and isinstance(notebook.get("metadata"), dict):
        notebook["metadata"][METADATA_KEY] = language


def notebook_language(notebook: Mapping[str, Any]) -> str | None:
    """The language a notebook records it was read in (:data:`METADATA_KEY`), or None."""
    metadata = notebook.get("metadata")
    value = metadata.get(METADATA_KEY) if isinstance(metadata, Mapping) else None
    if not isinstance(value, str):
        return None
    try:
        return checked_language(value, METADATA_KEY)
    except ValueError:
        return None


__all__ = [
    "LANGUAGES",
    "LANGUAGE_ENV",
    "METADATA_KEY",
    "RULE",
    "SETTING_FILE",
    "checked_language",
    "chosen_language",
    "languages_of",
    "notebook_language",
    "release_notebook",
    "released",
    "remembered_language",
    "show_notebook",
    "shown",
    "system_language",
]
