"""The private corners of nbclient and nbconvert that the sealed executor needs, in one place.

:class:`~roofline_grader.kernel.execute.SealedExecute` is nbgrader's ``Execute`` preprocessor, which is
nbconvert's ``ExecutePreprocessor``, which is nbclient's ``NotebookClient``. It runs the cells
itself, with kernels it takes from :mod:`~roofline_grader.kernel.warm`, and replaces a kernel that died
or hung in the middle of a notebook. nbclient has no public API for two things that needs:

* **starting on a notebook**: ``NotebookClient.__init__(client, nb, km)``, then
  ``reset_execution_trackers()`` and nbconvert's private ``_check_assign_resources(resources)``:
  exactly what nbconvert's own ``ExecutePreprocessor.preprocess`` does first
  (nbconvert/preprocessors/execute.py), which SealedExecute cannot call because it runs the
  cells its own way (:meth:`AdaptedExecute.begin`);
* **stopping a kernel** to replace it: nbclient's private ``_async_cleanup_kernel``, which
  nbclient's ``async_setup_kernel`` also calls when its block exits. After SealedExecute gives up
  on a kernel there is none left to stop, so the override here does nothing then
  (:meth:`AdaptedExecute.stop_kernel`).

Everything else SealedExecute uses is public: ``async_setup_kernel``, ``async_execute_cell``,
``async_wait_for_reply``, ``async_start_new_kernel_client``, ``output``, ``process_message``,
``handle_comm_msg``, and the ``timeout_func`` trait (the notebook's time budget caps each cell's
timeout through it).

:data:`CHECKED_WITH` holds the versions this was read against; tests/grading/test_nbclient_adapter.py
fails when the installed ones differ, and says what to re-read before moving the pin.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

from nbclient.client import NotebookClient
from nbformat import NotebookNode
from nbgrader.preprocessors import Execute

CHECKED_WITH = {"nbclient": "0.11.0", "nbconvert": "7.17.2"}
"""The versions whose private API this module was checked against."""

RECHECK = (
    "Before moving the pin, re-read: nbconvert/preprocessors/execute.py "
    "(ExecutePreprocessor.preprocess still starts with NotebookClient.__init__(self, nb, km), "
    "reset_execution_trackers() and _check_assign_resources(resources)); nbclient/client.py "
    "(_async_cleanup_kernel still stops the kernel and sets km and kc to None, and "
    "async_setup_kernel still calls it on exit; _get_timeout still prefers timeout_func). Then "
    "run tests/grading/test_grading_run.py and test_grading_sandbox.py (dead and stuck kernels)."
)
"""What to re-check when nbclient or nbconvert changes version."""


def installed_versions() -> dict[str, str]:
    """The installed versions of the packages in :data:`CHECKED_WITH`."""
    return {name: version(name) for name in CHECKED_WITH}


class AdaptedExecute(Execute):  # type: ignore[misc]  # nbgrader is untyped: Any
    """nbgrader's Execute with the private nbclient/nbconvert calls it needs given public names."""

    def begin(self, nb: NotebookNode, resources: Any = None, km: Any = None) -> None:
        """Set the client up for ``nb`` as nbconvert's ``ExecutePreprocessor.preprocess`` does
        before it runs any cell: fresh execution state, this notebook, these resources."""
        NotebookClient.__init__(self, nb, km)
        self.reset_execution_trackers()
        self._check_assign_resources(resources)

    async def stop_kernel(self) -> None:
        """Shut the current kernel down and drop its client (nothing if there is none)."""
        await self._async_cleanup_kernel()

    async def _async_cleanup_kernel(self) -> None:
        # nbclient's async_setup_kernel calls this on exit too, when a kernel may be gone already
        if self.km is not None:
            await super()._async_cleanup_kernel()
