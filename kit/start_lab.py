"""Start JupyterLab on a student's own copy of the exercises, as the course means it to look.

Used by ``make lab`` in the course repository and, unchanged, by the student kit, where it runs from
an unpacked zip with the Python that has JupyterLab and the course's library installed (so: the
standard library, ``jupyter_client`` and ``roofline_lib`` only). Run::

    python start_lab.py [--language en|zh_CN] [--exercises DIR] [--work DIR]
                        [--course-config DIR] [jupyter lab args...]

It

0. settles the language the student reads the exercises in: ``--language``, else the one the
   work folder remembers (``.roofline-language``), else the system's locale (Chinese for a
   ``zh`` locale, English otherwise), and remembers it in the work folder. JupyterLab shows each
   statement in it with the other language folded below, the checks speak it, and this launcher
   prints in it (:mod:`roofline_lib.selfcheck.language`);
1. copies every file of the exercises folder (default: ``exercises/`` next to this script) that the
   work folder (default: ``work/`` next to this script) does not have yet, and never overwrites a
   file there: the work folder holds the student's answers. A copied notebook gets the kernel
   metadata JupyterLab would write on opening it (this Python's version and the installed kernel's
   name), so that it opens unmodified instead of marked unsaved;
2. removes ``MPLBACKEND`` from the environment, so that the kernel uses the inline backend and a
   figure shows under its cell (a non-interactive backend such as Agg would show nothing);
3. puts the Jupyter configuration shipped beside this script (``jupyter/``) on
   ``JUPYTER_CONFIG_PATH``: it hides nbgrader's instructor tools (Formgrader, Create Assignment)
   and keeps Validate. Without ``--course-config`` there is no nbgrader exchange, so the
   Assignments and Courses tabs are hidden too (``jupyter/no-exchange/``); each ``--course-config``
   folder (a course's ``nbgrader_config.py``, naming its exchange) goes first on the path and keeps
   them;
4. replaces itself with ``python -m jupyterlab`` rooted at the work folder (``--allow-root`` added
   when run as root); any other argument (``--no-browser``, ``--port=8899``...) is passed on.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from roofline_lib.selfcheck.language import (
    LANGUAGE_ENV,
    LANGUAGES,
    SETTING_FILE,
    checked_language,
    remembered_language,
    system_language,
)

HERE = Path(__file__).resolve().parent
CONFIG = HERE / "jupyter"
"""Jupyter configuration for every student: instructor tools hidden, Validate kept."""
NO_EXCHANGE_CONFIG = CONFIG / "no-exchange"
"""Added when no course configuration is given: the Assignments and Courses tabs hidden too."""
SKIPPED = {".ipynb_checkpoints", "__pycache__", ".DS_Store"}


@dataclass
class CopyReport:
    """Paths (relative to the work folder) copied from the exercises, and those already there."""

    copied: list[Path] = field(default_factory=list)
    kept: list[Path] = field(default_factory=list)

    def lines(self, language: str = "en") -> list[str]:
        """What the student reads before JupyterLab starts, in ``language``."""
        said = SAID[language]
        out = [said["copied"].format(path=p.as_posix()) for p in self.copied]
        out += [said["kept"].format(path=p.as_posix()) for p in self.kept]
        return out


SAID = {
    "en": {
        "work": "Your work lives in {work}",
        "copied": "copied {path}",
        "kept": "kept   {path} (your work, not overwritten)",
        "language": (
            "Statements, checks and feedback are in English; each statement has its Chinese "
            "folded below it."
        ),
        "switch": "中文：python start_lab.py --language zh_CN",
    },
    "zh_CN": {
        "work": "你的作业在 {work}",
        "copied": "已复制 {path}",
        "kept": "已保留 {path}（你的作业，不会被覆盖）",
        "language": "题目、检查结果和反馈都用中文；每段题目下方折叠着英文原文。",
        "switch": "English: python start_lab.py --language en",
    },
}
"""What the launcher says, in each language; the last line says how to switch to the other."""


def copy_new_files(exercises: Path, work: Path) -> CopyReport:
    """Copy every file of ``exercises`` that ``work`` lacks into ``work``; never overwrite one.

    Files are compared by path only: a notebook the student already has is kept as it is, even
    when the release has changed since.
    """
    if not exercises.is_dir():
        raise FileNotFoundError(f"--exercises must be a folder, got {exercises}")
    report = CopyReport()
    for source in sorted(exercises.rglob("*")):
        relative = source.relative_to(exercises)
        if not source.is_file() or SKIPPED.intersection(relative.parts):
            continue
        target = work / relative
        if target.exists():
            report.kept.append(relative)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
        if target.suffix == ".ipynb":
            match_this_kernel(target)
        report.copied.append(relative)
    return report


@functools.cache
def installed_kernelspec(name: str) -> tuple[tuple[str, str], ...] | None:
    """The ``kernelspec`` metadata JupyterLab writes for kernel ``name`` here (as items), or None
    when there is no such kernel."""
    try:
        from jupyter_client.kernelspec import KernelSpecManager

        spec = KernelSpecManager().get_kernel_spec(name)
    except Exception:  # no such kernel, or no jupyter_client: leave the notebook as it is
        return None
    return (("display_name", spec.display_name), ("language", spec.language), ("name", name))


def match_this_kernel(notebook: Path) -> None:
    """Fill in the metadata JupyterLab rewrites from the running kernel as soon as it starts.

    The release carries all of ipykernel's ``language_info`` except ``version``, the exact Python
    version, which differs from machine to machine; ipykernel reports ``sys.version.split()[0]`` of
    the Python it runs on, which is this one (JupyterLab starts from it). The ``kernelspec`` display
    name is the installed kernel's, in case it differs from the release's (an older ``make setup``
    installed a "Python 3 (roofline course)" kernel). The notebook is written as nbformat writes
    it; one that is not valid JSON is left alone.
    """
    try:
        nb = json.loads(notebook.read_text(encoding="utf-8"))
        metadata = nb.setdefault("metadata", {})
    except (ValueError, AttributeError):
        return
    language = metadata.get("language_info", {})
    if language.get("name") == "python":
        language["version"] = sys.version.split()[0]
    spec = installed_kernelspec(metadata.get("kernelspec", {}).get("name", "python3"))
    if spec is not None:
        metadata["kernelspec"] = dict(spec)
    text = json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False)
    notebook.write_text(text + "\n", encoding="utf-8")


def lab_environment(
    course_configs: Sequence[Path], base: dict[str, str] | None = None
) -> dict[str, str]:
    """The environment JupyterLab (and so each kernel) runs in: ``base`` (default: this one)
    without ``MPLBACKEND``, with this script's folder first on ``PYTHONPATH`` (for
    ``lab_language``, the contents manager the configuration names), and with the course's and
    the kit's Jupyter configuration first on ``JUPYTER_CONFIG_PATH``."""
    env = dict(os.environ if base is None else base)
    # ipykernel selects matplotlib's inline backend only when MPLBACKEND is unset
    env.pop("MPLBACKEND", None)
    # the server imports the contents manager the configuration names from beside this script
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(HERE), env.get("PYTHONPATH")) if p)
    path = [str(p.resolve()) for p in course_configs] + [str(CONFIG)]
    if not course_configs:
        path.append(str(NO_EXCHANGE_CONFIG))
    if env.get("JUPYTER_CONFIG_PATH"):
        path.append(env["JUPYTER_CONFIG_PATH"])
    env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(path)
    return env


def lab_command(work: Path, extra: Sequence[str]) -> list[str]:
    """``python -m jupyterlab`` rooted at ``work``, with ``extra`` arguments last."""
    command = [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={work}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")
    return [*command, *extra]


def parse(argv: Sequence[str]) -> tuple[argparse.Namespace, list[str]]:
    parser = argparse.ArgumentParser(
        prog="start_lab.py",
        allow_abbrev=False,
        description="Copy new exercises into your work folder and open JupyterLab on it. "
        "Other arguments go to `jupyter lab` (for example --no-browser --port=8899).",
    )
    parser.add_argument(
        "--language",
        metavar="{en,zh_CN}",
        help="the language to read the exercises in, remembered in the work folder "
        f"({SETTING_FILE}); default: the remembered one, else the system's (one of "
        f"{', '.join(LANGUAGES)}; zh is zh_CN)",
    )
    parser.add_argument(
        "--exercises", type=Path, default=HERE / "exercises", help="default: %(default)s"
    )
    parser.add_argument("--work", type=Path, default=HERE / "work", help="default: %(default)s")
    parser.add_argument(
        "--course-config",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="a course's Jupyter config folder (nbgrader_config.py with an exchange), put first "
        "on JUPYTER_CONFIG_PATH; it keeps the Assignments and Courses tabs (repeatable)",
    )
    return parser.parse_known_args(argv)


def settle_language(work: Path, asked: str | None) -> str:
    """The student's language: ``asked`` (``--language``), else the one ``work`` remembers, else
    the system's; written to ``work``'s setting file, so that the lab, its kernels and the next
    start find it. ValueError naming ``--language`` for a language that is not offered."""
    if asked is not None:
        language = checked_language(asked, "--language")
    else:
        language = remembered_language(work) or system_language()
    (work / SETTING_FILE).write_text(language + "\n", encoding="utf-8")
    return language


def main(argv: Sequence[str] | None = None) -> int:
    args, extra = parse(sys.argv[1:] if argv is None else argv)
    exercises, work = args.exercises.resolve(), args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    try:
        language = settle_language(work, args.language)
    except ValueError as error:
        print(f"start_lab.py: {error}", file=sys.stderr)
        return 2
    report = copy_new_files(exercises, work)
    if hasattr(sys.stdout, "reconfigure"):  # a console that cannot show Chinese shows escapes
        sys.stdout.reconfigure(errors="backslashreplace")
    said = SAID[language]
    print(said["work"].format(work=work))
    print("\n".join(f"  {line}" for line in report.lines(language)))
    print(said["language"])
    print(said["switch"], flush=True)
    env = lab_environment(args.course_config)
    env[LANGUAGE_ENV] = language
    command = lab_command(work, extra)
    os.chdir(work)
    if os.name == "posix":
        os.execve(sys.executable, command, env)
    # Windows has no real exec: wait for JupyterLab, so Ctrl+C in this console still stops it
    return subprocess.run(command, env=env, check=False).returncode


if __name__ == "__main__":
    raise SystemExit(main())
