"""Real submissions for the grading tests: solved, blank, partly right, broken, and attacks.

Every case is a student folder in nbgrader's submitted layout, made from the release notebooks
(what students receive) with answer cells filled in. Each case states the score it must get per
part, so the tests can check every submission of one shared grading run.
"""

from __future__ import annotations

import copy
import json
import re
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

import nbformat

from roofline_grader.checks import PARTS, PROBLEMS
from roofline_lib.selfcheck.language import METADATA_KEY

ROOT = Path(__file__).resolve().parents[2]
ASSIGNMENTS = tuple(PROBLEMS)
"""Every problem with a checks module, in order (roofline_grader.checks discovers them)."""
FULL = {gid: part.points for gid, part in PARTS.items() if not part.manual}
"""Full marks of every autograded part, from its checks module (written parts are graded by hand)."""

VALIDATE_SUCCESS = "Success! Your notebook passes all the tests."
"""What ``nbgrader validate`` (the Validate button) says of a notebook that passes."""
_VALIDATE_VERDICT = re.compile(
    r"^(Success! Your notebook passes all the tests\.|VALIDATION FAILED ON)", re.M
)


def validate_reports(stdout: str, notebooks: int) -> list[str]:
    """The report of each notebook of one ``nbgrader validate a.ipynb b.ipynb …`` run, in the
    order given, each from its verdict (VALIDATE_SUCCESS or ``VALIDATION FAILED ON n CELL(S)``):
    one process and its imports for many notebooks. AssertionError unless there is one verdict
    per notebook."""
    starts = [m.start() for m in _VALIDATE_VERDICT.finditer(stdout)]
    assert len(starts) == notebooks, f"{len(starts)} verdicts for {notebooks}:\n{stdout[-3000:]}"
    return [stdout[a:b] for a, b in zip(starts, [*starts[1:], None], strict=True)]


def _gid(cell: Mapping) -> str:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "")


def model_answers(assignment: str) -> dict[str, str]:
    """The source of every answer cell of the reference solution, by grade id."""
    nb = nbformat.read(str(ROOT / "solutions" / assignment / f"{assignment}.ipynb"), 4)
    answers = {}
    for cell in nb.cells:
        if not cell.metadata.get("nbgrader", {}).get("solution"):
            continue
        source = cell.source
        if cell.cell_type == "markdown":  # a written answer, as a student would type it
            source = "\n".join(line for line in source.splitlines() if "### " not in line)
        answers[_gid(cell)] = source
    return answers


def release_notebook(release: Path, assignment: str) -> nbformat.NotebookNode:
    return nbformat.read(str(release / assignment / f"{assignment}.ipynb"), 4)


def solved(release: Path, assignment: str, **answers: str) -> nbformat.NotebookNode:
    """The release with every answer cell holding the model answer, or the one given by grade id."""
    nb = release_notebook(release, assignment)
    model = model_answers(assignment)
    for cell in nb.cells:
        gid = _gid(cell)
        if gid in answers:
            cell.source = answers[gid]
        elif gid in model:
            cell.source = model[gid]
    return nb


def cell_index(nb: nbformat.NotebookNode, grade_id: str) -> int:
    return next(i for i, c in enumerate(nb.cells) if _gid(c) == grade_id)


Edit = Callable[[nbformat.NotebookNode], object]


@dataclass
class Case:
    """One student: the notebooks they hand in and the scores each part must get.

    ``notebooks`` maps an assignment to a notebook (or raw bytes, written as they are). Parts not
    listed in ``expect`` must score zero; ``expect_problems`` lists kinds the report must name.
    """

    student: str
    notebooks: dict[str, nbformat.NotebookNode | bytes] = field(default_factory=dict)
    expect: dict[str, float] = field(default_factory=dict)
    expect_problems: tuple[str, ...] = ()
    file_names: dict[str, str] = field(default_factory=dict)

    def write(self, root: Path) -> None:
        for assignment, nb in self.notebooks.items():
            folder = root / self.student / assignment
            folder.mkdir(parents=True, exist_ok=True)
            name = self.file_names.get(assignment, f"{assignment}.ipynb")
            if isinstance(nb, bytes):
                (folder / name).write_bytes(nb)
            else:
                nbformat.write(nb, str(folder / name))
        (root / self.student).mkdir(parents=True, exist_ok=True)


def problem1_full() -> dict[str, float]:
    return {k: v for k, v in FULL.items() if k.startswith("p1")}


def without(scores: Mapping[str, float], *zero: str) -> dict[str, float]:
    return {k: v for k, v in scores.items() if k not in zero}


# ----------------------------------------------------------------------------------------------
# Answers, as a student would type them; each part self-contained so one broken part cannot
# break another
# ----------------------------------------------------------------------------------------------


def code(text: str) -> str:
    return textwrap.dedent(text).strip("\n")


P1 = {
    "p1a-answer": code(
        """
        def bytes_loaded(B, D, F):
            return B * D + D * F


        def bytes_written(B, D, F):
            return B * F
        """
    ),
    "p1b-answer": code(
        """
        def ops(B, D, F):
            return 2 * B * D * F
        """
    ),
    "p1c-answer": code(
        """
        def arithmetic_intensity(B, D, F):
            return 2 * B * D * F / (B * D + D * F + B * F)


        def intensity_limit(B):
            return 2 * B
        """
    ),
    "p1d-answer": code(
        """
        def t_math(B, D, F):
            return 2 * B * D * F / PEAK_INT8_OPS_PER_S


        def t_comms(B, D, F):
            return (B * D + D * F + B * F) / HBM_BYTES_PER_S
        """
    ),
    "p1e-answer": code(
        """
        def runtime_lower_bound(B, D, F):
            ops, moved = 2 * B * D * F, B * D + D * F + B * F
            return max(ops / PEAK_INT8_OPS_PER_S, moved / HBM_BYTES_PER_S)


        def runtime_upper_bound(B, D, F):
            ops, moved = 2 * B * D * F, B * D + D * F + B * F
            return ops / PEAK_INT8_OPS_PER_S + moved / HBM_BYTES_PER_S
        """
    ),
}
"""Problem 1's model answers."""


def p1(release: Path, **overrides: str) -> nbformat.NotebookNode:
    return solved(release, "problem1", **{**P1, **overrides})


WRONG_BYTES = code(
    """
    def bytes_loaded(B, D, F):
        return D * F


    def bytes_written(B, D, F):
        return B * F
    """
)
WRONG_INTENSITY = code(
    """
    def arithmetic_intensity(B, D, F):
        return B * D * F / (B * D + D * F + B * F)


    def intensity_limit(B):
        return B
    """
)


def _edit(nb: nbformat.NotebookNode, edit: Edit) -> nbformat.NotebookNode:
    nb = copy.deepcopy(nb)
    edit(nb)
    return nb


def _odd_cells(nb: nbformat.NotebookNode) -> bytes:
    """What JupyterLab and hand edits leave in a notebook, each of which once zeroed it: a cell
    pasted from another notebook (with its nbgrader metadata), changed grade/points flags, a lone
    surrogate in a string, and a cell without source. Written as raw JSON (nbformat would refuse)."""
    pasted = nbformat.v4.new_code_cell("x = 1  # pasted from problem 2")
    pasted.metadata["nbgrader"] = {
        "grade": True,
        "grade_id": "p2a_limit",
        "locked": True,
        "points": PARTS["p2a_limit"].points,
        "schema_version": 3,
        "solution": False,
        "task": False,
    }
    nb.cells.insert(1, pasted)
    answer = nb.cells[cell_index(nb, "p1b-answer")]
    answer.metadata["nbgrader"]["points"] = 50
    answer.metadata["nbgrader"]["grade"] = True
    answer.source += "\nnote = 'half a pair: \ud800'"
    data = json.loads(json.dumps(nb))
    data["cells"].insert(2, {"cell_type": "markdown", "metadata": {}})
    return json.dumps(data).encode()


def _huge_outputs(nb: nbformat.NotebookNode) -> None:
    """20 MB of stored output, and 3 MB more printed when it runs."""
    blob = "x" * 1000 + "\n"
    cell = nb.cells[cell_index(nb, "p1a-answer")]
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=blob * 20_000)]
    cell.source += "\nprint('y' * 3_000_000)"


def _many_cells(nb: nbformat.NotebookNode) -> None:
    nb.cells += [nbformat.v4.new_markdown_cell(f"note {i}") for i in range(2_500)]


def _edit_test(nb: nbformat.NotebookNode) -> None:
    cell = nb.cells[cell_index(nb, "p1a_bytes")]
    cell.source = "pass  # nothing to check"
    cell.metadata["nbgrader"]["points"] = 100
    cell.metadata["nbgrader"]["locked"] = False


def _delete_test(nb: nbformat.NotebookNode) -> None:
    del nb.cells[cell_index(nb, "p1b_ops")]


def _delete_answer_and_test(nb: nbformat.NotebookNode) -> None:
    del nb.cells[cell_index(nb, "p1a_bytes")]
    del nb.cells[cell_index(nb, "p1a-answer")]


def _duplicate(nb: nbformat.NotebookNode) -> None:
    i = cell_index(nb, "p1a_bytes")
    twin = copy.deepcopy(nb.cells[i])
    twin["id"] = "a-copy-of-the-check"
    nb.cells.insert(i + 1, twin)
    answer = copy.deepcopy(nb.cells[cell_index(nb, "p1c-answer")])
    answer["id"] = "a-copy-of-the-answer"
    nb.cells.insert(cell_index(nb, "p1c_intensity"), answer)


PARTIAL_P1 = {
    "p1b-answer": code(
        """
        def ops(B, D, F):
            return B * D * F
        """
    ),
    "p1c-answer": code(
        """
        def arithmetic_intensity(B, D, F):
            return 2 * B * D * F / (B * D + D * F + B * F)


        def intensity_limit(B):
            return B
        """
    ),
    "p1e-answer": code(
        """
        def runtime_lower_bound(B, D, F):
            return t_math(B, D, F) + t_comms(B, D, F)


        def runtime_upper_bound(B, D, F):
            return max(t_math(B, D, F), t_comms(B, D, F))
        """
    ),
}
"""Right: (a) and (d). Wrong: (b) one OP per multiply-add; (c) the limit; (e) bounds swapped."""

PARTIAL_P6 = {
    "p6c-answer": code(
        """
        def flash_bytes(B, N, d, M):
            return 2 * (2 * B * N * d + 2 * (N / M) * B * N * d)


        def flash_intensity(B, N, d, M):
            return standard_flops(B, N, d) / flash_bytes(B, N, d, M)


        def flash_intensity_limit(M):
            return M * 1.0
        """
    )
}
"""Wrong: (c) counts S/M tiles, not ⌈S/M⌉. Written with the old parameter names (B, N, d): the
checks call a student's functions positionally, so the names do not matter."""

ATTACKS = {
    "patches-roofline-lib": {
        "p1a-answer": WRONG_BYTES
        + "\n\n\n"
        + code(
            """

            import roofline_lib
            import roofline_lib.costs


            class Fake:
                bytes_read = bytes_written = flops = bytes_total = 0


            def fake(*args, **kwargs):
                return Fake()


            roofline_lib.matmul = roofline_lib.costs.matmul = fake
            """
        )
    },
    "patches-numpy-and-math": {
        "p1c-answer": WRONG_INTENSITY
        + "\n\n\n"
        + code(
            """

            import math
            import numpy as np

            math.isclose = lambda *args, **kwargs: True
            np.isclose = lambda *args, **kwargs: True
            np.allclose = lambda *args, **kwargs: True
            """
        )
    },
    "redefines-builtins": {
        "p1e-answer": code(
            """
            import builtins
            import types

            builtins.abs = lambda x: 0
            builtins.round = lambda *args: 0
            float = lambda x=0: 1e-9
            isinstance = lambda *args: True
            math = types.SimpleNamespace(isclose=lambda *args, **kwargs: True)


            def runtime_lower_bound(B, D, F):
                return "fast"


            def runtime_upper_bound(B, D, F):
                return "slow"
            """
        )
    },
    "always-equal": {
        "p1a-answer": code(
            """
            class Anything(float):
                def __eq__(self, other):
                    return True

                def __ne__(self, other):
                    return False

                __lt__ = __le__ = __gt__ = __ge__ = __eq__
                __hash__ = float.__hash__


            def bytes_loaded(B, D, F):
                return Anything(0)


            def bytes_written(B, D, F):
                return Anything(0)
            """
        )
    },
    "hard-codes-visible-case": {
        "p1a-answer": code(
            """
            def bytes_loaded(B, D, F):
                return 8


            def bytes_written(B, D, F):
                return 3
            """
        )
    },
    "drops-later-cells": {
        "p1d-answer": code(
            """
            def t_math(B, D, F):
                return 0


            def t_comms(B, D, F):
                return 0


            get_ipython().input_transformers_cleanup.append(lambda lines: [])
            """
        )
    },
    "swallows-errors": {
        "p1a-answer": WRONG_BYTES
        + "\n\n\n"
        + code(
            """

            get_ipython().set_custom_exc((BaseException,), lambda *args, **kwargs: None)
            """
        )
    },
    "fakes-partial-credit": {
        "p1b-answer": code(
            """
            import ast


            class AppendOne(ast.NodeTransformer):
                def visit_Module(self, node):
                    node.body.append(ast.Expr(ast.Constant(1)))
                    return node


            get_ipython().ast_transformers.append(AppendOne())


            def ops(B, D, F):
                return 12
            """
        )
    },
    "silences-hidden-check": {
        "p1c-answer": WRONG_INTENSITY
        + "\n\n\n"
        + code(
            """

            import roofline_grader.hidden

            roofline_grader.hidden.check = lambda *args, **kwargs: None
            """
        )
    },
    "forges-answers": {
        "p1b-answer": code(
            """
            import json

            from IPython.display import display


            def ops(B, D, F):
                return 12


            def forge(result):
                record = {"grade_id": "p1b_ops", "answers": {"ops": [{"v": 12.0}] * 12}}
                display({"text/x-roofline-answers": json.dumps(record)}, raw=True)


            get_ipython().events.register("post_run_cell", forge)
            """
        )
    },
}
"""Each attack, by student: the answer cells it replaces. The attacked parts are the ones the
student answers wrongly (or sabotages); every attack must score zero on them."""

ATTACKED = {
    "patches-roofline-lib": ("p1a_bytes",),
    "patches-numpy-and-math": ("p1c_intensity",),
    "redefines-builtins": ("p1e_bounds",),
    "always-equal": ("p1a_bytes",),
    "hard-codes-visible-case": ("p1a_bytes",),
    "drops-later-cells": ("p1d_times", "p1e_bounds"),
    "swallows-errors": ("p1a_bytes",),
    "fakes-partial-credit": ("p1b_ops",),
    "silences-hidden-check": ("p1c_intensity", "p1d_times", "p1e_bounds"),
    "forges-answers": ("p1b_ops",),
}

LOOP = code(
    """
    def ops(B, D, F):
        while True:
            pass
    """
)
IGNORES_INTERRUPT = code(
    """
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        pass
    """
)


def cases(release: Path) -> list[Case]:
    """Every case of the shared grading run, the catalogue of mistakes included."""
    from .mistakes import mistake_cases

    full1 = problem1_full()
    wrong_ops = "def ops(B, D, F):\n    return B * D * F"
    bad = [
        Case(
            "endless-loop",
            {"problem1": p1(release, **{"p1b-answer": LOOP})},
            without(full1, "p1b_ops"),
            ("timeout",),
        ),
        Case(
            "ignores-interrupt",
            {"problem1": p1(release, **{"p1c-answer": IGNORES_INTERRUPT})},
            without(full1, "p1c_intensity"),
            ("stuck",),
        ),
        Case(
            "kernel-death",
            {"problem1": p1(release, **{"p1b-answer": "import os\n\nos._exit(1)"})},
            without(full1, "p1b_ops"),
            ("kernel-died",),
        ),
        Case(
            "syntax-error",
            {
                "problem1": p1(
                    release, **{"p1c-answer": "def arithmetic_intensity(B, D, F)\n    return 1"}
                )
            },
            without(full1, "p1c_intensity"),
            ("error",),
        ),
        Case(
            "edited-test",
            {"problem1": _edit(p1(release, **{"p1a-answer": WRONG_BYTES}), _edit_test)},
            without(full1, "p1a_bytes"),
            ("edited-cell",),
        ),
        Case(
            "deleted-test",
            {"problem1": _edit(p1(release, **{"p1b-answer": wrong_ops}), _delete_test)},
            without(full1, "p1b_ops"),
            ("deleted-cell",),
        ),
        Case(
            "deleted-answer-and-test",
            {"problem1": _edit(p1(release), _delete_answer_and_test)},
            without(full1, "p1a_bytes"),
            ("deleted-cell",),
        ),
        Case(
            "duplicated-cells",
            {"problem1": _edit(p1(release), _duplicate)},
            full1,
            ("duplicated-cell",),
        ),
        Case("invalid-json", {"problem1": b'{"cells": [ this is not json'}, {}, ("invalid-json",)),
        Case(
            "missing-notebook",
            {"problem1": b""},
            {},
            ("missing-notebook",),
            {"problem1": "notes.txt"},
        ),
        Case(
            "misnamed-notebook",
            {"problem1": p1(release)},
            full1,
            ("misnamed-notebook",),
            {"problem1": "problem1-Copy1.ipynb"},
        ),
        Case(
            "huge-output",
            {"problem1": _edit(p1(release), _huge_outputs)},
            full1,
            ("huge-output", "output-truncated"),
        ),
        Case(  # 50,000 cells cost half a minute outside any kernel: refused, with the reason
            "many-cells",
            {"problem1": _edit(p1(release), _many_cells)},
            {},
            ("too-large",),
        ),
        Case(
            "odd-cells",
            {"problem1": _odd_cells(p1(release))},
            full1,
            ("foreign-cell", "changed-flags", "repaired-cell"),
        ),
    ]
    attacks = [
        Case(student, {"problem1": p1(release, **answers)}, without(full1, *ATTACKED[student]))
        for student, answers in ATTACKS.items()
    ]
    partial = Case(
        "partial",
        {
            "problem1": p1(release, **PARTIAL_P1),
            "problem6": solved(release, "problem6", **PARTIAL_P6),
        },
        {
            gid: FULL[gid]
            for gid in (
                "p1a_bytes",
                "p1d_times",
                "p6a_standard",
                "p6b_standard_intensity",
                "p6d_regime",
            )
        },
        ("missing-notebook",),
    )
    return [
        Case("solved", {a: solved(release, a) for a in ASSIGNMENTS}, dict(FULL)),
        Case("blank", {a: release_notebook(release, a) for a in ASSIGNMENTS}, {}),
        partial,
        # read in Chinese (the lab records it): the same grades, a page in Chinese
        replace(
            partial,
            student="partial-zh",
            notebooks={a: _edit(nb, _read_in_chinese) for a, nb in partial.notebooks.items()},
        ),
        *bad,
        *attacks,
        *mistake_cases(release),
    ]


def _read_in_chinese(nb: nbformat.NotebookNode) -> None:
    nb.metadata[METADATA_KEY] = "zh_CN"


def expected_problem1_total(case: Case) -> float:
    return sum(v for k, v in case.expect.items() if k.startswith("p1"))


def load_json(path: Path) -> dict:
    return json.loads(path.read_text())
