""" "Predict, then check" (issue 12): every concept page asks two or three questions, each answered
in a number box (booktools.question) inside a sphinx-exercise ``exercise``, with the worked answer
in a ``solution`` dropdown.

The glued expected value is the library's: each box's ``data-answer`` is read back and recomputed
here with roofline_lib (:data:`EXPECTED`, by question name). In headless Chromium (every host but
the local server blocked), on each page: the right answer gets a tick (typed plainly, with
thousands separators or with an SI-prefixed unit), a catalogued mistake gets its hint, and empty,
text, negative, zero and overflowing (1e400) input each get a clear message and never a tick;
Enter checks as the button does.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

import roofline_lib as rl
from roofline_lib.chapter import LLAMA_70B_RUN
from roofline_lib.mfu import TrainingFlops
from roofline_lib.transformer import get_model
from tests.book.browser import local_site, require_chromium

pytestmark = pytest.mark.slow

CONCEPT_PAGES = (
    "book/01_where_the_time_goes",
    "book/02_arithmetic_intensity",
    "book/03_roofline_chart",
    "book/04_matmul",
    "book/05_network",
    "book/06_low_precision",
    "book/08_mfu",
    "book/09_inference",
)
QUESTIONS_PER_PAGE = range(2, 4)


def _h100() -> rl.Chip:
    return rl.get_chip("H100 SXM")


def _v6e() -> rl.Chip:
    return rl.get_chip("TPU v6e")


def _v5e() -> rl.Chip:
    return rl.get_chip("TPU v5e")


def _llama_70b() -> tuple[TrainingFlops, float, float]:
    """Page 8's worked example: the dense FLOPs per token, and the step's MFU, dense and total.
    The model is Llama-3-70B's description (P without the input embedding table, which is looked
    up, not multiplied); the run's figures are the guide's."""
    run, m = LLAMA_70B_RUN, get_model("llama-3-70b")
    P, L, S, Hd = m.params - m.vocab * m.d_model, m.layers, run["seq_len"], m.heads * m.d
    B = run["sequences_per_step"] * S
    step, n, peak = run["step_time_s"], run["n_chips"], run["peak_flops_per_s"]
    flops = rl.training_flops(P, B, n_layers=L, seq_len=S, attention_width=Hd)
    per_token = rl.training_flops(P, 1, n_layers=L, seq_len=S, attention_width=Hd)
    dense = rl.model_flops_utilization(flops.dense_flops, step, n, peak)
    return per_token, 100 * dense, 100 * flops.total / step / (n * peak)


EXPECTED: dict[str, Callable[[], float]] = {
    "q_t_math_v6e": lambda: rl.t_math(1e12, _v6e().peak("bf16")),
    "q_t_comms_nvlink": lambda: rl.t_comms(
        rl.matmul_small_batch(1, 8192, 8192).bytes_read, _h100().bandwidth("nvlink4")
    ),
    "q_h100_ci": lambda: rl.critical_intensity(_h100()),
    "q_dot_intensity": lambda: rl.dot_product(4096).arithmetic_intensity,
    "q_op_h100_frac": lambda: (
        100 * rl.analyze(rl.matmul(256, 8192, 8192), _h100()).fraction_of_peak
    ),
    "q_h200_ci": lambda: rl.critical_intensity(rl.get_chip("H200")),
    "q_matmul_intensity": lambda: rl.matmul(256, 8192, 8192).arithmetic_intensity,
    "q_v6e_bstar": lambda: rl.critical_batch_size(_v6e()),
    "q_d_star": lambda: rl.critical_contracting_dim(  # two chips share one ICI link, one way
        _v5e().peak("bf16"), _v5e().links["ici"].per_port_one_way_bytes_per_s, n_chips=2
    ),
    "q_net_i": lambda: rl.sharded_matmul(1024, 8192, 8192, n_chips=2).network_intensity,
    "q_b_int8": lambda: rl.critical_batch_size(_v5e(), "int8"),
    "q_b_w8a16": lambda: rl.critical_batch_size(_v5e(), "w8a16"),
    "q_flops_per_token": lambda: _llama_70b()[0].dense_flops,
    "q_mfu": lambda: _llama_70b()[1],
    "q_decode_ai": lambda: rl.matmul(64, 8192, 8192).arithmetic_intensity,
    "q_decode_bstar": lambda: rl.critical_batch_size(_h100()),
}
"""Each question's answer, recomputed with the library (the test's own call, not the page's)."""


def _boxes(html: Path, page: str) -> list[dict[str, str]]:
    soup = BeautifulSoup((html / f"{page}.html").read_text(encoding="utf-8"), "html.parser")
    boxes = []
    for box in soup.select("div.exercise div.predict"):
        ident = box.select_one("input")["id"]
        label = box.select_one(f"label[for='{ident}']")
        assert label is not None, f"{page}: the box {ident} has no label"
        data = {k.removeprefix("data-"): v for k, v in box.attrs.items() if k.startswith("data-")}
        boxes.append({"id": ident, "label": label.get_text(" ", strip=True), **data})
    return boxes


def _name(ident: str) -> str:
    return ident.removeprefix("predict-").replace("-", "_")


@pytest.mark.parametrize("page", CONCEPT_PAGES)
def test_each_concept_page_asks_two_or_three_questions(html: Path, page: str) -> None:
    boxes = _boxes(html, page)
    assert len(boxes) in QUESTIONS_PER_PAGE, f"{page}: {len(boxes)} questions"
    for box in boxes:
        assert "within 1%" in box["label"] or "within" in box["label"], box["label"]


@pytest.mark.parametrize("page", CONCEPT_PAGES)
def test_the_glued_answer_is_the_library_value(html: Path, page: str) -> None:
    for box in _boxes(html, page):
        name = _name(box["id"])
        assert name in EXPECTED, f"{page}: question {name} has no recomputation in EXPECTED"
        assert float(box["answer"]) == pytest.approx(EXPECTED[name](), rel=1e-12, abs=0), name
        mistakes = json.loads(box["mistakes"])
        assert mistakes and all(m["hint"] and math.isfinite(m["value"]) for m in mistakes)


NONSENSE = {
    "": "Type a number first",
    "about a millisecond": "not a number",
    "-1": "negative",
    "0": "zero",
    "1e400": "overflows",
}


def _ways_to_write(answer: float, unit: str) -> list[str]:
    """The right answer as a reader might type it."""
    ways = [repr(answer), f"{answer:.4g}"]
    if answer >= 1000:
        ways.append(f"{answer:,.1f}")
    if unit == "s":
        ways.append(f"{answer * 1e3:.4g} ms")
    return ways


@pytest.fixture(scope="module")
def checked(html: Path) -> dict[str, list[dict[str, object]]]:
    """What each box of each concept page says, in the browser, for each kind of input."""
    require_chromium()
    results: dict[str, list[dict[str, object]]] = {}
    with local_site(html) as site:
        base, context = site.base, site.context
        for page_path in CONCEPT_PAGES:
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda exc, e=errors: e.append(str(exc)))
            page.goto(f"{base}/{page_path}.html", wait_until="load")
            out = []
            for box in _boxes(html, page_path):
                selector = f"#{box['id']}"
                field = page.locator(selector)
                host = page.locator(f"div.predict:has({selector})")

                def say(text: str, enter: bool, field=field, host=host) -> tuple[str, str]:  # type: ignore[no-untyped-def]
                    field.fill(text)
                    if enter:
                        field.press("Enter")
                    else:
                        host.locator("button.predict-check").click()
                    state = host.get_attribute("data-state") or ""
                    return state, host.locator(".predict-message").inner_text()

                answer, unit = float(box["answer"]), box.get("unit", "")
                mistake = json.loads(box["mistakes"])[0]
                out.append(
                    {
                        "id": box["id"],
                        "right": [say(t, enter=True) for t in _ways_to_write(answer, unit)],
                        "right_by_button": say(repr(answer), enter=False),
                        "mistake": (mistake["hint"], say(repr(mistake["value"]), True)),
                        "nonsense": {t: say(t, enter=True) for t in NONSENSE},
                    }
                )
            results[page_path] = out
            assert not errors, f"{page_path}: {errors}"
            page.close()
    assert not site.blocked, f"requests to other hosts: {site.blocked}"
    return results


@pytest.mark.parametrize("page", CONCEPT_PAGES)
def test_the_right_answer_gets_a_tick_by_enter_or_button(checked: dict, page: str) -> None:
    for box in checked[page]:
        for state, text in [*box["right"], box["right_by_button"]]:
            assert state == "right" and text.startswith("✓"), (box["id"], state, text)


@pytest.mark.parametrize("page", CONCEPT_PAGES)
def test_a_catalogued_mistake_gets_its_hint(checked: dict, page: str) -> None:
    for box in checked[page]:
        hint, (state, text) = box["mistake"]
        assert state == "mistake" and hint in text and "✓" not in text, (box["id"], text)


@pytest.mark.parametrize("page", CONCEPT_PAGES)
def test_nonsense_gets_a_clear_message_and_never_a_tick(checked: dict, page: str) -> None:
    for box in checked[page]:
        for typed, (state, text) in box["nonsense"].items():
            assert state == "invalid", (box["id"], typed, state)
            assert NONSENSE[typed] in text and "✓" not in text, (box["id"], typed, text)
