"""A shared nbgrader exchange across real OS users: release, fetch, submit, collect, grade, feedback.

Two users are created for the test (``useradd``, removed afterwards): an instructor and a student,
each with a home of their own. The exchange is one folder with the permissions nbgrader documents
(world-writable; "Exchanging assignment files" in nbgrader's user guide) plus the sticky bit
(roofline_grader.outputs.exchange.EXCHANGE_MODE). The instructor releases problem1 with the course's
nbgrader_config.py, the exchange named by $ROOFLINE_EXCHANGE; the student, configured as nbgrader's
docs show (``~/.jupyter/nbgrader_config.py`` with ``c.Exchange.root`` and the course id), fetches,
answers and submits; the instructor collects; root grades and releases the feedback, as CI and
``make grade`` run the grader (its sandbox drops each kernel to the user roofline-sandbox, which
takes root); and the student's own ``nbgrader fetch_feedback`` brings back the course's page.

The users run this very virtual environment. Its Python may live where they may not go (pyenv under
``/root``, mode 0700), so each of their commands runs in a mount namespace of its own: a folder they
cannot traverse is covered by an empty tmpfs, the Python installation (and the course) bound back at
their own paths, read-only, and only then does the command drop to the user (``setpriv``). Nothing
of the host changes, and nothing else of ``/root`` is in their sight.

Needs root (useradd, mounts). CI runs as root and must run it (``CI=true``: a missing tool fails it);
elsewhere, not being root skips it.
"""

from __future__ import annotations

import os
import pwd
import re
import secrets
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from roofline_grader.course.config import COURSE_ID
from roofline_grader.outputs.exchange import EXCHANGE_MODE

from .conftest import grading_env
from .grading_cases import ROOT
from .test_grading_feedback_release import HIDDEN_TEXT, answer

pytestmark = pytest.mark.slow
TOOLS = ("useradd", "userdel", "unshare", "mount", "setpriv")


def _require_root() -> None:
    """Skip (fail in CI) where OS users cannot be made."""
    in_ci = os.environ.get("CI", "").lower() == "true"
    why = ""
    if os.geteuid() != 0:
        why = "creating OS users and mount namespaces needs root"
    elif missing := [t for t in TOOLS if shutil.which(t) is None]:
        why = f"missing tools: {', '.join(missing)}"
    if why:
        (pytest.fail if in_ci else pytest.skip)(why)


def readme_exchange_loop() -> list[str]:
    """The commands of README.md's shared-exchange loop (the bash block that runs `make collect`),
    comments dropped: the test runs what the README says, so the two cannot drift apart."""
    blocks = re.findall(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(), re.DOTALL)
    (loop,) = [b for b in blocks if "make collect" in b]
    return [line.split("  #")[0].strip() for line in loop.splitlines() if line.strip()]


@dataclass(frozen=True)
class User:
    name: str
    uid: int
    gid: int
    home: Path


def _add_user(name: str, homes: Path) -> User:
    home = homes / name
    subprocess.run(
        ["useradd", "--create-home", "--home-dir", str(home), "--user-group", name],
        check=True,
        capture_output=True,
    )
    entry = pwd.getpwnam(name)
    home.chmod(0o700)
    return User(name, entry.pw_uid, entry.pw_gid, home)


def _cover_points(paths: Sequence[Path]) -> dict[Path, list[Path]]:
    """For each folder others cannot traverse on the way to one of ``paths``, the paths under it."""
    covers: dict[Path, list[Path]] = {}
    for path in paths:
        for folder in [*reversed(path.parents), path]:
            if not os.stat(folder).st_mode & stat.S_IXOTH:
                covers.setdefault(folder, []).append(path)
                break
    return covers


class Machine:
    """Runs commands as the test users, seeing this Python and the course (see the module)."""

    def __init__(self, staging: Path) -> None:
        self.staging = staging
        needed = {
            Path(sys.prefix).resolve(),
            Path(sys.base_prefix).resolve(),
            Path(sys.executable).resolve().parent.parent,
            ROOT.resolve(),
        }
        self.covers = _cover_points(sorted(needed, key=lambda p: len(p.parts)))

    def script(self, user: User) -> str:
        lines = ["set -e", "mount --make-rprivate /"]
        binds = []
        for number, path in enumerate(p for paths in self.covers.values() for p in paths):
            stage = self.staging / str(number)
            stage.mkdir(exist_ok=True)
            lines.append(f"mount --bind {shlex.quote(str(path))} {shlex.quote(str(stage))}")
            binds.append((stage, path))
        for cover in self.covers:
            lines.append(f"mount -t tmpfs -o mode=0755,size=1m tmpfs {shlex.quote(str(cover))}")
        for stage, path in binds:
            target = shlex.quote(str(path))
            lines += [
                f"mkdir -p {target}",
                f"mount --bind {shlex.quote(str(stage))} {target}",
                f"mount -o remount,bind,ro {target}",
            ]
        lines.append(f'exec setpriv --reuid={user.uid} --regid={user.gid} --clear-groups -- "$@"')
        return "\n".join(lines)

    def run(
        self, user: User, args: Sequence[str], cwd: Path, **env: str
    ) -> subprocess.CompletedProcess[str]:
        environment = {
            "HOME": str(user.home),
            "USER": user.name,
            "LOGNAME": user.name,
            "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",
            "MPLBACKEND": "Agg",
            **env,
        }
        done = subprocess.run(
            ["unshare", "--mount", "--", "sh", "-c", self.script(user), "as-user", *args],
            cwd=cwd,
            env=environment,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, f"{user.name}: {' '.join(args)}\n{done.stdout}\n{done.stderr}"
        return done

    def nbgrader(self, user: User, *args: str, cwd: Path, **env: str) -> None:
        self.run(user, [sys.executable, "-m", "nbgrader", *args], cwd, **env)


@dataclass(frozen=True)
class Class:
    machine: Machine
    instructor: User
    student: User
    exchange: Path


@pytest.fixture
def a_class() -> Iterator[Class]:
    _require_root()
    base = Path(tempfile.mkdtemp(prefix="roofline-class-", dir="/tmp"))
    base.chmod(0o755)  # the users reach their homes and the exchange through it
    staging = Path(tempfile.mkdtemp(prefix="roofline-class-staging-"))  # root's alone
    tag = secrets.token_hex(3)
    made: list[str] = []
    try:
        exchange = base / "exchange"
        exchange.mkdir()
        exchange.chmod(EXCHANGE_MODE)
        homes = base / "home"
        homes.mkdir()
        instructor = _add_user(f"rfi{tag}", homes)
        made.append(instructor.name)
        student = _add_user(f"rfs{tag}", homes)
        made.append(student.name)
        yield Class(Machine(staging), instructor, student, exchange)
    finally:
        for name in made:
            subprocess.run(["userdel", "--remove", name], check=False, capture_output=True)
        shutil.rmtree(base, ignore_errors=True)
        shutil.rmtree(staging, ignore_errors=True)


def test_a_class_round_trip_across_os_users(a_class: Class, tmp_path: Path) -> None:
    m, teacher, student, exchange = (
        a_class.machine,
        a_class.instructor,
        a_class.student,
        a_class.exchange,
    )
    course = {
        "ROOFLINE_GRADING_DIR": str(teacher.home / "grading"),
        "ROOFLINE_EXCHANGE": str(exchange),
    }
    # The README's loop, its commands as written, run by the instructor in a shell whose PATH has no
    # venv (as after a login): nbgrader must find `alembic` for the new gradebook all the same.
    export, publish, collect, feedback = readme_exchange_loop()
    assert export == "export ROOFLINE_EXCHANGE=/srv/nbgrader/exchange"
    bare = {"PATH": "/usr/bin:/bin", **course}
    assert not (teacher.home / "grading" / "gradebook.db").exists()
    m.run(teacher, shlex.split(publish), cwd=ROOT, **bare)
    assert (exchange / COURSE_ID / "outbound" / "problem1" / "problem1.ipynb").is_file()

    config = student.home / ".jupyter" / "nbgrader_config.py"
    m.run(student, ["mkdir", "-p", str(config.parent)], cwd=student.home)
    m.run(
        student,
        [
            "sh",
            "-c",
            f"printf '%s\\n' 'c = get_config()' {shlex.quote(f'c.Exchange.root = {str(exchange)!r}')}"
            f" {shlex.quote(f'c.CourseDirectory.course_id = {COURSE_ID!r}')} > {config}",
        ],
        cwd=student.home,
    )
    m.nbgrader(student, "fetch_assignment", "problem1", cwd=student.home)
    notebook = student.home / "problem1" / "problem1.ipynb"
    assert notebook.stat().st_uid == student.uid
    answer(notebook, "problem1")  # written by root: given back to the student
    os.chown(notebook, student.uid, student.gid)
    m.nbgrader(student, "submit", "problem1", cwd=student.home)
    inbound = list((exchange / COURSE_ID / "inbound").iterdir())
    assert [p.stat().st_uid for p in inbound] == [student.uid]
    assert inbound[0].name.startswith(f"{student.name}+problem1+")

    assert not (teacher.home / "grading" / "gradebook.db").exists()
    m.run(teacher, shlex.split(collect), cwd=ROOT, **bare)
    collected = teacher.home / "grading" / "submitted"
    assert (collected / student.name / "problem1" / "submission_secret.txt").is_file()
    assert (teacher.home / "grading" / "gradebook.db").is_file()

    # `sudo make feedback ...` as root (this test runs as root), the README's paths made the test's:
    # the instructor's workspace is their grading folder, the exchange the test's.
    words = shlex.split(feedback.replace("$ROOFLINE_EXCHANGE", str(exchange)))
    assert words[:3] == ["sudo", "make", "feedback"]
    words = [w.replace("=grading/", f"={teacher.home / 'grading'}/") for w in words[1:]]
    run = subprocess.run(
        [*words, f"OUT={tmp_path / 'grading'}"],
        cwd=ROOT,
        env=grading_env(**course, SUDO_UID=str(teacher.uid)),  # as sudo sets it
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "1 problem pages; not released: 0." in run.stdout

    m.nbgrader(student, "fetch_feedback", "problem1", cwd=student.home)
    fetched = list((student.home / "problem1" / "feedback").glob("*/problem1.html"))
    assert len(fetched) == 1 and fetched[0].stat().st_uid == student.uid, fetched
    text = fetched[0].read_text()
    ours = tmp_path / "grading" / "feedback" / student.name / "problem1" / "problem1.html"
    assert text == ours.read_text()
    assert f"Feedback for {student.name}: Problem 1" in text and "Total: 9 / 9 points" in text
    for words in HIDDEN_TEXT:
        assert words not in text
    assert stat.S_IMODE(exchange.stat().st_mode) == EXCHANGE_MODE, "nbgrader kept the sticky bit"
