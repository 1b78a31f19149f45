"""Clear the book's execution caches when the library changed (``make book``'s ``_build/.lib-stamp``).

Jupyter Book caches each executed page by its notebook's content, so a page whose code did not
change is not run again; but its numbers come from ``roofline_lib`` and the book's helpers, and a
change there must run every page again, or the book would show numbers the library no longer
computes. The stamp holds a SHA-256 of those sources (each one's path and bytes, as the Makefile's
``LIB_SOURCES`` lists them); when the sources hash to anything else, or there is no stamp, every
execution cache (:func:`execution_caches`) is removed and the new hash written.

Content, not dates: a fresh checkout (CI, or the Pages workflow restoring the caches of an earlier
run) dates every file now, so make's own test, a source newer than the stamp, would throw away a
restored cache every time. Touching a file without changing it keeps the caches; changing, adding,
removing or renaming a source clears them.

Usage: python -m tools.lib_stamp STAMP SOURCE...   (STAMP: _build/.lib-stamp)
"""

from __future__ import annotations

import hashlib
import shutil
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path


def sources_digest(sources: Iterable[Path]) -> str:
    """SHA-256 (hex) of the sources' paths, as given, and contents, in path order."""
    digest = hashlib.sha256()
    for path in sorted(set(sources), key=lambda p: p.as_posix()):
        data = path.read_bytes()
        digest.update(f"{path.as_posix()}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def execution_caches(build: Path) -> list[Path]:
    """Jupyter Book's execution caches under ``build`` (``_build``): the English edition's, and
    each translation's (tools/book.py builds it in ``editions/<language>/``)."""
    found = [build / ".jupyter_cache", *sorted(build.glob("editions/*/_build/.jupyter_cache"))]
    return [p for p in found if p.exists()]


def refresh(stamp: Path, sources: Sequence[Path]) -> list[Path]:
    """Clear the execution caches beside ``stamp`` unless it holds the sources' hash, then write
    the hash; returns the caches removed."""
    digest = sources_digest(sources)
    if stamp.is_file() and stamp.read_text().strip() == digest:
        return []
    removed = execution_caches(stamp.parent)
    for cache in removed:
        shutil.rmtree(cache)
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text(digest + "\n")
    return removed


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) < 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    removed = refresh(Path(args[0]), [Path(a) for a in args[1:]])
    if removed:
        print(
            "the library or the book's helpers changed: every page runs again (removed "
            + ", ".join(str(p) for p in removed)
            + ")"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
