"""Page 9's measured-machine section (issue 25) never shows an invalid run as a roofline.

The section is built on its own, strictly (page 9's setup cell and the section, from
book/09_inference.md as it is, in a one-page myst-nb project), its kernel handed a prepared
measurement through ``ROOFLINE_BOOK_MEASUREMENT=read:PATH`` as tools/book.py hands every edition
the build's: a trustworthy run shows its roofline, predictions and the verdict that it passed;
an invalid one (the run a reviewer found published: peak 1.8 % of the theoretical one, matmuls
several times above the roof, 24 % of the CPU) shows a warning box with the reasons, its
measurements without a roof and without predictions. Every glue key the section uses exists in
both cases, or the strict build fails. The Chinese words come from the same code with
``ROOFLINE_LANG=zh_CN`` (the catalogs' part is tests/book/test_book_translation.py's).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from bs4 import BeautifulSoup, Tag

from roofline_lib.measure import MeasuredRoofline
from tests.book.site import ROOT, book_env
from tests.measure.handmade import THEORY, run
from tools import book as book_tool

pytestmark = pytest.mark.slow

PAGE = ROOT / "book" / "09_inference.md"
SECTION_START = "(sec-inference-measured)="
SECTION_END = ":::{takeaway}"
"""The section runs from its label to the page's takeaway, the next block that is not its own."""
BUILD_TIMEOUT_S = 300


def section_page() -> str:
    """Page 9's front matter, title and setup cell, then the measured-machine section."""
    source = PAGE.read_text(encoding="utf-8")
    setup_end = source.index("```\n", source.index("```{code-cell}")) + len("```\n")
    start = source.index(SECTION_START)
    end = source.index(SECTION_END, start)
    return source[:setup_end] + "\n" + source[start:end]


CONF = """\
extensions = ["myst_nb", "sphinx_design"]
myst_enable_extensions = ["amsmath", "colon_fence", "dollarmath", "substitution"]
nb_execution_mode = "force"
nb_execution_raise_on_error = True
nb_execution_timeout = 180
nitpicky = True
"""


def build_section(
    tmp_path: Path, measurement: MeasuredRoofline, language: str = "en"
) -> tuple[str, Path]:
    """Build the section strictly with ``measurement`` handed to its kernel: its HTML and the
    output folder."""
    source, output = tmp_path / "source", tmp_path / "html"
    source.mkdir()
    (source / "conf.py").write_text(CONF)
    (source / "index.md").write_text(section_page(), encoding="utf-8")
    path = tmp_path / "measurement.json"
    measurement.to_json(path)
    env = book_tool.edition_environment(language, book_env())
    env[book_tool.MEASUREMENT_ENV] = f"read:{path}"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "book"), str(ROOT)])
    built = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", str(source), str(output)],
        capture_output=True,
        text=True,
        env=env,
        timeout=BUILD_TIMEOUT_S,
    )
    assert built.returncode == 0, built.stderr[-4000:]
    return (output / "index.html").read_text(encoding="utf-8"), output


def _figure(html: str, output: Path) -> str:
    """The words the section's figure (fig-measured-roofline) draws: matplotlib writes each
    text of an SVG as a comment too, one per line of a wrapped title."""
    soup = BeautifulSoup(html, "html.parser")
    (image,) = soup.select("#fig-measured-roofline img")
    svg = (output / str(image["src"])).read_text(encoding="utf-8")
    return " ".join(re.findall(r"<!-- (.*?) -->", svg))


def _text(element: Tag | BeautifulSoup) -> str:
    """The element's words, spaced once, with Sphinx's typographic apostrophes made plain."""
    return " ".join(element.get_text(" ").split()).replace("\u2019", "'")


def trustworthy_run() -> MeasuredRoofline:
    return run()


def invalid_run() -> MeasuredRoofline:
    """Shaped like the run the reviewer found: every failure at once."""
    return run({1: 0.9, 64: 2.8, 512: 5.8, 4096: 4.0}, peak=0.018 * THEORY, cpu_share=0.24)


def test_a_trustworthy_run_is_shown_as_its_roofline(tmp_path: Path) -> None:
    result = trustworthy_run()
    assert result.validity.trustworthy
    html, output = build_section(tmp_path, result)
    article = BeautifulSoup(html, "html.parser")
    text = _text(article)
    assert "passed its three checks" in text and "the chart below is its roofline" in text
    assert not article.select(".admonition.warning"), "a trustworthy run got the warning box"
    (table,) = article.select("table")
    assert "achieved / predicted" in _text(table.find("thead"))
    drawn = _figure(html, output)
    assert "predicted" in drawn and "critical" in drawn, "the roofline chart lost its roof"


def test_an_invalid_run_is_shown_without_a_roof_and_says_why(tmp_path: Path) -> None:
    result = invalid_run()
    assert len(result.validity.reasons) == 3
    html, output = build_section(tmp_path, result)
    article = BeautifulSoup(html, "html.parser")
    (box,) = article.select(".admonition.warning")
    said = _text(box)
    assert "This build's measurement is not a roofline" in said
    for reason in result.validity.reasons:
        assert " ".join(reason.split()) in said, reason
    (table,) = article.select("table")
    header = _text(table.find("thead"))
    assert "predicted" not in header and "range of repeats" in header
    drawn = _figure(html, output)
    assert "not a roofline" in drawn
    assert "predicted" not in drawn and "critical" not in drawn, "the chart still draws a roof"
    assert "has no roof to hold its sweep to" in _text(article)
    assert "this machine's critical intensity" not in _text(article)


def test_an_invalid_run_with_no_sweep_says_so(tmp_path: Path) -> None:
    """What a build beside other jobs on two cores measured: no matmul fit in the budget."""
    result = replace(invalid_run(), sweep=(), skipped_batches=(1, 64, 512, 4096))
    html, output = build_section(tmp_path, result)
    article = BeautifulSoup(html, "html.parser")
    assert len(article.select(".admonition.warning")) == 1
    assert "The time budget left no room for the sweep." in _text(article)
    assert "No matmul was measured" in _figure(html, output)


def test_an_invalid_run_says_why_in_chinese(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = invalid_run()
    html, _ = build_section(tmp_path, result, language="zh_CN")
    soup = BeautifulSoup(html, "html.parser")
    (box,) = soup.select(".admonition.warning")
    said = _text(box)
    assert "本次构建的测量结果不是 roofline" in said
    monkeypatch.setenv("ROOFLINE_LANG", "zh_CN")
    for reason in result.validity.reasons:
        assert " ".join(reason.split()) in said, reason
