"""Make sure Debian's Chromium is installed for the browser tests.

The browser tests drive /usr/bin/chromium with playwright (never playwright's own browser
download, which cannot work offline). If it is missing and we are root, install it with apt-get;
otherwise say what to run. In CI (CI=true) a missing browser is an error, never a skip.
"""

from __future__ import annotations

import os

from tools import apt

CHROMIUM = "/usr/bin/chromium"
# a CJK font, so that screenshots of the English–Chinese glossary show characters, not boxes
PACKAGES = ["chromium", "fonts-wqy-microhei"]
FONT = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"


def main() -> int:
    if os.path.exists(CHROMIUM) and os.path.exists(FONT):
        return 0
    if not apt.can_install():
        return apt.ask_for(PACKAGES, "the browser tests")
    apt.install(PACKAGES, "Debian's chromium for the browser tests")
    return 0 if os.path.exists(CHROMIUM) else 1


if __name__ == "__main__":
    raise SystemExit(main())
