"""book/_ext/kernels.py: the kernels that execute the book's pages use Unix sockets, not TCP."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

from tests.book.site import book_extension

pytestmark = pytest.mark.slow


def test_a_notebook_runs_over_unix_sockets_in_a_private_folder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kernels = book_extension("kernels")
    # undone after the test: the extension sets nbclient's default for the whole process
    monkeypatch.setattr(
        NotebookClient,
        "_kernel_manager_class_default",
        NotebookClient._kernel_manager_class_default,
    )
    monkeypatch.setattr(
        NotebookClient,
        "_shutdown_kernel_default",
        NotebookClient.__dict__.get("_shutdown_kernel_default"),
        raising=False,
    )
    kernels.use_ipc_kernels()
    kernels.stop_kernels_at_once()
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(6 * 7)")])
    client = NotebookClient(notebook, kernel_name="python3", timeout=120, startup_timeout=300)
    assert client.shutdown_kernel == "immediate"
    seen: list[dict[str, Any]] = []
    client.on_notebook_start = lambda notebook: seen.append(client.km.get_connection_info())
    client.execute()

    assert notebook.cells[0].outputs[0]["text"] == "42\n"
    (info,) = seen
    folder = kernels.socket_folder()
    assert info["transport"] == "ipc"
    assert Path(info["ip"]).parent == folder
    assert folder.stat().st_mode & 0o077 == 0, "the socket folder must be private"
    assert len(f"{info['ip']}-{info['shell_port']}".encode()) < 100, "a Unix socket path's limit"
    assert not list(folder.iterdir()), "the kernel's sockets are removed when it stops"
