"""One place per problem: a solution notebook and a checks module, and everything else derived.

The course's notebooks must agree with their checks modules (ids, order, points, kinds, the header
rendered from one template, the release). A demonstration problem, written in a temporary folder
the way CONTRIBUTING.md's "How to add a problem" says, is discovered, agrees, is released by
nbgrader and is graded to full marks; broken, the check names what broke. No kernels: fast.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import shutil
import sys
import textwrap
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import nbformat
import pytest

from roofline_grader.checks import REGISTRY, Part, Problem, header, make_plan
from roofline_grader.checks.agreement import disagreements
from roofline_grader.checks.registry import discover
from roofline_grader.course import Course
from roofline_grader.course.release import generate, write_headers
from roofline_grader.course.release import main as release_main
from roofline_grader.hidden import collect

from .grading_cases import ROOT


def test_the_course_notebooks_agree_with_their_checks_modules() -> None:
    """Fails when a notebook and its checks module disagree; the message says where."""
    assert disagreements(REGISTRY, ROOT / "solutions", ROOT / "exercises") == []


def test_the_registry_is_every_checks_module_in_numeric_order() -> None:
    modules = sorted(
        int(p.stem.removeprefix("problem"))
        for p in (ROOT / "roofline_grader" / "checks").glob("problem*.py")
    )
    assert list(REGISTRY) == [f"problem{n}" for n in modules]


@pytest.mark.parametrize("points", [0, -1, 1.5, True, "2"])
def test_a_part_must_be_worth_a_positive_whole_number_of_points(points: Any) -> None:
    with pytest.raises(ValueError, match="p9a_demo: points must be a positive integer"):
        Part("p9a_demo", "problem9", "a", "a demo", points=points)


def test_a_problem_is_worth_the_sum_of_its_parts_written_ones_included() -> None:
    assert REGISTRY["problem4"].points == 6  # 2 + 2 autograded, 2 written
    assert header.points_text(1) == "1 point"


# ----------------------------------------------------------------------------------------------
# A demonstration problem, added as CONTRIBUTING.md says
# ----------------------------------------------------------------------------------------------

CHECKS_MODULE = """
from roofline_grader.checks.base import Check, Part, call_probe, compare

TITLE = "{title}"
QUESTION = "What is twice a number?"


def _plan(rng):
    return [call_probe("double", [(rng.randint(1, 10**6),) for _ in range(5)])]


def _verify(plan, answers):
    probe = plan["double"]
    want = [2 * x for (x,) in probe.calls]
    return [compare("double(x) on unseen x", probe, answers, want, "twice x is x + x")]


PARTS = (
    Part(
        "p{n}a_double",
        "problem{n}",
        "a",
        "twice a number",
        points=1,
        check=Check(_plan, _verify, visible_calls=(call_probe("double", [(3,)]),)),
    ),
)
"""

ANSWER = "### BEGIN SOLUTION\ndef double(x):\n    return 2 * x\n### END SOLUTION"
CHECK_CELL = (
    "assert double(3) == 6, 'double(3) should be 6'\n"
    "### BEGIN HIDDEN TESTS\n"
    "import roofline_grader.hidden\n\n"
    'roofline_grader.hidden.check("p{n}a_double", globals())\n'
    "### END HIDDEN TESTS"
)


def _cell(kind: str, grade_id: str, source: str, **flags: Any) -> nbformat.NotebookNode:
    """A cell with nbgrader metadata, as the create-assignment toolbar writes it."""
    new = nbformat.v4.new_code_cell if kind == "code" else nbformat.v4.new_markdown_cell
    cell = new(source, id=grade_id.replace("_", "-"))
    meta = {"grade": False, "locked": True, "solution": False, "task": False, **flags}
    cell.metadata["nbgrader"] = {"grade_id": grade_id, "schema_version": 3, **meta}
    if flags.get("grade") and kind == "code":
        cell.metadata["tags"] = ["raises-exception"]
    return cell


def solution_notebook(n: int) -> nbformat.NotebookNode:
    """Problem n's solution notebook: a statement, an answer cell and its check cell; no header
    (``make release`` writes it)."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        _cell("markdown", f"p{n}a-text", "**(a)** Define `double(x)`, twice `x`. *(1 point)*"),
        _cell("code", f"p{n}a-answer", ANSWER, locked=False, solution=True),
        _cell("code", f"p{n}a_double", CHECK_CELL.format(n=n), grade=True, points=1),
    ]
    return nb


@dataclass(frozen=True)
class Demo:
    """A course folder and a checks package holding the demonstration problems."""

    course: Course
    package: ModuleType

    def add(self, n: int, title: str = "Doubling", notebook: bool = True) -> None:
        """Add problem n: its checks module and (unless ``notebook`` is False) its notebook."""
        module = Path(self.package.__path__[0]) / f"problem{n}.py"
        module.write_text(textwrap.dedent(CHECKS_MODULE.format(n=n, title=title)))
        importlib.invalidate_caches()
        if notebook:
            folder = self.course.solutions / f"problem{n}"
            folder.mkdir(parents=True)
            nbformat.write(solution_notebook(n), str(folder / f"problem{n}.ipynb"))

    def problems(self) -> dict[str, Problem]:
        return discover(self.package)

    def notebook(self, n: int) -> Path:
        return self.course.source_notebook(f"problem{n}")

    def edit(self, n: int, grade_id: str, /, **nbgrader: Any) -> None:
        """Set nbgrader metadata of a cell; ``delete=True`` removes the cell."""
        nb = nbformat.read(str(self.notebook(n)), 4)
        cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id]
        if nbgrader.pop("delete", False):
            nb.cells.remove(cells[0])
        else:
            cells[0].metadata["nbgrader"].update(nbgrader)
        nbformat.write(nb, str(self.notebook(n)))


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[Demo]:
    name = f"demo_checks_{uuid.uuid4().hex[:8]}"
    (tmp_path / "pkg" / name).mkdir(parents=True)
    (tmp_path / "pkg" / name / "__init__.py").write_text("")
    (tmp_path / "course" / "solutions").mkdir(parents=True)
    sys.path.insert(0, str(tmp_path / "pkg"))
    try:
        yield Demo(Course(tmp_path / "course"), importlib.import_module(name))
    finally:
        sys.path.remove(str(tmp_path / "pkg"))
        for module in [m for m in sys.modules if m == name or m.startswith(f"{name}.")]:
            del sys.modules[module]


def test_a_new_problem_is_found_by_its_module_alone_in_numeric_order(demo: Demo) -> None:
    for n in (10, 9, 2):
        demo.add(n, notebook=False)
    problems = demo.problems()
    assert list(problems) == ["problem2", "problem9", "problem10"]
    assert problems["problem10"] == Problem(
        "problem10", "Doubling", "What is twice a number?", problems["problem10"].parts
    )
    assert [p.grade_id for p in problems["problem10"].parts] == ["p10a_double"]


def test_a_checks_module_without_title_or_with_a_foreign_part_is_refused(demo: Demo) -> None:
    demo.add(1, notebook=False)
    module = Path(demo.package.__path__[0]) / "problem1.py"
    text = module.read_text()
    module.write_text(text.replace('QUESTION = "What is twice a number?"', ""))
    with pytest.raises(ValueError, match=r"problem1 must define QUESTION"):
        demo.problems()
    module.write_text(text.replace('"problem1",', '"problem2",'))
    sys.modules.pop(f"{demo.package.__name__}.problem1")
    with pytest.raises(ValueError, match="part p1a_double says problem 'problem2'"):
        demo.problems()


def test_two_problems_with_one_grade_id_are_refused_naming_both(demo: Demo) -> None:
    demo.add(1, notebook=False)
    demo.add(2, notebook=False)
    module = Path(demo.package.__path__[0]) / "problem2.py"
    module.write_text(module.read_text().replace('"p2a_double"', '"p1a_double"'))
    with pytest.raises(ValueError, match="p1a_double is a part of both problem1 and problem2"):
        demo.problems()


def test_the_release_writes_the_header_once_and_the_problem_then_agrees(demo: Demo) -> None:
    demo.add(1)
    problems = demo.problems()
    assert disagreements(problems, demo.course.solutions) == [
        "problem1: the first cell is not the header rendered from checks/header.md: run "
        "`make release`"
    ]
    assert write_headers(demo.course, problems) == [demo.notebook(1)]
    first = nbformat.read(str(demo.notebook(1)), 4).cells[0]
    assert first.source.startswith("# Problem 1 · Doubling\n\nWhat is twice a number?\n")
    assert "This problem is worth **1 point**;" in first.source
    assert first.metadata["nbgrader"]["locked"] and first.metadata["nbgrader"]["grade_id"] == (
        "p1-header"
    )
    assert disagreements(problems, demo.course.solutions) == []
    written = demo.notebook(1).read_bytes()
    assert write_headers(demo.course, problems) == []
    assert demo.notebook(1).read_bytes() == written, "an up-to-date notebook is left as it is"


def test_a_changed_title_is_a_stale_header_until_the_release_rewrites_it(demo: Demo) -> None:
    demo.add(1)
    write_headers(demo.course, demo.problems())
    module = Path(demo.package.__path__[0]) / "problem1.py"
    module.write_text(module.read_text().replace('TITLE = "Doubling"', 'TITLE = "Twice"'))
    sys.modules.pop(f"{demo.package.__name__}.problem1")
    problems = demo.problems()
    assert "the first cell is not the header" in " ".join(
        disagreements(problems, demo.course.solutions)
    )
    write_headers(demo.course, problems)
    nb = nbformat.read(str(demo.notebook(1)), 4)
    assert nb.cells[0].source.startswith("# Problem 1 · Twice\n")
    assert [c.metadata["nbgrader"]["grade_id"] for c in nb.cells].count("p1-header") == 1
    assert disagreements(problems, demo.course.solutions) == []


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            {"points": 3},
            "problem1: part p1a_double is worth 1 points in problem1.py but 3 in the notebook's "
            "metadata",
        ),
        ({"delete": True}, "problem1: part p1a_double has no grade cell in "),
        ({"grade_id": "p1a_twice"}, "problem1: grade cell p1a_twice of "),
        ({"solution": True}, "problem1: part p1a_double is autograded, so its grade cell must"),
    ],
    ids=["points-differ", "part-missing", "cell-without-part", "wrong-flags"],
)
def test_a_notebook_that_disagrees_with_its_parts_is_named(
    demo: Demo, edit: dict[str, Any], message: str
) -> None:
    demo.add(1)
    write_headers(demo.course, demo.problems())
    demo.edit(1, "p1a_double", **edit)
    found = disagreements(demo.problems(), demo.course.solutions)
    assert any(m.startswith(message) for m in found), found


def test_a_folder_without_a_module_and_a_module_without_a_folder_are_named(demo: Demo) -> None:
    demo.add(1)
    demo.add(2, notebook=False)
    write_headers(demo.course, demo.problems())
    (demo.course.solutions / "problem3").mkdir()
    assert disagreements(demo.problems(), demo.course.solutions) == [
        "solutions/problem3 has no checks module problem3.py",
        "checks module problem2.py has no notebook solutions/problem2/problem2.ipynb",
    ]


def _score(problem: Problem, notebook: Path) -> int:
    """Points a notebook earns: its code cells run (the check cells' visible part aside), then each
    autograded part's hidden check judges the answers, as the sealed grader does."""
    nb = nbformat.read(str(notebook), 4)
    ns: dict[str, Any] = {}
    for cell in nb.cells:
        if cell.cell_type == "code" and not cell.metadata["nbgrader"].get("grade"):
            with contextlib.suppress(NotImplementedError):  # a blank answer cell
                exec(compile(cell.source, "answer", "exec"), ns)
    total = 0
    for part in problem.parts:
        assert part.check is not None
        plan = make_plan(part.check, f"demo|{part.grade_id}")
        answers = json.loads(json.dumps(collect(ns, [p.to_json() for p in plan.values()])))
        if all(f.passed for f in part.check.verify(plan, answers)):
            total += part.points
    return total


def test_the_demonstration_problem_is_released_by_nbgrader_and_its_solution_gets_full_marks(
    demo: Demo, tmp_path: Path
) -> None:
    demo.add(1)
    problems = demo.problems()
    write_headers(demo.course, problems)
    release = tmp_path / "release"
    generate(demo.course, release)
    assert disagreements(problems, demo.course.solutions, release) == []
    released = release / "problem1" / "problem1.ipynb"
    text = released.read_text()
    for secret in ("BEGIN SOLUTION", "HIDDEN TESTS", "return 2 * x"):
        assert secret not in text, secret
    assert _score(problems["problem1"], demo.notebook(1)) == problems["problem1"].points == 1
    assert _score(problems["problem1"], released) == 0, "the blank release earns nothing"


def test_make_release_stops_naming_the_part_when_a_notebook_disagrees(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    course = Course(tmp_path / "course")
    shutil.copytree(ROOT / "solutions", course.solutions)
    path = course.source_notebook("problem2")
    nb = nbformat.read(str(path), 4)
    cell = next(c for c in nb.cells if c.metadata["nbgrader"]["grade_id"] == "p2b_exact")
    cell.metadata["nbgrader"]["points"] = 4
    nbformat.write(nb, str(path))
    out = tmp_path / "release"
    assert release_main(["--course", str(course.root), "--out", str(out)]) == 1
    assert "part p2b_exact is worth 3 points in problem2.py but 4" in capsys.readouterr().out
    assert not out.exists(), "nothing is released from notebooks that disagree"


def test_a_bilingual_problem_needs_the_chinese_of_every_statement_cell(demo: Demo) -> None:
    """A checks module with TITLE_ZH makes its problem bilingual: the header gets its Chinese below
    the English, and each statement cell must too, keeping every formula, name and number."""
    demo.add(1)
    module = Path(demo.package.__path__[0]) / "problem1.py"
    module.write_text(
        module.read_text() + 'TITLE_ZH = "翻倍"\nQUESTION_ZH = "一个数的两倍是多少？"\n'
    )
    problems = demo.problems()
    write_headers(demo.course, problems)
    first = nbformat.read(str(demo.notebook(1)), 4).cells[0].source
    assert first.startswith("# Problem 1 · Doubling\n")
    assert f"{header.RULE}# 习题 1 · 翻倍\n\n一个数的两倍是多少？\n" in first
    assert "本题共 **1 分**" in first
    statement = "**(a)** Define `double(x)`, twice `x`. *(1 point)*"
    assert disagreements(problems, demo.course.solutions) == [
        "problem1: cell p1a-text is not its English, a --- rule and its Chinese: translate it"
    ]
    for chinese, found in (
        ("**(a)** 定义 `double(x)`：`x` 的两倍。*（1 分）*", []),
        (
            "**(a)** 定义 `twice(x)`：`x` 的两倍。*（1 分）*",
            ["problem1: cell p1a-text: its Chinese lacks `double(x)` of its English"],
        ),
        (
            "**(a)** 定义 `double(x)`：`x` 的两倍。",
            ["problem1: cell p1a-text: its Chinese lacks 1 of its English"],
        ),
    ):
        nb = nbformat.read(str(demo.notebook(1)), 4)
        nb.cells[1].source = statement + header.RULE + chinese
        nbformat.write(nb, str(demo.notebook(1)))
        assert disagreements(problems, demo.course.solutions) == found
