"""Benchmark: plain serial ``nbgrader autograde`` against ``roofline-grade``, side by side.

Synthetic students (solved, partly answered and blank notebooks, made from the release) are graded
three times in one run, each from the same starting point (the assignments already recorded in a
gradebook):

* plain nbgrader: ``nbgrader autograde problemN --force`` for each problem in turn, with the course's
  nbgrader_config.py (so the same grading pipeline: the ratio measures the orchestration);
* ``roofline-grade --jobs 1``;
* ``roofline-grade --jobs N`` with N = all cores.

It prints the wall times, the speed-ups over plain nbgrader, whether the targets are met (--jobs 1
no slower than plain nbgrader; --jobs N at least 1.8× faster on two cores), and whether all three
runs gave the same grades. Run ``python -m tools.bench_grading [--students 20]``.
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook

from roofline_grader.course import Course, command_env
from roofline_grader.course.release import generate
from roofline_grader.outputs.gradebook import build_template

ROOT = Path(__file__).resolve().parent.parent
TARGET_PARALLEL = 1.8


def _env(**extra: str) -> dict[str, str]:
    return command_env(ROOT, **extra)


def _meta(cell: nbformat.NotebookNode) -> dict:
    return cell.metadata.get("nbgrader", {})


def make_students(
    course: Course, release: Path, out: Path, n: int, assignments: Sequence[str]
) -> None:
    """n students in nbgrader's submitted layout: mostly solved, some half answered, some blank."""
    for assignment in assignments:
        model = {
            _meta(c)["grade_id"]: c.source
            for c in nbformat.read(str(course.source_notebook(assignment)), 4).cells
            if _meta(c).get("solution")
        }
        blank = nbformat.read(str(release / assignment / f"{assignment}.ipynb"), 4)
        for i in range(n):
            nb = nbformat.from_dict(blank)
            answer_cells = [
                c for c in nb.cells if _meta(c).get("solution") and c.cell_type == "code"
            ]
            kind = i % 10
            for j, cell in enumerate(answer_cells):
                if kind == 9 or (kind >= 6 and j % 2 == 1):  # blank, or half answered
                    continue
                cell.source = model[_meta(cell)["grade_id"]]
            folder = out / f"student{i:02d}" / assignment
            folder.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, str(folder / f"{assignment}.ipynb"))


def _timed(cmd: Sequence[str], env: dict[str, str], log: Path) -> float:
    started = time.perf_counter()
    with log.open("a") as fh:
        subprocess.run(cmd, cwd=ROOT, env=env, stdout=fh, stderr=subprocess.STDOUT, check=True)
    return time.perf_counter() - started


def plain_nbgrader(workspace: Path, assignments: Sequence[str], log: Path) -> float:
    """Seconds for ``nbgrader autograde <problem> --force``, one problem after the other."""
    env = _env(ROOFLINE_GRADING_DIR=str(workspace))
    return sum(
        _timed([sys.executable, "-m", "nbgrader", "autograde", a, "--force"], env, log)
        for a in assignments
    )


def roofline_grade(submissions: Path, workspace: Path, jobs: int, log: Path) -> float:
    cmd = [
        sys.executable,
        "-m",
        "roofline_grader.run.cli",
        str(submissions),
        "--out",
        str(workspace),
    ]
    return _timed([*cmd, "--jobs", str(jobs), "--quiet"], _env(), log)


def gradebook_scores(
    db: Path, assignments: Sequence[str]
) -> dict[tuple[str, str, str], float | None]:
    """Every (student, assignment, grade cell) score of a gradebook, for these assignments."""
    scores = {}
    with Gradebook(f"sqlite:///{db}", course_id="roofline") as gb:
        for assignment in (gb.find_assignment(a) for a in assignments):
            for submission in assignment.submissions:
                for notebook in submission.notebooks:
                    for grade in notebook.grades:
                        key = (submission.student.id, assignment.name, grade.name)
                        scores[key] = grade.auto_score
    return scores


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.bench_grading", description=__doc__)
    parser.add_argument("--students", type=int, default=20)
    parser.add_argument("--problems", default="", help="comma-separated (default: all six)")
    parser.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="parallel run's workers"
    )
    args = parser.parse_args(list(argv or []))
    course = Course(ROOT)
    assignments = tuple(args.problems.split(",")) if args.problems else course.assignments
    with tempfile.TemporaryDirectory(prefix="roofline-bench-") as tmp:
        base = Path(tmp)
        release, state = base / "release", base / "state"
        generate(course, release)
        template, _ = build_template(course, state)
        submissions = base / "submissions"
        make_students(course, release, submissions, args.students, assignments)
        log = base / "log.txt"

        plain = base / "plain"
        plain.mkdir()
        shutil.copytree(submissions, plain / "submitted")
        shutil.copyfile(template, plain / "gradebook.db")
        workspaces = {1: base / "jobs1", args.jobs: base / f"jobs{args.jobs}"}
        for ws in workspaces.values():
            shutil.copytree(state, ws / ".roofline" / "template")  # the same head start

        n = args.students * len(assignments)
        print(
            f"grading {args.students} students × {len(assignments)} problems = {n} notebooks "
            f"on {os.cpu_count()} cores",
            flush=True,
        )
        times = {"plain nbgrader autograde, serial": plain_nbgrader(plain, assignments, log)}
        for jobs, ws in workspaces.items():
            times[f"roofline-grade --jobs {jobs}"] = roofline_grade(submissions, ws, jobs, log)
        reference = next(iter(times.values()))
        for name, seconds in times.items():
            print(f"  {name:36s} {seconds:7.1f} s   {reference / seconds:5.2f}×")
        serial = reference / times["roofline-grade --jobs 1"]
        parallel = reference / times[f"roofline-grade --jobs {args.jobs}"]
        print(
            f"targets: --jobs 1 no slower than plain nbgrader: {'met' if serial >= 1 else 'NOT met'} "
            f"({serial:.2f}×); --jobs {args.jobs} at least {TARGET_PARALLEL}× plain nbgrader: "
            f"{'met' if parallel >= TARGET_PARALLEL else 'NOT met'} ({parallel:.2f}×)"
        )
        plain_scores = gradebook_scores(plain / "gradebook.db", assignments)
        same = all(
            gradebook_scores(ws / "gradebook.db", assignments) == plain_scores
            for ws in workspaces.values()
        )
        rows = list(csv.reader((workspaces[1] / "grades.csv").open()))
        print(
            f"all runs gave the same grades: {'yes' if same else 'NO'} ({len(rows) - 1} students)"
        )
        return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
