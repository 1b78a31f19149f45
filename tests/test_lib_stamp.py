"""``make book``'s ``_build/.lib-stamp`` (tools/lib_stamp.py): the execution caches are cleared
when a library source's content changes, and kept when a file is only newer (a fresh checkout, or
the Pages workflow restoring its caches). Run through the real Makefile, in a copy of the parts it
needs, so that the rule and the tool are checked together."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tools import lib_stamp

ROOT = Path(__file__).resolve().parents[1]
CACHES = ("_build/.jupyter_cache", "_build/editions/zh_CN/_build/.jupyter_cache")


@pytest.fixture
def course(tmp_path: Path):
    """The Makefile and tools/lib_stamp.py in an empty folder with a two-file library and both
    editions' caches; ``stamp()`` runs ``make _build/.lib-stamp`` there and says which caches
    are left."""
    shutil.copy2(ROOT / "Makefile", tmp_path / "Makefile")
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "__init__.py").write_text("")
    shutil.copy2(ROOT / "tools" / "lib_stamp.py", tmp_path / "tools" / "lib_stamp.py")
    (tmp_path / "roofline_lib" / "costs").mkdir(parents=True)
    (tmp_path / "roofline_lib" / "__init__.py").write_text("PEAK = 1\n")
    (tmp_path / "roofline_lib" / "costs" / "matmul.py").write_text("def flops(): return 2\n")
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "booktools.py").write_text("FORMAT = '{:.0f}'\n")

    def fill_caches() -> None:
        for cache in CACHES:
            (tmp_path / cache).mkdir(parents=True, exist_ok=True)
            (tmp_path / cache / "global.db").write_text("executed")

    def stamp() -> list[str]:
        done = subprocess.run(
            ["make", "_build/.lib-stamp", f"PYTHON={sys.executable}"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return [c for c in CACHES if (tmp_path / c / "global.db").exists()]

    return tmp_path, fill_caches, stamp


def _later(path: Path) -> None:
    """``path`` dated an hour later, its content unchanged (as a fresh checkout dates it)."""
    later = path.stat().st_mtime + 3600
    os.utime(path, (later, later))


def test_a_library_change_clears_both_editions_caches(course):
    folder, fill_caches, stamp = course
    fill_caches()
    assert stamp() == [], "caches with no stamp were made by an unknown library: cleared"
    fill_caches()
    assert stamp() == list(CACHES), "nothing changed: the caches stay"
    source = folder / "roofline_lib" / "costs" / "matmul.py"
    source.write_text("def flops(): return 3\n")
    assert stamp() == []
    fill_caches()
    (folder / "book" / "booktools.py").write_text("FORMAT = '{:.1f}'\n")  # the book's helpers
    assert stamp() == []


def test_a_file_only_newer_keeps_the_caches(course):
    folder, fill_caches, stamp = course
    stamp()
    fill_caches()
    for source in folder.rglob("*.py"):
        _later(source)
    _later(folder / "Makefile")
    assert stamp() == list(CACHES)
    # a fresh checkout with its caches restored: the stamp comes back with them, older than all
    _later(folder / "roofline_lib" / "__init__.py")
    os.utime(folder / "_build" / ".lib-stamp", (0, 0))
    assert stamp() == list(CACHES)


def test_a_source_added_or_removed_clears_the_caches(course):
    folder, fill_caches, stamp = course
    stamp()
    fill_caches()
    (folder / "roofline_lib" / "units.py").write_text("")
    assert stamp() == []
    fill_caches()
    (folder / "roofline_lib" / "units.py").unlink()
    assert stamp() == []


def test_the_digest_is_of_paths_and_contents_not_of_their_order(tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("x = 1\n")
    b.write_text("y = 2\n")
    digest = lib_stamp.sources_digest([a, b])
    assert lib_stamp.sources_digest([b, a]) == digest
    b.rename(tmp_path / "c.py")  # same bytes, another module
    assert lib_stamp.sources_digest([a, tmp_path / "c.py"]) != digest
