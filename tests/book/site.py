"""What the book tests share: the repository's paths, the pages of the toc, a strict build, a
local web server for the built HTML, and the glue references of a page's source.

Run as a script to build the book into OUTPUT (a --path-output; default a new temporary folder)
and screenshot every page into _build/screenshots/, for looking at it by eye::

    .venv/bin/python -m tests.book.site [OUTPUT]
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import importlib.util
import io
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from urllib.parse import urlsplit

import yaml

from tools import book as book_tool

ROOT = Path(__file__).resolve().parents[2]
INTERPRETER_BIN = Path(sys.executable).parent
"""The running interpreter's scripts folder (``.venv/bin`` under make, or whichever environment
pytest runs in), where jupyter-book and the kernel's Python are installed."""
JUPYTER_BOOK = INTERPRETER_BIN / "jupyter-book"
SCREENSHOTS = ROOT / "_build" / "screenshots"
BUILD_TIMEOUT_S = 540
BUILD_LOG = "build.log"
SITE_URL = "https://readers.example.org/some/subpath/"
"""The address the tests' build is made for (``make book BASEURL=...``): a project subpath, as
GitHub Pages gives a fork (``https://USER.github.io/REPO/``). :func:`serve` serves the site at
the same path, so every browser test reads the site where it would be published."""
SITE_PATH = urlsplit(SITE_URL).path
REUSE_ENV = "ROOFLINE_BOOK_REUSE"
"""Developers only: set to a --path-output that :func:`build_book` filled earlier and the tests
inspect that build instead of making a fresh one (CI never sets it)."""


def toc_pages(toc: Path = ROOT / "_toc.yml") -> list[str]:
    """The toc's pages in reading order, as paths without suffix (``book/intro``, ...)."""
    data = yaml.safe_load(toc.read_text())
    pages = [data["root"]]

    def walk(entries: list[dict]) -> None:
        for entry in entries:
            if "file" in entry:
                pages.append(entry["file"])
            walk(entry.get("chapters", []) + entry.get("sections", []))
            for part in entry.get("parts", []):
                walk(part.get("chapters", []))

    walk(data.get("chapters", []))
    for part in data.get("parts", []):
        walk(part.get("chapters", []))
    return [str(Path(p).with_suffix("")) for p in pages]


def book_env() -> dict[str, str]:
    """The environment `make book` gives the build (the Makefile exports these)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)
    env["MPLBACKEND"] = "Agg"
    env["PATH"] = f"{INTERPRETER_BIN}{os.pathsep}{env.get('PATH', '')}"
    return env


BookBuild = book_tool.EditionBuild
"""A finished build of one edition: exit status, log, seconds, output, HTML, warnings."""


def build_book(output: Path, extra_args: tuple[str, ...] = ()) -> BookBuild:
    """Build the book from the repository, strictly (``-W --keep-going``), into ``output``:
    every edition side by side (tools/book.py, as ``make book`` does), each translated one
    published under the English HTML, for the address :data:`SITE_URL`. Returns the English
    build; :func:`edition_build` gives the others.

    Nitpicky mode (Sphinx's ``-n``: a reference to a missing target is a warning) comes from
    ``_config.yml``, so this build and ``make book`` check the same references.

    ``output`` is the ``--path-output``: the HTML, the doctrees and the execution cache all go
    there, so a build never touches the repository's own ``_build``.
    """
    languages = [edition.language for edition in book_tool.EDITIONS]
    builds = book_tool.build_editions(
        output,
        languages,
        extra_args,
        timeout_s=BUILD_TIMEOUT_S,
        base_env=book_env(),
        site=SITE_URL,
    )
    for build in builds:
        (build.output / BUILD_LOG).write_text(f"{build.returncode}\n{build.seconds}\n{build.log}")
    return builds[0]


def edition_build(output: Path, language: str) -> BookBuild:
    """The build of one translated edition that :func:`build_book` made into ``output``."""
    return reuse_build(book_tool.edition_output(output, language), language)


TRANSLATED = tuple(e.language for e in book_tool.EDITIONS[1:])
"""The translated editions' languages (zh_CN)."""


def published_html(output: Path, language: str) -> Path:
    """Where an edition is served, under the English site (``_build/html/zh``)."""
    return book_tool.published_html(output, language)


def sphinx_project(folder: Path, extensions: tuple[str, ...], settings: str = "") -> Path:
    """A small Sphinx project in ``folder`` using extensions of the book's (book/_ext) beside
    Sphinx's own: its conf.py, returned; the caller writes the pages."""
    folder.mkdir(parents=True, exist_ok=True)
    conf = folder / "conf.py"
    conf.write_text(
        f"import sys\nsys.path.insert(0, {str(ROOT / 'book' / '_ext')!r})\n"
        f"extensions = {list(extensions)!r}\n{settings}"
    )
    return conf


def sphinx_build(
    source: Path, output: Path, *options: str, timeout_s: float = 300
) -> subprocess.CompletedProcess[str]:
    """``sphinx-build -W -q`` of a small project, in the book's environment."""
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-q", *options, str(source), str(output)],
        capture_output=True,
        text=True,
        env=book_env(),
        timeout=timeout_s,
    )


def reuse_build(output: Path, language: str = "en") -> BookBuild:
    """A build that :func:`build_book` made earlier into ``output`` (its status and log kept)."""
    returncode, seconds, log = (output / BUILD_LOG).read_text().split("\n", 2)
    return BookBuild(language, int(returncode), log, float(seconds), output)


class _SubpathHandler(http.server.SimpleHTTPRequestHandler):
    """Files of ``directory`` at ``path`` (``/some/subpath/``) and nothing outside it, as GitHub
    Pages serves a project site: a request outside the path is a 404, and a missing file under
    it gets the site's ``404.html`` with status 404 (a plain 404 if the site has none)."""

    path_prefix = "/"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def translate_path(self, path: str) -> str:
        inside = path.split("?", 1)[0].split("#", 1)[0]
        return super().translate_path("/" + inside[len(self.path_prefix) :])

    def send_head(self):  # type: ignore[no-untyped-def]
        if not self.path.startswith(self.path_prefix):
            self.send_error(404, "outside the site's path")
            return None
        local = Path(self.translate_path(self.path))
        if local.is_dir() and not (local / "index.html").is_file():
            local = local / "index.html"  # a folder without an index is missing
        if not local.exists():
            page = Path(self.directory) / "404.html"
            if not page.is_file():
                self.send_error(404)
                return None
            body = page.read_bytes()
            self.send_response(404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            return io.BytesIO(body)
        return super().send_head()


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return  # the browser closed a connection early (a page closed mid-download)
        super().handle_error(request, client_address)


@contextlib.contextmanager
def serve(directory: Path, path: str = SITE_PATH) -> Iterator[str]:
    """Serve ``directory`` on 127.0.0.1 (a free port) at ``path`` (default: :data:`SITE_URL`'s)
    for the duration, as :class:`_SubpathHandler` does; yield the site's URL without its final
    slash (``http://127.0.0.1:PORT/some/subpath``)."""
    handler_class = type("Handler", (_SubpathHandler,), {"path_prefix": path})
    handler = functools.partial(handler_class, directory=str(directory))
    server = _Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{path.rstrip('/')}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


# --------------------------------------------------------------------------------------------
# Glue references in a page's MyST source
# --------------------------------------------------------------------------------------------

_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,}|:{3,})\s*(\S*)")
_GLUE_ROLE = re.compile(r"\{glue:text\}`([^`]+)`")
# directives whose body is MyST (and may hold glue references); any other fence is code
_PROSE_DIRECTIVES = re.compile(
    r"^\{(glue:figure|table|figure|admonition|note|tip|warning|important|caution|attention|"
    r"danger|error|hint|seealso|dropdown|takeaway|erratum|worked-solution|topic|sidebar|"
    r"margin|epigraph|div|card|tab-item|tab-set|grid|grid-item|grid-item-card)\}"
)


def glue_references(source: str) -> list[str]:
    """Names of the ``{glue:text}`` references in a page, in document order, skipping code cells
    and code blocks. A ``name:format`` reference gives ``name``."""
    names: list[str] = []
    stack: list[tuple[str, bool]] = []  # (closing fence, is prose)
    for line in source.splitlines():
        match = _FENCE.match(line)
        if match:
            fence, info = match.group(2), match.group(3)
            if stack and line.strip() == stack[-1][0] and not info:
                stack.pop()
                continue
            if stack and not stack[-1][1]:
                continue  # a fence-like line inside code
            prose = fence.startswith(":") or bool(_PROSE_DIRECTIVES.match(info))
            stack.append((fence, prose))
            if prose:  # a directive's argument (a table caption, a box title) is prose too
                names.extend(m.group(1).split(":")[0] for m in _GLUE_ROLE.finditer(line))
            continue
        if stack and not stack[-1][1]:
            continue
        if line.lstrip().startswith(":") and re.match(r"^\s*:[\w-]+:", line):
            continue  # a directive option (:name:, :alt:, ...)
        names.extend(m.group(1).split(":")[0] for m in _GLUE_ROLE.finditer(line))
    return names


def front_matter_free(source: str) -> str:
    """The page without its YAML front matter."""
    if source.startswith("---"):
        end = source.find("\n---", 3)
        if end != -1:
            return source[end + 4 :]
    return source


def page_glue_references(page: str) -> list[str]:
    """Glue references of a toc page (``book/01_where_the_time_goes``)."""
    return glue_references(front_matter_free((ROOT / f"{page}.md").read_text()))


def main(argv: list[str]) -> int:
    """Build into OUTPUT (default: a new temporary folder) and screenshot every page."""
    import tempfile

    from tests.book.browser import check_site

    output = Path(argv[0]) if argv else Path(tempfile.mkdtemp(prefix="book-"))
    output.mkdir(parents=True, exist_ok=True)
    build = build_book(output)
    print(f"build: exit {build.returncode} in {build.seconds:.0f} s, into {output}")
    for warning in build.warnings:
        print("  ", warning)
    report = check_site(build.html, toc_pages(), SCREENSHOTS)
    for language in TRANSLATED:
        translated = edition_build(output, language)
        print(f"build [{language}]: exit {translated.returncode} in {translated.seconds:.0f} s")
        for warning in translated.warnings:
            print("  ", warning)
        folder = published_html(output, language).relative_to(build.html)
        pages = [f"{folder}/{page}" for page in toc_pages()]
        for problem in check_site(build.html, pages, SCREENSHOTS / language).problems:
            print("  ", problem)
    for problem in report.problems:
        print("  ", problem)
    print(f"{len(report.pages)} pages checked, screenshots in {SCREENSHOTS}")
    print(f"to test this build again: {REUSE_ENV}={output} pytest tests/book")
    return 0 if build.returncode == 0 and not report.problems else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))


def book_extension(name: str) -> ModuleType:
    """One of the book's Sphinx extensions (book/_ext/<name>.py), loaded on its own, as a test
    reads its functions; registered in sys.modules (its dataclasses look their module up)."""
    spec = importlib.util.spec_from_file_location(
        f"book_ext_{name}", ROOT / "book" / "_ext" / f"{name}.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
