"""Make sure the grading sandbox can run here: bubblewrap installed, and (as root) its user.

roofline-grade runs every student's kernel under bubblewrap (Debian's ``bubblewrap`` package), and,
when grading as root, as the unprivileged system user ``roofline-sandbox``. As root this installs
the package with apt-get and creates the user with useradd; otherwise it says what to run. In CI
(CI=true) anything missing is an error, never a skip.
"""

from __future__ import annotations

import os
import pwd
import subprocess
import sys

from roofline_grader.kernel.sandbox import SANDBOX_USER, trusted_tool
from tools import apt

PACKAGES = ["bubblewrap", "util-linux"]


def missing() -> list[str]:
    """What the sandbox still lacks here: "package" (bubblewrap or prlimit), and as root "user"."""
    parts = []
    if trusted_tool("bwrap") is None or trusted_tool("prlimit") is None:
        parts.append("package")
    if os.geteuid() == 0:
        try:
            pwd.getpwnam(SANDBOX_USER)
        except KeyError:
            parts.append("user")
    return parts


def main() -> int:
    if not sys.platform.startswith("linux"):
        print(f"no grading sandbox on {sys.platform}: roofline-grade needs --no-sandbox there")
        return 0
    missing_now = missing()
    if not missing_now:
        return 0
    if not apt.can_install():
        return apt.ask_for(PACKAGES, "the grading sandbox")
    if "package" in missing_now:
        apt.install(PACKAGES, "bubblewrap for the grading sandbox")
    if "user" in missing_now:
        print(f"creating the system user {SANDBOX_USER} that students' kernels run as", flush=True)
        subprocess.run(
            [
                "useradd",
                "--system",
                "--user-group",
                "--no-create-home",
                "--home-dir",
                "/nonexistent",
                "--shell",
                "/usr/sbin/nologin",
                SANDBOX_USER,
            ],
            check=True,
        )
    return 1 if missing() else 0


if __name__ == "__main__":
    raise SystemExit(main())
