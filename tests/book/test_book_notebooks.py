"""Take the page home (issue 12): every page's download menu offers its executed notebook
(``.ipynb``), and the helpers it imports (booktools.py); the notebook is valid nbformat v4, holds
its outputs, and runs again from a fresh folder where the reader saved the two files, with
roofline_lib importable (book/_ext/course.py copies them; myst-nb executed them)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import nbformat
import pytest
from bs4 import BeautifulSoup
from nbclient import NotebookClient

from tests.book.site import ROOT, BookBuild, book_env, sphinx_build, sphinx_project, toc_pages
from tools import book as book_tool

pytestmark = pytest.mark.slow

NOTEBOOK_TIMEOUT_S = 300


def _downloads(html: Path, page: str) -> dict[str, Path]:
    """The page's download links to files under _sources, by their text (".ipynb", ...)."""
    soup = BeautifulSoup((html / f"{page}.html").read_text(encoding="utf-8"), "html.parser")
    links = {}
    for link in soup.select("a.dropdown-item[href*='_sources/']"):
        target = (html / page).parent / link["href"]
        links[link.get_text(strip=True)] = target.resolve()
    return links


@pytest.mark.parametrize("page", toc_pages())
def test_every_page_offers_its_executed_notebook(html: Path, page: str) -> None:
    links = _downloads(html, page)
    assert ".ipynb" in links, f"{page}: no .ipynb in the download menu: {sorted(links)}"
    assert "booktools.py" in links, f"{page}: the helpers the notebook imports are not offered"
    notebook = nbformat.read(links[".ipynb"], as_version=4)
    nbformat.validate(notebook)
    assert notebook.nbformat == 4
    code = [c for c in notebook.cells if c.cell_type == "code"]
    source = (ROOT / f"{page}.md").read_text(encoding="utf-8")
    assert bool(code) == ("```{code-cell}" in source), f"{page}: code cells lost or invented"
    assert all(c.execution_count for c in code), f"{page}: the notebook was not executed"
    assert links["booktools.py"].read_bytes() == (ROOT / "book" / "booktools.py").read_bytes()


@pytest.mark.parametrize("page", toc_pages())
def test_the_downloaded_notebook_runs_where_it_is_saved(
    book: BookBuild, html: Path, page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    links = _downloads(html, page)
    for name in (".ipynb", "booktools.py"):
        shutil.copy(links[name], tmp_path / links[name].name)
    env = book_env()  # roofline_lib importable (PYTHONPATH), MPLBACKEND=Agg, the venv's kernel
    for key in ("PYTHONPATH", "MPLBACKEND", "PATH"):
        monkeypatch.setenv(key, env[key])
    # page 9 shows the build's measurement of this machine (as every edition does) rather than
    # taking another 20 s one: what runs is the page's code, not the measurement (tests/measure)
    measured = book_tool.measurement_path(book.output)
    assert measured.is_file(), "the build took no measurement for page 9"
    monkeypatch.setenv(book_tool.MEASUREMENT_ENV, f"read:{measured}")
    notebook = nbformat.read(tmp_path / links[".ipynb"].name, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=NOTEBOOK_TIMEOUT_S,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()  # raises CellExecutionError on the first failing cell
    assert os.listdir(tmp_path)


def test_a_rebuild_from_the_execution_cache_still_offers_executed_notebooks(
    tmp_path: Path,
) -> None:
    """myst-nb writes the notebook it parsed, which lacks the outputs when they came from its
    execution cache (a second ``make book``); the course's parser writes the client's notebook
    (book/_ext/i18n.py). A one-page project built twice, the second time with every page read
    again from the cache."""
    source = tmp_path / "source"
    sphinx_project(
        source,
        ("myst_nb", "i18n"),
        f'nb_execution_mode = "cache"\nnb_execution_cache_path = {str(tmp_path / "cache")!r}\n',
    )
    (source / "index.md").write_text(
        "---\njupytext:\n  text_representation:\n    format_name: myst\n"
        "kernelspec:\n  name: python3\n  display_name: Python 3\n---\n\n# One cell\n\n"
        "```{code-cell} ipython3\n6 * 7\n```\n"
    )
    for fresh in ((), ("-E",)):
        built = sphinx_build(source, tmp_path / "out", *fresh, timeout_s=NOTEBOOK_TIMEOUT_S)
        assert built.returncode == 0, built.stderr
        executed = nbformat.read(tmp_path / "jupyter_execute" / "index.ipynb", as_version=4)
        (cell,) = [c for c in executed.cells if c.cell_type == "code"]
        assert cell.outputs and cell.outputs[0]["data"]["text/plain"] == "42", fresh
