"""One switch in _config.yml, ``course_show_solutions: false``, removes every worked solution.

A tiny Jupyter Book with the course's own _config.yml (the switch flipped by text substitution,
so that renaming the key breaks this test) and a page holding two worked solutions is built
twice; nothing is executed, so each build takes seconds.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.book.site import JUPYTER_BOOK, ROOT, book_env, book_extension

pytestmark = pytest.mark.slow

SWITCH_ON = "course_show_solutions: true"
PAGE = """# Problems

Problem statement, visible in every edition.

:::{worked-solution} Problem 1
The first secret answer is forty-two.
:::

:::{worked-solution}
The second secret answer, with math $x = 1$.
:::

After the solutions.
"""


def _build(tmp: Path, show: bool) -> str:
    project = tmp / ("shown" if show else "hidden")
    (project / "book").mkdir(parents=True)
    for folder in ("_ext", "_static"):
        (project / "book" / folder).symlink_to(ROOT / "book" / folder)
    config = (ROOT / "_config.yml").read_text()
    assert SWITCH_ON in config, f"_config.yml no longer says {SWITCH_ON!r}"
    (project / "_config.yml").write_text(
        config.replace(SWITCH_ON, f"course_show_solutions: {str(show).lower()}")
    )
    (project / "_toc.yml").write_text("format: jb-book\nroot: book/problems\n")
    (project / "book" / "problems.md").write_text(PAGE)
    result = subprocess.run(
        [str(JUPYTER_BOOK), "build", str(project), "-W", "--keep-going"],
        cwd=project,
        env=book_env(),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return (project / "_build" / "html" / "book" / "problems.html").read_text()


def test_worked_solutions_show_by_default(tmp_path: Path) -> None:
    page = _build(tmp_path, show=True)
    assert page.count("worked-solution") >= 2 and "forty-two" in page
    assert "Worked solution: Problem 1" in page and "second secret answer" in page
    assert "dropdown" in page, "solutions should be collapsed"


def _hidden_note() -> str:
    return str(book_extension("course").HIDDEN_NOTE)


def test_the_switch_removes_every_worked_solution(tmp_path: Path) -> None:
    page = _build(tmp_path, show=False)
    hidden_note = _hidden_note()
    assert "forty-two" not in page and "second secret answer" not in page
    assert "Worked solution:" not in page
    assert not re.search(r'class="[^"]*\bworked-solution\b(?!-)', page), "a solution box is left"
    assert page.count(hidden_note) == 2
    assert "Problem statement, visible in every edition." in page
    assert "After the solutions." in page
