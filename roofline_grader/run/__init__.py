"""A grading run (``roofline-grade``): the top floor, which uses every other.

* :mod:`~roofline_grader.run.cli`: the command's options, parsed once into typed values;
* :mod:`~roofline_grader.run.runner`: the run in three stages, ``plan_run`` (intake, roster,
  journal, order), ``_execute`` (the engine, results merged in batches) and ``_write_outputs``;
* :mod:`~roofline_grader.run.engine`: the seam every engine fits, and the one way of isolating a
  submission that kills its worker; :mod:`~roofline_grader.run.pool` on this machine,
  :mod:`~roofline_grader.run.cluster` on a Dask cluster;
* :mod:`~roofline_grader.run.worker`: grades one submission in a scratch course of its own;
* :mod:`~roofline_grader.run.journal`: results kept as they come, so a rerun resumes;
* :mod:`~roofline_grader.run.schedule`: the longest expected first;
* :mod:`~roofline_grader.run.progress`: the progress bar.
"""
