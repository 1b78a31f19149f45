"""``make formgrader``: nbgrader's formgrader on a grading workspace, ready for grading by hand.

``python -m roofline_grader.handgrading.formgrader [--workspace DIR]`` starts a Jupyter server on the course
with nbgrader's formgrader extension (``/formgrader``) reading the workspace that ``roofline-grade
--out DIR`` wrote (default: the course's ``grading/``, or ``$ROOFLINE_GRADING_DIR``), and prints its
URL. Three things differ from opening ``/formgrader`` in a plain ``jupyter lab``:

* **No exchange warning.** nbgrader's "Manage Assignments" page warns when the exchange folder
  (``c.Exchange.root``, nbgrader_config.py) does not exist (``nbgrader/apps/api.py``,
  ``exchange_missing``). The launcher creates it, and says so when it cannot.
* **Math typeset offline.** nbgrader's submission page calls nbconvert's ``mathjax()`` macro with
  its default, MathJax 2.7.7 from cdnjs (``nbconvert/templates/base/mathjax.html.j2``): with no
  network, ``$B$`` stays raw. This server's extension (below) serves the book's own MathJax 3,
  fetched at set-up from the npm registry (``tools/fetch_static.py`` → ``book/_static/vendor/``),
  at ``/roofline/mathjax/``, and renders submissions with a template that loads it
  (``formgrader_templates/roofline_formgrade``).
* **Model answer and rubric beside each written answer** (:mod:`~roofline_grader.course.rubric`), added to
  the page when it is rendered: the autograded notebooks are not changed, so nothing of the rubric
  can reach a student through nbgrader's own feedback, and an edited rubric shows on the next page
  load.

Every value nbgrader's templates print (student ids, names, notebook ids) is escaped, in its pages
and in the submission page (:func:`escaping_source`): a student id is data, never markup or script.
MathJax runs with its ``safe`` extension (``ui/safe``), which drops ``javascript:`` and other
active URLs from ``\\href`` and ``\\class``/``\\style`` from the math of an answer or an output.

The same extension renders the page sanitised: cell outputs with nbconvert's
``HTMLExporter.sanitize_html``, and Markdown (the student's written answers) by :func:`safe_html`
after it is turned into HTML. A student's Markdown or output cannot run script in the grader's
browser, where it could change grades through formgrader's API. (nbconvert's ``SanitizeHTML``
preprocessor would escape the Markdown source instead, which breaks ``$a < b$`` for MathJax; its
``clean_html`` filter escapes ``<p>`` and headings, which Markdown is made of.)

How nbgrader renders a submission: ``SubmissionHandler`` (``server_extensions/formgrader/
handlers.py``) converts ``autograded/<student>/<problem>/<problem>.ipynb`` with the tornado setting
``nbgrader_exporter``, an ``HTMLExporter`` with template ``formgrade``. Jupyter server loads
extensions in alphabetical order (``ExtensionManager.sorted_extensions``), so this one
(``roofline_grader.handgrading.formgrader``) loads after nbgrader's and replaces that exporter.
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from roofline_grader.checks import PARTS
from roofline_grader.course import WORKSPACE_ENV, Course
from roofline_grader.course.rubric import HandPart, RubricError, hand_parts

if TYPE_CHECKING:  # nbconvert is imported where it is used, as the formgrader starts
    from jinja2 import BaseLoader, Environment
    from nbconvert import HTMLExporter
    from nbconvert.preprocessors import Preprocessor
    from nbformat import NotebookNode

TEMPLATES = Path(__file__).resolve().parent / "formgrader_templates"
"""Our nbconvert template, ``roofline_formgrade``, which extends nbgrader's ``formgrade``."""

TEMPLATE_NAME = "roofline_formgrade"

MATHJAX = Path("book") / "_static" / "vendor" / "mathjax"
"""MathJax 3 (es5 build) in the course, as tools/fetch_static.py unpacks it."""

MATHJAX_URL = "/roofline/mathjax/"
"""Where this server serves it."""

HAND_KEY = "roofline_hand"
"""The cell metadata key that carries a part's model answer and rubric to the template."""


class FormgraderError(RuntimeError):
    """The formgrader cannot start on this workspace; the message says why and what to do."""


# ----------------------------------------------------------------------------------------------
# The server extension
# ----------------------------------------------------------------------------------------------


def hand_metadata(part: HandPart) -> dict[str, Any]:
    """What the template shows beside a written answer, as plain data."""
    return {
        "grade_id": part.grade_id,
        "points": f"{part.points:g}",
        "model_answer": part.model_answer,
        "criteria": [
            {"points": f"{c.points:g}", "earns": c.earns, "partial": c.partial}
            for c in part.rubric.criteria
        ],
        "error": "",
    }


def _show_rubric(course: Course, exporter: HTMLExporter) -> Preprocessor:
    """The ``ShowRubric`` preprocessor of ``exporter``, for ``course``'s rubrics."""
    from nbconvert.preprocessors import Preprocessor

    class ShowRubric(Preprocessor):
        """Put each hand-graded part's model answer and rubric in its cell's metadata (under
        :data:`HAND_KEY`), for the template; a rubric that cannot be read shows its error there."""

        def preprocess(
            self, nb: NotebookNode, resources: dict[str, Any]
        ) -> tuple[NotebookNode, dict[str, Any]]:
            try:
                parts, error = hand_parts(course), ""
            except RubricError as exc:
                parts, error = {}, f"The rubric could not be read:\n{exc}"
            for cell in nb.cells:
                gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
                if gid in parts:
                    cell.metadata[HAND_KEY] = hand_metadata(parts[gid])
                elif error and gid in PARTS and PARTS[gid].manual:
                    points = cell.metadata["nbgrader"].get("points", "")
                    cell.metadata[HAND_KEY] = {"grade_id": gid, "points": points, "error": error}
            return nb, resources

    return ShowRubric(parent=exporter)  # type: ignore[no-untyped-call]  # Preprocessor.__init__ is untyped


SAFE_TAGS = frozenset(
    {
        *("a", "abbr", "b", "blockquote", "br", "code", "del", "div", "em", "hr", "i", "img"),
        *("h1", "h2", "h3", "h4", "h5", "h6", "li", "ol", "p", "pre", "s", "span", "strong"),
        *("sub", "sup", "table", "tbody", "td", "th", "thead", "tr", "ul"),
    }
)
"""What Markdown renders to (and no element that runs script or loads a page)."""

SAFE_ATTRIBUTES = {
    "*": ["class", "id", "title"],
    "a": ["href", "title"],
    "img": ["src", "alt", "title", "width", "height"],
    "td": ["align"],
    "th": ["align"],
}
SAFE_PROTOCOLS = frozenset({"http", "https", "mailto", "data"})


def safe_html(html: str) -> str:
    """``html`` with every element and attribute outside :data:`SAFE_TAGS` and
    :data:`SAFE_ATTRIBUTES` escaped (shown as text), and links only to http(s), mailto and data
    URLs (bleach.clean, as nbconvert's own sanitising uses it)."""
    import bleach

    cleaned: str = bleach.clean(
        html, tags=SAFE_TAGS, attributes=SAFE_ATTRIBUTES, protocols=SAFE_PROTOCOLS, strip=False
    )
    return cleaned


RAW_ALLOWED = frozenset({"css"})
"""Template values printed as they are: the page's own style sheets (nbconvert's, never a
student's)."""
_JS_STRING = re.compile(r'(\bvar\s+\w+\s*=\s*)"\{\{-?\s*([A-Za-z_][\w.]*)\s*-?\}\}"')
_VALUE = re.compile(r"\{\{(-?)\s*([A-Za-z_][\w.]*)\s*(-?)\}\}")


def escaping_source(source: str) -> str:
    """A template of nbgrader's, patched to print every value as data: ``var x = "{{ v }}"`` (a
    JavaScript string) becomes ``var x = {{ v | tojson }}``, and every other ``{{ v }}`` becomes
    ``{{ v | e }}`` (HTML-escaped), except :data:`RAW_ALLOWED`.

    nbgrader 0.9.6 prints student ids, names and notebook ids raw, both in its pages (a Jinja
    environment without autoescape, ``formgrader.py``'s ``init_tornado_settings``) and in its
    nbconvert template (``formgrade_macros.html.j2``): a student folder named ``<img src=x
    onerror=…>`` would run script in the grader's browser, with formgrader's API at hand."""
    source = _JS_STRING.sub(r"\1{{ \2 | tojson }}", source)

    def escaped(m: re.Match[str]) -> str:
        if m[2] in RAW_ALLOWED:
            return m[0]
        return f"{{{{{m[1]} {m[2]} | e {m[3]}}}}}"

    return _VALUE.sub(escaped, source)


def escaping_loader(paths: Sequence[str]) -> BaseLoader:
    """A Jinja loader of the templates in ``paths`` that serves each through :func:`escaping_source`."""
    from jinja2 import FileSystemLoader

    class EscapingLoader(FileSystemLoader):
        def get_source(self, environment: Any, template: str) -> Any:
            source, filename, uptodate = super().get_source(environment, template)
            return escaping_source(source), filename, uptodate

    return EscapingLoader(list(paths))


def page_environment() -> Environment:
    """The Jinja environment of formgrader's pages: nbgrader's own, with every value escaped
    (autoescape, and :func:`escaping_loader` for the values inside JavaScript)."""
    from jinja2 import Environment
    from nbgrader.server_extensions.formgrader import handlers

    return Environment(loader=escaping_loader([handlers.template_path]), autoescape=True)


def grading_exporter(course: Course, config: Any = None) -> HTMLExporter:
    """nbgrader's submission exporter, with MathJax served here, sanitised HTML, and the model
    answer and rubric beside each written answer."""
    from jinja2 import pass_context
    from nbconvert import HTMLExporter
    from nbgrader.server_extensions.formgrader import handlers

    exporters: list[HTMLExporter] = []

    @pass_context
    def markdown2html(context: Any, source: str) -> str:
        return safe_html(exporters[0].markdown2html(context, source))

    exporter = HTMLExporter(
        config=config,
        template_name=TEMPLATE_NAME,
        extra_template_basedirs=[str(TEMPLATES), handlers.template_path],
        extra_template_paths=[handlers.template_path],  # for {% extends 'formgrade/...' %}
        sanitize_html=True,
        filters={"markdown2html": markdown2html},
        extra_loaders=[  # ours, then nbgrader's, each value escaped
            escaping_loader(
                [str(TEMPLATES / TEMPLATE_NAME), str(Path(handlers.template_path) / "formgrade")]
            )
        ],
    )
    exporters.append(exporter)
    exporter.register_preprocessor(_show_rubric(course, exporter), enabled=True)
    return exporter


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "roofline_grader.handgrading.formgrader"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    """Serve MathJax and replace nbgrader's submission exporter (nbgrader's formgrader extension
    has loaded before this one: extensions load in alphabetical order)."""
    from jupyter_server.utils import url_path_join
    from tornado.web import StaticFileHandler

    settings = serverapp.web_app.settings
    if "nbgrader_exporter" not in settings:
        raise FormgraderError(
            "nbgrader's formgrader extension (nbgrader.server_extensions.formgrader) is not "
            "loaded: enable it with `jupyter server extension enable --sys-prefix "
            "nbgrader.server_extensions.formgrader`"
        )
    course = Course(Path(serverapp.root_dir).resolve())
    formgrader = settings["nbgrader_formgrader"]
    settings["nbgrader_exporter"] = grading_exporter(course, formgrader.config)
    settings["nbgrader_jinja2_env"] = page_environment()
    pattern = url_path_join(settings["base_url"], MATHJAX_URL, "(.*)")
    serverapp.web_app.add_handlers(
        ".*$", [(pattern, StaticFileHandler, {"path": str(course.root / MATHJAX)})]
    )
    serverapp.log.info(
        "roofline formgrader: MathJax at %s, rubrics beside written answers", pattern
    )


# ----------------------------------------------------------------------------------------------
# The launcher
# ----------------------------------------------------------------------------------------------


def check_workspace(course: Course, workspace: Path) -> Path:
    """Everything formgrader needs, ready: a graded workspace, the exchange folder, MathJax and a
    readable rubric. Returns the exchange; FormgraderError saying what is missing otherwise."""
    if not (workspace / "gradebook.db").is_file():
        raise FormgraderError(
            f"no gradebook in {workspace}: grade first, with roofline-grade SUBMISSIONS --out "
            f"{workspace} (make grade SUBMISSIONS=... OUT=...)"
        )
    if not (course.root / MATHJAX / "tex-chtml.js").is_file():
        raise FormgraderError(
            f"MathJax is not in {course.root / MATHJAX}: run make setup (tools/fetch_static.py "
            "fetches it from the npm registry)"
        )
    try:
        hand_parts(course)
    except RubricError as exc:
        raise FormgraderError(str(exc)) from None
    exchange = course.exchange
    try:
        exchange.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise FormgraderError(
            f"cannot create nbgrader's exchange folder {exchange}: {exc}"
        ) from None
    if not os.access(exchange, os.W_OK | os.X_OK):
        raise FormgraderError(
            f"nbgrader's exchange folder {exchange} is not writable by you; formgrader would warn "
            "that release and collect are unavailable (see nbgrader's 'Setting up the exchange')"
        )
    return exchange


def free_port(ip: str) -> int:
    with socket.socket() as s:
        s.bind((ip, 0))
        port: int = s.getsockname()[1]
        return port


def server_argv(course: Course, ip: str, port: int, token: str, browser: bool) -> list[str]:
    """The Jupyter server's command line: the course as root, formgrader as its start page, this
    module's extension enabled besides nbgrader's (and ``allow_root`` when run as root, as
    kit/start_lab.py does)."""
    return [
        f"--ServerApp.root_dir={course.root}",
        f"--ServerApp.ip={ip}",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        "--ServerApp.default_url=/formgrader",
        "--ServerApp.jpserver_extensions=roofline_grader.handgrading.formgrader=True",
        f"--ServerApp.open_browser={browser}",
        *(["--ServerApp.allow_root=True"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []),
    ]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m roofline_grader.handgrading.formgrader",
        description=(
            "Open nbgrader's formgrader on a grading workspace, to grade the written answers by "
            "hand with the model answer and the rubric beside each one."
        ),
    )
    p.add_argument(
        "--workspace",
        type=Path,
        help="the grading workspace (roofline-grade --out; default: the course's grading/)",
    )
    p.add_argument("--course", type=Path, help="course root (default: found from here)")
    p.add_argument("--ip", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    p.add_argument("--token", help="access token (default: a random one, printed in the URL)")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        course = Course(args.course.resolve()) if args.course else Course.find()
    except FileNotFoundError as exc:
        print(f"formgrader: {exc}", file=sys.stderr)
        return 2
    workspace = (args.workspace or course.default_workspace).resolve()
    os.environ[WORKSPACE_ENV] = str(workspace)  # read by nbgrader_config.py in this server
    try:
        exchange = check_workspace(course, workspace)
    except FormgraderError as exc:
        print(f"formgrader: {exc}", file=sys.stderr)
        return 2
    port = args.port or free_port(args.ip)
    token = args.token or secrets.token_hex(24)
    print(f"formgrader: grading workspace {workspace} (exchange {exchange})")
    print(f"formgrader: open http://{args.ip}:{port}/formgrader?token={token}", flush=True)
    print("formgrader: Ctrl-C stops it", flush=True)

    from jupyter_server.serverapp import ServerApp

    from roofline_grader.course.release import ensure_scripts_on_path

    ensure_scripts_on_path()  # formgrader's buttons run nbgrader, which runs alembic
    os.chdir(course.root)  # nbgrader reads nbgrader_config.py from here
    ServerApp.launch_instance(argv=server_argv(course, args.ip, port, token, not args.no_browser))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
