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
        "import roofline_grader.outputs.report\n"
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

GRADER_FLOORS = (
    ("checks",),
    ("hidden", "names", "results"),
    ("course",),
    ("kernel",),
    ("intake",),
    ("outputs",),
    ("handgrading",),
    ("run",),
)
"""The grader's rooms (its top-level modules and subpackages), lowest floor first: a room imports
only rooms on the floors below it (CONTRIBUTING.md, "The grader's parts")."""


def _grader_rooms() -> list[str]:
    """The grader's top-level modules and subpackages, by their name under roofline_grader."""
    names = [p.stem for p in GRADER.glob("*.py") if p.stem != "__init__"]
    return sorted(names + [p.name for p in GRADER.iterdir() if (p / "__init__.py").is_file()])


def _grader_modules() -> list[str]:
    """Every module of the grader, dotted ('kernel.execute', 'results', 'checks.base')."""
    found = []
    for path in GRADER.rglob("*.py"):
        parts = path.relative_to(GRADER).with_suffix("").parts
        parts = parts[:-1] if parts[-1] == "__init__" else parts
        if parts:
            found.append(".".join(parts))
    return sorted(found)


def _docstring(module: str) -> str:
    path = GRADER.joinpath(*module.split("."))
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""


def test_the_graders_map_names_every_module() -> None:
    # a newcomer finds a module's room in roofline_grader/__init__.py, the module in its room's
    # docstring, and both in CONTRIBUTING.md's map
    top = (GRADER / "__init__.py").read_text(encoding="utf-8")
    contributing = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    section = contributing.split("## The grader's parts", 1)[1].split("\n## ", 1)[0]
    for room in _grader_rooms():
        assert f"roofline_grader.{room}`" in top, f"{room} is not in the package docstring"
        assert f"`{room}/`" in section or f"`{room}`" in section, f"{room} is not in CONTRIBUTING"
    for module in _grader_modules():
        room, _, rest = module.partition(".")
        if not rest or room == "checks":  # the checks: one module per problem, listed by registry
            continue
        assert f"roofline_grader.{module}`" in _docstring(room), (
            f"{module} is not in roofline_grader/{room}/__init__.py's docstring"
        )
        assert f"`{rest}`" in section, f"{module} is not in CONTRIBUTING's map of the grader"


def _grader_imports(path: Path) -> set[str]:
    """The grader modules ``path`` imports, dotted under roofline_grader (at any depth,
    TYPE_CHECKING blocks excepted); ``from roofline_grader.x import y`` is module x.y when x/y.py
    exists, else x."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip |= {id(n) for child in node.body for n in ast.walk(child)}
    package = path.relative_to(ROOT).with_suffix("").parts[:-1]
    modules = set(_grader_modules())
    found = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            targets = [alias.name.split(".") for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(package[: len(package) - node.level + 1])
                module = [*base, *(node.module or "").split(".")] if node.module else base
            else:
                module = (node.module or "").split(".")
            targets = [[*module, alias.name] for alias in node.names]
        else:
            continue
        for dotted in targets:
            if dotted[0] != "roofline_grader":
                continue
            inner = dotted[1:]
            while inner and ".".join(inner) not in modules:
                inner = inner[:-1]
            if inner:
                found.add(".".join(inner))
    return found


def _import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in GRADER.rglob("*.py"):
        parts = path.relative_to(GRADER).with_suffix("").parts
        parts = parts[:-1] if parts[-1] == "__init__" else parts
        if parts:
            name = ".".join(parts)
            graph[name] = _grader_imports(path) - {name}
    return graph


def test_each_room_of_the_grader_imports_only_the_floors_below_it() -> None:
    floor = {room: level for level, rooms in enumerate(GRADER_FLOORS) for room in rooms}
    assert sorted(floor) == _grader_rooms(), "every room of the grader is on one floor"
    bad = []
    for module, imports in sorted(_import_graph().items()):
        room = module.split(".")[0]
        for target in sorted(imports):
            other = target.split(".")[0]
            if other != room and floor[other] >= floor[room]:
                bad.append(f"{module} imports {target} ({other} is not below {room})")
    assert not bad, "\n".join(bad)


def test_the_grader_has_no_import_cycle() -> None:
    # between its modules, function-level imports included
    graph = _import_graph()
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


def test_the_graph_sees_every_kind_of_grader_import() -> None:
    # from a module, from a package (its module named), relative, inside a function
    assert "run.runner" in _grader_imports(GRADER / "run" / "cli.py")
    assert "kernel.cgroups" in _grader_imports(GRADER / "kernel" / "sandbox.py")
    assert "checks.catalog" in _grader_imports(GRADER / "checks" / "visible.py")
    assert "kernel.warm" in _grader_imports(GRADER / "run" / "pool.py")
