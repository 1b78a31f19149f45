"""Fresh kernels, started one ahead: a spare kernel boots while the current notebook runs.

:func:`launch` starts a kernel in a private directory of a :class:`~roofline_grader.sandbox.KernelHome`
(sandboxed where possible), so that it dies with the process that started it. With
``SealedExecute.prestart`` (roofline-grade's workers turn it on; plain nbgrader leaves it off),
:func:`take` hands out a spare kernel that booted while the previous notebook ran and
:func:`refill` starts the next one. Every notebook still gets a kernel of its own that no other code
has run in; it just does not wait the half second a kernel takes to start. One spare is kept per
kernel home and kernel name, per process.
"""

from __future__ import annotations

import atexit
import ctypes
import signal
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .hidden import PLAN_ENV
from .sandbox import KernelDir, KernelHome, SandboxedKernelManager

_HOMES: dict[tuple[Any, ...], KernelHome] = {}
_SPARES: dict[tuple[Any, ...], tuple[KernelDir, SandboxedKernelManager]] = {}


def home_for(
    sandbox: str, readonly: Iterable[str], hidden: Iterable[str], root: str = ""
) -> KernelHome:
    """The process's kernel home for these sandbox settings (created once), under ``root``."""
    key = (sandbox, tuple(readonly), tuple(hidden), root)
    if key not in _HOMES:
        _HOMES[key] = KernelHome(sandbox, key[1], key[2], Path(root) if root else None)
    return _HOMES[key]


def _die_with_parent() -> None:
    """In the launcher, before exec: die when the process that started it does."""
    ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


async def launch(home: KernelHome, kernel_name: str) -> tuple[KernelDir, SandboxedKernelManager]:
    """Start a kernel in a new private directory of ``home`` (it keeps booting in the background)."""
    kernel = home.new_kernel()
    km = SandboxedKernelManager(kernel_name=kernel_name)
    km.launch_prefix = list(kernel.launch_prefix)
    km.connection_file = str(kernel.connection_file)
    km.transport = "ipc"
    km.ip = kernel.ipc_prefix
    kwargs: dict[str, Any] = {
        "cwd": str(kernel.path),
        "env": kernel.env({PLAN_ENV: str(kernel.plan_file)}),
        "extra_arguments": ["--HistoryManager.hist_file=:memory:"],
    }
    if sys.platform.startswith("linux"):
        kwargs["preexec_fn"] = _die_with_parent
    with open(kernel.log_file, "ab") as log:
        await km.start_kernel(stdout=log, stderr=log, **kwargs)
    return kernel, km


async def take(home: KernelHome, kernel_name: str) -> tuple[KernelDir, SandboxedKernelManager]:
    """A kernel nobody has used: the spare if there is a live one, else a new one."""
    key = (id(home), kernel_name)
    spare = _SPARES.pop(key, None)
    if spare is not None:
        if await spare[1].is_alive():
            return spare
        await _discard(spare)
    return await launch(home, kernel_name)


async def refill(home: KernelHome, kernel_name: str) -> None:
    """Start the next spare kernel unless there is one already."""
    key = (id(home), kernel_name)
    if key not in _SPARES:
        _SPARES[key] = await launch(home, kernel_name)


async def _discard(spare: tuple[KernelDir, SandboxedKernelManager]) -> None:
    kernel, km = spare
    try:
        if await km.is_alive():
            await km.shutdown_kernel(now=True)
        await km.cleanup_resources()
    finally:
        kernel.remove()


def cleanup() -> None:
    """Kill the spare kernels and remove the kernel homes of this process."""
    for kernel, km in _SPARES.values():
        try:
            if km.provisioner is not None and km.provisioner.process is not None:
                km.provisioner.process.kill()
        except Exception:
            pass
        kernel.remove()
    _SPARES.clear()
    for home in _HOMES.values():
        home.remove()


atexit.register(cleanup)
