"""Benchmark: a class of synthetic students, graded in one run, and what its report.html found.

A class of N students (default 300) hands in every problem, made from the release as students
get it and from the catalogue of typical mistakes (tests/grading/mistakes.py, the edits that the
grading tests hold to their hints). A seeded draw gives each student a skill u ~ U(0, 1), and each
of their notebooks is, in turn:

* missing (2 %), blank as handed out (1.5 %), or broken, not JSON (0.5 %);
* else, with probability 0.05 + 0.45·u², the model answer with one mistake of the catalogue for
  that problem, the common ones (:data:`COMMON`) drawn more often;
* else the model answer.

So most students are mostly right, common mistakes are common and a few notebooks are blank or
broken. One mistake per notebook at most: its hint, part and students are then known exactly.

The class is graded with the real ``roofline-grade`` command (all cores), as an instructor runs
it. The benchmark prints the run's time and throughput and where report.html is, then reads the
page back (:func:`roofline_grader.outputs.classreport.read_html`) and, for every planted mistake, compares
the students it planted with those the page puts in that part's clusters that name the mistake's
hint: the same students, so the same share. Missing, blank and broken notebooks are checked the
same way. The exit status is 1 when anything planted was not found as planted.

``python -m tools.bench_class [--students 20] [--seed 1] [--jobs N] [--out DIR]``; ``make bench``
runs it with 300 students (about 10–15 minutes on two cores).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from roofline_grader.course import Course, command_env
from roofline_grader.course.release import generate
from roofline_grader.outputs.classreport import Kind, read_html, students_named
from tests.grading.grading_cases import release_notebook, solved
from tests.grading.mistakes import MISTAKES, Mistake

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / ".bench" / "class"

MISSING, BLANK, BROKEN = 0.02, 0.015, 0.005
"""Shares of notebooks missing, blank as released, and not JSON."""
ERR_BASE, ERR_SKILL = 0.05, 0.45
"""A notebook holds a mistake with probability ERR_BASE + ERR_SKILL·u², u the student's skill draw
(u ~ U(0, 1); mean 0.2)."""

COMMON = {
    "p1a-bf16": 5,
    "p1b-one-op": 4,
    "p1e-swapped": 3,
    "p2a-bf16-weights": 4,
    "p2a-rounded": 3,
    "p3a-no-peak": 3,
    "p3c-no-labels": 4,
    "p4a-shared-weights": 5,
    "p5a-sparse": 6,
    "p5a-tera": 3,
    "p5c-int8-weights": 3,
    "p6a-one-byte": 4,
    "p6c-no-ceil": 5,
    "p6d-reversed": 3,
}
"""Relative weights of the commonest mistakes within their problem (the others weigh 1)."""


@dataclass
class Plan:
    """What was handed in: per problem, the students who planted each thing."""

    mistakes: dict[str, set[str]] = field(default_factory=dict)
    missing: dict[str, set[str]] = field(default_factory=dict)
    blank: dict[str, set[str]] = field(default_factory=dict)
    broken: dict[str, set[str]] = field(default_factory=dict)
    notebooks: int = 0


def make_class(release: Path, out: Path, n: int, seed: int, problems: Sequence[str]) -> Plan:
    """n students in nbgrader's submitted layout under ``out``; returns who has what."""
    rng = random.Random(seed)
    by_problem: dict[str, list[Mistake]] = {}
    for m in MISTAKES:
        by_problem.setdefault(m.problem, []).append(m)
    plan = Plan()
    answers = {m.key: m.answers() for m in MISTAKES}
    for i in range(n):
        student = f"s{i + 1:03d}"
        skill = rng.random()
        (out / student).mkdir(parents=True, exist_ok=True)
        for problem in problems:
            folder = out / student / problem
            draw = rng.random()
            if draw < MISSING:
                plan.missing.setdefault(problem, set()).add(student)
                continue
            folder.mkdir()
            path = folder / f"{problem}.ipynb"
            plan.notebooks += 1
            if draw < MISSING + BLANK:
                plan.blank.setdefault(problem, set()).add(student)
                nbformat.write(release_notebook(release, problem), str(path))
            elif draw < MISSING + BLANK + BROKEN:
                plan.broken.setdefault(problem, set()).add(student)
                path.write_bytes(b'{"cells": [ this is not JSON')
            elif rng.random() < ERR_BASE + ERR_SKILL * skill**2:
                options = by_problem[problem]
                m = rng.choices(options, [COMMON.get(o.key, 1) for o in options])[0]
                plan.mistakes.setdefault(m.key, set()).add(student)
                nbformat.write(solved(release, problem, **answers[m.key]), str(path))
            else:
                nbformat.write(solved(release, problem), str(path))
    return plan


@dataclass(frozen=True)
class Check:
    """One planted thing against what report.html shows: the same students, or with ``within``,
    every planted student among those found (a blank notebook is one of the reasons for "no
    answer", among others). ``found`` leaves out the students of the planted mistakes in
    ``shared``, which the page shows under the same diagnosis."""

    what: str
    part: str
    planted: frozenset[str]
    found: frozenset[str]
    within: bool = False
    shared: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.planted <= self.found if self.within else self.planted == self.found


def check_report(page: str, plan: Plan, n: int, first_part: Mapping[str, str]) -> list[Check]:
    """Every planted mistake, missing, blank and broken notebook against report.html's clusters.

    A mistake is found in its part's clusters of wrong answers whose words hold its hint, and in the
    reasons of those that list students by reason (an error with a diagnosis, such as Python's max
    on arrays). Two mistakes whose hints the page cannot tell apart (the check tells both the same
    thing) are found together: the check says so (``shared``)."""
    shown = read_html(page)
    by_key = {m.key: m for m in MISTAKES}

    checks = []
    for key, students in sorted(plan.mistakes.items()):
        m = by_key[key]
        found = students_named(shown, m.part, m.hint)
        alike = [
            other
            for other in plan.mistakes
            if other != key and by_key[other].part == m.part and plan.mistakes[other] & found
        ]
        shared = set().union(*(plan.mistakes[o] for o in alike)) if alike else set()
        checks.append(
            Check(key, m.part, frozenset(students), frozenset(found - shared), shared=tuple(alike))
        )
    for what, kind, planted in (
        ("no notebook", Kind.MISSING, plan.missing),
        ("not JSON", Kind.UNREADABLE, plan.broken),
    ):
        for problem, students in sorted(planted.items()):
            part = first_part[problem]
            found = {
                s for c in shown if c.grade_id == part and c.kind == kind.name for s in c.students
            }
            checks.append(Check(what, part, frozenset(students), frozenset(found)))
    for problem, students in sorted(plan.blank.items()):
        part = first_part[problem]
        found = {
            s
            for c in shown
            if c.grade_id == part and c.kind == Kind.NO_ANSWER.name
            for s in c.students
        }
        checks.append(
            Check("blank (among no answer)", part, frozenset(students), frozenset(found), True)
        )
    return checks


def _share(count: int, n: int) -> str:
    return f"{count:4d} ({100 * count / n:4.1f}%)"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.bench_class", description=__doc__)
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="grading workspace (kept)")
    args, _unknown = parser.parse_known_args(list(argv or []))  # tools.bench passes one argv
    if args.students < 1:
        parser.error(f"--students must be a positive whole number, got {args.students}")
    course = Course(ROOT)
    problems = course.assignments
    first_part = {}
    from roofline_grader.checks import PROBLEMS

    for problem in problems:
        first_part[problem] = PROBLEMS[problem][0].grade_id
    workspace = args.out.resolve()
    if workspace.exists():
        shutil.rmtree(workspace)
    with tempfile.TemporaryDirectory(prefix="roofline-bench-class-") as tmp:
        release, submissions = Path(tmp) / "release", Path(tmp) / "submissions"
        generate(course, release)
        plan = make_class(release, submissions, args.students, args.seed, problems)
        print(
            f"grading a class of {args.students} students × {len(problems)} problems "
            f"({plan.notebooks} notebooks handed in) with roofline-grade --jobs {args.jobs}",
            flush=True,
        )
        cmd = [sys.executable, "-m", "roofline_grader.run.cli", str(submissions), "--out"]
        started = time.perf_counter()
        run = subprocess.run(
            [*cmd, str(workspace), "--jobs", str(args.jobs), "--quiet"],
            cwd=ROOT,
            env=command_env(ROOT),
            capture_output=True,
            text=True,
            check=False,
        )
        seconds = time.perf_counter() - started
    if run.returncode != 0:
        print(run.stdout[-3000:], run.stderr[-3000:], sep="\n")
        print(f"roofline-grade failed with exit status {run.returncode}")
        return 1
    report = workspace / "report.html"
    print(
        f"  {seconds:.0f} s in all, {plan.notebooks / seconds * 60:.0f} notebooks a minute "
        f"({seconds / plan.notebooks:.2f} s a notebook on {args.jobs} workers)"
    )
    print(f"  report: {report}")
    n = args.students
    checks = check_report(report.read_text(encoding="utf-8"), plan, n, first_part)
    print(f"planted against found in report.html (shares of all {n} students):")
    print(f"  {'planted':28s} {'part':24s} {'planted':>12s} {'found':>12s}  same students")
    for c in checks:
        mark = (
            "yes"
            if c.ok
            else f"NO (missed {len(c.planted - c.found)}, extra {len(c.found - c.planted)})"
        )
        if c.shared:
            mark += f", under one diagnosis with {', '.join(c.shared)}"
        print(
            f"  {c.what:28s} {c.part:24s} {_share(len(c.planted), n)} {_share(len(c.found), n)}  "
            f"{mark}"
        )
    ok = all(c.ok for c in checks)
    print(f"report.html found everything planted: {'yes' if ok else 'NO'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
