"""The live explorer of the static book, in headless Chromium with every other host blocked.

* parity: its JavaScript formulas agree with roofline_lib on over a thousand random settings
  covering every chip, number format, operation, level and collective (FLOPs and bytes exactly,
  everything else to a relative 1e-12), its readout matches the JupyterLab explorer's word for
  word, and its number formatting matches roofline_lib.fmt;
* it responds: every slider, moved with the keyboard or dragged, changes the readout, and the
  point moves exactly when the library says the intensity or the throughput changed;
* every chip × number format × operation renders without a console error;
* keyboard and phone: every control has a label, Tab visits them in order, and at 390 px wide
  nothing scrolls sideways and the text stays readable;
* the data it shows is roofline_lib's export, and the pages that reuse it load it too;
* what a roofline reviewer and a phone reader asked for (issue 29), in English and in Chinese:
  an option that is not valid is greyed out with its reason, and an invalid setting reached
  anyway leaves no stale point; at SMEM the readout says what its byte count idealises; the
  ridge, the roof and each slope are labelled inside the plot, clear of the point and of each
  other; every row of the readout has one number format; the chip menu is at most five Tabs
  from the section's heading; at 390 px the chart stays on the screen, uncovered, while a
  slider is dragged. Screenshots go to _build/screenshots/explorer/.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from roofline_lib.explorer import NUMBER_FORMATS, OPERATIONS, evaluate, readout_rows
from roofline_lib.explorer_data import (
    DEFAULTS,
    LIVE_OPERATIONS,
    LIVE_SLIDER_EXPONENTS,
    explorer_data,
    reference,
)
from roofline_lib.fmt import format_number, format_percent, format_quantity
from roofline_lib.hardware import CATALOG
from roofline_lib.sharding import COLLECTIVES
from tests.book.browser import DESKTOP, PHONE, collect_errors, local_site, require_chromium
from tests.book.site import SCREENSHOTS

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.slow

EXPLORER_PAGE = "book/03_roofline_chart"
REUSING_PAGES = (
    "book/04_matmul",
    "book/05_network",
    "book/06_low_precision",
    "book/09_inference",
)
PARITY_CONFIGS = 1_200
RELATIVE = 1e-12
EXACT = ("flops", "bytes_moved")
APPROXIMATE = (
    "t_math_s",
    "t_comms_s",
    "lower_bound_s",
    "upper_bound_s",
    "arithmetic_intensity",
    "critical_intensity",
    "achievable_flops_per_s",
    "fraction_of_peak",
    "peak_flops_per_s",
    "bandwidth_bytes_per_s",
)
MIN_TEXT_PX = 12.0
"""The smallest text of the explorer a phone reader should have to read, CSS px."""


@dataclass
class Browser:
    """One page of a served build in Chromium, with what it logged and what it tried to fetch."""

    page: Page
    base: str
    errors: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)

    def open(self, page_path: str) -> None:
        self.page.set_viewport_size(DESKTOP)
        self.page.goto(f"{self.base}/{page_path}.html", wait_until="load")
        self.page.wait_for_selector(".live-explorer canvas")


@pytest.fixture(scope="module")
def browser(html: Path) -> Iterator[Browser]:
    require_chromium()
    with local_site(html) as site:
        page = site.context.new_page()
        page.set_default_timeout(60_000)
        session = Browser(page, site.base, blocked=site.blocked)
        collect_errors(page, session.errors)
        session.open(EXPLORER_PAGE)
        yield session


# ------------------------------------------------------------------------------------------
# Parity with roofline_lib
# ------------------------------------------------------------------------------------------


def _size(rng: random.Random, key: str) -> int:
    """A random whole size in the slider's range, log-uniform (not only powers of two)."""
    lo, hi, _ = LIVE_SLIDER_EXPONENTS[key]
    return max(1, round(2 ** rng.uniform(lo, hi)))


def _random_config(rng: random.Random, chip: str, number_format: str, op: str) -> dict[str, Any]:
    spec = CATALOG[chip]
    operation = LIVE_OPERATIONS[op]
    config: dict[str, Any] = {"chip": chip, "format": number_format, "op": op}
    config.update({key: _size(rng, key) for key in operation.uses})
    if operation.network:
        config["level"] = rng.choice(list(spec.links))
        config["collective"] = rng.choice(COLLECTIVES)
        if config["collective"] == "exchange":
            config["N"] = 2
        config["D"] = config["N"] * max(1, config["D"] // config["N"])
    else:
        config["level"] = rng.choice([lv for lv in spec.levels if lv not in spec.links])
    return config


def _formats(chip: str) -> list[str]:
    peaks = CATALOG[chip].peak_flops_per_s
    return [key for key in NUMBER_FORMATS if explorer_data()["formats"][key]["compute"] in peaks]


def _parity_configs() -> list[dict[str, Any]]:
    rng = random.Random(12)
    combos = [
        (chip, number_format, op)
        for chip in CATALOG
        for number_format in _formats(chip)
        for op in LIVE_OPERATIONS
        if CATALOG[chip].links or not LIVE_OPERATIONS[op].network
    ]
    configs = [_random_config(rng, *combo) for combo in combos]
    while len(configs) < PARITY_CONFIGS:
        configs.append(_random_config(rng, *rng.choice(combos)))
    return configs


def _library(config: dict[str, Any]) -> dict[str, Any]:
    e = reference(config)
    values = {name: float(getattr(e, name)) for name in (*EXACT, *APPROXIMATE)}
    return {**values, "regime": str(e.regime), "level": e.level}


def test_formulas_agree_with_roofline_lib_on_random_settings(browser: Browser) -> None:
    configs = _parity_configs()
    assert len(configs) >= 1_000
    covered = {(c["chip"], c["format"], c["op"]) for c in configs}
    assert {op for _, _, op in covered} == set(LIVE_OPERATIONS)
    assert {chip for chip, _, _ in covered} == set(CATALOG)
    js = browser.page.evaluate(
        "configs => configs.map(c => window.rooflineExplorer.evaluate(c))", configs
    )
    mismatches = []
    for config, got in zip(configs, js, strict=True):
        want = _library(config)
        for name in EXACT:  # float(): playwright hands over a whole number above 2**53 as an int
            if float(got[name]) != want[name]:
                mismatches.append(f"{config}: {name} {got[name]!r} != {want[name]!r}")
        for name in APPROXIMATE:
            a, b = float(got[name]), want[name]
            if not (a == b or (math.isfinite(b) and abs(a - b) <= RELATIVE * abs(b))):
                mismatches.append(f"{config}: {name} {a!r} != {b!r}")
        for name in ("regime", "level"):
            if got[name] != want[name]:
                mismatches.append(f"{config}: {name} {got[name]!r} != {want[name]!r}")
    assert not mismatches, f"{len(mismatches)} mismatches, first:\n" + "\n".join(mismatches[:10])


def test_readout_matches_the_jupyterlab_explorer(browser: Browser) -> None:
    """The JupyterLab explorer's operations are a subset; their readouts agree word for word."""
    rng = random.Random(3)
    same_op = {"matmul": "matmul", "batched_matmul": "batched_matmul", "dot_product": "dot_product"}
    same_op |= {"sharded_matmul": "sharded_matmul"}
    cases = []
    for chip in CATALOG:
        for number_format in _formats(chip):
            for python_op, live_op in same_op.items():
                if live_op == "sharded_matmul" and not CATALOG[chip].links:
                    continue
                for _ in range(3):
                    sizes = {key: 2 ** rng.randint(6, 14) for key in "BDF"}
                    cases.append((chip, number_format, python_op, live_op, sizes))
    configs = [
        {"chip": chip, "format": fmt, "op": live, "N": 2, **sizes}
        for chip, fmt, _, live, sizes in cases
    ]
    js = browser.page.evaluate(
        "configs => configs.map(c => window.rooflineExplorer.readoutRows(c))", configs
    )
    for (chip, fmt, python_op, _, sizes), rows in zip(cases, js, strict=True):
        expected = readout_rows(evaluate(chip, fmt, python_op, **sizes))
        assert [tuple(r) for r in rows[1:]] == expected[1:], (chip, fmt, python_op, sizes)
    assert set(same_op) <= set(OPERATIONS)


def _fmt_cases() -> list[tuple[float, int]]:
    rng = random.Random(7)
    values = [10 ** rng.uniform(-16, 22) * rng.choice((1, -1)) for _ in range(1_500)]
    values += [0.125, 2.5, 0.5, 1234.5, 999.95, 9.995, 0.0009995, 999_999_999.6, 1e9, 1e-3]
    values += [60.25, 240.5, 8755.6, 3.523e18, 1.0106e-3, 9.895e14, 3.35e12, 0.4932, 0.0, 1e300]
    values += [n / 8 for n in range(1, 200)]
    return [(v, rng.randint(1, 8)) for v in values]


def test_number_formatting_matches_roofline_lib_fmt(browser: Browser) -> None:
    cases = _fmt_cases()
    js = browser.page.evaluate(
        """cases => cases.map(([v, d]) => [
            window.rooflineExplorer.fmt.number(v, d),
            window.rooflineExplorer.fmt.quantity(v, "B/s", d),
            window.rooflineExplorer.fmt.percent(v, d)])""",
        [list(c) for c in cases],
    )
    wrong = [
        (v, d, got, want)
        for (v, d), got in zip(cases, js, strict=True)
        if got
        != (want := [format_number(v, d), format_quantity(v, "B/s", d), format_percent(v, d)])
    ]
    assert not wrong, f"{len(wrong)} differ, first: {wrong[:5]}"


# ------------------------------------------------------------------------------------------
# It responds
# ------------------------------------------------------------------------------------------

_STATE = """
() => {
  const x = window.rooflineExplorer.instances[0];
  return {readout: x.table.innerText, summary: x.summary.innerText, point: x.point(),
          config: Object.assign({}, x.config)};
}
"""


def _root(browser: Browser) -> str:
    return ".live-explorer >> nth=0"


def _choose(browser: Browser, key: str, value: str) -> None:
    browser.page.select_option(f"#rx0-{key}", value)


def _visible_sliders(browser: Browser) -> list[str]:
    return browser.page.eval_on_selector_all(
        "#rx0-chip ~ *, .live-explorer input[type=range]",
        "els => els.filter(e => e.type === 'range' && e.offsetParent !== null)"
        ".map(e => e.dataset.key)",
    )


def _moved(before: dict[str, Any], after: dict[str, Any]) -> bool:
    return before["point"]["px"] != after["point"]["px"]


def test_every_slider_changes_the_readout_and_the_point_follows_the_library(
    browser: Browser,
) -> None:
    page = browser.page
    browser.open(EXPLORER_PAGE)
    _choose(browser, "chip", "H100 SXM")
    checked = 0
    for op, operation in LIVE_OPERATIONS.items():
        _choose(browser, "op", op)
        assert sorted(_visible_sliders(browser)) == sorted(operation.uses), op
        for key in operation.uses:
            slider = page.locator(f"#rx0-{key}")
            before = page.evaluate(_STATE)
            at_max = float(slider.input_value()) >= LIVE_SLIDER_EXPONENTS[key][1]
            slider.focus()
            page.keyboard.press("ArrowLeft" if at_max else "ArrowRight")
            after = page.evaluate(_STATE)
            assert after["config"][key] != before["config"][key], f"{op}: {key} did not move"
            assert after["readout"] != before["readout"], f"{op}: {key} left the readout as it was"
            old, new = reference(before["config"]), reference(after["config"])
            changed = (old.arithmetic_intensity, old.achievable_flops_per_s) != (
                new.arithmetic_intensity,
                new.achievable_flops_per_s,
            )
            assert _moved(before, after) == changed, f"{op}: {key}: point vs library"
            checked += 1
    assert checked == sum(len(op.uses) for op in LIVE_OPERATIONS.values())


def test_dragging_the_batch_slider_moves_the_point_across_the_ridge(browser: Browser) -> None:
    page = browser.page
    browser.open(EXPLORER_PAGE)
    _choose(browser, "chip", "TPU v5e")
    _choose(browser, "op", "matmul")
    page.locator("#rx0-B").scroll_into_view_if_needed()
    box = page.locator("#rx0-B").bounding_box()
    assert box is not None
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + 4, y)
    page.mouse.down()
    page.mouse.move(box["x"] + 0.15 * box["width"], y, steps=5)
    page.mouse.up()
    before = page.evaluate(_STATE)
    assert "memory-bound" in before["summary"]
    page.mouse.move(box["x"] + 0.15 * box["width"], y)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] - 4, y, steps=10)
    page.mouse.up()
    after = page.evaluate(_STATE)
    assert after["config"]["B"] > before["config"]["B"]
    assert "compute-bound" in after["summary"]
    assert after["point"]["px"]["left"] > before["point"]["px"]["left"]


def test_every_chip_format_and_operation_renders_without_errors(browser: Browser) -> None:
    page = browser.page
    browser.open(EXPLORER_PAGE)
    browser.errors.clear()
    shown = 0
    for chip in CATALOG:
        _choose(browser, "chip", chip)
        for number_format in _formats(chip):
            _choose(browser, "format", number_format)
            for op, operation in LIVE_OPERATIONS.items():
                if operation.network and not CATALOG[chip].links:
                    continue
                _choose(browser, "op", op)
                state = page.evaluate(_STATE)
                assert "Not a valid setting" not in state["summary"], (chip, number_format, op)
                assert state["config"]["chip"] == chip and state["config"]["op"] == op
                assert page.locator(".live-explorer canvas").count() >= 1
                shown += 1
    assert shown >= len(CATALOG) * len(LIVE_OPERATIONS)
    assert not browser.errors, browser.errors[:5]


# ------------------------------------------------------------------------------------------
# Keyboard, phone, data, other pages
# ------------------------------------------------------------------------------------------


def test_controls_are_labelled_and_tab_visits_them_in_order(browser: Browser) -> None:
    page = browser.page
    browser.open(EXPLORER_PAGE)
    controls = page.eval_on_selector_all(
        ".live-explorer select, .live-explorer input",
        """els => els.filter(e => e.offsetParent !== null).map(e => ({
            id: e.id,
            label: (document.querySelector(`label[for="${e.id}"]`) || {}).innerText || ""}))""",
    )
    assert len(controls) >= 7, controls  # chip, format, operation, level and B, D, F
    assert all(c["label"].strip() for c in controls), controls
    page.focus(f"#{controls[0]['id']}")
    visited = [controls[0]["id"]]
    for _ in controls[1:]:
        page.keyboard.press("Tab")
        visited.append(page.evaluate("() => document.activeElement.id"))
    assert visited == [c["id"] for c in controls]
    assert page.get_attribute(".live-explorer .rx-summary", "aria-live") == "polite"
    assert page.get_attribute(".live-explorer .rx-chart", "role") == "img"
    assert "Roofline of" in (page.get_attribute(".live-explorer .rx-chart", "aria-label") or "")
    assert page.locator("#rx0-B").get_attribute("aria-valuetext") == "B = 128"


def test_fits_a_phone_with_readable_text(browser: Browser) -> None:
    page = browser.page
    browser.open(EXPLORER_PAGE)
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(300)
    for op in ("matmul", "sharded_matmul", "attention_flash"):
        _choose(browser, "op", op)
        overflow = page.evaluate(
            "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, f"{op}: {overflow}px wider than a phone"
        box = page.locator(".live-explorer").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        canvas = page.locator(".live-explorer canvas").bounding_box()
        assert canvas is not None and canvas["x"] + canvas["width"] <= box["x"] + box["width"]
        smallest = page.eval_on_selector_all(
            ".live-explorer label, .live-explorer td, .live-explorer th, .live-explorer .rx-summary",
            "els => Math.min(...els.filter(e => e.offsetParent !== null)"
            ".map(e => parseFloat(getComputedStyle(e).fontSize)))",
        )
        assert smallest >= MIN_TEXT_PX, f"{op}: text of {smallest}px on a phone"


def test_data_is_roofline_libs_export(html: Path) -> None:
    text = (html / "_static" / "explorer-data.json").read_text(encoding="utf-8")
    assert json.loads(text) == json.loads(json.dumps(explorer_data()))
    script = (html / "_static" / "explorer-data.js").read_text(encoding="utf-8")
    assert script.strip() == f"window.ROOFLINE_EXPLORER_DATA = {text.strip()};"


def test_the_explorer_page_shows_no_dead_widget_and_opens_at_its_preset(browser: Browser) -> None:
    page = browser.page
    browser.open(EXPLORER_PAGE)
    assert page.locator("script[type='application/vnd.jupyter.widget-state+json']").count() == 0
    state = page.evaluate(_STATE)
    assert state["config"]["B"] == 128 and state["config"]["chip"] == "TPU v5e"
    rows = dict(readout_rows(evaluate("TPU v5e", "bf16", "matmul", 128, 8192, 8192))[1:])
    for label, value in rows.items():
        assert value in state["readout"], (label, value)
    citations = page.locator(".live-explorer details.rx-sources")
    citations.locator("summary").click()
    assert "Cloud TPU documentation: TPU v5e" in citations.inner_text()


@pytest.mark.parametrize("page_path", REUSING_PAGES)
def test_pages_that_reuse_the_explorer_render_it_without_errors(
    browser: Browser, page_path: str
) -> None:
    browser.errors.clear()
    browser.open(page_path)
    state = browser.page.evaluate(_STATE)
    assert "Not a valid setting" not in state["summary"]
    assert not browser.errors, browser.errors
    assert not browser.blocked, browser.blocked
    assert state["config"]["op"] in LIVE_OPERATIONS
    for key in DEFAULTS:
        assert state["config"][key] >= 1


def test_nothing_is_requested_from_another_host(browser: Browser) -> None:
    browser.open(EXPLORER_PAGE)
    assert not browser.blocked, browser.blocked


def test_page_weight_is_reported_and_counts_the_explorer(html: Path) -> None:
    from tools.bench_page_weight import page_weights, report

    weights = {w.page: w for w in page_weights(html) if w.page.startswith("book/")}
    assert not [w for w in weights.values() if w.missing], "a page references a missing asset"
    explorer, plain = weights[EXPLORER_PAGE], weights["book/11_takeaways"]
    extra = sum(
        (html / "_static" / name).stat().st_size
        for name in ("vendor/uplot/uPlot.iife.min.js", "explorer-data.js", "roofline-explorer.js")
    )
    assert explorer.js_bytes - plain.js_bytes == extra, "only the explorer's pages load its JS"
    assert "heaviest:" in report(list(weights.values()))


def test_page_5_explorer_times_the_link_two_chips_share_and_its_summary_quotes_the_readout(
    browser: Browser,
) -> None:
    """Page 5 opens at two TPU v5e chips: they share one ICI link, 50 GB/s one way (not the
    100 GB/s of the two ports a ring of three or more drives). The summary sentence quotes the
    readout's intensity, critical intensity and rate, whichever rows the operation has."""
    browser.open("book/05_network")
    state = browser.page.evaluate(_STATE)
    assert state["config"]["op"] == "sharded_matmul" and state["config"]["N"] == 2
    # D = 16,384 (the page's explorer): its readout does not give away the box above it, the
    # network intensity of the 8,192-wide split, D/N = 4,096
    rows = dict(readout_rows(evaluate("TPU v5e", "bf16", "sharded_matmul", 1024, 16384, 8192)))
    assert rows["ICI, one-way per chip at N = 2"] == "50 GB/s"
    assert "ICI, one-way per chip at N = 2\t50 GB/s" in state["readout"]
    critical = rows["Critical intensity (TPU v5e, bf16, ICI)"]
    intensity = rows["Arithmetic intensity"].replace(" FLOPs/byte", "")
    assert critical == "3,940 FLOPs/byte"  # 197e12 / 50e9
    assert f"intensity {intensity} ≥ critical {critical}" in state["summary"]
    assert rows["Achievable throughput"] in state["summary"]
    sources = browser.page.locator(".live-explorer details.rx-sources >> nth=0")
    sources.locator("summary").click()
    assert "ICI, one-way per chip at N = 2: 50 GB/s" in sources.inner_text()


# ------------------------------------------------------------------------------------------
# What a roofline reviewer and a phone reader asked for (issue 29, item 3), in both editions
# ------------------------------------------------------------------------------------------

SHOTS = SCREENSHOTS / "explorer"
"""Where the explorer's screenshots for a reviewer go (desktop, and a phone mid-drag)."""
MAX_TABS_FROM_HEADING = 5
POINT_RADIUS_PX = 7.0
"""The point's marker: 12 px across with a 1.5 px white rim."""


@dataclass(frozen=True)
class Edition:
    """The explorer's page in one edition, and the words that edition's explorer says."""

    language: str
    page: str

    def words(self) -> dict[str, Any]:
        return explorer_data(language=self.language)

    def say(self, english: str, **fields: object) -> str:
        return str(self.words()["words"][english]).format(**fields)


@pytest.fixture(params=["en", "zh_CN"])
def edition(request: pytest.FixtureRequest) -> Edition:
    if request.param == "en":
        return Edition("en", EXPLORER_PAGE)
    pages: list[str] = request.getfixturevalue("translated_pages")
    (page,) = [p for p in pages if p.endswith(EXPLORER_PAGE.split("/")[-1])]
    return Edition(request.param, page)


def _press_until(browser: Browser, key: str, arrow: str, value: int) -> None:
    """Move slider ``key`` with the arrow keys until the explorer's setting is ``value``."""
    page = browser.page
    page.focus(f"#rx0-{key}")
    for _ in range(64):
        if page.evaluate(_STATE)["config"][key] == value:
            return
        page.keyboard.press(arrow)
    raise AssertionError(f"{key} never reached {value}")


_CHART = """
async () => {
  // the chart redraws (and places its labels) in the next frame
  await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
  const x = window.rooflineExplorer.instances[0];
  const over = x.plot.over.getBoundingClientRect();
  const box = (e) => { const r = e.getBoundingClientRect();
                       return {left: r.left, top: r.top, right: r.right, bottom: r.bottom}; };
  const point = x.point();
  return {
    plot: box(x.plot.over),
    point: point && point.px ? {left: over.left + point.px.left, top: over.top + point.px.top}
                             : null,
    labels: Array.from(x.plot.over.querySelectorAll('.rx-label')).map(e => ({
        kind: e.className.replace('rx-label rx-label-', ''), text: e.textContent,
        cx: over.left + e.offsetLeft + e.offsetWidth / 2,
        cy: over.top + e.offsetTop + e.offsetHeight / 2,
        w: e.offsetWidth, h: e.offsetHeight, angle: parseFloat(e.dataset.angle || '0'),
        turned: getComputedStyle(e).transform})),
    series: x.plot.data.slice(1).map(s => s.filter(v => v !== null).length),
    message: x.chartMessage.hidden ? '' : x.chartMessage.textContent,
    reading: x.reading !== null,
  };
}
"""


def test_an_invalid_collective_is_greyed_out_and_reaching_it_clears_the_chart(
    browser: Browser, edition: Edition
) -> None:
    """ "exchange" needs N = 2 (roofline_lib.sharding): at N = 4 its option is disabled, with
    the reason as its title and in its text; reached anyway (chosen at N = 2, then N moved to
    4), the chart keeps no stale point and the readout names the setting and what is allowed."""
    page = browser.page
    browser.open(edition.page)
    labels = edition.words()["collective_labels"]
    _choose(browser, "chip", "TPU v5e")
    _choose(browser, "op", "sharded_matmul")
    _press_until(browser, "N", "ArrowRight", 4)
    exchange = page.locator("#rx0-collective option[value=exchange]")
    needs = edition.say("needs N = {needs}", needs="2")
    assert exchange.is_disabled()
    assert exchange.get_attribute("title") == needs
    assert needs in exchange.inner_text()
    for other in ("all_reduce", "reduce_scatter"):
        assert page.locator(f"#rx0-collective option[value={other}]").is_enabled()

    _press_until(browser, "N", "ArrowLeft", 2)
    assert exchange.is_enabled()
    _choose(browser, "collective", "exchange")
    valid = page.evaluate(_CHART)
    assert valid["reading"] and valid["series"][-1] == 1 and not valid["message"]
    _press_until(browser, "N", "ArrowRight", 4)  # the invalid combination, reached anyway
    state, chart = page.evaluate(_STATE), page.evaluate(_CHART)
    assert state["point"] is None and not chart["reading"]
    assert chart["series"] == [0] * len(chart["series"]), "a stale point or line is still drawn"
    assert chart["labels"] == []
    assert chart["message"] == edition.say(
        "No point: this setting is not valid (the readout says why)."
    )
    summary = state["summary"]
    assert f"“{labels['exchange']}”" in summary and "N = 2" in summary and "N = 4" in summary
    others = edition.say(", ").join(f"“{labels[c]}”" for c in ("all_reduce", "reduce_scatter"))
    assert others in summary
    assert state["readout"].strip() == "", "the readout still shows the last valid numbers"

    _press_until(browser, "N", "ArrowLeft", 2)  # valid again: the point comes back
    assert page.evaluate(_CHART)["series"][-1] == 1


def test_options_a_chip_cannot_run_are_greyed_out_with_their_reason(browser: Browser) -> None:
    page = browser.page
    browser.open(EXPLORER_PAGE)
    for chip, spec in CATALOG.items():
        _choose(browser, "chip", chip)
        for key in NUMBER_FORMATS:
            option = page.locator(f"#rx0-format option[value={key}]")
            dtype = explorer_data()["formats"][key]["compute"]
            assert option.is_enabled() == (dtype in spec.peak_flops_per_s), (chip, key)
            if not option.is_enabled():
                assert option.get_attribute("title") == f"{chip} publishes no {dtype} peak"


def test_the_onchip_level_says_what_it_idealises(browser: Browser, edition: Edition) -> None:
    """At SMEM the costs' bytes are HBM's: the readout says so, and that the point is
    optimistic; at HBM it says nothing of the kind."""
    page = browser.page
    browser.open(edition.page)
    _choose(browser, "chip", "H100 SXM")
    _choose(browser, "op", "matmul")
    note = page.locator(".live-explorer .rx-idealised >> nth=0")
    assert not note.is_visible()
    _choose(browser, "level", "onchip")
    from roofline_lib.explorer_data import ONCHIP_NOTE

    assert note.is_visible()
    assert note.inner_text() == edition.say(ONCHIP_NOTE, level="SMEM")
    assert page.get_attribute(".live-explorer .rx-idealised >> nth=0", "role") == "note"
    _choose(browser, "level", "hbm")
    assert not note.is_visible()


Corners = list[tuple[float, float]]


def _corners(label: dict[str, Any]) -> Corners:
    """A label's corners on the page (CSS px, y down): its box turned counter-clockwise by its
    angle about its centre, as ``rotate(-angle)`` draws it."""
    sin, cos = math.sin(label["angle"]), math.cos(label["angle"])
    half_w, half_h = label["w"] / 2, label["h"] / 2
    return [
        (label["cx"] + dx * cos + dy * sin, label["cy"] - dx * sin + dy * cos)
        for dx, dy in ((-half_w, -half_h), (half_w, -half_h), (half_w, half_h), (-half_w, half_h))
    ]


def _overlap(a: Corners, b: Corners) -> bool:
    """Two convex polygons overlap by more than half a pixel: no edge of either separates
    them (the separating axis theorem)."""
    for poly in (a, b):
        for (x1, y1), (x2, y2) in zip(poly, poly[1:] + poly[:1], strict=True):
            nx, ny = y1 - y2, x2 - x1
            norm = math.hypot(nx, ny)
            pa = [(x * nx + y * ny) / norm for x, y in a]
            pb = [(x * nx + y * ny) / norm for x, y in b]
            if max(pa) <= min(pb) + 0.5 or max(pb) <= min(pa) + 0.5:
                return False
    return True


def _label_problems(chart: dict[str, Any], where: str) -> list[str]:
    problems = []
    plot = chart["plot"]
    shapes = [(label["kind"], _corners(label)) for label in chart["labels"]]
    for label in chart["labels"]:
        assert (label["angle"] == 0) == (label["turned"] == "none"), label
    for kind, corners in shapes:
        if not all(
            plot["left"] - 0.5 <= x <= plot["right"] + 0.5
            and plot["top"] - 0.5 <= y <= plot["bottom"] + 0.5
            for x, y in corners
        ):
            problems.append(f"{where}: the {kind} label sticks out of the plot")
    if chart["point"]:
        r, p = POINT_RADIUS_PX, chart["point"]
        dot = [(p["left"] + dx, p["top"] + dy) for dx, dy in ((-r, -r), (r, -r), (r, r), (-r, r))]
        problems += [
            f"{where}: the {k} label covers the point" for k, c in shapes if _overlap(c, dot)
        ]
    for i, (k1, c1) in enumerate(shapes):
        problems += [
            f"{where}: {k1} and {k2} collide" for k2, c2 in shapes[i + 1 :] if _overlap(c1, c2)
        ]
    return problems


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_ridge_roof_and_slopes_are_labelled_inside_the_plot_clear_of_the_point(
    browser: Browser, viewport: dict[str, int]
) -> None:
    """Every batch on the B slider, for the matmul at HBM and at SMEM and the two-chip matmul:
    the ridge label gives the readout's critical intensity, the roof label the peak, each
    slope its level's bandwidth; all inside the plot, none over the point or another label."""
    page = browser.page
    browser.open(EXPLORER_PAGE)
    page.set_viewport_size(viewport)
    page.wait_for_timeout(300)
    problems: list[str] = []
    settings = [("H100 SXM", "matmul", "hbm"), ("H100 SXM", "matmul", "onchip")]
    settings += [("TPU v5e", "sharded_matmul", ""), ("TPU v5e", "attention_flash", "hbm")]
    for chip, op, level in settings:
        _choose(browser, "chip", chip)
        _choose(browser, "op", op)
        if level:
            _choose(browser, "level", level)
        slider = "S" if op == "attention_flash" else "B"
        _press_until(browser, slider, "Home", round(2 ** LIVE_SLIDER_EXPONENTS[slider][0]))
        while True:
            state, chart = page.evaluate(_STATE), page.evaluate(_CHART)
            config = state["config"]
            where = f"{viewport['width']}px {chip} {op} {level} {slider} = {config[slider]}"
            rows = dict(
                page.evaluate("c => window.rooflineExplorer.readoutRows(c)", state["config"])
            )
            kinds = [label["kind"] for label in chart["labels"]]
            assert kinds.count("ridge") == 1 and kinds.count("roof") == 1, where
            assert kinds.count("slope") == (1 if level == "hbm" else 2), where
            text = {label["kind"]: label["text"] for label in chart["labels"]}
            critical = next(v for k, v in rows.items() if k.startswith("Critical intensity"))
            assert critical.replace(" FLOPs/byte", "") in text["ridge"], where
            peak = reference(config).peak_flops_per_s
            assert text["roof"] == f"peak {format_quantity(peak, 'FLOP/s')}", where
            problems += _label_problems(chart, where)
            if float(page.input_value(f"#rx0-{slider}")) >= LIVE_SLIDER_EXPONENTS[slider][1]:
                break
            page.keyboard.press("ArrowRight")
    assert not problems, f"{len(problems)} problems, first: {problems[:8]}"


def test_every_row_of_the_readout_has_one_number_format(browser: Browser) -> None:
    """Counts, times and rates carry an SI prefix (roofline_lib.fmt.format_quantity), so no
    readout puts a comma-grouped seven-digit count beside an × 10ⁿ one."""
    configs = _parity_configs()[:400]
    rows = browser.page.evaluate(
        "configs => configs.map(c => window.rooflineExplorer.readoutRows(c))", configs
    )
    seven_digits = re.compile(r"\d{1,3}(,\d{3}){2,}")
    quantity = re.compile(r"^−?\d[\d.,]* [pnµmkMGTPE]?(FLOP|B|s|B/s|FLOP/s)$")
    mixed, bare = [], []
    for config, readout in zip(configs, rows, strict=True):
        values = [value for _, value in readout[1:]]  # the first row is the shape, exact
        text = " | ".join(values)
        if "× 10" in text and seven_digits.search(text):
            mixed.append((config, text))
        counted = ("FLOPs", "Bytes moved", "T_", "Lower", "Upper")
        bare += [
            (config["op"], label, value)
            for label, value in readout
            if label.startswith(counted) and not quantity.match(value)
        ]
    assert not mixed, mixed[:3]
    assert not bare, bare[:5]
    flops = dict(readout_rows(evaluate("TPU v5e", "bf16", "matmul", 64, 256, 256)))["FLOPs"]
    assert flops == "8.39 MFLOP"  # the reviewer's "8,390,000"


def test_the_first_control_is_at_most_five_tabs_from_the_heading(
    browser: Browser, edition: Edition
) -> None:
    """A keyboard reader who reaches the section's heading is a few Tabs from the chip menu:
    what lies between (the paragraph's formulas and links) is counted."""
    page = browser.page
    browser.open(edition.page)
    page.evaluate("() => MathJax.startup.promise")
    heading = page.locator(".live-explorer >> nth=0").locator(
        "xpath=ancestor::section[1]/*[self::h1 or self::h2 or self::h3][1]"
    )
    heading.scroll_into_view_if_needed()
    heading.click(position={"x": 2, "y": 4})  # the heading's text: Tab starts from here
    stops = []
    for _ in range(MAX_TABS_FROM_HEADING):
        page.keyboard.press("Tab")
        stops.append(
            page.evaluate("() => document.activeElement.id || document.activeElement.tagName")
        )
        if stops[-1] == "rx0-chip":
            break
    assert stops[-1] == "rx0-chip", f"{len(stops)} Tabs from the heading reach only {stops}"


_PINNED_OVER = """
box => Array.from(document.querySelectorAll('body *'))
  .filter(e => !e.closest('.live-explorer'))
  .filter(e => ['fixed', 'sticky'].includes(getComputedStyle(e).position))
  .filter(e => { const s = getComputedStyle(e);
                 return s.display !== 'none' && s.visibility !== 'hidden' && s.opacity !== '0'; })
  .filter(e => { const r = e.getBoundingClientRect();
                 return r.width > 0 && r.height > 0 && r.left < box.right - 0.5 &&
                        box.left < r.right - 0.5 && r.top < box.bottom - 0.5 &&
                        box.top < r.bottom - 0.5; })
  .map(e => `${e.tagName.toLowerCase()}#${e.id}.${Array.from(e.classList).join('.')}`)
"""

_FIGURE_BOX = """
() => { const r = document.querySelector('.live-explorer .rx-figure').getBoundingClientRect();
        return {left: r.left, top: r.top, right: r.right, bottom: r.bottom,
                height: window.innerHeight, width: window.innerWidth}; }
"""


def _chart_in_view(browser: Browser, where: str) -> list[str]:
    page = browser.page
    box = page.evaluate(_FIGURE_BOX)
    problems = []
    if box["top"] < 0 or box["bottom"] > box["height"] or box["right"] > box["width"]:
        problems.append(f"{where}: the chart is out of view ({box})")
    covering = page.evaluate(_PINNED_OVER, box)
    problems += [f"{where}: {c} covers the chart" for c in covering]
    return problems


def test_on_a_phone_the_chart_stays_in_view_while_a_slider_moves(
    browser: Browser, edition: Edition
) -> None:
    """At 390 px, with the two-chip matmul's nine controls: drag every slider, and scroll back
    up as a reader does (which brings the theme's "back to top" button): at every step the
    chart is on the screen and nothing pinned by the theme lies over it."""
    page = browser.page
    browser.open(edition.page)
    page.set_viewport_size(PHONE)
    page.wait_for_timeout(300)
    _choose(browser, "op", "sharded_matmul")
    SHOTS.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    for key in LIVE_OPERATIONS["sharded_matmul"].uses:
        slider = page.locator(f"#rx0-{key}")
        slider.evaluate("e => e.scrollIntoView({block: 'center'})")
        page.wait_for_timeout(100)
        box = slider.bounding_box()
        assert box is not None
        y = box["y"] + box["height"] / 2
        seen = {page.evaluate(_STATE)["config"][key]}
        page.mouse.move(box["x"] + 4, y)
        page.mouse.down()
        for step in range(1, 9):
            page.mouse.move(box["x"] + 4 + step * (box["width"] - 8) / 8, y)
            seen.add(page.evaluate(_STATE)["config"][key])
            problems += _chart_in_view(browser, f"{edition.language} {key} step {step}")
            if key == "B" and step == 4:
                page.screenshot(path=str(SHOTS / f"{edition.language}-390-dragging.png"))
        page.mouse.up()
        assert len(seen) > 2, f"dragging {key} did not move it: {seen}"
        page.mouse.wheel(0, -120)  # scrolling back up shows the theme's back-to-top button
        page.wait_for_timeout(400)
        problems += _chart_in_view(browser, f"{edition.language} {key} after scrolling up")
    assert not problems, problems[:8]


def test_desktop_screenshots(browser: Browser, edition: Edition) -> None:
    """The explorer at 1280 px, for a reviewer's eyes (_build/screenshots/explorer/)."""
    page = browser.page
    browser.open(edition.page)
    # the explorer's top just below the theme's pinned header
    page.evaluate(
        """() => { const root = document.querySelector('.live-explorer');
                   root.scrollIntoView();
                   window.scrollBy(0, -parseFloat(root.style.getPropertyValue('--rx-pinned-top') || 0)
                                      - 8); }"""
    )
    page.wait_for_timeout(300)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{edition.language}-1280.png"))
    assert (SHOTS / f"{edition.language}-1280.png").stat().st_size > 0
