"""Sphinx extension for the course book.

``worked-solution`` directive: a collapsed dropdown holding a problem's worked solution. One
switch in _config.yml, ``sphinx.config.course_show_solutions: false``, replaces every worked
solution with a one-line note, for courses that grade the problems for credit.

    :::{worked-solution} Problem 1
    Prose, math and {glue:text}`p1_bytes` ...
    :::
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

HIDDEN_NOTE = "Worked solutions are hidden in this edition of the course."


class WorkedSolution(SphinxDirective):
    has_content = True
    optional_arguments = 1
    final_argument_whitespace = True

    def run(self) -> list[nodes.Node]:
        if not self.config.course_show_solutions:
            return [nodes.note("", nodes.paragraph(text=HIDDEN_NOTE), classes=["worked-solution-hidden"])]
        title = "Worked solution" + (f": {self.arguments[0]}" if self.arguments else "")
        box = nodes.admonition(classes=["dropdown", "tip", "worked-solution"])
        box += nodes.title(text=title)
        self.state.nested_parse(self.content, self.content_offset, box)
        return [box]


def setup(app: Sphinx) -> dict[str, object]:
    app.add_config_value("course_show_solutions", True, "env", types=[bool])
    app.add_directive("worked-solution", WorkedSolution)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
