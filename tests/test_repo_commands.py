"""What the README promises about commands, checked: each `make` target it names exists and the
set-up step is skipped when nothing changed."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


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


def test_setup_is_skipped_when_nothing_changed():
    # `make test` ran the install before pytest started, so the stamp must now be up to date:
    # a second `make book` or `make test` would not reinstall anything.
    result = subprocess.run(["make", "-q", ".venv/.installed"], cwd=ROOT)
    assert result.returncode == 0, "make would reinstall the venv although nothing changed"


def test_ci_runs_make_test_and_nothing_else():
    commands = [
        line.strip()
        for line in (ROOT / ".ci" / "run").read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert commands[-1] == "make test"
    assert all(c.startswith(("set ", "cd ", "export ")) for c in commands[:-1])
