"""Installing the Debian packages that `make` needs (chromium for the browser tests, bubblewrap for
the grading sandbox): with apt-get as root, else a line saying what to run.

In CI (CI=true) a missing package is an error, never a skip.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence


def can_install() -> bool:
    """Whether this process may install Debian packages itself (root, with apt-get)."""
    return os.geteuid() == 0 and shutil.which("apt-get") is not None


def ask_for(packages: Sequence[str], what: str) -> int:
    """Say which packages ``what`` needs; the exit status: 1 in CI, else 0 (a local run goes on)."""
    print(f"{what} need(s): sudo apt-get install -y {' '.join(packages)}", file=sys.stderr)
    return 1 if os.environ.get("CI") == "true" else 0


def install(packages: Sequence[str], why: str) -> None:
    """apt-get install ``packages`` (updating the package lists first only if that fails)."""
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    print(f"installing {why} (apt-get)...", flush=True)
    command = ["apt-get", "install", "-y", "-q", "--no-install-recommends", *packages]
    if subprocess.run(command, env=env, stdout=subprocess.DEVNULL).returncode != 0:
        subprocess.run(["apt-get", "update", "-q"], env=env, stdout=subprocess.DEVNULL)
        subprocess.run(command, env=env, stdout=subprocess.DEVNULL, check=True)
