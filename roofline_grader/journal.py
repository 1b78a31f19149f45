"""The run's memory: one result file per graded submission, so an interrupted run can resume.

A result is recorded only after it has been merged into the master gradebook, by writing a temporary
file and renaming it (atomic on POSIX). A rerun skips a submission whose record matches both its
notebook's hash and the grader's key (a hash of the solutions, the grader, the library and the
settings); anything else is graded again, and merging again is harmless. So an interrupted run,
rerun, leaves no student missing and none counted twice.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .worker import Task


def grader_key(parts: Iterable[str], packages: Iterable[Path]) -> str:
    """A hash of some strings (settings, fingerprints) and every .py file of some packages."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode())
        digest.update(b"\0")
    for package in packages:
        for path in sorted(package.rglob("*.py")):
            digest.update(str(path.relative_to(package)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


class Journal:
    """Result records in a directory, one JSON file per task key."""

    def __init__(self, directory: Path, key: str) -> None:
        self.directory = directory
        self.key = key
        directory.mkdir(parents=True, exist_ok=True)

    def _path(self, task_key: str) -> Path:
        return self.directory / f"{task_key}.json"

    def get(self, task: Task) -> dict[str, Any] | None:
        """The recorded result of ``task`` if it is still valid, else None."""
        path = self._path(task.key)
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if record.get("grader") != self.key or record.get("fingerprint") != task.fingerprint:
            return None
        return record

    def put(self, result: Mapping[str, Any]) -> None:
        """Record a merged result atomically."""
        record = {**result, "grader": self.key}
        path = self._path(str(result["key"]))
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(record), encoding="utf-8")
        os.replace(tmp, path)
