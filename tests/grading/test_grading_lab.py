"""``make lab`` and the student kit's launcher (kit/start_lab.py): JupyterLab on the student's own
copy of the exercises, with Validate, without nbgrader's instructor tools.

The launcher's parts are tested alone first (copying into the work folder, the environment). Then
the tests run what ``make lab`` runs (on a copy of the release, with a temporary workspace) and what
the kit runs, and ask each server what the Assignments tab, the Validate button and the page
configuration ask it. tests/grading/test_grading_lab_browser.py drives the same in Chromium.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import ipykernel.kernelspec
import nbformat
import pytest
from ipykernel.ipkernel import IPythonKernel
from jupyter_client.kernelspec import KernelSpecManager

from roofline_grader.course.release import KERNELSPEC, LANGUAGE_INFO
from roofline_lib.selfcheck.language import METADATA_KEY, RULE, SETTING_FILE

from .grading_cases import ASSIGNMENTS, ROOT, solved
from .lab_server import LAUNCHER, Lab, load_launcher, running_lab

start_lab = load_launcher()

HIDDEN_FROM_STUDENTS = {
    "@jupyter/nbgrader:formgrader",
    "@jupyter/nbgrader:create-assignment",
    "@jupyterlab/apputils-extension:announcements",  # "get Jupyter news?" over the figure
}
EXCHANGE_PLUGINS = {"@jupyter/nbgrader:assignment-list", "@jupyter/nbgrader:course-list"}
STUDENT_WORK = b'{"this is": "a student\'s answers, whatever they look like"}\n'


# -- the launcher, alone --------------------------------------------------------------------------


def _exercises(root: Path) -> Path:
    for name in ("problem1", "problem2"):
        (root / name).mkdir(parents=True)
        nb = nbformat.v4.new_notebook(metadata={"kernelspec": dict(KERNELSPEC)})
        nb.metadata["language_info"] = dict(LANGUAGE_INFO)
        nbformat.write(nb, str(root / name / f"{name}.ipynb"))
    (root / "problem2" / "data.csv").write_text("B,D,F\n")
    (root / "problem2" / ".ipynb_checkpoints").mkdir()
    (root / "problem2" / ".ipynb_checkpoints" / "problem2-checkpoint.ipynb").write_text("{}")
    return root


def test_the_launcher_copies_new_files_and_never_overwrites_the_students(tmp_path: Path) -> None:
    exercises, work = _exercises(tmp_path / "exercises"), tmp_path / "work"
    (work / "problem1").mkdir(parents=True)
    (work / "problem1" / "problem1.ipynb").write_bytes(STUDENT_WORK)

    report = start_lab.copy_new_files(exercises, work)

    assert (work / "problem1" / "problem1.ipynb").read_bytes() == STUDENT_WORK
    assert [p.as_posix() for p in report.kept] == ["problem1/problem1.ipynb"]
    assert [p.as_posix() for p in report.copied] == ["problem2/data.csv", "problem2/problem2.ipynb"]
    assert not (work / "problem2" / ".ipynb_checkpoints").exists()
    assert "copied problem2/problem2.ipynb" in report.lines()
    assert any(line.startswith("kept   problem1/problem1.ipynb") for line in report.lines())
    again = start_lab.copy_new_files(exercises, work)
    assert again.copied == [] and len(again.kept) == 3


def test_a_copied_notebook_names_this_python_and_the_installed_kernel(tmp_path: Path) -> None:
    """What JupyterLab writes into a notebook when its kernel starts is already there."""
    exercises, work = _exercises(tmp_path / "exercises"), tmp_path / "work"
    start_lab.copy_new_files(exercises, work)
    metadata = json.loads((work / "problem1" / "problem1.ipynb").read_text())["metadata"]
    assert metadata["language_info"] == IPythonKernel.language_info
    spec = KernelSpecManager().get_kernel_spec("python3")
    assert metadata["kernelspec"] == {
        "display_name": spec.display_name,
        "language": spec.language,
        "name": "python3",
    }


def test_the_lab_runs_without_mplbackend_and_with_the_kits_config() -> None:
    base = {"MPLBACKEND": "Agg", "JUPYTER_CONFIG_PATH": "/elsewhere", "HOME": "/home/student"}
    kit = start_lab.lab_environment([], base).get
    course = start_lab.lab_environment([ROOT], base).get
    assert kit("MPLBACKEND") is None and course("MPLBACKEND") is None
    assert kit("JUPYTER_CONFIG_PATH").split(os.pathsep) == [
        str(start_lab.CONFIG),
        str(start_lab.NO_EXCHANGE_CONFIG),
        "/elsewhere",
    ]
    assert course("JUPYTER_CONFIG_PATH").split(os.pathsep) == [
        str(ROOT),
        str(start_lab.CONFIG),
        "/elsewhere",
    ]
    assert kit("HOME") == "/home/student"


def test_the_release_names_ipykernels_kernel_and_language_but_no_python_version(
    release: Path,
) -> None:
    """A plain venv's kernel and ``make setup``'s are ipykernel's own; the version is the
    student's Python, filled in by the launcher (see roofline_grader.course.release.LANGUAGE_INFO)."""
    expected_language = {k: v for k, v in IPythonKernel.language_info.items() if k != "version"}
    default_spec = ipykernel.kernelspec.get_kernel_dict()
    for assignment in ASSIGNMENTS:
        nb = nbformat.read(str(release / assignment / f"{assignment}.ipynb"), 4)
        assert nb.metadata.language_info == expected_language
        assert nb.metadata.kernelspec == {
            "display_name": default_spec["display_name"],
            "language": default_spec["language"],
            "name": ipykernel.kernelspec.KERNEL_NAME,
        }
    assert "--display-name" not in (ROOT / "Makefile").read_text()


# -- make lab ----------------------------------------------------------------------------------


def test_make_lab_runs_the_launcher_on_the_work_folder() -> None:
    """What tests/grading/lab_server.py runs is what the Makefile's recipe runs."""
    recipe = subprocess.run(
        ["make", "-n", "lab"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert any("-m roofline_grader.course.lab" in line for line in recipe), recipe
    launch = [line for line in recipe if "kit/start_lab.py" in line]
    assert len(launch) == 1, recipe
    assert "--exercises exercises --work work" in launch[0]
    assert f'--course-config "{ROOT}"' in launch[0]


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory, release: Path):
    with running_lab(tmp_path_factory.mktemp("lab"), release) as server:
        yield server


@pytest.mark.slow
def test_the_exchange_holds_the_six_problems(lab: Lab) -> None:
    outbound = lab.base / "workspace" / "exchange" / "roofline" / "outbound"
    assert sorted(p.name for p in outbound.iterdir()) == list(ASSIGNMENTS)
    assert "released problem1" in lab.published


@pytest.mark.slow
def test_make_lab_copies_the_release_into_the_work_folder(lab: Lab) -> None:
    folders = sorted(p.name for p in lab.work.iterdir() if p.is_dir())
    assert folders == list(ASSIGNMENTS)
    assert (lab.work / SETTING_FILE).read_text() == "en\n"
    assert "copied problem3/problem3.ipynb" in lab.launcher_output()
    assert str(lab.work) in lab.launcher_output()


@pytest.mark.slow
def test_the_assignments_tab_lists_them_as_downloaded(lab: Lab) -> None:
    reply = lab.call("/assignments?course_id=roofline")
    assert reply["success"], reply
    listed = {a["assignment_id"]: a for a in reply["value"]}
    assert sorted(listed) == list(ASSIGNMENTS)
    assert {a["status"] for a in listed.values()} == {"fetched"}


@pytest.mark.slow
def test_the_validate_button_runs_the_visible_checks(lab: Lab) -> None:
    reply = lab.call("/assignments/validate", data=b"path=problem5/problem5.ipynb")
    assert reply["success"], reply
    failed = reply["value"]["failed"]
    # each check cell fails because its answer is missing: not defined, or a stub that raises
    # NotImplementedError (Validate wraps a long line: the words may span two lines)
    errors = [" ".join(f["error"].split()) for f in failed]
    assert len(failed) == 3, errors
    assert all("not defined" in e or "not implemented" in e for e in errors), errors


@pytest.mark.slow
def test_make_lab_hides_the_instructor_tools_and_keeps_the_assignments(lab: Lab) -> None:
    disabled = set(lab.page_config()["disabledExtensions"])
    assert HIDDEN_FROM_STUDENTS <= disabled
    assert not disabled & {*EXCHANGE_PLUGINS, "@jupyter/nbgrader:validate-assignment"}
    assert lab.status("/formgrader") == 404


# -- the student kit: no course configuration, no exchange ----------------------------------------


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory, release: Path):
    base = tmp_path_factory.mktemp("kit")
    (base / "work" / "problem1").mkdir(parents=True)
    (base / "work" / "problem1" / "problem1.ipynb").write_bytes(STUDENT_WORK)
    with running_lab(base, release, course_config=False, language="zh") as server:
        yield server


@pytest.mark.slow
def test_the_kit_keeps_the_students_work_and_says_so_in_their_language(kit: Lab) -> None:
    assert (kit.work / "problem1" / "problem1.ipynb").read_bytes() == STUDENT_WORK
    printed = kit.launcher_output()
    assert f"你的作业在 {kit.work}" in printed
    assert "已保留 problem1/problem1.ipynb（你的作业，不会被覆盖）" in printed
    assert "已复制 problem2/problem2.ipynb" in printed
    assert "English: python start_lab.py --language en" in printed
    assert "Your work lives" not in printed and "copied " not in printed
    assert (kit.work / SETTING_FILE).read_text() == "zh_CN\n"  # the next start remembers it


@pytest.mark.slow
def test_the_lab_shows_each_statement_in_the_students_language(kit: Lab, release: Path) -> None:
    model = kit.call("/api/contents/problem2/problem2.ipynb")
    on_disk = nbformat.read(kit.work / "problem2" / "problem2.ipynb", 4)
    released = nbformat.read(release / "problem2" / "problem2.ipynb", 4)
    assert [c.source for c in on_disk.cells] == [c.source for c in released.cells]
    for shown, cell in zip(model["content"]["cells"], released.cells, strict=True):
        if cell.cell_type == "markdown" and RULE in cell.source:
            english, _, chinese = cell.source.partition(RULE)
            assert shown["source"].startswith(chinese), shown["source"][:80]
            assert (
                '<details class="other-language" lang="en"><summary>English</summary>'
                in (shown["source"])
            )
            assert english in shown["source"] and RULE not in shown["source"]
        else:
            assert shown["source"] == cell.source


@pytest.mark.slow
def test_a_save_writes_the_release_back_and_validate_sees_nothing_changed(kit: Lab) -> None:
    path = "/api/contents/problem4/problem4.ipynb"
    model = kit.call(path)
    before = nbformat.read(kit.work / "problem4" / "problem4.ipynb", 4)
    kit.put(path, {"type": "notebook", "format": "json", "content": model["content"]})
    after = nbformat.read(kit.work / "problem4" / "problem4.ipynb", 4)
    assert [c.source for c in after.cells] == [c.source for c in before.cells]
    assert after.metadata[METADATA_KEY] == "zh_CN"  # the feedback page's language
    reply = kit.call("/assignments/validate", data=b"path=problem4/problem4.ipynb")
    assert reply["success"], reply
    assert "changed" not in reply["value"], "a read-only cell looks edited to Validate"
    errors = " ".join(f["error"] for f in reply["value"]["failed"])
    assert "项可见检查" in errors and "visible checks failed" not in errors, errors[:600]


@pytest.mark.slow
def test_the_kit_hides_the_instructor_tools_and_the_exchange(kit: Lab) -> None:
    disabled = set(kit.page_config()["disabledExtensions"])
    assert HIDDEN_FROM_STUDENTS | EXCHANGE_PLUGINS | {"@jupyter/nbgrader:menu"} <= disabled
    assert "@jupyter/nbgrader:validate-assignment" not in disabled
    assert kit.status("/formgrader") == 404
    assert kit.status("/assignments?course_id=roofline") == 404


@pytest.mark.slow
def test_validate_works_in_the_kit(kit: Lab, release: Path) -> None:
    blank = kit.call("/assignments/validate", data=b"path=problem5/problem5.ipynb")
    assert blank["success"], blank
    assert blank["value"]["failed"], "a blank notebook fails its visible checks"
    nbformat.write(solved(release, "problem3"), str(kit.work / "problem3" / "problem3.ipynb"))
    answered = kit.call("/assignments/validate", data=b"path=problem3/problem3.ipynb")
    assert answered["success"], answered
    assert answered["value"] == {}, f"the model answers should pass: {answered['value']}"


def test_the_launcher_imports_only_the_standard_library_and_jupyter() -> None:
    """The kit runs it from an unpacked zip, where only the Python with JupyterLab (and the
    course's library, which the kit's requirements install with it) is at hand."""
    tree = ast.parse(LAUNCHER.read_text())
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    imported |= {
        node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
    }
    top = {name.split(".")[0] for name in imported}
    # jupyter_client (the lab's), roofline_lib (the kit's requirements install it beside JupyterLab)
    allowed = {"jupyter_client", "roofline_lib"}
    assert top - sys.stdlib_module_names <= allowed, top - sys.stdlib_module_names
    contents = ast.parse((LAUNCHER.parent / "lab_language.py").read_text())
    modules = {
        node.module.split(".")[0]
        for node in ast.walk(contents)
        if isinstance(node, ast.ImportFrom) and node.module
    }
    modules |= {
        a.name.split(".")[0]
        for n in ast.walk(contents)
        if isinstance(n, ast.Import)
        for a in n.names
    }
    # the lab's contents manager: Jupyter Server's and the library's
    assert modules - sys.stdlib_module_names <= {"jupyter_server", "roofline_lib"}, modules
    for path in LAUNCHER.parent.rglob("*"):  # the kit's build refuses any mention of the grader
        if path.is_file() and "__pycache__" not in path.parts:
            assert "roofline_grader" not in path.read_text(), path
