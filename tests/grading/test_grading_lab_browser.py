"""``make lab`` in headless Chromium, as a student sees it.

JupyterLab is started exactly as ``make lab`` starts it (tests/grading/lab_server.py), on a copy of
the release and a temporary work folder. In the browser, Problem 3 opens unmodified with its kernel
idle; with the model answers in place, Run All draws the figure under the last cell, and Validate
passes; the Nbgrader menu, the launcher and the side bars offer no instructor tool.

Screenshots land in /tmp/lab-shots/. Waits are on conditions, with generous limits, because a
two-core machine running the other tests can take a minute to start a kernel.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import nbformat
import pytest

from tests.book.browser import chromium_page, require_chromium

from .grading_cases import solved
from .lab_server import TOKEN, Lab, running_lab

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.slow

SHOTS = Path("/tmp/lab-shots")
NOTEBOOK = "problem3/problem3.ipynb"
ANSWERED = "answered/problem3.ipynb"
WAIT_MS = 240_000
"""The longest any condition may take to come true (JupyterLab's first load, a kernel start)."""
SETTLE_MS = 3_000
"""Time for JupyterLab to apply the kernel's metadata after the kernel reports idle."""
INSTRUCTOR_TOOLS = ("Formgrader", "Create Assignment")

_KERNEL_IDLE = """
() => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  const status = panel && panel.querySelector('.jp-Notebook-ExecutionIndicator');
  return !!status && status.getAttribute('data-status') === 'idle';
}
"""

_ALL_CELLS_RAN = """
() => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  if (!panel) return false;
  const prompts = Array.from(panel.querySelectorAll('.jp-CodeCell .jp-InputPrompt'));
  const status = panel.querySelector('.jp-Notebook-ExecutionIndicator');
  return prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p.textContent)) &&
      !!status && status.getAttribute('data-status') === 'idle';
}
"""

_LAST_CELL_OUTPUTS = """
() => {
  const cells = document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell');
  const last = cells[cells.length - 1];
  return Array.from(last.querySelectorAll('.jp-OutputArea-output'))
    .map(o => (o.getAttribute('data-mime-type') || '?') + ': ' + o.innerText.slice(0, 200));
}
"""

_LAST_CELL_IMAGE_LOADED = """
() => {
  const cells = document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell');
  const img = cells[cells.length - 1].querySelector('.jp-OutputArea-output img');
  return img && img.complete && img.naturalWidth > 0 ?
      {width: img.naturalWidth, height: img.naturalHeight} : null;
}
"""

_ERROR_OUTPUTS = """
() => Array.from(document.querySelectorAll(
    '.jp-NotebookPanel:not(.lm-mod-hidden) ' +
    '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'))
  .map(e => e.textContent).filter(t => /Error|Traceback/.test(t))
"""

_INSTRUCTOR_TOOLS_SHOWN = """
(tools) => {
  const labels = [];
  for (const e of document.querySelectorAll('.jp-SideBar [title], .jp-SideBar [aria-label], ' +
                                            '.lm-TabBar-tab, .jp-Launcher')) {
    labels.push(e.getAttribute('title') || '', e.getAttribute('aria-label') || '', e.innerText);
  }
  return tools.filter(tool => labels.some(label => label.includes(tool)));
}
"""


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory, release: Path) -> Iterator[Lab]:
    require_chromium()
    with running_lab(tmp_path_factory.mktemp("lab-browser"), release) as server:
        yield server


@pytest.fixture(scope="module")
def page(lab: Lab) -> Iterator[Page]:
    SHOTS.mkdir(parents=True, exist_ok=True)
    with chromium_page(timeout_ms=WAIT_MS) as page:
        yield page


def _open(page: Page, lab: Lab, path: str) -> None:
    """Open ``path`` of the work folder in JupyterLab, alone, and wait for its kernel to be idle.

    ``?reset`` starts from an empty workspace: with a second notebook restored from the last
    visit, menu and toolbar commands act on whichever JupyterLab thinks is current, which in a
    headless browser (no window focus) is not reliably the one on screen.
    """
    page.goto(f"{lab.url}/lab/tree/{path}?reset&token={TOKEN}")
    page.wait_for_selector(".jp-NotebookPanel:not(.lm-mod-hidden)")
    page.wait_for_function(_KERNEL_IDLE, timeout=WAIT_MS)


def _dirty_tabs(page: Page) -> list[str]:
    return page.eval_on_selector_all(
        ".lm-TabBar-tab.jp-mod-dirty", "els => els.map(e => e.innerText)"
    )


def _menu(page: Page, name: str) -> list[str]:
    """Open the menu bar's menu ``name``; the labels of its visible items."""
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(f"^{name}$")).click()
    page.wait_for_selector(".lm-Menu")
    return page.eval_on_selector_all(
        ".lm-Menu .lm-Menu-item:not(.lm-mod-hidden) .lm-Menu-itemLabel",
        "els => els.map(e => e.innerText)",
    )


def test_problem3_opens_unmodified_with_an_idle_kernel(page: Page, lab: Lab) -> None:
    _open(page, lab, NOTEBOOK)
    page.wait_for_timeout(SETTLE_MS)  # a dirty mark comes when the kernel's metadata is applied
    page.screenshot(path=str(SHOTS / "problem3-opened.png"))
    assert _dirty_tabs(page) == [], "opening a notebook must not mark it unsaved"
    assert page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .validate-button").is_visible()


def _wait(page: Page, condition: str, what: str) -> Any:
    """Wait for ``condition``; on a timeout, fail saying which dialogs were open, with a
    screenshot (an unexpected dialog is what usually stops a run)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        return page.wait_for_function(condition, timeout=WAIT_MS)
    except PlaywrightTimeout:
        shot = SHOTS / f"timeout-{what.replace(' ', '-')}.png"
        page.screenshot(path=str(shot))
        dialogs = page.locator(".jp-Dialog").all_inner_texts()
        raise AssertionError(f"{what}: timed out; dialogs open: {dialogs}; see {shot}") from None


_ANY_CELL_STARTED = """
() => Array.from(document.querySelectorAll(
    '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .jp-InputPrompt'))
  .some(p => /\\[(\\*|\\d+)\\]/.test(p.textContent))
"""


def _run_all(page: Page, tries: int = 5) -> None:
    """Run ▸ Run All Cells on the visible notebook, as a student does, until its cells start.

    Right after a notebook opens, JupyterLab can take the click before the notebook is its
    current widget or its kernel session is connected, and then runs nothing: click again.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for _ in range(tries):
        page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell").first.click()
        _menu(page, "Run")
        page.locator(".lm-Menu-itemLabel", has_text=re.compile("^Run All Cells$")).click()
        try:
            page.wait_for_function(_ANY_CELL_STARTED, timeout=30_000)
            return
        except PlaywrightTimeout:
            page.keyboard.press("Escape")
    raise AssertionError(f"Run All Cells started no cell in {tries} tries")


def test_run_all_shows_the_figure_under_the_last_cell(page: Page, lab: Lab, release: Path) -> None:
    # the student's answers: the model solution in every answer cell, with the metadata of the
    # copy the launcher made (as the student's own save would keep it), in a notebook of its own
    # (rewriting the one already open would race JupyterLab's check for changes on disk)
    answered = solved(release, "problem3")
    answered.metadata = nbformat.read(str(lab.work / NOTEBOOK), 4).metadata
    (lab.work / ANSWERED).parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(answered, str(lab.work / ANSWERED))
    _open(page, lab, ANSWERED)
    _run_all(page)
    _wait(page, _ALL_CELLS_RAN, "run all")
    errors = page.evaluate(_ERROR_OUTPUTS)
    assert errors == [], f"the model answers raised: {errors}"
    outputs = page.evaluate(_LAST_CELL_OUTPUTS)
    assert any(o.startswith("image/png") for o in outputs), f"no figure under the cell: {outputs}"
    figure = _wait(page, _LAST_CELL_IMAGE_LOADED, "figure").json_value()
    page.locator(
        ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell"
    ).last.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "problem3-figure.png"))
    assert figure["width"] > 100 and figure["height"] > 100, figure


def test_validate_passes_the_model_answers(page: Page, lab: Lab) -> None:
    dialogs = page.locator(".jp-Dialog").all_inner_texts()
    assert dialogs == [], f"a dialog is in the way: {dialogs}"
    page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .validate-button").click()
    dialog = page.locator(".jp-Dialog")
    dialog.wait_for(state="visible", timeout=WAIT_MS)
    text = dialog.inner_text()
    page.screenshot(path=str(SHOTS / "validate.png"))
    page.keyboard.press("Escape")
    assert "Success" in text, text


def test_the_nbgrader_menu_has_no_instructor_tools(page: Page, lab: Lab) -> None:
    items = _menu(page, "Nbgrader")
    page.screenshot(path=str(SHOTS / "nbgrader-menu.png"))
    page.keyboard.press("Escape")
    assert "Assignment List" in items, items
    assert not [item for item in items if item.startswith(INSTRUCTOR_TOOLS)], items


def test_the_launcher_and_side_bars_have_no_instructor_tools(page: Page, lab: Lab) -> None:
    _menu(page, "File")
    page.locator(".lm-Menu-itemLabel", has_text=re.compile("^New Launcher$")).click()
    page.wait_for_selector(".jp-Launcher")
    page.screenshot(path=str(SHOTS / "launcher.png"))
    assert page.evaluate(_INSTRUCTOR_TOOLS_SHOWN, list(INSTRUCTOR_TOOLS)) == []
