"""Build the student kit, ``dist/roofline-student-kit.zip``: what a student installs and works in.

The zip has one top folder, ``roofline-student-kit/``::

    README.md            what this is, the two commands, how to work and hand in
                         (source: tools/student_kit_README.md)
    requirements.txt     everything to install, pinned as in constraints.txt
    start_lab.py         the launcher, the lab's contents manager (statements in the
    lab_language.py      student's language) and its Jupyter configuration (from kit/)
    jupyter/
    exercises/problemN/  the released notebooks (from exercises/, what `make release` wrote)
    wheels/roofline_lib-<version>-py3-none-any.whl    the course library, alone

and nothing of the grader: no solutions, no hidden tests, no ``roofline_grader``, no gradebook. The
build fails if any of that slips in, inside the wheel included.

**The library wheel.** The repository's pyproject packages ``roofline_lib`` and ``roofline_grader``
together; the kit's wheel is built from a staging copy of ``roofline_lib/`` alone, with a generated
pyproject (name ``roofline-lib``, the course's version, its runtime dependencies pinned as in
pyproject.toml), by ``pip wheel --no-deps --no-build-isolation``: nothing is downloaded. Every
subpackage and every data file (``selfcheck/*.json``...) goes in; the build checks the wheel holds
them all. The runtime dependencies are checked against what the library imports.

**requirements.txt** is the dependency closure of the library, JupyterLab, nbgrader (Validate) and
ipykernel, read from the metadata of the distributions installed in the course's venv, each pinned
``==`` to constraints.txt. Markers are evaluated for Linux, macOS and Windows (CPython 3.11): a
package needed on some of them only gets a marker saying where. A package needed only on a platform
this venv is not (``pywin32``, ``appnope``) cannot be looked up here: it is listed unpinned under its
marker, and pip resolves it there. Why not ``pip install --dry-run --report``: it needs the network
and evaluates markers for the machine it runs on only, whatever ``--platform`` says. Nothing is
installed with ``--no-deps``, so a dependency this walk misses is still installed, just not pinned.
The wheel is named by a path relative to the kit (pip reads it relative to the current folder, so
students run pip from the kit's folder); a name would let a package of that name on PyPI win.

Usage: python -m tools.student_kit [--out dist/roofline-student-kit.zip]
"""

from __future__ import annotations

import argparse
import ast
import importlib.metadata
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import NormalizedName, canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
KIT = "roofline-student-kit"
DEFAULT_OUT = ROOT / "dist" / f"{KIT}.zip"
README_SOURCE = Path(__file__).with_name("student_kit_README.md")

LIBRARY = "roofline_lib"
LIBRARY_DEPENDENCIES = ("numpy", "matplotlib", "ipywidgets", "threadpoolctl")
"""What roofline_lib imports at run time (checked against its imports when the kit is built)."""
OPTIONAL_IMPORTS = {"torch"}
"""Imported only when present (the measurement's torch backend); never installed for students."""
STUDENT_TOOLS = ("jupyterlab", "nbgrader", "ipykernel")
"""JupyterLab, nbgrader for the Validate button, and the kernel."""
UNPINNED = {"pip", "setuptools", "wheel"}
"""Left out of constraints.txt by pip freeze; listed unpinned (a new venv already has them)."""

LAUNCHER = ("kit/start_lab.py", "kit/lab_language.py", "kit/jupyter")
JUNK = ("__pycache__", "*.pyc", "*.pyo", ".ipynb_checkpoints", ".DS_Store", "*~", "*.swp")
FORBIDDEN_TEXT = ("BEGIN SOLUTION", "BEGIN HIDDEN TESTS", "roofline_grader")
"""Text that would mean a solution, a hidden test or the grader got into the kit."""

PLATFORMS = {
    "Linux x86-64": {"sys_platform": "linux", "platform_machine": "x86_64"},
    "Linux ARM": {"sys_platform": "linux", "platform_machine": "aarch64"},
    "macOS ARM": {"sys_platform": "darwin", "platform_machine": "arm64"},
    "macOS Intel": {"sys_platform": "darwin", "platform_machine": "x86_64"},
    "Windows": {"sys_platform": "win32", "platform_machine": "AMD64"},
}
"""The machines students have, by the two markers that tell them apart."""
_SYSTEMS = {
    "linux": {"os_name": "posix", "platform_system": "Linux"},
    "darwin": {"os_name": "posix", "platform_system": "Darwin"},
    "win32": {"os_name": "nt", "platform_system": "Windows"},
}


class KitError(Exception):
    """The kit cannot be built as it should be; the message says what to fix."""


@dataclass(frozen=True)
class Project:
    """What the kit takes from pyproject.toml."""

    version: str
    requires_python: str
    pins: Mapping[NormalizedName, str]
    """Direct dependencies as written there (``numpy==2.4.6``), by normalized name."""


@dataclass(frozen=True)
class Pin:
    """One line of requirements.txt: ``name==version ; marker`` (version None: unpinned)."""

    name: str
    version: str | None
    marker: str | None

    def line(self) -> str:
        text = self.name if self.version is None else f"{self.name}=={self.version}"
        return text if self.marker is None else f"{text} ; {self.marker}"


# ----------------------------------------------------------------------------------------------
# The repository's pins
# ----------------------------------------------------------------------------------------------


def read_project(root: Path) -> Project:
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    pins = {canonicalize_name(Requirement(d).name): d for d in project["dependencies"]}
    return Project(project["version"], project["requires-python"], pins)


def kit_roots(project: Project) -> list[str]:
    """The kit's top-level packages, by name: the library's runtime dependencies and the student
    tools (their versions are each Python's lock's, :mod:`tools.kit_lock`)."""
    return [*LIBRARY_DEPENDENCIES, *STUDENT_TOOLS]


def read_constraints(path: Path) -> dict[NormalizedName, str]:
    """constraints.txt as {normalized name: version}; every line must be ``name==version``."""
    pins = {}
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        requirement = Requirement(line)
        specs = list(requirement.specifier)
        if len(specs) != 1 or specs[0].operator != "==":
            raise KitError(f"{path.name}:{number}: expected name==version, got {raw!r}")
        pins[canonicalize_name(requirement.name)] = specs[0].version
    return pins


# ----------------------------------------------------------------------------------------------
# The library wheel
# ----------------------------------------------------------------------------------------------


def imported_modules(package: Path) -> set[str]:
    """Top-level names of every module imported anywhere in ``package`` (relative imports aside)."""
    names = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names


def check_library_imports(package: Path) -> None:
    """Fail unless the library imports exactly LIBRARY_DEPENDENCIES (and OPTIONAL_IMPORTS)."""
    third_party = imported_modules(package) - set(sys.stdlib_module_names) - {LIBRARY, "__future__"}
    providers = importlib.metadata.packages_distributions()
    used = set()
    for module in sorted(third_party - OPTIONAL_IMPORTS):
        dists = providers.get(module)
        if not dists:
            raise KitError(
                f"{LIBRARY} imports {module!r}, which no installed distribution provides"
            )
        used.add(canonicalize_name(dists[0]))
    declared = {canonicalize_name(n) for n in LIBRARY_DEPENDENCIES}
    if used != declared:
        raise KitError(
            f"{LIBRARY} imports {sorted(used)} but the kit declares {sorted(declared)}: "
            "update LIBRARY_DEPENDENCIES in tools/student_kit.py"
        )


def kit_requires_python() -> str:
    """The Pythons the kit installs on, as a requires-python (from :data:`tools.kit_lock.PYTHONS`)."""
    from tools.kit_lock import PYTHONS

    last = PYTHONS[-1].split(".")
    return f">={PYTHONS[0]},<{last[0]}.{int(last[1]) + 1}"


def library_dependencies(project: Project, locks: Sequence[Lock]) -> list[str]:
    """The library's Requires-Dist: each runtime dependency at least the oldest version any
    Python's lock has (the exact versions are requirements.txt's, per Python); without locks, as
    pyproject.toml pins them."""
    missing = [n for n in LIBRARY_DEPENDENCIES if canonicalize_name(n) not in project.pins]
    if missing:
        raise KitError(f"pyproject.toml does not pin {missing}, which {LIBRARY} needs")
    if not locks:
        return [project.pins[canonicalize_name(n)] for n in LIBRARY_DEPENDENCIES]
    bounds = []
    for name in LIBRARY_DEPENDENCIES:
        versions = [lock.packages[canonicalize_name(name)].version for lock in locks]
        bounds.append(f"{name}>={min(versions, key=Version)}")
    return bounds


def library_pyproject(
    project: Project,
    packages: list[str],
    data: dict[str, list[str]],
    locks: Sequence[Lock] = (),
) -> str:
    """A minimal pyproject.toml for roofline_lib alone: the kit's Pythons, and its runtime
    dependencies (:func:`library_dependencies`)."""
    dependencies = library_dependencies(project, locks)
    requires_python = kit_requires_python() if locks else project.requires_python
    data_lines = "".join(f"{p!r} = {files!r}\n" for p, files in sorted(data.items()))
    return (
        '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n'
        "[project]\n"
        'name = "roofline-lib"\n'
        f'version = "{project.version}"\n'
        'description = "The Roofline course library: hardware, costs, rooflines, MFU, plots."\n'
        f'requires-python = "{requires_python}"\n'
        'license = { text = "MIT" }\n'
        f"dependencies = {dependencies!r}\n\n"
        f"[tool.setuptools]\npackages = {packages!r}\ninclude-package-data = false\n\n"
        f"[tool.setuptools.package-data]\n{data_lines}"
    )


def _source_date_epoch(root: Path) -> str:
    """The last commit's time, so the wheel's file dates do not change from build to build."""
    result = subprocess.run(
        ["git", "log", "-1", "--format=%ct"], cwd=root, capture_output=True, text=True, check=False
    )
    stamp = result.stdout.strip()
    return stamp if result.returncode == 0 and stamp.isdigit() else "315532800"  # 1980-01-01


def build_library_wheel(
    root: Path, project: Project, out_dir: Path, locks: Sequence[Lock] = ()
) -> Path:
    """Build ``roofline_lib-<version>-py3-none-any.whl`` into ``out_dir``; returns its path."""
    check_library_imports(root / LIBRARY)
    with tempfile.TemporaryDirectory(prefix="roofline-lib-wheel-") as tmp:
        stage = Path(tmp) / "src"
        shutil.copytree(root / LIBRARY, stage / LIBRARY, ignore=shutil.ignore_patterns(*JUNK))
        files = sorted(p.relative_to(stage) for p in (stage / LIBRARY).rglob("*") if p.is_file())
        packages = sorted({".".join(f.parent.parts) for f in files if f.name == "__init__.py"})
        data: dict[str, list[str]] = {}
        for f in files:
            if f.suffix == ".py":
                continue
            owner = next(a for a in (f.parent, *f.parent.parents) if ".".join(a.parts) in packages)
            data.setdefault(".".join(owner.parts), []).append(f.relative_to(owner).as_posix())
        (stage / "pyproject.toml").write_text(library_pyproject(project, packages, data, locks))
        wheels = Path(tmp) / "wheels"
        env = {**os.environ, "SOURCE_DATE_EPOCH": _source_date_epoch(root)}
        command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
        command += ["--no-index", "--quiet", "--disable-pip-version-check", "-w", str(wheels)]
        result = subprocess.run(
            [*command, str(stage)], env=env, capture_output=True, text=True, check=False
        )
        if result.returncode != 0:
            raise KitError(f"pip wheel failed for {LIBRARY}:\n{result.stdout}{result.stderr}")
        (built,) = wheels.glob("*.whl")
        with zipfile.ZipFile(built) as wheel:
            inside = set(wheel.namelist())
        lost = [f.as_posix() for f in files if f.as_posix() not in inside]
        if lost:
            raise KitError(f"the {LIBRARY} wheel lacks {lost}")
        out_dir.mkdir(parents=True, exist_ok=True)
        return Path(shutil.copy2(built, out_dir / built.name))


# ----------------------------------------------------------------------------------------------
# requirements.txt
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Locked:
    """One package of a Python version's lock (:mod:`tools.kit_lock`)."""

    version: str
    requires: tuple[str, ...]


@dataclass(frozen=True)
class Lock:
    """What pip resolved for the kit on one minor version of Python (``kit/locks/``)."""

    minor: str
    python: str
    """The full version it was resolved on (the oldest of that line found, e.g. 3.11.2)."""
    packages: Mapping[NormalizedName, Locked]


def read_locks(root: Path, project: Project) -> list[Lock]:
    """Every supported Python's lock, in version order; a :class:`KitError` naming ``make
    kit-lock`` when one is missing or was made from other inputs than today's constraints.txt and
    top-level packages."""
    from tools.kit_lock import PYTHONS, inputs_digest, lock_path

    digest = inputs_digest(kit_roots(project), (root / "constraints.txt").read_text())
    locks = []
    for minor in PYTHONS:
        path = lock_path(minor, root / "kit" / "locks")
        if not path.is_file():
            raise KitError(f"no lock for Python {minor} ({path}): run make kit-lock")
        data = json.loads(path.read_text())
        if data.get("inputs") != digest:
            raise KitError(
                f"{path.name} was resolved from another constraints.txt or other top-level "
                "packages than today's: run make kit-lock"
            )
        packages = {
            canonicalize_name(p["name"]): Locked(p["version"], tuple(p["requires_dist"]))
            for p in data["packages"]
        }
        locks.append(Lock(minor, data["python"], packages))
    return locks


def marker_environment(platform: str, python: str | None = None) -> dict[str, str]:
    """The marker variables of CPython ``python`` (a full version; default: this one) on
    ``platform`` (a PLATFORMS key)."""
    machine = PLATFORMS[platform]
    environment = {**default_environment(), **_SYSTEMS[machine["sys_platform"]], **machine}
    if python is not None:
        environment["python_full_version"] = python
        environment["python_version"] = ".".join(python.split(".")[:2])
        environment["implementation_version"] = python
    return environment


def closure(
    roots: Iterable[Requirement],
    environment: Mapping[str, str],
    requires_of: Mapping[NormalizedName, Sequence[str]],
) -> tuple[dict[NormalizedName, list[Requirement]], set[NormalizedName]]:
    """Every distribution ``roots`` need where ``environment`` holds, extras followed, reading
    each one's Requires-Dist from ``requires_of``.

    Returns the requirements that reach each one (its specifiers, to check the pins), and the
    names of those ``requires_of`` does not have (whose own dependencies are therefore unknown).
    """
    reached: dict[NormalizedName, list[Requirement]] = {}
    extras_done: dict[NormalizedName, set[str]] = {}
    unknown: set[NormalizedName] = set()
    queue = deque(roots)
    while queue:
        requirement = queue.popleft()
        name = canonicalize_name(requirement.name)
        reached.setdefault(name, []).append(requirement)
        new = ({""} | set(requirement.extras)) - extras_done.setdefault(name, set())
        if not new:
            continue
        extras_done[name] |= new
        if name not in requires_of:
            unknown.add(name)
            continue
        for text in requires_of[name]:
            dependency = Requirement(text)
            for extra in sorted(new):
                if dependency.marker is None:
                    applies = extra == ""
                else:
                    applies = dependency.marker.evaluate({**environment, "extra": extra})
                if applies:
                    queue.append(dependency)
                    break
    return reached, unknown


def where_marker(platforms: set[str]) -> str | None:
    """A marker true on ``platforms`` (PLATFORMS keys) and false on the others; None for all."""
    if platforms == set(PLATFORMS):
        return None
    parts = []
    for system in dict.fromkeys(m["sys_platform"] for m in PLATFORMS.values()):
        ours = [p for p, m in PLATFORMS.items() if m["sys_platform"] == system]
        chosen = [p for p in ours if p in platforms]
        if chosen == ours:
            parts.append(f'sys_platform == "{system}"')
        else:
            parts += [
                f'(sys_platform == "{system}" and '
                f'platform_machine == "{PLATFORMS[p]["platform_machine"]}")'
                for p in chosen
            ]
    return " or ".join(parts)


def _this_platform() -> str | None:
    here = default_environment()
    for platform, machine in PLATFORMS.items():
        if all(here[k] == v for k, v in machine.items()):
            return platform
    return None


def python_marker(minors: Sequence[str], supported: Sequence[str]) -> str | None:
    """A marker true on the Python versions ``minors`` (of ``supported``); None for all."""
    if list(minors) == list(supported):
        return None
    first, last = supported.index(minors[0]), supported.index(minors[-1])
    if list(minors) == list(supported[first : last + 1]):  # a run of versions: a range
        if last == len(supported) - 1:
            return f'python_version >= "{minors[0]}"'
        if first == 0:
            return f'python_version < "{supported[last + 1]}"'
    return " or ".join(f'python_version == "{m}"' for m in minors)


def both(*markers: str | None) -> str | None:
    """The markers that are not None, joined with ``and``, each in parentheses when it has an
    ``or``; None when there are none."""
    given = [m for m in markers if m]
    if len(given) <= 1:
        return given[0] if given else None
    return " and ".join(f"({m})" if " or " in m else m for m in given)


def student_requirements(
    project: Project, constraints: Mapping[NormalizedName, str], locks: Sequence[Lock]
) -> list[Pin]:
    """requirements.txt's lines: the closure of the library's dependencies and the student tools
    on every platform of every Python of ``locks``, each package pinned to its lock's version
    there, with a marker where it is needed or pinned on some Pythons or platforms only."""
    roots = [Requirement(n) for n in kit_roots(project)]
    supported = [lock.minor for lock in locks]
    # (name, version or None) -> minor -> platforms
    where: dict[tuple[NormalizedName, str | None], dict[str, set[str]]] = {}
    for lock in locks:
        requires = {name: locked.requires for name, locked in lock.packages.items()}
        for platform in PLATFORMS:
            environment = marker_environment(platform, lock.python)
            reached, unknown = closure(roots, environment, requires)
            if platform == _this_platform() and unknown - UNPINNED:
                raise KitError(
                    f"the Python {lock.minor} lock lacks {sorted(unknown - UNPINNED)}, which it "
                    "needs on this platform: run make kit-lock"
                )
            for name, requirements in reached.items():
                locked = lock.packages.get(name)
                version = None if locked is None or name in UNPINNED else locked.version
                cap = constraints.get(name)
                if version is not None and cap is not None and Version(version) > Version(cap):
                    raise KitError(
                        f"the Python {lock.minor} lock has {name}=={version}, newer than "
                        f"constraints.txt's {cap}: run make kit-lock"
                    )
                for requirement in requirements:
                    if version and not requirement.specifier.contains(version, prereleases=True):
                        raise KitError(
                            f"the Python {lock.minor} lock pins {name}=={version}, but "
                            f"{requirement}: run make kit-lock"
                        )
                where.setdefault((name, version), {}).setdefault(lock.minor, set()).add(platform)
    pins = []
    for (name, version), minors in sorted(where.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
        # one line per set of platforms, naming the Pythons that need it there
        by_platforms: dict[frozenset[str], list[str]] = {}
        for minor in supported:
            if minor in minors:
                by_platforms.setdefault(frozenset(minors[minor]), []).append(minor)
        for platforms, pythons in by_platforms.items():
            marker = both(python_marker(pythons, supported), where_marker(set(platforms)))
            pins.append(Pin(name, version, marker))
    return pins


def requirements_txt(wheel: str, pins: list[Pin]) -> str:
    pinned = [p.line() for p in pins if p.version is not None]
    loose = [p.line() for p in pins if p.version is None]
    return "\n".join(
        [
            "# The Roofline course's student kit: everything it needs, pinned.",
            "# Install from this folder (the wheel's path is relative to it):",
            "#   python -m pip install -r requirements.txt",
            "# Generated by `make student-kit` from the course's constraints.txt; do not edit.",
            f"wheels/{wheel}",
            *pinned,
            "# Needed on some platforms only, and pip freeze leaves out pip, setuptools and wheel:",
            "# pip chooses the version.",
            *loose,
            "",
        ]
    )


# ----------------------------------------------------------------------------------------------
# The zip
# ----------------------------------------------------------------------------------------------


def _files_under(folder: Path) -> Iterator[Path]:
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if path.is_file() and not any(
            Path(part).match(pattern) for part in relative.parts for pattern in JUNK
        ):
            yield path


HAND_IN_MARKS = {"<!-- hand-in -->": False, "<!-- hand-in-zh -->": True}
"""Where the README says how to hand in: the notebooks' own hand-in paragraph goes there
(roofline_grader.checks.header.hand_in, one text for the notebooks and the kit)."""


def kit_readme() -> str:
    """The kit's README: tools/student_kit_README.md with the hand-in paragraphs filled in."""
    from roofline_grader.checks.header import hand_in

    text = README_SOURCE.read_text(encoding="utf-8")
    for mark, chinese in HAND_IN_MARKS.items():
        if text.count(mark) != 1:
            raise KitError(f"{README_SOURCE.name} must hold {mark!r} once, where hand-in goes")
        text = text.replace(mark, hand_in("problemN", chinese=chinese))
    return text


def kit_files(root: Path, wheel: Path, requirements: str) -> dict[str, bytes]:
    """Every file of the kit, by its path inside the zip."""
    missing = [p for p in (*LAUNCHER, "exercises") if not (root / p).exists()]
    if missing:
        raise KitError(f"missing from the repository: {missing}")
    files = {
        "README.md": kit_readme().encode(),
        "requirements.txt": requirements.encode(),
        f"wheels/{wheel.name}": wheel.read_bytes(),
    }
    for source in LAUNCHER:
        path = root / source
        top = path.parent
        for f in [path] if path.is_file() else _files_under(path):
            files[f.relative_to(top).as_posix()] = f.read_bytes()
    released = release_files(root)
    files.update({f"exercises/{name}": data for name, data in released.items()})
    return {f"{KIT}/{name}": data for name, data in sorted(files.items())}


def release_files(root: Path) -> dict[str, bytes]:
    """exercises/, by path below it, checked against a fresh ``make release``: the kit hands out
    exactly what the release step makes from solutions/ (it is deterministic: byte for byte).

    Refused, each named (KitError): a link anywhere in exercises/ (never followed: it could
    point at a filled-in notebook or anything else); a file the release does not make (a
    ``problem1-Copy1.ipynb`` someone tried out, a scratch file); a release notebook that differs
    from the release (edited, or stale against solutions/); one missing. Editor and Jupyter
    leftovers (:data:`JUNK`) are left out, as everywhere in the kit."""
    from roofline_grader.course import Course
    from roofline_grader.course.release import release

    exercises = root / "exercises"
    with tempfile.TemporaryDirectory(prefix="roofline-kit-release-") as scratch:
        if not release(Course(root), Path(scratch)):
            raise KitError("make release makes no notebook from solutions/")
        fresh = {
            f.relative_to(scratch).as_posix(): f.read_bytes() for f in _files_under(Path(scratch))
        }
    problems: list[str] = []
    seen: set[str] = set()
    for folder, dirs, names in os.walk(exercises):
        here = Path(folder)
        for name in sorted([*dirs, *names]):
            path = here / name
            relative = path.relative_to(exercises)
            if any(Path(part).match(pattern) for part in relative.parts for pattern in JUNK):
                continue
            where = f"exercises/{relative.as_posix()}"
            if path.is_symlink():
                problems.append(f"{where}: a symbolic link (the kit follows none: remove it)")
            elif path.is_file():
                seen.add(relative.as_posix())
                if relative.as_posix() not in fresh:
                    problems.append(
                        f"{where}: not made by make release (a copy, or a file of your own?): "
                        "remove it, or put it in solutions/ and run make release"
                    )
                elif path.read_bytes() != fresh[relative.as_posix()]:
                    problems.append(
                        f"{where}: differs from what make release makes from solutions/ (edited "
                        "or run, or stale): run make release"
                    )
        dirs[:] = [d for d in dirs if not (here / d).is_symlink()]
    problems += [
        f"exercises/{name}: missing: run make release" for name in sorted(fresh) if name not in seen
    ]
    if problems:
        raise KitError("exercises/ is not the release:\n  " + "\n  ".join(problems))
    return fresh


def _members(name: str, data: bytes) -> Iterator[tuple[str, bytes]]:
    """A file, and each file inside it when it is a wheel."""
    yield name, data
    if name.endswith(".whl"):
        with zipfile.ZipFile(io.BytesIO(data)) as inner:
            for member in inner.namelist():
                yield f"{name}!{member}", inner.read(member)


def check_contents(files: Mapping[str, bytes]) -> None:
    """Fail if anything of the grader is in the kit: solutions, hidden tests, a gradebook."""
    problems = []
    for name, data in files.items():
        for path, content in _members(name, data):
            parts = path.replace("!", "/").split("/")
            if "solutions" in parts or path.endswith(".db"):
                problems.append(f"{path}: not for students")
            problems += [f"{path}: contains {t!r}" for t in FORBIDDEN_TEXT if t.encode() in content]
    if problems:
        raise KitError("the kit would give away the grader:\n  " + "\n  ".join(problems))


def write_zip(files: Mapping[str, bytes], out: Path) -> None:
    """The zip, written whole or not at all; fixed dates, so equal contents give equal bytes."""
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".partial")
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as kit:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            kit.writestr(info, data)
    partial.replace(out)


def _warn_if_uncommitted(root: Path) -> None:
    result = subprocess.run(
        ["git", "status", "--porcelain", "--", "exercises"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode == 0 and result.stdout.strip():
        print("note: exercises/ has uncommitted changes; the kit holds them", file=sys.stderr)


def build(root: Path, out: Path) -> dict[str, bytes]:
    """Build the kit at ``out``; returns its files by path inside the zip."""
    project = read_project(root)
    constraints = read_constraints(root / "constraints.txt")
    _warn_if_uncommitted(root)
    with tempfile.TemporaryDirectory(prefix="roofline-kit-") as tmp:
        locks = read_locks(root, project)
        wheel = build_library_wheel(root, project, Path(tmp), locks)
        requirements = requirements_txt(
            wheel.name, student_requirements(project, constraints, locks)
        )
        files = kit_files(root, wheel, requirements)
    check_contents(files)
    write_zip(files, out)
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.student_kit", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="default: %(default)s")
    args = parser.parse_args(argv)
    try:
        files = build(ROOT, args.out)
    except KitError as error:
        print(f"student kit: {error}", file=sys.stderr)
        return 1
    size = args.out.stat().st_size
    print(f"{args.out} ({size / 2**20:.2f} MiB, {len(files)} files)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
