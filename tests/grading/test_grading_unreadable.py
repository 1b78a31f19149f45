"""roofline-grade on input it cannot read.

A run's logic around grading (an interrupted run and its rerun, ``--force``, hand scores kept by a
rerun, roofline-grade's signals and exit status) is tested on the fake engine
(test_run_fake_engine.py); the real engines grade whole classes in test_grading_run.py,
test_grading_cluster.py and test_grading_sandbox.py.
"""

from __future__ import annotations

from pathlib import Path

from .conftest import roofline_grade


def test_unreadable_input_exits_with_status_2(tmp_path: Path) -> None:
    done = roofline_grade(tmp_path / "nowhere", "--out", tmp_path / "ws", "--quiet")
    assert done.returncode == 2 and "does not exist" in done.stderr
