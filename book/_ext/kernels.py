"""Sphinx extension: the kernels that execute the book's pages talk to the build over Unix
sockets (ZeroMQ's ``ipc`` transport), never TCP ports.

Why: over TCP, jupyter_client chooses a new kernel's five ports by binding port 0 and closing the
socket (``LocalPortCache``), then starts the kernel, which binds them a second or more later. Any
other process on the machine that binds a port in that window (a browser, a Dask cluster, another
kernel, as in ``make test``) can take one; the kernel then dies before it answers
(``Address already in use``), myst-nb fails the page, and a strict build fails with it. Over IPC
each socket is a file in a folder that only this build process uses, so there is no window.

How: myst-nb makes its ``nbclient.NotebookClient`` itself and passes no configuration to it, so
this extension sets the client's default kernel manager class, a traitlets dynamic default looked
up by name (``_kernel_manager_class_default``), to :class:`IpcKernelManager` in the build process,
and, the same way, has each kernel stopped at once when its page is done
(:func:`stop_kernels_at_once`).
``tests/book/test_book_kernels.py`` runs a notebook through nbclient this way and checks the
kernel used IPC, so an nbclient that renames the default fails there, not in a build.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import uuid
from pathlib import Path
from typing import Any

from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from traitlets import CaselessStrEnum

_SOCKETS: list[Path] = []


def socket_folder() -> Path:
    """This process's folder for kernel sockets (private, 0700, removed at exit). Short, under
    the system's temporary folder: a Unix socket's path is limited to about 100 bytes."""
    if not _SOCKETS:
        folder = Path(tempfile.mkdtemp(prefix="roofline-kernels-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        _SOCKETS.append(folder)
    return _SOCKETS[0]


class IpcKernelManager(AsyncKernelManager):
    """jupyter_client's kernel manager with the ``ipc`` transport by default, each kernel's
    sockets named ``<socket_folder>/<12 hex>-<n>``."""

    transport = CaselessStrEnum(["tcp", "ipc"], default_value="ipc", config=True)

    def _ip_default(self) -> str:
        if self.transport == "ipc":
            return str(socket_folder() / uuid.uuid4().hex[:12])
        return str(super()._ip_default())


def _ipc_kernel_manager(client: NotebookClient) -> type[AsyncKernelManager]:
    return IpcKernelManager


def use_ipc_kernels() -> None:
    """Every NotebookClient made in this process from now on starts its kernels over IPC (unless
    it is given a kernel manager class). Not on Windows, where ZeroMQ has no ``ipc`` transport."""
    if os.name == "nt":
        return
    NotebookClient._kernel_manager_class_default = _ipc_kernel_manager


def _immediate(client: NotebookClient) -> str:
    return "immediate"


def stop_kernels_at_once() -> None:
    """Every NotebookClient made in this process from now on stops its kernel at once when the
    notebook is done (``shutdown_kernel="immediate"``: the process is killed, not asked). Asked,
    ipykernel can race its own shutdown (its control thread publishes "idle" after its I/O
    thread closed: ``ZMQError: Socket operation on non-socket``, logged as an ERROR into the
    build's output), and the outputs are all in by then."""
    NotebookClient._shutdown_kernel_default = _immediate


def setup(app: Any) -> dict[str, object]:
    use_ipc_kernels()
    stop_kernels_at_once()
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
