"""Servers the tests start never outlive the test run, however it stops.

The tests start real servers (JupyterLab, formgrader, a Dask scheduler and its workers), each in
a session of its own (``start_new_session=True``), so that a Ctrl-C meant for pytest does not
reach them mid-request and the fixture stops them in order. That also means that nothing stops
them when pytest itself is stopped before its fixtures' teardown runs. Two things close that
gap:

- :func:`stop_gracefully_on_sigterm` (installed by tests/conftest.py in every pytest process,
  xdist workers too, and again before each test, since a library may reset it) turns SIGTERM
  into the KeyboardInterrupt of a Ctrl-C: pytest stops and runs every fixture's teardown, which
  stops its servers;
- :func:`dies_with_parent`, given as ``preexec_fn`` to each server's ``Popen``, asks Linux to send
  the server SIGTERM when the process that started it dies (``prctl(PR_SET_PDEATHSIG)``), even by
  SIGKILL, when no teardown can run.
"""

from __future__ import annotations

import ctypes
import signal
import sys
from types import FrameType

PR_SET_PDEATHSIG = 1
"""<linux/prctl.h>: the signal a process gets when its parent dies."""


def dies_with_parent() -> None:
    """``preexec_fn`` for a server a test starts: it gets SIGTERM when its starter dies (Linux;
    elsewhere it does nothing)."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def as_from_a_terminal() -> None:
    """``preexec_fn`` for a command a test stops with Ctrl-C (SIGINT): SIGINT's default action
    back, as a terminal's shell gives it. A pytest-xdist worker ignores SIGINT, a child inherits
    that, and Python then installs no KeyboardInterrupt handler: the signal would do nothing. The
    command also dies with its starter (:func:`dies_with_parent`)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    dies_with_parent()


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"stopped by signal {signal.Signals(signum).name}")


def stop_gracefully_on_sigterm() -> None:
    """Make SIGTERM stop this process as Ctrl-C does, so that pytest tears its fixtures down."""
    signal.signal(signal.SIGTERM, _interrupt)
