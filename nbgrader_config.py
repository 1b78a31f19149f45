"""nbgrader configuration of the Roofline course (read by every nbgrader command run from here).

* ``solutions/`` is nbgrader's source directory and ``exercises/`` its release directory
  (``make release`` regenerates it).
* The gradebook and nbgrader's ``submitted/``, ``autograded/`` and ``feedback/`` folders live in a
  grading workspace outside version control: ``grading/`` (git-ignored), or the directory named by
  the environment variable ``ROOFLINE_GRADING_DIR``.
* nbgrader's exchange (where ``release_assignment`` puts assignments, ``submit`` puts submissions
  and ``roofline-grade --release-feedback`` puts feedback) is the folder named by the environment
  variable ``ROOFLINE_EXCHANGE``: for a class, the shared folder that every student's nbgrader
  configuration names too (README, "A shared exchange and JupyterHub"). Unset, it is
  ``<workspace>/exchange``, on this machine only (``make lab``). This file is read after any
  system-wide ``/etc/jupyter/nbgrader_config.py``, so it decides: set the variable, not only the
  system-wide ``c.Exchange.root``.
* Autograding uses the same pipeline as ``roofline-grade``: nbgrader's preprocessors with the
  sealed executor (hidden tests judged outside the student's kernel, timeouts, restart after a
  kernel death), duplicated grade ids made harmless and deleted test cells restored from the
  gradebook; see roofline_grader.course.config.
"""

import os
from pathlib import Path

from roofline_grader.course import Course
from roofline_grader.course.config import COURSE_ID, grading_config

c = get_config()  # noqa: F821 (provided by nbgrader when it loads this file)

COURSE = Course(Path(__file__).resolve().parent)
WORKSPACE = COURSE.default_workspace
WORKSPACE.mkdir(parents=True, exist_ok=True)

c.CourseDirectory.root = str(COURSE.root)
c.CourseDirectory.course_id = COURSE_ID
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "exercises"
c.CourseDirectory.submitted_directory = os.path.relpath(WORKSPACE / "submitted", COURSE.root)
c.CourseDirectory.autograded_directory = os.path.relpath(WORKSPACE / "autograded", COURSE.root)
c.CourseDirectory.feedback_directory = os.path.relpath(WORKSPACE / "feedback", COURSE.root)
c.CourseDirectory.db_url = f"sqlite:///{WORKSPACE / 'gradebook.db'}"
c.Exchange.root = str(COURSE.exchange)

c.merge(grading_config(hidden_paths=[WORKSPACE]))
