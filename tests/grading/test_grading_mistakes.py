"""The catalogue of typical mistakes (mistakes.py): caught by Validate, by the hidden checks and
by roofline-grade, each with its hint; one mistake costs only the part where it is made."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from roofline_grader.checks import PARTS, PROBLEMS

from .conftest import GradedRun, grading_env
from .grading_cases import VALIDATE_SUCCESS, solved, validate_reports
from .mistakes import MISTAKES, Mistake
from .test_grading_checks import judge, namespace

IDS = [m.key for m in MISTAKES]
AUTOGRADED = [gid for gid, part in PARTS.items() if not part.manual]


def test_every_part_has_at_least_two_typical_mistakes() -> None:
    for grade_id in AUTOGRADED:
        assert sum(m.part == grade_id for m in MISTAKES) >= 2, grade_id
    assert len({m.key for m in MISTAKES}) == len(MISTAKES)


@pytest.mark.parametrize("mistake", MISTAKES, ids=IDS)
def test_hidden_checks_fail_the_part_and_carry_the_rest(mistake: Mistake) -> None:
    ns = namespace(mistake.problem, **mistake.answers())
    keeps = mistake.expected_points()
    for part in PROBLEMS[mistake.problem]:
        if part.manual:
            continue
        findings = judge(part.grade_id, ns)
        failed = [f for f in findings if not f.passed]
        assert (not failed) == (part.grade_id in keeps), (part.grade_id, failed)
        if part.grade_id == mistake.part:
            assert any(mistake.hint in f.hint for f in failed), [f.hint for f in failed]
        notes = [f.hint for f in findings if f.passed and f.hint]
        carried = any(note.startswith("carried forward from") for note in notes)
        if part.grade_id != mistake.part:  # within its own part a finding may be carried too
            assert carried == (part.grade_id in mistake.carried), (part.grade_id, notes)


# -- nbgrader validate: what the Validate button says -------------------------------------------


@pytest.fixture(scope="module")
def validated(tmp_path_factory: pytest.TempPathFactory, release: Path) -> dict[str, str]:
    """``nbgrader validate`` on every mistake and on each reference, in one run: its report for
    each notebook, by mistake key (and ``reference-<problem>``)."""
    base = tmp_path_factory.mktemp("validate")
    notebooks = {m.key: (m.problem, solved(release, m.problem, **m.answers())) for m in MISTAKES}
    notebooks |= {f"reference-{p}": (p, solved(release, p)) for p in PROBLEMS}
    paths = []
    for key, (problem, nb) in notebooks.items():
        path = base / key / f"{problem}.ipynb"
        path.parent.mkdir()
        nbformat.write(nb, str(path))
        paths.append(str(path))
    env = grading_env()
    env.pop("MPLBACKEND", None)
    done = subprocess.run(
        [sys.executable, "-m", "nbgrader", "validate", *paths],
        cwd=base,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]  # 0 when a notebook fails validation too
    return dict(zip(notebooks, validate_reports(done.stdout, len(paths)), strict=True))


@pytest.mark.slow
@pytest.mark.parametrize("problem", list(PROBLEMS))
def test_validate_passes_the_reference(validated: dict[str, str], problem: str) -> None:
    assert validated[f"reference-{problem}"].startswith(VALIDATE_SUCCESS)


@pytest.mark.slow
@pytest.mark.parametrize("mistake", MISTAKES, ids=IDS)
def test_validate_catches_the_mistake_with_its_hint(
    validated: dict[str, str], mistake: Mistake
) -> None:
    report = validated[mistake.key]
    assert report.startswith("VALIDATION FAILED"), report
    flat = " ".join(line.strip() for line in report.splitlines())
    assert mistake.shown in flat, report
    assert "selfcheck" not in report, "a visible check shows its message, not a traceback"


# -- roofline-grade: points per part, with follow-through ---------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("mistake", MISTAKES, ids=IDS)
def test_grading_costs_only_the_part_of_the_mistake(graded: GradedRun, mistake: Mistake) -> None:
    grades = graded.grades[mistake.student]
    for grade_id, points in mistake.expected_points().items():
        assert grades[grade_id] == f"{points:g}", (grade_id, grades)
    for grade_id in (mistake.part, *mistake.also_loses):
        assert grades[grade_id] == "0", (grade_id, grades)
    verdicts = graded.results()[(mistake.student, mistake.problem)]["verdicts"]
    hints = [f["hint"] for f in verdicts[mistake.part]["findings"] if not f["passed"]]
    assert any(mistake.hint in h for h in hints), hints
    page = graded.feedback(mistake.student)
    for grade_id in mistake.carried:
        assert any(
            f["passed"] and f["hint"].startswith("carried forward from")
            for f in verdicts[grade_id]["findings"]
        ), grade_id
        assert "carried forward from" in page


@pytest.mark.slow
def test_one_bf16_mistake_loses_only_part_a(graded: GradedRun) -> None:
    """Counting bf16's two bytes in (a) scored 1/9 before follow-through; now it costs (a) only:
    (c), (d) and (e) are right for the student's own byte counts, and nothing else in Problem 1
    depends on the number itself."""
    grades = graded.grades["mistake-p1a-bf16"]
    assert {g: grades[g] for g in PARTS if g.startswith("p1")} == {
        "p1a_bytes": "0",
        "p1b_ops": "1",
        "p1c_intensity": "2",
        "p1d_times": "2",
        "p1e_bounds": "2",
    }


def test_a_later_part_wrong_on_its_own_still_scores_zero() -> None:
    """bf16 bytes in (a), and T_comms that also leaves out the bytes written: (d) is wrong even
    for the student's own bytes, so nothing is carried."""
    both = Mistake(
        "both",
        "p1a_bytes",
        "",
        (
            *[e for e in MISTAKES[0].edits],
            (
                "p1d-answer",
                "return (bytes_loaded(B, D, F) + bytes_written(B, D, F)) / HBM_BYTES_PER_S",
                "return bytes_loaded(B, D, F) / HBM_BYTES_PER_S",
            ),
        ),
        "",
    )
    ns = namespace("problem1", **both.answers())
    assert not all(f.passed for f in judge("p1d_times", ns))
    assert all(f.passed for f in judge("p1c_intensity", ns))
