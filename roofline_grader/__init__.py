"""roofline_grader: the instructor's autograder for the course's problems (roofline_grader.checks).

nbgrader does the grading; this package orchestrates it (parallelism, sandboxing, reports).

The hidden tests

* :mod:`~roofline_grader.checks` — each autograded part: the inputs to try (a seeded plan) and the
  verdict on the answers, against roofline_lib's reference computations;
* :mod:`~roofline_grader.hidden` — the kernel side: evaluate the student's names on the plan and
  send back plain data (numbers, booleans, a figure's lines);
* :mod:`~roofline_grader.execute` — ``SealedExecute``, nbgrader's executor with the verdicts
  computed outside the student's kernel, per-cell timeouts, recovery from a dead or stuck kernel,
  capped output;
* :mod:`~roofline_grader.nbclient_adapter` — the few private calls into nbclient and nbconvert
  the executor needs, in one place, pinned to their versions;
* :mod:`~roofline_grader.sandbox`, :mod:`~roofline_grader.cgroups` and
  :mod:`~roofline_grader.warm` — each kernel's bubblewrap sandbox, its limits as a whole (cgroups
  where the host delegates them), and a kernel booted one notebook ahead;
* :mod:`~roofline_grader.repair` and :mod:`~roofline_grader.integrity` — duplicated, edited and
  deleted cells;
* :mod:`~roofline_grader.config` — the nbgrader settings shared with nbgrader_config.py.

The course

* :mod:`~roofline_grader.course`, :mod:`~roofline_grader.release` (``make release``) and
  :mod:`~roofline_grader.lab` (``make lab``'s exchange);
* :mod:`~roofline_grader.checks.catalog` — the Chinese of every message a check or a feedback page
  can show (``locales/zh_CN/LC_MESSAGES/checks.po``), its drift report, and the compiled catalog
  that ships with roofline_lib.

A grading run (``roofline-grade``, :mod:`~roofline_grader.cli`), in three stages
(:mod:`~roofline_grader.runner`: ``plan_run``, ``_execute``, ``_write_outputs``)

* plan: :mod:`~roofline_grader.intake` finds the submissions, with :mod:`~roofline_grader.lms`
  (what an LMS download's file names say) and :mod:`~roofline_grader.roster` (who is in the
  course); :mod:`~roofline_grader.journal` makes reruns resume; :mod:`~roofline_grader.schedule`
  orders the work, the longest expected first;
* execute: an :mod:`~roofline_grader.engine` grades (one seam, one way of isolating a culprit):
  :mod:`~roofline_grader.pool` on this machine, :mod:`~roofline_grader.cluster` on a Dask
  cluster; :mod:`~roofline_grader.worker` grades one submission in its own scratch course, and
  :mod:`~roofline_grader.results` is what it found, typed; :mod:`~roofline_grader.gradebook`
  merges each result into the master gradebook as it arrives; :mod:`~roofline_grader.progress`
  shows it;
* write: :mod:`~roofline_grader.report` (report.txt, report.json),
  :mod:`~roofline_grader.classreport` (report.html, what the class got wrong),
  :mod:`~roofline_grader.feedback` (a page per student), :mod:`~roofline_grader.exchange` (the
  pages to nbgrader's exchange and a zip per student), :mod:`~roofline_grader.exports` (Canvas
  and Moodle import files).

Grading by hand: :mod:`~roofline_grader.rubric` (each written part's points, model answer and
rubric), :mod:`~roofline_grader.formgrader` (``make formgrader``) and
:mod:`~roofline_grader.manual` (the spreadsheet route).

Student-facing code (roofline_lib) never imports this package.
"""

from __future__ import annotations

__version__ = "0.1.0"
