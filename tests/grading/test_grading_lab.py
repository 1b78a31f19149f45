"""``make lab``: JupyterLab on the exercises, with nbgrader's assignment list and Validate working.

The test runs the recipe's two commands (on a copy of exercises/, with a temporary workspace) and
asks the running server what the Assignments tab and the Validate button ask it.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from .conftest import grading_env
from .grading_cases import ASSIGNMENTS, ROOT

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("grading")]
TOKEN = "roofline-test-token"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _call(url: str, data: bytes | None = None) -> dict:
    request = urllib.request.Request(url, data=data, headers={"Authorization": f"token {TOKEN}"})
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.loads(response.read())


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory):
    base = tmp_path_factory.mktemp("lab")
    exercises = base / "exercises"
    shutil.copytree(ROOT / "exercises", exercises)
    env = grading_env(ROOFLINE_GRADING_DIR=str(base / "workspace"), JUPYTER_CONFIG_PATH=str(ROOT))
    env["JUPYTER_RUNTIME_DIR"] = str(base / "runtime")
    published = subprocess.run(
        [sys.executable, "-m", "roofline_grader.lab"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert published.returncode == 0, published.stderr
    port = _free_port()
    # the Makefile's lab recipe (run from inside exercises/), on the copy, with a port and a token
    lab_command = [sys.executable, "-m", "jupyterlab"]
    recipe = ["--ServerApp.jpserver_extensions", "nbgrader.server_extensions.formgrader=False"]
    recipe += ["--allow-root"] if os.geteuid() == 0 else []
    options = ["--no-browser", f"--port={port}", f"--IdentityProvider.token={TOKEN}"]
    server = subprocess.Popen(
        [*lab_command, *recipe, *options, "--ServerApp.ip=127.0.0.1"],
        cwd=exercises,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                _call(f"{url}/api/status")
                break
            except (urllib.error.URLError, ConnectionError):
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.5)
        yield url, base, published.stdout
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_the_exchange_holds_the_six_problems(lab) -> None:
    _, base, printed = lab
    outbound = base / "workspace" / "exchange" / "roofline" / "outbound"
    assert sorted(p.name for p in outbound.iterdir()) == list(ASSIGNMENTS)
    assert "released problem1" in printed


def test_the_assignments_tab_lists_them_as_downloaded(lab) -> None:
    url, _, _ = lab
    reply = _call(f"{url}/assignments?course_id=roofline")
    assert reply["success"], reply
    listed = {a["assignment_id"]: a for a in reply["value"]}
    assert sorted(listed) == list(ASSIGNMENTS)
    assert {a["status"] for a in listed.values()} == {"fetched"}


def test_the_validate_button_runs_the_visible_checks(lab) -> None:
    url, _, _ = lab
    reply = _call(f"{url}/assignments/validate", data=b"path=problem5/problem5.ipynb")
    assert reply["success"], reply
    failed = reply["value"]["failed"]
    assert len(failed) == 3 and all("NameError" in f["error"] for f in failed)
