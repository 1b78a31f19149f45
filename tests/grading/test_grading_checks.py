"""The hidden tests' logic, without kernels: model answers pass, known mistakes get their hints."""

from __future__ import annotations

import json
import math
from typing import Any

import matplotlib
import nbformat
import pytest

from roofline_grader.checks import PARTS, PROBLEMS, make_plan
from roofline_grader.checks.base import all_close, close
from roofline_grader.hidden import collect

from .grading_cases import ROOT

matplotlib.use("Agg")


def namespace(assignment: str, **replace: str) -> dict[str, Any]:
    """Run the setup and answer cells of a solution notebook (answers replaced by grade id)."""
    nb = nbformat.read(str(ROOT / "solutions" / assignment / f"{assignment}.ipynb"), 4)
    ns: dict[str, Any] = {}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code" or (meta.get("grade") and not meta.get("solution")):
            continue
        source = replace.get(meta.get("grade_id", ""), cell.source)
        if source.strip().endswith(";"):  # a display-only cell
            continue
        exec(compile(source, meta.get("grade_id", "cell"), "exec"), ns)
    return ns


def judge(grade_id: str, ns: dict[str, Any], seed: str = "unit") -> list:
    part = PARTS[grade_id]
    assert part.check is not None
    plan = make_plan(part.check, f"{seed}|{grade_id}")
    answers = json.loads(json.dumps(collect(ns, [p.to_json() for p in plan.values()])))
    return part.check.verify(plan, answers)


AUTOGRADED = [gid for gid, part in PARTS.items() if part.check is not None]


@pytest.mark.parametrize("grade_id", AUTOGRADED)
@pytest.mark.parametrize("seed", ["a", "b"])
def test_model_answers_pass_every_hidden_check(grade_id: str, seed: str) -> None:
    findings = judge(grade_id, namespace(PARTS[grade_id].problem), seed)
    assert findings and all(f.passed for f in findings), [f for f in findings if not f.passed]


def test_every_problem_has_its_parts_in_order() -> None:
    # numbered from 1 without gaps, in numeric order, one per solution notebook
    assert list(PROBLEMS) == [f"problem{i}" for i in range(1, len(PROBLEMS) + 1)]
    assert set(PROBLEMS) == {p.name for p in (ROOT / "solutions").glob("problem*")}
    for problem, parts in PROBLEMS.items():
        assert [p.letter for p in parts] == list("abcde"[: len(parts)]), problem
    assert [gid for gid, p in PARTS.items() if p.manual] == ["p4c_why"]


def test_plans_depend_on_the_seed_and_only_on_it() -> None:
    check = PARTS["p1a_bytes"].check
    assert check is not None
    assert make_plan(check, "alice") == make_plan(check, "alice")
    assert make_plan(check, "alice") != make_plan(check, "bob")


@pytest.mark.parametrize(
    ("grade_id", "answer_cell", "source", "hint"),
    [
        (
            "p1a_bytes",
            "p1a-answer",
            "def bytes_loaded(B, D, F):\n    return D * F\n\ndef bytes_written(B, D, F):\n    return B * F",
            "bytes loaded should count both operands",
        ),
        (
            "p1a_bytes",
            "p1a-answer",
            "def bytes_loaded(B, D, F):\n    return B * D + D * F\n\n"
            "def bytes_written(B, D, F):\n    return 2 * B * F",
            "the output is re-quantised to int8",
        ),
        (
            "p1b_ops",
            "p1b-answer",
            "def ops(B, D, F):\n    return B * D * F",
            "a multiply-add counts as two",
        ),
        (
            "p1b_ops",
            "p1b-answer",
            "def ops(B, D, F):\n    return 12",
            "returns the same value whatever",
        ),
        (
            "p2b_exact",
            "p2b-answer",
            "def critical_batch(D, F):\n    i = PEAK_BF16_FLOPS_PER_S / HBM_BYTES_PER_S\n"
            "    return i * D * F / (2 * D * F - 2 * i * (D + F))\n\n"
            "critical_batch_4096 = critical_batch(4096, 4096)",
            "the statement says what to return then",
        ),
        (
            "p3a_function",
            "p3a-answer",
            "def achievable_flops_per_s(B, D, F):\n"
            "    return 2 * B * D * F / ((2 * B * D + D * F + 2 * B * F) / HBM_BYTES_PER_S)",
            "can never exceed the peak",
        ),
        (
            "p3a_function",
            "p3a-answer",
            "def achievable_flops_per_s(B, D, F):\n    flops = 2 * B * D * F\n"
            "    return flops / max(flops / PEAK_BF16_FLOPS_PER_S, (2*B*D + D*F + 2*B*F) / HBM_BYTES_PER_S)",
            "given numpy arrays, achievable_flops_per_s must work elementwise",
        ),
        (
            "p4a_costs",
            "p4a-answer",
            "def bytes_moved(B, D, F):\n    return B * D + D * F + B * F\n\n"
            "def ops(B, D, F):\n    return 2 * B * D * F",
            "each batch element has its own D×F weight matrix",
        ),
        (
            "p5a_dense_peak",
            "p5a-answer",
            "dense_bf16_flops_per_s = 1979e12",
            "2:4 structured sparsity",
        ),
        (  # the old parameter names (B, N, d): the checks call student functions positionally
            "p6c_flash",
            "p6c-answer",
            "def flash_bytes(B, N, d, M):\n    return 4 * B * N * d + 4 * (N / M) * B * N * d\n\n"
            "def flash_intensity(B, N, d, M):\n    return 4 * B * N * N * d / flash_bytes(B, N, d, M)\n\n"
            "def flash_intensity_limit(M):\n    return M * 1.0",
            "there are ⌈S/M⌉ tiles",
        ),
        (
            "p6d_regime",
            "p6d-answer",
            "def is_memory_bound(N, d):\n"
            "    return np.ones(np.shape(N), dtype=bool) if np.ndim(N) else True\n\n"
            "critical_seq_len_d128 = math.inf",
            "compare standard attention's intensity",
        ),
    ],
)
def test_known_mistakes_get_their_hint(
    grade_id: str, answer_cell: str, source: str, hint: str
) -> None:
    ns = namespace(PARTS[grade_id].problem, **{answer_cell: source})
    failed = [f for f in judge(grade_id, ns) if not f.passed]
    assert failed, "the mistake must fail"
    assert any(hint in f.hint for f in failed), [f.hint for f in failed]


def test_the_figure_is_judged_on_its_lines_and_labels() -> None:
    bare = (
        "def plot_roofline():\n    fig, ax = plt.subplots()\n    b = np.arange(1, 513)\n"
        "    for s in (4096, 1024):\n        ax.plot(b, achievable_flops_per_s(b, s, s))\n    return fig"
    )
    ns = namespace("problem3", **{"p3bc-answer": bare})
    assert all(f.passed for f in judge("p3b_curves", ns))
    failed = [f.label for f in judge("p3c_peak_and_labels", ns) if not f.passed]
    assert failed == ["the peak line", "labelled axes"]
    one_curve = bare.replace("(4096, 1024)", "(4096,)")
    ns = namespace("problem3", **{"p3bc-answer": one_curve})
    assert [f.passed for f in judge("p3b_curves", ns)] == [True, False]


def test_infinity_equals_only_infinity() -> None:
    assert (
        close(math.inf, math.inf) and not close(1e300, math.inf) and not close(math.nan, math.nan)
    )
    assert all_close([1.0, 2.0], [1.0, 2.0 * (1 + 1e-7)]) and not all_close([1.0], [1.0, 2.0])
    assert not close(True, 1.0), "a bool is never a number"
