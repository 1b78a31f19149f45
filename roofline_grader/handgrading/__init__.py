"""Grading the written parts by hand (the points, model answer and rubric of each are
:mod:`roofline_grader.course.rubric`).

* :mod:`~roofline_grader.handgrading.formgrader`: nbgrader's formgrader on the workspace's
  gradebook (``make formgrader``);
* :mod:`~roofline_grader.handgrading.manual`: the spreadsheet route (``--manual-sheet``, then
  ``--manual-scores``).

Below: :mod:`roofline_grader.outputs` and everything under it.
"""
