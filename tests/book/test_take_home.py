"""The notebook to take home (book/_ext/take_home.py), on in-memory doctrees and notebooks: the
page's prose as plain Markdown, its code without booktools. No build, no kernel (milliseconds);
tests/book/test_book_notebooks.py runs every page's download from a built site."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from docutils import nodes
from docutils.core import publish_doctree

from tests.book.site import book_extension

take_home = book_extension("take_home")

BOOKTOOLS = (
    '"""Helpers."""\n\nfrom __future__ import annotations\n\nfrom myst_nb import glue\n\n\n'
    "def glue_text(name: str, text: str) -> str:\n    glue(name, text, display=False)\n"
    "    return text\n"
)
"""A booktools.py in miniature: one helper that glues."""


def writer(**kwargs: object) -> object:
    options = {"link": lambda node: None, "image": lambda node: None, **kwargs}
    return take_home.MarkdownWriter(**options)


def rst(text: str) -> nodes.document:
    return publish_doctree(text, settings_overrides={"report_level": 5, "doctitle_xform": False})


def markdown(doctree: nodes.Node, **kwargs: object) -> str:
    return take_home.markdown_of([doctree], writer(**kwargs))


def test_glued_values_are_written_into_the_prose_as_text() -> None:
    paragraph = nodes.paragraph(
        "",
        "",
        nodes.Text("It takes "),
        nodes.inline("", "10.9 µs", classes=["pasted-text"]),
        nodes.Text(" on a "),
        nodes.strong("", "TPU v5e"),
        nodes.Text("."),
    )
    assert markdown(paragraph) == "It takes 10.9 µs on a **TPU v5e**."


def test_a_cross_reference_is_its_text_or_a_link_to_the_online_page() -> None:
    ref = nodes.reference("", "", nodes.inline("", "page 1"), refuri="01_where.html#sec-x")
    paragraph = nodes.paragraph("", "", nodes.Text("see "), ref, nodes.target(refid="sec-y"))
    assert markdown(paragraph) == "see page 1"
    online = markdown(paragraph, link=lambda node: "https://book.example/" + node["refuri"])
    assert online == "see [page 1](https://book.example/01_where.html#sec-x)"


@pytest.mark.parametrize(
    ("refuri", "refid", "root", "url"),
    [
        (
            "03_chart.html#sec-r",
            "",
            "https://x.org/zh",
            "https://x.org/zh/book/03_chart.html#sec-r",
        ),
        ("", "sec-here", "https://x.org", "https://x.org/book/04_matmul.html#sec-here"),
        ("../index.html", "", "https://x.org", "https://x.org/index.html"),
        ("https://jax-ml.github.io/", "", "", "https://jax-ml.github.io/"),
        ("03_chart.html#sec-r", "", "", None),
    ],
)
def test_a_reference_leads_to_the_online_book_when_it_has_an_address(
    refuri: str, refid: str, root: str, url: str | None
) -> None:
    assert take_home.online_url(refuri, refid, "book/04_matmul", root) == url


def test_links_to_the_other_edition_are_kept_only_where_they_can_lead() -> None:
    edition = nodes.inline("", "", nodes.reference("", "中文", refuri="../zh/x.html"))
    edition["classes"] = ["edition-links"]
    paragraph = nodes.paragraph("", "", nodes.Text("Intensity · "), edition)
    assert markdown(paragraph) == "Intensity ·"
    online = markdown(paragraph, link=lambda node: "https://x.org/zh/x.html")
    assert online == "Intensity · [中文](https://x.org/zh/x.html)"


def test_headings_lists_math_and_literal_text_are_plain_markdown() -> None:
    doctree = rst(
        "Title\n=====\n\nSub\n---\n\nA *word* with ``code`` and :math:`I^* = C/W`.\n\n"
        "- one\n- two\n\n.. math::\n\n   T = F / C\n"
    )
    text = markdown(doctree)
    assert text.startswith("# Title\n\n## Sub\n\nA *word* with `code` and $I^* = C/W$.")
    assert "- one\n- two" in text
    assert "$$\nT = F / C\n$$" in text


def test_characters_markdown_would_read_as_syntax_are_escaped() -> None:
    assert markdown(nodes.paragraph("", "a_b * c $5 [x] <y>")) == (
        "a\\_b \\* c \\$5 \\[x\\] \\<y\\>"
    )


def test_a_box_is_a_blockquote_under_its_title_and_a_solution_folds() -> None:
    doctree = rst(".. admonition:: Takeaway\n\n   Intensity decides.\n")
    assert markdown(doctree) == "> **Takeaway**\n>\n> Intensity decides."
    dropdown = nodes.admonition(
        "", nodes.title("", "Worked solution"), nodes.paragraph("", "42."), classes=["dropdown"]
    )
    assert markdown(dropdown) == (
        "<details>\n<summary>Worked solution</summary>\n\n42.\n\n</details>"
    )


def test_working_the_page_holds_back_until_answered_folds() -> None:
    held = type("HeldBack", (nodes.General, nodes.Element), {})(
        "", nodes.paragraph("", "It is 42.")
    )
    assert markdown(held) == (
        "<details>\n<summary>Show the working now (it gives the answer away)</summary>\n\n"
        "It is 42.\n\n</details>"
    )


def test_a_numbered_exercise_shows_its_number_as_the_page_does() -> None:
    box = nodes.admonition("", nodes.title("", " (Problem 1)"), nodes.paragraph("", "Why?"))
    shown = markdown(box, number=lambda node: "Exercise 3" if node is box else "")
    assert shown == "> **Exercise 3 (Problem 1)**\n>\n> Why?"


def test_an_answer_box_says_where_to_check_the_answer_in_the_editions_language() -> None:
    box = nodes.raw("", '<div class="predict" data-answer="295.3"></div>', format="html")
    english = markdown(box)
    assert "online page" in english and "295" not in english
    chinese = take_home.markdown_of([box], writer(language="zh_CN"))
    assert "在线页面" in chinese


def test_html_with_a_note_for_readers_without_javascript_shows_the_note() -> None:
    html = (
        '<div class="live-explorer" data-config="{}"><noscript><p>Needs JavaScript. In '
        "JupyterLab: <code>from roofline_lib.explorer import explore</code></p></noscript></div>"
    )
    shown = markdown(nodes.raw("", html, format="html"))
    assert shown == "Needs JavaScript. In JupyterLab: `from roofline_lib.explorer import explore`"
    assert markdown(nodes.raw("", "<script>x()</script>", format="html")) == ""


def test_a_figure_is_an_image_in_the_prose_with_its_numbered_caption() -> None:
    figure = nodes.figure(
        "",
        nodes.image(uri="f.svg", alt="A chart"),
        nodes.caption("", "Intensity against batch."),
    )
    shown = writer(
        image=lambda node: "data:image/svg+xml;base64,PHN2Zy8+",
        number=lambda node: "Fig. 7" if isinstance(node, nodes.figure) else "",
    )
    assert take_home.markdown_of([figure], shown) == (
        "![A chart](data:image/svg+xml;base64,PHN2Zy8+)\n\n*Fig. 7 Intensity against batch.*"
    )


def test_an_image_is_a_base64_data_url_as_jupyterlab_shows_svg(tmp_path: Path) -> None:
    svg = tmp_path / "f.svg"
    svg.write_text("<svg/>")
    assert take_home.data_url(svg) == "data:image/svg+xml;base64,PHN2Zy8+"
    assert take_home.data_url(tmp_path / "f.pdf") is None
    assert take_home.data_url(tmp_path / "missing.png") is None


def test_a_table_is_a_pipe_table_under_its_title() -> None:
    doctree = rst(
        ".. table:: Chips\n\n   ====== ====\n   Chip   I*\n   ====== ====\n"
        "   v5e    241\n   H100   295\n   ====== ====\n"
    )
    assert markdown(doctree) == (
        "**Chips**\n\n| Chip | I\\* |\n|---|---|\n| v5e | 241 |\n| H100 | 295 |"
    )


def test_a_cell_keeps_no_separator_a_dropped_link_left_behind() -> None:
    # the glossary's "taught in" cell: this edition's section · the other edition's, whose link
    # is dropped where the book has no address
    other = nodes.inline("", "", nodes.reference("", "中文", refuri="zh/x.html"))
    other["classes"] = ["edition-links"]
    here = nodes.reference("", "page 2", refuri="02.html#sec")
    cell = nodes.paragraph("", "", here, nodes.Text(" · "), other)
    table = nodes.table(
        "",
        nodes.tgroup(
            "",
            nodes.colspec(),
            nodes.tbody("", nodes.row("", nodes.entry("", cell))),
            cols=1,
        ),
    )
    assert markdown(table).endswith("| page 2 |")
    online = markdown(table, link=lambda node: "https://b.example/" + node["refuri"])
    assert (
        "| [page 2](https://b.example/02.html#sec) · [中文](https://b.example/zh/x.html) |"
        in online
    )


def test_imports_from_booktools_are_dropped_and_other_code_kept() -> None:
    source = (
        "import numpy as np\nfrom booktools import (\n    glue_text,\n)\nx = glue_text('a', 'b')"
    )
    assert take_home.without_booktools(source) == "import numpy as np\nx = glue_text('a', 'b')"
    assert take_home.without_booktools("%matplotlib inline") == "%matplotlib inline"
    with pytest.raises(take_home.TakeHomeError, match="from booktools import"):
        take_home.without_booktools("import booktools")


def test_the_helpers_cell_is_booktools_with_glue_a_no_op_and_runs_alone() -> None:
    cell = take_home.helpers_cell(BOOKTOOLS)
    assert "myst_nb" not in cell.source
    assert cell.source.split("\n")[1] == "from __future__ import annotations"  # a comment first
    namespace: dict[str, object] = {}
    exec(compile(cell.source, "helpers", "exec"), namespace)
    assert namespace["glue_text"]("name", "compute-bound") == "compute-bound"  # type: ignore[operator]
    with pytest.raises(take_home.TakeHomeError, match="myst_nb import glue"):
        take_home.helpers_cell("import myst_nb\n")


def _code(index: int, source: str, tags: tuple[str, ...] = ()) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source, execution_count=index)
    cell.outputs = [nbformat.v4.new_output("execute_result", {"text/plain": "42"})]
    cell.metadata["tags"] = list(tags)
    return cell


def _shown_cell(index: int) -> nodes.container:
    return nodes.container(nb_element="cell_code", cell_index=index)


def test_the_notebook_is_the_pages_prose_between_its_code_cells_without_booktools() -> None:
    executed = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell("(sec-x)=\n# Title"),
            _code(
                1, "from booktools import glue_text\nv = glue_text('v', 'fast')", ("remove-cell",)
            ),
            nbformat.v4.new_markdown_cell("It is {glue:text}`v`."),
            _code(3, "6 * 7"),
            nbformat.v4.new_markdown_cell("The end."),
        ],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}, "source_map": [1]},
    )
    section = nodes.section(
        "",
        nodes.title("", "Title"),
        nodes.paragraph("", "", nodes.Text("It is "), nodes.inline("", "fast"), nodes.Text(".")),
        _shown_cell(3),
        nodes.paragraph("", "The end."),
    )
    doctree = nodes.document(None, None)  # type: ignore[arg-type]
    doctree += section
    notebook = take_home.take_home(executed, doctree, writer(), BOOKTOOLS)
    nbformat.validate(notebook)
    kinds = [(c.cell_type, c.source.split("\n")[0]) for c in notebook.cells]
    assert kinds == [
        ("markdown", "# Title"),  # the prose before the first shown cell is one Markdown cell
        ("code", f"# {take_home.HELPERS_NOTE}"),  # the helpers, after the title
        ("code", "v = glue_text('v', 'fast')"),
        ("code", "6 * 7"),
        ("markdown", "The end."),
    ]
    assert notebook.cells[0].source == "# Title\n\nIt is fast."
    hidden, shown = notebook.cells[2], notebook.cells[3]
    assert hidden.outputs == [] and hidden.metadata["jupyter"]["source_hidden"]
    assert shown.outputs[0]["data"]["text/plain"] == "42" and "jupyter" not in shown.metadata
    assert "source_map" not in notebook.metadata
    namespace: dict[str, object] = {}
    for cell in notebook.cells:
        if cell.cell_type == "code":
            exec(compile(cell.source, "cell", "exec"), namespace)
    assert namespace["v"] == "fast"
