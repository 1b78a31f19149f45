"""``make release``: generate the student version, exercises/, from solutions/ with nbgrader.

nbgrader's ``generate_assignment`` replaces every solution region with ``raise
NotImplementedError()``, removes the hidden tests, clears outputs and locks the statement and
check cells. The release is deterministic (cell ids come from the source), so a test can regenerate
it and compare it with the committed exercises/. The same function, given a gradebook URL, records
the assignments in a gradebook, which the grader needs before it can autograde.

Run ``python -m roofline_grader.release [--out DIR]``.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from nbgrader.converters import GenerateAssignment
from nbgrader.coursedir import CourseDirectory
from traitlets.config import Config

from .config import COURSE_ID
from .course import Course

LOG = logging.getLogger("roofline_grader.nbgrader")


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
    if db_url is None:
        c.GenerateAssignment.no_database = True
        c.SaveCells.enabled = False
        c.CourseDirectory.db_url = "sqlite://"
    else:
        c.CourseDirectory.db_url = db_url
    out.mkdir(parents=True, exist_ok=True)
    converter = GenerateAssignment(coursedir=CourseDirectory(config=c), config=c, log=LOG)
    converter.start()


def record_assignments(course: Course, db_url: str) -> None:
    """Record every assignment of ``course`` in the gradebook at ``db_url`` (release discarded)."""
    with tempfile.TemporaryDirectory(prefix="roofline-release-") as tmp:
        generate(course, Path(tmp), db_url=db_url)


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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m roofline_grader.release",
        description="Generate the student release (exercises/) from solutions/ with nbgrader.",
    )
    parser.add_argument("--out", type=Path, help="release directory (default: exercises/)")
    parser.add_argument("--course", type=Path, help="course root (default: found from here)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR, format="%(message)s")
    course = Course(args.course.resolve()) if args.course else Course.find()
    for notebook in release(course, args.out):
        print(f"released {notebook.relative_to(notebook.parent.parent.parent)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
