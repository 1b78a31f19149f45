"""`make bench`: every benchmark of the course, each printed as ratios measured side by side.

* grading: plain serial nbgrader vs roofline-grade --jobs 1 vs --jobs all cores (tools/bench_grading.py)
* a class of 300 synthetic students in one run: time, throughput, and whether report.html finds the
  mistakes planted (tools/bench_class.py)
* the Dask cluster against the process pool on one machine, and the capacity model for a class of
  10,000 students × 9 problems on 1, 10 and 100 machines (tools/bench_cluster.py)
* merging results into the gradebook: one commit a result vs batches of one transaction, and
  what the batched cost means for that class (tools/bench_merge.py)
* a roster of 10,000 with one notebook handed in against one of 1,000: the cost of an absent
  student (tools/bench_roster.py)
* measurement: achieved vs theoretical peak, careful vs naive timing (tools/bench_measure.py)
* page weight: the bytes of JS + CSS each page of the built book loads (tools/bench_page_weight.py)
"""

from __future__ import annotations

import importlib
import sys

BENCHMARKS = (
    "tools.bench_grading",
    "tools.bench_class",
    "tools.bench_cluster",
    "tools.bench_merge",
    "tools.bench_roster",
    "tools.bench_measure",
    "tools.bench_page_weight",
)


def main() -> int:
    status = 0
    for name in BENCHMARKS:
        print(f"\n=== {name} ===", flush=True)
        status |= importlib.import_module(name).main(sys.argv[1:])
    return status


if __name__ == "__main__":
    raise SystemExit(main())
