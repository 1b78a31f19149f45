"""Take the page home (issue 12, issue 29): every page's download menu offers one notebook
(``.ipynb``, book/_ext/take_home.py), in each edition; it reads in plain JupyterLab (the page's
prose as the page shows it, no MyST left) and runs with the student kit's packages alone.

The end-to-end test downloads every page's notebook of both editions from the built site, served
over HTTP, and executes each in a fresh folder with the student kit's venv (built once from the
kit's own lock, the kit README's install command): no myst-nb, no booktools, no repository on
the path."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest
from bs4 import BeautifulSoup

from tests.book.site import (
    ROOT,
    TRANSLATED,
    BookBuild,
    serve,
    sphinx_build,
    sphinx_project,
    toc_pages,
)
from tests.test_student_kit import Kit, build_kit, install_kit
from tools import book as book_tool

pytestmark = pytest.mark.slow

NOTEBOOK_TIMEOUT_S = 300
KIT_INSTALL_TIMEOUT_S = 900
MYST_LEFT = re.compile(
    r"\{glue|:::|```\{|\{(ref|numref|doc|term|download|edition|eq|math|abbr|index)\}`"
    r"|^\s*\([\w-]+\)=\s*$|\(sec-[\w-]+\)=",
    re.MULTILINE,
)
"""MyST a reader of a plain notebook would see raw: glue, colon fences and directives, roles
(``{ref}`...```; ``\\text{math}`` is LaTeX), labels."""
BOOK_ONLY_MODULES = ("booktools", "myst_nb")
EDITIONS = ("en", *TRANSLATED)


def _page_url(language: str, page: str) -> str:
    """The page's path under the English site's root (``book/04_matmul``, ``zh/book/04_matmul``)."""
    folder = next(e.folder for e in book_tool.EDITIONS if e.language == language)
    return f"{folder}/{page}" if folder else page


def _downloads(html: Path, page: str) -> dict[str, str]:
    """The page's download links to files under _sources, by their text (".ipynb", ...), as
    paths relative to the site's root."""
    soup = BeautifulSoup((html / f"{page}.html").read_text(encoding="utf-8"), "html.parser")
    links = {}
    for link in soup.select("a.dropdown-item[href*='_sources/']"):
        target = ((html / page).parent / link["href"]).resolve()
        links[link.get_text(strip=True)] = target.relative_to(html.resolve()).as_posix()
    return links


def _heading(html: Path, page: str) -> str:
    """The page's title as the page shows it (its h1, without the permalink's ¶ or #)."""
    soup = BeautifulSoup((html / f"{page}.html").read_text(encoding="utf-8"), "html.parser")
    h1 = soup.select_one("article h1") or soup.select_one("h1")
    assert h1 is not None, page
    for link in h1.select("a.headerlink"):
        link.decompose()
    return " ".join(h1.get_text().split())


def _book_imports(source: str) -> list[str]:
    """The modules of the book's build (booktools, myst_nb) a cell's code imports."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    found = []
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        found += [n for n in names if n.split(".")[0] in BOOK_ONLY_MODULES]
    return found


def _plain_heading(markdown: str) -> str:
    first = next(line for line in markdown.splitlines() if line.startswith("# "))
    return " ".join(re.sub(r"\\(.)", r"\1", first.removeprefix("# ")).replace("*", "").split())


@pytest.fixture(scope="module")
def site_root(book: BookBuild, translated_book: BookBuild) -> Path:
    """The published site (the English edition's root, the Chinese under ``zh/``)."""
    return book.html


@pytest.mark.parametrize("language", EDITIONS)
@pytest.mark.parametrize("page", toc_pages())
def test_every_page_offers_one_notebook_that_reads_as_plain_markdown(
    site_root: Path, language: str, page: str
) -> None:
    url = _page_url(language, page)
    links = _downloads(site_root, url)
    assert ".ipynb" in links, f"{url}: no .ipynb in the download menu: {sorted(links)}"
    assert not [n for n in links if n.endswith(".py")], f"{url}: helpers offered: {sorted(links)}"
    notebook = nbformat.read(site_root / links[".ipynb"], as_version=4)
    nbformat.validate(notebook)
    markdown = [c.source for c in notebook.cells if c.cell_type == "markdown"]
    left = [m.group(0) for text in markdown for m in MYST_LEFT.finditer(text)]
    assert not left, f"{url}: raw MyST in the notebook's prose: {left[:10]}"
    imports = [i for c in notebook.cells if c.cell_type == "code" for i in _book_imports(c.source)]
    assert not imports, f"{url}: the notebook imports what only the book's build has: {imports}"
    assert _plain_heading("\n".join(markdown)) == _heading(site_root, url), url
    code = [c for c in notebook.cells if c.cell_type == "code"]
    source = (ROOT / f"{page}.md").read_text(encoding="utf-8")
    assert bool(code) == ("```{code-cell}" in source), f"{url}: code cells lost or invented"
    shown = [c for c in code if not c.metadata.get("jupyter", {}).get("source_hidden")]
    assert all(c.execution_count for c in shown), f"{url}: the notebook was not executed"
    if language != "en":
        assert re.search(r"[\u4e00-\u9fff]", "\n".join(markdown)), f"{url}: prose not translated"


# ----------------------------------------------------------------------------------------------
# Every download, run with the student kit's packages only
# ----------------------------------------------------------------------------------------------

RUNNER = """
import sys, nbformat
from nbclient import NotebookClient
from pathlib import Path

for path in map(Path, sys.argv[1:]):
    notebook = nbformat.read(path, as_version=4)
    try:
        NotebookClient(notebook, timeout={timeout}, kernel_name="python3",
                       resources={{"metadata": {{"path": str(path.parent)}}}}).execute()
        print("RAN", path, flush=True)
    except Exception as error:
        print("FAILED", path, str(error)[-3000:].replace("\\n", "\\n    "), flush=True)
"""
"""Executes notebooks on the kit venv's own kernel (the venv's Python, nbclient from its
JupyterLab), each in its own folder, and says of each whether it ran."""


@pytest.fixture(scope="module")
def kit_venv(tmp_path_factory: pytest.TempPathFactory) -> Kit:
    """The student kit (tools/student_kit.py), built and installed once for this module with
    its README's command (its own lock for this Python; pip's cache makes it quick)."""
    tmp = tmp_path_factory.mktemp("kit-venv")
    kit = install_kit(build_kit(tmp), tmp, Path(sys.executable), KIT_INSTALL_TIMEOUT_S)
    for module in BOOK_ONLY_MODULES:
        absent = subprocess.run(
            [str(kit.python), "-c", f"import {module}"], env=kit.env, cwd=tmp, capture_output=True
        )
        assert absent.returncode != 0, f"the kit's venv has {module}"
    return kit


def _download(base_url: str, path: str, folder: Path) -> Path:
    folder.mkdir(parents=True)
    target = folder / Path(path).name
    with urllib.request.urlopen(f"{base_url}/{path}", timeout=60) as response:
        target.write_bytes(response.read())
    return target


def test_every_downloaded_notebook_runs_with_the_student_kit_alone(
    book: BookBuild, site_root: Path, kit_venv: Kit, tmp_path: Path
) -> None:
    """Both editions' downloads, each alone in a fresh folder, on the kit's kernel: one runner
    per edition, side by side. Page 9 shows the build's measurement of this machine rather than
    taking another 20 s one (its code runs; what it measures is tests/measure's)."""
    measured = book_tool.measurement_path(book.output)
    assert measured.is_file(), "the build took no measurement for page 9"
    env = {**kit_venv.env, book_tool.MEASUREMENT_ENV: f"read:{measured}"}
    script = tmp_path / "run_notebooks.py"
    script.write_text(RUNNER.format(timeout=NOTEBOOK_TIMEOUT_S))
    downloaded: dict[str, list[Path]] = {}
    with serve(site_root) as base_url:
        for language in EDITIONS:
            downloaded[language] = [
                _download(
                    base_url,
                    _downloads(site_root, _page_url(language, page))[".ipynb"],
                    tmp_path / language / page.replace("/", "_"),
                )
                for page in toc_pages()
            ]

    def run(notebooks: list[Path]) -> str:
        ran = subprocess.run(
            [str(kit_venv.python), str(script), *map(str, notebooks)],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=NOTEBOOK_TIMEOUT_S * 4,
            check=False,
        )
        return ran.stdout + (ran.stderr[-3000:] if ran.returncode else "")

    with ThreadPoolExecutor(max_workers=len(EDITIONS)) as pool:
        reports = list(pool.map(run, downloaded.values()))
    report = "\n".join(reports)
    notebooks = [n for group in downloaded.values() for n in group]
    failed = [line for line in report.splitlines() if line.startswith("FAILED")]
    assert not failed, report[-6000:]
    assert report.count("RAN ") == len(notebooks), report[-6000:]


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
