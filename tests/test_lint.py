"""``make lint`` (so ``make test``) checks what the project writes in Python: ruff over the library,
grader, tests, tools, kit and the book's .py helpers, and mypy strict on roofline_lib and
roofline_grader."""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _lint_commands() -> list[str]:
    done = subprocess.run(
        ["make", "-n", "lint", "STAMP=/dev/null"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_lint_runs_ruff_over_the_books_python_helpers() -> None:
    ruff = [c for c in _lint_commands() if "ruff" in c]
    assert len(ruff) == 2  # check, and format --check
    for command in ruff:
        for path in ("book/booktools.py", "book/_ext/course.py", "roofline_lib", "tools"):
            assert path in command.split(), (path, command)


def test_lint_runs_mypy_strict_on_the_library_and_the_grader() -> None:
    assert any(c.split()[0].endswith("/mypy") for c in _lint_commands())
    mypy = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert mypy["strict"] is True
    assert mypy["files"] == ["roofline_lib", "roofline_grader"]


def test_ruff_does_not_exclude_the_book() -> None:
    ruff = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]
    assert "book" not in ruff.get("extend-exclude", [])
