"""``make kit-lock``: resolve the student kit's packages on every Python a student may have.

The kit (:mod:`tools.student_kit`) installs on CPython 3.10–3.13 (:data:`PYTHONS`): every version
the course's JupyterLab, nbgrader and numpy support. A package's newest release may not install on
the oldest of them (numpy 2.3 dropped 3.10; soupsieve 4.1.3 needs 3.11.5, newer than Debian 12's
3.11.2), so one pin per package cannot serve them all. This resolves the kit's top-level packages
(the library's runtime dependencies and the student tools) with pip's own resolver, on a real
interpreter of each minor version, in a fresh venv, capping every package at the course's pin in
constraints.txt (``name<=version``): each Python gets the newest release no newer than the course's
that installs there. The oldest patch release found of each minor version is used (Debian's 3.11.2
before pyenv's 3.11.7), so the lock holds for the oldest interpreter of that line a student has.

It writes ``kit/locks/python3.N.json`` per version: the interpreter it was resolved on, a digest of
its inputs (the top-level packages and constraints.txt: the kit build refuses a lock whose inputs
changed, saying to run this again), and each package's name, version, ``Requires-Dist`` and
``Requires-Python``, which is what the kit build needs to write requirements.txt for Linux, macOS
and Windows with no network (``pip install --dry-run --report`` resolves for the machine it runs
on; the kit walks the dependency markers of the other platforms itself).

Needs PyPI. Run: ``python -m tools.kit_lock [--python PATH ...]``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCKS = ROOT / "kit" / "locks"
PYTHONS = ("3.10", "3.11", "3.12", "3.13")
"""The minor versions of CPython the kit supports (its wheel's requires-python says the same)."""


class LockError(Exception):
    """A lock cannot be made; the message says why."""


def lock_path(minor: str, folder: Path = LOCKS) -> Path:
    return folder / f"python{minor}.json"


def inputs_digest(roots: Sequence[str], constraints_text: str) -> str:
    """What a lock depends on: the top-level packages and constraints.txt, as one sha256."""
    text = "\n".join(sorted(roots)) + "\n--\n" + constraints_text
    return hashlib.sha256(text.encode()).hexdigest()


def caps(constraints_text: str) -> str:
    """constraints.txt with every ``name==version`` made ``name<=version``."""
    lines = []
    for raw in constraints_text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            lines.append(line.replace("==", "<=", 1))
    return "\n".join(lines) + "\n"


def _version(python: Path) -> tuple[int, ...] | None:
    try:
        done = subprocess.run(
            [str(python), "-c", "import sys; print(*sys.version_info[:3])"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except OSError:
        return None
    if done.returncode != 0:
        return None
    return tuple(int(x) for x in done.stdout.split())


def candidates(minor: str) -> list[Path]:
    """Interpreters of ``minor`` on this machine: ``python3.N`` on PATH and in /usr/bin, and
    pyenv's (``$PYENV_ROOT``, else ``~/.pyenv``)."""
    found = []
    for folder in [*os.environ.get("PATH", "").split(os.pathsep), "/usr/bin", "/usr/local/bin"]:
        if folder:
            found.append(Path(folder) / f"python{minor}")
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    if pyenv.is_dir():
        found += sorted(pyenv.glob(f"{minor}.*/bin/python{minor}"))
    return [p for p in dict.fromkeys(found) if p.is_file() and os.access(p, os.X_OK)]


def find_python(minor: str) -> tuple[Path, str] | None:
    """The oldest patch release of ``minor`` found here (a real CPython, not a venv's), and its
    version; None when there is none."""
    best: tuple[tuple[int, ...], Path] | None = None
    for path in candidates(minor):
        version = _version(path)
        if version is None or ".".join(map(str, version[:2])) != minor:
            continue
        if best is None or version < best[0]:
            best = (version, path)
    return None if best is None else (best[1], ".".join(map(str, best[0])))


def resolve(python: Path, roots: Iterable[str], constraints_text: str) -> list[dict[str, object]]:
    """pip's resolution of ``roots`` on ``python`` (a fresh venv), capped at constraints.txt:
    each package's name, version, Requires-Dist and Requires-Python, sorted by name."""
    with tempfile.TemporaryDirectory(prefix="kit-lock-") as tmp:
        venv = Path(tmp) / "venv"
        subprocess.run([str(python), "-m", "venv", str(venv)], check=True, capture_output=True)
        (Path(tmp) / "roots.txt").write_text("\n".join(roots) + "\n")
        (Path(tmp) / "caps.txt").write_text(caps(constraints_text))
        report = Path(tmp) / "report.json"
        env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
        env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
        command = [str(venv / "bin" / "python"), "-m", "pip", "install", "--dry-run"]
        command += ["--ignore-installed", "--quiet", "--report", str(report)]
        command += ["-r", str(Path(tmp) / "roots.txt"), "-c", str(Path(tmp) / "caps.txt")]
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise LockError(f"pip could not resolve the kit on {python}:\n{done.stderr[-3000:]}")
        items = json.loads(report.read_text())["install"]
    packages = []
    for item in items:
        meta = item["metadata"]
        packages.append(
            {
                "name": meta["name"],
                "version": meta["version"],
                "requires_dist": list(meta.get("requires_dist") or []),
                "requires_python": meta.get("requires_python") or "",
            }
        )
    return sorted(packages, key=lambda p: re.sub(r"[-_.]+", "-", str(p["name"]).lower()))


def write_lock(minor: str, python: Path, version: str, roots: Sequence[str], folder: Path) -> Path:
    constraints_text = (ROOT / "constraints.txt").read_text()
    data = {
        "python": version,
        "resolved_on": str(python),
        "inputs": inputs_digest(roots, constraints_text),
        "roots": sorted(roots),
        "packages": resolve(python, roots, constraints_text),
    }
    path = lock_path(minor, folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return path


def main(argv: Sequence[str] | None = None) -> int:
    from tools.student_kit import kit_roots, read_project

    parser = argparse.ArgumentParser(prog="python -m tools.kit_lock", description=__doc__)
    parser.add_argument(
        "--python",
        action="append",
        type=Path,
        default=[],
        metavar="PATH",
        help="an interpreter to resolve on (its minor version's lock is rewritten); default: "
        f"the oldest of each of {', '.join(PYTHONS)} found on this machine",
    )
    args = parser.parse_args(argv)
    roots = kit_roots(read_project(ROOT))
    chosen: list[tuple[str, Path, str]] = []
    if args.python:
        for python in args.python:
            version = _version(python)
            minor = ".".join(map(str, version[:2])) if version else ""
            if minor not in PYTHONS:
                parser.error(f"--python {python}: CPython {', '.join(PYTHONS)} only, got {minor}")
            chosen.append((minor, python, ".".join(map(str, version or ()))))
    else:
        for minor in PYTHONS:
            found = find_python(minor)
            if found is None:
                print(f"kit-lock: no Python {minor} on this machine; its lock is kept as it is")
                continue
            chosen.append((minor, *found))
    for minor, python, version in chosen:
        path = write_lock(minor, python, version, roots, LOCKS)
        print(f"kit-lock: Python {version} ({python}) -> {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
