"""Fetch the book's JavaScript from the npm registry so that pages display with no network.

The rendered book needs MathJax (typesetting), require.js and the Jupyter widget manager (widget
state embedded in a page), and uPlot (the live explorer's chart). Sphinx and myst-nb load them
from CDNs by default; this script downloads pinned releases once, at set-up, into
``book/_static/vendor/``, and ``_config.yml`` and ``book/_ext`` point at those copies. Each
tarball's SHA-512 is checked against the registry's published integrity.

It also fetches the Chinese edition's fonts into a second folder outside the book's static files
(``book/_fonts/``): IBM Plex Sans SC (SIL Open Font License), complete WOFF files, each converted
to OpenType there for matplotlib to draw Chinese figure text; and DejaVu Sans (Bitstream Vera
license), for the few characters the pages use that IBM Plex Sans SC lacks (superscript digits,
µ, ½, −, ✓, ✗). The book serves only a subset of each, the characters the Chinese edition shows
(book/_ext/i18n.py), so that a reader needs no font of their own and no character falls back to
whatever the reader's system has.

Usage: python tools/fetch_static.py book/_static/vendor [book/_fonts]
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import shutil
import sys
import tarfile
import urllib.request
from pathlib import Path

REGISTRY = "https://registry.npmjs.org"

# package, version, {path prefix inside the tarball: destination folder under vendor/}
PACKAGES = (
    ("mathjax", "3.2.2", {"package/es5/": "mathjax/"}),
    ("requirejs", "2.3.7", {"package/require.js": "require.js"}),
    ("@jupyter-widgets/html-manager", "1.0.15", {"package/dist/": "html-manager/"}),
    # the live explorer's chart (book/_ext/live_explorer.py): ~50 KB, canvas, log axes
    (
        "uplot",
        "1.6.32",
        {
            "package/dist/uPlot.iife.min.js": "uplot/uPlot.iife.min.js",
            "package/dist/uPlot.min.css": "uplot/uPlot.min.css",
        },
    ),
)

FONT_PACKAGES = (
    (
        "@ibm/plex-sans-sc",
        "1.1.0",
        {
            "package/fonts/complete/woff/hinted/IBMPlexSansSC-Regular.woff": (
                "IBMPlexSansSC-Regular.woff"
            ),
            "package/fonts/complete/woff/hinted/IBMPlexSansSC-SemiBold.woff": (
                "IBMPlexSansSC-SemiBold.woff"
            ),
            "package/LICENSE.txt": "LICENSE.txt",
        },
    ),
    (
        "@fontsource/dejavu-sans",
        "5.3.0",
        {
            # fontsource calls it "latin", but it is the whole font (5,918 glyphs)
            "package/files/dejavu-sans-latin-400-normal.woff": "DejaVuSans-Regular.woff",
            "package/files/dejavu-sans-latin-700-normal.woff": "DejaVuSans-Bold.woff",
            "package/LICENSE": "LICENSE-DejaVu.txt",
        },
    ),
)
"""The Chinese edition's fonts: first the CJK font (complete, not split, WOFF, which fontTools
reads without brotli), then the font for the characters it lacks."""
OPENTYPE_PREFIX = "IBMPlexSansSC-"
"""The WOFF files converted to OpenType for matplotlib (the CJK font's)."""


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=120) as response:
        return response.read()


def sha512_integrity(data: bytes) -> str:
    """``data``'s SHA-512 as npm writes a tarball's integrity (``sha512-<base64>``)."""
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def _tarball(name: str, version: str) -> bytes:
    meta = json.loads(_get(f"{REGISTRY}/{name}/{version}"))
    data = _get(meta["dist"]["tarball"])
    integrity = meta["dist"].get("integrity", "")
    if integrity.startswith("sha512-") and sha512_integrity(data) != integrity:
        raise SystemExit(f"{name}@{version}: tarball does not match the registry's integrity hash")
    return data


def _extract(data: bytes, mapping: dict[str, str], dest: Path) -> int:
    count = 0
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member in tar.getmembers():
            if not member.isfile():
                continue
            for prefix, target in mapping.items():
                if member.name == prefix or (
                    prefix.endswith("/") and member.name.startswith(prefix)
                ):
                    relative = member.name[len(prefix) :]
                    out = dest / target / relative if prefix.endswith("/") else dest / target
                    if ".." in Path(relative).parts:
                        raise SystemExit(
                            f"refusing a path outside the vendor folder: {member.name}"
                        )
                    out.parent.mkdir(parents=True, exist_ok=True)
                    source = tar.extractfile(member)
                    assert source is not None
                    out.write_bytes(source.read())
                    count += 1
    return count


def fetch_fonts(dest: Path) -> None:
    """The edition's WOFF files, and an OpenType copy (``.otf``) of the CJK font's for matplotlib."""
    from fontTools.ttLib import TTFont

    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for name, version, mapping in FONT_PACKAGES:
        count = _extract(_tarball(name, version), mapping, tmp)
        if count != len(mapping):
            raise SystemExit(f"{name}@{version}: found {count} of {list(mapping)}")
        print(f"fetched {name}@{version}: {count} files")
    for woff in tmp.glob(f"{OPENTYPE_PREFIX}*.woff"):
        font = TTFont(woff)
        font.flavor = None
        font.save(woff.with_suffix(".otf"))
    stamp = {name: version for name, version, _ in FONT_PACKAGES}
    (tmp / ".fetched").write_text(json.dumps(stamp, indent=1) + "\n")
    shutil.rmtree(dest, ignore_errors=True)
    tmp.rename(dest)


def main(argv: list[str]) -> int:
    if len(argv) not in (1, 2):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    if len(argv) == 2:
        fetch_fonts(Path(argv[1]))
    dest = Path(argv[0])
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for name, version, mapping in PACKAGES:
        count = _extract(_tarball(name, version), mapping, tmp)
        if count == 0:
            raise SystemExit(f"{name}@{version}: nothing matched {list(mapping)}")
        print(f"fetched {name}@{version}: {count} files")
    (tmp / ".fetched").write_text(json.dumps({n: v for n, v, _ in PACKAGES}, indent=1) + "\n")
    shutil.rmtree(dest, ignore_errors=True)
    tmp.rename(dest)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
