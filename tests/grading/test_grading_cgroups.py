"""Where the grader makes its cgroups: the folder it chooses in a cgroup v2 hierarchy.

cgroup v2 lets a process enable controllers only in a folder that holds no processes of its own,
and move a process only within a subtree it may write to. These tests lay out hierarchies as
plain folders and check the folder :mod:`roofline_grader.kernel.cgroups` picks in each.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from roofline_grader.kernel import cgroups


def _cgroup(folder: Path, offered: str = "memory pids", procs: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "cgroup.subtree_control").write_text(offered + "\n")
    (folder / "cgroup.procs").write_text(procs)
    (folder / "cgroup.controllers").write_text("cpu memory pids\n")
    return folder


def test_a_delegated_ancestor_without_processes_is_chosen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cgroups.os, "geteuid", lambda: 1000)
    root = _cgroup(tmp_path, procs="1\n")
    _cgroup(root / "user.slice", procs="")
    app = _cgroup(root / "user.slice" / "user@1000.service" / "app.slice", procs="")
    _cgroup(app / "term.scope", offered="", procs="4242\n")
    area = cgroups._make_v2(root, "/user.slice/user@1000.service/app.slice/term.scope")
    assert area is not None and area.version == 2
    assert area.memory.parent == app and area.memory.name.startswith(cgroups.PREFIX)
    assert (area.memory / "cgroup.subtree_control").read_text() == "+memory +pids"


def test_a_folder_that_holds_processes_or_lacks_controllers_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cgroups.os, "geteuid", lambda: 1000)
    root = _cgroup(tmp_path, procs="1\n")
    busy = _cgroup(root / "busy", procs="77\n")
    _cgroup(busy / "me", offered="", procs="4242\n")
    assert cgroups._make_v2(root, "/busy/me") is None
    bare = _cgroup(root / "bare", offered="cpu")
    _cgroup(bare / "me", offered="", procs="4242\n")
    assert cgroups._make_v2(root, "/bare/me") is None


def test_as_root_the_hierarchys_root_comes_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cgroups.os, "geteuid", lambda: 0)
    root = _cgroup(tmp_path, procs="1\n")
    _cgroup(root / "system.slice" / "ssh.service", procs="4242\n")
    area = cgroups._make_v2(root, "/system.slice/ssh.service")
    assert area is not None and area.memory.parent == root


def test_leaves_get_the_limits_of_one_kernel(tmp_path: Path) -> None:
    area = cgroups.Area(2, tmp_path, tmp_path)
    leaf = area.new_leaf(memory_bytes=3 * 2**30, processes=64)
    (folder,) = leaf.folders
    assert (folder / "memory.max").read_text() == str(3 * 2**30)
    assert (folder / "pids.max").read_text() == "64"
    assert (folder / "memory.swap.max").read_text() == "0"


def test_a_leaf_gets_its_cpu_quota_where_the_cpu_controller_is_offered(tmp_path: Path) -> None:
    v2 = cgroups.Area(2, tmp_path / "v2", tmp_path / "v2", tmp_path / "v2")
    (tmp_path / "v2").mkdir()
    (folder,) = v2.new_leaf(2**30, 64, cpus=1.5).folders
    assert (folder / "cpu.max").read_text() == "150000 100000"
    names = ("memory", "pids", "cpu")
    for name in names:
        (tmp_path / name).mkdir()
    v1 = cgroups.Area(1, *(tmp_path / name for name in names))
    leaf = v1.new_leaf(2**30, 64, cpus=1.0)
    assert [f.parent.name for f in leaf.folders] == list(names)
    cpu = leaf.folders[2]
    assert (cpu / "cpu.cfs_quota_us").read_text() == "100000"
    assert (cpu / "cpu.cfs_period_us").read_text() == "100000"
    without_cpu = cgroups.Area(1, tmp_path / "memory", tmp_path / "pids")
    assert len(without_cpu.new_leaf(2**30, 64, cpus=1.0).folders) == 2
