"""What was handed in: the submissions to grade, who they belong to, and what they changed.

* :mod:`~roofline_grader.intake.discover`: finds the submissions (nbgrader's layout, LMS zips and
  folders, a folder per student) and makes a ``Task`` of each student × problem, listing every file
  it could not place and why;
* :mod:`~roofline_grader.intake.lms`: what an LMS download's file and folder names say;
* :mod:`~roofline_grader.intake.roster`: who is in the course (a roster or an LMS export);
* :mod:`~roofline_grader.intake.integrity`: what a submission changed in the cells it was given;
* :mod:`~roofline_grader.intake.repair`: cells a notebook's JSON damaged.

Below: :mod:`roofline_grader.course`, :mod:`roofline_grader.results`.
"""
