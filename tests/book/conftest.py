"""Fixtures of the book tests: one fresh, strict build per test run, and one pass of a real
browser over it.

Both are made once per run even when pytest-xdist spreads the tests over several workers: the
first worker to need them builds under a file lock in the run's shared temporary folder, and the
others wait and reuse the result. (Each test module runs on one worker, tests/conftest.py's
``xdist_group`` per module; the modules spread over the workers, so the lock is what guarantees
a single build.)

While working on the tests themselves, ``ROOFLINE_BOOK_REUSE=/path/to/output`` makes them inspect
an earlier build (made by ``python -m tests.book.site OUTPUT`` or a previous run) instead of
building; CI never sets it, so there the build is always fresh.

The build needs the book's JavaScript in book/_static/vendor, which make's set-up fetches; under a
plain pytest the fixture fetches it the same way when it is missing.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pickle
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.book.browser import SiteReport, check_site, require_chromium
from tests.book.site import (
    BUILD_LOG,
    REUSE_ENV,
    ROOT,
    SCREENSHOTS,
    TRANSLATED,
    BookBuild,
    build_book,
    edition_build,
    published_html,
    reuse_build,
    toc_pages,
)
from tests.conftest import in_ci
from tools import fetch_static

VENDOR = ROOT / "book" / "_static" / "vendor"
"""The book's JavaScript, which make's set-up fetches (its stamp: ``.fetched``)."""
FONTS = ROOT / "book" / "_fonts"
"""The Chinese edition's font, fetched with it (tools/fetch_static.py)."""


def _shared_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder all workers of this run share (each worker's basetemp is a child of it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextlib.contextmanager
def _exclusive(lock: Path) -> Iterator[None]:
    with lock.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def fetch_static_assets() -> None:
    """make's set-up step for the book's JavaScript and the Chinese edition's font, for a plain
    pytest that skipped it: fetch ``book/_static/vendor`` and ``book/_fonts`` unless they hold
    the pinned versions; skip (fail in CI) if it cannot."""
    pinned = {name: version for name, version, _ in fetch_static.PACKAGES}
    fonts = {name: version for name, version, _ in fetch_static.FONT_PACKAGES}
    stamps = {VENDOR / ".fetched": pinned, FONTS / ".fetched": fonts}
    if all(s.is_file() and json.loads(s.read_text()) == want for s, want in stamps.items()):
        return
    fetched = subprocess.run(
        [
            sys.executable,
            "tools/fetch_static.py",
            str(VENDOR.relative_to(ROOT)),
            str(FONTS.relative_to(ROOT)),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if fetched.returncode != 0:
        message = (
            "book/_static/vendor (MathJax, require.js, the widget manager) or book/_fonts (the "
            "Chinese font) is missing and could not be fetched from npm: run `make setup`\n"
            f"{fetched.stderr[-2000:]}"
        )
        (pytest.fail if in_ci() else pytest.skip)(message)


@pytest.fixture(scope="session")
def book(tmp_path_factory: pytest.TempPathFactory) -> BookBuild:
    """The whole book (the real _toc.yml), built from scratch into a temporary --path-output:
    no execution cache, no doctrees, nothing shared with the repository's own _build."""
    if os.environ.get(REUSE_ENV):
        return reuse_build(Path(os.environ[REUSE_ENV]))
    shared = _shared_dir(tmp_path_factory)
    output = shared / "book-build"
    with _exclusive(shared / "book-build.lock"):
        if (output / BUILD_LOG).is_file():
            return reuse_build(output)
        fetch_static_assets()
        output.mkdir(exist_ok=True)
        return build_book(output)


@pytest.fixture(scope="session")
def html(book: BookBuild) -> Path:
    """The built HTML folder; fails the test (not the session) if the build wrote none."""
    if not (book.html / "index.html").is_file():
        tail = "\n".join(book.log.splitlines()[-40:])
        pytest.fail(f"the book build wrote no HTML (exit {book.returncode}):\n{tail}")
    return book.html


def _site_report_once(
    tmp_path_factory: pytest.TempPathFactory, name: str, html: Path, pages: list[str], shots: Path
) -> SiteReport:
    """:func:`check_site` once per run, whichever worker asks first (the others read its
    pickled report)."""
    require_chromium()
    shared = _shared_dir(tmp_path_factory)
    record = shared / f"{name}.pickle"
    with _exclusive(shared / f"{name}.lock"):
        if record.is_file():
            return pickle.loads(record.read_bytes())
        report = check_site(html, pages, shots)
        record.write_bytes(pickle.dumps(report))
        return report


@pytest.fixture(scope="session")
def site(html: Path, tmp_path_factory: pytest.TempPathFactory) -> SiteReport:
    """Every toc page opened in headless Chromium; screenshots go to _build/screenshots/."""
    return _site_report_once(tmp_path_factory, "site-report", html, toc_pages(), SCREENSHOTS)


@pytest.fixture(scope="session")
def translated_book(book: BookBuild) -> BookBuild:
    """The Chinese edition, built with the English one (same sources, ``language: zh_CN``)."""
    (language,) = TRANSLATED
    build = edition_build(book.output, language)
    if not (build.html / "index.html").is_file():
        tail = "\n".join(build.log.splitlines()[-40:])
        pytest.fail(f"the {language} build wrote no HTML (exit {build.returncode}):\n{tail}")
    return build


@pytest.fixture(scope="session")
def translated_pages(book: BookBuild, translated_book: BookBuild) -> list[str]:
    """The Chinese edition's toc pages as paths under the English site (``zh/book/intro``)."""
    (language,) = TRANSLATED
    folder = published_html(book.output, language).relative_to(book.html)
    return [f"{folder}/{page}" for page in toc_pages()]


@pytest.fixture(scope="session")
def translated_site(
    book: BookBuild, translated_pages: list[str], tmp_path_factory: pytest.TempPathFactory
) -> SiteReport:
    """Every page of the Chinese edition opened in headless Chromium, served with the English
    site (as published); screenshots go to _build/screenshots/zh_CN/."""
    return _site_report_once(
        tmp_path_factory,
        "translated-site-report",
        book.html,
        translated_pages,
        SCREENSHOTS / TRANSLATED[0],
    )
