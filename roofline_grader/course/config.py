"""The nbgrader settings of the grading pipeline, shared by nbgrader_config.py and the workers.

Plain ``nbgrader autograde`` (with the course's nbgrader_config.py) and ``roofline-grade`` use the
same pipeline, so they give the same grades: nbgrader's own preprocessors with its executor replaced
by :class:`roofline_grader.kernel.execute.SealedExecute`, duplicated grade ids made harmless
(:mod:`roofline_grader.intake.repair`), and deleted test cells restored from the gradebook. Preprocessors
are named by import path so that loading the configuration imports nothing heavy.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from traitlets.config import Config

COURSE_ID = "roofline"
DEFAULT_CELL_TIMEOUT_S = 30
"""Seconds a cell may run before it is interrupted and marked as timed out."""
DEFAULT_NOTEBOOK_TIMEOUT_S = 600
"""Seconds a whole notebook may take; cells after that are not run."""

SANITIZE_PREPROCESSORS = (
    "nbgrader.preprocessors.ClearOutput",
    "roofline_grader.intake.repair.KeepLastDuplicate",
    "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec",
    "nbgrader.preprocessors.OverwriteCells",
    "nbgrader.preprocessors.CheckCellMetadata",
)
"""nbgrader 0.9's sanitizing preprocessors, with duplicated grade ids made harmless first."""

AUTOGRADE_PREPROCESSORS = (
    "roofline_grader.kernel.execute.SealedExecute",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
)
"""nbgrader 0.9's autograde preprocessors, with SealedExecute in place of Execute."""

FEEDBACK_PREPROCESSORS = (
    "nbgrader.preprocessors.ClearHiddenTests",
    "nbgrader.preprocessors.GetGrades",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
)
"""nbgrader 0.9's ``generate_feedback`` preprocessors with the hidden tests removed first: nbgrader
renders the autograded notebook, whose grade cells hold their hidden region (the course's own pages,
roofline_grader.outputs.feedback, are built from findings and never from cells)."""


def grading_config(
    cell_timeout_s: int = DEFAULT_CELL_TIMEOUT_S,
    notebook_timeout_s: int = DEFAULT_NOTEBOOK_TIMEOUT_S,
    sandbox: str = "on",
    hidden_paths: Iterable[Path | str] = (),
) -> Config:
    """nbgrader configuration for autograding with the sealed executor.

    Args:
        cell_timeout_s: per-cell timeout, seconds.
        notebook_timeout_s: budget for a whole notebook, seconds.
        sandbox: 'on' (every kernel in a bubblewrap sandbox; grading fails where there is none)
            or 'off' (no sandbox: the student's code can do whatever the grader can).
        hidden_paths: directories the student's kernel must not see, besides the course, the
            grader and HOME (the sandbox binds only what a kernel needs; these are covered if a
            bind would expose them)
    """
    c = Config()
    c.Autograde.sanitize_preprocessors = list(SANITIZE_PREPROCESSORS)
    c.Autograde.autograde_preprocessors = list(AUTOGRADE_PREPROCESSORS)
    c.OverwriteCells.add_missing_cells = True
    c.GenerateFeedback.preprocessors = list(FEEDBACK_PREPROCESSORS)
    c.Execute.timeout = int(cell_timeout_s)
    c.Execute.interrupt_on_timeout = True
    c.SealedExecute.notebook_timeout = int(notebook_timeout_s)
    c.SealedExecute.sandbox = sandbox
    c.SealedExecute.hidden_paths = [str(p) for p in hidden_paths]
    return c
