"""Limits for a kernel as a whole (all its processes together), through Linux control groups.

A per-process limit (``RLIMIT_AS``) lets three processes hold three times the cap, and a tmpfs write
is not a process's memory at all. A control group counts every process of the sandbox, and the
pages of every tmpfs file they write, against one ``memory`` limit, and every task against one
``pids`` limit; where the ``cpu`` controller is offered too, the kernel's processes together get at
most a set number of CPUs (so that a notebook that forks busy loops cannot starve other students'
kernels into timeouts). This module uses cgroups where the host lets this process manage them:

* **cgroup v2** (the unified hierarchy): in a cgroup with no processes of its own whose
  ``cgroup.subtree_control`` offers ``memory`` and ``pids`` and where we may create folders: the
  hierarchy's root when grading as root, else an ancestor of our own cgroup that the host delegated
  to us (``systemd-run --user --scope -p Delegate=yes roofline-grade ...`` gives one);
* **cgroup v1** (separate ``memory`` and ``pids`` hierarchies), where we may create folders in both
  (as root, typically).

:func:`open_area` probes once, by moving a throw-away child process into a test cgroup, and returns
an :class:`Area` (one folder per grading process) or ``None`` with the reason in words. Each kernel
gets a :class:`Leaf` under it; the kernel's launcher joins the leaf before it execs the sandbox
(:meth:`Leaf.join`, safe to call between fork and exec), so that every process of the kernel is
counted from its first instruction. :func:`sweep` removes the folders of grading processes that are
gone (a ``roofline-grade`` killed with SIGKILL cleans nothing itself).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
CPU_PERIOD_US = 100_000
"""The period of the CPU quota, microseconds (the kernel's default)."""
PREFIX = "roofline-grade"
"""Folders made here are named ``roofline-grade-<pid>-<random>``; the pid says whose they are."""


@dataclass(frozen=True)
class Leaf:
    """One kernel's cgroup: a folder per hierarchy (one for v2; memory and pids for v1)."""

    folders: tuple[Path, ...]

    def join(self) -> None:
        """Move the calling process into this cgroup (call it in the child, before exec)."""
        pid = str(os.getpid()).encode()
        for folder in self.folders:
            fd = os.open(folder / "cgroup.procs", os.O_WRONLY)
            try:
                os.write(fd, pid)
            finally:
                os.close(fd)

    def pids(self) -> set[int]:
        found: set[int] = set()
        for folder in self.folders:
            with contextlib.suppress(OSError):
                found |= {int(x) for x in (folder / "cgroup.procs").read_text().split()}
        return found

    def kill(self) -> None:
        """SIGKILL every process in the cgroup (``cgroup.kill`` where the kernel has it)."""
        for folder in self.folders:
            kill_file = folder / "cgroup.kill"
            if kill_file.exists():
                with contextlib.suppress(OSError):
                    kill_file.write_text("1")
        for _ in range(50):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)

    def remove(self) -> None:
        """Kill what is left and remove the folders."""
        self.kill()
        for folder in self.folders:
            for _ in range(50):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)


@dataclass(frozen=True)
class Area:
    """This process's cgroup folder(s), under which each kernel gets a :class:`Leaf`.

    Attributes:
        version: 1 or 2.
        memory: the folder of the memory controller (v2: the only folder).
        pids: the folder of the pids controller (v2: the same as ``memory``).
        cpu: the folder of the cpu controller, if it is offered (v2: the same as ``memory``).
    """

    version: int
    memory: Path
    pids: Path
    cpu: Path | None = None

    @property
    def folders(self) -> tuple[Path, ...]:
        return tuple(dict.fromkeys(p for p in (self.memory, self.pids, self.cpu) if p))

    def describe(self) -> str:
        return f"cgroup v{self.version}"

    def new_leaf(self, memory_bytes: int, processes: int, cpus: float | None = None) -> Leaf:
        """A cgroup for one kernel: at most ``memory_bytes`` of memory (tmpfs pages included, no
        swap), ``processes`` tasks (threads count) and, where the cpu controller is offered,
        ``cpus`` CPUs' worth of time (a quota of ``cpus`` × 100 ms in every 100 ms)."""
        name = f"k-{uuid.uuid4().hex[:12]}"
        quota = str(round(cpus * CPU_PERIOD_US)) if cpus else ""
        folders = [folder / name for folder in self.folders]
        for folder in folders:
            folder.mkdir()
        memory, pids = self.memory / name, self.pids / name
        if self.version == 2:
            _write(memory / "memory.max", str(memory_bytes))
            _write(memory / "memory.swap.max", "0", optional=True)
            _write(memory / "memory.oom.group", "1", optional=True)
            _write(pids / "pids.max", str(processes))
            if quota and self.cpu:
                _write(self.cpu / name / "cpu.max", f"{quota} {CPU_PERIOD_US}")
            return Leaf(tuple(folders))
        _write(memory / "memory.limit_in_bytes", str(memory_bytes))
        _write(memory / "memory.memsw.limit_in_bytes", str(memory_bytes), optional=True)
        _write(pids / "pids.max", str(processes))
        if quota and self.cpu:
            _write(self.cpu / name / "cpu.cfs_period_us", str(CPU_PERIOD_US))
            _write(self.cpu / name / "cpu.cfs_quota_us", quota)
        return Leaf(tuple(folders))

    def remove(self) -> None:
        """Remove every leaf left and the area's folders."""
        for folder in self.folders:
            for child in [p for p in folder.iterdir() if p.is_dir()] if folder.is_dir() else []:
                Leaf((child,)).remove()
            with contextlib.suppress(OSError):
                folder.rmdir()


def _write(path: Path, text: str, optional: bool = False) -> None:
    try:
        path.write_text(text)
    except FileNotFoundError:
        if not optional:
            raise
    except OSError:
        if not optional:
            raise


def _own_cgroups() -> dict[str, str]:
    """``/proc/self/cgroup`` as {controller or '' for v2: path}."""
    out: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            for name in controllers.split(",") if controllers else [""]:
                out[name] = path
    return out


def _v2_root() -> Path | None:
    for candidate in (CGROUP_ROOT, CGROUP_ROOT / "unified"):
        if (candidate / "cgroup.controllers").is_file():
            return candidate
    return None


def _v2_candidates(root: Path, own: str) -> list[Path]:
    """Folders a v2 area could be made in: the root (as root; no one delegates it to a user),
    then our cgroup's ancestors, nearest first."""
    out = [root] if os.geteuid() == 0 else []
    parts = [p for p in own.strip("/").split("/") if p]
    for depth in range(len(parts) - 1, 0, -1):
        out.append(root.joinpath(*parts[:depth]))
    return list(dict.fromkeys(out))


def _make_v2(root: Path, own: str) -> Area | None:
    for parent in _v2_candidates(root, own):
        try:
            offered = set((parent / "cgroup.subtree_control").read_text().split())
            has_procs = parent != root and (parent / "cgroup.procs").read_text().strip()
        except OSError:
            continue
        if not {"memory", "pids"} <= offered or has_procs:
            continue
        folder = parent / f"{PREFIX}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        try:
            folder.mkdir()
        except OSError:
            continue
        try:
            _write(folder / "cgroup.subtree_control", "+memory +pids")
        except OSError:
            with contextlib.suppress(OSError):
                folder.rmdir()
            continue
        cpu = None
        if "cpu" in offered:
            with contextlib.suppress(OSError):
                _write(folder / "cgroup.subtree_control", "+cpu")
                cpu = folder
        return Area(2, folder, folder, cpu)
    return None


def _make_v1(own: dict[str, str]) -> Area | None:
    """Folders of one name under our own memory, pids and (if there is one) cpu cgroups."""
    folders: list[Path] = []
    name = f"{PREFIX}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    for controller in ("memory", "pids", "cpu"):
        base = CGROUP_ROOT / controller
        folder = base / own.get(controller, "").lstrip("/") / name
        try:
            if controller not in own or not (base / "cgroup.procs").is_file():
                raise FileNotFoundError(base)
            folder.mkdir()
        except OSError:
            if controller == "cpu":  # optional: memory and pids are what must hold
                return Area(1, folders[0], folders[1])
            _undo(folders)
            return None
        folders.append(folder)
    return Area(1, folders[0], folders[1], folders[2])


def _undo(folders: list[Path]) -> None:
    for folder in folders:
        with contextlib.suppress(OSError):
            folder.rmdir()


def _probe(area: Area) -> str:
    """Empty if a child process can be moved into a leaf of ``area`` and is limited there."""
    try:
        leaf = area.new_leaf(256 * 2**20, 16)
    except OSError as exc:
        return f"cannot create a cgroup ({exc.strerror or exc})"
    try:
        child = subprocess.Popen(
            [sys.executable, "-c", "import time; time.sleep(30)"],
            preexec_fn=leaf.join,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        leaf.remove()
        return f"cannot move a process into a cgroup ({exc})"
    try:
        return "" if child.pid in leaf.pids() else "a process moved into a cgroup is not in it"
    finally:
        child.kill()
        child.wait()
        leaf.remove()


def open_area() -> tuple[Area | None, str]:
    """A cgroup area for this process's kernels, or None and why (in words)."""
    if not sys.platform.startswith("linux"):
        return None, f"there are no cgroups on {sys.platform}"
    own = _own_cgroups()
    area: Area | None = None
    root = _v2_root()
    if "memory" in own and "pids" in own:
        area = _make_v1(own)
    if area is None and root is not None and "" in own:
        area = _make_v2(root, own[""])
    if area is None:
        return None, "this process may not create cgroups with memory and pids controllers"
    why = _probe(area)
    if why:
        area.remove()
        return None, why
    return area, ""


def sweep() -> int:
    """Remove the cgroup folders of grading processes that no longer run; returns how many."""
    removed = 0
    for folder in leftovers():
        pid = folder.name.split("-")[2]
        if pid.isdigit() and not process_alive(int(pid)):
            Area(1, folder, folder).remove()
            removed += not folder.exists()
    return removed


def leftovers() -> list[Path]:
    """Every cgroup folder a grading process made that is still there."""
    roots = [CGROUP_ROOT / "memory", CGROUP_ROOT / "pids", CGROUP_ROOT / "cpu", CGROUP_ROOT]
    v2 = _v2_root()
    if v2 is not None:
        roots.append(v2)
    return list(dict.fromkeys(f for r in roots if r.is_dir() for f in _find(r, depth=4)))


def _find(root: Path, depth: int) -> list[Path]:
    found: list[Path] = []
    try:
        children = [p for p in root.iterdir() if p.is_dir() and not p.is_symlink()]
    except OSError:
        return found
    for child in children:
        if child.name.startswith(f"{PREFIX}-"):
            found.append(child)
        elif depth > 0:
            found += _find(child, depth - 1)
    return found


def process_alive(pid: int) -> bool:
    """Whether a process with this pid runs (ours or another user's; a zombie does not)."""
    with contextlib.suppress(OSError, IndexError):
        if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
