"""Issue 25, "Sources" and "Smaller": the library's quoted figures, its catalog corrections, its
guard against unit slips and the helpers that print critical batches and articles."""

from __future__ import annotations

import math
import re

import matplotlib as mpl
import numpy as np
import pytest
from matplotlib.figure import Figure

import roofline_lib as rl
from roofline_lib import chapter, published
from roofline_lib.hardware import CATALOG
from roofline_lib.plots import label_is_nearest_its_point, place_labels
from roofline_lib.transformer.plot import plot_pass_times
from tests.figure_checks import BOOK_STYLE

# -- the original: one pinned version ----------------------------------------------------------


def test_the_original_is_pinned_to_one_commit_of_its_source_file():
    commit = published.ORIGINAL_COMMIT
    assert re.fullmatch(r"[0-9a-f]{40}", commit)
    assert published.ORIGINAL_URL == (
        f"https://github.com/jax-ml/scaling-book/blob/{commit}/roofline.md"
    )
    assert published.ORIGINAL["url"] == published.ORIGINAL_URL
    assert published.ORIGINAL_EARLIER_COMMIT != commit


def test_every_quotation_of_the_original_cites_the_pinned_file():
    cited = [
        *(f.citation for f in published.ACHIEVABLE_MATMUL_FRACTION.values()),
        published.TPU_V5P_VPU_CITATION,
    ]
    for citation in cited:
        assert citation.url == published.ORIGINAL_URL
        assert citation.verified == "2026-12-04"


def test_the_sources_figures_say_which_source_prints_them_now():
    # the guide's Problem 1 states 8.1e11; the original, at the pinned commit, 8.2e11 (480 → 240)
    assert chapter.PROBLEM_1.hbm_bandwidth_bytes_per_s == 8.1e11
    assert chapter.PROBLEM_1_ORIGINAL_BANDWIDTH == 8.2e11
    assert round(chapter.PROBLEM_1.peak_flops_per_s / chapter.PROBLEM_1_ORIGINAL_BANDWIDTH) == 480
    # only the original times 1e12 FLOPs on a TPU v6e; the guide rounds its SMEM intensity to ~33
    assert chapter.T_V6E_ORIGINAL_S == pytest.approx(1e12 / 9.1e14, rel=0.02)
    assert chapter.GUIDE_SMEM_CRITICAL_INTENSITY == 33
    # the original's first ICI figure is Google's per-port one-way figure: 400 GB/s / 4 / 2
    port = CATALOG["TPU v5e"].links["ici"].per_port_one_way_bytes_per_s
    assert chapter.V5E_ICI_ORIGINAL_FIRST_BYTES_PER_S == port == 400e9 / 4 / 2


# -- published MFUs: a range of runs, not a chosen pair ---------------------------------------


def test_megascale_is_among_the_reported_runs_with_its_own_words():
    mega = published.MEGASCALE_175B_MFU
    assert mega in published.REPORTED_MFU
    assert (mega.low, mega.high) == (0.552, 0.552)
    assert "55.2% Model FLOPs Utilization (MFU)" in mega.citation.quote
    assert "12,288 GPUs" in mega.citation.quote and "175B" in mega.citation.quote
    assert mega.citation.url == "https://arxiv.org/abs/2402.15627"
    assert published.REPORTED_MFU_HIGH == 0.552 and published.REPORTED_MFU_LOW == 0.38
    assert [r.low for r in published.REPORTED_MFU] == sorted(r.low for r in published.REPORTED_MFU)


def test_llama3_405b_down_projection_is_wider_than_the_infiniband_critical_d():
    h100 = CATALOG["H100 SXM"]
    critical = rl.critical_contracting_dim(h100.peak("bf16"), h100.bandwidth("ib_ndr"), 2)
    assert published.LLAMA3_405B_D_MODEL < critical < published.LLAMA3_405B_FFN.width == 53248
    assert "53,248" in published.LLAMA3_405B_FFN.citation.quote


# -- the catalog -----------------------------------------------------------------------------


def test_b200_dense_tf32_is_nvidias_per_gpu_figure_halved():
    b200 = CATALOG["B200"]
    assert b200.peak("tf32") == 1.1e15
    citation = b200.citations["peak_flops_per_s.tf32"]
    assert "TF32 Tensor Core 2.2 PFLOPS" in citation.quote and citation.sparse_headline


def test_tpu_v5p_ici_citation_names_the_scaling_book_revision_it_quotes():
    note = CATALOG["TPU v5p"].links["ici"].citation.note
    assert "0819a7d" in note and "9e10" in note
    assert "its table gives 1e11" not in note


# -- unit slips in a user's chip ------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"peak_flops_per_s": {"bf16": 989.5}},
            r"peak_flops_per_s\['bf16'\] is 989.5 FLOP/s.*Did you give TFLOP/s\? "
            r"989.5 TFLOP/s is 9.895e14 FLOP/s",
        ),
        (
            {"hbm_bandwidth_bytes_per_s": 3.35},
            r"hbm_bandwidth_bytes_per_s is 3.35 bytes/s.*Did you give TB/s\? "
            r"3.35 TB/s is 3.35e12 bytes/s",
        ),
        ({"hbm_bandwidth_bytes_per_s": 3350}, r"Did you give GB/s\? 3350 GB/s is 3.35e12"),
        ({"onchip_bandwidth_bytes_per_s": 33}, r"onchip_bandwidth_bytes_per_s is 33 bytes/s"),
    ],
)
def test_a_chip_given_in_tera_units_is_refused_with_the_unit_it_takes(kwargs, message):
    base = {"name": "My NPU", "peak_flops_per_s": {"bf16": 4e14}, "hbm_bandwidth_bytes_per_s": 1e12}
    with pytest.raises(ValueError, match=message):
        rl.Chip(**{**base, **kwargs})


def test_a_link_given_in_gigabytes_is_refused():
    with pytest.raises(ValueError, match=r"Link 'mylink': one_way_bytes_per_s is 50 bytes/s"):
        rl.Link("mylink", "My link", 50)


def test_a_small_real_device_is_still_a_chip():
    # a microcontroller: ~4e8 FLOP/s, ~1e8 bytes/s of SRAM, a 1 MB/s serial link
    mcu = rl.Chip(
        name="MCU",
        peak_flops_per_s={"fp32": 4e8},
        hbm_bandwidth_bytes_per_s=1e8,
        links={"uart": rl.Link("uart", "serial", 1e6)},
    )
    assert rl.critical_intensity(mcu, "fp32") == pytest.approx(4)


# -- printing critical batches and articles --------------------------------------------------


def test_a_printed_critical_batch_is_rounded_down_so_b_greater_than_it_holds():
    for chip in ("TPU v5e", "H100 SXM", "TPU v6e"):
        for kwargs in ({}, {"D": 8192, "F": 8192}):
            b_star = float(rl.critical_batch_size(chip, **kwargs))
            printed = int(rl.format_batch(b_star).replace(",", ""))
            smallest = printed + 1  # the first whole batch the text says is compute-bound
            assert printed <= b_star < smallest
            if kwargs:  # with exact bytes the library's own verdict agrees on both sides
                regime = [
                    rl.analyze(rl.matmul(b, 8192, 8192), chip).regime for b in (printed, smallest)
                ]
                assert regime == ["memory-bound", "compute-bound"]
    assert rl.format_batch(240.537) == "240" and rl.format_batch(255.54) == "255"
    assert rl.format_batch(math.inf) == "∞"
    with pytest.raises(ValueError, match="critical_batch"):
        rl.format_batch(-1)


@pytest.mark.parametrize(
    ("number", "article"),
    [
        ("8,192", "an"),
        ("8192", "an"),
        ("80", "an"),
        ("800", "an"),
        ("11", "an"),
        ("18,432", "an"),
        ("11,000", "an"),
        ("8-bit", "an"),
        ("512", "a"),
        ("1,024", "a"),
        ("110", "a"),
        ("2", "a"),
        ("70-billion", "a"),
    ],
)
def test_the_article_before_a_number_follows_how_it_is_read(number, article):
    assert rl.indefinite_article(number) == article


# -- figures ---------------------------------------------------------------------------------


def test_pass_times_are_bars_on_a_log_axis_without_a_zero_tick():
    with mpl.rc_context(BOOK_STYLE):
        est = rl.estimate_inference(
            "llama-3-70b", "H100 SXM", batch=64, context=4096, prompt=2048, n_chips=8
        )
        for phase in ("decode", "prefill"):
            ax = plot_pass_times(est, phase).axes[0]
            assert ax.get_xscale() == "log"
            ticks = [t.get_text() for t in ax.get_xticklabels()]
            assert "0" not in ticks and all(t == "" or t[0].isdigit() for t in ticks)


def test_a_label_is_placed_where_it_reads_as_its_own_points():
    with mpl.rc_context(BOOK_STYLE):
        ax = Figure(figsize=(5.6, 3.9)).add_subplot()
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(0.3, 3e4)
        ax.set_ylim(1e12, 1e16)
        points = {"near": (230.0, 8e14), "long label of the far point": (1365.0, 1e15)}
        for x, y in points.values():
            ax.plot([x], [y], marker="o", ls="none")
        (_, first), (text, far) = points.items()
        place_labels(ax, [(text, far)])
        fig = ax.figure
        renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
        ann = ax.texts[-1]
        ann.update_positions(renderer)  # type: ignore[attr-defined]
        box = mpl.text.Text.get_window_extent(ann, renderer)
        own = tuple(ax.transData.transform(far))
        other = tuple(ax.transData.transform(first))
        assert label_is_nearest_its_point(box, own, [own, other]) or ann.arrow_patch is not None


def test_nearest_point_rule_rejects_a_label_centred_over_another_marker():
    from matplotlib.transforms import Bbox

    box = Bbox.from_extents(170, 340, 410, 355)  # ends beside its point, centred over another
    assert not label_is_nearest_its_point(box, (418, 316), [(418, 316), (359, 309)])
    assert label_is_nearest_its_point(box, (290, 330), [(290, 330), (600, 20)])
    assert np.isfinite(box.width)
