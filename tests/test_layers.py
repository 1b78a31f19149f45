"""The layers of the project import one way (CONTRIBUTING.md, "The layers: who may import whom").

    roofline_lib      imports nothing of the project: students install it alone
    roofline_grader   may import roofline_lib
    book              (its pages' code cells and its .py helpers) may import roofline_lib and
                      the book's own booktools
    tests, tools      may import any layer

Every ``import`` and ``from ... import`` is read with :mod:`ast`, inside functions too; relative
imports are resolved, and one that climbs out of its top-level package is refused.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

PROJECT = {"roofline_lib", "roofline_grader", "book", "booktools", "tests", "tools", "kit"}
"""The project's own top-level names; any other import is the standard library or a dependency."""

ALLOWED = {
    "roofline_lib": {"roofline_lib"},
    "roofline_grader": {"roofline_grader", "roofline_lib"},
    "book": {"roofline_lib", "booktools"},
}
"""Layer → the project's top-level names its code may import."""

_CODE_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```", re.M | re.S)


def imported(tree: ast.AST, package: tuple[str, ...]) -> list[tuple[int, str]]:
    """``(line, top-level name)`` of every import in ``tree``; ``package`` is the dotted package
    of the module, to resolve relative imports (one dot is the package itself)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name.split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                found.append((node.lineno, (node.module or "").split(".")[0]))
            elif node.level > len(package):
                found.append((node.lineno, f"{'.' * node.level}{node.module or ''} (outside)"))
            else:
                found.append((node.lineno, package[0]))
    return found


def _sources(layer: str) -> list[Path]:
    if layer == "book":
        return sorted([*(ROOT / "book").glob("*.py"), *(ROOT / "book").glob("_ext/*.py"),
                       *(ROOT / "book").glob("*.md")])  # fmt: skip
    return sorted((ROOT / layer).rglob("*.py"))


def python_of(text: str, suffix: str) -> str:
    """The Python in a source file: all of a .py file, the code cells of a MyST .md notebook
    (IPython magics and shell lines left out)."""
    if suffix != ".md":
        return text
    lines = [line for cell in _CODE_CELL.findall(text) for line in _cell_code(cell)]
    return "\n".join(line for line in lines if line.lstrip()[:1] not in ("%", "!"))


def _cell_code(cell: str) -> list[str]:
    """A code cell's lines without its options (a ``---`` YAML block or ``:key:`` lines)."""
    lines = cell.splitlines()
    if lines and lines[0].strip() == "---":
        lines = lines[lines.index("---", 1) + 1 :]
    while lines and lines[0].startswith(":"):
        lines = lines[1:]
    return lines


def _package(path: Path, layer: str) -> tuple[str, ...]:
    """The dotted package a module's relative imports start from (a book page has none)."""
    return () if layer == "book" else path.relative_to(ROOT).parent.parts


def violations(layer: str) -> list[str]:
    """Every import in ``layer`` of a project name it may not import, as ``file:line: name``."""
    bad = []
    for path in _sources(layer):
        tree = ast.parse(python_of(path.read_text(encoding="utf-8"), path.suffix), str(path))
        for line, name in imported(tree, _package(path, layer)):
            outside = name.endswith("(outside)")
            if outside or (name in PROJECT and name not in ALLOWED[layer]):
                bad.append(f"{path.relative_to(ROOT)}:{line}: imports {name}")
    return bad


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_each_layer_imports_only_the_layers_below_it(layer):
    assert _sources(layer), f"no sources found for {layer}"
    bad = violations(layer)
    allowed = ", ".join(sorted(ALLOWED[layer]))
    assert not bad, f"{layer} may import only {allowed} of the project:\n" + "\n".join(bad)


def test_the_scan_sees_absolute_relative_and_nested_imports():
    tree = ast.parse(
        "import roofline_grader.report\n"
        "from tests.grading import x\n"
        "from ..roofline_grader import y\n"
        "from . import sibling\n"
        "def f():\n"
        "    import booktools\n"
    )
    # from ..roofline_grader in roofline_lib/measure/ is roofline_lib.roofline_grader
    assert imported(tree, ("roofline_lib", "measure")) == [
        (1, "roofline_grader"),
        (2, "tests"),
        (3, "roofline_lib"),
        (4, "roofline_lib"),
        (6, "booktools"),
    ]
    assert imported(ast.parse("from ...x import y"), ("roofline_lib", "measure"))[0][1] == (
        "...x (outside)"
    )


def test_a_book_page_is_read_by_its_code_cells():
    page = (
        "Prose may say import roofline_grader.\n\n"
        "```{code-cell} ipython3\n---\ntags: [remove-cell]\n---\n%matplotlib inline\nimport tests\n```\n\n"
        "```python\nimport tools\n```\n"
    )
    code = python_of(page, ".md")
    assert code == "import tests"
    assert imported(ast.parse(code), ()) == [(1, "tests")]


GRADER = ROOT / "roofline_grader"


def _grader_modules() -> list[str]:
    """The grader's modules and subpackages, by their name under roofline_grader."""
    names = [p.stem for p in GRADER.glob("*.py") if p.stem != "__init__"]
    return sorted(names + [p.name for p in GRADER.iterdir() if (p / "__init__.py").is_file()])


def test_the_graders_map_names_every_module() -> None:
    # a newcomer finds a module's room in roofline_grader/__init__.py and in CONTRIBUTING.md
    import roofline_grader

    docstring = roofline_grader.__doc__ or ""
    contributing = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    section = contributing.split("## The grader's parts", 1)[1]
    for name in _grader_modules():
        assert f"roofline_grader.{name}`" in docstring, f"{name} is not in the package docstring"
        assert f"`{name}`" in section, f"{name} is not in CONTRIBUTING's map of the grader"


def _grader_imports(path: Path) -> set[str]:
    """The grader modules ``path`` imports (at any depth, TYPE_CHECKING blocks excepted)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip |= {id(n) for child in node.body for n in ast.walk(child)}
    package = path.relative_to(ROOT).with_suffix("").parts[:-1]
    found = set()
    for node in ast.walk(tree):
        if id(node) in skip or not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = list(package[: len(package) - node.level + 1])
            parts = [*base, *(node.module or "").split(".")] if node.module else base
            names = [[*parts, alias.name] for alias in node.names] if not node.module else [parts]
        elif (node.module or "").startswith("roofline_grader."):
            names = [node.module.split(".")]  # type: ignore[union-attr]
        else:
            continue
        for dotted in names:
            if len(dotted) > 1 and dotted[0] == "roofline_grader":
                found.add(dotted[1])
    return found - {"__init__"}


def test_the_grader_has_no_import_cycle() -> None:
    # between its top-level modules and subpackages, function-level imports included
    modules = set(_grader_modules())
    graph = {name: set() for name in modules}
    for path in GRADER.rglob("*.py"):
        owner = path.relative_to(GRADER).parts[0].removesuffix(".py")
        if owner in graph:
            graph[owner] |= (_grader_imports(path) & modules) - {owner}
    state: dict[str, int] = {}
    cycle: list[str] = []

    def visit(node: str, trail: list[str]) -> bool:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle.extend([*trail[trail.index(nxt) :], nxt] if nxt in trail else [node, nxt])
                return True
            if nxt not in state and visit(nxt, [*trail, nxt]):
                return True
        state[node] = 2
        return False

    for start in sorted(graph):
        if start not in state and visit(start, [start]):
            break
    assert not cycle, "an import cycle in roofline_grader: " + " -> ".join(cycle)
