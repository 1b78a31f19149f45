"""``make lab``: publish the release in a local nbgrader exchange for JupyterLab's Assignments tab.

nbgrader's Assignments tab lists the assignments an instructor has released to an exchange
(``$ROOFLINE_EXCHANGE``, else ``<workspace>/exchange``; see nbgrader_config.py). This copies each
``exercises/<problem>`` there with nbgrader's own release code, so that JupyterLab opened on
exercises/ lists the problems as downloaded, each with Validate and Submit. A submission lands
in the exchange's inbound folder, from which ``nbgrader collect <problem>`` moves it to the
workspace's ``submitted/``, ready for ``roofline-grade``; ``roofline-grade --release-feedback`` puts
the feedback back, for the Assignments tab's Fetch Feedback. Run ``python -m roofline_grader.course.lab``;
it is idempotent.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence

from nbgrader.auth import Authenticator
from nbgrader.coursedir import CourseDirectory
from nbgrader.exchange.default import ExchangeReleaseAssignment
from traitlets.config import Config

from roofline_grader.course import Course
from roofline_grader.course.config import COURSE_ID

LOG = logging.getLogger("roofline_grader.course.lab")


def publish(course: Course) -> list[str]:
    """Release every assignment of exercises/ into the course's exchange; returns their ids."""
    for assignment in course.assignments:
        c = Config()
        c.CourseDirectory.root = str(course.root)
        c.CourseDirectory.release_directory = "exercises"
        c.CourseDirectory.course_id = COURSE_ID
        c.CourseDirectory.assignment_id = assignment
        c.Exchange.root = str(course.exchange)
        c.ExchangeReleaseAssignment.force = True
        coursedir = CourseDirectory(config=c)
        ExchangeReleaseAssignment(
            coursedir=coursedir, authenticator=Authenticator(config=c), config=c, log=LOG
        ).start()
    return list(course.assignments)


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(level=logging.ERROR, format="%(message)s")
    course = Course.find()
    released = publish(course)
    print(f"released {', '.join(released)} to {course.exchange} (course {COURSE_ID!r})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
