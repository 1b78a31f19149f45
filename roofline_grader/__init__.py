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

A grading run (``roofline-grade``, :mod:`~roofline_grader.cli`)

* :mod:`~roofline_grader.intake` finds the submissions; :mod:`~roofline_grader.runner` drives the
  run; :mod:`~roofline_grader.schedule` orders it, the longest expected work first;
  :mod:`~roofline_grader.pool` and :mod:`~roofline_grader.worker` grade each submission in its
  own scratch course, and :mod:`~roofline_grader.results` is what each one found, typed;
  :mod:`~roofline_grader.gradebook` merges results into the master gradebook;
  :mod:`~roofline_grader.journal` makes reruns resume; :mod:`~roofline_grader.progress`,
  :mod:`~roofline_grader.report` and :mod:`~roofline_grader.feedback` write what people read.

Student-facing code (roofline_lib) never imports this package.
"""

from __future__ import annotations

__version__ = "0.1.0"
