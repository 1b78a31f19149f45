""" "Predict, then check" (issues 12 and 29): every concept page asks two or three questions, each
answered in a number box (booktools.question) inside a sphinx-exercise ``exercise``, with the
worked answer in a ``solution`` dropdown.

The glued expected value is the library's: each box's ``data-answer`` is read back and recomputed
here with roofline_lib (:data:`EXPECTED`, by question name). In headless Chromium (every host but
the local server blocked), on each page:

* the right answer gets a tick (typed plainly, with thousands separators or with an SI-prefixed
  unit); every listed mistake gets its own hint; every convention the page teaches (exact bytes,
  rounded inputs) a tick with its note; empty, text, negative, zero and overflowing (1e400) input
  each get a clear message and never a tick; Enter checks as the button does;
* every number the page prints is fed to every box: no hint fires that the box does not list,
  and each printed number that gets a hint or a note is one a person has checked
  (:data:`PRINTED_AND_LISTED`); what misfired in the last release (the guide's 298 and 569,
  exact-bytes 318, I ≈ B's 64, a fraction for a percentage) gets what the page means by it;
* questions come before answers: with nothing answered, no number within a box's tolerance of
  its answer is visible after the box in its section (the working is folded,
  ``hold-until-answered``); answering every box a fold names, or its button, shows it;
* at least one box a page asks the reader to predict what changes (a ratio, a regime).
"""

from __future__ import annotations

import json
import math
import re
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
WHAT_CHANGES = {
    "book/01_where_the_time_goes": "q_overlap_speedup",
    "book/02_arithmetic_intensity": "q_v6e_ci_gain",
    "book/03_roofline_chart": "q_h200_ci",
    "book/04_matmul": "q_double_b_time",
    "book/05_network": "q_net_double_b",
    "book/06_low_precision": "q_b_w8a16",
    "book/08_mfu": "q_ib_frac",
    "book/09_inference": "q_decode_double",
}
"""Each concept page's box that asks what *changes* (a ratio, a regime flip, which resource
binds) when one thing does, rather than for a formula's value; its statement says "Predict"."""
PRINTED_AND_LISTED = {
    # page 1: the 2× bound; the HBM read time of the same matrix
    ("q_overlap_speedup", "2"),
    ("q_t_comms_nvlink", "4.01e-05"),
    # page 2: 1 and 0.25 are other intensities; the v6e's peak and bandwidth growths
    ("q_dot_intensity", "0.25"),
    ("q_dot_intensity", "1"),
    ("q_v6e_ci_gain", "2"),
    ("q_v6e_ci_gain", "4.66"),
    # page 3: the H100's critical intensity; the roof
    ("q_h200_ci", "295"),
    ("q_op_h100_frac", "100"),
    # page 4: I ≈ B = 256 (255: the exact v5e batch); twice the FLOPs; 481, another intensity
    ("q_double_b_time", "2"),
    ("q_matmul_intensity", "255"),
    ("q_matmul_intensity", "256"),
    ("q_matmul_intensity", "481"),
    # page 5: the doubled link's threshold; the H100's 989.5 TFLOP/s by chance near Google's
    # all-ports figure's threshold; B; D; halves and doubles
    ("q_d_star", "3940"),
    ("q_d_star", "989.5"),
    ("q_net_double_b", "0.5"),
    ("q_net_double_b", "2"),
    ("q_net_i", "1024"),
    ("q_net_i", "2048"),
    ("q_net_i", "8192"),
    # page 6: bf16's and W8A16's critical batches, the int8 critical intensity
    ("q_b_int8", "120"),
    ("q_b_int8", "120.3"),
    ("q_b_int8", "480"),
    ("q_b_w8a16", "239"),
    ("q_b_w8a16", "239.9"),
    ("q_b_w8a16", "240"),
    ("q_b_w8a16", "240.5"),
    ("q_b_w8a16", "241"),
    ("q_b_w8a16", "480"),
    # page 8: the MFU with attention counted
    ("q_mfu", "106"),
    # page 9: one request's intensity; I ≈ B = 64 (a convention); the
    # exact-bytes threshold 318 (a convention); halves, doubles and the weights-only ratio 1
    ("q_decode_ai", "1"),
    ("q_decode_ai", "64"),
    ("q_decode_bstar", "318"),
    ("q_decode_double", "0.5"),
    ("q_decode_double", "1"),
    ("q_decode_double", "2"),
}
"""(question, number as printed to 4 digits): a number a page prints that a box answers with a
listed mistake's hint or a convention's note, each read by a person and found right for what the
page means by it."""


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
    "q_overlap_speedup": lambda: rl.lower_bound(3e-3, 1e-3) / rl.lower_bound(3e-3, 0.5e-3),
    "q_v6e_ci_gain": lambda: rl.critical_intensity(_v6e()) / rl.critical_intensity(_v5e()),
    "q_double_b_time": lambda: (
        rl.analyze(rl.matmul(512, 8192, 8192), _h100()).lower_bound_s
        / rl.analyze(rl.matmul(256, 8192, 8192), _h100()).lower_bound_s
    ),
    "q_net_double_b": lambda: (
        rl.sharded_matmul(2048, 8192, 8192, n_chips=2).network_intensity
        / rl.sharded_matmul(1024, 8192, 8192, n_chips=2).network_intensity
    ),
    "q_ib_frac": lambda: (
        100 * rl.analyze(rl.sharded_matmul(4096, 8192, 8192, 2), _h100(), "ib_ndr").fraction_of_peak
    ),
    "q_decode_double": lambda: (
        rl.analyze(rl.matmul(128, 8192, 8192), _h100()).lower_bound_s
        / rl.analyze(rl.matmul(64, 8192, 8192), _h100()).lower_bound_s
    ),
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


@pytest.mark.parametrize("page", CONCEPT_PAGES)
def test_a_box_on_each_page_asks_what_changes(html: Path, page: str) -> None:
    soup = BeautifulSoup((html / f"{page}.html").read_text(encoding="utf-8"), "html.parser")
    name = WHAT_CHANGES[page]
    box = soup.select_one(f"#predict-{name.replace('_', '-')}")
    assert box is not None, f"{page}: no box {name}"
    statement = box.find_parent("div", class_="exercise").get_text(" ", strip=True)
    assert "Predict" in statement, f"{page}: {name} does not ask for a prediction: {statement}"


GENERIC_WORDS = ("binary and decimal prefixes", "a unit prefix off", "a power of ten off")
"""The class report's words for a bare factor: a box never guesses them (it lists its own)."""


@pytest.mark.parametrize("page", CONCEPT_PAGES)
def test_no_box_guesses_a_generic_factor(html: Path, page: str) -> None:
    for box in _boxes(html, page):
        for mistake in json.loads(box["mistakes"]):
            assert not any(w in mistake["hint"] for w in GENERIC_WORDS), (box["id"], mistake)


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


_NUMBER = re.compile(
    r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?:\s*×\s*10([⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+))?"
    r"(?:\s*(ps|ns|µs|ms|s|%)(?!\w))?"
)
_SUPERSCRIPTS = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")
_TIME = {"ps": 1e-12, "ns": 1e-9, "µs": 1e-6, "ms": 1e-3, "s": 1.0}


def numbers_in(text: str, unit: str) -> list[float]:
    """The numbers ``text`` prints, in a box's ``unit``: "1.09 ms" is 0.00109 for unit "s" (a
    bare number is no time), "81.6%" is 81.6 for unit "%", "4.17 × 10¹¹" is 4.17e11; thousands
    separators are read."""
    found = []
    for whole, fraction, power, suffix in _NUMBER.findall(text):
        value = float(whole.replace(",", "") + (fraction or ""))
        if power:
            value *= 10.0 ** int(power.translate(_SUPERSCRIPTS))
        if unit == "s":
            if suffix not in _TIME:
                continue
            value *= _TIME[suffix]
        elif unit == "%" and suffix != "%":
            continue
        found.append(value)
    return found


def test_numbers_are_read_as_a_reader_reads_them() -> None:
    assert numbers_in("takes 1.09 ms, or 1,024 tokens", "s") == [pytest.approx(1.09e-3)]
    assert numbers_in("4.17 × 10¹¹ FLOPs and 1,024 tokens", "FLOPs") == [4.17e11, 1024.0]
    assert numbers_in("at 81.6% of 989 TFLOP/s", "%") == [81.6]
    assert numbers_in("1.23 × 10⁻⁴", "") == [pytest.approx(1.23e-4)]


_VISIBLE_AFTER = """
(box) => {
  const exercise = box.closest("div.exercise") || box.closest(".admonition");
  let node = exercise.nextElementSibling, text = [];
  for (; node; node = node.nextElementSibling) {
    if (node.matches("section, h1, h2, h3")) break;
    if (node.matches(".solution, .held-back, .held-bar")) continue;
    if (node.matches("div.exercise")) { node = node.nextElementSibling; continue; }
    text.push(node.innerText);
  }
  return text.join(" ");
}
"""
"""The text a reader sees after a box's exercise, to the end of its section (the live explorer's
readout too): not the collapsed solutions, not folded working, not the next exercise's own
statement."""

_PRINTED = """
() => {
  const article = document.querySelector("article").cloneNode(true);
  article.querySelectorAll("section#the-roofline-of-the-machine-that-built-this-book")
    .forEach((e) => e.remove());
  document.body.appendChild(article);
  const text = article.innerText;
  article.remove();
  return text;
}
"""
"""The article's text, without the section that reports the build machine's own measurement
(its numbers differ from one build to the next)."""

_JUDGE = "([box, texts]) => texts.map((t) => window.roofline_predict.judge(box, t))"


def _judge(page, box_id: str, texts: list[str]) -> list[dict[str, str]]:  # type: ignore[no-untyped-def]
    host = page.locator(f"div.predict:has(#{box_id})").element_handle()
    return page.evaluate(_JUDGE, [host, texts])  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def checked(html: Path) -> dict[str, list[dict[str, object]]]:
    """What each box of each concept page says, in the browser, for each kind of input, what a
    reader sees after it before answering, and what every number on the page gets."""
    require_chromium()
    results: dict[str, list[dict[str, object]]] = {}
    with local_site(html) as site:
        base, context = site.base, site.context
        for page_path in CONCEPT_PAGES:
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda exc, e=errors: e.append(str(exc)))
            page.goto(f"{base}/{page_path}.html", wait_until="load")
            boxes = _boxes(html, page_path)
            visible = {
                box["id"]: page.evaluate(
                    _VISIBLE_AFTER, page.locator(f"#{box['id']}").element_handle()
                )
                for box in boxes
            }
            page.evaluate("document.querySelectorAll('.held-show').forEach((b) => b.click())")
            article = page.evaluate(_PRINTED)
            out = []
            for box in boxes:
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
                mistakes = json.loads(box["mistakes"])
                conventions = json.loads(box.get("conventions", "[]"))
                printed = sorted(set(numbers_in(article, unit)))
                out.append(
                    {
                        "id": box["id"],
                        "answer": answer,
                        "rtol": float(box["rtol"]),
                        "unit": unit,
                        "right": [say(t, enter=True) for t in _ways_to_write(answer, unit)],
                        "right_by_button": say(repr(answer), enter=False),
                        "mistakes": [(m, say(repr(m["value"]), True)) for m in mistakes],
                        "conventions": [(c, say(repr(c["value"]), True)) for c in conventions],
                        "nonsense": {t: say(t, enter=True) for t in NONSENSE},
                        "printed": list(
                            zip(
                                printed,
                                _judge(page, box["id"], [repr(x) for x in printed]),
                                strict=True,
                            )
                        ),
                        "visible_after": visible[box["id"]],
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
def test_every_listed_mistake_gets_its_own_hint(checked: dict, page: str) -> None:
    for box in checked[page]:
        for mistake, (state, text) in box["mistakes"]:
            assert state == "mistake" and mistake["hint"] in text and "✓" not in text, (
                box["id"],
                mistake,
                text,
            )


@pytest.mark.parametrize("page", CONCEPT_PAGES)
def test_every_convention_gets_a_tick_with_its_note(checked: dict, page: str) -> None:
    for box in checked[page]:
        for convention, (state, text) in box["conventions"]:
            assert state == "right" and text.startswith("✓") and convention["note"] in text, (
                box["id"],
                convention,
                text,
            )


@pytest.mark.parametrize("page", CONCEPT_PAGES)
def test_the_pages_own_numbers_get_no_hint_the_box_does_not_list(checked: dict, page: str) -> None:
    """Every number the page prints, typed into every box: a hint only where the box lists that
    value, a tick only for the answer or a listed convention; and each number that does get a
    hint or a note is one this test has been told of (:data:`PRINTED_AND_LISTED`), so that a new
    coincidence between a printed figure and a box's mistake is read by a person once."""
    problems, coincidences = [], set()
    for box in checked[page]:
        answer, rtol = box["answer"], box["rtol"]
        listed = [m for m, _ in box["mistakes"]] + [c for c, _ in box["conventions"]]
        for number, verdict in box["printed"]:
            close_to = [v for v in listed if abs(number - v["value"]) <= rtol * v["value"]]
            words = verdict["text"].removeprefix("✗ ").removeprefix("✓ ")
            if verdict["state"] == "mistake":
                if not any(words == m.get("hint") for m in close_to):
                    problems.append(f"{box['id']}: {number} got {words!r}, which it does not list")
                coincidences.add((_name(box["id"]), f"{number:.4g}"))
            elif verdict["state"] == "right" and abs(number - answer) > rtol * answer:
                if not close_to:
                    problems.append(f"{box['id']}: {number} ticked, but it is not the answer")
                coincidences.add((_name(box["id"]), f"{number:.4g}"))
    assert not problems, "\n".join(problems)
    names = {_name(b["id"]) for b in checked[page]}
    known = {(name, value) for name, value in PRINTED_AND_LISTED if name in names}
    assert coincidences == known, (
        f"printed numbers that get a hint or a note: {sorted(coincidences)}; reviewed: "
        f"{sorted(known)} (check that each hint is right for what the page means by that number)"
    )


REVIEWER_CASES = [
    ("book/02_arithmetic_intensity", "q_h100_ci", "295", "right", "Right"),
    ("book/02_arithmetic_intensity", "q_h100_ci", "298", "mistake", "erratum"),
    ("book/03_roofline_chart", "q_op_h100_frac", "0.816", "mistake", "percentage"),
    ("book/04_matmul", "q_v6e_bstar", "568.75", "mistake", "erratum"),
    ("book/06_low_precision", "q_b_int8", "256", "wrong", "Not within"),
    ("book/06_low_precision", "q_b_w8a16", "128", "wrong", "Not within"),
    ("book/08_mfu", "q_flops_per_token", "4.23e11", "mistake", "embedding"),
    ("book/09_inference", "q_decode_ai", "64", "right", "I ≈ B"),
    ("book/09_inference", "q_decode_bstar", "298", "mistake", "erratum"),
    ("book/09_inference", "q_decode_bstar", "318", "right", "every byte counted"),
]
"""What a reviewer typed into the last release's boxes and got a generic "binary and decimal
prefixes" hint or a tick for: each now gets what the page means by it."""


def test_what_misfired_before_now_gets_what_the_page_means(html: Path) -> None:
    require_chromium()
    problems = []
    with local_site(html) as site:
        page = site.context.new_page()
        for page_path, name, typed, state, words in REVIEWER_CASES:
            if not page.url.endswith(f"{page_path}.html"):
                page.goto(f"{site.base}/{page_path}.html", wait_until="load")
            verdict = _judge(page, f"predict-{name.replace('_', '-')}", [typed])[0]
            if verdict["state"] != state or words not in verdict["text"]:
                problems.append(f"{name} {typed}: {verdict} (wanted {state}, {words!r})")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("page", CONCEPT_PAGES)
def test_no_answer_is_visible_after_its_box_before_the_reader_answers(
    checked: dict, page: str
) -> None:
    problems = []
    for box in checked[page]:
        answer, rtol = box["answer"], box["rtol"]
        shown = [
            x
            for x in numbers_in(box["visible_after"], box["unit"])
            if abs(x - answer) <= rtol * answer
        ]
        if shown:
            problems.append(f"{box['id']}: the answer {shown[0]:.6g} is visible below the box")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("page", CONCEPT_PAGES)
def test_nonsense_gets_a_clear_message_and_never_a_tick(checked: dict, page: str) -> None:
    for box in checked[page]:
        for typed, (state, text) in box["nonsense"].items():
            assert state == "invalid", (box["id"], typed, state)
            assert NONSENSE[typed] in text and "✓" not in text, (box["id"], typed, text)


def test_folded_working_opens_on_right_answers_or_its_button(html: Path) -> None:
    """Page 5 folds the working of two boxes: it stays folded until both are answered; on a
    fresh page, its button shows it at once."""
    require_chromium()
    page_path = "book/05_network"
    boxes = {b["id"]: float(b["answer"]) for b in _boxes(html, page_path)}
    with local_site(html) as site:
        page = site.context.new_page()
        page.goto(f"{site.base}/{page_path}.html", wait_until="load")
        held = page.locator("div.held-back[data-for='q-d-star q-net-i']")
        assert held.count() == 1 and not held.is_visible()
        bar = page.locator("p.held-bar").first
        assert (
            bar.is_visible()
            and "questions above is folded until you answer them" in bar.inner_text()
        )
        for ident in ("predict-q-d-star", "predict-q-net-i"):
            assert not held.is_visible(), f"unfolded before {ident} was answered"
            page.locator(f"#{ident}").fill(repr(boxes[ident]))
            page.locator(f"#{ident}").press("Enter")
        assert held.is_visible()
        page.goto(f"{site.base}/{page_path}.html", wait_until="load")
        assert not held.is_visible()
        page.locator("button.held-show").first.click()
        assert held.is_visible() and page.locator("p.held-bar").count() < 3
