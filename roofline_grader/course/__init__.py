"""The course: where it lives (``Course``: its root, source notebooks in solutions/ and release in
exercises/), and what is made from it.

* :mod:`~roofline_grader.course.config`: the nbgrader settings shared with nbgrader_config.py;
* :mod:`~roofline_grader.course.release`: ``make release``, the exercises students receive;
* :mod:`~roofline_grader.course.cells`: the release's nbgrader cells (``CellInfo``) of each
  assignment (``ReleaseIndex``), what a submission is compared with and the parts' points;
* :mod:`~roofline_grader.course.rubric`: each written part's points, model answer and rubric
  (``solutions/.rubrics.toml``);
* :mod:`~roofline_grader.course.lab`: ``make lab``'s exchange.

Below: :mod:`roofline_grader.checks`.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

CONFIG_FILE = "nbgrader_config.py"
WORKSPACE_ENV = "ROOFLINE_GRADING_DIR"
"""Environment variable naming the grading workspace (default: the course's grading/)."""
EXCHANGE_ENV = "ROOFLINE_EXCHANGE"
"""Environment variable naming nbgrader's exchange (default: ``<workspace>/exchange``): for a class,
the shared folder every student's nbgrader config names in ``c.Exchange.root``."""


@dataclass(frozen=True)
class Course:
    """The course directory: ``solutions/<problem>/<problem>.ipynb`` is nbgrader's source.

    Attributes:
        root: the directory holding nbgrader_config.py, solutions/ and exercises/.
    """

    root: Path

    @property
    def solutions(self) -> Path:
        return self.root / "solutions"

    @property
    def exercises(self) -> Path:
        return self.root / "exercises"

    @property
    def default_workspace(self) -> Path:
        """The grading workspace used when the instructor names none: $ROOFLINE_GRADING_DIR, else
        the course's git-ignored grading/."""
        return Path(os.environ.get(WORKSPACE_ENV) or self.root / "grading").resolve()

    @property
    def exchange(self) -> Path:
        """nbgrader's exchange (``c.Exchange.root``), where assignments are released, submissions
        arrive and feedback is released: $ROOFLINE_EXCHANGE (a folder shared by a class), else
        ``<workspace>/exchange`` (one machine, ``make lab``)."""
        shared = os.environ.get(EXCHANGE_ENV)
        return Path(shared).resolve() if shared else self.default_workspace / "exchange"

    @property
    def assignments(self) -> tuple[str, ...]:
        """Assignment ids, sorted: every ``solutions/<id>/`` that holds ``<id>.ipynb``."""
        return tuple(
            sorted(p.name for p in self.solutions.iterdir() if (p / f"{p.name}.ipynb").is_file())
        )

    def source_notebook(self, assignment: str) -> Path:
        return self.solutions / assignment / f"{assignment}.ipynb"

    @classmethod
    def find(cls, start: Path | None = None) -> Course:
        """The course containing ``start`` (default: the working directory), else this package's."""
        here = (start or Path.cwd()).resolve()
        for candidate in (here, *here.parents, Path(__file__).resolve().parents[2]):
            if (candidate / CONFIG_FILE).is_file() and (candidate / "solutions").is_dir():
                return cls(candidate)
        raise FileNotFoundError(
            f"no course found: expected {CONFIG_FILE} and solutions/ in {here} or a parent"
        )


def command_env(root: Path, **extra: str) -> dict[str, str]:
    """The environment ``make`` gives the course's commands (roofline-grade, nbgrader): the course
    root on PYTHONPATH, this interpreter's scripts first on PATH, matplotlib without a display,
    plus ``extra``. Tests and benchmarks run the commands in it, as an instructor would."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(root), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["MPLBACKEND"] = "Agg"
    env.update(extra)
    return env
