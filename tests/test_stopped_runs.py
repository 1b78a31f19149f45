"""A test run stopped from outside leaves no server behind (tests/processes.py).

A real pytest runs one test whose fixture starts a server the way the suite's fixtures do (a
session of its own, :func:`~tests.processes.dies_with_parent`) and the repository's conftest hook
is installed; the run is then stopped with SIGTERM (as a CI runner or ``kill`` stops it) or
SIGKILL, and the server must be gone. After SIGTERM the fixture's own teardown must also have run,
as after a Ctrl-C.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.processes import dies_with_parent

HOLDER = """
import os, subprocess, sys, time
from pathlib import Path

import pytest

from tests.processes import dies_with_parent

OUT = Path(os.environ["STOPPED_RUN_DIR"])


@pytest.fixture
def server():
    process = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(600)"],
        start_new_session=True,
        preexec_fn=dies_with_parent,
    )
    (OUT / "server.pid").write_text(str(process.pid))
    yield process
    process.terminate()
    process.wait(30)
    (OUT / "torn-down").write_text("the fixture stopped its server")


def test_holds_a_server(server):
    time.sleep(600)
"""

CONFTEST = "from tests.conftest import pytest_configure  # the repository's hook\n"


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def _wait_for(condition, timeout_s: float) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_a_stopped_test_run_leaves_no_server_behind(tmp_path: Path, stop: signal.Signals) -> None:
    (tmp_path / "test_holder.py").write_text(HOLDER)
    (tmp_path / "conftest.py").write_text(CONFTEST)
    env = {**os.environ, "STOPPED_RUN_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    run = subprocess.Popen(
        [
            *(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"),
            *("--rootdir", str(tmp_path), str(tmp_path / "test_holder.py")),
        ],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=dies_with_parent,  # this test's own run must not outlive it either
    )
    pid_file = tmp_path / "server.pid"
    try:
        assert _wait_for(pid_file.is_file, 120), "the holder test never started its server"
        server = int(pid_file.read_text())
        assert _alive(server)
        run.send_signal(stop)
        output, _ = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert _wait_for(lambda: not _alive(server), 30), f"the server outlived the run:\n{output}"
    if stop == signal.SIGTERM:
        assert (tmp_path / "torn-down").is_file(), f"the fixture's teardown did not run:\n{output}"
        assert "KeyboardInterrupt" in output or "stopped by signal SIGTERM" in output, output


def test_every_test_process_stops_gracefully_on_sigterm() -> None:
    # tests/conftest.py installs the handler in this process too (and in every xdist worker),
    # and again before each test: a library that put SIGTERM back to its default (asyncio's
    # remove_signal_handler does) gets it back before the next test
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    from tests.conftest import pytest_runtest_setup

    pytest_runtest_setup(None)  # type: ignore[arg-type]
    handler = signal.getsignal(signal.SIGTERM)
    assert callable(handler) and handler.__module__ == "tests.processes"
    with pytest.raises(KeyboardInterrupt, match="SIGTERM"):
        handler(signal.SIGTERM, None)  # type: ignore[operator]


def test_a_server_started_with_dies_with_parent_gets_sigterm_when_its_starter_dies(
    tmp_path: Path,
) -> None:
    # the starter is a short-lived python that starts a sleeper and exits at once
    starter = (
        "import subprocess, sys\n"
        "from tests.processes import dies_with_parent\n"
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'],"
        " start_new_session=True, preexec_fn=dies_with_parent)\n"
        "print(p.pid)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", starter], env=env, capture_output=True, text=True, check=True
    )
    sleeper = int(done.stdout.strip())
    assert _wait_for(lambda: not _alive(sleeper), 30), "the sleeper outlived its starter"
