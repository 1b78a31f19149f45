"""The one place the sealed executor touches nbclient's and nbconvert's private API
(roofline_grader.kernel.nbclient_adapter): pinned to the versions it was read against, and checked to do
what SealedExecute relies on, without a kernel."""

from __future__ import annotations

import asyncio
import inspect
import time

from nbclient.client import NotebookClient
from nbconvert.preprocessors import ExecutePreprocessor
from nbformat.v4 import new_code_cell, new_notebook

from roofline_grader.kernel.execute import SealedExecute
from roofline_grader.kernel.nbclient_adapter import (
    CHECKED_WITH,
    RECHECK,
    AdaptedExecute,
    installed_versions,
)


def test_the_private_api_is_pinned_to_the_versions_it_was_read_against() -> None:
    installed = installed_versions()
    assert installed == CHECKED_WITH, (
        f"nbclient/nbconvert changed: installed {installed}, roofline_grader.kernel.nbclient_adapter was "
        f"checked against {CHECKED_WITH}. {RECHECK} Then update CHECKED_WITH."
    )


def test_the_private_names_it_calls_still_exist() -> None:
    assert inspect.iscoroutinefunction(NotebookClient._async_cleanup_kernel), RECHECK
    assert callable(ExecutePreprocessor._check_assign_resources), RECHECK
    setup = inspect.getsource(NotebookClient.async_setup_kernel)
    assert "self._async_cleanup_kernel()" in setup, RECHECK
    preprocess = inspect.getsource(ExecutePreprocessor.preprocess)
    assert "NotebookClient.__init__(self, nb, km)" in preprocess, RECHECK
    assert "timeout_func" in inspect.getsource(NotebookClient._get_timeout), RECHECK


def test_begin_starts_afresh_on_a_notebook_with_its_resources() -> None:
    client = AdaptedExecute()
    first, second = new_notebook(cells=[new_code_cell("1")]), new_notebook()
    client.begin(first, {"metadata": {"path": "/a"}})
    client.code_cells_executed = 5
    client.begin(second, {"metadata": {"path": "/b"}})
    assert client.nb is second and client.resources == {"metadata": {"path": "/b"}}
    assert client.code_cells_executed == 0 and client.km is None


def test_stopping_when_no_kernel_is_left_does_nothing() -> None:
    client = AdaptedExecute()
    client.begin(new_notebook())
    asyncio.run(client.stop_kernel())  # nbclient's own would fail its `assert self.km`
    assert client.km is None


def test_a_cell_may_run_only_as_long_as_the_notebook_has_left() -> None:
    executor = SealedExecute(timeout=30)
    cell = new_code_cell("while True: pass")
    executor._deadline = time.monotonic() + 5.5
    assert executor.cell_timeout(cell) == 5
    executor._deadline = time.monotonic() + 500
    assert executor.cell_timeout(cell) == 30
    executor._deadline = time.monotonic() - 10  # spent: still one second, never zero (no limit)
    assert executor.cell_timeout(cell) == 1
    executor.timeout = -1  # no per-cell limit: the notebook's budget alone
    executor._deadline = time.monotonic() + 42.5
    assert executor.cell_timeout(cell) == 42


def test_the_notebook_budget_counts_from_when_grading_it_began() -> None:
    # a notebook that took 30 s to read and repair has 70 s of a 100 s budget left for its cells
    began = SealedExecute(notebook_timeout=100, started_at=time.time() - 30)
    assert 69 <= began.budget_deadline() - time.monotonic() <= 70.5
    fresh = SealedExecute(notebook_timeout=100)
    assert 99 <= fresh.budget_deadline() - time.monotonic() <= 100.5
