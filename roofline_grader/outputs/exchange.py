"""Feedback back to students: into nbgrader's exchange for Fetch Feedback, and a zip per student.

**The exchange.** JupyterLab's Assignments tab (``nbgrader fetch_feedback``) looks for a submission's
feedback in ``<exchange>/<course>/feedback/<hash>.html``, where ``<hash>`` is
``nbgrader.utils.notebook_hash(secret=<submission_secret.txt>, notebook_id=<notebook name>)`` and the
secret is the one ``nbgrader submit`` wrote into the submission and the student's own cache
(nbgrader 0.9's exchange/default/submit.py, fetch_feedback.py). :func:`release_feedback` puts each
problem page of :mod:`~roofline_grader.outputs.feedback` there with nbgrader's own
``ExchangeReleaseFeedback`` (exchange/default/release_feedback.py), which reads
``feedback/<student>/<assignment>/{<notebook>.html,timestamp.txt,submission_secret.txt}``: the
course's page, never nbgrader's generated HTML (which prints the hidden tests' source). A submission
that did not come through ``nbgrader submit`` (an LMS download) has no secret: its page cannot be
fetched, and the release says so for each one.

The exchange must exist and be writable by everyone, as nbgrader documents ("Exchanging assignment
files", user_guide/managing_assignment_files: ``mkdir /tmp/exchange; chmod ugo+rw /tmp/exchange``;
its demos use ``ugo+rwx``); :data:`EXCHANGE_MODE` adds the sticky bit, as on ``/tmp``, so that no
user can remove or rename another's top-level entries.

**The zips.** ``feedback-zips/<student>.zip`` holds a student's pages (``<student>/index.html``, the
whole course, and ``<student>/<problem>.html``), to attach to that student's grade in an LMS: one
file per student, which Moodle's "Feedback files" and Canvas's SpeedGrader comment attachments both
take as it is. Their *bulk* uploads instead match files by the LMS's own ids in the names of the
submission download (Moodle, mod/assign/feedback/file/importziplib.php: a folder
``<full name>_<participant id>_assignfeedback_file_``; Canvas, Assignment#
infer_comment_context_from_filename: ``<name>_<user id>_<attachment id>_<file>`` of a file the
student submitted), which a grading run does not have.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pwd
import shutil
import stat
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from roofline_grader.course.config import COURSE_ID
from roofline_grader.outputs.feedback import (
    COURSE_PAGE,
    FeedbackPages,
    OutputFailure,
    ProblemPage,
)

LOG = logging.getLogger("roofline_grader.outputs.exchange")
EXCHANGE_MODE = 0o1777
"""nbgrader's documented exchange permissions (``ugo+rwx``) plus the sticky bit."""
NO_SECRET = (
    "no submission_secret.txt: not submitted with nbgrader submit (an LMS download, say), so "
    "Fetch Feedback cannot find it; send the zip instead"
)
SHOWN = 20
"""Students named per reason in the report (report.json lists them all)."""


class ExchangeUnavailableError(Exception):
    """The exchange is missing or not writable: nothing can be released to it."""


@dataclass(frozen=True)
class Unreleased:
    """A problem page that did not reach the exchange, and why."""

    student: str
    assignment: str
    reason: str


@dataclass(frozen=True)
class FeedbackRelease:
    """What :func:`release_feedback` did: each page released or not, and the exchange used."""

    exchange: Path
    released: tuple[ProblemPage, ...]
    unreleased: tuple[Unreleased, ...]

    def lines(self) -> list[str]:
        """The report's lines: counts, and every page not released, grouped by reason."""
        out = [
            f"Released to the exchange {self.exchange} (Fetch Feedback): "
            f"{len(self.released)} problem pages; not released: {len(self.unreleased)}."
        ]
        by_reason: dict[str, list[Unreleased]] = {}
        for item in self.unreleased:
            by_reason.setdefault(item.reason, []).append(item)
        for reason, items in by_reason.items():
            names = [f"{i.student} / {i.assignment}" for i in items]
            more = f", and {len(names) - SHOWN} more (report.json)" if len(names) > SHOWN else ""
            out.append(f"  not released ({len(items)}), {reason}: {', '.join(names[:SHOWN])}{more}")
        return out

    def as_json(self) -> dict[str, object]:
        return {
            "exchange": str(self.exchange),
            "released": [{"student": p.student, "assignment": p.assignment} for p in self.released],
            "not_released": [
                {"student": u.student, "assignment": u.assignment, "reason": u.reason}
                for u in self.unreleased
            ],
        }


def check_exchange(root: Path) -> None:
    """Raise :class:`ExchangeUnavailableError`, saying how to make one, unless ``root`` is a folder
    this process may write to."""
    how = (
        f"create it as nbgrader documents, writable by everyone: mkdir -p {root} && "
        f"chmod {EXCHANGE_MODE:o} {root} (or name another with --exchange or $ROOFLINE_EXCHANGE)"
    )
    if not root.is_dir():
        raise ExchangeUnavailableError(f"the exchange {root} is not a folder; {how}")
    if not os.access(root, os.W_OK | os.X_OK):
        raise ExchangeUnavailableError(f"the exchange {root} is not writable by you; {how}")


def trusted_owners() -> frozenset[int]:
    """The users whose folders a release may write into: this process's, and under ``sudo`` the
    user who ran it (``$SUDO_UID``, as sudo sets it): the instructor of ``sudo make feedback``."""
    uids = {os.geteuid()}
    sudo = os.environ.get("SUDO_UID", "")
    if os.geteuid() == 0 and sudo.isdigit():
        uids.add(int(sudo))
    return frozenset(uids)


def _owner(uid: int) -> str:
    try:
        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except KeyError:
        return f"uid {uid}"


def secure_feedback_folder(exchange: Path, course_id: str, trusted: frozenset[int]) -> Path:
    """``<exchange>/<course>/feedback``, made or checked so that a release writes only into
    folders no student can change, and follows no link.

    The exchange is writable by every user, so anyone may make ``<course>`` first, with
    ``feedback`` a link to any folder, which a release run as root would write through. So: the
    exchange, if others may write to it, must have the sticky bit (no one renames another's
    entries; nbgrader makes it 0777, so one you own is given it); ``<course>`` and ``feedback``
    are made here when absent (mode 0755, as nbgrader makes them), and each must be a folder,
    not a link, owned by one of ``trusted`` (:func:`trusted_owners`), that no one else may write
    to. Raises
    :class:`ExchangeUnavailableError` naming the folder, its owner and what to do."""
    st = os.stat(exchange)
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not st.st_mode & stat.S_ISVTX:
        if st.st_uid in trusted:  # nbgrader makes it 0777: yours, so given the sticky bit
            os.chmod(exchange, stat.S_IMODE(st.st_mode) | stat.S_ISVTX)
        else:
            raise ExchangeUnavailableError(
                f"the exchange {exchange} is writable by others without the sticky bit, so anyone "
                f"could replace the course's folder in it; run chmod +t {exchange} "
                f"(mode {EXCHANGE_MODE:o}, as make exchange makes it)"
            )
    folder = exchange
    for name in (course_id, "feedback"):
        folder = folder / name
        with contextlib.suppress(FileExistsError):
            os.mkdir(folder, 0o755)
        st = os.lstat(folder)
        if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
            kind = "a symbolic link" if stat.S_ISLNK(st.st_mode) else "not a folder"
            raise ExchangeUnavailableError(
                f"{folder} is {kind} (made by {_owner(st.st_uid)}); nothing was released through "
                "it. Remove it; the release makes the folder itself"
            )
        if st.st_uid not in trusted:
            raise ExchangeUnavailableError(
                f"{folder} belongs to {_owner(st.st_uid)}, not to you: anyone may create folders "
                "in the exchange, so its contents cannot be trusted and nothing was released "
                "into it. Check who made it, remove it, and release again (nbgrader release_"
                "assignment as the instructor makes it, owned by them)"
            )
        if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            raise ExchangeUnavailableError(
                f"{folder} is writable by others (mode {stat.S_IMODE(st.st_mode):o}); nothing was "
                f"released into it. Run chmod go-w {folder}"
            )
    return folder


def release_feedback(
    pages: FeedbackPages, exchange: Path, course_id: str = COURSE_ID
) -> FeedbackRelease:
    """Release every problem page that has a secret to ``exchange`` with nbgrader's own
    ExchangeReleaseFeedback, one call per assignment, and check that each arrived.

    nbgrader reads the pages from a staging copy of the workspace's feedback folder, in which each
    student's folder is a plain alias: nbgrader finds pages with ``glob`` and would miss a student
    id holding ``[``, ``*`` or ``?``. The alias only ever appears in nbgrader's log; the exchange's
    file name depends on the secret and the notebook's name alone.
    """
    check_exchange(exchange)
    released: list[ProblemPage] = []
    unreleased = [
        Unreleased(p.student, p.assignment, NO_SECRET) for p in pages.problem_pages if not p.secret
    ]
    try:
        if any(p.secret for p in pages.problem_pages):
            secure_feedback_folder(exchange, course_id, trusted_owners())
    except ExchangeUnavailableError as exc:  # checked before grading; changed since
        unreleased += [
            Unreleased(p.student, p.assignment, str(exc)) for p in pages.problem_pages if p.secret
        ]
        return FeedbackRelease(exchange, (), tuple(unreleased))
    by_assignment: dict[str, list[ProblemPage]] = {}
    for p in pages.problem_pages:
        if p.secret:
            by_assignment.setdefault(p.assignment, []).append(p)
    for assignment, group in by_assignment.items():
        with tempfile.TemporaryDirectory(prefix="roofline-feedback-") as staging:
            staged: dict[int, str] = {}
            for number, p in enumerate(group):
                try:
                    _stage(Path(staging), f"s{number:06d}", p)
                except OSError as exc:  # a notebook name no file can have: that page alone
                    staged[number] = f"its page could not be staged for nbgrader ({exc.strerror})"
            error = _nbgrader_release(Path(staging), assignment, exchange, course_id)
        for number, p in enumerate(group):
            if number in staged:
                unreleased.append(Unreleased(p.student, p.assignment, staged[number]))
            elif error is None and _arrived(p, exchange, course_id):
                released.append(p)
            else:
                reason = error or "nbgrader did not release it"
                unreleased.append(Unreleased(p.student, p.assignment, reason))
    return FeedbackRelease(exchange, tuple(released), tuple(unreleased))


def _stage(staging: Path, alias: str, p: ProblemPage) -> None:
    """``staging/feedback/<alias>/<assignment>/``: the page (readable by all: nbgrader copies the
    file's mode into the exchange), timestamp.txt and the secret, as nbgrader's release reads them."""
    folder = staging / "feedback" / alias / p.assignment
    folder.mkdir(parents=True)
    page = folder / f"{p.notebook_id}.html"
    shutil.copyfile(p.path, page)
    page.chmod(stat.S_IRUSR | stat.S_IWUSR | stat.S_IRGRP | stat.S_IROTH)
    (folder / "timestamp.txt").write_text(p.timestamp or "", encoding="utf-8")
    (folder / "submission_secret.txt").write_text(str(p.secret), encoding="utf-8")


def _nbgrader_release(staging: Path, assignment: str, exchange: Path, course_id: str) -> str | None:
    """Run nbgrader's ExchangeReleaseFeedback on the staged pages; None, or what went wrong."""
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange import ExchangeError
    from nbgrader.exchange.default import ExchangeReleaseFeedback
    from traitlets.config import Config

    c = Config()
    c.CourseDirectory.root = str(staging)
    c.CourseDirectory.feedback_directory = "feedback"
    c.CourseDirectory.course_id = course_id
    c.CourseDirectory.assignment_id = assignment
    c.Exchange.root = str(exchange)
    try:
        ExchangeReleaseFeedback(
            coursedir=CourseDirectory(config=c),
            authenticator=Authenticator(config=c),
            config=c,
            log=LOG,
        ).start()
    except (ExchangeError, OSError) as exc:
        return f"nbgrader release_feedback failed: {exc}"
    return None


def _arrived(p: ProblemPage, exchange: Path, course_id: str) -> bool:
    """Whether the page is where Fetch Feedback looks, byte for byte."""
    from nbgrader.utils import notebook_hash

    name = notebook_hash(secret=p.secret, notebook_id=p.notebook_id)
    target = exchange / course_id / "feedback" / f"{name}.html"
    try:
        st = os.lstat(target)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and target.read_bytes() == p.path.read_bytes()


def write_zips(pages: FeedbackPages, folder: Path) -> tuple[list[Path], list[OutputFailure]]:
    """``folder/<student>.zip`` for every student: ``<student>/index.html`` (the course page) and
    ``<student>/<problem>.html`` for each problem submitted (secrets and timestamps left out);
    ``<student>`` as :func:`~roofline_grader.names.file_names` names it (safe to extract anywhere). Zips of
    students no longer in the run are removed, so the folder holds this run's only. Returns the
    zips written and, for a student whose zip could not be, why (the others are written)."""
    folder.mkdir(parents=True, exist_ok=True)
    by_student: dict[str, list[ProblemPage]] = {}
    for p in pages.problem_pages:
        by_student.setdefault(p.student, []).append(p)
    written: list[Path] = []
    failures: list[OutputFailure] = []
    for student, course_page in pages.course_pages:
        name = pages.file_name(student)
        target = folder / f"{name}.zip"
        partial = target.with_name(target.name + ".part")
        try:
            with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as zf:
                zf.write(course_page, f"{name}/{COURSE_PAGE}")
                for p in by_student.get(student, []):
                    zf.write(p.path, f"{name}/{p.assignment}.html")
            partial.replace(target)
        except OSError as exc:
            with contextlib.suppress(OSError):  # what was begun, if a file
                partial.unlink(missing_ok=True)
            failures.append(OutputFailure(student, "feedback zip", str(exc)))
            continue
        written.append(target)
    keep = {w.name for w in written}
    for old in folder.glob("*.zip"):
        if old.name not in keep and (old.is_file() or old.is_symlink()):
            old.unlink()
    return written, failures
