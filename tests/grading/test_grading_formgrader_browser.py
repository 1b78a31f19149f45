"""``make formgrader`` in headless Chromium, as an instructor grading the written answers sees it.

A class of three is graded with the real ``roofline-grade`` (tests/grading/test_grading_manual.py's
:func:`small_class`), then ``python -m roofline_grader.handgrading.formgrader`` (what ``make formgrader``
runs) serves nbgrader's formgrader on that workspace. In the browser, with every request to
another host refused and recorded: the Manage Assignments page shows no exchange warning; alice's
Problem 4 shows her answer with its math typeset by MathJax, the model answer and the rubric
beside it; and a score typed into formgrader's box lands in the gradebook (formgrader's own
JavaScript works with the MathJax it is given).

Screenshots land in /tmp/formgrader-shots/.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from nbgrader.api import Gradebook

from tests.book.browser import chromium_page, require_chromium
from tests.processes import dies_with_parent

from .conftest import grade_quietly, grading_env
from .grading_cases import ROOT
from .lab_server import stop_server
from .test_grading_manual import RUBRIC_PHRASE, small_class

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.slow

SHOTS = Path("/tmp/formgrader-shots")
TOKEN = "roofline-formgrader-token"
START_TIMEOUT_S = 180
"""How long the server may take to answer on a busy two-core machine."""
WAIT_MS = 120_000


@dataclass
class Formgrader:
    url: str
    workspace: Path
    log: Path
    requests_elsewhere: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)

    def submission_id(self, student: str) -> str:
        with Gradebook(f"sqlite:///{self.workspace / 'gradebook.db'}", course_id="roofline") as gb:
            return gb.find_submission_notebook("problem4", "problem4", student).id

    def hand_score(self, student: str) -> float | None:
        with Gradebook(f"sqlite:///{self.workspace / 'gradebook.db'}", course_id="roofline") as gb:
            return gb.find_grade("p4c_why", "problem4", "problem4", student).manual_score


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_until_up(url: str, server: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        try:
            request = urllib.request.Request(
                f"{url}/api/status", headers={"Authorization": f"token {TOKEN}"}
            )
            with urllib.request.urlopen(request, timeout=30):
                return
        except (urllib.error.URLError, ConnectionError) as error:
            if server.poll() is not None:
                raise AssertionError(f"formgrader exited:\n{log.read_text()[-3000:]}") from error
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"formgrader did not answer:\n{log.read_text()[-3000:]}"
                ) from error
            time.sleep(0.5)


@contextlib.contextmanager
def serving(base: Path, submissions: Path) -> Iterator[Formgrader]:
    """``submissions`` graded into ``base/workspace``, and formgrader serving that workspace."""
    workspace = base / "workspace"
    run = grade_quietly(submissions, workspace)
    assert run.returncode == 0, run.stderr[-3000:]
    assert not (workspace / "exchange").exists(), "the launcher is what creates it"
    port, log = _free_port(), base / "formgrader.log"
    command = [
        sys.executable,
        "-m",
        "roofline_grader.handgrading.formgrader",
        "--workspace",
        str(workspace),
    ]
    command += ["--port", str(port), "--token", TOKEN, "--no-browser"]
    with log.open("w") as out:
        server = subprocess.Popen(
            command,
            cwd=ROOT,
            env=grading_env(JUPYTER_RUNTIME_DIR=str(base / "runtime")),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=dies_with_parent,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(url, server, log)
        printed = log.read_text()
        assert f"formgrader: open {url}/formgrader?token={TOKEN}" in printed, printed[:2000]
        yield Formgrader(url, workspace, log)
    finally:
        stop_server(server)


@pytest.fixture(scope="module")
def formgrader(tmp_path_factory: pytest.TempPathFactory, release: Path) -> Iterator[Formgrader]:
    require_chromium()
    base = tmp_path_factory.mktemp("formgrader")
    with serving(base, small_class(release, base / "submissions")) as served:
        yield served


@contextlib.contextmanager
def watching(formgrader: Formgrader) -> Iterator[Page]:
    """A Chromium page on ``formgrader``, offline: a request to another host is refused and
    recorded, and so is every script error and every dialog (an ``alert`` a payload would open)."""
    with chromium_page(timeout_ms=WAIT_MS) as page:

        def route(route) -> None:
            if route.request.url.startswith(formgrader.url):
                route.continue_()
            else:
                formgrader.requests_elsewhere.append(route.request.url)
                route.abort()

        def dialog(dialog) -> None:
            formgrader.page_errors.append(f"dialog: {dialog.message}")
            dialog.dismiss()

        page.route("**/*", route)
        page.on("pageerror", lambda error: formgrader.page_errors.append(str(error)))
        page.on("dialog", dialog)
        yield page


@pytest.fixture(scope="module")
def page(formgrader: Formgrader) -> Iterator[Page]:
    SHOTS.mkdir(parents=True, exist_ok=True)
    with watching(formgrader) as page:
        yield page


def test_manage_assignments_shows_no_exchange_warning(page: Page, formgrader: Formgrader) -> None:
    page.goto(f"{formgrader.url}/formgrader?token={TOKEN}")
    page.wait_for_selector("text=problem4")
    page.screenshot(path=str(SHOTS / "manage-assignments.png"))
    warnings = page.locator(".alert-warning").all_inner_texts()
    assert warnings == [], warnings
    assert (formgrader.workspace / "exchange").is_dir()


_MATH_DONE = """
async () => {
  await MathJax.startup.promise;
  return document.querySelectorAll('mjx-container').length;
}
"""


def test_the_written_answer_shows_with_math_model_answer_and_rubric(
    page: Page, formgrader: Formgrader
) -> None:
    page.goto(
        f"{formgrader.url}/formgrader/submissions/{formgrader.submission_id('alice')}/"
        f"?token={TOKEN}"
    )
    typeset = page.evaluate(_MATH_DONE)
    answer = page.locator(".roofline-beside > .cell")
    rubric = page.locator("#p4c_why-rubric")
    page.locator(".roofline-beside").screenshot(path=str(SHOTS / "written-answer.png"))
    page.screenshot(path=str(SHOTS / "submission-full.png"), full_page=True)

    assert typeset > 0, "MathJax typeset nothing"
    assert answer.locator("mjx-container").count() >= 2, "the student's $B$ and $$I = ...$$"
    assert rubric.locator("mjx-container").count() > 0, "the rubric's math"
    assert "$B$" not in page.locator("body").inner_text(), "math left raw"
    assert page.locator("mjx-merror").count() == 0, page.locator("mjx-merror").all_inner_texts()
    text = rubric.inner_text()
    assert "Model answer" in text and "mixture-of-experts" in text
    assert "Rubric" in text and RUBRIC_PHRASE in text and "Partial credit" in text
    a, r = answer.bounding_box(), rubric.bounding_box()
    assert a and r and r["x"] >= a["x"] + a["width"] - 1, "the rubric is beside the answer"
    assert r["y"] < a["y"] + a["height"], "…at the same height"
    assert formgrader.requests_elsewhere == [], "the page needs no network"
    assert formgrader.page_errors == [], formgrader.page_errors


def test_a_score_typed_in_formgrader_lands_in_the_gradebook(
    page: Page, formgrader: Formgrader
) -> None:
    assert formgrader.hand_score("alice") is None
    box = page.locator("input.score#p4c_why")
    box.fill("1.5")
    box.press("Tab")
    deadline = time.monotonic() + 60
    while formgrader.hand_score("alice") != 1.5 and time.monotonic() < deadline:
        time.sleep(0.5)
    page.screenshot(path=str(SHOTS / "scored.png"))
    assert formgrader.hand_score("alice") == 1.5
    assert formgrader.page_errors == [], formgrader.page_errors
