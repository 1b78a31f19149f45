"""Sphinx extension: the book's editions in other languages (Sphinx gettext, ``locales/``).

The Chinese edition is the same MyST sources built with ``language: zh_CN``: Sphinx replaces
each paragraph, title, caption and table cell by its translation from
``locales/<language>/LC_MESSAGES/<page>.po``; code cells, their outputs, glued numbers and
figures are the English edition's own (figures are drawn again with the language's words, see
:mod:`roofline_lib.words`).

What this extension adds to stock Sphinx internationalisation:

* **Glue in translations.** A translated message is parsed again on its own (Sphinx's
  ``publish_msgstr``), without the notebook whose outputs ``{glue:text}`` reads; myst-nb then
  finds no glue data. :class:`TranslatingNbParser` lends the page's own notebook renderer to
  those re-parses, so a number glued in a translation is the library's, as in English.
* **Editions and the language switch.** :data:`EDITIONS` lists the book's languages and where
  each is published under the English site (Chinese: ``zh/``). Every page of every edition gets
  a header button to the same page of each other edition (``static/language-switch.js`` keeps
  the reader's place: the URL's ``#anchor`` while its target is on screen, else the section in
  view; section ids and labels are the English ones in every edition).
* **Fonts the reader need not have.** A Chinese edition serves a subset of IBM Plex Sans SC, and
  of DejaVu Sans for the few characters Plex lacks (superscript digits, µ, −, ✓, ✗), both
  fetched from the npm registry by tools/fetch_static.py into ``book/_fonts/``. At the end of the
  build every character a reader can be shown (:func:`shown_characters`: the pages, the search
  page and index, the edition's own scripts and stylesheets) is cut from them into
  ``_static/cjk/`` as WOFF, and ``cjk.css`` puts them first in the theme's font stacks; a
  character that neither font has is a warning, so no character falls back to whatever the
  reader's system has, and the layout does not depend on it.
* **Drift fails the build.** In a translated edition every translatable message of every page
  must have a current translation: a message that is missing, fuzzy (Sphinx skips fuzzy
  entries), or left over from changed English is a warning, so ``-W`` fails the build until the
  catalog is updated (``make translations`` says what needs work).
"""

from __future__ import annotations

import functools
import html
import json
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
from babel.messages.pofile import read_po
from docutils import nodes
from myst_nb.ext.glue.directives import PasteMarkdownDirective
from myst_nb.sphinx_ import Parser as NbParser
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging
from sphinx.util.nodes import extract_messages

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Edition:
    """One language of the book: its Sphinx language code, the folder it is published in under
    the English site's root ("" for English), the switch's label in its own language, and the
    Sphinx settings that are words (the book's title, the "click to show" of a collapsed box)."""

    language: str
    folder: str
    label: str
    settings: tuple[tuple[str, str], ...] = ()

    @property
    def html_lang(self) -> str:
        """The BCP 47 tag of ``<html lang>`` (``zh-CN``; Sphinx's code is ``zh_CN``)."""
        return self.language.replace("_", "-")


EDITIONS = (
    Edition("en", "", "English"),
    Edition(
        "zh_CN",
        "zh",
        "中文",
        (
            ("html_title", "Roofline 模型：时间花在哪里"),
            ("author", "Roofline 课程"),
            ("togglebutton_hint", "点击展开"),
            ("togglebutton_hint_hide", "点击收起"),
            # myst-nb's button of a hidden code cell; the book hides only cells' source
            # (hide-input), and myst-nb would put the English "source" in for {type}
            ("nb_code_prompt_show", "显示代码"),
            ("nb_code_prompt_hide", "隐藏代码"),
        ),
    ),
)
"""The book's editions; the first is the original, the others are built from its catalogs."""

FONT_DIR = Path(__file__).resolve().parents[1] / "_fonts"
"""The edition's fonts, fetched by tools/fetch_static.py (WOFF, and OpenType for matplotlib)."""
FONT_FAMILY = "IBM Plex Sans SC"
SYMBOL_FAMILY = "DejaVu Sans (course subset)"
"""The served DejaVu Sans, named apart from a reader's own DejaVu Sans."""


@dataclass(frozen=True)
class FontFace:
    """One served face: its WOFF file in :data:`FONT_DIR`, its CSS family and weight."""

    file: str
    family: str
    weight: int


FONT_FACES = (
    FontFace("IBMPlexSansSC-Regular.woff", FONT_FAMILY, 400),
    FontFace("IBMPlexSansSC-SemiBold.woff", FONT_FAMILY, 600),
    FontFace("DejaVuSans-Regular.woff", SYMBOL_FAMILY, 400),
    FontFace("DejaVuSans-Bold.woff", SYMBOL_FAMILY, 700),
)
"""The faces a CJK edition serves, in the order of the font stack: the CJK font, then the font
for the characters it lacks (only those are cut from it). A character goes to the first family
whose every face has it."""
EMOJI_FONTS = '"Apple Color Emoji", "Segoe UI Emoji", "Segoe UI Symbol", "Noto Color Emoji"'
"""The end of pydata-sphinx-theme's font stack, kept after ours."""
STATIC = Path(__file__).parent / "static"
TEMPLATES = Path(__file__).parent / "templates"
SWITCH_TEMPLATE = "language-switch.html"
SWITCH_TITLE = {"en": "Read this page in English", "zh_CN": "阅读本页的中文版"}
"""The switch's tooltip, in the language it leads to."""


def edition(language: str | None) -> Edition:
    """The edition of a Sphinx language code (None or "en": English)."""
    for candidate in EDITIONS:
        if candidate.language == (language or "en"):
            return candidate
    allowed = ", ".join(e.language for e in EDITIONS)
    raise ValueError(f"language must be one of {allowed}, got {language!r}")


def edition_url(fromdoc: str, todoc: str, current: Edition, target: Edition) -> str:
    """The relative URL from page ``fromdoc`` of ``current`` to page ``todoc`` of ``target``."""
    up = "../" * fromdoc.count("/")
    if current.folder:
        up += "../" * (current.folder.count("/") + 1)
    down = f"{target.folder}/" if target.folder else ""
    return f"{up}{down}{todoc}.html"


def switch_url(pagename: str, current: Edition, target: Edition) -> str:
    """The relative URL from ``pagename`` in ``current`` to the same page in ``target``."""
    return edition_url(pagename, pagename, current, target)


EDITION_LABEL = "edition_label"


def edition_role(
    name: str,
    rawtext: str,
    text: str,
    lineno: int,
    inliner: Any,
    options: dict[str, Any] | None = None,
    content: list[str] | None = None,
) -> tuple[list[nodes.Node], list[nodes.system_message]]:
    """``{edition}`sec-label```: links to the section ``sec-label`` in each other edition,
    labelled with that edition's name (English: "中文"; Chinese: "English")."""
    node = nodes.inline(rawtext, "", classes=["edition-links"])
    node[EDITION_LABEL] = text.strip()
    return [node], []


def _resolve_edition_links(app: Sphinx, doctree: nodes.document, fromdoc: str) -> None:
    current = edition(app.config.language)
    labels = app.env.domaindata["std"]["labels"]
    for node in list(doctree.findall(nodes.inline)):
        label = node.get(EDITION_LABEL)
        if label is None:
            continue
        if label not in labels:
            logger.warning(
                "{edition}: no section is labelled %r", label, location=node, type="i18n"
            )
            continue
        todoc, anchor, _title = labels[label]
        for other in EDITIONS:
            if other == current:
                continue
            url = f"{edition_url(fromdoc, todoc, current, other)}#{anchor}"
            node += nodes.reference(
                "", other.label, refuri=url, classes=["edition-link"], hreflang=other.html_lang
            )


def _language_switch(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree: object
) -> None:
    current = edition(app.config.language)
    context["language"] = current.html_lang
    context["course_editions"] = [
        {
            "url": switch_url(pagename, current, other),
            "label": other.label,
            "lang": other.html_lang,
            "title": SWITCH_TITLE[other.language],
        }
        for other in EDITIONS
        if other != current
    ]


def _add_switch_template(app: Sphinx, config: Any) -> None:
    """Put the switch first among the page header's buttons (sphinx-book-theme's
    ``article_header_end``), from this extension's template folder."""
    if config.html_theme != "sphinx_book_theme":
        return
    config.templates_path = [*config.templates_path, str(TEMPLATES)]
    options = dict(config.html_theme_options or {})
    end = options.get("article_header_end") or ["article-header-buttons.html"]
    if isinstance(end, str):
        end = [item.strip() for item in end.split(",")]
    if SWITCH_TEMPLATE not in end:
        options["article_header_end"] = [SWITCH_TEMPLATE, *end]
    config.html_theme_options = options


_CJK_CHAR = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


def _cjk(char: str) -> bool:
    return bool(char) and bool(_CJK_CHAR.match(char))


def _tighten_cjk_spaces(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """In a CJK edition, no space between two Chinese characters across an inline element's
    edge: the translations put a space around every role (right for a number or a Latin name, 在
    H100 上需要 1.01 ms), but where the glued value, the link's text or the bold word is
    Chinese (处于计算受限状态, 见第 4 章), a browser would show the space as a gap."""
    if not _is_cjk(app.config.language):
        return
    for node in list(doctree.findall(nodes.Inline)):
        if not isinstance(node, nodes.Element) or node.parent is None:
            continue
        if isinstance(node, (nodes.literal, nodes.math)):
            continue
        text = node.astext()
        if not text:
            continue
        parent = node.parent
        index = parent.index(node)
        before = parent[index - 1] if index > 0 else None
        after = parent[index + 1] if index + 1 < len(parent) else None
        if _cjk(text[0]) and isinstance(before, nodes.Text):
            kept = before.rstrip(" \n")
            if kept != before and _cjk(kept[-1:]):
                parent.replace(before, nodes.Text(kept))
        if _cjk(text[-1]) and isinstance(after, nodes.Text):
            kept = after.lstrip(" \n")
            if kept != after and _cjk(kept[:1]):
                parent.replace(after, nodes.Text(kept))
        # a space just inside the element's edge: sphinx-exercise's "解答" + link " 练习 1"
        inner = list(node.findall(nodes.Text))
        if before is not None and _cjk(before.astext()[-1:]) and inner:
            kept = inner[0].lstrip(" ")
            if kept != inner[0] and _cjk(kept[:1]):
                inner[0].parent.replace(inner[0], nodes.Text(kept))
        if after is not None and _cjk(after.astext()[:1]) and inner:
            kept = inner[-1].rstrip(" ")
            if kept != inner[-1] and _cjk(kept[-1:]):
                inner[-1].parent.replace(inner[-1], nodes.Text(kept))


def _is_cjk(language: str | None) -> bool:
    return bool(language) and str(language).split("_")[0] in ("zh", "ja", "ko")


def _edition_settings(app: Sphinx, config: Any) -> None:
    for name, value in edition(config.language).settings:
        config[name] = value


def _font_css(app: Sphinx, config: Any) -> None:
    if not _is_cjk(config.language):
        return
    app.add_css_file("cjk/cjk.css")


NOT_SHOWN = ("_static/vendor/", "_static/cjk/", "_images/", "_sources/")
"""Parts of a built site whose text no reader sees in the page's font: third-party bundles
(MathJax's speech maps and the widget manager hold other languages' data), the served fonts,
figures (matplotlib writes their text as paths) and page sources."""
SHOWN_SUFFIXES = (".html", ".js", ".css")
NEVER_DRAWN = {"Cc", "Cf", "Co", "Cs", "Zl", "Zp"}
"""Unicode categories no text font draws: controls, format characters (a soft hyphen, a
zero-width space), private use (the theme's icon font) and surrogates."""


_JSON_ESCAPES = re.compile(r"(?:\\u[0-9a-fA-F]{4})+")


def unescaped(text: str) -> str:
    """``text`` with its JSON escapes (``\\u98a0``: an answer box's hints, the search index's
    titles) and HTML character references (``&#x98a0;``) written as the characters they show,
    besides the text as it is."""
    decoded = _JSON_ESCAPES.sub(lambda run: json.loads(f'"{run.group(0)}"', strict=False), text)
    return text + decoded + html.unescape(text)


def shown_characters(outdir: Path) -> dict[str, str]:
    """Every character a reader of the site built in ``outdir`` can be shown in its text font,
    each with the first file (relative to ``outdir``) that has it: printable ASCII, and the
    characters of its pages (the search page too), search index, scripts (the copy button's and
    the search's words, the answer boxes' marks) and stylesheets (CSS ``content``), less
    :data:`NOT_SHOWN` and :data:`NEVER_DRAWN`."""
    shown = {chr(c): "" for c in range(0x20, 0x7F)}
    for path in sorted(outdir.rglob("*")):
        relative = path.relative_to(outdir).as_posix()
        if path.suffix not in SHOWN_SUFFIXES or relative.startswith(NOT_SHOWN):
            continue
        if not path.is_file():
            continue
        for char in set(unescaped(path.read_text(encoding="utf-8", errors="ignore"))):
            if char not in shown and unicodedata.category(char) not in NEVER_DRAWN:
                shown[char] = relative
    return shown


def font_characters(path: Path) -> set[str]:
    """The characters ``path`` (a font file) has a glyph for."""
    from fontTools.ttLib import TTFont

    return {chr(code) for code in TTFont(path).getBestCmap()}


def font_stacks() -> tuple[str, str]:
    """The CSS font stacks of a CJK edition, text and monospace: the served families first (for
    text), or right after the theme's monospace fonts (for code, whose Latin stays monospace)."""
    served = ", ".join(f'"{family}"' for family in dict.fromkeys(f.family for f in FONT_FACES))
    text = f"{served}, system-ui, sans-serif, {EMOJI_FONTS}"
    return text, f"var(--pst-font-family-monospace-system), {served}"


def _subset_font(app: Sphinx, exception: Exception | None) -> None:
    """Cut the characters a reader can be shown out of the edition's fonts, into
    ``_static/cjk/``: each face gets those its family draws (the first family that has them)."""
    if exception is not None or app.builder.format != "html" or not _is_cjk(app.config.language):
        return
    from fontTools import subset

    outdir = Path(app.outdir)
    missing = [face.file for face in FONT_FACES if not (FONT_DIR / face.file).is_file()]
    if missing:
        logger.warning(
            "the edition's fonts %s are missing; run `make setup` (tools/fetch_static.py)",
            ", ".join(missing),
            type="i18n",
            subtype="font",
        )
        return
    shown = shown_characters(outdir)
    left = set(shown)
    families: dict[str, set[str]] = {}
    for family in dict.fromkeys(face.family for face in FONT_FACES):
        # what every weight of the family draws, so that bold text falls back no more than plain
        faces = [font_characters(FONT_DIR / f.file) for f in FONT_FACES if f.family == family]
        families[family] = left.intersection(*faces)
        left -= families[family]
    if left:
        logger.warning(
            "no served font has %s; add a font that has them to FONT_FACES",
            ", ".join(f"{c!r} (U+{ord(c):04X}, in {shown[c]})" for c in sorted(left)),
            type="i18n",
            subtype="font",
        )
    target = outdir / "_static" / "cjk"
    target.mkdir(parents=True, exist_ok=True)
    rules = []
    for face in FONT_FACES:
        options = subset.Options()
        options.flavor = "woff"
        options.layout_features = ["*"]
        font = subset.load_font(str(FONT_DIR / face.file), options)
        subsetter = subset.Subsetter(options)
        subsetter.populate(text="".join(sorted(families[face.family])))
        subsetter.subset(font)
        subset.save_font(font, str(target / face.file), options)
        rules.append(
            f'@font-face {{ font-family: "{face.family}"; font-weight: {face.weight}; '
            f'font-display: swap; src: url("{face.file}") format("woff"); }}'
        )
    text, monospace = font_stacks()
    (target / "cjk.css").write_text(
        "/* IBM Plex Sans SC (SIL OFL 1.1) and DejaVu Sans (Bitstream Vera license), cut to the\n"
        "   characters of this edition */\n"
        + "\n".join(rules)
        + f"\n:root {{\n  --pst-font-family-base: {text};\n"
        + f"  --pst-font-family-heading: {text};\n"
        + f"  --pst-font-family-monospace: {monospace};\n}}\n"
        + "/* Chromium trims a line-end fullwidth bracket to half width when it decides where the\n"
        "   line breaks, but lays it out at full width: a heading such as 术语表（英中对照） then\n"
        "   sticks out of a phone's screen. Keep every bracket at its full width. */\n"
        + "html { text-spacing-trim: space-all; }\n"
        + "/* Chinese has no italics: the served CJK faces have none, and a browser would slant\n"
        "   the glyphs. Emphasis keeps Latin words italic (their font has a true italic) and\n"
        "   sets Chinese upright. */\n" + "em, i, cite { font-synthesis: none; }\n",
        encoding="utf-8",
    )


_RENDERERS: dict[str, Any] = {}
"""docname -> the myst-nb renderer of the page being read (only while it is read)."""

TRANSLATED_SUFFIX = "<translated>"
"""How Sphinx marks the source of a re-parsed translation (sphinx.transforms.i18n)."""


class _KeepRenderer(dict[str, Any]):
    """A document's attributes that remember the notebook renderer myst-nb pops off at the end
    of parsing (myst_nb.sphinx_.Parser.parse stores it "temporarily")."""

    kept: Any = None

    def pop(self, key: str, *default: Any) -> Any:
        value = super().pop(key, *default)
        if key == "nb_renderer":
            self.kept = value
        return value


class TranslatingNbParser(NbParser):
    """myst-nb's parser, which also gives a translated message the glue data of its page.

    It also writes the page's executed notebook (``jupyter_execute/<page>.ipynb``, which the
    book offers for download) from the execution client's notebook: myst-nb writes the notebook
    it parsed, which has the outputs only when it was executed in place, not when the outputs
    came from the execution cache (a second ``make book``), so without this the download would
    be a notebook with no outputs."""

    def parse(self, inputstring: str, document: nodes.document) -> None:
        env = self.env if getattr(document.settings, "env", None) is None else document.settings.env
        if document.current_source.endswith(TRANSLATED_SUFFIX):
            renderer = _RENDERERS.get(env.docname)
            if renderer is not None:
                document.attributes["nb_renderer"] = renderer
            try:
                super().parse(inputstring, document)
            finally:
                document.attributes.pop("nb_renderer", None)
            return
        attributes = _KeepRenderer(document.attributes)
        document.attributes = attributes
        super().parse(inputstring, document)
        document.attributes = dict(attributes)
        if attributes.kept is not None:
            _RENDERERS[env.docname] = attributes.kept
            _write_executed(env.docname, attributes.kept)


def _write_executed(docname: str, renderer: Any) -> None:
    client = getattr(renderer.renderer, "nb_client", None)
    notebook = getattr(client, "notebook", None)
    if notebook is None:
        return
    path = docname.split("/")
    target = [*path[:-1], path[-1] + ".ipynb"]
    renderer.write_file(target, nbformat.writes(notebook).encode("utf-8"), overwrite=True)


MACHINE_OUTPUT = "machine-output"
"""The class of a ``{div}`` holding what the build machine measured and wrote (page 9): it
changes from build to build, so it is not in the catalogs."""


_NOT_WORDS = re.compile(
    r"\{[^}]+\}`[^`]*`"  # a role: a glued value, a cross-reference (its text is its target's)
    r"|\$\$.+?\$\$|\$[^$]+\$"  # math
    r"|`[^`]+`"  # inline code
    r"|\]\([^)]*\)",  # a link's target
    re.DOTALL,
)
_WORD = re.compile(r"[^\W\d_]{2,}")
"""Two or more letters of any script: a word to translate (a single letter is a symbol, B)."""


def has_words(message: str) -> bool:
    """Whether a message has words to translate once its glued values, cross-references, math,
    code and link targets are set aside: ``{glue:text}`p1_ai_16` ({glue:text}`p1_2b_16`)``,
    ``B = 16`` and ``$T_\\text{math}$`` have none, so they are data, not catalog messages."""
    return bool(_WORD.search(_NOT_WORDS.sub(" ", message)))


class NotProse(SphinxTransform):
    """Leave out of the catalogs what is not prose: the page's front matter (jupytext's
    settings), display math (the same in every language), the build machine's own output, and
    a paragraph or cell with no words in it (:func:`has_words`: a table cell of glued numbers
    stays out, so a changed figure never needs a translation)."""

    default_priority = 5  # before Sphinx's PreserveTranslatableMessages (10) and Locale (20)

    def apply(self, **kwargs: Any) -> None:
        front_matter = [
            child
            for child in self.document.children
            if isinstance(child, (nodes.docinfo, nodes.field_list))
        ]
        for block in front_matter:
            for node in block.findall(nodes.TextElement):
                node["translatable"] = False
        for node in self.document.findall(nodes.math_block):
            node["translatable"] = False
        for container in self.document.findall(nodes.Element):
            if MACHINE_OUTPUT in container.get("classes", []):
                for node in container.findall(nodes.TextElement):
                    node["translatable"] = False
                for image in container.findall(nodes.image):
                    image["translatable"] = False
        for node in self.document.findall(nodes.TextElement):
            if isinstance(node, PROSE_NODES) and not has_words(node.rawsource or node.astext()):
                node["translatable"] = False


class GluedMarkdown(PasteMarkdownDirective):
    """myst-nb's block ``{glue:md}``: Markdown a code cell wrote (a table of the catalog's chips,
    a list of what the build machine measured), parsed into the page. It is data, written in
    the page's language by the code itself (:mod:`roofline_lib.words`), so none of it is a
    catalog message: a new chip or a changed figure changes the page, never the catalogs."""

    def run(self) -> list[nodes.Node]:
        pasted = super().run()
        for node in pasted:
            for text in node.findall(nodes.TextElement):
                text["translatable"] = False
        return pasted


PROSE_NODES = (nodes.paragraph, nodes.title, nodes.caption, nodes.term, nodes.rubric, nodes.line)
"""The elements whose text is a catalog message."""


class ProseInDirectives(SphinxTransform):
    """Give the prose a directive parsed (a table inside ``{table}`` or ``{worked-solution}``)
    the source and line of the directive. A nested parse leaves them unset, and Sphinx leaves
    an element with no source out of the catalogs and out of translation alike, so such a table
    stayed English in every edition, with no warning."""

    default_priority = 6  # after NotProse, before Sphinx's Locale (20) and the gettext builder

    def apply(self, **kwargs: Any) -> None:
        for node in self.document.findall(nodes.TextElement):
            if node.source is not None or not isinstance(node, PROSE_NODES):
                continue
            located = node.parent
            while located is not None and located.source is None:
                located = located.parent
            if located is not None:
                node.source, node.line = located.source, located.line


class AltTextInCatalogs(SphinxPostTransform):
    """Put figures' alt text in the catalogs. myst-nb picks each output's image in a
    post-transform, as a new node without the uid that Sphinx's gettext builder requires of a
    message's origin; the alt text itself was translated when the page was read."""

    default_priority = 999  # after myst-nb's choice of an output's format
    builders = ("gettext",)

    def run(self, **kwargs: Any) -> None:
        for image in self.document.findall(nodes.image):
            if image.get("alt") and not hasattr(image, "uid"):
                image.uid = ""  # type: ignore[attr-defined]


def _forget_renderer(app: Sphinx, doctree: nodes.document) -> None:
    _RENDERERS.pop(app.env.docname, None)


def _catalog(app: Sphinx, docname: str) -> dict[str, str]:
    """The page's current translations: msgid -> msgstr, without fuzzy or empty entries (what
    Sphinx itself would use). Read once per version of the file (not kept in the pickled
    environment, which would outlive an edited catalog)."""
    path = Path(app.srcdir, app.config.locale_dirs[0], app.config.language, "LC_MESSAGES")
    path = path / f"{docname}.po"
    if not path.is_file():
        return {}
    return _read_catalog(str(path), path.stat().st_mtime_ns)


@functools.lru_cache(maxsize=64)
def _read_catalog(path: str, mtime_ns: int) -> dict[str, str]:
    with open(path, "rb") as stream:
        return {
            str(message.id): str(message.string)
            for message in read_po(stream)
            if message.id and message.string and not message.fuzzy
        }


_LATIN_OR_DIGIT = re.compile(r"[A-Za-z0-9]")
"""A message with neither was not written in English (sphinx-exercise's own 练习, 解答)."""


def untranslated_messages(
    doctree: nodes.document, catalog: dict[str, str]
) -> list[tuple[nodes.Element, str]]:
    """The translatable messages of a page that its catalog has no current translation for
    (a message may be translated as itself, a chip's name for one). A figure's alt text is
    replaced in place and not marked as translated, so a translation found as such is one."""
    translations = set(catalog.values())
    return [
        (node, message)
        for node, message in extract_messages(doctree)
        if message not in catalog
        and message not in translations
        and _LATIN_OR_DIGIT.search(message)
    ]


def _check_translated(app: Sphinx, doctree: nodes.document) -> None:
    if not app.config.language or app.config.language.startswith("en"):
        return
    catalog = _catalog(app, app.env.docname)
    for node, message in untranslated_messages(doctree, catalog):
        logger.warning(
            "untranslated message (%s): %r; run `make translations` and translate it",
            app.config.language,
            message[:120],
            location=node,
            type="i18n",
            subtype="untranslated",
        )


def setup(app: Sphinx) -> dict[str, object]:
    app.setup_extension("myst_nb")
    app.add_source_parser(TranslatingNbParser, override=True)
    app.add_role("edition", edition_role)
    app.connect("doctree-resolved", _resolve_edition_links)
    app.connect("doctree-resolved", _tighten_cjk_spaces)
    app.add_transform(NotProse)
    app.add_transform(ProseInDirectives)
    app.add_directive_to_domain("glue", "md", GluedMarkdown, override=True)
    app.add_post_transform(AltTextInCatalogs)
    app.connect("config-inited", _edition_settings, priority=400)  # before sphinx-togglebutton
    app.connect("config-inited", _font_css)
    app.connect("config-inited", _add_switch_template)
    # before pydata-sphinx-theme (500) drops header templates that render empty
    app.connect("html-page-context", _language_switch, priority=400)
    app.connect("build-finished", _subset_font)
    app.add_js_file("language-switch.js")
    app.connect("doctree-read", _check_translated, priority=400)
    app.connect("doctree-read", _forget_renderer, priority=900)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
