"""Benchmark: merging results into the master gradebook, one commit a result against batches.

Side by side in one run, on the same synthetic results (every problem of the course for
``--students`` students, as a worker returns them: every automatic part scored, the written part
awaiting a hand grade), each way into a fresh copy of the template gradebook:

* one at a time: :func:`~roofline_grader.outputs.gradebook.merge` and its commit for each result (how a
  run merged before batching);
* batched: :func:`~roofline_grader.outputs.gradebook.merge_all` on batches of ``runner.MERGE_BATCH``
  results, one transaction each (how a run merges now).

It prints the milliseconds a submission for each and their ratio, and what the batched cost
means for the capacity model of tools/bench_cluster.py: the client merges n = 10,000 students ×
9 problems serially, so n·m bounds a run however many machines grade (target: m ≤ 5 ms, so
that merging takes under 7.5 minutes and 100 machines finish within 15).
``python -m tools.bench_merge [--students 100]``; ``make bench`` runs it.
"""

from __future__ import annotations

import argparse
import tempfile
import time
import warnings
from collections.abc import Sequence
from pathlib import Path

from roofline_grader.course import Course
from roofline_grader.course.cells import ReleaseIndex
from roofline_grader.intake.discover import Task
from roofline_grader.outputs.gradebook import (
    build_template,
    merge,
    merge_all,
    open_master,
)
from roofline_grader.results import SubmissionResult
from roofline_grader.run.runner import MERGE_BATCH
from roofline_grader.run.worker import Settings
from tests.grading.fake_engine import fake_result
from tools.bench_cluster import MOOC_PROBLEMS, MOOC_STUDENTS

ROOT = Path(__file__).resolve().parents[1]
TARGET_MS = 5.0


def synthetic_results(course: Course, template: Path, students: int) -> list[SubmissionResult]:
    """Every problem for ``students`` students, each at a different fraction of the points."""
    _, release = build_template(course, template)
    index = ReleaseIndex.read(release, course.assignments)
    settings = Settings("", "", index, 1, 1, "off", ())
    results = []
    for s in range(students):
        for assignment in course.assignments:
            key = f"s{s:05d}-{assignment}"
            task = Task(key, f"s{s:05d}", assignment, f"/nowhere/{key}.ipynb", key)
            results.append(fake_result(task, settings, fraction=(s % 5) / 4))
    return results


def per_submission_ms(course: Course, template: Path, results: list[SubmissionResult]) -> tuple:
    """(one at a time, batched): milliseconds a submission, each into a fresh gradebook."""
    db, _ = build_template(course, template)
    timings = []
    for batched in (False, True):
        with tempfile.TemporaryDirectory(prefix="roofline-bench-merge-") as tmp:
            gb = open_master(course, Path(tmp) / "gradebook.db", db)
            started = time.perf_counter()
            if batched:
                for start in range(0, len(results), MERGE_BATCH):
                    merge_all(gb, results[start : start + MERGE_BATCH])
            else:
                for result in results:
                    merge(gb, result)
            timings.append((time.perf_counter() - started) / len(results) * 1000)
            gb.close()
    return tuple(timings)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.bench_merge", description=__doc__)
    parser.add_argument("--students", type=int, default=100)
    args, _unknown = parser.parse_known_args(list(argv or []))  # tools.bench passes one argv
    if args.students < 1:
        parser.error("--students must be >= 1")
    warnings.filterwarnings("ignore", message=".*not in session.*")  # nbgrader on SQLAlchemy 2
    course = Course(ROOT)
    with tempfile.TemporaryDirectory(prefix="roofline-bench-template-") as tmp:
        template = Path(tmp) / "template"
        results = synthetic_results(course, template, args.students)
        single_ms, batched_ms = per_submission_ms(course, template, results)
    print(
        f"{len(results)} results ({args.students} students × {len(course.assignments)} "
        f"problems) merged into a fresh gradebook:"
    )
    print(f"  one at a time (a commit each):        {single_ms:6.2f} ms a submission")
    print(f"  batched ({MERGE_BATCH} a transaction):         {batched_ms:6.2f} ms a submission")
    print(f"  batched / one at a time: {batched_ms / single_ms:.3f}")
    n = MOOC_STUDENTS * MOOC_PROBLEMS
    met = "met" if batched_ms <= TARGET_MS else "NOT met"
    print(
        f"  merging {n:,} submissions: {n * batched_ms / 60_000:.1f} min batched, "
        f"{n * single_ms / 60_000:.1f} min one at a time (target m <= {TARGET_MS:g} ms: {met})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
