"""The kernel side of a hidden test: ``check(grade_id, globals())``.

A grade cell's hidden region (restored from the gradebook at grading time) calls this in the
student's kernel. It evaluates the student's names on the inputs of the part's plan and reduces every
answer to plain data (:func:`roofline_lib.selfcheck.answers.collect`, the same reading the visible
checks use). What happens next depends on who runs the notebook:

* **Sealed** (``ROOFLINE_CHECK_PLAN`` names the plan file the grader wrote): the answers are sent
  back as one display output of type :data:`RECORD_MIME` and nothing is judged here. Before each
  probe a :data:`PROBE_MIME` marker names it, so that a kernel death is pinned on the function
  being called; a probe the grader marks :data:`SKIP` is not called. The grader
  (:class:`roofline_grader.kernel.execute.SealedExecute`) judges them in its own process, against
  references it computed before any student code ran, so nothing the kernel does can pass a check
  except answers that are right on shapes chosen for this student.
* **Local** (``nbgrader validate`` on a source notebook, or any kernel without a plan): a plan is
  drawn at random, judged in this kernel, and a failure raises AssertionError listing the hints.
  This mode is a convenience for authors and is not tamper-proof.

This module imports only the standard library and ``roofline_lib.selfcheck.answers`` at import
time (which ``roofline_lib`` brings numpy with).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from typing import Any

from roofline_lib.selfcheck.answers import PLAN_ENV, collect

RECORD_MIME = "text/x-roofline-answers"
"""MIME type of the display output that carries a hidden test's answers back to the grader."""
PROBE_MIME = "text/x-roofline-probe"
"""MIME type of the marker sent before each probe is evaluated: if the kernel dies, the last marker
the grader received names the function that crashed it (a student's code can forge one, and can
only lose by it: the grader then skips that function's follow-through probes)."""
SKIP = "skip"
"""A probe's key whose text says why it is not evaluated (it crashed the kernel before); its
answer is that reason, as an error."""

__all__ = ["PLAN_ENV", "PROBE_MIME", "RECORD_MIME", "SKIP", "check", "collect"]


def check(grade_id: str, namespace: Mapping[str, Any]) -> None:
    """Run the hidden test of part ``grade_id`` against the student's ``namespace``."""
    plan_path = os.environ.get(PLAN_ENV)
    if plan_path:
        _sealed(grade_id, namespace, plan_path)
    else:
        _local(grade_id, namespace)


def _sealed(grade_id: str, namespace: Mapping[str, Any], plan_path: str) -> None:
    with open(plan_path, encoding="utf-8") as fh:
        plans = json.load(fh)
    if grade_id not in plans:
        raise RuntimeError(f"the grader sent no plan for {grade_id}")
    from IPython.display import display

    answers: dict[str, Any] = {}
    for probe in plans[grade_id]:
        if probe.get(SKIP):
            answers[str(probe["key"])] = [{"e": str(probe[SKIP])}]
            continue
        marker = {"grade_id": grade_id, "name": probe["name"], "key": probe["key"]}
        display({PROBE_MIME: json.dumps(marker)}, raw=True)
        sys.stdout.flush()  # ipykernel: waits until the marker has gone out on iopub
        answers.update(collect(namespace, [probe]))
        display({PROBE_MIME: json.dumps({**marker, "done": True})}, raw=True)
    record = {"grade_id": grade_id, "answers": answers}
    display({RECORD_MIME: json.dumps(record)}, raw=True)


def _local(grade_id: str, namespace: Mapping[str, Any]) -> None:
    from roofline_grader.checks import get_part, make_plan

    part = get_part(grade_id)
    if part.check is None:
        raise ValueError(f"{grade_id} is graded by hand; it has no hidden test")
    plan = make_plan(part.check, f"local:{os.urandom(8).hex()}")
    answers = json.loads(json.dumps(collect(namespace, [p.to_json() for p in plan.values()])))
    failed = [f for f in part.check.verify(plan, answers) if not f.passed]
    if failed:
        raise AssertionError("\n".join(f"{f.label}: {f.hint}" for f in failed))
