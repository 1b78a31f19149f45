"""What the README promises about commands, checked: each `make` target it names exists and the
set-up step is skipped when nothing changed (checked on a copy of the Makefile, so that a plain
pytest, which never ran make's set-up, checks it too)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
STAMP = ".venv/.installed"
"""What the Makefile touches once the venv is installed (its variable STAMP)."""


def readme_make_targets() -> list[str]:
    targets = re.findall(r"^\s*make ([a-z][a-z-]*)", README, flags=re.MULTILINE)
    targets += re.findall(r"`make ([a-z][a-z-]*)", README)
    return sorted(set(targets))


def test_readme_opens_with_the_two_setup_commands():
    first_block = README.split("```")[1]
    assert "make book" in first_block and "make test" in first_block


@pytest.mark.parametrize("target", readme_make_targets())
def test_every_make_target_in_the_readme_exists(target):
    result = subprocess.run(
        ["make", "-n", target, "SUBMISSIONS=x"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


@pytest.fixture
def make_in_a_copy(tmp_path: Path):
    """The Makefile, pyproject.toml and constraints.txt copied into an empty folder whose
    .venv/bin/python only records its arguments: make's set-up rule, run for real, without
    installing anything and whatever state the repository's own venv is in."""
    for name in ("Makefile", "pyproject.toml", "constraints.txt"):
        shutil.copy2(ROOT / name, tmp_path / name)
    python = tmp_path / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text('#!/bin/sh\necho "$@" >> "$(dirname "$0")/../calls.log"\n')
    python.chmod(0o755)
    calls = tmp_path / ".venv" / "calls.log"

    def make(*args: str) -> tuple[int, list[str]]:
        result = subprocess.run(["make", *args], cwd=tmp_path, capture_output=True, text=True)
        return result.returncode, calls.read_text().splitlines() if calls.exists() else []

    return tmp_path, make


def test_setup_installs_once_and_is_skipped_when_nothing_changed(make_in_a_copy):
    folder, make = make_in_a_copy
    returncode, calls = make(STAMP)
    assert returncode == 0
    assert any(c.startswith("-m pip install") and "-e .[test,cluster]" in c for c in calls), calls
    assert make("-q", STAMP)[0] == 0, "make would reinstall the venv although nothing changed"
    assert make(STAMP)[1] == calls, "a second set-up ran the install again"
    # a pin changes: the next `make book` or `make test` reinstalls
    later = (folder / STAMP).stat().st_mtime + 10
    os.utime(folder / "constraints.txt", (later, later))
    assert make("-q", STAMP)[0] != 0


def test_ci_runs_make_test_and_nothing_else():
    commands = [
        line.strip()
        for line in (ROOT / ".ci" / "run").read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert commands[-1] == "make test"
    assert all(c.startswith(("set ", "cd ", "export ")) for c in commands[:-1])
