"""Make sure Debian's Chromium is installed for the browser tests.

The browser tests drive /usr/bin/chromium with playwright (never playwright's own browser
download, which cannot work offline). If it is missing and we are root, install it with apt-get;
otherwise say what to run. In CI (CI=true) a missing browser is an error, never a skip.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

CHROMIUM = "/usr/bin/chromium"
# a CJK font, so that screenshots of the English–Chinese glossary show characters, not boxes
PACKAGES = ["chromium", "fonts-wqy-microhei"]
FONT = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"


def main() -> int:
    if os.path.exists(CHROMIUM) and os.path.exists(FONT):
        return 0
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        print(
            f"the browser tests need Debian packages: sudo apt-get install -y {' '.join(PACKAGES)}",
            file=sys.stderr,
        )
        return 1 if os.environ.get("CI") == "true" else 0
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    print("installing Debian's chromium for the browser tests (apt-get)...", flush=True)
    install = ["apt-get", "install", "-y", "-q", "--no-install-recommends", *PACKAGES]
    if subprocess.run(install, env=env, stdout=subprocess.DEVNULL).returncode != 0:
        subprocess.run(["apt-get", "update", "-q"], env=env, stdout=subprocess.DEVNULL, check=True)
        subprocess.run(install, env=env, stdout=subprocess.DEVNULL, check=True)
    return 0 if os.path.exists(CHROMIUM) else 1


if __name__ == "__main__":
    raise SystemExit(main())
