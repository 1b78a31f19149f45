"""Fresh kernels, started one ahead: a spare kernel boots while the current notebook runs.

:func:`launch` starts a kernel in a new :class:`~roofline_grader.kernel.sandbox.KernelDir` of a
:class:`~roofline_grader.kernel.sandbox.KernelHome` (its own bubblewrap sandbox and cgroup), so that it dies
with the process that started it. With ``SealedExecute.prestart`` (roofline-grade's workers turn it
on; plain nbgrader leaves it off), :func:`take` hands out a spare kernel that booted while the
previous notebook ran and :func:`refill` starts the next one. Every notebook still gets a kernel, and
a sandbox, of its own that no other code has run in: a spare has run nothing, sees nothing of the
kernel before it (each sandbox has its own filesystem, processes and sockets) and is given its
notebook's plan only when taken. One spare is kept per kernel home and kernel name, per process.
"""

from __future__ import annotations

import atexit
import os
import subprocess
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from roofline_grader.hidden import PLAN_ENV
from roofline_grader.kernel.sandbox import KernelDir, KernelHome, SandboxedKernelManager

_HOMES: dict[tuple[Any, ...], KernelHome] = {}
_SPARES: dict[tuple[Any, ...], tuple[KernelDir, SandboxedKernelManager]] = {}


def home_for(sandbox: str, hidden: Iterable[str], root: str = "") -> KernelHome:
    """The process's kernel home for these sandbox settings (created once), under ``root``."""
    key = (sandbox, tuple(hidden), root)
    if key not in _HOMES:
        _HOMES[key] = KernelHome(sandbox, key[1], Path(root) if root else None)
    return _HOMES[key]


async def launch(home: KernelHome, kernel_name: str) -> tuple[KernelDir, SandboxedKernelManager]:
    """Start a kernel in a new sandbox of ``home`` (it keeps booting in the background)."""
    kernel = home.new_kernel()
    km = SandboxedKernelManager(kernel_name=kernel_name)
    km.kernel_dir = kernel
    km.connection_file = str(kernel.connection_file)
    km.transport = "ipc"
    km.ip = kernel.ipc_prefix
    if kernel.sandboxed:
        # the sandbox's init would not pass a SIGINT on to the kernel: interrupt by message
        spec = km.kernel_spec
        if spec is None:
            raise RuntimeError(f"no kernel spec named {kernel_name!r}")
        spec.interrupt_mode = "message"
    km.write_connection_file()
    kernel.make_readable(kernel.connection_file)
    info = os.pipe() if kernel.sandboxed else None
    km.launch_prefix = kernel.launch_prefix(info[1] if info else None)
    kwargs: dict[str, Any] = {
        "cwd": str(kernel.path),
        "env": kernel.env({PLAN_ENV: str(kernel.plan_file)}),
        "extra_arguments": ["--HistoryManager.hist_file=:memory:"],
        "preexec_fn": kernel.preexec,
    }
    if info:
        kwargs["pass_fds"] = (info[1],)
        kwargs["info_fd"] = info
    try:
        with open(kernel.log_file, "ab") as log, warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="pass_fds overriding close_fds")
            await km.start_kernel(stdout=log, stderr=log, **kwargs)
    except BaseException:
        kernel.remove()
        raise
    return kernel, km


async def take(home: KernelHome, kernel_name: str) -> tuple[KernelDir, SandboxedKernelManager]:
    """A kernel nobody has used: the spare if there is a live one, else a new one."""
    key = (id(home), kernel_name)
    spare = _SPARES.pop(key, None)
    if spare is not None:
        if await spare[1].is_alive():
            return spare
        await discard(spare)
    return await launch(home, kernel_name)


async def refill(home: KernelHome, kernel_name: str) -> None:
    """Start the next spare kernel unless there is one already."""
    key = (id(home), kernel_name)
    if key not in _SPARES:
        _SPARES[key] = await launch(home, kernel_name)


async def discard(kernel_and_manager: tuple[KernelDir, SandboxedKernelManager]) -> None:
    """Stop a kernel and remove its folder and cgroup (killing whatever it left running)."""
    kernel, km = kernel_and_manager
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
            # jupyter_client's LocalProvisioner keeps the kernel's Popen in an untyped attribute
            process = getattr(km.provisioner, "process", None)
            if isinstance(process, subprocess.Popen):
                process.kill()
        except Exception:
            pass
        kernel.remove()
    _SPARES.clear()
    for home in _HOMES.values():
        home.remove()
    _HOMES.clear()


atexit.register(cleanup)
