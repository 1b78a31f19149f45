"""Where and how a student's kernel runs: a private directory, resource limits, and a sandbox.

Every kernel gets its own directory (``KernelHome.new_kernel``) holding its connection file and
sockets, its plan file, HOME, TMPDIR, matplotlib's cache, and **private copies** of roofline_lib and
roofline_grader: the kernel imports those, so a submission that edits the library on disk edits only
its own copy. The kernel is started through ``/bin/sh`` with memory and file-size limits.

On Linux, where unprivileged user namespaces are allowed (``unshare`` from util-linux), the kernel
also runs in its own user, mount, PID and network namespaces:

* the course, the Python installation and the other given ``readonly_paths`` are mounted read-only;
* ``hidden_paths`` (the grading workspace, the submissions) and every other kernel's directory are
  covered by empty tmpfs mounts, so a kernel cannot read other students' work or sockets;
* it sees only its own processes (it cannot signal the grader or other kernels) and has no network;
  the grader talks to it over Unix sockets in its directory.

``sandbox="auto"`` uses the namespaces when they work and says why when they do not; "on" requires
them; "off" never uses them.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager
from traitlets import List, Unicode

SANDBOX_MODES = ("auto", "on", "off")
MEMORY_LIMIT_BYTES = 4 * 2**30
"""Address-space limit of a kernel (ulimit -v)."""
FILE_LIMIT_BYTES = 256 * 2**20
"""Largest file a kernel may write (ulimit -f)."""
PRIVATE_PACKAGES = ("roofline_lib", "roofline_grader")

_LIMITS = r"""
if [ "$mem_kb" -gt 0 ]; then ulimit -v "$mem_kb"; fi
if [ "$file_kb" -gt 0 ]; then ulimit -f "$file_kb"; fi
"""

NAMESPACE_SCRIPT = (
    r"""
set -eu
own=$1; base=$2; mem_kb=$3; file_kb=$4; shift 4
n=$1; shift
while [ "$n" -gt 0 ]; do
    p=$1; shift; n=$((n - 1))
    if [ -d "$p" ]; then mount --bind "$p" "$p"; mount -o remount,bind,ro "$p" "$p"; fi
done
n=$1; shift
while [ "$n" -gt 0 ]; do
    p=$1; shift; n=$((n - 1))
    if [ -d "$p" ]; then mount -t tmpfs -o size=64k,mode=0755 roofline-hidden "$p"; fi
done
mount --bind "$own" "$base/stage"
mount -t tmpfs -o mode=0755 roofline-kernels "$base/kernels"
mkdir "$own"
mount --bind "$base/stage" "$own"
"""
    + _LIMITS
    + r"""
cd "$own"
exec "$@"
"""
)
"""Run inside fresh namespaces: read-only and hidden mounts, then only this kernel's directory."""

LIMITS_SCRIPT = (
    r"""
set -eu
own=$1; mem_kb=$2; file_kb=$3; shift 3
"""
    + _LIMITS
    + r"""
cd "$own"
exec "$@"
"""
)
"""Run without namespaces: resource limits only."""

UNSHARE_FLAGS = (
    "--user",
    "--map-root-user",
    "--mount",
    "--net",
    "--pid",
    "--fork",
    "--kill-child",
    "--mount-proc",
)


def fast_temp_root() -> Path:
    """Where scratch files go: /dev/shm (RAM) when it is a writable tmpfs with room, else the
    system's temporary directory. Scratch gradebooks commit often, and on a disk every commit
    waits for fsync."""
    shm = Path("/dev/shm")
    try:
        if shm.is_dir() and os.access(shm, os.W_OK) and shutil.disk_usage(shm).free > 2**30:
            return shm
    except OSError:
        pass
    return Path(tempfile.gettempdir())


class SandboxUnavailableError(RuntimeError):
    """The sandbox was required (``sandbox="on"``) but cannot be used here."""


class SandboxedKernelManager(AsyncKernelManager):
    """A kernel manager whose kernel command is prefixed by a launcher (the sandbox)."""

    launch_prefix = List(Unicode(), help="Command words put before the kernel's own command.")

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        return [*self.launch_prefix, *super().format_kernel_cmd(extra_arguments)]


@dataclass(frozen=True)
class KernelDir:
    """One kernel's private directory and what the launcher needs to start it there."""

    path: Path
    launch_prefix: tuple[str, ...]
    sandboxed: bool

    @property
    def plan_file(self) -> Path:
        return self.path / "plan.json"

    @property
    def connection_file(self) -> Path:
        return self.path / "kernel.json"

    @property
    def log_file(self) -> Path:
        return self.path / "kernel.log"

    @property
    def ipc_prefix(self) -> str:
        return str(self.path / "zmq")

    def env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        """The kernel's whole environment: nothing of the grader's beyond PATH and locale."""
        env = {
            "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
            "HOME": str(self.path / "home"),
            "TMPDIR": str(self.path / "tmp"),
            "IPYTHONDIR": str(self.path / "home" / ".ipython"),
            "JUPYTER_RUNTIME_DIR": str(self.path / "runtime"),
            "MPLCONFIGDIR": str(self.path / "home" / "matplotlib"),
            "MPLBACKEND": "Agg",
            "PYTHONPATH": str(self.path / "lib"),
            "PYTHONHASHSEED": "0",
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
            "LANG": os.environ.get("LANG", "C.UTF-8"),
        }
        env.update(extra or {})
        return env

    def remove(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


class KernelHome:
    """The directory all kernels of one process live in, and the sandbox decision for them.

    Args:
        sandbox: 'auto', 'on' or 'off'.
        readonly_paths: directories mounted read-only inside the sandbox (the course root, say);
            the Python installation is always added.
        hidden_paths: directories replaced by an empty tmpfs inside the sandbox.
        root: where to create kernel directories (default: the system's temporary directory).
    """

    def __init__(
        self,
        sandbox: str = "auto",
        readonly_paths: Iterable[str | Path] = (),
        hidden_paths: Iterable[str | Path] = (),
        root: Path | None = None,
    ) -> None:
        if sandbox not in SANDBOX_MODES:
            raise ValueError(f"sandbox must be one of {SANDBOX_MODES}, got {sandbox!r}")
        self.base = Path(
            tempfile.mkdtemp(prefix="roofline-kernels-", dir=root or fast_temp_root())
        ).resolve()
        (self.base / "stage").mkdir()
        (self.base / "kernels").mkdir()
        self.readonly = _existing(
            [*readonly_paths, *python_paths(), *(p.parent for p in _matplotlib_cache_files())],
            self.base,
        )
        needed = [Path(p) for p in python_paths()]
        self.hidden = [
            p
            for p in _existing(hidden_paths, self.base)
            if not any(n == Path(p) or n.is_relative_to(p) for n in needed)
        ]
        self.sandbox_note = ""
        if sandbox == "off":
            self.sandboxed = False
            self.sandbox_note = "the sandbox is switched off"
        else:
            works, why = namespaces_available()
            self.sandboxed = works
            self.sandbox_note = "" if works else why
            if sandbox == "on" and not works:
                raise SandboxUnavailableError(
                    f"the kernel sandbox is required but unavailable: {why}"
                )

    def new_kernel(self) -> KernelDir:
        path = self.base / "kernels" / f"k-{uuid.uuid4().hex[:12]}"
        for sub in ("home/matplotlib", "home/.ipython", "tmp", "runtime", "lib"):
            (path / sub).mkdir(parents=True)
        for package in PRIVATE_PACKAGES:
            source = _package_dir(package)
            shutil.copytree(source, path / "lib" / package, ignore=_ignore_junk)
        for cache in _matplotlib_cache_files():
            shutil.copy2(cache, path / "home" / "matplotlib" / cache.name)
        mem_kb, file_kb = str(MEMORY_LIMIT_BYTES // 1024), str(FILE_LIMIT_BYTES // 1024)
        if self.sandboxed:
            prefix = (
                "unshare",
                *UNSHARE_FLAGS,
                "/bin/sh",
                "-c",
                NAMESPACE_SCRIPT,
                "roofline-sandbox",
                str(path),
                str(self.base),
                mem_kb,
                file_kb,
                str(len(self.readonly)),
                *self.readonly,
                str(len(self.hidden)),
                *self.hidden,
            )
        elif os.name == "posix":
            prefix = ("/bin/sh", "-c", LIMITS_SCRIPT, "roofline-kernel", str(path), mem_kb, file_kb)
        else:
            prefix = ()
        return KernelDir(path, prefix, self.sandboxed)

    def remove(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)


def _existing(paths: Iterable[str | Path], base: Path) -> list[str]:
    """Resolved existing directories, without any that contain the kernel base (or duplicates)."""
    out: list[str] = []
    for p in paths:
        resolved = Path(p).resolve()
        if not resolved.is_dir() or resolved == base or base.is_relative_to(resolved):
            continue
        if str(resolved) not in out:
            out.append(str(resolved))
    return out


def python_paths() -> list[str]:
    """The Python installation: prefixes and site-packages, mounted read-only in the sandbox."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        paths.add(sysconfig.get_path(key))
    return sorted(paths)


def _package_dir(package: str) -> Path:
    module = __import__(package)
    return Path(module.__file__).resolve().parent


def _ignore_junk(directory: str, names: list[str]) -> list[str]:
    return [n for n in names if n.endswith((".pyc", ".pyo")) and "cpython" not in n]


@functools.cache
def _matplotlib_cache_files() -> tuple[Path, ...]:
    """matplotlib's font cache, built once here so that no kernel spends a second rebuilding it."""
    cache = (
        Path(tempfile.gettempdir())
        / f"roofline-mplcache-{os.getuid() if os.name == 'posix' else 0}"
    )
    cache.mkdir(exist_ok=True)
    if not list(cache.glob("fontlist-*.json")):
        subprocess.run(
            [sys.executable, "-c", "import matplotlib.font_manager"],
            env={**os.environ, "MPLCONFIGDIR": str(cache)},
            check=False,
            capture_output=True,
            timeout=120,
        )
    return tuple(sorted(cache.glob("fontlist-*.json")))


@functools.cache
def namespaces_available() -> tuple[bool, str]:
    """Whether the namespace sandbox works here; if not, why (in words)."""
    if not sys.platform.startswith("linux"):
        return False, f"Linux namespaces are not available on {sys.platform}"
    if shutil.which("unshare") is None:
        return False, "the unshare command (util-linux) is not installed"
    with tempfile.TemporaryDirectory(prefix="roofline-probe-") as tmp:
        base = Path(tmp)
        (base / "stage").mkdir()
        (base / "kernels").mkdir()
        own = base / "kernels" / "probe"
        own.mkdir()
        cmd: Sequence[str] = (
            "unshare",
            *UNSHARE_FLAGS,
            "/bin/sh",
            "-c",
            NAMESPACE_SCRIPT,
            "roofline-sandbox",
            str(own),
            str(base),
            "0",
            "0",
            "0",
            "0",
            "true",
        )
        try:
            result = subprocess.run(cmd, capture_output=True, text=True, timeout=30, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return False, f"unshare failed to start: {exc}"
    if result.returncode != 0:
        detail = (result.stderr or result.stdout).strip().splitlines()
        return False, "user namespaces are not permitted here" + (
            f" ({detail[-1]})" if detail else ""
        )
    return True, ""
