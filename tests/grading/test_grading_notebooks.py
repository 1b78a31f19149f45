"""The assignments themselves: structure of the sources, and a release in sync with them."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import nbformat
import pytest

from roofline_grader.checks import PARTS, REGISTRY, header

from .conftest import grading_env, nbgrader
from .grading_cases import ASSIGNMENTS, ROOT

HIDDEN = re.compile(
    r"### BEGIN HIDDEN TESTS\nimport roofline_grader\.hidden\n\n"
    r'roofline_grader\.hidden\.check\("(?P<id>\w+)", globals\(\)\)\n### END HIDDEN TESTS$'
)


def source(assignment: str) -> nbformat.NotebookNode:
    return nbformat.read(str(ROOT / "solutions" / assignment / f"{assignment}.ipynb"), 4)


def meta(cell: nbformat.NotebookNode) -> dict:
    return cell.metadata.get("nbgrader", {})


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_each_header_says_what_to_do_how_to_check_and_how_to_submit(assignment: str) -> None:
    """The header is rendered from checks/header.md and header.zh_CN.md (test_problem_agreement
    checks each notebook holds it); what it must say in both languages, with the problem's own
    number and file name."""
    text = header.render(REGISTRY[assignment])
    assert text.startswith(f"# Problem {assignment.removeprefix('problem')} · ")
    for heading in (
        "**What to do.**",
        "**Check yourself.**",
        "**Follow-through.**",
        "**Hand in.**",
        "--language zh_CN",
        "Validate",
        f"{assignment}.ipynb",
        f"worth **{REGISTRY[assignment].points} points**",
    ):
        assert heading in text, heading
    _, rule, chinese = text.partition(header.RULE)
    assert rule and chinese.startswith(f"# 习题 {assignment.removeprefix('problem')} · ")
    for heading in (
        "**要做什么。**",
        "**自我检查。**",
        "**沿用计分（follow-through）。**",
        "**提交。**",
        "--language zh_CN",
        "Validate",
        f"{assignment}.ipynb",
        f"本题共 **{REGISTRY[assignment].points} 分**",
    ):
        assert heading in chinese, heading
    assert meta(source(assignment).cells[0])["locked"]


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_each_check_cell_calls_its_own_part_after_the_visible_checks(assignment: str) -> None:
    """Which grade cells there are, their order and points: test_problem_agreement."""
    grade_cells = [c for c in source(assignment).cells if meta(c).get("grade")]
    for cell in grade_cells:
        part = PARTS[meta(cell)["grade_id"]]
        if part.manual:
            continue
        hidden = HIDDEN.search(cell.source)
        assert hidden and hidden["id"] == part.grade_id, (
            "the hidden region calls its own part's check"
        )
        assert "raises-exception" in cell.metadata.get("tags", []), (
            "a failing check must not stop JupyterLab's Run All before the parts after it"
        )
        visible = cell.source[: cell.source.index("### BEGIN HIDDEN TESTS")]
        assert f'visible_checks("{part.grade_id}", globals())' in visible or "assert" in visible, (
            "visible checks first"
        )


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_answer_cell_has_a_solution_region_followed_by_its_check(assignment: str) -> None:
    cells = source(assignment).cells
    for i, cell in enumerate(cells):
        if meta(cell).get("solution") and cell.cell_type == "code":
            assert "### BEGIN SOLUTION" in cell.source and "### END SOLUTION" in cell.source
            following = [meta(c).get("grade") for c in cells[i + 1 : i + 2]]
            assert following == [True], f"{meta(cell)['grade_id']} is followed by its check cell"


def test_exercises_are_in_sync_with_solutions(release: Path) -> None:
    """Fails when `make release` would change exercises/: run it and commit the result."""
    committed = sorted(
        p.relative_to(ROOT / "exercises") for p in (ROOT / "exercises").rglob("*") if p.is_file()
    )
    generated = sorted(p.relative_to(release) for p in release.rglob("*") if p.is_file())
    assert committed == generated, "exercises/ has other files than `make release` makes"
    for relative in generated:
        assert (ROOT / "exercises" / relative).read_bytes() == (release / relative).read_bytes(), (
            f"exercises/{relative} is stale: run `make release`"
        )


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_release_holds_no_solution_and_no_hidden_test(release: Path, assignment: str) -> None:
    text = (release / assignment / f"{assignment}.ipynb").read_text()
    for secret in ("BEGIN SOLUTION", "END SOLUTION", "HIDDEN TESTS", "roofline_grader"):
        assert secret not in text, secret
    nb = nbformat.read(str(release / assignment / f"{assignment}.ipynb"), 4)
    for cell in nb.cells:
        if meta(cell).get("solution"):
            assert "raise NotImplementedError()" in cell.source or "YOUR ANSWER HERE" in cell.source


def _validate(path: Path, workspace: Path) -> subprocess.CompletedProcess[str]:
    return nbgrader("validate", path, env=grading_env(ROOFLINE_GRADING_DIR=str(workspace)))


@pytest.mark.slow
def test_nbgrader_validate_passes_the_solution_and_fails_the_blank(
    release: Path, tmp_path: Path
) -> None:
    solved = _validate(ROOT / "solutions" / "problem2" / "problem2.ipynb", tmp_path)
    assert "Success! Your notebook passes all the tests." in solved.stdout, (
        solved.stdout + solved.stderr
    )
    blank = _validate(release / "problem2" / "problem2.ipynb", tmp_path)
    assert "VALIDATION FAILED ON 2 CELL(S)" in blank.stdout, blank.stdout
