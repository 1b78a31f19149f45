"""Benchmark: roofline-grade on a Dask cluster against the process pool, and what a MOOC would take.

Side by side in one run, on the same class (``tools.bench_class.make_class``: 100 synthetic
students by default, each handing in every problem: the model answers with the catalogue's
mistakes, a few notebooks blank, missing or broken), each graded from scratch into a fresh
workspace:

* ``roofline-grade --jobs N`` (this machine's process pool, N = its cores), and
* ``roofline-grade --cluster local:N`` (a Dask LocalCluster of N worker processes).

It prints both wall times and their ratio (the target: the cluster within 15 % of the pool on one
machine), the grades' agreement, and the measured costs that a larger cluster scales:

* c, worker-seconds a submission: the pool's wall time × N / submissions (student × problem);
* t_start, the cluster's start-up: connecting a LocalCluster of N workers and closing it, alone;
* m, the client's serial time a submission (report.json's ``cluster.merge_s``): storing each
  result's notebooks, merging results into the gradebook in batches (one transaction each) and
  journaling them, however many workers grade.

Capacity model, for n = 10,000 students × 9 problems on W worker machines of this machine's size
(N worker processes each)::

    T(W) ≈ t_start + max(n·c / (W·N), n·m)

the larger of the workers' share of the grading and the client's merging, printed for W = 1, 10
and 100. ``python -m tools.bench_cluster [--students 100] [--problems problem1 ...] [--jobs N]``;
``make bench`` runs it (about 10 minutes on two cores).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from roofline_grader.course import Course, command_env
from roofline_grader.course.release import generate
from tools.bench_class import make_class

ROOT = Path(__file__).resolve().parent.parent
MOOC_STUDENTS, MOOC_PROBLEMS = 10_000, 9
TARGET_RATIO = 1.15


def grade(submissions: Path, workspace: Path, *options: str) -> tuple[float, dict]:
    """One roofline-grade run from scratch: (wall seconds, report.json)."""
    started = time.perf_counter()
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "roofline_grader.run.cli",
            str(submissions),
            "--out",
            str(workspace),
            "--quiet",
            *options,
        ],
        cwd=ROOT,
        env=command_env(ROOT),
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    if run.returncode != 0:
        raise SystemExit(f"roofline-grade {' '.join(options)} failed:\n{run.stderr[-3000:]}")
    return seconds, json.loads((workspace / "report.json").read_text())


def startup_s(jobs: int) -> float:
    """Seconds to start a LocalCluster of ``jobs`` workers, connect, and close it."""
    from roofline_grader.run.cluster import connect, parse_cluster

    started = time.perf_counter()
    connect(parse_cluster(f"local:{jobs}"), jobs).close()
    return time.perf_counter() - started


def capacity_s(workers: int, jobs: int, per_notebook_s: float, merge_s: float, start_s: float):
    """T(W) = t_start + max(n·c/(W·N), n·m) for the MOOC's n notebooks."""
    n = MOOC_STUDENTS * MOOC_PROBLEMS
    return start_s + max(n * per_notebook_s / (workers * jobs), n * merge_s)


def _duration(seconds: float) -> str:
    hours, rest = divmod(round(seconds), 3600)
    return f"{hours} h {rest // 60:02d} min" if hours else f"{rest // 60} min {rest % 60:02d} s"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.bench_cluster", description=__doc__)
    parser.add_argument("--students", type=int, default=100)
    parser.add_argument("--problems", nargs="+", help="default: every problem of the course")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args, _unknown = parser.parse_known_args(list(argv or []))  # tools.bench passes one argv
    course = Course(ROOT)
    args.problems = args.problems or list(course.assignments)
    unknown = sorted(set(args.problems) - set(course.assignments))
    if args.students < 1 or unknown:
        parser.error(f"--students must be >= 1 and --problems among {course.assignments}")
    with tempfile.TemporaryDirectory(prefix="roofline-bench-cluster-") as tmp:
        release, submissions = Path(tmp) / "release", Path(tmp) / "submissions"
        generate(course, release)
        plan = make_class(release, submissions, args.students, args.seed, args.problems)
        print(
            f"{args.students} students × {len(args.problems)} problems ({plan.notebooks} notebooks "
            f"handed in), graded from scratch by --jobs {args.jobs} and by --cluster "
            f"local:{args.jobs}",
            flush=True,
        )
        pool_s, pool_report = grade(submissions, Path(tmp) / "pool", "--jobs", str(args.jobs))
        n = pool_report["graded_now"]  # every student × problem, missing ones included
        cluster_s, report = grade(
            submissions, Path(tmp) / "cluster", "--cluster", f"local:{args.jobs}"
        )
        same = (Path(tmp) / "pool" / "grades.csv").read_bytes() == (
            Path(tmp) / "cluster" / "grades.csv"
        ).read_bytes()
        start_s = startup_s(args.jobs)
    ratio = cluster_s / pool_s
    c = pool_s * args.jobs / n
    m = report["cluster"]["merge_s"] / n
    print(
        f"  process pool, --jobs {args.jobs}:        {pool_s:6.1f} s ({n / pool_s * 60:.0f} a minute)"
    )
    print(
        f"  Dask LocalCluster, local:{args.jobs}:    {cluster_s:6.1f} s ({n / cluster_s * 60:.0f} a minute)"
    )
    print(
        f"  cluster / pool: {ratio:.3f} (target <= {TARGET_RATIO}: "
        f"{'met' if ratio <= TARGET_RATIO else 'NOT met'}); grades.csv identical: "
        f"{'yes' if same else 'NO'}"
    )
    for address, worker in report["cluster"]["workers"].items():
        print(f"    {address}: {worker['notebooks']} notebooks, {worker['seconds']:.0f} s grading")
    print(f"  c, worker-seconds a submission:      {c:.3f} s")
    print(f"  t_start, a LocalCluster's start-up:  {start_s:.1f} s")
    print(f"  m, the client's merge a submission:  {m * 1000:.1f} ms (serial, batched)")
    total = MOOC_STUDENTS * MOOC_PROBLEMS
    print(
        f"capacity model, {MOOC_STUDENTS:,} students × {MOOC_PROBLEMS} problems = {total:,} "
        f"notebooks, on W machines like this one ({args.jobs} worker processes each):"
    )
    for workers in (1, 10, 100):
        seconds = capacity_s(workers, args.jobs, c, m, start_s)
        limit = (
            "the client's merging"
            if total * m >= total * c / (workers * args.jobs)
            else ("the workers")
        )
        print(f"  W = {workers:3d}: {_duration(seconds):>12s}  (limited by {limit})")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
