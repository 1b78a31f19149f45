"""Benchmark: a large roster with one notebook handed in, the cost of each absent student.

An LMS run with a roster makes every roster student a task of each problem placed; a student who
handed nothing in is recorded by the run itself (no grading job, no gradebook submission), and the
outputs read the gradebook once. Side by side in one run, on the same one-notebook Canvas download,
with a roster of ``--small`` and of ``--large`` students (every run on the engine of
tests/grading/fake_engine.py, which grades without a kernel, so what is timed is the run's own
bookkeeping: intake, journal, gradebook, grades.csv, feedback pages and zips, LMS files, reports):
seconds of each run, milliseconds an absent student, and the ratio of the two runs' times against
the ratio of their sizes (near 1: linear; a cost per student that grows with the class shows above
it). Target: 10,000 students under 30 s (issue 27: it took over 25 minutes when each absent student
was a grading job and every output queried the gradebook again).
``python -m tools.bench_roster [--small 1000 --large 10000]``; ``make bench`` runs it.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
import warnings
from collections.abc import Sequence
from pathlib import Path

from roofline_grader.course import Course
from roofline_grader.run.runner import Options, grade_submissions
from tests.grading.fake_engine import FakeEngine


def one_run(course: Course, folder: Path, students: int) -> float:
    """Seconds of a run of a one-notebook download with a roster of ``students``."""
    roster = folder / "roster.csv"
    rows = "".join(f"Student {i:05d},{100000 + i},s{i:05d}\n" for i in range(students))
    roster.write_text("Name,ID,SIS User ID\n" + rows)
    download = folder / "download"
    download.mkdir()
    shutil.copyfile(
        course.exercises / "problem1" / "problem1.ipynb",
        download / "student00001_100001_555_problem1.ipynb",
    )
    engine = FakeEngine()
    options = Options(download, folder / "ws", progress=False, roster=roster)
    started = time.perf_counter()
    grade_submissions(course, options, engine)
    seconds = time.perf_counter() - started
    assert engine.graded == [("s00001", "problem1")], engine.graded
    return seconds


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.bench_roster", description=__doc__)
    parser.add_argument("--small", type=int, default=1_000)
    parser.add_argument("--large", type=int, default=10_000)
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", ".*not in session")  # nbgrader on SQLAlchemy 2
    course = Course.find()
    times = {}
    for students in (args.small, args.large):
        with tempfile.TemporaryDirectory(prefix="roofline-bench-roster-") as folder:
            times[students] = one_run(course, Path(folder), students)
        print(
            f"roster of {students:>6,}, one notebook: {times[students]:6.1f} s, "
            f"{times[students] / students * 1000:5.2f} ms an absent student",
            flush=True,
        )
    grown = times[args.large] / times[args.small]
    size = args.large / args.small
    print(f"{size:.0f}× the students took {grown:.1f}× the time (linear: {size:.0f}×)")
    verdict = "under" if times[args.large] < 30 or args.large != 10_000 else "OVER"
    print(f"target: a roster of 10,000 in under 30 s: {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
