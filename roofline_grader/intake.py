"""Find the submissions: nbgrader's ``<student_id>/<problemN>/<problemN>.ipynb`` layout, or a zip of it.

Students get names wrong, so a notebook is looked for leniently and every guess is reported:

* the folder may be spelled differently (``Problem 1``, ``problem_1``); names are compared without
  case, spaces or punctuation;
* a folder without ``problemN.ipynb`` but with one other notebook (``problem1-Copy1.ipynb``,
  ``Untitled.ipynb``) has that one graded; with several, the one whose name mentions the problem,
  else the first by name;
* a notebook may sit directly in the student's folder (``<student>/problem1.ipynb``);
* nothing found means a missing notebook, which scores zero.

A zip is extracted (once, keyed by its hash) with every member checked: no absolute paths, no
``..``, no links, bounded size. A single wrapper folder (``submitted/``) is looked through.
"""

from __future__ import annotations

import hashlib
import re
import stat
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .worker import Task

MAX_ZIP_BYTES = 4 * 2**30
MAX_ZIP_MEMBERS = 200_000
IGNORED = ("__MACOSX", ".ipynb_checkpoints", ".DS_Store", ".git", ".roofline")
"""Names that are never students or notebooks (any other name, a leading dot included, is)."""


class IntakeError(ValueError):
    """The submissions path cannot be read at all (not a folder, not a zip, an unsafe zip)."""


@dataclass(frozen=True)
class Intake:
    """The students found and one task per student × assignment."""

    root: Path
    students: tuple[str, ...]
    tasks: tuple[Task, ...]


def normalize(name: str) -> str:
    """Lower case, letters and digits only: 'Problem 1', 'problem_1' and 'PROBLEM1' agree."""
    return re.sub(r"[^0-9a-z]", "", name.lower())


def file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def task_key(student: str, assignment: str) -> str:
    """A file-name-safe, unique key for a student × assignment."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", student)[:40]
    return f"{assignment}--{safe}-{hashlib.sha1(student.encode()).hexdigest()[:8]}"


def extract_zip(archive: Path, into: Path) -> Path:
    """Extract a zip of submissions safely into ``into/<hash>/``; returns that folder."""
    target = into / f"zip-{file_hash(archive)[:16]}"
    done = target / ".complete"
    if done.is_file():
        return target
    try:
        with zipfile.ZipFile(archive) as zf:
            members = zf.infolist()
            if len(members) > MAX_ZIP_MEMBERS:
                raise IntakeError(
                    f"{archive} has {len(members)} entries, more than {MAX_ZIP_MEMBERS}"
                )
            if sum(m.file_size for m in members) > MAX_ZIP_BYTES:
                raise IntakeError(f"{archive} unpacks to more than {MAX_ZIP_BYTES // 2**30} GiB")
            target.mkdir(parents=True, exist_ok=True)
            for member in members:
                _extract_member(archive, zf, member, target)
    except zipfile.BadZipFile as exc:
        raise IntakeError(f"{archive} is not a readable zip file ({exc})") from None
    done.write_text("ok\n")
    return target


def _extract_member(
    archive: Path, zf: zipfile.ZipFile, member: zipfile.ZipInfo, target: Path
) -> None:
    """One member of the zip, checked; entries that clash (a file and a folder of one name) are an
    error that names them."""
    name = member.filename.replace("\\", "/")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if name.startswith("/") or ".." in parts or re.match(r"^[A-Za-z]:", name):
        raise IntakeError(f"{archive} has an unsafe entry {member.filename!r}")
    if stat.S_ISLNK(member.external_attr >> 16):
        return
    destination = target.joinpath(*parts) if parts else target
    try:
        if member.is_dir():
            destination.mkdir(parents=True, exist_ok=True)
            return
        destination.parent.mkdir(parents=True, exist_ok=True)
        with zf.open(member) as src, destination.open("wb") as dst:
            for block in iter(lambda: src.read(1 << 20), b""):
                dst.write(block)
    except (FileExistsError, NotADirectoryError, IsADirectoryError) as exc:
        raise IntakeError(
            f"{archive} has entries that clash: {member.filename!r} is both a file and a folder "
            f"({exc.strerror}); fix the zip and grade again"
        ) from None


def _entries(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.name not in IGNORED)


def _looks_like_student(folder: Path, assignments: Sequence[str]) -> bool:
    wanted = {normalize(a) for a in assignments}
    return any(
        normalize(p.stem if p.suffix == ".ipynb" else p.name) in wanted for p in _entries(folder)
    )


def find_root(path: Path, assignments: Sequence[str]) -> Path:
    """The folder whose subfolders are students: ``path`` or a wrapper folder inside it."""
    folder = path
    for _ in range(3):
        subfolders = [p for p in _entries(folder) if p.is_dir()]
        if any(_looks_like_student(p, assignments) for p in subfolders):
            return folder
        if len(subfolders) != 1:
            break
        folder = subfolders[0]
    return path


def discover(path: Path, assignments: Sequence[str], extract_into: Path) -> Intake:
    """Every student folder under ``path`` (a folder or a zip) and their tasks."""
    if path.is_file():
        if not zipfile.is_zipfile(path):
            raise IntakeError(f"{path} is neither a folder nor a zip file")
        path = extract_zip(path, extract_into)
    elif not path.is_dir():
        raise IntakeError(f"{path} does not exist")
    root = find_root(path, assignments)
    students = tuple(p.name for p in _entries(root) if p.is_dir())
    tasks = tuple(
        _locate(root, student, assignment) for student in students for assignment in assignments
    )
    return Intake(root, students, tasks)


def _link_on_the_way(root: Path, path: Path) -> Path | None:
    """The first symbolic link between ``root`` and ``path`` (``path`` included), if any."""
    for p in (path, *path.parents):
        if p == root:
            return None
        if p.is_symlink():
            return p
    return None


def _locate(root: Path, student: str, assignment: str) -> Task:
    folder = root / student
    problems: list[tuple[str, str]] = []
    entries = _entries(folder)
    dirs = [p for p in entries if p.is_dir() and normalize(p.name) == normalize(assignment)]
    notebook: Path | None = None
    timestamp = secret = None
    if dirs:
        home = next((d for d in dirs if d.name == assignment), dirs[0])
        if home.name != assignment:
            problems.append(
                ("misnamed-folder", f"the folder {home.name!r} was taken as {assignment}/")
            )
        stamp = home / "timestamp.txt"
        if stamp.is_file() and _link_on_the_way(root, stamp) is None:
            timestamp = stamp.read_text(errors="replace").strip()[:100] or None
        secret_file = home / "submission_secret.txt"
        if secret_file.is_file() and _link_on_the_way(root, secret_file) is None:
            secret = secret_file.read_text(errors="replace").strip()[:200] or None
        notebooks = [p for p in _entries(home) if p.suffix == ".ipynb" and p.is_file()]
        exact = home / f"{assignment}.ipynb"
        if exact.is_file():
            notebook = exact
        elif notebooks:
            mentions = [p for p in notebooks if normalize(assignment) in normalize(p.stem)]
            notebook = (mentions or notebooks)[0]
            others = "" if len(notebooks) == 1 else f" (of {', '.join(p.name for p in notebooks)})"
            problems.append(
                ("misnamed-notebook", f"{notebook.name!r}{others} was graded as {assignment}.ipynb")
            )
    else:
        loose = [
            p
            for p in entries
            if p.is_file() and p.suffix == ".ipynb" and normalize(p.stem) == normalize(assignment)
        ]
        if loose:
            notebook = loose[0]
            problems.append(
                ("misplaced-notebook", f"{notebook.name!r} was not in a folder {assignment}/")
            )
    link = _link_on_the_way(root, notebook) if notebook else None
    if notebook is not None and link is not None:
        problems.append(
            (
                "symlink",
                f"{link.relative_to(root)} is a symbolic link; links are not followed (it could "
                "point at someone else's work), so nothing was graded",
            )
        )
        notebook = None
    return Task(
        key=task_key(student, assignment),
        student=student,
        assignment=assignment,
        notebook=str(notebook) if notebook else None,
        fingerprint=file_hash(notebook) if notebook else "missing",
        timestamp=timestamp,
        secret=secret,
        problems=tuple(problems),
    )
