"""Formgrader opened in Chromium on a class whose ids and answers are attacks: nothing runs.

A student's folder name becomes their id in the gradebook, and nbgrader 0.9.6 prints ids raw in its
pages and in its submission template; a written answer's ``$\\href{javascript:…}{…}$``, or a
``text/latex`` output holding one, becomes a live link once MathJax typesets it. Each payload here
would set ``document.title`` (or a global) if it ran. Every formgrader page that shows a student,
their submissions or their answer is opened; each must render the id as text, and every link on the
submission page, MathJax's included, is checked and clicked: nothing may have run.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from nbgrader.api import Gradebook

from tests.book.browser import require_chromium

from .grading_cases import Case, cell_index, solved
from .test_grading_formgrader_browser import SHOTS, TOKEN, WAIT_MS, Formgrader, serving, watching

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.slow

PWNED = "PWNED"
IMG_ID = "<img src=x onerror=\"document.title='PWNED';window.pwned=1\">"
JS_ID = "x\";document.title='PWNED';window.pwned=1;\""
"""Ids that would run script if printed raw into HTML or into a JavaScript string."""
SCRIPT_ID = "</script><script>document.title='PWNED'</script>"[:-9]  # no '/' allowed in a folder
HREF = "javascript:document.title='PWNED';window.pwned=1"
ANSWER = (
    "The bytes grow with $B$. "
    f"$\\href{{{HREF}}}{{math link}}$ "
    "<img src=x onerror=\"document.title='PWNED'\"> "
    f"[markdown link]({HREF})"
)
LATEX = (
    "\nfrom IPython.display import Latex, display\n"
    f'display(Latex(r"$\\href{{{HREF}}}{{latex link}}$"))\n'
)
HOSTILE = (IMG_ID, JS_ID)


def hostile_class(release: Path, folder: Path) -> Path:
    for student in HOSTILE:
        nb = solved(release, "problem4", p4c_why=ANSWER)
        code = nb.cells[cell_index(nb, "p4a-answer")]
        code.source += LATEX
        Case(student, {"problem4": nb}).write(folder)
    return folder


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory, release: Path) -> Iterator[Formgrader]:
    require_chromium()
    base = tmp_path_factory.mktemp("formgrader-hostile")
    with serving(base, hostile_class(release, base / "submissions")) as served:
        yield served


@pytest.fixture(scope="module")
def page(hostile: Formgrader) -> Iterator[Page]:
    with watching(hostile) as page:
        yield page


def _nothing_ran(page: Page, where: str) -> None:
    assert page.evaluate("document.title") != PWNED, f"script ran on {where}"
    assert page.evaluate("window.pwned === undefined"), f"script ran on {where}"


def _submission_ids(workspace: Path, student: str) -> str:
    with Gradebook(f"sqlite:///{workspace / 'gradebook.db'}", course_id="roofline") as gb:
        return gb.find_submission_notebook("problem4", "problem4", student).id


def test_the_hostile_ids_are_in_the_gradebook_as_they_are(hostile: Formgrader) -> None:
    with Gradebook(f"sqlite:///{hostile.workspace / 'gradebook.db'}", course_id="roofline") as gb:
        assert {s.id for s in gb.students} >= set(HOSTILE)


@pytest.mark.parametrize("student", HOSTILE, ids=["img-id", "js-string-id"])
def test_pages_that_name_a_student_show_the_id_as_text(
    page: Page, hostile: Formgrader, student: str
) -> None:
    quoted = urllib.parse.quote(student, safe="")
    pages = [
        "/formgrader/manage_students",
        f"/formgrader/manage_students/{quoted}",
        f"/formgrader/manage_students/{quoted}/problem4",
        "/formgrader/gradebook/problem4/problem4",
        f"/formgrader/submissions/{_submission_ids(hostile.workspace, student)}/",
    ]
    for path in pages:
        page.goto(f"{hostile.url}{path}?token={TOKEN}")
        page.wait_for_load_state("networkidle")
        _nothing_ran(page, path)
    # the student's own page names them, as text, and lists their submission (the id reached
    # formgrader's JavaScript whole)
    page.goto(f"{hostile.url}/formgrader/manage_students/{quoted}/problem4?token={TOKEN}")
    page.wait_for_selector("td a", timeout=WAIT_MS)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"hostile-student-{HOSTILE.index(student)}.png"))
    assert student in page.locator(".breadcrumb").inner_text() or student in page.content()
    _nothing_ran(page, "the student's submissions")


def test_no_answer_or_output_makes_a_live_script_link(page: Page, hostile: Formgrader) -> None:
    sid = _submission_ids(hostile.workspace, IMG_ID)
    page.goto(f"{hostile.url}/formgrader/submissions/{sid}/?token={TOKEN}")
    typeset = page.evaluate("async () => { await MathJax.startup.promise; return 1; }")
    assert typeset == 1
    answer = page.locator(".text_cell_render", has_text="The bytes grow with")
    assert answer.locator("mjx-container").count() >= 2, "the answer's math, \\href too, typeset"
    output = page.locator(".output_area", has=page.locator("mjx-container"))
    assert output.count() >= 1, "the text/latex output is typeset on the page"
    assert "markdown link" in answer.inner_text()
    assert IMG_ID in page.locator("a.name-shown").text_content()
    hrefs = page.evaluate(
        "Array.from(document.querySelectorAll('[href], [xlink\\\\:href]'))"
        ".map(e => e.getAttribute('href') || e.getAttribute('xlink:href'))"
    )
    active = [h for h in hrefs if h and h.strip().lower().startswith(("javascript:", "data:text"))]
    assert active == [], active
    # click every link MathJax or the answer made, and the student's name
    count = page.evaluate(
        """() => {
          const links = document.querySelectorAll(
            'mjx-container a, mjx-container [href], .text_cell_render a, .output_area a');
          links.forEach(a => { try { a.click(); } catch (e) {} });
          return links.length;
        }"""
    )
    _nothing_ran(page, f"the submission page, after clicking its {count} links")
    page.screenshot(path=str(SHOTS / "hostile-submission.png"), full_page=True)
    assert hostile.page_errors == [], hostile.page_errors
    assert hostile.requests_elsewhere == [], "the pages need no network"
