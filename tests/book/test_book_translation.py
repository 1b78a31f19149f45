"""The Chinese edition: built strictly from the same sources, every message translated and
current, nothing protected lost in translation, the same glued numbers as the English edition, and
a build that fails when an English paragraph changes and its translation does not.

The browser's view of it (console, math, images, links, the language switch, the font) is in
test_book_translation_browser.py.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po

from tests.book.glossary import glossary_rows
from tests.book.site import ROOT, BookBuild, sphinx_build, sphinx_project, toc_pages
from tools import book as book_tool
from tools import translations

pytestmark = pytest.mark.slow

LANGUAGE = "zh_CN"
_NUMBER = re.compile(r"\d[\d,.]*(?:[eE][+-]?\d+)?")
_CJK = "[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]"
_GAP = re.compile(f"{_CJK}[ \t\n]+{_CJK}")
"""A space between two Chinese characters (or Chinese punctuation): a slip in Chinese text."""


def test_the_chinese_edition_builds_strictly(translated_book: BookBuild) -> None:
    assert translated_book.returncode == 0, "\n".join(translated_book.log.splitlines()[-40:])
    assert translated_book.warnings == [], translated_book.warnings


def test_every_page_has_its_catalog_complete_current_and_intact(
    book: BookBuild, tmp_path: Path
) -> None:
    """The catalogs against messages extracted now from the English sources: each message
    translated, none fuzzy, none obsolete, and every glue reference, math, cross-reference target,
    link and code span of the English in its translation (tools/translations.py)."""
    config = book_tool.edition_config(
        tmp_path, "en", execution_cache=book.output / "_build" / ".jupyter_cache"
    )
    pot_dir = translations.extract(tmp_path / "gettext", config=config)
    reports = translations.catalog_reports(pot_dir, LANGUAGE)
    assert sorted(r.page for r in reports) == sorted(toc_pages())
    incomplete = [r for r in reports if not r.complete]
    assert not incomplete, translations.format_report(LANGUAGE, incomplete)
    assert sum(r.messages for r in reports) > 800  # prose only: data is never a message
    # make translations' merge (sphinx-intl), on a copy: current catalogs stay complete
    copy = tmp_path / "locales"
    shutil.copytree(ROOT / "locales", copy)
    translations.refresh(pot_dir, LANGUAGE, locales=copy)
    merged = translations.catalog_reports(pot_dir, LANGUAGE, locales=copy)
    assert all(r.complete for r in merged), translations.format_report(LANGUAGE, merged)


def _glue(build: BookBuild, page: str) -> dict[str, str]:
    path = build.executed / f"{page}.glue.json"
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return {key: value["data"].get("text/plain", "") for key, value in data.items()}


def test_glued_numbers_are_the_same_in_both_editions(
    book: BookBuild, translated_book: BookBuild
) -> None:
    """Every value a page glues has the same numbers in the Chinese edition as in the English
    (its words may be translated, its numbers are the library's; the build machine's own
    measurement on page 9 is taken once, by the English build, and shown by both)."""
    compared = 0
    for page in toc_pages():
        english, chinese = _glue(book, page), _glue(translated_book, page)
        assert set(chinese) == set(english), page
        for key, value in english.items():
            assert _NUMBER.findall(chinese[key]) == _NUMBER.findall(value), (page, key)
            compared += 1
    assert compared > 500


def _pasted(html: str) -> list[str]:
    return sorted(re.findall(r'<span class="pasted-text">([^<]*)</span>', html))


def test_each_chinese_page_shows_the_english_pages_glued_numbers(
    book: BookBuild, translated_book: BookBuild
) -> None:
    """What the reader sees: the numbers pasted into each Chinese page's prose are the English
    page's, as many times (a translation can drop or repeat a glued number only by failing
    the catalog check above, and this holds it on the rendered page)."""
    for page in toc_pages():
        english = (book.html / f"{page}.html").read_text(encoding="utf-8")
        chinese = (translated_book.html / f"{page}.html").read_text(encoding="utf-8")
        numbers_en = [n for text in _pasted(english) for n in _NUMBER.findall(text)]
        numbers_zh = [n for text in _pasted(chinese) for n in _NUMBER.findall(text)]
        assert sorted(numbers_zh) == sorted(numbers_en), page


def test_pages_are_in_chinese(translated_book: BookBuild) -> None:
    """Each page's main text is mostly Chinese: a sanity check that the catalogs were used."""
    for page in toc_pages():
        html = (translated_book.html / f"{page}.html").read_text(encoding="utf-8")
        main = html.split('<main id="main-content"', 1)[-1]
        text = re.sub(r"<[^>]+>", " ", re.sub(r"<(script|style|math)[^>]*>.*?</\1>", "", main))
        cjk = len(re.findall(r"[\u4e00-\u9fff]", text))
        assert cjk > 300, f"{page}: only {cjk} Chinese characters"
        assert '<html lang="zh-CN"' in html, page


# -- drift, end to end on a one-page book ---------------------------------------------------


def _mini_book(folder: Path, english: str, translations_: dict[str, tuple[str, bool]]) -> None:
    """A one-page Sphinx project with the course's i18n extension and a Chinese catalog."""
    sphinx_project(
        folder,
        ("myst_nb", "i18n"),
        'language = "zh_CN"\nlocale_dirs = ["locales"]\ngettext_compact = False\n'
        'nb_execution_mode = "off"\n',
    )
    (folder / "index.md").write_text(english)
    catalog = Catalog(locale=LANGUAGE)
    for msgid, (msgstr, fuzzy) in translations_.items():
        catalog.add(msgid, msgstr, flags=("fuzzy",) if fuzzy else ())
    po = folder / "locales" / LANGUAGE / "LC_MESSAGES" / "index.po"
    po.parent.mkdir(parents=True)
    with po.open("wb") as stream:
        write_po(stream, catalog)


def _build(folder: Path) -> subprocess.CompletedProcess[str]:
    return sphinx_build(folder, folder / "out", "-b", "html")


TITLE, PARAGRAPH = "Where the time goes", "An H100 does about $10^{15}$ FLOPs per second."
CURRENT = {TITLE: ("时间花在哪里", False), PARAGRAPH: ("H100 每秒约做 $10^{15}$ 次 FLOP。", False)}


def test_a_current_catalog_builds(tmp_path: Path) -> None:
    _mini_book(tmp_path, f"# {TITLE}\n\n{PARAGRAPH}\n", CURRENT)
    built = _build(tmp_path)
    assert built.returncode == 0, built.stderr
    assert "H100 每秒约做" in (tmp_path / "out" / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("case", "english", "catalog"),
    [
        ("a changed English paragraph", f"# {TITLE}\n\nAn H100 does about 1e15 FLOP/s.\n", CURRENT),
        (
            "a fuzzy translation",
            f"# {TITLE}\n\n{PARAGRAPH}\n",
            {**CURRENT, PARAGRAPH: ("旧", True)},
        ),
        ("a new paragraph", f"# {TITLE}\n\n{PARAGRAPH}\n\nA new one.\n", CURRENT),
    ],
)
def test_drift_fails_the_build(
    tmp_path: Path, case: str, english: str, catalog: dict[str, tuple[str, bool]]
) -> None:
    _mini_book(tmp_path, english, catalog)
    built = _build(tmp_path)
    assert built.returncode != 0, case
    assert "untranslated message (zh_CN)" in built.stderr, built.stderr
    assert "make translations" in built.stderr


# -- the glossary's terms, with their English on first use -----------------------------------


def glossary_terms() -> list[tuple[str, list[str]]]:
    """(the Chinese term, its English forms) for each row of the glossary page whose Chinese
    differs from its English: "计算受限（算力瓶颈）" gives 计算受限; "HBM (high-bandwidth memory)"
    gives "HBM" and "high-bandwidth memory"; "AllReduce（全归约）", English itself, gives none."""
    terms = []
    for row in glossary_rows():
        forms = [f.strip() for f in re.split(r"[,/()]", row.english) if f.strip()]
        # a term the edition writes in English (AllReduce) needs no English after it
        if all(_letters(row.term) != _letters(form) for form in forms):
            terms.append((row.term, forms))
    return terms


def _letters(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _body_text(html: str) -> str:
    """A page's running text: its article without headings, math, links to other sections
    (whose words are those sections' titles), or glued values (the library's words: a glued
    regime, 计算受限, cannot carry its English; the prose around it does)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    article = soup.select_one("article.bd-article") or soup
    for tag in article.select(
        "h1, h2, h3, h4, script, style, .math, a.reference.internal, p.admonition-title,"
        " span.pasted-text"
    ):
        tag.decompose()
    return article.get_text(" ")


def test_each_page_gives_a_glossary_terms_english_on_its_first_use(
    translated_book: BookBuild,
) -> None:
    """The first time a page's text uses a glossary term, the English follows in parentheses:
    算术强度（arithmetic intensity）. A term met first inside a longer one (网络算术强度, 逐算子估计)
    may carry that one's English, so long as it names the term's head word (intensity,
    operation)."""
    terms = glossary_terms()
    assert len(terms) >= 25
    missing = []
    for page in toc_pages():
        if page.endswith("13_glossary"):
            continue
        text = _body_text((translated_book.html / f"{page}.html").read_text(encoding="utf-8"))
        for term, forms in terms:
            at = text.find(term)
            if at < 0:
                continue
            # the gloss follows the term, or the word it begins (逐算子估计（per-operation estimate）)
            gloss = re.match(
                r"[\u4e00-\u9fff]{0,3}\s*[（(]([^）)]*)[）)]",
                text[at + len(term) : at + len(term) + 120],
            )
            said = _letters(gloss.group(1)) if gloss else ""
            heads = [_letters(form.split()[-1]) for form in forms]
            if not any(_letters(form) in said for form in forms) and not (
                said and any(head in said for head in heads)
            ):
                missing.append(f"{page}: {term} … {text[at : at + 30]!r}")
    assert not missing, "\n".join(missing)


def test_no_space_between_two_chinese_characters() -> None:
    """Chinese runs on without spaces: a space between two Chinese characters in a translation
    is a slip (a browser shows it as a gap)."""
    from babel.messages.pofile import read_po

    slips = []
    for po in sorted((ROOT / "locales" / LANGUAGE / "LC_MESSAGES").rglob("*.po")):
        with po.open("rb") as stream:
            for message in read_po(stream):
                found = _GAP.search(str(message.string))
                if message.id and found:
                    slips.append(f"{po.stem}: {found.group(0)!r} in {str(message.string)[:60]!r}")
    assert not slips, "\n".join(slips)


def test_no_space_between_two_chinese_characters_on_a_page(translated_book: BookBuild) -> None:
    """The rendered pages too, where a link's text, a glued word or a bold word meets the
    sentence around it (book/_ext/i18n.py tightens them): in each paragraph, heading and
    caption, with math and code counted as Latin (a space beside them is right)."""
    from bs4 import BeautifulSoup

    gaps = []
    for page in toc_pages():
        html = (translated_book.html / f"{page}.html").read_text(encoding="utf-8")
        soup = BeautifulSoup(html, "html.parser")
        for tag in soup.select(".math, code, kbd, script, style"):
            tag.replace_with("x")
        for block in soup.select("p, h1, h2, h3, h4, h5, h6, caption, figcaption, dt"):
            for gap in _GAP.finditer(block.get_text("")):
                text = block.get_text("")
                gaps.append(f"{page}: {text[max(0, gap.start() - 12) : gap.end() + 12]!r}")
    assert gaps == [], "\n".join(gaps)
