"""One grading run, from a folder or zip of submissions to grades, feedback and a problem report.

1. Intake: find every student × assignment (:mod:`~roofline_grader.intake`).
2. Template: record the assignments in a template gradebook, once per version of solutions/.
3. Resume: skip submissions the journal says are already graded with this grader and this input.
4. Grade the rest in parallel worker processes, each in its own scratch course
   (:mod:`~roofline_grader.pool`, :mod:`~roofline_grader.worker`).
5. Merge each result as it arrives, serially, into the workspace: the master gradebook, nbgrader's
   ``submitted/`` and ``autograded/`` folders, and the journal.
6. Write ``grades.csv``, one feedback page per student and the report of problems.

The workspace is ordinary nbgrader territory: after the run, an instructor can open the formgrader
on it to grade the written answers by hand, and rerunning ``roofline-grade`` on the same input only
rewrites the grades, feedback and report, now with the manual scores.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .config import DEFAULT_CELL_TIMEOUT_S, DEFAULT_NOTEBOOK_TIMEOUT_S
from .course import Course
from .feedback import write_feedback
from .gradebook import build_template, merge, open_master, release_index, solutions_fingerprint
from .intake import discover
from .journal import Journal, grader_key
from .pool import run
from .progress import Progress
from .report import Report, grade_table, write_csv
from .sandbox import KernelHome, scratch_root, sweep_stale_scratch
from .worker import Settings, Task


@dataclass(frozen=True)
class Options:
    """What the instructor asked for (see ``roofline-grade --help``)."""

    submissions: Path
    out: Path
    jobs: int = os.cpu_count() or 1
    cell_timeout_s: int = DEFAULT_CELL_TIMEOUT_S
    notebook_timeout_s: int = DEFAULT_NOTEBOOK_TIMEOUT_S
    sandbox: str = "on"
    force: bool = False
    progress: bool = True


@dataclass(frozen=True)
class Workspace:
    """The grading workspace: nbgrader's folders and gradebook, and the outputs of a run."""

    root: Path

    @property
    def gradebook(self) -> Path:
        return self.root / "gradebook.db"

    @property
    def submitted(self) -> Path:
        return self.root / "submitted"

    @property
    def autograded(self) -> Path:
        return self.root / "autograded"

    @property
    def feedback(self) -> Path:
        return self.root / "feedback"

    @property
    def grades_csv(self) -> Path:
        return self.root / "grades.csv"

    @property
    def report_txt(self) -> Path:
        return self.root / "report.txt"

    @property
    def state(self) -> Path:
        return self.root / ".roofline"


def _course_files(course: Course) -> list[Path]:
    import roofline_grader
    import roofline_lib

    return [
        Path(roofline_lib.__file__).resolve().parent,
        Path(roofline_grader.__file__).resolve().parent,
        course.solutions,
    ]


def grade_submissions(course: Course, options: Options) -> Report:
    """Run the whole pipeline; returns the report (already printed to the workspace)."""
    started = time.monotonic()
    ws = Workspace(options.out.resolve())
    ws.state.mkdir(parents=True, exist_ok=True)
    template_db, release = build_template(course, ws.state / "template")
    index = release_index(release, course.assignments)
    intake = discover(options.submissions.resolve(), course.assignments, ws.state / "input")
    settings_words = [
        f"cell_timeout={options.cell_timeout_s}",
        f"notebook_timeout={options.notebook_timeout_s}",
        f"sandbox={options.sandbox}",
        solutions_fingerprint(course),
    ]
    key = grader_key(settings_words, _course_files(course)[:2])
    journal = Journal(ws.state / "results", key)
    fresh_master = not ws.gradebook.exists()
    done: dict[str, dict[str, Any]] = {}
    pending: list[Task] = []
    for task in intake.tasks:
        record = None if options.force else journal.get(task)
        if record is None:
            pending.append(task)
        else:
            done[task.key] = record
    pending.sort(key=lambda t: (t.assignment != "problem3", t.assignment, t.student))

    sweep_stale_scratch()  # what a run killed with SIGKILL left behind
    home = KernelHome(options.sandbox)  # decides (and explains) the sandbox once, up front
    sandbox_note = home.summary()
    home.remove()
    pid = os.getpid()
    scratch = Path(tempfile.mkdtemp(prefix=f"roofline-grade-{pid}-", dir=scratch_root()))
    kernels = Path(tempfile.mkdtemp(prefix=f"roofline-kernels-{pid}-run-", dir=scratch_root()))
    settings = Settings(
        template_db=str(template_db),
        scratch=str(scratch),
        release_index=index,
        cell_timeout_s=options.cell_timeout_s,
        notebook_timeout_s=options.notebook_timeout_s,
        sandbox=options.sandbox,
        hidden_paths=(str(ws.root), str(intake.root), str(options.submissions.resolve())),
        kernel_root=str(kernels),
    )
    before = grader_key([], _course_files(course))
    progress = Progress(len(intake.tasks), already=len(done)) if options.progress else None
    gb = open_master(course, ws.gradebook, template_db)
    try:
        if fresh_master:
            for record in done.values():
                merge(gb, record)

        def on_result(result: dict[str, Any]) -> None:
            _store_files(ws, result)
            merge(gb, result)
            journal.put(result)
            done[result["key"]] = result
            shutil.rmtree(scratch / str(result["key"]), ignore_errors=True)
            (scratch / f"{result['key']}.started").unlink(missing_ok=True)
            if progress:
                progress.advance(bool(result["problems"]))

        if progress:
            progress.start()
        stuck_after = options.notebook_timeout_s + 120
        run(pending, settings, options.jobs, on_result, stuck_after)
        tampered = grader_key([], _course_files(course)) != before
        header, rows = grade_table(gb, intake.students, index)
        write_csv(ws.grades_csv, header, rows)
        pages = write_feedback(ws.feedback, gb, intake.students, index, done)
    finally:
        gb.close()
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.rmtree(kernels, ignore_errors=True)
        sweep_stale_scratch()  # the cgroups of workers that were killed
    report = Report(
        workspace=ws.root,
        students=intake.students,
        results=[done[t.key] for t in intake.tasks],
        graded_now=len(pending),
        seconds=time.monotonic() - started,
        jobs=options.jobs,
        sandbox=sandbox_note,
        feedback_pages=pages,
        tampered=tampered,
    )
    ws.report_txt.write_text(report.text(), encoding="utf-8")
    report.write_json(ws.root / "report.json")
    return report


def _store_files(ws: Workspace, result: Mapping[str, Any]) -> None:
    """nbgrader's layout in the workspace: the submitted and the autograded notebook."""
    student, assignment = str(result["student"]), str(result["assignment"])
    if result.get("notebook"):
        folder = ws.submitted / student / assignment
        folder.mkdir(parents=True, exist_ok=True)
        source, target = Path(str(result["notebook"])), folder / f"{assignment}.ipynb"
        if not (target.exists() and target.samefile(source)):  # graded in place (nbgrader collect)
            shutil.copyfile(source, target)
            for name, key in (("timestamp.txt", "timestamp"), ("submission_secret.txt", "secret")):
                if result.get(key):
                    (folder / name).write_text(str(result[key]) + "\n")
    graded = ws.autograded / student / assignment
    shutil.rmtree(graded, ignore_errors=True)
    if result.get("autograded") and Path(str(result["autograded"])).is_file():
        graded.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(str(result["autograded"]), graded / f"{assignment}.ipynb")
