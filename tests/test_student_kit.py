"""The student kit (`make student-kit`), installed and used the way its README tells a student.

The fast tests check the pieces: the platform markers, the refusal of anything of the grader, the
library wheel's contents, and which packages requirements.txt pins. The slow test builds the zip
with the Makefile's command, unpacks it, runs the README's install command (a fresh venv from this
Python, ``pip install -r requirements.txt`` from PyPI), and then, in that venv only: imports
roofline_lib (and not the grader), executes every problem's notebook filled with the model answers
on the kit's own kernel (Problem 3 must draw its figure), and validates the blank and the filled
notebooks with nbgrader, as the Validate button does.
"""

from __future__ import annotations

import io
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import in_ci
from tests.grading.grading_cases import ASSIGNMENTS, VALIDATE_SUCCESS, solved, validate_reports
from tests.processes import dies_with_parent
from tools import kit_lock, student_kit
from tools.student_kit import KitError

ROOT = Path(__file__).resolve().parents[1]
COURSE_ONLY = ("jupyter-book", "sphinx", "pytest", "ruff", "playwright", "hypothesis")
"""Packages the course's repository needs and a student does not."""


# ----------------------------------------------------------------------------------------------
# The pieces
# ----------------------------------------------------------------------------------------------


def test_marker_names_only_the_platforms_that_need_a_package():
    assert student_kit.where_marker(set(student_kit.PLATFORMS)) is None
    assert student_kit.where_marker({"Windows"}) == 'sys_platform == "win32"'
    unix = {"Linux x86-64", "Linux ARM", "macOS ARM", "macOS Intel"}
    assert student_kit.where_marker(unix) == 'sys_platform == "linux" or sys_platform == "darwin"'
    assert student_kit.where_marker({"Linux ARM"}) == (
        '(sys_platform == "linux" and platform_machine == "aarch64")'
    )


def _wheel(files: dict[str, bytes]) -> bytes:
    """A zip of these files with a fixed timestamp: the bytes (and so the test's id) must be the
    same in every pytest-xdist worker, which collect at different moments."""
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as wheel:
        for name, content in files.items():
            wheel.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), content)
    return data.getvalue()


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("kit/exercises/problem1/problem1.ipynb", b"### BEGIN SOLUTION\nx = 1"),
        ("kit/exercises/problem1/problem1.ipynb", b"### BEGIN HIDDEN TESTS"),
        ("kit/solutions/problem1/problem1.ipynb", b"{}"),
        ("kit/gradebook.db", b""),
        ("kit/wheels/lib.whl", _wheel({"roofline_grader/hidden.py": b"pass"})),
        ("kit/wheels/lib.whl", _wheel({"lib/x.py": b"import roofline_grader.hidden"})),
    ],
    ids=["solution", "hidden-tests", "solutions-folder", "gradebook", "grader-in-wheel", "import"],
)
def test_the_kit_refuses_anything_of_the_grader(name, content):
    files = {"kit/README.md": b"hello", name: content}
    with pytest.raises(KitError, match="give away the grader"):
        student_kit.check_contents(files)


def test_library_wheel_holds_every_subpackage_and_data_file_and_no_cache(tmp_path):
    root = tmp_path / "repo"
    shutil.copytree(ROOT / "roofline_lib", root / "roofline_lib")
    shutil.copy(ROOT / "pyproject.toml", root)
    (root / "roofline_lib" / "selfcheck").mkdir(exist_ok=True)
    (root / "roofline_lib" / "selfcheck" / "__init__.py").touch()
    (root / "roofline_lib" / "selfcheck" / "kit_test_cases.json").write_text("{}")
    (root / "roofline_lib" / "selfcheck" / "data").mkdir()
    (root / "roofline_lib" / "selfcheck" / "data" / "more.json").write_text("[]")
    (root / "roofline_lib" / "__pycache__").mkdir(exist_ok=True)
    (root / "roofline_lib" / "__pycache__" / "stale.cpython-311.pyc").write_bytes(b"x")
    project = student_kit.read_project(root)

    wheel = student_kit.build_library_wheel(root, project, tmp_path / "out")

    assert wheel.name == f"roofline_lib-{project.version}-py3-none-any.whl"
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "roofline_lib/selfcheck/kit_test_cases.json" in names
    assert "roofline_lib/selfcheck/data/more.json" in names
    assert "roofline_lib/measure/__init__.py" in names
    assert not [n for n in names if "__pycache__" in n or n.startswith("roofline_grader")]
    metadata = zipfile.ZipFile(wheel).read(f"roofline_lib-{project.version}.dist-info/METADATA")
    requires = re.findall(r"^Requires-Dist: (.+)$", metadata.decode(), flags=re.MULTILINE)
    assert sorted(requires) == sorted(project.pins[n] for n in student_kit.LIBRARY_DEPENDENCIES)


def _locks() -> list[student_kit.Lock]:
    return student_kit.read_locks(ROOT, student_kit.read_project(ROOT))


def _pins() -> dict[str, list[student_kit.Pin]]:
    project = student_kit.read_project(ROOT)
    constraints = student_kit.read_constraints(ROOT / "constraints.txt")
    pins: dict[str, list[student_kit.Pin]] = {}
    for pin in student_kit.student_requirements(project, constraints, _locks()):
        pins.setdefault(canonicalize_name(pin.name), []).append(pin)
    return pins


def _chosen(pins: list[student_kit.Pin], python: str, platform: str) -> list[str | None]:
    """The versions of a package's lines whose marker holds on CPython ``python`` there."""
    environment = student_kit.marker_environment(platform, python)
    return [p.version for p in pins if p.marker is None or Marker(p.marker).evaluate(environment)]


def test_requirements_pin_one_version_per_python_and_platform_and_no_course_tool():
    """On every supported Python and platform, each package has exactly one line that applies,
    and on 3.11 the student tools and the library's dependencies are the course's own pins."""
    constraints = student_kit.read_constraints(ROOT / "constraints.txt")
    pins = _pins()
    for lock in _locks():
        for platform in student_kit.PLATFORMS:
            for name, lines in pins.items():
                assert len(_chosen(lines, lock.python, platform)) <= 1, (name, lock.minor, platform)
    for name in (*student_kit.STUDENT_TOOLS, *student_kit.LIBRARY_DEPENDENCIES):
        lines = pins[canonicalize_name(name)]
        for platform in student_kit.PLATFORMS:
            assert _chosen(lines, "3.11.2", platform) == [constraints[canonicalize_name(name)]]
            assert len(_chosen(lines, "3.10.0", platform)) == 1
    assert not [n for n in pins if n.startswith(COURSE_ONLY)]
    assert "roofline-course" not in pins


def test_each_python_gets_the_versions_that_install_there():
    """numpy 2.3 dropped Python 3.10, and soupsieve 4.1.3 needs 3.11.5: each Python's line is one
    its lock resolved there, and Debian's 3.11.2 never meets soupsieve 4.1.3."""
    pins = _pins()
    numpy = pins["numpy"]
    assert _chosen(numpy, "3.10.13", "Linux x86-64") != _chosen(numpy, "3.12.1", "Linux x86-64")
    assert _chosen(pins["soupsieve"], "3.11.2", "Windows") != ["4.1.3"]
    for lock in _locks():
        for name, lines in pins.items():
            (version,) = _chosen(lines, lock.python, "Linux x86-64") or [None]
            if version is not None:
                assert lock.packages[name].version == version, (name, lock.minor)
    # a package needed on Windows only, which no Linux lock holds: unpinned, for Windows alone
    assert [p.marker for p in pins["colorama"]] == ['sys_platform == "win32"']
    assert _chosen(pins["exceptiongroup"], "3.12.1", "Linux x86-64") == []  # a 3.10 backport


def test_the_library_wheel_installs_on_every_kit_python_and_pins_nothing_a_python_lacks():
    project = student_kit.read_project(ROOT)
    locks = _locks()
    assert student_kit.kit_requires_python() == ">=3.10,<3.14"
    for bound in student_kit.library_dependencies(project, locks):
        requirement = Requirement(bound)
        for lock in locks:
            version = lock.packages[canonicalize_name(requirement.name)].version
            assert requirement.specifier.contains(version), (bound, lock.minor)


def test_a_stale_or_missing_lock_is_refused_naming_make_kit_lock(tmp_path):
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    shutil.copytree(ROOT / "kit" / "locks", tmp_path / "kit" / "locks")
    constraints = (ROOT / "constraints.txt").read_text()
    (tmp_path / "constraints.txt").write_text(constraints)
    project = student_kit.read_project(tmp_path)
    assert len(student_kit.read_locks(tmp_path, project)) == 4
    (tmp_path / "constraints.txt").write_text(constraints.replace("numpy==", "numpy==1"))
    with pytest.raises(KitError, match="run make kit-lock"):
        student_kit.read_locks(tmp_path, project)
    (tmp_path / "constraints.txt").write_text(constraints)
    (tmp_path / "kit" / "locks" / "python3.13.json").unlink()
    with pytest.raises(KitError, match=r"no lock for Python 3\.13.*run make kit-lock"):
        student_kit.read_locks(tmp_path, project)


def test_a_lock_newer_than_the_course_pins_is_refused():
    project = student_kit.read_project(ROOT)
    constraints = student_kit.read_constraints(ROOT / "constraints.txt")
    constraints[canonicalize_name("jupyter-client")] = "1.0"
    with pytest.raises(KitError, match="jupyter-client"):
        student_kit.student_requirements(project, constraints, _locks())


# ----------------------------------------------------------------------------------------------
# The kit, as a student installs and uses it
# ----------------------------------------------------------------------------------------------


def student_env(home: Path) -> dict[str, str]:
    """A student's shell: none of make's PYTHONPATH, MPLBACKEND or venv, and Jupyter's and
    IPython's own folders empty, so that nothing of this machine's set-up is picked up."""
    repo_bin = str(Path(sys.executable).parent)  # make's .venv/bin, or the venv pytest runs in
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYTHON", "JUPYTER", "IPYTHON", "MPL", "VIRTUAL_ENV"))
    }
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p != repo_bin)
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "IPYTHONDIR"):
        env[name] = str(home / name.lower())
    return env


def run(command: list[str] | str, cwd: Path, env: dict[str, str], timeout: float = 300):
    return subprocess.run(
        command,
        cwd=cwd,
        env=env,
        shell=isinstance(command, str),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def readme_install(folder: Path, python: Path) -> str:
    """The kit README's install command (Linux and macOS), ``python`` standing for python3."""
    readme = (folder / "README.md").read_text()
    (install,) = [line for line in readme.splitlines() if line.startswith("python3 -m venv .venv")]
    return shlex.quote(str(python)) + install.removeprefix("python3")


@dataclass
class Kit:
    zip: Path
    folder: Path
    python: Path
    env: dict[str, str]
    install_s: float


def build_kit(tmp: Path) -> tuple[Path, Path]:
    """The kit built by its command into ``tmp``, and unpacked there: (the zip, the kit's
    folder)."""
    out = tmp / "dist" / "roofline-student-kit.zip"
    build = run(
        [sys.executable, "-m", "tools.student_kit", "--out", str(out)], ROOT, dict(os.environ)
    )
    assert build.returncode == 0, build.stdout + build.stderr
    assert str(out) in build.stdout
    with zipfile.ZipFile(out) as archive:
        archive.extractall(tmp / "unpacked")
    return out, tmp / "unpacked" / "roofline-student-kit"


def install_kit(built: tuple[Path, Path], where: Path, python: Path, timeout: float = 600) -> Kit:
    """The kit ``built`` (:func:`build_kit`) copied into ``where`` and installed with its README's
    command, ``python`` standing for python3, in a student's environment (its home in ``where``)."""
    out, unpacked = built
    folder = where / "roofline-student-kit"
    shutil.copytree(unpacked, folder)
    env = student_env(where / "home")
    started = time.monotonic()
    result = run(readme_install(folder, python), folder, env, timeout=timeout)
    install_s = time.monotonic() - started
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return Kit(out, folder, folder / ".venv" / "bin" / "python", env, install_s)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    """The kit built by its command, and unpacked: (the zip, the kit's folder)."""
    return build_kit(tmp_path_factory.mktemp("student-kit-built"))


@pytest.fixture(scope="module")
def kit(tmp_path_factory, built) -> Kit:
    # the README's install command, with this test's Python standing for python3
    kit = install_kit(built, tmp_path_factory.mktemp("student-kit"), Path(sys.executable))
    size = kit.zip.stat().st_size
    print(f"\nstudent kit: {size / 1024:.0f} KiB zip; README install took {kit.install_s:.0f} s")
    return kit


@pytest.mark.slow
@pytest.mark.xdist_group("student-kit")
def test_the_zip_holds_the_release_the_library_and_nothing_of_the_grader(kit):
    with zipfile.ZipFile(kit.zip) as archive:
        names = archive.namelist()
        files = {name: archive.read(name) for name in names}
    assert {n.split("/")[0] for n in names} == {"roofline-student-kit"}
    for name, data in files.items():
        contents = [data]
        if name.endswith(".whl"):
            inner = zipfile.ZipFile(io.BytesIO(data))
            assert not [n for n in inner.namelist() if n.startswith("roofline_grader")]
            contents += [inner.read(n) for n in inner.namelist()]
        for text in (b"BEGIN SOLUTION", b"BEGIN HIDDEN TESTS", b"roofline_grader"):
            assert not any(text in c for c in contents), f"{name} contains {text!r}"
        assert "solutions/" not in name and not name.endswith(".db"), name
    for assignment in ASSIGNMENTS:
        notebook = f"roofline-student-kit/exercises/{assignment}/{assignment}.ipynb"
        assert (
            files[notebook]
            == (ROOT / "exercises" / assignment / f"{assignment}.ipynb").read_bytes()
        )
    for name in ("README.md", "requirements.txt", "start_lab.py"):
        assert f"roofline-student-kit/{name}" in files
    assert any(n.startswith("roofline-student-kit/jupyter/") for n in names)
    (wheel,) = [n for n in names if n.endswith(".whl")]
    assert re.fullmatch(r"roofline-student-kit/wheels/roofline_lib-[\w.]+-py3-none-any\.whl", wheel)


@pytest.mark.slow
@pytest.mark.xdist_group("student-kit")
def test_the_kit_venv_has_the_library_but_not_the_grader(kit):
    probe = (
        "import importlib.util, roofline_lib, sys\n"
        "print(roofline_lib.__file__)\n"
        "print(importlib.util.find_spec('roofline_grader'))"
    )
    result = run([str(kit.python), "-c", probe], kit.folder.parent, kit.env)
    assert result.returncode == 0, result.stderr
    library, grader = result.stdout.split()
    assert Path(library).is_relative_to(kit.folder / ".venv")
    assert grader == "None"
    check = run([str(kit.python), "-m", "pip", "check"], kit.folder, kit.env)
    assert check.returncode == 0, check.stdout


@pytest.mark.slow
@pytest.mark.xdist_group("student-kit")
def test_requirements_pin_everything_the_kit_venv_installed(kit):
    pinned = {}
    for line in (kit.folder / "requirements.txt").read_text().splitlines():
        if line.startswith(("#", "wheels/")) or not line.strip():
            continue
        requirement = Requirement(line)
        specs = list(requirement.specifier)
        if specs and (requirement.marker is None or requirement.marker.evaluate()):
            pinned[canonicalize_name(requirement.name)] = specs[0].version
    freeze = run([str(kit.python), "-m", "pip", "freeze", "--all"], kit.folder, kit.env).stdout
    installed = dict(re.findall(r"^([\w.-]+)==([\w.+-]+)$", freeze, flags=re.MULTILINE))
    installed = {canonicalize_name(k): v for k, v in installed.items()}
    loose = {"pip", "setuptools", "roofline-lib"}
    assert {k: v for k, v in installed.items() if k not in loose} == pinned


def _with_probe(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    probe = "import sys\nprint('KERNEL-PREFIX', sys.prefix)"
    nb.cells.append(nbformat.v4.new_code_cell(probe))
    return nb


def _images(nb: nbformat.NotebookNode) -> int:
    return sum(
        "image/png" in output.get("data", {})
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.outputs
    )


def _has_figure(assignment: str) -> bool:
    """Whether the reference solution draws: it uses matplotlib."""
    nb = nbformat.read(ROOT / "solutions" / assignment / f"{assignment}.ipynb", 4)
    return any(c.cell_type == "code" and "matplotlib" in c.source for c in nb.cells)


@pytest.mark.slow
@pytest.mark.xdist_group("student-kit")
def test_solved_notebooks_run_on_the_kit_kernel_and_draw_their_figures(kit, tmp_path):
    release = kit.folder / "exercises"
    for assignment in ASSIGNMENTS:
        nbformat.write(_with_probe(solved(release, assignment)), tmp_path / f"{assignment}.ipynb")
    jupyter = kit.folder / ".venv" / "bin" / "jupyter"
    command = [str(jupyter), "nbconvert", "--to", "notebook", "--execute", "--output-dir"]
    command += [str(tmp_path / "out"), *(f"{a}.ipynb" for a in ASSIGNMENTS)]
    result = run(command, tmp_path, kit.env, timeout=600)
    assert result.returncode == 0, result.stderr[-5000:]
    figures = [a for a in ASSIGNMENTS if _has_figure(a)]
    assert "problem3" in figures
    for assignment in ASSIGNMENTS:
        nb = nbformat.read(tmp_path / "out" / f"{assignment}.ipynb", 4)
        printed = "".join(o.get("text", "") for o in nb.cells[-1].outputs)
        assert f"KERNEL-PREFIX {kit.folder / '.venv'}" in printed, printed
        if assignment in figures:
            assert _images(nb) >= 1, f"{assignment} shows no figure"


def _validate(kit: Kit, notebooks: list[Path]) -> list[str]:
    """The kit's ``nbgrader validate`` on ``notebooks`` (one folder) in one run: each report. A
    kernel may take its time to start on a test machine busy with other tests (nbclient waits 60 s
    by default, and a busy two-core machine exceeded it once): this run waits up to 300 s."""
    nbgrader = kit.folder / ".venv" / "bin" / "nbgrader"
    wait = "--ExecutePreprocessor.startup_timeout=300"
    command = [str(nbgrader), "validate", wait, *(n.name for n in notebooks)]
    result = run(command, notebooks[0].parent, kit.env)
    assert result.returncode == 0, result.stderr[-3000:]
    return validate_reports(result.stdout, len(notebooks))


@pytest.mark.slow
@pytest.mark.xdist_group("student-kit")
def test_validate_fails_a_blank_notebook_and_passes_the_model_answers(kit, tmp_path):
    release = kit.folder / "exercises"
    (tmp_path / "blank").mkdir()
    (tmp_path / "filled").mkdir()
    for assignment in ASSIGNMENTS:
        shutil.copy(release / assignment / f"{assignment}.ipynb", tmp_path / "blank")
        nbformat.write(solved(release, assignment), tmp_path / "filled" / f"{assignment}.ipynb")
    folders = [sorted((tmp_path / kind).glob("*.ipynb")) for kind in ("blank", "filled")]
    with ThreadPoolExecutor(2) as pool:
        blank, filled = pool.map(lambda notebooks: _validate(kit, notebooks), folders)
    for notebook, report in zip(folders[0], blank, strict=True):
        assert report.startswith("VALIDATION FAILED ON"), (notebook.name, report[-2000:])
        assert "NotImplementedError" in report, (notebook.name, report[-2000:])
    for notebook, report in zip(folders[1], filled, strict=True):
        assert report.startswith(VALIDATE_SUCCESS), (notebook.name, report[-3000:])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
@pytest.mark.xdist_group("student-kit")
def test_the_readme_start_command_copies_the_exercises_and_serves_jupyterlab(kit):
    readme = (kit.folder / "README.md").read_text()
    assert ".venv/bin/python start_lab.py" in readme
    port = _free_port()
    command = [str(kit.python), "start_lab.py", "--no-browser", f"--port={port}"]
    server = subprocess.Popen(
        command,
        cwd=kit.folder,
        env=kit.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        preexec_fn=dies_with_parent,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, server.stdout.read().decode()[-3000:]
            try:
                url = f"http://127.0.0.1:{port}/api/status"
                with urllib.request.urlopen(url, timeout=5) as response:
                    status = response.status
                break
            except urllib.error.HTTPError as error:  # it answered, without the token: 403
                status = error.code
                break
            except OSError:
                assert time.monotonic() < deadline, "JupyterLab did not answer within 60 s"
                time.sleep(0.5)
        assert status in (200, 403)
        for assignment in ASSIGNMENTS:
            notebook = Path(assignment) / f"{assignment}.ipynb"
            copied = nbformat.read(kit.folder / "work" / notebook, 4)
            released = nbformat.read(kit.folder / "exercises" / notebook, 4)
            assert [c.source for c in copied.cells] == [c.source for c in released.cells]
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        server.stdout.close()


IMPORT_EVERY_MODULE = (
    "import importlib, pkgutil, roofline_lib\n"
    "names = [m.name for m in pkgutil.walk_packages(roofline_lib.__path__, 'roofline_lib.')\n"
    "         if not m.name.endswith('__main__')]\n"
    "for name in names: importlib.import_module(name)\n"
    "from roofline_lib.hardware.types import Topology\n"
    "assert str(Topology.SWITCHED) == f'{Topology.SWITCHED}' == Topology.SWITCHED.value\n"
    "print(len(names), 'modules')"
)


def _size_mib(folder: Path) -> float:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 2**20


@pytest.mark.slow
@pytest.mark.parametrize(
    "minor",  # each Python a group of its own: the installs spread over the workers
    [pytest.param(m, marks=pytest.mark.xdist_group(f"student-kit-{m}")) for m in kit_lock.PYTHONS],
)
def test_the_kit_installs_from_its_readme_and_validates_on_every_python(built, minor, tmp_path):
    """The README's install on the oldest CPython of each supported line on this machine (Debian's
    3.11.2 for 3.11), in a fresh venv: every library module imports, and Validate passes the model
    answers of Problem 1. In CI a missing interpreter fails the test."""
    found = kit_lock.find_python(minor)
    if found is None:
        (pytest.fail if in_ci() else pytest.skip)(f"no CPython {minor} on this machine")
    python, version = found
    kit = install_kit(built, tmp_path, python, timeout=900)
    print(
        f"\nstudent kit on Python {version}: README install {kit.install_s:.0f} s, "
        f"venv {_size_mib(kit.folder / '.venv'):.0f} MiB"
    )
    imported = run([str(kit.python), "-c", IMPORT_EVERY_MODULE], tmp_path, kit.env)
    assert imported.returncode == 0, imported.stderr[-3000:]
    check = run([str(kit.python), "-m", "pip", "check"], kit.folder, kit.env)
    assert check.returncode == 0, check.stdout
    (tmp_path / "filled").mkdir()
    notebook = tmp_path / "filled" / "problem1.ipynb"
    nbformat.write(solved(kit.folder / "exercises", "problem1"), notebook)
    (report,) = _validate(kit, [notebook])
    assert report.startswith(VALIDATE_SUCCESS), report[-3000:]


def test_the_kit_takes_exactly_the_release_and_follows_no_link(tmp_path: Path) -> None:
    # exercises/ as an instructor's checkout may hold it after trying the problems out: a filled-in
    # copy, a link, an edited release notebook, a deleted one. The kit refuses each, by name.
    for name in ("solutions", "exercises"):
        shutil.copytree(ROOT / name, tmp_path / name)
    shutil.copy(ROOT / "nbgrader_config.py", tmp_path)
    released = student_kit.release_files(tmp_path)
    assert sorted(released) == [f"problem{n}/problem{n}.ipynb" for n in range(1, 10)]
    assert (
        released["problem1/problem1.ipynb"]
        == (ROOT / "exercises/problem1/problem1.ipynb").read_bytes()
    )
    (tmp_path / "exercises/problem1/.ipynb_checkpoints").mkdir()
    (tmp_path / "exercises/problem1/.ipynb_checkpoints/problem1-checkpoint.ipynb").write_text("{}")
    assert student_kit.release_files(tmp_path) == released, (
        "Jupyter's leftovers are left out, not refused"
    )

    exercises = tmp_path / "exercises"
    filled = exercises / "problem1" / "problem1-Copy1.ipynb"
    filled.write_text(
        (exercises / "problem1/problem1.ipynb")
        .read_text()
        .replace("raise NotImplementedError()", "return 1")
    )
    os.symlink(
        ROOT / "solutions" / "problem2" / "problem2.ipynb", exercises / "problem2" / "p2.ipynb"
    )
    os.symlink(ROOT / "solutions" / "problem5", exercises / "problem5-solved")
    edited = exercises / "problem3" / "problem3.ipynb"
    edited.write_text(edited.read_text().replace("# YOUR CODE HERE", "x = 1", 1))
    (exercises / "problem4" / "problem4.ipynb").unlink()
    with pytest.raises(KitError) as error:
        student_kit.release_files(tmp_path)
    message = str(error.value)
    assert "exercises/problem1/problem1-Copy1.ipynb: not made by make release" in message
    assert "exercises/problem2/p2.ipynb: a symbolic link" in message
    assert "exercises/problem5-solved: a symbolic link" in message
    assert "exercises/problem3/problem3.ipynb: differs from what make release makes" in message
    assert "exercises/problem4/problem4.ipynb: missing: run make release" in message
