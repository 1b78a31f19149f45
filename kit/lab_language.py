"""JupyterLab's side of one language at a time (``roofline_lib.selfcheck.language``): a contents
manager that shows each statement of a notebook in the student's language as it is opened, and
writes it back as released as it is saved.

It lives beside the launcher (the kit's ``start_lab.py`` puts this folder on the server's
``PYTHONPATH``), not in the library: it is the lab's, and needs Jupyter Server, which the
library does not. The kit's Jupyter configuration (``jupyter/jupyter_server_config.json``) names
:class:`LanguageContentsManager` as the server's contents manager, so the kit and ``make lab``
both use it. The student's language is ``chosen_language`` for the server's root
folder (the launcher's ``ROOFLINE_LAB_LANGUAGE``, else the work folder's setting file); with none,
notebooks are shown and saved exactly as they are.

On disk a notebook keeps the release's bilingual statements, byte for byte: nbgrader's checksums
of the read-only cells hold, Validate and the grader read what was released, and a student who
switches language later sees every notebook in the new one. A save records the language in the
notebook's metadata (``METADATA_KEY``), so the feedback page can be written in it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager

from roofline_lib.selfcheck.language import chosen_language, release_notebook, show_notebook


class LanguageContentsManager(AsyncLargeFileManager):
    """Jupyter Server's file contents manager, with statements in the student's language."""

    def student_language(self) -> str | None:
        """The language chosen for this work folder (None: show both, as released)."""
        return chosen_language(folder=Path(self.root_dir))

    async def get(
        self,
        path: Any,
        content: Any = True,
        type: Any = None,  # the base class's names
        format: Any = None,
        require_hash: Any = False,
    ) -> Any:
        model = await super().get(  # type: ignore[no-untyped-call]
            path, content=content, type=type, format=format, require_hash=require_hash
        )
        language = self.student_language()
        if language is not None and model.get("type") == "notebook" and model.get("content"):
            show_notebook(model["content"], language)
        return model

    async def save(self, model: Any, path: Any = "") -> Any:
        if model.get("type") == "notebook" and isinstance(model.get("content"), dict):
            release_notebook(model["content"], self.student_language())
        return await super().save(model, path)  # type: ignore[no-untyped-call]


__all__ = ["LanguageContentsManager"]
