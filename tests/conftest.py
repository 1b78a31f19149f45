"""What `make test` gives the suite, given to a plain ``python -m pytest`` as well.

`make test` runs pytest in the Makefile's environment (the repository on PYTHONPATH, the venv's
scripts first on PATH, MPLBACKEND=Agg) after its set-up. Here:

- the same environment is exported, from the running interpreter (whichever venv that is), with
  :func:`roofline_grader.course.command_env`, the function the grading tests already use;
- the book's JavaScript (make's ``book/_static/vendor`` step) is fetched by the book fixture when
  missing (tests/book/conftest.py);
- the system tools that only root can install are checked, not installed: Debian's Chromium (the
  browser tests skip or fail themselves, :func:`tests.book.browser.require_chromium`) and the
  grading sandbox (bubblewrap; ``make sandbox``). Without the sandbox, the end-to-end grading
  tests are skipped, saying what to run; in CI (``CI=true``) they run, and fail, never skip.

`make test` spreads the tests over workers (``--dist loadgroup``); a plain pytest runs the same
tests one after another. A slow test runs on the worker of its module (an ``xdist_group`` named
after the module, unless it names a group of its own): a module's fixtures (a graded class, a
server, a browser) are then made once, and the modules spread over the workers. Fixtures shared
by several modules (the book's build, the graded class of tests/grading) are made once per run
under a file lock. A run stopped by SIGTERM tears its fixtures down as after a
Ctrl-C, and the servers the tests start die with the process that started them
(tests/processes.py), so a stopped run leaves no server behind.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from roofline_grader.course import command_env
from tests.processes import stop_gracefully_on_sigterm
from tools import ensure_sandbox

ROOT = Path(__file__).resolve().parents[1]


def in_ci() -> bool:
    """True in CI (``CI=true``), where a missing prerequisite fails a test and never skips it."""
    return os.environ.get("CI", "").lower() == "true"


def _export_make_environment() -> None:
    env = command_env(ROOT)
    for name in ("PYTHONPATH", "PATH"):  # already first there (under make, or an xdist worker)
        first = os.environ.get(name, "").split(os.pathsep)[0]
        if first == env[name].split(os.pathsep)[0]:
            env[name] = os.environ[name]
    os.environ.update(env)


_export_make_environment()


def pytest_configure(config: pytest.Config) -> None:
    stop_gracefully_on_sigterm()


def pytest_runtest_setup(item: pytest.Item) -> None:
    # again before every test: a library used in this process may have put SIGTERM back to its
    # default since (asyncio's remove_signal_handler does), which kills without a teardown
    stop_gracefully_on_sigterm()


SLOW_FIXTURES = frozenset(
    {
        # the book built in both languages, and Chromium's pass over it (tests/book/conftest.py)
        *("book", "html", "site", "translated_book", "translated_pages", "translated_site"),
        # servers and browsers: JupyterLab, formgrader, the student kit's own venv
        *("lab", "formgrader", "kit", "browser", "server"),
        # whole classes graded with real kernels (tests/grading)
        *("graded", "graded_class", "hostile", "one_worker_grades"),
    }
)
"""Fixtures that build the book, start a browser or server, or grade with real kernels: a test
that uses one is in the slow tier (``make test``, not ``make check``) even if it is not marked."""


def module_group(item: pytest.Item) -> str:
    """The xdist group of a slow test: its module's path under tests/ ('grading/test_grading_run')."""
    return item.path.relative_to(ROOT / "tests").with_suffix("").as_posix()


@pytest.hookimpl(tryfirst=True)  # before ``-m "not slow"`` deselects by marker
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Put every test that uses a :data:`SLOW_FIXTURES` fixture in the slow tier, and every slow
    test without a group of its own in its module's group; outside CI, skip the end-to-end
    grading tests when the grading sandbox is not set up."""
    for item in items:
        if SLOW_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
        if item.get_closest_marker("slow") and not item.get_closest_marker("xdist_group"):
            item.add_marker(pytest.mark.xdist_group(module_group(item)))
    if in_ci() or not sys.platform.startswith("linux"):
        return
    lacking = ensure_sandbox.missing()
    if not lacking:
        return
    skip = pytest.mark.skip(
        reason=f"the grading sandbox lacks its {' and '.join(lacking)} (bubblewrap): run "
        "`make sandbox` (as root it installs them); CI never skips these"
    )
    grading = ROOT / "tests" / "grading"
    for item in items:
        if item.path.is_relative_to(grading) and item.get_closest_marker("slow"):
            item.add_marker(skip)
