"""JupyterLab started as a student starts it, for the lab tests: kit/start_lab.py on a copy of a
release, with a port and a token.

:func:`running_lab` runs what ``make lab`` runs (``python -m roofline_grader.course.lab``, then the
launcher with the repository as course configuration) or, with ``course_config=False``, what the
student kit runs (the launcher alone), in a temporary folder with its own grading workspace,
runtime and JupyterLab workspaces. The server's output goes to ``lab.log`` in that folder.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from tests.processes import dies_with_parent

from .conftest import grading_env
from .grading_cases import ROOT

LAUNCHER = ROOT / "kit" / "start_lab.py"
TOKEN = "roofline-test-token"
START_TIMEOUT_S = 180
"""How long a server may take to answer on a busy two-core machine."""


def load_launcher() -> ModuleType:
    """kit/start_lab.py as a module (it is a standalone script, not part of a package)."""
    spec = importlib.util.spec_from_file_location("start_lab", LAUNCHER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Lab:
    """A running JupyterLab: its URL, the student's work folder and where its files live."""

    url: str
    base: Path
    work: Path
    published: str
    """What ``python -m roofline_grader.course.lab`` printed (empty for the kit)."""

    @property
    def log(self) -> Path:
        return self.base / "lab.log"

    def launcher_output(self) -> str:
        """What the launcher printed: the lines before JupyterLab's own log (``[I 2026-...``)."""
        printed = []
        for line in self.log.read_text(errors="replace").splitlines():
            if line.startswith("["):
                break
            printed.append(line)
        return "\n".join(printed)

    def call(self, path: str, data: bytes | None = None) -> dict:
        """The JSON reply to GET (or POST ``data``) ``path``, authenticated with the token."""
        request = urllib.request.Request(
            f"{self.url}{path}", data=data, headers={"Authorization": f"token {TOKEN}"}
        )
        with urllib.request.urlopen(request, timeout=300) as response:
            return json.loads(response.read())

    def put(self, path: str, model: dict) -> dict:
        """PUT the JSON ``model`` to ``path`` (as JupyterLab saves a file); the JSON reply."""
        request = urllib.request.Request(
            f"{self.url}{path}",
            data=json.dumps(model).encode(),
            method="PUT",
            headers={"Authorization": f"token {TOKEN}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=300) as response:
            return json.loads(response.read())

    def status(self, path: str) -> int:
        """The HTTP status of GET ``path`` (authenticated)."""
        request = urllib.request.Request(
            f"{self.url}{path}", headers={"Authorization": f"token {TOKEN}"}
        )
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                return response.status
        except urllib.error.HTTPError as error:
            return error.code

    def page_config(self) -> dict:
        """The page configuration JupyterLab hands the browser (disabled plugins included)."""
        request = urllib.request.Request(
            f"{self.url}/lab", headers={"Authorization": f"token {TOKEN}"}
        )
        with urllib.request.urlopen(request, timeout=120) as response:
            html = response.read().decode()
        start = html.index('id="jupyter-config-data"')
        start = html.index(">", start) + 1
        return json.loads(html[start : html.index("</script>", start)])

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-3000:] if self.log.exists() else ""


def _wait_until_up(lab: Lab, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        try:
            lab.call("/api/status")
            return
        except (urllib.error.URLError, ConnectionError) as error:
            if server.poll() is not None:
                raise AssertionError(f"JupyterLab exited:\n{lab.tail()}") from error
            if time.monotonic() > deadline:
                raise AssertionError(f"JupyterLab did not answer:\n{lab.tail()}") from error
            time.sleep(0.5)


def stop_server(server: subprocess.Popen) -> None:
    """SIGTERM (JupyterLab shuts its kernels down), then SIGKILL the session it started."""
    server.terminate()
    try:
        server.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(timeout=30)


@contextmanager
def running_lab(
    base: Path, release: Path, *, course_config: bool = True, language: str = "en"
) -> Iterator[Lab]:
    """JupyterLab on a copy of ``release`` (the student's work folder is ``base/work``).

    With ``course_config`` (``make lab``) the release is first published to the local exchange
    and the repository's nbgrader_config.py goes on the configuration path; without it, the
    launcher runs alone, as in the student kit. ``language`` is the launcher's ``--language``
    (its default, from the system's locale, is tested on its own).
    """
    exercises, work = base / "exercises", base / "work"
    shutil.copytree(release, exercises)
    env = grading_env(
        ROOFLINE_GRADING_DIR=str(base / "workspace"),
        JUPYTER_RUNTIME_DIR=str(base / "runtime"),
        JUPYTERLAB_WORKSPACES_DIR=str(base / "lab-workspaces"),
    )  # MPLBACKEND=Agg included, as make exports it
    published = ""
    if course_config:
        run = subprocess.run(
            [sys.executable, "-m", "roofline_grader.course.lab"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert run.returncode == 0, run.stderr
        published = run.stdout
    port = _free_port()
    command = [sys.executable, str(LAUNCHER), "--exercises", str(exercises), "--work", str(work)]
    command += ["--course-config", str(ROOT)] if course_config else []
    command += ["--language", language]
    command += ["--no-browser", f"--port={port}", f"--IdentityProvider.token={TOKEN}"]
    command += ["--ServerApp.ip=127.0.0.1"]
    lab = Lab(f"http://127.0.0.1:{port}", base, work, published)
    with lab.log.open("w") as log:
        server = subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=dies_with_parent,
        )
    try:
        _wait_until_up(lab, server)
        yield lab
    finally:
        stop_server(server)
