"""A page to take home: the notebook a reader downloads, built from the page as it is shown.

The download is the page's executed notebook (myst-nb's ``jupyter_execute/<page>.ipynb``) with its
prose written again from the page's resolved doctree, so that it reads in plain JupyterLab and
runs with the student kit's packages alone:

* **Prose** is the page's own, as the reader saw it: translated in a translated edition, every
  glued value written in as text, cross-references resolved to their text (a link when the book
  has an ``html_baseurl``), numbered figures and equations numbered. Boxes (exercises, solutions,
  takeaways, errata, admonitions) become blockquotes under a bold title; a worked solution or an
  exercise's solution folds away in ``<details>``; a glued figure is an image in the prose (a
  ``data:`` URL: JupyterLab shows no SVG attachment); an
  answer box or the live explorer, which need the book's scripts, says so and points to the
  online page (the explorer: its note for readers without JavaScript). :func:`markdown_of`
  writes it; nothing of MyST (labels, roles, directives) is left.
* **Code** is the notebook's, in the notebook's order, with its outputs. Cells the page hides
  (``remove-cell``) stay, collapsed and without outputs, since later cells need what they
  compute. The helpers every page imports from ``booktools`` (a module beside the page that
  needs myst-nb) come instead as the notebook's first cell: ``book/booktools.py``'s own source
  with myst-nb's ``glue`` made a no-op (:func:`helpers_cell`, the values are in the prose
  already), and each cell's ``from booktools import ...`` is dropped (:func:`without_booktools`).

:func:`take_home` puts the two together, cell by cell: the page's code cells keep their
``cell_index`` in the doctree (myst-nb), and the prose between two of them is one Markdown cell.
"""

from __future__ import annotations

import ast
import base64
import copy
import html
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin

import nbformat
from docutils import nodes

from roofline_lib.words import say, say_later

ANSWER_BOX_NOTE = say_later(
    "*Answer box: work out your number, then check it in this exercise on the online page of "
    "the course.*"
)
HELPERS_NOTE = say_later(
    "The course's page helpers (book/booktools.py): run this cell first; the other cells use "
    "its functions."
)
HELD_BACK = "HeldBack"
"""The course extension's node for working that gives a question's answer away (course.py)."""
HELD_BACK_SUMMARY = say_later("Show the working now (it gives the answer away)")
GLUE_IMPORT = "from myst_nb import glue\n"
"""The line of book/booktools.py that needs myst-nb (replaced by :data:`NO_GLUE`)."""
NO_GLUE = (
    "def glue(name, value, display=True):\n"
    '    """The book pastes glued values into its prose; this notebook has them written in."""\n'
)
BOOKTOOLS = "booktools"
HIDDEN_TAGS = frozenset({"remove-cell", "remove_cell"})
"""A code cell with one of these tags is not shown on the page (myst-nb)."""
SOURCE_HIDDEN_TAGS = frozenset({"remove-input", "remove_input", "hide-input", "hide-cell"})
"""A code cell with one of these tags shows its output but not its source."""
_NOSCRIPT = re.compile(r"<noscript>(.*?)</noscript>", re.DOTALL)
_CODE_TAG = re.compile(r"<code>(.*?)</code>", re.DOTALL)
_TAG = re.compile(r"<[^>]+>")
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_$<>\[\]|#])")


class TakeHomeError(ValueError):
    """The page cannot be written as a notebook that runs alone (a helper's import changed)."""


# ---------------------------------------------------------------------------------------------
# Prose: a doctree as Markdown
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MarkdownWriter:
    """Writes doctree elements as Markdown blocks. ``link`` gives a reference's URL (None: show
    its text only); ``image`` gives an image node's ``data:`` URL (:func:`data_url`) or None."""

    link: Callable[[nodes.reference], str | None]
    image: Callable[[nodes.image], str | None]
    number: Callable[[nodes.Element], str] = lambda element: ""
    """A numbered element's number as the page shows it ("Fig. 7", "Exercise 3"), or ""."""
    language: str = "en"

    # -- inline ---------------------------------------------------------------------------

    def inline(self, node: nodes.Node) -> str:
        """The Markdown of an inline node and its children, on one line."""
        if isinstance(node, nodes.Text):
            return _escape(str(node).replace("\n", " "))
        if not isinstance(node, nodes.Element):
            return ""
        if isinstance(node, (nodes.target, nodes.comment, nodes.system_message)):
            return ""
        if "edition-links" in node.get("classes", []):  # the section in the other editions
            links = [r for r in node.findall(nodes.reference) if self.link(r)]
            return " ".join(self.inline(r) for r in links)  # none where they cannot lead
        if isinstance(node, nodes.math):
            return f"${node.astext().strip()}$"
        if isinstance(node, nodes.literal):
            return _code_span(node.astext())
        inner = "".join(self.inline(child) for child in node.children)
        if isinstance(node, nodes.strong):
            return f"**{inner.strip()}**" if inner.strip() else ""
        if isinstance(node, nodes.emphasis):
            return f"*{inner.strip()}*" if inner.strip() else ""
        if isinstance(node, nodes.image):
            return self._image(node)
        if isinstance(node, nodes.reference):
            url = self.link(node)
            return inner if url is None else f"[{inner}]({url})"
        return inner

    def _image(self, node: nodes.image) -> str:
        found = self.image(node)
        alt = _escape(node.get("alt", "")) or "figure"
        if found is None:
            return ""
        return f"![{alt}]({found})"

    # -- blocks ---------------------------------------------------------------------------

    def blocks(self, node: nodes.Node, depth: int = 1) -> list[str]:
        """The Markdown blocks (separated by blank lines) of a body element; ``depth`` is the
        heading level of a section's title inside it."""
        if isinstance(node, nodes.Text):
            return [_escape(str(node))] if str(node).strip() else []
        if not isinstance(node, nodes.Element):
            return []
        if isinstance(node, (nodes.target, nodes.comment, nodes.system_message, nodes.raw)):
            return self._raw(node) if isinstance(node, nodes.raw) else []
        if isinstance(node, (nodes.section, nodes.document)):
            out = []
            for child in node.children:
                if isinstance(child, nodes.title):
                    out.append("#" * min(depth, 6) + " " + self.inline(child).strip())
                else:
                    deeper = isinstance(child, nodes.section) and isinstance(node, nodes.section)
                    out += self.blocks(child, depth + 1 if deeper else depth)
            return out
        if isinstance(node, (nodes.paragraph, nodes.rubric, nodes.line)):
            text = self.inline(node).strip()
            return [text] if text else []
        if isinstance(node, nodes.math_block):
            number = f" \\tag{{{node['number']}}}" if node.get("number") else ""
            return [f"$$\n{node.astext().strip()}{number}\n$$"]
        if isinstance(node, nodes.literal_block):
            language = node.get("language", "")
            language = "" if language in ("default", "none", "myst-ansi") else language
            return [f"```{language}\n{node.astext().rstrip()}\n```"]
        if isinstance(node, (nodes.bullet_list, nodes.enumerated_list)):
            return [self._list(node)]
        if isinstance(node, nodes.table):
            return self._table(node)
        if isinstance(node, nodes.figure):
            return self._figure(node)
        if isinstance(node, nodes.image):
            return [self._image(node)]
        if isinstance(node, nodes.definition_list):
            out = []
            for item in node.findall(nodes.definition_list_item):
                term = "".join(self.inline(t) for t in item.findall(nodes.term))
                out.append(f"**{term.strip()}**")
                for definition in item.findall(nodes.definition):
                    out += self._children(definition, depth)
            return out
        if isinstance(node, nodes.block_quote):
            return [_quoted(self._children(node, depth))]
        if _is_box(node):
            return self._box(node, depth)
        if type(node).__name__ == HELD_BACK:  # the page folds it until the question is answered
            summary = say(HELD_BACK_SUMMARY, language=self.language)
            return [_details(summary, self._children(node, depth))]
        if isinstance(node, nodes.compound) and "toctree-wrapper" in node.get("classes", []):
            return []
        return self._children(node, depth)

    def _children(self, node: nodes.Element, depth: int) -> list[str]:
        out: list[str] = []
        for child in node.children:
            out += self.blocks(child, depth)
        return out

    def _raw(self, node: nodes.raw) -> list[str]:
        text = node.astext()
        if 'class="predict"' in text:
            return [say(ANSWER_BOX_NOTE, language=self.language)]
        shown = _NOSCRIPT.search(text)  # what the page says where its script cannot run
        if shown:
            words = _CODE_TAG.sub(lambda m: _code_span(html.unescape(m.group(1))), shown.group(1))
            return [html.unescape(_TAG.sub("", words)).strip()]
        return []  # the book's own HTML (a script, a widget's view): nothing to read

    def _list(self, node: nodes.Element) -> str:
        ordered = isinstance(node, nodes.enumerated_list)
        start = int(node.get("start", 1))
        lines = []
        for number, item in enumerate(node.children, start):
            marker = f"{number}. " if ordered else "- "
            body = "\n\n".join(self._children(item, 1)) if isinstance(item, nodes.Element) else ""
            indent = " " * len(marker)
            first, *rest = body.split("\n") or [""]
            lines.append(marker + first)
            lines += [indent + line if line else "" for line in rest]
        return "\n".join(lines)

    def _table(self, node: nodes.table) -> list[str]:
        out = []
        title = next(iter(node.findall(nodes.title)), None)
        number = self.number(node)
        if title is not None or number:
            text = self.inline(title).strip() if title is not None else ""
            out.append("**" + " ".join(b for b in (number, text) if b) + "**")
        rows = []
        head_rows = 0
        for part in node.findall(lambda n: isinstance(n, (nodes.thead, nodes.tbody))):
            for row in part.findall(nodes.row):
                cells = [
                    _trimmed(" ".join(self.inline(p) for p in entry.children)).replace("|", "\\|")
                    for entry in row.findall(nodes.entry)
                ]
                rows.append(cells)
                if isinstance(part, nodes.thead):
                    head_rows += 1
        if not rows:
            return out
        width = max(len(r) for r in rows)
        rows = [r + [""] * (width - len(r)) for r in rows]
        header = rows[0] if head_rows else [""] * width
        body = rows[1:] if head_rows else rows
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * width]
        lines += ["| " + " | ".join(r) + " |" for r in body]
        out.append("\n".join(lines))
        return out

    def _figure(self, node: nodes.figure) -> list[str]:
        out = []
        for image in node.findall(nodes.image):
            shown = self._image(image)
            if shown:
                out.append(shown)
        caption = next(iter(node.findall(nodes.caption)), None)
        if caption is not None:
            text = " ".join(b for b in (self.number(node), self.inline(caption).strip()) if b)
            out.append(f"*{text}*" if text else "")
        return [b for b in out if b]

    def _box(self, node: nodes.Element, depth: int) -> list[str]:
        title_node = next(
            (c for c in node.children if isinstance(c, nodes.Element) and _is_title(c)), None
        )
        title = self.inline(title_node).strip() if title_node is not None else ""
        title = (self.number(node) + " " + title).strip() if self.number(node) else title
        body = []
        for child in node.children:
            if child is title_node:
                continue
            body += self.blocks(child, depth)
        if _folds(node):
            return [_details(_strip_markdown(title) or "…", body)]
        return [_quoted([f"**{title}**", *body] if title else body)]


_DANGLING = re.compile(r"^(?:\s*[·,;]\s*)+|(?:\s*[·,;]\s*)+$")


def _trimmed(text: str) -> str:
    """A table cell's Markdown without a separator left at either end by a link dropped beside it
    ("[page 2](...) · " when the other edition's link has no address): "[page 2](...)"."""
    return _DANGLING.sub("", text.strip())


def online_url(refuri: str, refid: str, pagename: str, edition_root: str) -> str | None:
    """Where a reference on page ``pagename`` leads in the online book whose edition is
    published at ``edition_root`` (``html_baseurl``, and the edition's folder): an external URL
    as it is; a page's ``refuri`` (relative to the page) or an anchor ``refid`` on the page
    itself made absolute; None when the book has no address (``edition_root`` empty)."""
    if "://" in refuri or refuri.startswith("mailto:"):
        return refuri
    if not edition_root or not (refuri or refid):
        return None
    page = f"{edition_root.rstrip('/')}/{pagename}.html"
    return urljoin(page, refuri) if refuri else f"{page}#{refid}"


def _details(summary: str, blocks: list[str]) -> str:
    """Blocks folded under a summary (HTML that JupyterLab's Markdown shows as a dropdown)."""
    return f"<details>\n<summary>{summary}</summary>\n\n" + "\n\n".join(blocks) + "\n\n</details>"


def _is_title(node: nodes.Element) -> bool:
    return isinstance(node, nodes.title) or type(node).__name__.endswith("_title")


def _is_box(node: nodes.Element) -> bool:
    """An admonition, or sphinx-exercise's exercise or solution."""
    return isinstance(node, nodes.Admonition) or type(node).__name__ in (
        "exercise_enumerable_node",
        "exercise_unenumerable_node",
        "solution_node",
    )


def _folds(node: nodes.Element) -> bool:
    """A box the page shows collapsed: a solution, or a dropdown (a worked solution)."""
    return type(node).__name__ == "solution_node" or "dropdown" in node.get("classes", [])


def _escape(text: str) -> str:
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def _strip_markdown(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text.replace("**", "").replace("*", ""))


def _code_span(text: str) -> str:
    ticks = "`" * (max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _quoted(blocks: Iterable[str]) -> str:
    text = "\n\n".join(blocks)
    return "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))


def markdown_of(body: Iterable[nodes.Node], writer: MarkdownWriter, depth: int = 1) -> str:
    """The Markdown of a run of body elements (blank lines between blocks)."""
    blocks: list[str] = []
    for node in body:
        blocks += writer.blocks(node, depth)
    return "\n\n".join(b for b in blocks if b.strip())


# ---------------------------------------------------------------------------------------------
# Code: the page's cells without booktools
# ---------------------------------------------------------------------------------------------


def helpers_cell(booktools_source: str, language: str = "en") -> nbformat.NotebookNode:
    """The notebook's first cell: book/booktools.py's source, myst-nb's ``glue`` a no-op."""
    if GLUE_IMPORT not in booktools_source:
        raise TakeHomeError(
            f"book/booktools.py must import glue as {GLUE_IMPORT.strip()!r} (the take-home "
            "notebook replaces that line), and no longer does"
        )
    source = booktools_source.replace(GLUE_IMPORT, NO_GLUE, 1)
    future = "from __future__ import annotations\n"
    if future in source:  # a __future__ import comes before any other statement of the cell
        source = future + source.replace(future, "", 1)
    note = "# " + say(HELPERS_NOTE, language=language) + "\n"  # the line a folded cell shows
    cell = nbformat.v4.new_code_cell(note + source)
    cell.metadata.update({"tags": ["remove-cell"], "jupyter": {"source_hidden": True}})
    return cell


def without_booktools(source: str) -> str:
    """A cell's code with its imports from ``booktools`` removed (the helpers cell defines the
    names). Any other use of the module (``import booktools``) is a :class:`TakeHomeError`."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source  # IPython magics: left as they are
    drop: list[tuple[int, int]] = []
    for statement in ast.walk(tree):
        if isinstance(statement, ast.ImportFrom) and statement.module == BOOKTOOLS:
            drop.append((statement.lineno, statement.end_lineno or statement.lineno))
        elif isinstance(statement, ast.Import) and any(
            alias.name == BOOKTOOLS for alias in statement.names
        ):
            raise TakeHomeError(
                "a page imports booktools as a module; the take-home notebook supports "
                f"`from booktools import ...` only, in:\n{source}"
            )
    lines = source.split("\n")
    for first, last in sorted(drop, reverse=True):
        del lines[first - 1 : last]
    return "\n".join(lines)


def _code_cell(cell: nbformat.NotebookNode) -> nbformat.NotebookNode:
    out = copy.deepcopy(cell)
    out.source = without_booktools(out.source)
    tags = set(out.metadata.get("tags", []))
    jupyter = dict(out.metadata.get("jupyter", {}))
    if tags & HIDDEN_TAGS:
        out.outputs = []  # nothing of it is shown on the page (an answer box's data even less)
        out.execution_count = None
        jupyter["source_hidden"] = True
    elif tags & SOURCE_HIDDEN_TAGS:
        jupyter["source_hidden"] = True
    if jupyter:
        out.metadata["jupyter"] = jupyter
    return out


# ---------------------------------------------------------------------------------------------
# The notebook
# ---------------------------------------------------------------------------------------------


def _is_code_cell(node: nodes.Node) -> bool:
    return isinstance(node, nodes.Element) and node.get("nb_element") == "cell_code"


def _contains_code_cell(node: nodes.Node) -> bool:
    return isinstance(node, nodes.Element) and any(
        _is_code_cell(n) for n in node.findall(nodes.container)
    )


def take_home(
    executed: nbformat.NotebookNode,
    doctree: nodes.document,
    writer: MarkdownWriter,
    booktools_source: str | None,
) -> nbformat.NotebookNode:
    """The notebook a reader downloads: the page's prose (from ``doctree``, as the page shows it)
    between the page's code cells (from ``executed``, myst-nb's executed notebook), with
    ``booktools`` replaced by its own source (:func:`helpers_cell`) when the page uses it."""
    cells: list[nbformat.NotebookNode] = []
    code = {i: c for i, c in enumerate(executed.cells) if c.cell_type == "code"}
    written: set[int] = set()
    prose: list[str] = []

    def flush() -> None:
        text = "\n\n".join(b for b in prose if b.strip())
        prose.clear()
        if not text:
            return
        cell = nbformat.v4.new_markdown_cell(text)
        cells.append(cell)

    def code_up_to(index: int) -> None:
        for i in sorted(code):
            if i <= index and i not in written:
                written.add(i)
                cells.append(_code_cell(code[i]))

    def walk(node: nodes.Node, depth: int) -> None:
        if _is_code_cell(node):
            flush()
            code_up_to(int(node["cell_index"]))  # type: ignore[index]
            return
        if not _contains_code_cell(node):
            prose.extend(writer.blocks(node, depth))
            return
        assert isinstance(node, nodes.Element)
        # a section (or box) holding a code cell: its title here, its children one by one
        for child in node.children:
            if isinstance(child, nodes.title) and isinstance(node, nodes.section):
                prose.append("#" * min(depth, 6) + " " + writer.inline(child).strip())
            else:
                walk(child, depth + 1 if isinstance(child, nodes.section) else depth)

    for child in doctree.children:
        walk(child, 1)
    flush()
    code_up_to(max(code, default=-1))
    uses_booktools = any(_imports_booktools(c.source) for c in code.values())
    if uses_booktools:
        if booktools_source is None:
            raise TakeHomeError("the page imports booktools, but no booktools source was given")
        first = 1 if cells and cells[0].cell_type == "markdown" else 0  # after the title
        cells.insert(first, helpers_cell(booktools_source, writer.language))
    notebook = nbformat.v4.new_notebook(cells=cells, metadata=copy.deepcopy(executed.metadata))
    for key in ("source_map", "jupytext", "wordcount"):
        notebook.metadata.pop(key, None)
    notebook.metadata["language"] = writer.language
    return notebook


def _imports_booktools(source: str) -> bool:
    return without_booktools(source) != source


IMAGE_TYPES = {".svg": "image/svg+xml", ".png": "image/png", ".jpg": "image/jpeg"}


def data_url(path: Path) -> str | None:
    """An image file as a ``data:<type>;base64,`` URL, which JupyterLab shows in Markdown (SVG
    too, where it refuses an SVG cell attachment); None for another file or no file."""
    mime = IMAGE_TYPES.get(path.suffix)
    if mime is None or not path.is_file():
        return None
    return f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"
