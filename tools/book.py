"""Build the book's editions: English and each translation (``make book``).

English is ``jupyter-book build`` of the repository, as always, into ``OUTPUT/_build/html``. Each
translated edition (``EDITIONS`` in book/_ext/i18n.py; Chinese: ``zh_CN``) is the same sources
built again with Sphinx's ``language`` set, which replaces the prose by the catalogs in
``locales/`` (book/_ext/i18n.py fails the build on any message without a current translation).
It builds into ``OUTPUT/_build/editions/<language>/`` and is then published under the English
site, at ``OUTPUT/_build/html/<folder>/`` (Chinese: ``zh/``), so that one folder serves both and
the language switch on every page is a relative link. The editions build side by side, after
page 9's measurement of the build machine, taken once so that all show the same figures
(:func:`take_measurement`).

A translated edition has its own execution cache: its figures are drawn again with the
language's words (``ROOFLINE_LANG``, :mod:`roofline_lib.words`) and a CJK font
(``ROOFLINE_CJK_FONT``, fetched by tools/fetch_static.py). Numbers are the same code's, so equal
to the English edition's (tests/book/test_book_translation.py checks it).

The site is built for one address, the **site URL** (``_config.yml``'s ``html.baseurl``, or
``--baseurl``, which ``make book BASEURL=...`` and the Pages workflow pass): its sitemap, link
previews and 404 page name it (book/_ext/published.py). Each edition's ``html_baseurl`` is that
address and its folder (Chinese: ``SITE/zh/``).

    .venv/bin/python -m tools.book [--all] [--path-output DIR] [--language en|zh_CN ...]
                                   [--baseurl https://USER.github.io/REPO/]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from urllib.parse import urlsplit

import yaml

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "_config.yml"
FONT = ROOT / "book" / "_fonts" / "IBMPlexSansSC-Regular.otf"
"""The OpenType CJK font matplotlib draws a Chinese figure's words with."""
LANGUAGE_ENV = "ROOFLINE_LANG"
FONT_ENV = "ROOFLINE_CJK_FONT"


def _i18n() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "course_book_i18n", ROOT / "book" / "_ext" / "i18n.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


I18N = _i18n()
"""book/_ext/i18n.py, the Sphinx extension of the editions (its editions, served fonts)."""
EDITIONS = I18N.EDITIONS
"""The editions, English first (book/_ext/i18n.py's EDITIONS)."""


@dataclass(frozen=True)
class EditionBuild:
    """One edition's finished build: exit status, log, seconds and where it wrote."""

    language: str
    returncode: int
    log: str
    seconds: float
    output: Path
    """The edition's --path-output."""

    @property
    def html(self) -> Path:
        return self.output / "_build" / "html"

    @property
    def executed(self) -> Path:
        """The executed notebooks (``<page>.ipynb``), with their glue outputs."""
        return self.output / "_build" / "jupyter_execute"

    @property
    def warnings(self) -> list[str]:
        """Sphinx's warnings and errors (the kernel's own TCP notice is not one)."""
        pattern = re.compile(r"\b(WARNING|ERROR|CRITICAL)\b")
        return [
            line
            for line in self.log.splitlines()
            if pattern.search(line) and "[IPKernelApp]" not in line
        ]


def edition_output(output: Path, language: str) -> Path:
    """The --path-output of an edition: ``output`` itself for English."""
    return output if language == EDITIONS[0].language else output / "_build" / "editions" / language


def published_html(output: Path, language: str) -> Path:
    """Where the edition's HTML is served: the English site's root, or its folder under it."""
    folder = next(e.folder for e in EDITIONS if e.language == language)
    root = output / "_build" / "html"
    return root / folder if folder else root


def site_url(given: str | None = None) -> str:
    """The address the site is published at: ``given`` (``--baseurl``, make's ``BASEURL``), else
    ``_config.yml``'s ``html.baseurl``; an absolute http(s) URL, ending in ``/`` (added if
    missing). ValueError naming the setting otherwise."""
    url = given
    if url is None:
        config = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
        url = (config.get("html") or {}).get("baseurl")
    where = "--baseurl (make book BASEURL=...)" if given is not None else "html.baseurl"
    parts = urlsplit(url or "")
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise ValueError(
            f"{where} must be the absolute http:// or https:// address the site is published at, "
            f"such as https://USER.github.io/REPO/, got {url!r}"
        )
    return url if url.endswith("/") else f"{url}/"


def edition_site_url(site: str, language: str) -> str:
    """An edition's ``html_baseurl``: the site's address and the edition's folder."""
    folder = next(e.folder for e in EDITIONS if e.language == language)
    return f"{site}{folder}/" if folder else site


def edition_config(
    output: Path,
    language: str,
    execution_cache: Path | None = None,
    site: str | None = None,
) -> Path:
    """_config.yml with the edition's language, its execution cache (default: its own, in its
    output) and its address under the site's (``site``, default ``html.baseurl``), written beside
    the edition's output. English with no cache and no other address given: _config.yml."""
    if language == EDITIONS[0].language and execution_cache is None and site is None:
        return CONFIG
    config = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
    target = edition_output(output, language)
    if language != EDITIONS[0].language:
        config.setdefault("sphinx", {}).setdefault("config", {})["language"] = language
    config.setdefault("html", {})["baseurl"] = edition_site_url(site_url(site), language)
    cache = execution_cache or target / "_build" / ".jupyter_cache"
    config.setdefault("execute", {})["cache"] = str(cache)
    # Jupyter Book reads local extensions' folders relative to the configuration file
    extensions = config["sphinx"].get("local_extensions") or {}
    config["sphinx"]["local_extensions"] = {k: str(ROOT / v) for k, v in extensions.items()}
    (target / "_build").mkdir(parents=True, exist_ok=True)
    path = target / "_build" / f"_config.{language}.yml"
    path.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


MEASUREMENT_ENV = "ROOFLINE_BOOK_MEASUREMENT"
"""book/booktools.py's measured_roofline: ``write:PATH`` or ``read:PATH``."""


def measurement_path(output: Path) -> Path:
    """Where a build into ``output`` keeps the build machine's measurement (page 9)."""
    return output / "_build" / "measurement.json"


def edition_environment(
    language: str, base: dict[str, str] | None = None, output: Path | None = None
) -> dict[str, str]:
    """The build's environment: the kernel draws figures in the edition's language, and shows
    the build machine's measurement (page 9) saved in ``output``'s _build (every edition the
    same one, :func:`take_measurement`)."""
    env = dict(os.environ if base is None else base)
    if output is not None:
        env[MEASUREMENT_ENV] = f"read:{measurement_path(output)}"
    env["PYTHONPATH"] = str(ROOT)
    env["MPLBACKEND"] = "Agg"
    env[LANGUAGE_ENV] = language
    if language != EDITIONS[0].language:
        env[FONT_ENV] = str(FONT)
    return env


def take_measurement(output: Path, base_env: dict[str, str] | None = None) -> Path:
    """Measure this machine for page 9 (booktools.measured_roofline, its own budget) into
    ``output``'s _build, unless a measurement is there already: taken once, before the editions
    build side by side, so all show the same figures (delete the file to measure again)."""
    path = measurement_path(output)
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        env = edition_environment(EDITIONS[0].language, base_env)
        env[MEASUREMENT_ENV] = f"write:{path}"
        subprocess.run(
            [sys.executable, "-c", "import booktools; booktools.measured_roofline()"],
            cwd=ROOT / "book",
            env=env,
            check=True,
        )
    return path


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.kill()


def build_editions(
    output: Path,
    languages: Sequence[str],
    extra_args: tuple[str, ...] = (),
    timeout_s: float | None = None,
    base_env: dict[str, str] | None = None,
    site: str | None = None,
) -> list[EditionBuild]:
    """Build the editions strictly (-W --keep-going), side by side (each is one Sphinx process
    and one kernel at a time), after the one measurement they share, for publishing at ``site``
    (default: ``html.baseurl``); then publish each translated edition under the English HTML.
    subprocess.TimeoutExpired (every build stopped) if they are not all done within
    ``timeout_s``; ValueError for an address that is not one (:func:`site_url`)."""
    site = site_url(site) if site is not None else None
    take_measurement(output, base_env)
    start = time.monotonic()
    builds = []
    with contextlib.ExitStack() as stack:
        running = []
        for language in languages:
            target = edition_output(output, language)
            target.mkdir(parents=True, exist_ok=True)
            command = [
                str(Path(sys.executable).parent / "jupyter-book"),
                "build",
                str(ROOT),
                "-W",
                "--keep-going",
                "--config",
                str(edition_config(output, language, site=site)),
                "--path-output",
                str(target),
                *extra_args,
            ]
            log = stack.enter_context(tempfile.TemporaryFile("w+", errors="replace"))
            env = edition_environment(language, base_env, output)
            process = stack.enter_context(
                subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
            )
            stack.callback(_stop, process)  # on a timeout or an error, before its exit waits
            running.append((language, target, process, log))
        for language, target, process, log in running:
            left = None if timeout_s is None else max(0.0, timeout_s - (time.monotonic() - start))
            process.wait(left)
            log.seek(0)
            seconds = time.monotonic() - start
            builds.append(EditionBuild(language, process.returncode, log.read(), seconds, target))
    for build in builds:
        if build.language != EDITIONS[0].language and (build.html / "index.html").is_file():
            published = published_html(output, build.language)
            shutil.rmtree(published, ignore_errors=True)
            shutil.copytree(build.html, published)
    return builds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the book's editions (make book).")
    parser.add_argument("--all", action="store_true", help="rebuild every page (Sphinx -a)")
    parser.add_argument("--path-output", type=Path, default=ROOT)
    parser.add_argument(
        "--language",
        action="append",
        choices=[e.language for e in EDITIONS],
        help="build only this edition (repeatable; default: all, English first)",
    )
    parser.add_argument(
        "--baseurl",
        metavar="URL",
        help="the address the site is published at (default: _config.yml's html.baseurl)",
    )
    args = parser.parse_args(argv)
    try:
        site = site_url(args.baseurl) if args.baseurl is not None else None
    except ValueError as error:
        parser.error(str(error))
    languages = args.language or [e.language for e in EDITIONS]
    failed = False
    extra = ("--all",) if args.all else ()
    for build in build_editions(args.path_output, languages, extra, site=site):
        sys.stdout.write(build.log)
        where = published_html(args.path_output, build.language)
        status = "built" if build.returncode == 0 else f"FAILED (exit {build.returncode})"
        print(f"\n[{build.language}] {status} in {build.seconds:.0f} s: {where}/index.html\n")
        failed = failed or build.returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
