"""A new chip and a changed figure need no translation. In a copy of the course, a chip is added
exactly as CONTRIBUTING.md says ("How to add a chip") and a re-verified figure changes (B200's HBM
bandwidth); both editions then build strictly (``make book``'s tools/book.py) with the catalogs
as they are, and page 2's table lists the new chip, under Chinese headings in the Chinese
edition. (The catalogs' side, that no message is data, is test_book_catalog_data.py.)"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from tests.book.site import ROOT, BookBuild
from tools import book as book_tool

pytestmark = pytest.mark.slow

COPIED = ("book", "roofline_lib", "locales", "tools", "exercises", "_config.yml", "_toc.yml")
"""What a build of the book reads."""

DEMO_CHIP = """
_DEMO = Source(title="Demo NPU datasheet", url="https://example.com/npu")

DEMO_NPU = Chip(
    name="Demo NPU",
    vendor="Example",
    peak_flops_per_s={"bf16": 4e14},
    hbm_bandwidth_bytes_per_s=1.2e12,
    hbm_capacity_bytes=64 * GB,
    citations={
        "peak_flops_per_s.bf16": _printed(_DEMO, "BF16: 400 TFLOPS", verified="2026-01-15"),
        "hbm_bandwidth_bytes_per_s": _printed(_DEMO, "HBM: 1.2 TB/s", verified="2026-01-15"),
        "hbm_capacity_bytes": _printed(_DEMO, "HBM: 64 GB", verified="2026-01-15"),
    },
)

"""

B200_BANDWIDTH = ("hbm_bandwidth_bytes_per_s=7.7 * TB,", "hbm_bandwidth_bytes_per_s=8.0 * TB,")


def _copy_of_the_course(folder: Path) -> Path:
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "_build", "*.mo", ".jupyter_cache")
            shutil.copytree(source, folder / name, ignore=ignore)
        else:
            shutil.copy2(source, folder / name)
    catalog = folder / "roofline_lib" / "hardware" / "catalog.py"
    text = catalog.read_text(encoding="utf-8")
    assert text.count(B200_BANDWIDTH[0]) == 1 and "\nCHIPS: tuple[Chip, ...] = (" in text
    text = text.replace(*B200_BANDWIDTH)
    text = text.replace(
        "\nCHIPS: tuple[Chip, ...] = (", DEMO_CHIP + "\nCHIPS: tuple[Chip, ...] = ("
    )
    text = text.replace("    TPU_V6E,\n)", "    TPU_V6E,\n    DEMO_NPU,\n)")
    assert "    DEMO_NPU,\n)" in text
    catalog.write_text(text, encoding="utf-8")
    return folder


def _page_two_rows(html: Path) -> dict[str, list[str]]:
    soup = BeautifulSoup(
        (html / "book" / "02_arithmetic_intensity.html").read_text("utf-8"), "html.parser"
    )
    table = soup.select_one("table#tbl-critical-intensity")
    assert table is not None
    header = [cell.get_text(strip=True) for cell in table.select("thead th")]
    rows = {}
    for row in table.select("tbody tr"):
        cells = [cell.get_text(strip=True) for cell in row.find_all("td")]
        rows[cells[0]] = cells
    return {"": header, **rows}


def test_a_new_chip_and_a_changed_figure_build_in_both_languages_unchanged_catalogs(
    book: BookBuild, tmp_path: Path
) -> None:
    course = _copy_of_the_course(tmp_path / "course")
    output = tmp_path / "out"
    # page 9 shows the main build's measurement of this machine rather than taking another
    # (tools.book measures only when its output has none): 20 s less, on a busy machine
    measured = book_tool.measurement_path(output)
    measured.parent.mkdir(parents=True)
    shutil.copy2(book_tool.measurement_path(book.output), measured)
    env = dict(os.environ, PYTHONPATH=str(course))
    built = subprocess.run(
        [sys.executable, "-m", "tools.book", "--path-output", str(output)],
        cwd=course,
        env=env,
        capture_output=True,
        text=True,
        timeout=1500,
    )
    said = built.stdout + built.stderr
    warnings = [line for line in said.splitlines() if "WARNING" in line or "ERROR" in line]
    assert built.returncode == 0, "\n".join(warnings[:30]) or said[-4000:]
    for language in ("en", "zh_CN"):  # tools.book builds each strictly: exit 0, no warning
        assert (book_tool.edition_output(output, language) / "_build" / "html").is_dir()
    english = _page_two_rows(output / "_build" / "html")
    chinese = _page_two_rows(output / "_build" / "html" / "zh")
    assert english[""][0] == "Chip" and chinese[""][0] == "芯片"
    for rows in (english, chinese):
        assert rows["Demo NPU"][1:4] == ["333", "400 TFLOP/s", "1.2 TB/s"], rows["Demo NPU"]
        assert rows["B200"][3] == "8 TB/s", rows["B200"]
