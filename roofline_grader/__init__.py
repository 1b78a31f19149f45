"""roofline_grader: the instructor's autograder for the course's problems (roofline_grader.checks).

nbgrader does the grading; this package orchestrates it (parallelism, sandboxing, reports). Its
rooms, lowest floor first: a room imports only the rooms below it (tests/test_layers.py), and each
subpackage's docstring lists its modules.

* :mod:`~roofline_grader.checks`: the hidden tests, each autograded part's inputs to try (a seeded
  plan) and its verdict on the answers, against roofline_lib's reference computations; its
  ``catalog`` is the Chinese of every message a check or a feedback page can show;
* :mod:`~roofline_grader.hidden`: the kernel side of the hidden tests, copied into each kernel
  (evaluate the student's names on the plan, send back plain data);
  :mod:`~roofline_grader.results`: what grading one submission found, typed;
  :mod:`~roofline_grader.names`: what a student id or an LMS name becomes in a file name, a text
  report, a page and a spreadsheet (ids are data everywhere);
* :mod:`~roofline_grader.course`: the course's folders and settings, ``make release``, the
  rubric of the written parts, ``make lab``'s exchange;
* :mod:`~roofline_grader.kernel`: sealed execution, a notebook run in a bubblewrap sandbox with
  the verdicts computed outside it;
* :mod:`~roofline_grader.intake`: what was handed in, who it belongs to, and what it changed
  (nbgrader's layout, LMS downloads, rosters, edited cells);
* :mod:`~roofline_grader.outputs`: the gradebook and what is read from it (grades, reports, the
  class report, feedback pages, the exchange, Canvas and Moodle files);
* :mod:`~roofline_grader.handgrading`: formgrader and the spreadsheet route for written parts;
* :mod:`~roofline_grader.run`: ``roofline-grade`` (plan, execute on an engine, write).

Student-facing code (roofline_lib) never imports this package.
"""

from __future__ import annotations

__version__ = "0.1.0"
