"""Page 5's network claims once ignored topology: a link's bandwidth was every port's whatever the
number of chips N. Two MI300Xs were timed over 7 Infinity Fabric links (448 GB/s, a critical shard
of 2,918) though they share one (64 GB/s, 20,428), and page 5 used one TPU v5e ICI port (50 GB/s,
D > 7,880) in its text and exercise but two (100 GB/s, D > 3,940) in its explorer and figure.

Each test recomputes the number by hand from the vendors' figures (not through the page's cell)
and checks the built HTML, English and Chinese; each also checks that the old wording is gone.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from roofline_lib.explorer_data import explorer_data, reference
from roofline_lib.fmt import format_number, format_quantity
from tests.book.test_book_numbers import _article, _rendered

pytestmark = pytest.mark.slow

PAGE = "book/05_network"
V5E_BF16 = 197e12  # Google: 197 TFLOPs bf16 per chip
V5E_LINK = 400e9 / 4 / 2  # "400 GBps" bidirectional per chip over 4 ports: 50 GB/s one way each
MI300X_BF16 = 1307.4e12  # AMD: 2,614.9 TFLOPS bf16 with sparsity, ÷ 2
MI300X_LINK = 128e9 / 2  # "128 GB/s" per Infinity Fabric link, both directions
H100_BF16, NVLINK4 = 989.5e12, 450e9


def _text(html: Path, page: str = PAGE) -> str:
    return re.sub(r"\s+", " ", _article(html, page).get_text())


def _shown(html: Path, page: str = PAGE) -> dict[str, str]:
    return dict(_rendered(html, page))


def _figure(html: Path, page: str = PAGE) -> BeautifulSoup:
    figure = _article(html, page).select_one("figure#fig-critical-shard")
    assert figure is not None, f"{page}: no figure #fig-critical-shard"
    return figure


def _drawn_texts(html: Path, figure: BeautifulSoup, page: str = PAGE) -> set[str]:
    """The texts matplotlib drew in the figure's SVG (glyphs are paths; matplotlib introduces
    each text's group with a comment holding the text)."""
    img = figure.select_one("img")
    assert img is not None, f"{page}: #fig-critical-shard has no image"
    svg = ((html / page).parent / img["src"]).read_text(encoding="utf-8")
    return {m.strip() for m in re.findall(r"<!--\s*(.*?)\s*-->", svg, flags=re.S)}


def _box(html: Path, name: str, page: str = PAGE) -> dict[str, str]:
    soup = BeautifulSoup((html / f"{page}.html").read_text(encoding="utf-8"), "html.parser")
    box = soup.select_one(f"div.predict:has(input#predict-{name.replace('_', '-')})")
    assert box is not None, f"{page}: no answer box for {name}"
    return {k.removeprefix("data-"): v for k, v in box.attrs.items() if k.startswith("data-")}


def test_two_v5e_chips_share_one_ici_link_so_d_must_exceed_7880(html: Path) -> None:
    d_star = 2 * V5E_BF16 / V5E_LINK  # D > 2C/W with W the one shared link, one way
    shown = _shown(html)
    assert shown["d_star"] == format_number(d_star, 4) == "7,880"
    assert shown["ici_port"] == format_quantity(V5E_LINK, "B/s") == "50 GB/s"
    assert shown["ici_ring"] == format_quantity(2 * V5E_LINK, "B/s")  # a ring of 3+: two ports
    assert shown["regime_catalog"] == "compute-bound"  # D = 8,192 > 7,880
    text = _text(html)
    assert "share one" in text
    assert "for a TPU that is the two ports a ring along one torus axis uses" not in text


def test_exercise_answer_and_its_hint_for_3940(html: Path) -> None:
    box = _box(html, "q_d_star")
    assert float(box["answer"]) == pytest.approx(2 * V5E_BF16 / V5E_LINK)
    mistakes = {round(m["value"]): m["hint"] for m in json.loads(box["mistakes"])}
    doubled = mistakes[round(2 * V5E_BF16 / (2 * V5E_LINK))]  # 3,940: 100 GB/s
    assert "both ways" in doubled and "two ports" in doubled and "share one link" in doubled
    assert "every port" not in doubled
    everything = mistakes[round(2 * V5E_BF16 / 400e9)]  # 985: Google's 400 GB/s as W
    assert "all four ports, both ways" in everything
    shown = _shown(html)
    assert shown["d_star_doubled"] == format_number(2 * V5E_BF16 / (2 * V5E_LINK), 4) == "3,940"
    assert "one link is one port" not in (html / f"{PAGE}.html").read_text(encoding="utf-8")


def test_the_explorer_on_page_5_times_the_two_chip_link(html: Path) -> None:
    """The page opens the explorer at TPU v5e, N = 2: the library's verdict, which the live
    explorer matches to 1e-12 (tests/book/test_book_live_explorer.py), uses 50 GB/s; the data
    the JavaScript reads carries the topology it scales the per-port figure by."""
    holder = _article(html, PAGE).select_one("div.live-explorer")
    assert holder is not None
    config = json.loads(holder["data-config"])
    assert config["chip"] == "TPU v5e" and int(config["N"]) == 2
    assert reference(config).bandwidth_bytes_per_s == pytest.approx(V5E_LINK)
    (v5e,) = (c for c in explorer_data()["chips"] if c["name"] == "TPU v5e")
    (ici,) = (lv for lv in v5e["levels"] if lv["key"] == "ici")
    assert ici["topology"] == "torus_axis" and ici["per_port_bytes_per_s"] == V5E_LINK


def test_critical_shard_figure_is_for_two_chips_and_uses_their_links(html: Path) -> None:
    figure = _figure(html)
    caption = re.sub(r"\s+", " ", figure.select_one("figcaption").get_text())
    assert "for two chips" in caption and "N = 2" in caption
    assert "seven links to its peers" not in caption and "two ICI ports" not in caption
    alt = figure.select_one("img")["alt"]
    assert "for two chips" in alt and "split in two" in alt
    assert "NVLink, Infinity Fabric and TPU ICI bars are of similar length" not in alt
    drawn = _drawn_texts(html, figure)
    mi300x_two = format_number(MI300X_BF16 / MI300X_LINK, 4)  # 20,430: one shared link
    v5e_two = format_number(V5E_BF16 / V5E_LINK, 4)  # 3,940: one shared link (D > 7,880)
    nvlink = format_number(H100_BF16 / NVLINK4, 4)  # 2,199: all 18 links through the switch
    assert {mi300x_two, v5e_two, nvlink} <= drawn, sorted(drawn)
    assert format_number(MI300X_BF16 / (7 * MI300X_LINK), 4) not in drawn  # the 8-GPU 2,918
    assert format_number(V5E_BF16 / (2 * V5E_LINK), 4) not in drawn  # two ports: 1,970
    assert "(bf16, two chips: φ = 1)" in drawn  # the axis states N


def test_mi300x_threshold_depends_on_how_many_gpus_share_the_links(html: Path) -> None:
    shown = _shown(html)
    assert shown["mi_w_2"] == format_quantity(MI300X_LINK, "B/s") == "64 GB/s"
    assert shown["mi_w_8"] == format_quantity(7 * MI300X_LINK, "B/s") == "448 GB/s"
    assert shown["mi_star_2"] == format_number(MI300X_BF16 / MI300X_LINK, 4)  # φ = 1
    assert shown["mi_star_8"] == format_number(1.75 * MI300X_BF16 / (7 * MI300X_LINK), 4)
    assert shown["nv_star_8"] == format_number(1.75 * H100_BF16 / NVLINK4, 4)


def test_the_chinese_page_states_the_same_two_chip_numbers(translated_book) -> None:
    html = translated_book.html
    shown = _shown(html)
    assert shown["d_star"] == "7,880" and shown["ici_port"] == "50 GB/s"
    assert shown["mi_star_2"] == format_number(MI300X_BF16 / MI300X_LINK, 4)
    text = _text(html)
    assert "共用" in text  # two chips share one link
    assert "对 TPU 来说，就是沿环面（torus）的一个轴组成环时所用的两个端口" not in text
    box = _box(html, "q_d_star")
    hints = [m["hint"] for m in json.loads(box["mistakes"])]
    assert any("两块芯片共用一条链路" in h for h in hints)
    drawn = _drawn_texts(html, _figure(html))
    assert format_number(MI300X_BF16 / MI300X_LINK, 4) in drawn
