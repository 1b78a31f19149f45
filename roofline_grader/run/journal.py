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
from collections.abc import Iterable
from pathlib import Path

from roofline_grader.intake.discover import Task
from roofline_grader.results import Status, SubmissionResult


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


def grader_packages() -> list[Path]:
    """The folders of this process's roofline_lib and roofline_grader: the hidden checks and the
    grading code."""
    import roofline_grader
    import roofline_lib

    return [
        Path(roofline_lib.__file__).resolve().parent,
        Path(roofline_grader.__file__).resolve().parent,
    ]


def grader_fingerprint() -> str:
    """A hash of this process's roofline_lib and roofline_grader. A cluster's workers must have
    the client's (roofline_grader.run.cluster); a run whose grader changed while it ran says so."""
    return grader_key([], grader_packages())


class Journal:
    """Result records in a directory, one JSON file per task key.

    A record is :meth:`SubmissionResult.to_json` plus ``"grader"``, the grader's key; the JSON
    stays in the file, and :meth:`get` hands back the typed result.
    """

    def __init__(self, directory: Path, key: str) -> None:
        self.directory = directory
        self.key = key
        directory.mkdir(parents=True, exist_ok=True)

    def _path(self, task_key: str) -> Path:
        return self.directory / f"{task_key}.json"

    def get(self, task: Task) -> SubmissionResult | None:
        """The recorded result of ``task`` if it is still valid, else None (no record, one that
        cannot be read, one of another grader or of another notebook)."""
        path = self._path(task.key)
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            if record.get("grader") != self.key or record.get("fingerprint") != task.fingerprint:
                return None
            return SubmissionResult.from_json(record)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def timings(self) -> list[tuple[str, float]]:
        """(assignment, seconds) of every graded submission recorded, by this grader or an earlier
        one (the schedule's measure of how long each problem takes: roofline_grader.run.schedule)."""
        found = []
        for path in sorted(self.directory.glob("*.json")):
            try:
                record = json.loads(path.read_text(encoding="utf-8"))
                if record["status"] == Status.GRADED.value:
                    found.append((str(record["assignment"]), float(record["seconds"])))
            except (OSError, ValueError, KeyError, TypeError):
                continue
        return found

    def put(self, result: SubmissionResult) -> None:
        """Record a merged result atomically."""
        record = {**result.to_json(), "grader": self.key}
        path = self._path(result.key)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(record), encoding="utf-8")
        os.replace(tmp, path)
