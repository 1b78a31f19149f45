"""The live explorer's export: JSON-ready, taken from the library's own tables, and every
operation it offers is something the library can evaluate on every chip at the defaults."""

from __future__ import annotations

import json

import pytest

import roofline_lib as rl
from roofline_lib.explorer import INTENSITY_RANGE, NUMBER_FORMATS, SLIDER_EXPONENTS
from roofline_lib.explorer_data import (
    DEFAULTS,
    LIVE_OPERATIONS,
    LIVE_SLIDER_EXPONENTS,
    explorer_data,
    reference,
)


def test_export_is_json_and_mirrors_the_catalog() -> None:
    data = json.loads(json.dumps(explorer_data(), allow_nan=False))
    assert [c["name"] for c in data["chips"]] == list(rl.CATALOG)
    for exported, chip in zip(data["chips"], rl.CATALOG.values(), strict=True):
        assert exported["peak_flops_per_s"] == dict(chip.peak_flops_per_s)
        assert [lv["key"] for lv in exported["levels"]] == list(chip.levels)
        for level in exported["levels"]:
            assert level["bytes_per_s"] == chip.bandwidth(level["key"])
            assert level["network"] == (level["key"] in chip.links)
        assert all(
            c and c["url"].startswith("https://") for c in exported["peak_citations"].values()
        )
        assert exported["default_link"] == chip.default_link
    assert data["bytes_per_element"] == dict(rl.BYTES_PER_ELEMENT)
    assert set(data["formats"]) == set(NUMBER_FORMATS)
    assert data["intensity_range"] == list(INTENSITY_RANGE)


def test_slider_ranges_reuse_the_jupyterlab_explorers() -> None:
    for key, exponents in SLIDER_EXPONENTS.items():
        assert LIVE_SLIDER_EXPONENTS[key] == exponents
    # every N divides every D the sliders offer (both powers of two, N never above D's minimum)
    assert LIVE_SLIDER_EXPONENTS["N"][1] <= LIVE_SLIDER_EXPONENTS["D"][0]
    for key, (lo, hi, _) in LIVE_SLIDER_EXPONENTS.items():
        assert 2**lo <= DEFAULTS[key] <= 2**hi, key


@pytest.mark.parametrize("op", sorted(LIVE_OPERATIONS))
def test_every_operation_evaluates_on_every_chip_at_the_defaults(op: str) -> None:
    for chip in rl.CATALOG.values():
        if LIVE_OPERATIONS[op].network and not chip.links:
            continue
        for number_format in NUMBER_FORMATS:
            if rl.matmul_dtypes(number_format).compute not in chip.peak_flops_per_s:
                continue
            estimate = reference({"chip": chip.name, "format": number_format, "op": op})
            assert estimate.regime in ("compute-bound", "memory-bound", "network-bound")
