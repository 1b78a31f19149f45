"""The GitHub Actions workflows (.github/workflows): they pass actionlint (``make lint``), which
finds real mistakes; they run the README's own commands (``make test`` for CI, ``make book`` for
Pages, ``make student-kit`` and ``make book`` for releases), so the commands have one source of
truth; and they publish what the README promises (the site from ``_build/html``, the kit's zip on
every release)."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import in_ci
from tests.test_repo_commands import README, readme_make_targets
from tools import actionlint, kit_lock, lib_stamp

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = ROOT / ".github" / "workflows"
KIT = "roofline-student-kit.zip"


def workflow(name: str) -> dict[str, Any]:
    data = yaml.safe_load((WORKFLOWS / name).read_text())
    if True in data:  # YAML 1.1 reads the key `on` as true
        data["on"] = data.pop(True)
    return data


def steps(job: dict[str, Any]) -> list[dict[str, Any]]:
    return list(job.get("steps", []))


def runs(job: dict[str, Any]) -> list[str]:
    """The shell of every ``run:`` step of ``job``."""
    return [step["run"] for step in steps(job) if "run" in step]


COMMAND_START = {"&&", "||", ";", "|", "(", "{", "then", "do", "else"}
"""Shell words after which a new command begins."""


def make_targets(job: dict[str, Any]) -> list[str]:
    """Every ``make TARGET`` the job's steps run, in order (make as a command's first word)."""
    targets = []
    for script in runs(job):
        for line in script.splitlines():
            lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
            lexer.whitespace_split = True
            words = list(lexer)
            for i, word in enumerate(words):
                if word == "make" and (i == 0 or words[i - 1] in COMMAND_START):
                    for arg in words[i + 1 :]:
                        if arg in COMMAND_START or arg in {">", ">>", "<"}:
                            break
                        if not arg.startswith("-") and "=" not in arg:
                            targets.append(arg)
    return targets


def uses(job: dict[str, Any], action: str) -> list[dict[str, Any]]:
    """The steps of ``job`` that use ``action`` (any version)."""
    return [s for s in steps(job) if s.get("uses", "").split("@")[0] == action]


def all_jobs() -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path.name, name, job)
        for path in sorted(WORKFLOWS.glob("*.yml"))
        for name, job in workflow(path.name)["jobs"].items()
    ]


def needs_node() -> None:
    if actionlint.shutil.which("node") is None:
        (pytest.fail if in_ci() else pytest.skip)(actionlint.NODE_MISSING)


# ----------------------------------------------------------------------------------------------
# actionlint
# ----------------------------------------------------------------------------------------------

BROKEN = """\
name: broken
on: push
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v3
        with:
          fetch-dept: 1
      - run: echo "${{ github.no_such_property }}"
  later:
    needs: no-such-job
    runs-on: ubuntu-latest
    steps:
      - run: make test
"""


def test_actionlint_finds_the_mistakes_of_a_broken_workflow(tmp_path, capsys):
    needs_node()
    path = tmp_path / "broken.yml"
    path.write_text(BROKEN)
    findings = actionlint.lint([path])
    assert {(f.line, f.kind) for f in findings} == {
        (9, "action"),
        (10, "expression"),
        (11, "job-needs"),
    }
    assert actionlint.main([str(path)]) == 1
    printed = capsys.readouterr().out.splitlines()
    assert printed == [str(f) for f in findings]
    assert re.fullmatch(
        rf"{re.escape(str(path))}:9:11: input \"fetch-dept\" is not defined .* \[action\]",
        printed[0],
    ), printed[0]


def test_the_repositorys_workflows_pass_actionlint(capsys):
    needs_node()
    found = actionlint.workflows()
    assert {p.name for p in found} == {"ci.yml", "book.yml", "release.yml"}
    assert actionlint.lint(found) == []
    assert actionlint.main([]) == 0


def test_actionlint_without_node_says_what_to_install(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(actionlint.shutil, "which", lambda name: None)
    (tmp_path / "ok.yml").write_text("on: push\n")
    assert actionlint.main([str(tmp_path / "ok.yml")]) == 1
    error = capsys.readouterr().err
    assert "Node.js" in error and "apt-get install nodejs" in error


def test_make_lint_runs_actionlint():
    done = subprocess.run(
        ["make", "-n", "lint", "STAMP=/dev/null"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert any(line.split()[1:] == ["-m", "tools.actionlint"] for line in done.stdout.splitlines())


# ----------------------------------------------------------------------------------------------
# The README's commands, and what the workflows publish
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("file", "job", "definition"), all_jobs(), ids=lambda x: str(x)[:20])
def test_every_make_target_a_workflow_runs_is_one_the_readme_names(file, job, definition):
    readme = readme_make_targets()
    for target in make_targets(definition):
        assert target in readme, (
            f"{file} job {job} runs make {target}, which the README never names"
        )


def test_the_workflows_test_publish_and_release_with_the_readmes_commands():
    assert {"test", "book", "student-kit"} <= set(readme_make_targets())
    ci, book, release = (workflow(n) for n in ("ci.yml", "book.yml", "release.yml"))
    assert make_targets(ci["jobs"]["test"]) == ["test"]
    assert make_targets(ci["jobs"]["kit"]) == ["student-kit"]
    assert make_targets(book["jobs"]["build"]) == ["book"]
    assert make_targets(release["jobs"]["build"]) == ["student-kit", "book"]
    assert set(ci["on"]) == {"push", "pull_request"}
    assert book["on"]["push"]["branches"] == ["main"] and "workflow_dispatch" in book["on"]
    assert release["on"]["push"]["tags"] == ["v*"]


def test_ci_runs_the_whole_suite_as_ci_on_the_projects_debian_with_every_kit_python():
    job = workflow("ci.yml")["jobs"]["test"]
    image = job["container"]["image"]
    assert re.fullmatch(r"python:3\.11-bookworm", image), image
    assert "--privileged" in job["container"]["options"]  # bubblewrap's namespaces
    assert job["env"]["CI"] == "true"
    (install,) = [s for s in runs(job) if "uv python install" in s]
    installed = re.search(r"uv python install ([\d. ]+)", install)
    assert installed is not None
    # the image's Python and those uv installs: every Python the kit's every-Python test needs
    assert sorted({"3.11", *installed.group(1).split()}) == sorted(kit_lock.PYTHONS)
    # where tools/kit_lock.py looks whatever PATH is (besides PATH and pyenv)
    assert "UV_PYTHON_BIN_DIR=/usr/local/bin" in install


def test_the_kit_matrix_installs_the_kit_as_its_readme_says_on_every_python():
    jobs = workflow("ci.yml")["jobs"]
    matrix = jobs["kit-install"]["strategy"]["matrix"]["python"]
    assert matrix == list(kit_lock.PYTHONS)
    (upload,) = uses(jobs["kit"], "actions/upload-artifact")
    assert f"dist/{KIT}" in upload["with"]["path"].split()
    install = "\n".join(runs(jobs["kit-install"]))
    pattern = re.search(r"grep -m1 '(.+?)' README\.md", install)
    assert pattern is not None, "the install step no longer reads the kit README's command"
    kit_readme = (ROOT / "tools" / "student_kit_README.md").read_text()
    lines = [line for line in kit_readme.splitlines() if re.match(pattern.group(1), line)]
    assert lines == ["python3 -m venv .venv && .venv/bin/python -m pip install -r requirements.txt"]
    # the blank release must fail validation, the model answers must pass it
    assert (
        "VALIDATION FAILED ON" in install
        and "Success! Your notebook passes all the tests" in install
    )


def test_pages_deploys_the_built_site_for_its_own_address():
    jobs = workflow("book.yml")["jobs"]
    build = jobs["build"]
    (upload,) = uses(build, "actions/upload-pages-artifact")
    assert upload["with"]["path"] == "_build/html"
    (pages,) = uses(build, "actions/configure-pages")
    (make_book,) = [s for s in runs(build) if s.startswith("make book")]
    assert f'BASEURL="${{{{ steps.{pages["id"]}.outputs.base_url }}}}/"' in make_book
    deploy = jobs["deploy"]
    assert deploy["needs"] == "build" and uses(deploy, "actions/deploy-pages")
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["environment"]["name"] == "github-pages"
    assert workflow("book.yml")["concurrency"]["group"] == "pages"


def test_pages_caches_every_execution_cache_with_the_stamp_that_keeps_it(tmp_path):
    build = workflow("book.yml")["jobs"]["build"]
    (cache,) = [s for s in uses(build, "actions/cache") if "jupyter_cache" in s["with"]["path"]]
    paths = cache["with"]["path"].split()
    assert "restore-keys" in cache["with"]
    # tools/lib_stamp.py's caches, made in a scratch _build, are all matched by the paths
    for cache_dir in ("_build/.jupyter_cache", "_build/editions/zh_CN/_build/.jupyter_cache"):
        (tmp_path / cache_dir).mkdir(parents=True)
    found = lib_stamp.execution_caches(tmp_path / "_build")
    assert len(found) == 2
    for path in found:
        relative = path.relative_to(tmp_path)
        assert any(relative.match(p) for p in paths), (relative, paths)
    assert "_build/.lib-stamp" in paths
    assert re.search(r"^_build/\.lib-stamp:", (ROOT / "Makefile").read_text(), re.M)
    # the release restores the same cache, under the same key
    release = workflow("release.yml")["jobs"]["build"]
    (restore,) = uses(release, "actions/cache/restore")
    assert restore["with"] == {k: cache["with"][k] for k in ("path", "key", "restore-keys")}


def test_a_release_attaches_the_kit_the_readme_links_and_the_site():
    jobs = workflow("release.yml")["jobs"]
    (upload,) = uses(jobs["build"], "actions/upload-artifact")
    assert upload["with"]["path"].split() == [f"dist/{KIT}", "dist/roofline-book-site.zip"]
    (attach,) = [s for s in runs(jobs["publish"]) if "gh release upload" in s]
    assert f"{KIT} roofline-book-site.zip" in attach
    assert "gh release create" in attach
    assert jobs["publish"]["permissions"] == {"contents": "write"}
    # the README sends students to that file of the latest release
    assert f"/releases/latest/download/{KIT}" in README
