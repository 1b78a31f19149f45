"""Find the submissions: nbgrader's layout, a Canvas or Moodle download, or a generic flat zip.

**nbgrader's layout**, ``<student_id>/<problemN>/<problemN>.ipynb`` (a folder, or a zip of one).
Students get names wrong, so a notebook is looked for leniently and every guess is reported:

* the folder may be spelled differently (``Problem 1``, ``problem_1``); names are compared without
  case, spaces or punctuation;
* a folder without ``problemN.ipynb`` but with one other notebook (``problem1-Copy1.ipynb``,
  ``Untitled.ipynb``) has that one graded; with several, the one whose name mentions the problem,
  else the first by name;
* a notebook may sit directly in the student's folder (``<student>/problem1.ipynb``);
* nothing found means a missing notebook, which scores zero.

**An LMS download** (:mod:`~roofline_grader.intake.lms` has the naming formats and their sources): every
file is read for who sent it and what it was called. The problem a notebook belongs to is, in
order: ``--problem`` (every notebook of this run is that problem), the download's own name (Canvas
and Moodle name a download after its assignment: ``cs101-problem-1_submissions.zip``), else the
notebook's original name (leniently: ``Problem 1.ipynb``, ``problem1-1.ipynb``). The student
is, with a roster (:mod:`~roofline_grader.intake.roster`), the roster row with the file's LMS id,
else the one with its name, unless two participants of the download share that name (then
neither is placed: the report names both, and an ``lms_id`` column tells them apart); without a
roster, the LMS's user id (Canvas user id, Moodle participant id) or, in a generic zip, the
name's student part made safe (:func:`~roofline_grader.intake.lms.safe_student_id`; two names
that become one id are told apart by a hash). Of several notebooks for one student and problem,
the latest upload is graded, by the LMS's own record (Canvas's attachment id, which grows with
every upload; else the file's time, which Moodle's download stores as the upload's), the
resubmission suffix ``-1`` only breaking ties; the others are listed as superseded. Only the
problems some notebook was placed in are graded, so one download per problem, graded one at a
time, never turns another problem's grades into zeros.

**A folder of downloads**: a folder holding zips (and no student folders) has each zip read as one
download, so an instructor who downloaded each problem's Canvas assignment separately grades them
in one run (a single path keeps ``make grade SUBMISSIONS=`` and the journal's resume simple).

**Nothing is skipped silently**: every file not graded is in :attr:`Intake.unplaced` with its
reason (not a notebook, no problem in its name, not in the roster, superseded, a link …), and a
run where no notebook can be graded at all raises :class:`NothingToGradeError`, which says what
was seen.

A zip is extracted (once, keyed by its hash) with every member checked: no absolute paths, no
``..``, no links (each one is listed), bounded size; a zip inside a download is never opened. A
single wrapper folder (``submitted/``) is looked through.
"""

from __future__ import annotations

import contextlib
import enum
import hashlib
import io
import json
import os
import re
import stat
import struct
import time
import zipfile
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from roofline_grader.intake.lms import (
    Layout,
    Named,
    generic_student,
    is_canvas_entry,
    is_moodle_folder,
    name_keys,
    parse_canvas,
    parse_moodle,
    printable,
    problem_mentions,
    problem_of,
    resubmission,
    safe_student_id,
)
from roofline_grader.intake.roster import Roster, Student, is_canvas_test_student
from roofline_grader.results import ProblemKind, SubmissionProblem

MAX_ZIP_BYTES = 4 * 2**30
MAX_ZIP_MEMBERS = 200_000
IGNORED = ("__MACOSX", ".ipynb_checkpoints", ".DS_Store", ".git", ".roofline")
"""Names that are never students or notebooks (any other name, a leading dot included, is)."""
COMPLETE = ".complete"
"""The marker an extracted zip's folder holds once complete (JSON: the link entries not extracted)."""


@dataclass(frozen=True)
class Task:
    """One student × assignment to grade.

    Attributes:
        key: unique name of the task, safe as a file name.
        student: the student id.
        assignment: e.g. 'problem1'.
        notebook: path of the submitted notebook, or None when none was found.
        fingerprint: sha256 of the notebook's bytes ('missing' without one).
        timestamp: the contents of nbgrader's timestamp.txt, if any.
        secret: the contents of nbgrader's submission_secret.txt, if any (written by ``nbgrader
            submit``; Fetch Feedback finds a feedback page by a hash of it).
        problems: what intake already noticed (a misnamed notebook, say).
    """

    key: str
    student: str
    assignment: str
    notebook: str | None
    fingerprint: str
    timestamp: str | None = None
    secret: str | None = None
    problems: tuple[SubmissionProblem, ...] = ()


class IntakeError(ValueError):
    """The submissions path cannot be read at all (not a folder, not a zip, an unsafe zip)."""


class NothingToGradeError(IntakeError):
    """The submissions hold no notebook that can be graded; the message says what they do hold."""


class Why(enum.Enum):
    """Why a file was not graded, and what the instructor can do about it.

    Each member's value is ``(words, advice)``: ``words`` is the reason as report.txt prints it;
    ``advice`` is what would place such a file, or ``""`` for a routine reason. Routine means
    nothing is wrong and nothing is to be done: an earlier upload that a later one of the same
    student and problem supersedes (a resubmission) is listed in the report, and does not make
    ``roofline-grade`` exit 3. Every other reason is a file the run could not place to a student
    and problem, which the instructor must look at.
    """

    NOT_NOTEBOOK = (
        "not a notebook",
        "open them: a student who handed in another kind of file has no notebook graded",
    )
    NO_PROBLEM = (
        "no problem in its name",
        "pass --problem problemN when the download holds one problem, or rename the files",
    )
    NO_STUDENT = ("no student in its name", "rename the files as <student>_<problemN>.ipynb")
    NOT_IN_ROSTER = (
        "not in the roster",
        "add the student to the roster (--roster), or leave them out if they are not in the course",
    )
    SHARED_NAME = (
        "a name several participants share",
        "give the roster each participant's LMS id (an lms_id column: Canvas's ID, Moodle's "
        "participant id) so that no upload is placed by a name two people have",
    )
    BAD_NAME = (
        "a name that is not valid UTF-8",
        "ask the student to upload it again under a plain name, or rename it in the zip",
    )
    SUPERSEDED = ("superseded by a later upload", "")
    LEFT_OUT = ("left out of grading", "")
    OUTSIDE = (
        "outside any student's folder",
        "move each notebook into <student>/<problemN>/",
    )
    LINK = ("symbolic link, not followed", "replace each link by the file it points to")
    NESTED_ZIP = (
        "a zip inside the download, not opened",
        "unpack it, or pass it as SUBMISSIONS on its own",
    )

    @property
    def words(self) -> str:
        """The reason, as report.txt prints it."""
        return str(self.value[0])

    @property
    def advice(self) -> str:
        """What would place such a file ('' for a routine reason)."""
        return str(self.value[1])

    @property
    def routine(self) -> bool:
        """True when nothing is wrong: listed in the report, never a reason to exit 3."""
        return not self.advice


@dataclass(frozen=True)
class Unplaced:
    """A file of the submissions that was not graded, and why.

    Attributes:
        file: where it is, relative to the submissions (printable, shortened if very long).
        why: the kind of reason.
        detail: the reason in words, naming what would place it.
    """

    file: str
    why: Why
    detail: str


@dataclass(frozen=True)
class Intake:
    """The students found, one task per student × assignment, and every file not graded."""

    root: Path
    students: tuple[str, ...]
    tasks: tuple[Task, ...]
    unplaced: tuple[Unplaced, ...] = ()
    layout: str = Layout.NBGRADER.short


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
    """Extract a zip of submissions safely into ``into/<hash>/``; returns that folder.

    Files keep the times stored in the zip (the latest of two uploads is told by them). Link
    entries are not extracted; their names are kept in the folder's ``.complete`` marker
    (:func:`zip_links`)."""
    target = into / f"zip-{file_hash(archive)[:16]}"
    done = target / COMPLETE
    if done.is_file():
        return target
    links: list[str] = []
    bad: list[str] = []
    try:
        with _open_zip(archive) as (zf, bad_names):
            members = zf.infolist()
            if len(members) > MAX_ZIP_MEMBERS:
                raise IntakeError(
                    f"{archive} has {len(members)} entries, more than {MAX_ZIP_MEMBERS}"
                )
            if sum(m.file_size for m in members) > MAX_ZIP_BYTES:
                raise IntakeError(f"{archive} unpacks to more than {MAX_ZIP_BYTES // 2**30} GiB")
            target.mkdir(parents=True, exist_ok=True)
            for member in members:
                if member.orig_filename in bad_names:
                    bad.append(bad_names[member.orig_filename])
                elif not _extract_member(archive, zf, member, target):
                    links.append(member.filename)
    except zipfile.BadZipFile as exc:
        raise IntakeError(f"{archive} is not a readable zip file ({exc})") from None
    done.write_text(json.dumps({"links": links, "bad_names": bad}) + "\n")
    return target


class _Overlaid(io.RawIOBase):
    """A zip file read through, with some of its bytes read as others (``patches``: offset →
    bytes); nothing is written to the file."""

    def __init__(self, path: Path, patches: Mapping[int, bytes]) -> None:
        self._fh = path.open("rb")
        self._patches = dict(patches)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = 0) -> int:
        return self._fh.seek(offset, whence)

    def tell(self) -> int:
        return self._fh.tell()

    def read(self, size: int | None = -1) -> bytes:
        start = self._fh.tell()
        data = bytearray(self._fh.read(-1 if size is None else size))
        for at, new in self._patches.items():
            lo, hi = max(at, start), min(at + len(new), start + len(data))
            if lo < hi:
                data[lo - start : hi - start] = new[lo - at : hi - at]
        return bytes(data)

    def close(self) -> None:
        self._fh.close()
        super().close()


@contextlib.contextmanager
def _open_zip(archive: Path) -> Iterator[tuple[zipfile.ZipFile, dict[str, str]]]:
    """The zip, and the entries whose names say they are UTF-8 (flag bit 11) but are not (by the
    name zipfile gives them → the name as a report shows it).

    Python's zipfile cannot open such a zip at all (``UnicodeDecodeError``): one bad name would stop
    the whole class's grading. Its central directory is then read here, and each such entry's
    flag is read as cleared, so that zipfile takes its name as CP437 (as the zip format does
    without the flag) and the entry can be listed, not extracted."""
    bad: dict[str, str] = {}
    with contextlib.ExitStack() as stack:
        try:
            zf = stack.enter_context(zipfile.ZipFile(archive))
        except UnicodeDecodeError:
            patches, bad = _bad_utf8_names(archive)
            fh = stack.enter_context(_Overlaid(archive, patches))
            zf = stack.enter_context(zipfile.ZipFile(fh))
        yield zf, bad


def _bad_utf8_names(archive: Path) -> tuple[dict[int, bytes], dict[str, str]]:
    """For each central-directory entry flagged UTF-8 whose name is not: the patch clearing its
    flag (offset → new flag bytes), and its name as CP437 → as shown (bad bytes as ``\\xNN``).

    The central directory is found as zipfile finds it (``zipfile._EndRecData``, Python 3.11's,
    which knows ZIP64); each entry is ``structCentralDir`` then its name, extra and comment."""
    patches: dict[int, bytes] = {}
    bad: dict[str, str] = {}
    with archive.open("rb") as fh:
        end = zipfile._EndRecData(fh)  # type: ignore[attr-defined]
        if not end:
            raise zipfile.BadZipFile("no end of central directory")
        size_cd = end[zipfile._ECD_SIZE]  # type: ignore[attr-defined]
        start = end[zipfile._ECD_LOCATION] - size_cd  # type: ignore[attr-defined]
        fh.seek(start)
        directory = fh.read(size_cd)
    header = struct.Struct(zipfile.structCentralDir)  # type: ignore[attr-defined]
    at = 0
    while at + header.size <= len(directory):
        fields = header.unpack_from(directory, at)
        if fields[0] != zipfile.stringCentralDir:  # type: ignore[attr-defined]
            break
        flags, n_name, n_extra, n_comment = fields[5], fields[12], fields[13], fields[14]
        raw = directory[at + header.size : at + header.size + n_name]
        if flags & 0x800:
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError:
                patches[start + at + 8] = struct.pack("<H", flags & ~0x800)
                bad[raw.decode("cp437")] = raw.decode("utf-8", "backslashreplace")
        at += header.size + n_name + n_extra + n_comment
    return patches, bad


def zip_links(target: Path, kind: str = "links") -> list[str]:
    """The link entries an extracted zip held (not extracted); ``kind="bad_names"``: the entries
    whose names were not valid UTF-8 (not extracted either)."""
    try:
        data = json.loads((target / COMPLETE).read_text())
    except (OSError, ValueError):
        return []
    return [str(name) for name in data.get(kind, [])] if isinstance(data, dict) else []


def _extract_member(
    archive: Path, zf: zipfile.ZipFile, member: zipfile.ZipInfo, target: Path
) -> bool:
    """One member of the zip, checked; False for a link (not extracted). Entries that clash (a file
    and a folder of one name) are an error that names them."""
    name = member.filename.replace("\\", "/")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if name.startswith("/") or ".." in parts or re.match(r"^[A-Za-z]:", name):
        raise IntakeError(f"{archive} has an unsafe entry {member.filename!r}")
    if stat.S_ISLNK(member.external_attr >> 16):
        return False
    parts = [fits_file_system(p) for p in parts]
    destination = target.joinpath(*parts) if parts else target
    try:
        if member.is_dir():
            destination.mkdir(parents=True, exist_ok=True)
            return True
        destination.parent.mkdir(parents=True, exist_ok=True)
        with zf.open(member) as src, destination.open("wb") as dst:
            for block in iter(lambda: src.read(1 << 20), b""):
                dst.write(block)
    except (FileExistsError, NotADirectoryError, IsADirectoryError) as exc:
        raise IntakeError(
            f"{archive} has entries that clash: {member.filename!r} is both a file and a folder "
            f"({exc.strerror}); fix the zip and grade again"
        ) from None
    except OSError as exc:  # a name too long for this file system, say
        raise IntakeError(
            f"{archive}: its entry {printable(member.filename)!r} cannot be written here "
            f"({exc.strerror})"
        ) from None
    try:
        stamp = time.mktime((*member.date_time, 0, 0, -1))
        os.utime(destination, (stamp, stamp))
    except (OverflowError, ValueError, OSError):
        pass  # a zip with no usable time: the file keeps the time of extraction
    return True


MAX_NAME_BYTES = 255
"""The longest file name (in UTF-8 bytes) common file systems take."""


def fits_file_system(name: str) -> str:
    """``name``, or, when longer than 255 UTF-8 bytes, its start and end around a hash of the
    whole: an LMS name is the submitter's prefix plus the student's own (possibly very long) file
    name, and both ends are what tell who sent it and which problem it is."""
    if len(name.encode("utf-8", "surrogatepass")) <= MAX_NAME_BYTES:
        return name
    mark = "~" + hashlib.sha1(name.encode("utf-8", "surrogatepass")).hexdigest()[:10] + "~"
    head, tail = name[:100], name[-100:]
    while len((head + mark + tail).encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
        head, tail = head[:-1], tail[1:]
    return head + mark + tail


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


@dataclass(frozen=True)
class Source:
    """One download to read: a folder (given, or an extracted zip).

    Attributes:
        root: the folder.
        label: how messages name it ('' for the submissions themselves, else the zip's name).
        hint: the problem the download's own name names (Canvas and Moodle name it after the
            assignment), or None.
        links: entries of its zip that were links (not extracted).
        bad_names: entries of its zip whose names were not valid UTF-8 (not extracted), shown with
            each bad byte as ``\\xNN``.
        skip: paths in ``root`` that are not part of it (the zips of a folder of downloads).
        extracted: ``root`` is an extracted zip (whose ``.complete`` marker is not part of it).
    """

    root: Path
    label: str = ""
    hint: str | None = None
    links: tuple[str, ...] = ()
    skip: frozenset[Path] = frozenset()
    extracted: bool = False
    bad_names: tuple[str, ...] = ()

    def show(self, relative: str) -> str:
        return printable(f"{self.label}/{relative}" if self.label else relative)


@dataclass(frozen=True)
class Candidate:
    """A notebook placed to a student and a problem, not yet chosen among its student's others."""

    student: str
    assignment: str
    path: Path
    shown: str
    order: tuple[int, int, int, str]
    notes: tuple[SubmissionProblem, ...] = ()


@dataclass
class _Found:
    """What reading the sources found (filled as they are read)."""

    tasks: list[Task] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    unplaced: list[Unplaced] = field(default_factory=list)
    layouts: Counter[Layout] = field(default_factory=Counter)
    suffixes: Counter[str] = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)
    generic_ids: dict[str, set[str]] = field(default_factory=dict)

    def saw(self, layout: Layout, shown: str, name: str) -> None:
        self.layouts[layout] += 1
        self.suffixes[Path(name).suffix.lower() or "(no extension)"] += 1
        if len(self.examples) < 4:
            self.examples.append(shown)


def discover(
    path: Path,
    assignments: Sequence[str],
    extract_into: Path,
    roster: Roster | None = None,
    problem: str | None = None,
) -> Intake:
    """Every student and their tasks, from ``path`` (a folder, a zip, or a folder of zips).

    ``roster`` maps LMS files to students; ``problem`` (one of ``assignments``) says every notebook
    is that problem. Raises :class:`NothingToGradeError` when no notebook can be graded."""
    if problem is not None and problem not in assignments:
        raise IntakeError(f"--problem {problem!r} is not one of {', '.join(assignments)}")
    sources = _sources(path, assignments, extract_into)
    found = _Found()
    for source in sources:
        _read(source, assignments, roster, problem, found)
    tasks = _choose(found, assignments, roster)
    students = tuple(dict.fromkeys(t.student for t in tasks))
    layout = _guess(found)
    if not any(t.notebook for t in tasks):
        raise NothingToGradeError(_nothing(path, found, layout, assignments))
    return Intake(sources[0].root, students, tuple(tasks), tuple(found.unplaced), layout)


def _sources(path: Path, assignments: Sequence[str], extract_into: Path) -> list[Source]:
    """The downloads in ``path``: itself, its extracted zip, or (a folder of downloads) each zip."""
    if path.is_file():
        if not zipfile.is_zipfile(path):
            raise IntakeError(f"{path} is neither a folder nor a zip file")
        target = extract_zip(path, extract_into)
        hint = problem_of(path.stem, assignments)
        return [_extracted(target, "", hint)]
    if not path.is_dir():
        raise IntakeError(f"{path} does not exist")
    entries = _entries(path)
    zips = [p for p in entries if p.suffix.lower() == ".zip" and p.is_file() and not p.is_symlink()]
    students = [p for p in entries if p.is_dir() and _looks_like_student(p, assignments)]
    if not zips or students:
        return [Source(path)]
    sources = [Source(path, "", None, (), frozenset(zips))]
    for archive in zips:
        if not zipfile.is_zipfile(archive):
            continue  # listed as not a notebook when the folder itself is read
        target = extract_zip(archive, extract_into)
        hint = problem_of(archive.stem, assignments)
        sources.append(_extracted(target, archive.name, hint))
    return sources


def _extracted(target: Path, label: str, hint: str | None) -> Source:
    links, bad = tuple(zip_links(target)), tuple(zip_links(target, "bad_names"))
    return Source(target, label, hint, links, extracted=True, bad_names=bad)


def _is_marker(source: Source, p: Path) -> bool:
    return source.extracted and p.name == COMPLETE and p.parent == source.root


def _unwrap(source: Source) -> Path:
    """The folder below single wrapper folders (``submissions/``), for an LMS download."""
    folder = source.root
    for _ in range(3):
        entries = [p for p in _entries(folder) if p not in source.skip and p.name != COMPLETE]
        if len(entries) != 1 or not entries[0].is_dir() or entries[0].is_symlink():
            break
        if is_moodle_folder(entries[0].name):
            break
        folder = entries[0]
    return folder


def _read(
    source: Source,
    assignments: Sequence[str],
    roster: Roster | None,
    problem: str | None,
    found: _Found,
) -> None:
    for name in source.links:
        found.unplaced.append(
            Unplaced(source.show(name), Why.LINK, "a link in the zip; links are never followed")
        )
    for name in source.bad_names:
        found.unplaced.append(
            Unplaced(
                source.show(name),
                Why.BAD_NAME,
                "the zip says its name is UTF-8, and it is not (bad bytes shown as \\xNN); not "
                "extracted, the rest of the zip is",
            )
        )
    root = find_root(source.root, assignments)
    folders = [p for p in _entries(root) if p.is_dir() and p not in source.skip]
    moodle = any(is_moodle_folder(p.name) for p in folders)
    if not moodle and any(_looks_like_student(p, assignments) for p in folders):
        _read_nbgrader(source, root, folders, assignments, roster, found)
    else:
        _read_lms(source, assignments, roster, problem, found)


def _read_nbgrader(
    source: Source,
    root: Path,
    folders: list[Path],
    assignments: Sequence[str],
    roster: Roster | None,
    found: _Found,
) -> None:
    """nbgrader's layout, exactly as before; with a roster, folders are named by its ids."""
    for p in _entries(root):
        if p.is_dir() or p in source.skip or _is_marker(source, p):
            continue
        shown = source.show(str(p.relative_to(source.root)))
        found.saw(Layout.NBGRADER, shown, p.name)
        found.unplaced.append(
            Unplaced(
                shown,
                Why.OUTSIDE,
                "a file beside the student folders; in nbgrader's layout a notebook is "
                "<student>/<problemN>/<problemN>.ipynb",
            )
        )
    for folder in folders:
        found.saw(Layout.NBGRADER, source.show(folder.name), folder.name)
        student = folder.name
        if roster is not None:
            matches = roster.by_any_id(folder.name) or roster.by_name(folder.name)
            left_out = None if matches else roster.left_out_row(folder.name, folder.name)
            if left_out is not None:
                shown = source.show(folder.name + "/")
                why = f"the roster leaves row {left_out.student.row} out"
                found.unplaced.append(Unplaced(shown, Why.LEFT_OUT, why))
                continue
            if len(matches) != 1:
                found.unplaced.append(
                    Unplaced(
                        source.show(folder.name + "/"),
                        Why.NOT_IN_ROSTER,
                        _roster_miss(f"the student folder {folder.name!r}", matches),
                    )
                )
                continue
            student = matches[0].student_id
        found.tasks.extend(_locate(root, folder.name, a, student) for a in assignments)


def _walk(source: Source, top: Path, found: _Found) -> list[tuple[Path, tuple[str, ...]]]:
    """Every file under ``top`` with its path parts below it; links are listed, not followed."""
    files: list[tuple[Path, tuple[str, ...]]] = []
    for folder, dirs, names in os.walk(top):
        here = Path(folder)
        dirs[:] = sorted(d for d in dirs if d not in IGNORED)
        for d in list(dirs):
            if (here / d).is_symlink():
                dirs.remove(d)
                shown = source.show(str((here / d).relative_to(source.root)) + "/")
                found.unplaced.append(Unplaced(shown, Why.LINK, "links are never followed"))
        for name in sorted(names):
            p = here / name
            if name in IGNORED or p in source.skip or _is_marker(source, p):
                continue
            files.append((p, p.relative_to(top).parts))
    return files


def _read_lms(
    source: Source,
    assignments: Sequence[str],
    roster: Roster | None,
    problem: str | None,
    found: _Found,
) -> None:
    """A Canvas, Moodle or generic download: each file placed by its name."""
    top = _unwrap(source)
    files = [
        (
            path,
            parts,
            parse_moodle(parts) or parse_canvas(parts[-1]) or _generic(parts, assignments),
        )
        for path, parts in _walk(source, top, found)
    ]
    shared = shared_names(named for _, _, named in files)
    for path, parts, named in files:
        shown = source.show(str(path.relative_to(source.root)))
        layout = Layout.CANVAS if is_canvas_entry(parts[-1]) else named.layout
        found.saw(layout, shown, parts[-1])
        if path.is_symlink():
            found.unplaced.append(Unplaced(shown, Why.LINK, "links are never followed"))
            continue
        if not named.original.lower().endswith(".ipynb"):
            kind = Why.NESTED_ZIP if named.original.lower().endswith(".zip") else Why.NOT_NOTEBOOK
            suffix = Path(named.original).suffix or "no extension"
            found.unplaced.append(
                Unplaced(shown, kind, f"{printable(named.original)!r} ({suffix})")
            )
            continue
        assignment, notes, why_not = _problem(named, source, assignments, problem)
        if assignment is None:
            found.unplaced.append(Unplaced(shown, Why.NO_PROBLEM, why_not))
            continue
        if named.late:
            late = f"Canvas marked {printable(named.original)!r} late"
            notes = (*notes, SubmissionProblem(ProblemKind.LATE, late))
        student = _student(named, roster, found, shared)
        if isinstance(student, Unplaced):
            found.unplaced.append(Unplaced(shown, student.why, student.detail))
            continue
        _, again = resubmission(Path(named.original).stem)
        order = (
            named.attachment_id if named.attachment_id is not None else -1,
            path.stat().st_mtime_ns,
            again,
            shown,
        )
        found.candidates.append(Candidate(student, assignment, path, shown, order, notes))


def _generic(parts: tuple[str, ...], assignments: Sequence[str]) -> Named:
    """A generic name: ``<student>_<problemN>.ipynb`` at the top, else ``<student>/…/<file>``."""
    if len(parts) == 1:
        return Named(Layout.GENERIC, None, generic_student(parts[0], assignments), parts[0])
    return Named(Layout.GENERIC, None, parts[0], parts[-1])


def _problem(
    named: Named, source: Source, assignments: Sequence[str], problem: str | None
) -> tuple[str | None, tuple[SubmissionProblem, ...], str]:
    """The problem of a notebook, notes for its task, and for None, the reason it has none."""
    own = problem_of(named.original, assignments)
    given, why = (problem, "--problem") if problem else (source.hint, f"{source.label}'s name")
    if given:
        notes: tuple[SubmissionProblem, ...] = ()
        if own and own != given:
            notes = (
                SubmissionProblem(
                    ProblemKind.MISNAMED_NOTEBOOK,
                    f"{printable(named.original)!r} was graded as {given} ({why} says so)",
                ),
            )
        return given, notes, ""
    if own:
        return own, (), ""
    stem, _ = resubmission(Path(named.original).stem)
    several = [a for a, _ in problem_mentions(stem, assignments)]
    what = f"names several problems ({', '.join(several)})" if several else "names no problem"
    return (
        None,
        (),
        f"{printable(named.original)!r} {what}; expected one of {', '.join(assignments)} in "
        "its name (Problem 1.ipynb, problem1-1.ipynb …). If this download is one problem's, "
        "pass --problem problemN",
    )


def _roster_miss(who: str, matches: list[Student]) -> str:
    if matches:
        rows = ", ".join(str(s.row) for s in matches)
        return f"{who} matches several roster rows ({rows}); give them distinct names or ids"
    return f"{who} is in no roster row (by LMS id, student id, login, email or name)"


def shared_names(files: Iterable[Named]) -> dict[str, list[str]]:
    """The names (by each of their :func:`~roofline_grader.intake.lms.name_keys`) that several
    participants of one download have, with those participants' LMS ids, in order: two Moodle
    users both named "Bob Smith" (ids 222 and 333)."""
    ids: dict[str, list[str]] = {}
    for named in files:
        if named.lms_id is None or not named.name:
            continue
        for key in name_keys(named.name):
            if named.lms_id not in ids.setdefault(key, []):
                ids[key].append(named.lms_id)
    return {key: lms_ids for key, lms_ids in ids.items() if len(lms_ids) > 1}


def _student(
    named: Named, roster: Roster | None, found: _Found, shared: Mapping[str, list[str]]
) -> str | Unplaced:
    """The student id of a file, or why there is none."""
    if named.layout is Layout.GENERIC:
        raw = named.name or ""
        if roster is not None:
            matches = roster.by_any_id(raw) or roster.by_name(raw)
            if len(matches) == 1:
                return matches[0].student_id
            left_out = None if matches else roster.left_out_row(raw, raw)
            if left_out is not None:
                return Unplaced(
                    "", Why.LEFT_OUT, f"{raw!r}: the roster leaves row {left_out.student.row} out"
                )
            return Unplaced("", Why.NOT_IN_ROSTER, _roster_miss(f"the name {raw!r}", matches))
        safe = safe_student_id(raw)
        if safe is None:
            return Unplaced(
                "", Why.NO_STUDENT, "no student in its name; expected <student>_<problemN>.ipynb"
            )
        found.generic_ids.setdefault(safe, set()).add(raw)
        return "\0" + raw  # made safe, and told apart from its look-alikes, once all are known
    who = f"{named.layout.short} user {named.lms_id} ({named.name or 'no name'})"
    if roster is None:
        if named.layout is Layout.CANVAS and is_canvas_test_student(named.name or ""):
            return Unplaced("", Why.LEFT_OUT, f"{who}: Canvas's test student (Student View)")
        return str(named.lms_id)
    student = roster.by_lms_id(named.lms_id)
    if student is not None:
        return student.student_id
    others = next((shared[k] for k in sorted(name_keys(named.name or "")) if k in shared), None)
    if others:
        ids = ", ".join(others)
        return Unplaced(
            "",
            Why.SHARED_NAME,
            f"{who}: {len(others)} participants of this download are named {named.name!r} (LMS "
            f"ids {ids}) and the roster has none of these ids, so the upload is not placed by "
            "name (it could be graded as the other's)",
        )
    matches = roster.by_name(named.name)
    if len(matches) == 1:
        return matches[0].student_id
    left_out = None if matches else roster.left_out_row(str(named.lms_id), named.name)
    if left_out is not None:
        return Unplaced(
            "", Why.LEFT_OUT, f"{who}: the roster leaves row {left_out.student.row} out"
        )
    return Unplaced("", Why.NOT_IN_ROSTER, _roster_miss(who, matches))


def _final_id(student: str, found: _Found) -> str:
    """A generic student's id: its safe form, with a hash when two names share that form."""
    if not student.startswith("\0"):
        return student
    raw = student[1:]
    safe = safe_student_id(raw) or "student"
    if len(found.generic_ids.get(safe, ())) > 1:
        return f"{safe}-{hashlib.sha1(raw.encode('utf-8', 'surrogatepass')).hexdigest()[:6]}"
    return safe


def _choose(found: _Found, assignments: Sequence[str], roster: Roster | None) -> list[Task]:
    """One task per student × problem: nbgrader's tasks, then the latest notebook of each LMS
    student and problem; every problem placed at all is a task (a missing notebook) for the
    others; with a roster, every roster student has the tasks."""
    tasks = list(found.tasks)
    taken = {(t.student, t.assignment) for t in tasks}
    groups: dict[tuple[str, str], list[Candidate]] = {}
    for c in found.candidates:
        groups.setdefault((_final_id(c.student, found), c.assignment), []).append(c)
    for (student, assignment), group in groups.items():
        group.sort(key=lambda c: c.order)
        if (student, assignment) in taken:  # an nbgrader-layout notebook came first
            superseded, latest = group, None
        else:
            superseded, latest = group[:-1], group[-1]
        for other in superseded:
            found.unplaced.append(
                Unplaced(
                    other.shown,
                    Why.SUPERSEDED,
                    f"{student}'s {assignment} is also in "
                    + (
                        f"{latest.shown}, a later upload, which was graded"
                        if latest
                        else "nbgrader's layout, which was graded"
                    ),
                )
            )
        if latest is not None:
            taken.add((student, assignment))
            tasks.append(
                Task(
                    key=task_key(student, assignment),
                    student=student,
                    assignment=assignment,
                    notebook=str(latest.path),
                    fingerprint=file_hash(latest.path),
                    problems=latest.notes,
                )
            )
    lms_problems = [a for a in assignments if any(k[1] == a for k in groups)]
    students = list(dict.fromkeys(t.student for t in tasks))
    if roster is not None:
        students = [s.student_id for s in roster.students] + [
            s for s in students if s not in {r.student_id for r in roster.students}
        ]
    nb_problems = list(assignments) if found.tasks else []
    for student in students:
        for assignment in dict.fromkeys(nb_problems + lms_problems):
            if (student, assignment) not in taken:
                taken.add((student, assignment))
                tasks.append(_missing(student, assignment))
    order = {s: i for i, s in enumerate(students)}
    rank = {a: i for i, a in enumerate(assignments)}
    tasks.sort(key=lambda t: (order.get(t.student, len(order)), rank.get(t.assignment, 0)))
    return tasks


def _missing(student: str, assignment: str) -> Task:
    return Task(task_key(student, assignment), student, assignment, None, "missing")


def _guess(found: _Found) -> str:
    """The layout most files follow ('nbgrader' when there were none)."""
    if not found.layouts:
        return Layout.NBGRADER.short
    return found.layouts.most_common(1)[0][0].short


def _nothing(path: Path, found: _Found, layout: str, assignments: Sequence[str]) -> str:
    """Why nothing can be graded: what was seen, and what was expected."""
    files = sum(found.layouts.values())
    kinds = ", ".join(f"{n} {suffix}" for suffix, n in found.suffixes.most_common(6))
    lines = [f"nothing to grade in {path}: no notebook could be placed to a student and problem."]
    if files:
        lines.append(
            f"Saw {files} file(s) and folder(s) ({kinds}); they look like a {layout} layout."
        )
        lines.append("For example: " + ", ".join(repr(e) for e in found.examples))
    else:
        lines.append("Saw no files at all.")
    reasons = Counter(u.why.words for u in found.unplaced)
    if reasons:
        lines.append(
            "Not graded: "
            + ", ".join(f"{n} {why}" for why, n in reasons.most_common())
            + (f" (e.g. {found.unplaced[0].file}: {found.unplaced[0].detail})")
        )
    lines.append(
        "Expected notebooks (.ipynb) for "
        + ", ".join(assignments)
        + " in one of: nbgrader's <student>/<problemN>/<problemN>.ipynb; a Canvas "
        "'Download Submissions' zip; a Moodle 'Download all submissions' zip; a flat zip of "
        "<student>_<problemN>.ipynb; or a folder of such zips."
    )
    return "\n".join(lines)


def _link_on_the_way(root: Path, path: Path) -> Path | None:
    """The first symbolic link between ``root`` and ``path`` (``path`` included), if any."""
    for p in (path, *path.parents):
        if p == root:
            return None
        if p.is_symlink():
            return p
    return None


def _locate(root: Path, folder_name: str, assignment: str, student: str | None = None) -> Task:
    """The task of ``root/<folder_name>`` for ``assignment``, recorded under ``student`` (default:
    the folder's name)."""
    folder = root / folder_name
    student = folder_name if student is None else student
    problems: list[SubmissionProblem] = []
    entries = _entries(folder)
    dirs = [p for p in entries if p.is_dir() and normalize(p.name) == normalize(assignment)]
    notebook: Path | None = None
    timestamp = secret = None
    if dirs:
        home = next((d for d in dirs if d.name == assignment), dirs[0])
        if home.name != assignment:
            problems.append(
                SubmissionProblem(
                    ProblemKind.MISNAMED_FOLDER,
                    f"the folder {home.name!r} was taken as {assignment}/",
                )
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
                SubmissionProblem(
                    ProblemKind.MISNAMED_NOTEBOOK,
                    f"{notebook.name!r}{others} was graded as {assignment}.ipynb",
                )
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
                SubmissionProblem(
                    ProblemKind.MISPLACED_NOTEBOOK,
                    f"{notebook.name!r} was not in a folder {assignment}/",
                )
            )
    link = _link_on_the_way(root, notebook) if notebook else None
    if notebook is not None and link is not None:
        problems.append(
            SubmissionProblem(
                ProblemKind.SYMLINK,
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
