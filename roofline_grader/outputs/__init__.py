"""What a run writes: the gradebook and everything read from it.

* :mod:`~roofline_grader.outputs.gradebook`: nbgrader's gradebook (the template, a worker's scratch
  copy, the workspace's master) and the merge of results into it;
* :mod:`~roofline_grader.outputs.tally`: a run's counts, one definition for the bar and the report;
* :mod:`~roofline_grader.outputs.standing`: where each student stands on each problem (graded,
  missing, awaiting a hand grade, not graded yet), the one rule every total and export counts by;
* :mod:`~roofline_grader.outputs.report`: grades.csv, report.txt and report.json;
* :mod:`~roofline_grader.outputs.classreport`: report.html, what the class got wrong;
* :mod:`~roofline_grader.outputs.feedback`: a page per student;
* :mod:`~roofline_grader.outputs.catalog`: the Chinese of all a student is shown, checked in one
  command (the checks' hints and the pages' own words);
* :mod:`~roofline_grader.outputs.exchange`: the pages to nbgrader's exchange, and a zip each;
* :mod:`~roofline_grader.outputs.exports`: Canvas and Moodle import files.

Below: :mod:`roofline_grader.intake`, :mod:`roofline_grader.course`, :mod:`roofline_grader.results`.
"""
