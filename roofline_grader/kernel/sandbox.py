"""Where and how a student's kernel runs: a bubblewrap sandbox with limits for the kernel as a whole.

Every kernel runs under **bubblewrap** (``bwrap``, Debian's ``bubblewrap`` package), the sandbox of
Flatpak, called by the absolute path found once at start-up in the system's own folders (never the
PATH, which a kernel could have planted a file on). Inside:

* a root of its own, read-only, holding only read-only binds of what a kernel needs: ``/usr`` and
  its ``/bin``/``/lib`` links, the dynamic loader's files of ``/etc``, the Python installation and
  its packages, ``roofline_lib`` and the kernel side of the hidden tests (``roofline_grader.hidden``,
  nothing else of the grader); a made-up ``/etc/passwd``; its own folder of connection and plan
  files, read-only. Nothing of the course (``solutions/``), the grader, the gradebook, the
  submissions, HOME or other kernels is there, and a folder to hide that a bind would expose is
  covered by an empty tmpfs;
* writable scratch only on tmpfs mounts of bounded size (``/tmp`` with HOME, ``/dev/shm``, and
  ``/sandbox/ipc`` for the kernel's sockets);
* new user, mount, PID, IPC, UTS, cgroup and network namespaces (no network, not even the host's
  loopback), a new session (``kill(0, ...)`` reaches only the sandbox), no further user namespaces,
  and death with its launcher;
* an unprivileged uid inside and outside: grading as root, the kernel runs as the dedicated system
  user :data:`SANDBOX_USER` (``make`` creates it), never as host root.

The grader talks to the kernel over its Unix sockets, reached from outside through
``/proc/<sandbox pid>/root`` (the sandbox's own filesystem), so nothing the kernel can write lies on
a shared host folder. Interrupts go as messages (the sandbox's init would not pass on a signal).

Limits (:class:`Limits`): where the host lets this process manage cgroups
(:mod:`roofline_grader.kernel.cgroups`), memory and process count for the kernel as a whole; always, per
process limits set inside the sandbox with ``prlimit`` (address space, processes, file size, no core
files); and the sizes of the scratch mounts. :meth:`KernelHome.limits_note` says which were in force.

Without bubblewrap (macOS, no user namespaces) there is no sandbox; ``sandbox="off"`` must then be
asked for explicitly, and a kernel runs with the per-process limits only.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import functools
import json
import os
import pwd
import re
import shutil
import signal
import stat
import subprocess
import sys
import sysconfig
import tempfile
import uuid
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import zmq
from jupyter_client.asynchronous.client import AsyncKernelClient
from jupyter_client.manager import AsyncKernelManager
from traitlets import Any as AnyTrait
from traitlets import List, Unicode

from roofline_grader.kernel import cgroups

SANDBOX_MODES = ("on", "off")
SANDBOX_USER = "roofline-sandbox"
"""The system user kernels run as when grading as root (``make`` creates it with useradd)."""
TRUSTED_DIRS = ("/usr/bin", "/bin", "/usr/sbin", "/sbin")
"""Where the sandbox's tools are looked for: root's folders, never the PATH."""
INSIDE_LIB = "/sandbox/lib"
INSIDE_IPC = "/sandbox/ipc"
INSIDE_HOME = "/tmp/home"
KERNEL_PACKAGE_FILES = ("__init__.py", "hidden.py")
"""The kernel side of the grader: all a kernel gets of roofline_grader."""
SCRATCH_PREFIXES = ("roofline-kernels-", "roofline-grade-")
"""Names of the scratch folders of a run; the pid after the prefix says whose they are."""


@dataclass(frozen=True)
class Limits:
    """What one kernel may use.

    Attributes:
        memory_bytes: memory of the whole kernel (cgroup), and address space of each process.
        processes: tasks (processes and threads) of the whole kernel.
        file_bytes: the largest file a kernel may write.
        scratch_bytes: size of the kernel's writable /tmp (HOME is in it).
        shm_bytes: size of its /dev/shm.
        cpus: CPUs' worth of time for the whole kernel (cgroup, where the cpu controller is
            offered), so that busy loops in the background cannot starve other kernels.
    """

    memory_bytes: int = 4 * 2**30
    processes: int = 128
    file_bytes: int = 256 * 2**20
    scratch_bytes: int = 512 * 2**20
    shm_bytes: int = 64 * 2**20
    cpus: float = 1.0

    def prlimit_args(self) -> list[str]:
        """prlimit's options for the per-process limits (bytes, as prlimit counts them)."""
        return [
            f"--as={self.memory_bytes}",
            f"--nproc={self.processes}",
            f"--fsize={self.file_bytes}",
            "--core=0",
        ]


LIMITS = Limits()


class SandboxUnavailableError(RuntimeError):
    """The sandbox was required but cannot be used here."""


# -- tools and users, found once ---------------------------------------------------------------


def trusted_tool(name: str, dirs: Sequence[str] = TRUSTED_DIRS) -> str | None:
    """The absolute path of ``name`` in root's folders, if it and every folder above it belong to
    root and nobody else may write to them (so no one but root could have planted it)."""
    for folder in dirs:
        path = Path(folder) / name
        try:
            real = path.resolve(strict=True)
        except OSError:
            continue
        if real.is_file() and os.access(real, os.X_OK) and _root_owned_chain(real):
            return str(real)
    return None


def _root_owned_chain(path: Path) -> bool:
    for p in (path, *path.parents):
        info = p.stat()
        if info.st_uid != 0 or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return False
    return True


@dataclass(frozen=True)
class Support:
    """What this host offers: the tools' paths and whom to run kernels as (None: ourselves)."""

    bwrap: str | None
    prlimit: str | None
    run_as: tuple[int, int] | None
    why_not: str

    @property
    def available(self) -> bool:
        return not self.why_not


@functools.cache
def support() -> Support:
    """Find bubblewrap and prlimit, and whom kernels run as; then probe a real sandbox once."""
    prlimit = trusted_tool("prlimit")
    if not sys.platform.startswith("linux"):
        return Support(None, prlimit, None, f"bubblewrap needs Linux; this is {sys.platform}")
    bwrap = trusted_tool("bwrap")
    if bwrap is None:
        return Support(
            None, prlimit, None, "bubblewrap is not installed (apt-get install bubblewrap)"
        )
    if prlimit is None:
        return Support(bwrap, None, None, "prlimit (util-linux) is not installed")
    run_as = None
    if os.geteuid() == 0:
        try:
            user = pwd.getpwnam(SANDBOX_USER)
        except KeyError:
            return Support(
                bwrap,
                prlimit,
                None,
                f"grading as root needs the unprivileged user {SANDBOX_USER!r} for kernels "
                f"(create it: useradd --system --user-group --no-create-home {SANDBOX_USER})",
            )
        if user.pw_uid == 0:
            return Support(bwrap, prlimit, None, f"the user {SANDBOX_USER!r} must not be root")
        run_as = (user.pw_uid, user.pw_gid)
    found = Support(bwrap, prlimit, run_as, "")
    why = _probe(found)
    return Support(bwrap, prlimit, run_as, why) if why else found


def _probe(found: Support) -> str:
    """Empty if a sandboxed Python starts here; else why not, in words."""
    home = KernelHome("on", use_cgroups=False, support_=found)
    try:
        kernel = home.new_kernel()
        cmd = [*kernel.launch_prefix(None), sys.executable, "-c", "import os; print(os.getuid())"]
        try:
            result = subprocess.run(
                cmd,
                env=kernel.env(),
                cwd=kernel.path,
                preexec_fn=kernel.preexec,
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            return f"bubblewrap failed to start ({exc})"
        if result.returncode != 0:
            lines = (result.stderr or result.stdout).strip().splitlines()
            detail = f" ({lines[-1]})" if lines else ""
            return f"bubblewrap cannot create a sandbox here{detail}"
        return ""
    finally:
        home.remove()


# -- a kernel's directory and command ------------------------------------------------------------


@dataclass(frozen=True)
class KernelDir:
    """One kernel's host folder and what its launcher needs.

    Attributes:
        path: the host folder: the connection file and the plan file (read-only inside).
        home: the kernel home it belongs to.
        bwrap_args: the sandbox's arguments (empty without the sandbox).
        staging: host folders to bind, by staging folder, before dropping to the sandbox user.
        leaf: the kernel's cgroup, if cgroups are in force.
    """

    path: Path
    home: KernelHome
    bwrap_args: tuple[str, ...]
    staging: tuple[tuple[str, str], ...]
    leaf: cgroups.Leaf | None

    @property
    def sandboxed(self) -> bool:
        return bool(self.bwrap_args)

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
        """The sockets' path prefix as the kernel sees it."""
        return f"{INSIDE_IPC}/k" if self.sandboxed else str(self.path / "zmq")

    def host_ipc_prefix(self, sandbox_pid: int | None) -> str:
        """The sockets' path prefix as the grader reaches them."""
        if not self.sandboxed:
            return self.ipc_prefix
        return f"/proc/{sandbox_pid}/root{self.ipc_prefix}"

    def launch_prefix(self, info_fd: int | None) -> list[str]:
        """The words before the kernel's command: bwrap (telling ``info_fd`` its pid) and prlimit."""
        prlimit = self.home.support.prlimit
        limits = [prlimit, *self.home.limits.prlimit_args(), "--"] if prlimit else []
        if not self.sandboxed:
            return limits
        info = ["--info-fd", str(info_fd)] if info_fd is not None else []
        return [str(self.home.support.bwrap), *self.bwrap_args, *info, "--", *limits]

    def env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        """The kernel's whole environment: nothing of the grader's."""
        home = INSIDE_HOME if self.sandboxed else str(self.path / "home")
        tmp = "/tmp" if self.sandboxed else str(self.path / "tmp")
        lib = INSIDE_LIB if self.sandboxed else str(self.home.package_dir)
        env = {
            "PATH": os.pathsep.join([str(Path(sys.executable).parent), "/usr/bin", "/bin"]),
            "HOME": home,
            "USER": "student",
            "LOGNAME": "student",
            "TMPDIR": tmp,
            "IPYTHONDIR": f"{home}/.ipython",
            "JUPYTER_RUNTIME_DIR": f"{tmp}/runtime",
            "MPLCONFIGDIR": f"{home}/.config/matplotlib",
            "MPLBACKEND": "Agg",
            "PYTHONPATH": lib,
            "PYTHONHASHSEED": "0",
            "PYTHONDONTWRITEBYTECODE": "1",
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
            "LANG": "C.UTF-8",
        }
        env.update(extra or {})
        return env

    def preexec(self) -> None:
        """In the launcher, between fork and exec: join the kernel's cgroup, stage the binds and
        drop to the sandbox user (as root), and die with the process that started it."""
        parent = os.getppid()
        if self.leaf is not None:
            self.leaf.join()
        run_as = self.home.support.run_as if self.sandboxed else None
        if self.staging:
            _stage(self.staging)
        if run_as is not None:
            os.setgroups([])
            os.setgid(run_as[1])
            os.setuid(run_as[0])
        die_with_parent(parent)

    def write_plan(self, text: str) -> None:
        self.plan_file.write_text(text, encoding="utf-8")
        self.make_readable(self.plan_file)

    def make_readable(self, path: Path) -> None:
        """Let the sandbox user read a file the grader wrote (grading as root)."""
        if self.home.support.run_as is not None and self.sandboxed:
            os.chmod(path, 0o644)

    def remove(self) -> None:
        if self.leaf is not None:
            self.leaf.remove()
        shutil.rmtree(self.path, ignore_errors=True)


_LIBC = ctypes.CDLL(None, use_errno=True)
_CLONE_NEWNS = 0x00020000
_MS_BIND, _MS_REC, _MS_PRIVATE = 0x1000, 0x4000, 0x40000


def _stage(staging: Sequence[tuple[str, str]]) -> None:
    """As root, in a mount namespace of the launcher's own: bind each source on its staging folder,
    so that the sandbox user (who may not traverse, say, /root) can bind it into the sandbox."""
    if _LIBC.unshare(_CLONE_NEWNS) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNS) failed")
    if _LIBC.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None) != 0:
        raise OSError(ctypes.get_errno(), "making mounts private failed")
    for source, target in staging:
        if _LIBC.mount(source.encode(), target.encode(), None, _MS_BIND | _MS_REC, None) != 0:
            raise OSError(ctypes.get_errno(), f"binding {source} failed")


def die_with_parent(parent: int) -> None:
    """Get SIGKILL when the parent process (pid ``parent``) dies; exit now if it already has.

    Linux only (elsewhere nothing happens). A change of uid clears the setting: call it after."""
    if sys.platform.startswith("linux"):
        _LIBC.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(1)


class KernelHome:
    """The folder all kernels of one process live in, and the sandbox for them.

    Args:
        sandbox: 'on' (bubblewrap; :class:`SandboxUnavailableError` if it cannot run here) or
            'off' (no sandbox: per-process limits only).
        hidden_paths: folders no kernel may see, besides the course, the grader and HOME (covered
            by an empty tmpfs if a bind would expose them).
        root: where to create kernel folders (default: RAM-backed scratch).
        limits: what each kernel may use.
        use_cgroups: limit each kernel as a whole through cgroups where the host allows (False:
            the per-process limits only, as on a host that does not delegate cgroups).
    """

    def __init__(
        self,
        sandbox: str = "on",
        hidden_paths: Iterable[str | Path] = (),
        root: Path | None = None,
        limits: Limits = LIMITS,
        use_cgroups: bool = True,
        support_: Support | None = None,
    ) -> None:
        if sandbox not in SANDBOX_MODES:
            raise ValueError(f"sandbox must be one of {SANDBOX_MODES}, got {sandbox!r}")
        self.support = support_ or support()
        if sandbox == "on" and not self.support.available:
            raise SandboxUnavailableError(
                f"the kernel sandbox is unavailable: {self.support.why_not}. Grading without it "
                "lets a student's code read and change everything you can; if you accept that, "
                "pass --no-sandbox"
            )
        self.sandboxed = sandbox == "on"
        self.limits = limits
        self.base = Path(
            tempfile.mkdtemp(prefix=f"roofline-kernels-{os.getpid()}-", dir=root or scratch_root())
        ).resolve()
        (self.base / "kernels").mkdir()
        self.package_dir = self.base / "lib"
        self._write_kernel_package()
        self.area, self.cgroup_note = (
            cgroups.open_area() if use_cgroups else (None, "cgroups were not asked for")
        )
        if self.support.run_as is not None and self.sandboxed:
            # the sandbox user's bwrap binds from here: it may pass through, never list
            chain = [self.base, self.base / "kernels", self.package_dir]
            if root is not None and root.stat().st_uid == os.geteuid():
                chain.append(root)
            for folder in chain:
                os.chmod(folder, os.stat(folder).st_mode & 0o7777 | 0o711)
            for path in self.package_dir.rglob("*"):
                os.chmod(path, 0o755 if path.is_dir() else 0o644)
        self.hidden = _hidden(hidden_paths, self.base)
        self._binds = self._plan_binds() if self.sandboxed else []

    @property
    def sandbox_note(self) -> str:
        """Empty when sandboxed, else why not."""
        if not self.sandboxed:
            return "the sandbox is switched off" + (
                f" (it could not run here: {self.support.why_not})" if self.support.why_not else ""
            )
        return ""

    def summary(self) -> str:
        """The sandbox and the limits in force, in one line of words (the report's)."""
        if not self.sandboxed:
            return f"NONE: {self.sandbox_note}; limits: {self.limits_note()}"
        user = _user_name(self.support.run_as)
        return (
            f"bubblewrap ({self.support.bwrap}), kernels run as {user}; "
            f"limits: {self.limits_note()}"
        )

    def limits_note(self) -> str:
        """The limits in force, in words."""
        lim = self.limits
        words = []
        if self.area is not None:
            cpu = f", {lim.cpus:g} CPU" if self.area.cpu is not None else ""
            words.append(
                f"{_size(lim.memory_bytes)} of memory, {lim.processes} tasks{cpu} for the whole "
                f"kernel ({self.area.describe()})"
            )
        else:
            words.append(f"no limit for the kernel as a whole ({self.cgroup_note})")
        if self.support.prlimit:
            words.append(
                f"per process: {_size(lim.memory_bytes)} of address space, {lim.processes} "
                f"processes, files up to {_size(lim.file_bytes)}, no core files"
            )
        if self.sandboxed:
            words.append(
                f"scratch: {_size(lim.scratch_bytes)} /tmp, {_size(lim.shm_bytes)} /dev/shm"
            )
        return "; ".join(words)

    def describe(self) -> dict[str, object]:
        """What the reports record about the sandbox."""
        return {
            "sandbox": "bubblewrap" if self.sandboxed else "none",
            "tool": self.support.bwrap if self.sandboxed else None,
            "user": _user_name(self.support.run_as) if self.sandboxed else _user_name(None),
            "note": self.sandbox_note,
            "limits": self.limits_note(),
            "cgroups": self.area.describe() if self.area is not None else None,
        }

    # -- set-up -----------------------------------------------------------------------------

    def _write_kernel_package(self) -> None:
        """The kernel's import path: roofline_lib, and roofline_grader with only its kernel side."""
        grader = self.package_dir / "roofline_grader"
        grader.mkdir(parents=True)
        source = _package_dir("roofline_grader")
        (grader / "__init__.py").write_text('"""The kernel side of the hidden tests."""\n')
        shutil.copy2(source / "hidden.py", grader / "hidden.py")
        if not self.sandboxed:  # without a sandbox the library is imported from a copy
            shutil.copytree(
                _package_dir("roofline_lib"), self.package_dir / "roofline_lib", ignore=_no_pyc
            )

    def _plan_binds(self) -> list[tuple[str, str]]:
        """(host path, path inside) for every read-only bind, in mount order."""
        binds: list[tuple[str, str]] = []

        def add(source: str | Path, target: str | Path | None = None) -> None:
            real = str(Path(source).resolve())
            inside = str(target) if target is not None else real
            covered = any(
                inside == t or inside.startswith(t.rstrip("/") + "/") for s, t in binds if s == t
            )
            if target is None and covered:
                return
            if os.path.exists(real) and (real, inside) not in binds:
                binds.append((real, inside))

        add("/usr")
        for path in (*python_paths(), *_interpreter_dirs()):
            add(path)
        for name in ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime"):
            add(f"/etc/{name}", f"/etc/{name}")
        add(_package_dir("roofline_lib"), f"{INSIDE_LIB}/roofline_lib")
        add(self.package_dir / "roofline_grader", f"{INSIDE_LIB}/roofline_grader")
        for cache in _matplotlib_cache_files():
            add(cache, f"{INSIDE_HOME}/.config/matplotlib/{cache.name}")
        return binds

    def new_kernel(self) -> KernelDir:
        """A new kernel folder, its cgroup and its sandbox's arguments."""
        path = self.base / "kernels" / f"k-{uuid.uuid4().hex[:12]}"
        path.mkdir()
        if not self.sandboxed:
            for sub in ("home/.ipython", "home/.config/matplotlib", "tmp"):
                (path / sub).mkdir(parents=True)
            for cache in _matplotlib_cache_files():
                shutil.copy2(cache, path / "home" / ".config" / "matplotlib" / cache.name)
            leaf = self._leaf()
            return KernelDir(path, self, (), (), leaf)
        run_as = self.support.run_as
        binds = [*self._binds, (str(path), str(path))]
        staging: list[tuple[str, str]] = []
        if run_as is not None:
            os.chmod(path, 0o711)
            (path / "stage").mkdir(mode=0o711)
            staged = []
            for i, (source, target) in enumerate(binds):
                stage = path / "stage" / str(i)
                if os.path.isdir(source):
                    stage.mkdir(mode=0o711)
                else:
                    stage.touch(mode=0o644)
                staging.append((source, str(stage)))
                staged.append((str(stage), target))
            binds = staged
        passwd, group = self._identity(path, run_as)
        args = _bwrap_args(binds, self.hidden, self.limits, passwd, group, [s for s, _ in staging])
        return KernelDir(path, self, tuple(args), tuple(staging), self._leaf())

    def _leaf(self) -> cgroups.Leaf | None:
        if self.area is None:
            return None
        return self.area.new_leaf(self.limits.memory_bytes, self.limits.processes, self.limits.cpus)

    def _identity(self, path: Path, run_as: tuple[int, int] | None) -> tuple[Path, Path]:
        """A passwd and a group file naming only the student (the uid the kernel has inside)."""
        uid, gid = run_as or (os.getuid(), os.getgid())
        passwd, group = path / "passwd", path / "group"
        passwd.write_text(f"student:x:{uid}:{gid}:student:{INSIDE_HOME}:/usr/sbin/nologin\n")
        group.write_text(f"student:x:{gid}:\n")
        for f in (passwd, group):
            os.chmod(f, 0o644)
        return passwd, group

    def remove(self) -> None:
        if self.area is not None:
            self.area.remove()
        shutil.rmtree(self.base, ignore_errors=True)


def _bwrap_args(
    binds: Sequence[tuple[str, str]],
    hidden: Sequence[str],
    limits: Limits,
    passwd: Path,
    group: Path,
    sources: Sequence[str],
) -> list[str]:
    """bubblewrap's arguments for one kernel. ``binds`` are (source, target) pairs (the sources
    staged when dropping to the sandbox user; ``sources`` are then the original host paths)."""
    args = [
        "--unshare-all",
        "--unshare-user",
        "--disable-userns",
        "--die-with-parent",
        "--new-session",
        "--hostname",
        "sandbox",
        # ipykernel exits when its parent is not this pid; inside, the sandbox's init is its parent
        "--unsetenv",
        "JPY_PARENT_PID",
    ]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        link = Path("/") / name
        if link.is_symlink():
            args += ["--symlink", os.readlink(link), str(link)]
    originals = list(sources) or [s for s, _ in binds]
    pairs = list(zip(binds, originals, strict=True))
    late = [p for p in pairs if p[0][1].startswith(("/tmp/", "/dev/"))]
    for (source, target), original in [p for p in pairs if p not in late]:
        args += ["--ro-bind", source, target]
        for h in hidden:  # a folder to hide inside a bound one: cover it
            if h.startswith(original.rstrip("/") + "/") and os.path.isdir(h):
                args += ["--tmpfs", target + h[len(original.rstrip("/")) :]]
    args += ["--ro-bind", str(passwd), "/etc/passwd", "--ro-bind", str(group), "/etc/group"]
    args += ["--proc", "/proc", "--dev", "/dev"]
    args += ["--size", str(limits.shm_bytes), "--tmpfs", "/dev/shm"]
    args += ["--size", str(2**20), "--tmpfs", INSIDE_IPC]
    args += ["--size", str(limits.scratch_bytes), "--tmpfs", "/tmp"]
    for (source, target), _ in late:  # after /tmp and /dev/shm are mounted: binds into them
        args += ["--ro-bind", source, target]
    args += ["--dir", f"{INSIDE_HOME}/.ipython", "--chdir", INSIDE_HOME]
    args += ["--remount-ro", "/dev", "--remount-ro", "/"]
    return args


def _hidden(extra: Iterable[str | Path], base: Path) -> list[str]:
    """Folders no kernel may see: the given ones, the course, the grader's package and HOME."""
    grader = _package_dir("roofline_grader")
    paths = [*extra, grader, grader.parent / "solutions", grader.parent, Path.home(), base]
    out: list[str] = []
    for p in paths:
        with contextlib.suppress(OSError, RuntimeError):
            resolved = str(Path(p).resolve())
            if resolved not in out and resolved != "/":
                out.append(resolved)
    return out


def _size(n: int) -> str:
    return f"{n / 2**30:g} GiB" if n >= 2**30 else f"{n / 2**20:g} MiB"


def _user_name(run_as: tuple[int, int] | None) -> str:
    uid = run_as[0] if run_as else os.getuid()
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def python_paths() -> list[str]:
    """The Python installation: prefixes and the folders of its packages."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        paths.add(sysconfig.get_path(key))
    return sorted(paths)


def _interpreter_dirs() -> list[str]:
    """Folders the interpreter's executable links through (a venv's python -> the base's)."""
    return [str(Path(sys.executable).resolve().parent.parent)]


def _package_dir(package: str) -> Path:
    module = __import__(package)
    if module.__file__ is None:
        raise ValueError(f"{package} is a namespace package: it has no folder of its own")
    return Path(module.__file__).resolve().parent


def _no_pyc(directory: str, names: list[str]) -> list[str]:
    return [n for n in names if n == "__pycache__"]


def scratch_root() -> Path:
    """Where scratch files go: /dev/shm (RAM) when it is a writable tmpfs with room, else the
    system's temporary folder. Scratch gradebooks commit often, and on a disk every commit
    waits for fsync."""
    shm = Path("/dev/shm")
    try:
        if shm.is_dir() and os.access(shm, os.W_OK) and shutil.disk_usage(shm).free > 2**30:
            return shm
    except OSError:
        pass
    return Path(tempfile.gettempdir())


def sweep_stale_scratch() -> list[str]:
    """Remove scratch folders and cgroups of grading processes that no longer run (a run killed
    with SIGKILL cannot clean up after itself); returns the folders removed."""
    removed = []
    pattern = re.compile(rf"^({'|'.join(map(re.escape, SCRATCH_PREFIXES))})(\d+)-")
    for root in {scratch_root(), Path(tempfile.gettempdir())}:
        try:
            entries = list(root.iterdir())
        except OSError:
            continue
        for entry in entries:
            match = pattern.match(entry.name)
            if match and entry.is_dir() and not cgroups.process_alive(int(match.group(2))):
                try:
                    if entry.stat().st_uid != os.geteuid():
                        continue
                except OSError:
                    continue
                shutil.rmtree(entry, ignore_errors=True)
                removed.append(str(entry))
    cgroups.sweep()
    return removed


@functools.cache
def _matplotlib_cache_files() -> tuple[Path, ...]:
    """matplotlib's font cache, built once here so that no kernel spends a second rebuilding it."""
    cache = Path(tempfile.gettempdir()) / f"roofline-mplcache-{os.geteuid()}"
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


# -- the kernel manager ------------------------------------------------------------------------


MAX_MESSAGE_BYTES = 128 * 2**20
"""The largest message the grader takes from a kernel: far above any output a cell may keep (a
larger one would be dropped anyway), far below what would strain the grader's memory. ZMQ cuts
off a kernel that sends a larger one, unread; that kernel's later output is lost (each later cell
then waits ``iopub_timeout`` for it), which only a hostile notebook ever meets."""


class SandboxedKernelManager(AsyncKernelManager):
    """A kernel manager whose kernel runs in a :class:`KernelDir`'s sandbox, and whose clients
    refuse messages over :data:`MAX_MESSAGE_BYTES`."""

    launch_prefix = List(Unicode(), help="Command words put before the kernel's own command.")
    kernel_dir = AnyTrait(None, allow_none=True, help="The KernelDir the kernel runs in.")
    _clients: List[weakref.ref[AsyncKernelClient]] = List(
        help="Weak references to the clients made by client()."
    )

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        return [*self.launch_prefix, *super().format_kernel_cmd(extra_arguments)]

    def client(  # type: ignore[override]  # as AsyncKernelManager's: KernelManager says blocking
        self, **kwargs: Any
    ) -> AsyncKernelClient:
        """A client on this manager's ZMQ context (closed with the manager), whose sockets drop
        any message larger than :data:`MAX_MESSAGE_BYTES` before it is read into memory."""
        self.context.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
        kwargs.setdefault("context", self.context)
        client = super().client(**kwargs)
        self._clients.append(weakref.ref(client))
        return client

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        """Stop the clients' channels before the shared context is destroyed: a heartbeat thread
        left polling a socket the context closed would die with a traceback on stderr."""
        if not restart:
            for ref in self._clients:
                client = ref()
                if client is not None:
                    client.stop_channels()
            self._clients.clear()
        await super()._async_cleanup_resources(restart=restart)

    cleanup_resources = _async_cleanup_resources

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw: object) -> None:
        """Launch (jupyter_client's documented override point), then learn the sandbox's pid from
        bubblewrap's ``--info-fd`` and reach the kernel's sockets through ``/proc/<pid>/root``."""
        kernel: KernelDir | None = self.kernel_dir
        info_fd = kw.pop("info_fd", None)
        try:
            await super()._async_launch_kernel(kernel_cmd, **kw)
        finally:
            if isinstance(info_fd, tuple):
                os.close(info_fd[1])
        if kernel is not None and kernel.sandboxed and isinstance(info_fd, tuple):
            loop = asyncio.get_running_loop()
            pid = await asyncio.wait_for(
                loop.run_in_executor(None, _read_child_pid, info_fd[0]), timeout=60
            )
            self.ip = kernel.host_ipc_prefix(pid)


def _read_child_pid(fd: int) -> int:
    """The sandbox's pid, from bubblewrap's --info-fd JSON (read until it is complete)."""
    data = b""
    try:
        while True:
            chunk = os.read(fd, 4096)
            data += chunk
            try:
                return int(json.loads(data)["child-pid"])
            except (ValueError, KeyError):
                if not chunk:
                    raise RuntimeError(
                        f"bubblewrap did not start the sandbox: {data[-200:]!r}"
                    ) from None
    finally:
        os.close(fd)
