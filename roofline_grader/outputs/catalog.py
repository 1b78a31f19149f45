"""The Chinese of everything the grader shows a student, checked and updated in one command:
the checks' hints, notes and the visible checks' lines (:mod:`roofline_grader.checks.catalog`,
``locales/zh_CN/LC_MESSAGES/checks.po``) and a feedback page's own words
(:data:`roofline_grader.outputs.feedback.MESSAGES`: its headings, the kinds of problem it reports
about a notebook), which the checks, a floor below the pages, cannot list themselves.

``python -m roofline_grader.outputs.catalog`` reports the catalog's coverage and everything that
keeps it from being complete; ``--update`` first adds an empty entry for every text without one.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from roofline_grader.checks import catalog
from roofline_grader.outputs import feedback
from roofline_lib.selfcheck.i18n import CATALOG_PATH

SHOWN: catalog.Sources = (("roofline_grader.outputs.feedback", feedback.MESSAGES),)
"""What the grader shows a student besides the checks' own texts."""


def messages() -> dict[str, tuple[str, ...]]:
    """Every English text a student can be shown, with where it comes from."""
    return catalog.messages(SHOWN)


def update(po_path: Path = catalog.PO_PATH) -> list[str]:
    """Add an empty entry for every text the catalog cannot translate yet; the texts added."""
    return catalog.update(po_path, SHOWN)


def problems(po_path: Path = catalog.PO_PATH, compiled: Path = CATALOG_PATH) -> list[str]:
    """Everything that keeps the catalog from giving every text its Chinese (empty: complete)."""
    return catalog.problems(po_path, compiled, SHOWN)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=f"python -m {catalog.CLI}", description=(__doc__ or "").split("\n")[0]
    )
    parser.add_argument(
        "--update", action="store_true", help="add an entry for each message without one"
    )
    args = parser.parse_args(argv)
    if args.update:
        added = update()
        print(f"added {len(added)} entries to {catalog.PO_PATH.relative_to(catalog.ROOT)}")
    print(catalog.coverage(shown=SHOWN))
    found = problems()
    print("\n".join(found) if found else "complete: every message has its Chinese")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
