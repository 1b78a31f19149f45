"""``make release``: generate the student version, exercises/, from solutions/ with nbgrader.

nbgrader's ``generate_assignment`` replaces every solution region with ``raise
NotImplementedError()``, removes the hidden tests, clears outputs and locks the statement and
check cells; :class:`StudentMetadata` then gives each notebook the metadata JupyterLab writes when a
student opens it, so that it opens unmodified. The release is deterministic (cell ids come from the
source, and no metadata depends on the machine), so a test can regenerate it and compare it with the
committed exercises/. The same function, given a gradebook URL, records the assignments in a
gradebook, which the grader needs before it can autograde.

Before generating, :func:`write_headers` writes each solution notebook's first cell from the one
template (:mod:`roofline_grader.checks.header`), and the release stops if a notebook disagrees
with its checks module (:func:`roofline_grader.checks.agreement.disagreements`): a grade cell
without a part, other points, a missing problem.

Run ``python -m roofline_grader.course.release [--out DIR] [--headers]`` (``--headers``: write the
headers only).
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import nbformat
from nbformat import NotebookNode, from_dict
from nbgrader.converters import GenerateAssignment
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets.config import Config

from roofline_grader.checks import REGISTRY, Problem, header
from roofline_grader.checks.agreement import disagreements
from roofline_grader.course import Course
from roofline_grader.course.config import COURSE_ID

LOG = logging.getLogger("roofline_grader.nbgrader")

KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
"""The kernel a released notebook names: ipykernel's own spec, as a plain venv and ``make setup``
install it (JupyterLab rewrites this from the running kernel's spec, display name included)."""

LANGUAGE_INFO = {
    "codemirror_mode": {"name": "ipython", "version": 3},
    "file_extension": ".py",
    "mimetype": "text/x-python",
    "name": "python",
    "nbconvert_exporter": "python",
    "pygments_lexer": "ipython3",
}
"""What ipykernel reports as ``language_info`` (``IPythonKernel.language_info``), less ``version``.

JupyterLab 4 replaces a notebook's ``language_info`` with the kernel's as soon as the kernel starts,
and a notebook whose metadata differs opens marked unsaved. Everything but ``version`` is the same on
every machine, so the release carries it. ``version`` is the student's exact Python (``3.11.7``): a
release that named one would be stale on every other patch version and would make the release depend
on the machine that made it. The student's copy gets it instead: kit/start_lab.py fills it in from
the Python that runs JupyterLab when it copies a notebook into the student's work folder."""


class StudentMetadata(NbGraderPreprocessor):  # type: ignore[misc]  # nbgrader is untyped: Any
    """Set the notebook's ``kernelspec`` and ``language_info`` to :data:`KERNELSPEC` and
    :data:`LANGUAGE_INFO`, whatever the source notebook says (solutions/ may name another kernel
    display name or a Python version)."""

    def preprocess(
        self, nb: NotebookNode, resources: dict[str, Any]
    ) -> tuple[NotebookNode, dict[str, Any]]:
        nb.metadata["kernelspec"] = from_dict(KERNELSPEC)  # from_dict copies
        nb.metadata["language_info"] = from_dict(LANGUAGE_INFO)
        return nb, resources


def ensure_scripts_on_path() -> None:
    """Put this Python's scripts directory on PATH: nbgrader runs ``alembic`` to create a gradebook."""
    scripts = str(Path(sys.executable).parent)
    if scripts not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = os.pathsep.join([scripts, os.environ.get("PATH", "")])


def generate(course: Course, out: Path, db_url: str | None = None) -> None:
    """Run nbgrader generate_assignment on every assignment of ``course`` into ``out``.

    With ``db_url`` the assignments, their notebooks and their cells are also recorded in that
    gradebook; without it, no database is touched.
    """
    ensure_scripts_on_path()
    c = Config()
    c.CourseDirectory.root = str(course.root)
    c.CourseDirectory.course_id = COURSE_ID
    c.CourseDirectory.source_directory = str(course.solutions)
    c.CourseDirectory.release_directory = str(out)
    c.CourseDirectory.assignment_id = "*"
    c.GenerateAssignment.force = True
    nbgrader_steps = GenerateAssignment.class_traits()["preprocessors"].default()
    c.GenerateAssignment.preprocessors = [*nbgrader_steps, StudentMetadata]
    if db_url is None:
        c.GenerateAssignment.no_database = True
        c.SaveCells.enabled = False
        c.CourseDirectory.db_url = "sqlite://"
    else:
        c.CourseDirectory.db_url = db_url
    out.mkdir(parents=True, exist_ok=True)
    converter = GenerateAssignment(coursedir=CourseDirectory(config=c), config=c, log=LOG)
    converter.start()


def release(course: Course, out: Path | None = None) -> list[Path]:
    """Regenerate the student release (default: the course's exercises/); returns its notebooks.

    Assignment folders in ``out`` with no source in solutions/ are removed.
    """
    out = (out or course.exercises).resolve()
    generate(course, out)
    for stale in sorted(p for p in out.iterdir() if p.is_dir()):
        if stale.name not in course.assignments:
            shutil.rmtree(stale)
    return sorted(out.glob("*/*.ipynb"))


def header_cell(problem: Problem) -> NotebookNode:
    """A new header cell: locked markdown, with nbgrader metadata and a cell id of its own."""
    gid = header.grade_id(problem)
    cell: NotebookNode = nbformat.v4.new_markdown_cell(header.render(problem), id=gid)
    cell.metadata = from_dict(
        {
            "deletable": False,
            "editable": False,
            "nbgrader": {
                "grade": False,
                "grade_id": gid,
                "locked": True,
                "schema_version": 3,
                "solution": False,
                "task": False,
            },
        }
    )
    return cell


def write_headers(course: Course, problems: Mapping[str, Problem] = REGISTRY) -> list[Path]:
    """Make each solution notebook's first cell the header rendered for its problem, inserting
    the cell when the notebook has none; returns the notebooks it changed (others are untouched,
    byte for byte)."""
    changed = []
    for problem in problems.values():
        path = course.source_notebook(problem.name)
        if not path.is_file():
            continue  # the agreement check names it
        nb = nbformat.read(str(path), as_version=4)
        first = nb.cells[0] if nb.cells else None
        if first is not None and first.metadata.get("nbgrader", {}).get("grade_id") == (
            header.grade_id(problem)
        ):
            if first.source == header.render(problem):
                continue
            first.source = header.render(problem)
        else:
            nb.cells.insert(0, header_cell(problem))
        nbformat.write(nb, str(path))
        changed.append(path)
    return changed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m roofline_grader.course.release",
        description="Generate the student release (exercises/) from solutions/ with nbgrader.",
    )
    parser.add_argument("--out", type=Path, help="release directory (default: exercises/)")
    parser.add_argument("--course", type=Path, help="course root (default: found from here)")
    parser.add_argument(
        "--headers", action="store_true", help="only write each solution notebook's header cell"
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR, format="%(message)s")
    course = Course(args.course.resolve()) if args.course else Course.find()
    for notebook in write_headers(course):
        print(f"wrote the header of {notebook.relative_to(course.root)}")
    if args.headers:
        return 0
    problems = disagreements(REGISTRY, course.solutions)
    if problems:
        print("the notebooks disagree with roofline_grader/checks:", *problems, sep="\n  ")
        return 1
    for notebook in release(course, args.out):
        print(f"released {notebook.relative_to(notebook.parent.parent.parent)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
