"""Sealed execution: each student's notebook runs in a kernel of its own that can reach nothing else.

* :mod:`~roofline_grader.kernel.execute`: ``SealedExecute``, nbgrader's executor with the verdicts
  computed outside the student's kernel, per-cell timeouts, recovery from a dead or stuck kernel,
  capped output;
* :mod:`~roofline_grader.kernel.nbclient_adapter`: the few private calls into nbclient and
  nbconvert the executor needs, in one place, pinned to their versions;
* :mod:`~roofline_grader.kernel.sandbox`: each kernel's bubblewrap sandbox;
* :mod:`~roofline_grader.kernel.cgroups`: its limits as a whole (where the host delegates cgroups);
* :mod:`~roofline_grader.kernel.warm`: a kernel booted one notebook ahead.

Below: :mod:`roofline_grader.checks`, :mod:`roofline_grader.hidden`, :mod:`roofline_grader.results`.
"""
