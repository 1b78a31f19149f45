"""Sphinx extension for the course book: the boxes every page shares, and their stylesheet.

``worked-solution``: a collapsed dropdown holding a problem's worked solution. One switch in
_config.yml, ``sphinx.config.course_show_solutions: false``, replaces every worked solution with
a one-line note, for courses that grade the problems for credit::

    :::{worked-solution} Problem 1
    Prose, math and {glue:text}`p1_bytes` ...
    :::

``takeaway``: the box that ends every page (title "Takeaway", or the argument)::

    :::{takeaway}
    - A matmul's intensity is about its token batch B.
    :::

``erratum``: a short note where the chapter's arithmetic or figures are off, with the corrected
figure (title "Erratum", or "Erratum: <argument>")::

    :::{erratum} H100 critical intensity
    The chapter's 298 is 1e15 / 3.35e12; with the dense 989.5 TFLOP/s it is {glue:text}`h100_ci`.
    :::

``hold-until-answered``: where the working that gives an exercise's answer away ends; what lies
between the exercise (or its solution) and this marker is folded in the browser until the box is
answered, or the reader asks to see it (see :class:`HoldUntilAnswered`)::

    :::{hold-until-answered} q-d-star
    :::

``hold-from``: where that fold begins, when the working comes later than right after the
exercise (the two markers in one section)::

    :::{hold-from} q-h100-ci
    :::

"Predict, then check": the extension loads sphinx-exercise (``exercise`` and ``solution``
directives) and ``static/predict.js``, which checks the answer boxes that ``booktools.question``
glues into the exercises (see its docstring).

Take the page home: each page's executed notebook (myst-nb writes it to the build's
``jupyter_execute/``) is written to ``_sources/<page>.ipynb`` as ``take_home.py`` makes it (the
page's prose as the page shows it, plain Markdown; code that runs with the student kit's packages
alone), and the theme's download menu offers it as ``.ipynb`` (sphinx-book-theme shows that entry
when the page context names an ``ipynb_source``).

Box titles and the hidden-solution note are in the build's own
language (``language`` in Sphinx's configuration, :func:`roofline_lib.words.say`). A title keeps
its English as its source text (``rawsource``), the message a translated edition's catalog
translates (with the directive's argument, which is prose).

It also fixes what a strict browser test finds in a stock Jupyter Book 1 page:

* ``static/course.css`` (the boxes' colours) is added to every page;
* ``static/widgets-config.js`` (listed in ``nb_ipywidgets_js``, between require.js and the widget
  manager) points require.js at the vendored widget manager, so that its fonts load from
  ``_static`` instead of a path relative to the page, and gives MathJax 3 the ``MathJax.Hub``
  that the widget manager still calls (a MathJax 2 API);
* duplicate inline scripts are dropped from each page (sphinx-thebe adds its configuration twice,
  and the second ``const`` declaration is a SyntaxError in the console);
* the theme's colour mode defaults to light (an empty mode is logged as an error), and the book
  gets a favicon (so that browsers do not request a missing ``/favicon.ico``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.writers.html5 import HTML5Translator

from roofline_lib.words import say, say_later

logger = logging.getLogger(__name__)
HIDDEN_NOTE = say_later("Worked solutions are hidden in this edition of the course.")
STATIC = Path(__file__).parent / "static"


def _language(directive: SphinxDirective) -> str:
    """The build's language, as roofline_lib.words names it ("en" when none is set)."""
    return directive.config.language or "en"


def box_title(title: str, titled: str, argument: str | None, language: str) -> tuple[str, str]:
    """A box's title: (its English, the catalogs' message; what it shows in ``language``):
    ``title`` alone, or the template ``titled`` ("<title>: {argument}") with the argument."""
    if argument is None:
        return title, say(title, language=language)
    english = titled.format(argument=argument)
    return english, say(titled, language=language, argument=argument)


class _TitledBox(SphinxDirective):
    """An admonition with a fixed title (optionally extended by the argument) and a class."""

    has_content = True
    optional_arguments = 1
    final_argument_whitespace = True
    title = ""
    titled = "{argument}"
    """The title with the directive's argument (a template of one field, ``argument``)."""
    classes: tuple[str, ...] = ()

    def run(self) -> list[nodes.Node]:
        box = nodes.admonition(classes=list(self.classes))
        argument = self.arguments[0] if self.arguments else None
        english, shown = box_title(self.title, self.titled, argument, _language(self))
        title_nodes, messages = self.state.inline_text(shown, self.lineno)
        box += nodes.title(english, "", *title_nodes)
        box += messages
        self.state.nested_parse(self.content, self.content_offset, box)
        return [box]


class WorkedSolution(_TitledBox):
    """A collapsed dropdown with a worked solution, or a one-line note when solutions are off."""

    title = say_later("Worked solution")
    titled = say_later("Worked solution: {argument}")
    classes = ("dropdown", "tip", "worked-solution")

    def run(self) -> list[nodes.Node]:
        if not self.config.course_show_solutions:
            note = say(HIDDEN_NOTE, language=_language(self))
            return [nodes.note("", nodes.paragraph(text=note), classes=["worked-solution-hidden"])]
        return super().run()


class Takeaway(_TitledBox):
    """The box that closes a page: what to remember."""

    title = say_later("Takeaway")
    titled = say_later("Takeaway: {argument}")
    classes = ("takeaway", "tip")


class Erratum(_TitledBox):
    """Where the chapter is off, and the corrected figure."""

    title = say_later("Erratum")
    titled = say_later("Erratum: {argument}")
    classes = ("erratum", "warning")


def _configure(app: Sphinx, config: Config) -> None:
    config.html_static_path = [*config.html_static_path, str(STATIC)]
    config.html_context = {"default_mode": "light", **config.html_context}
    if not config.html_favicon:
        config.html_favicon = str(STATIC / "favicon.svg")


def _drop_duplicate_scripts(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree: object
) -> None:
    seen: set[tuple[str, tuple[tuple[str, str], ...]]] = set()
    unique = []
    for script in context.get("script_files", []):
        attributes = getattr(script, "attributes", {}) or {}
        name = getattr(script, "filename", script) or ""  # None and "" both mean inline
        key = (str(name), tuple(sorted((k, str(v)) for k, v in attributes.items())))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    if "script_files" in context:
        context["script_files"][:] = unique


class HeldBack(nodes.General, nodes.Element):
    """Content that gives an exercise's answer away: the browser folds it until the exercise's
    box is answered right, or the reader asks to see it (static/predict.js)."""


class HoldMarker(nodes.General, nodes.Element):
    """Where the content that ``hold-until-answered`` folds ends (gone after reading)."""


class HoldStart(nodes.General, nodes.Element):
    """Where the content that ``hold-until-answered`` folds begins, when it does not begin right
    after the exercise (gone after reading)."""


class _FoldMarker(SphinxDirective):
    """A directive whose argument names exercises (``q-a``, or ``q-a q-b``) and which leaves one
    marker node (``marker``) where it stands, for :func:`_fold_held_back` to find."""

    required_arguments = 1
    final_argument_whitespace = True
    has_content = False
    marker: type[nodes.Element]

    def run(self) -> list[nodes.Node]:
        node = self.marker(exercise=" ".join(self.arguments[0].split()))
        self.set_source_info(node)
        return [node]


class HoldFrom(_FoldMarker):
    """``:::{hold-from} q-label``: the fold for exercise ``q-label`` begins here instead of right
    after the exercise, when the working that gives its answer away comes later (in the same
    section as its ``hold-until-answered``)."""

    marker = HoldStart


class HoldUntilAnswered(_FoldMarker):
    """``:::{hold-until-answered} q-label``, placed where the working that answers exercise
    ``q-label`` ends: everything between that exercise (or its solution) and the marker, in the
    same section, becomes one :class:`HeldBack` block. Several labels (``q-a q-b``): the working
    answers them all, begins after the last of them and unfolds once all are answered."""

    marker = HoldMarker


def _answers(node: nodes.Node, labels: str) -> bool:
    """Whether ``node`` is one of the exercises ``labels`` (space-separated), its solution
    (sphinx-exercise's nodes) or the ``hold-from`` marker for them: the fold begins after it."""
    from sphinx_exercise.nodes import exercise_enumerable_node, exercise_node, solution_node

    if isinstance(node, HoldStart):
        return bool(node["exercise"] == labels)
    if isinstance(node, solution_node):
        return node.get("target_label") in labels.split()
    if isinstance(node, (exercise_node, exercise_enumerable_node)):
        return node.get("label") in labels.split()
    return False


def _fold_held_back(app: Sphinx, doctree: nodes.document) -> None:
    """Wrap what lies between each exercise and its ``hold-until-answered`` marker."""
    for marker in list(doctree.findall(HoldMarker)):
        label, parent = marker["exercise"], marker.parent
        index = parent.index(marker)
        start = next((i + 1 for i in range(index - 1, -1, -1) if _answers(parent[i], label)), None)
        parent.remove(marker)
        if start is not None and isinstance(parent[start - 1], HoldStart):
            parent.remove(parent[start - 1])
            start, index = start - 1, index - 1
        if start is None or start == index:
            logger.warning(
                "hold-until-answered %s: no exercise, solution or hold-from %r before it in "
                "the same section, or nothing between them to fold",
                label,
                label,
                location=marker,
            )
            continue
        folded = list(parent.children[start:index])
        for child in folded:
            parent.remove(child)
        block = HeldBack(exercise=label)
        block.extend(folded)
        parent.insert(start, block)
    for orphan in list(doctree.findall(HoldStart)):
        logger.warning(
            "hold-from %s: no hold-until-answered %s after it in the same section",
            orphan["exercise"],
            orphan["exercise"],
            location=orphan,
        )
        orphan.parent.remove(orphan)


def _visit_held_back(self: HTML5Translator, node: HeldBack) -> None:
    self.body.append(
        self.starttag(node, "div", CLASS="held-back", **{"data-for": node["exercise"]})
    )


def _depart_held_back(self: HTML5Translator, node: HeldBack) -> None:
    self.body.append("</div>\n")


JUPYTER_EXECUTE = "jupyter_execute"
"""Where myst-nb writes executed notebooks, beside the HTML output (myst_nb.sphinx_ext)."""


def _page_source(app: Sphinx, pagename: str) -> Path | None:
    if pagename not in app.env.found_docs:
        return None
    return Path(app.env.doc2path(pagename))


def _offer_notebook(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree: object
) -> None:
    """Write the page's notebook to take home (take_home.py: the executed notebook, its prose
    as the page shows it) into ``_sources`` and name it in the page context, so the theme's
    download menu offers it."""
    executed = Path(app.outdir).parent / JUPYTER_EXECUTE / f"{pagename}.ipynb"
    source = _page_source(app, pagename)
    if app.builder.format != "html" or not executed.is_file() or source is None:
        return
    if not isinstance(doctree, nodes.document):
        return
    import nbformat
    import take_home  # book/_ext, beside this module (Sphinx puts it on sys.path)

    booktools = source.parent / "booktools.py"
    notebook = take_home.take_home(
        nbformat.read(executed, as_version=4),
        doctree,
        _take_home_writer(app, pagename, source),
        booktools.read_text(encoding="utf-8") if booktools.is_file() else None,
    )
    target = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, target)
    context["ipynb_source"] = f"{pagename}.ipynb"


NUMBERED_KINDS = {"figure": "figure", "table": "table", "exercise_enumerable_node": "exercise"}
"""Numbered elements (by their node's class) and their kind in Sphinx's ``numfig_format``."""


def _take_home_writer(app: Sphinx, pagename: str, source: Path) -> Any:
    """take_home's Markdown writer for ``pagename``: links to the online book when
    ``html_baseurl`` says where it is (else a cross-reference is its text), figures' images
    read from the build, numbered elements numbered as the page shows them."""
    import take_home

    language = app.config.language or "en"
    # the edition's own address: tools/book.py gives each edition its folder under the site's
    # (book/_ext/published.py)
    edition_root = (app.config.html_baseurl or "").rstrip("/")
    numbers = app.env.toc_fignumbers.get(pagename, {})

    def link(node: nodes.reference) -> str | None:
        return take_home.online_url(
            node.get("refuri", ""), node.get("refid", ""), pagename, edition_root
        )

    def image(node: nodes.image) -> str | None:
        # the file read (relative to the source folder); ``uri`` is the HTML's copy by now
        found = node.get("candidates", {}).get("*") or str(node.get("uri", ""))
        return take_home.data_url((Path(app.srcdir) / found.lstrip("/")).resolve())

    def number(node: nodes.Element) -> str:
        kind = NUMBERED_KINDS.get(type(node).__name__)
        found = numbers.get(kind or "", {})
        number = next((found[i] for i in node.get("ids", []) if i in found), None)
        if not kind or not number:
            return ""
        return str(app.config.numfig_format[kind] % ".".join(str(n) for n in number))

    return take_home.MarkdownWriter(link, image, number, language)


def setup(app: Sphinx) -> dict[str, object]:
    app.setup_extension("sphinx_exercise")
    app.add_config_value("course_show_solutions", True, "env", types=[bool])
    app.add_directive("worked-solution", WorkedSolution)
    app.add_directive("takeaway", Takeaway)
    app.add_directive("erratum", Erratum)
    app.add_node(HeldBack, html=(_visit_held_back, _depart_held_back))
    app.add_node(HoldMarker)
    app.add_node(HoldStart)
    app.add_directive("hold-from", HoldFrom)
    app.add_directive("hold-until-answered", HoldUntilAnswered)
    app.connect("doctree-read", _fold_held_back)
    app.connect("config-inited", _configure)
    app.connect("html-page-context", _drop_duplicate_scripts, priority=900)
    app.connect("html-page-context", _offer_notebook, priority=400)
    app.add_css_file("course.css")
    app.add_js_file("predict.js")
    return {"version": "1.1", "parallel_read_safe": True, "parallel_write_safe": True}
