"""What the book's pages must say: key numbers recomputed here, from roofline_lib, independently
of the pages' own cells.

``EXPECTED[page][name]`` is the text that ``{glue:text}`name``` must render as on that page. The
values are derived from the catalog and the cost models the way a reader would check them by
hand (``peak / bandwidth``, ``flops / peak``, ...), so a page that glues the wrong quantity, a
library change the page did not follow, or a stale execution cache all show up as a mismatch.
"""

from __future__ import annotations

import roofline_lib as rl
from roofline_lib.fmt import format_batch
from roofline_lib.fmt import format_number as n
from roofline_lib.fmt import format_percent as pct
from roofline_lib.fmt import format_quantity as q

H100, H200, A100 = rl.get_chip("H100 SXM"), rl.get_chip("H200"), rl.get_chip("A100 80GB SXM")
V5E, V6E = rl.get_chip("TPU v5e"), rl.get_chip("TPU v6e")


def _ci(chip: rl.Chip, dtype: str = "bf16", level: str = "hbm") -> float:
    """Critical intensity straight from the catalog's two figures."""
    return chip.peak(dtype) / chip.bandwidth(level)


def _matmul_intensity(B: float, D: float, F: float) -> float:
    """bf16 matmul intensity with exact bytes: 2BDF / (2BD + 2DF + 2BF)."""
    return 2 * B * D * F / (2 * B * D + 2 * D * F + 2 * B * F)


def _fraction(intensity: float, chip: rl.Chip) -> float:
    """Best fraction of peak on the roofline: min(1, I / I*)."""
    return min(1.0, intensity / _ci(chip))


def _tiled_intensity(size: int, tile: int) -> float:
    """A size³ bf16 matmul with tile³ tiles, every tile pair re-read from HBM, output written once."""
    tiles = (size // tile) ** 3
    read = tiles * 2 * (tile * tile * 2)
    return 2 * size**3 / (read + size * size * 2)


def _intro() -> dict[str, str]:
    return {
        "h100_peak": q(989.5e12, "FLOP/s", 4),
        "small_fraction": pct(_fraction(_matmul_intensity(64, 8192, 8192), H100)),
        "large_fraction": pct(_fraction(_matmul_intensity(4096, 8192, 8192), H100)),
        "h100_critical": n(_ci(H100)),
    }


def _where_the_time_goes() -> dict[str, str]:
    weights = 8192 * 8192 * 2
    return {
        "h100_peak": q(989.5e12, "FLOP/s", 4),
        "h100_sparse_tflops": n(1979, 4),
        "t_h100": q(1e12 / H100.peak("bf16"), "s"),
        "t_v6e": q(1e12 / V6E.peak("bf16"), "s"),
        "w_bytes": q(weights, "B"),
        "t_w_h100": q(weights / H100.bandwidth("hbm"), "s"),
        "t_w_v5e": q(weights / V5E.bandwidth("hbm"), "s"),
        "nvlink": q(450e9, "B/s"),
        "nvlink_bidir": q(900e9, "B/s"),
        "t_w_nvlink": q(weights / 450e9, "s"),
        "ici": q(400e9 / 4 / 2, "B/s"),
        "t_w_ici": q(weights / (400e9 / 8), "s"),
        "overlap_min": n(10),
        "serial_min": n(18),
        "v5e_critical": n(_ci(V5E)),
        "decode_fraction": pct(_fraction(_matmul_intensity(64, 8192, 8192), H100)),
        "mfu_unused": pct(0.7),
    }


def _arithmetic_intensity() -> dict[str, str]:
    square_time = 2 * 1024**3 / V5E.peak("bf16")  # compute-bound: 1024/3 > I*
    dot_time = 4 * 2**30 / V5E.bandwidth("hbm")  # memory-bound: reads dominate
    by_ci = sorted(rl.CATALOG.values(), key=_ci)
    relu_bytes = 2 * 2 * 4096 * 28672
    up_time = 2 * 4096 * 8192 * 28672 / H100.peak("bf16")
    return {
        "square_flops": n(2 * 1024**3),
        "square_time": q(square_time, "s"),
        "dot_time": q(dot_time, "s"),
        "slowdown": n(dot_time / square_time),
        "h100_ci": n(989.5e12 / 3.35e12),
        "v6e_ci": n(918e12 / 1638e9),
        "v5e_ci": n(197e12 / 819e9),
        "a100_ci": n(_ci(A100)),
        "h200_ci": n(_ci(H200)),
        "b200_ci": n(36e15 / 8 / 2 / 7.7e12),  # HGX page: dense bf16 per GPU / 7.7 TB/s per GPU
        "h100_vs_a100_compute": n(H100.peak("bf16") / A100.peak("bf16")),
        "h100_vs_a100_bw": n(H100.bandwidth("hbm") / A100.bandwidth("hbm")),
        "small_v5e_frac": pct(_fraction(_matmul_intensity(64, 8192, 8192), V5E)),
        "small_v6e_frac": pct(_fraction(_matmul_intensity(64, 8192, 8192), V6E)),
        "dot_intensity": n((2 * 4096 - 1) / (4 * 4096 + 2), 4),
        "dot_frac_v5e": pct((2 * 4096 - 1) / (4 * 4096 + 2) / _ci(V5E), 2),
        "min_ci": n(_ci(by_ci[0])),
        "min_ci_chip": by_ci[0].name,
        "max_ci": n(_ci(by_ci[-1])),
        "max_ci_chip": by_ci[-1].name,
        "relu_i": n(1 / 4),
        "layernorm_i": n(8 / 4),
        "softmax_i": n(5 / 4),
        "elementwise_max_i": n(8 / 4),
        "h100_fp32_ci": n(67e12 / 3.35e12),
        "up_time": q(up_time, "s"),
        "relu_time": q(relu_bytes / H100.bandwidth("hbm"), "s"),
        "relu_time_share": pct(relu_bytes / H100.bandwidth("hbm") / up_time),
    }


def _roofline_chart() -> dict[str, str]:
    i = _matmul_intensity(256, 8192, 8192)
    return {
        "h100_ci": n(_ci(H100)),
        "h200_ci": n(_ci(H200)),
        "smem_ci": n(_ci(H100, level="onchip")),
        "h100_smem_bw": q(132 * 128 * 1.83e9, "B/s"),
        "op_i": n(i),
        "op_h100_regime": "memory-bound",
        "op_h200_regime": "compute-bound",
        "op_h100_frac": pct(_fraction(i, H100)),
        "op_h100_t": q(2 * 256 * 8192 * 8192 / (i * H100.bandwidth("hbm")), "s"),
        "op_h200_t": q(2 * 256 * 8192 * 8192 / H200.peak("bf16"), "s"),
        "v5e_ci": n(_ci(V5E)),
    }


def _matmul() -> dict[str, str]:
    i256 = _matmul_intensity(256, 8192, 8192)
    return {
        "train_regime": "compute-bound",
        "decode_regime": "memory-bound",
        "decode_frac": pct(_fraction(_matmul_intensity(64, 8192, 8192), V5E)),
        "m_i": n(i256),
        "m_i_approx": n(256),
        "m_err": pct(256 / i256 - 1, 2),
        # B* is a threshold (compute-bound for B > B*), printed rounded down: 240.5 → "240"
        "v5e_bstar": format_batch(_ci(V5E)),
        "h100_bstar": format_batch(_ci(H100)),
        "v6e_bstar": format_batch(_ci(V6E)),
        "tokens": n(512 * 4096, 7),
        "per_replica": n(512 * 4096 // 128, 5),
        "tile_128": n(64),
        "tile_256": n(128),
        "tile_512": n(256),
        "rect_tile": n(128 * 256 / (128 + 256)),
        "big_i": n(8192 / 3, 4),
        "big_tiled_128": n(_tiled_intensity(8192, 128)),
        "vmem_mib": n(128),
        "mb_per_replica": n(2048 * 4096 // 16, 6),
        "mb_per_matmul": n(4096, 4),
        "mb_count": n(2048 // 16),
        "ffn_shard": n(28672 // 8, 4),
        "shard_i": n(_matmul_intensity(4096, 8192, 28672 / 8)),
        "shard_regime": "compute-bound",
        "small_per_replica": n(32 * 4096 // 16, 4),
    }


def _network() -> dict[str, str]:
    one_way_port = 400e9 / 4 / 2  # two TPU v5e chips share one ICI link
    mi300x = 1307.4e12  # dense bf16; Infinity Fabric 64 GB/s one way per link, one per peer
    return {
        "d_star": n(2 * V5E.peak("bf16") / one_way_port, 4),
        "d_star_doubled": n(2 * V5E.peak("bf16") / (2 * one_way_port), 4),
        "c_v5e": n(V5E.peak("bf16")),
        "ici_port": q(one_way_port, "B/s"),
        "ici_both_ways": q(2 * one_way_port, "B/s"),
        "ici_ring": q(2 * one_way_port, "B/s"),  # a ring of 3+ along one torus axis: 2 ports
        "mi_w_2": q(64e9, "B/s"),
        "mi_star_2": n(mi300x / 64e9, 4),  # φ = 1
        "mi_w_8": q(448e9, "B/s"),
        "mi_star_8": n(2 * 7 / 8 * mi300x / 448e9, 4),  # φ = 1.75
        "nv_star_8": n(2 * 7 / 8 * 989.5e12 / 450e9, 4),
        "net_i": n(8192 / 2, 4),
        "regime_catalog": "compute-bound",
        "nv_star": n(989.5e12 / 450e9, 4),
        "ib_star": n(989.5e12 / 50e9, 5),
        "allreduce_8": n(2 * 7 / 8 * 989.5e12 / 450e9, 4),
        "allreduce_factor_8": n(2 * 7 / 8),
        "hidden_2": n(4096, 4),
        "small_hidden_8": n(512),
        "small_hidden_2": n(2048, 4),
        "ib_shortfall": n(989.5e12 / 50e9 / 4096, 2),
        "ffn_8": n(3584, 4),
        "hidden_8": n(1024, 4),
    }


def _errata() -> dict[str, str]:
    """The sources' figures from their own rounded inputs, and the corrections from the catalog."""
    llama_6pt = 6 * 70e9 * 2048 * 4096  # 6PT of the guide's LLaMA-70B step
    return {
        "er_v5e_ci_src": n(1.97e14 / 8.2e11),
        "er_v5e_ci": n(197e12 / 819e9),
        "er_int8_ci_guide": n(3.94e14 / 8.2e11),
        "er_int8_b_guide": n(3.94e14 / 8.2e11 / 2),
        "er_p1_bw": q(8.1e11, "B/s"),
        "er_int8_ci_p1": n(3.94e14 / 8.1e11),
        "er_int8_b_p1": n(3.94e14 / 8.1e11 / 2),
        "er_nv_star_src": n(1e15 / 4.5e11, 4),
        "er_nv_star": n(989.5e12 / 450e9, 4),
        "er_ib_star_src": n(1e15 / 5e10, 5),
        "er_ib_star": n(989.5e12 / 50e9, 5),
        "er_mfu_unused": pct(0.7),
        "er_h100_ci_src": n(1e15 / 3.35e12, 4),
        "er_h100_ci_9_89": n(9.89e14 / 3.35e12),
        "er_h100_ci": n(989.5e12 / 3.35e12),
        "er_v6e_ci_src": n(9.1e14 / 1.6e12, 4),
        "er_v6e_ci": n(918e12 / 1638e9),
        "er_ici_src": q(45e9, "B/s"),
        "er_d_star_src": n(2 * 1.97e14 / 4.5e10, 5),
        "er_d_star": n(2 * 197e12 / (400e9 / 4 / 2), 4),
        "er_mfu_claimed": pct(0.49, 2),
        "er_mfu_real_dense": pct(llama_6pt / 7 / (512 * 990e12)),
        "er_mfu_t49": q(llama_6pt / (0.49 * 512 * 990e12), "s"),
        "er_e_ai_128": n(_matmul_intensity(128, 8192, 8192), 4),
        "er_e_ai_512": n(_matmul_intensity(512, 8192, 8192), 4),
        "er_e_ai_4096": n(_matmul_intensity(4096, 8192, 8192), 4),
    }


EXPECTED: dict[str, dict[str, str]] = {
    "book/intro": _intro(),
    "book/01_where_the_time_goes": _where_the_time_goes(),
    "book/02_arithmetic_intensity": _arithmetic_intensity(),
    "book/03_roofline_chart": _roofline_chart(),
    "book/04_matmul": _matmul(),
    "book/05_network": _network(),
    "book/12_errata_and_sources": _errata(),
}
"""Page → glue name → the text the page must show."""

ERRATA: dict[str, list[str]] = {
    "book/12_errata_and_sources": [
        "er_mfu_unused",
        "er_h100_ci_src",
        "er_h100_ci",
        "er_v6e_ci_src",
        "er_v6e_ci",
        "er_ici_src",
        "er_d_star_src",
        "er_d_star",
        "er_mfu_claimed",
        "er_mfu_real_dense",
        "er_e_ai_128",
        "er_e_ai_512",
        "er_e_ai_4096",
    ],
}
"""Every erratum is on the errata page; its boxes must show both the source's figure and the
corrected one (glue names)."""

ERRATUM_SOURCES: dict[str, tuple[str, list[str]]] = {
    # box label → (the source that prints the figure, what each box must show: glue names of the
    # source's figure and the correction, or the source's own words where it prints no number)
    "sec-errata-mfu-30": ("the guide", ["70% of the time", "er_mfu_unused"]),
    "sec-errata-slope": ("the guide", ["斜线变陡", "slope one"]),
    # the original printed 298 at 0819a7d but prints 295 at the pinned commit: the guide's alone
    "sec-errata-h100-ci": ("the guide", ["er_h100_ci_src", "er_h100_ci"]),
    "sec-errata-v6e-ci": ("the guide", ["~569", "er_v6e_ci"]),
    "sec-errata-ici": ("both", ["er_ici_src", "er_d_star_src", "er_d_star"]),
    "sec-errata-llama-mfu": ("the guide", ["er_mfu_claimed", "er_mfu_real_dense"]),
    "sec-errata-sweep": ("the guide", ["127.5", "er_e_ai_128", "3641", "er_e_ai_4096"]),
}
"""Each erratum box on the errata page, by label: the source it names, and what it must show."""

RECONCILIATION_PAIRS: list[tuple[str, str, tuple[str, ...]]] = [
    # (a source's rounded figure, the catalog's, the pages checked: () for every page but the
    # errata page). 240 is also the catalog's TPU v5e int8 critical batch (pages 6 and 10), so
    # 240/241 is checked where the bf16 critical intensity is taught.
    (
        n(1.97e14 / 8.2e11),
        n(197e12 / 819e9),
        ("book/02_arithmetic_intensity", "book/03_roofline_chart"),
    ),
    (n(2 * 1.97e14 / 4.5e10, 5), n(2 * 197e12 / 50e9, 4), ()),  # ICI, two chips: 8,755.6 / 7,880
    (n(1e15 / 3.35e12, 4), n(989.5e12 / 3.35e12), ()),  # H100 critical intensity: 298.5 / 295
    (n(9.1e14 / 1.6e12, 4), n(918e12 / 1638e9), ()),  # TPU v6e critical intensity: 568.8 / 560
    # H100 tensor-parallel shard, the guide's 1e15 FLOP/s over 450 and 50 GB/s vs the catalog's
    # 989.5e12 FLOP/s: NVLink 2,222 / 2,199, InfiniBand 20,000 / 19,790
    (n(1e15 / 4.5e11, 4), n(989.5e12 / 450e9, 4), ()),
    (n(1e15 / 5e10, 5), n(989.5e12 / 50e9, 5), ()),
    # the guide's LLaMA-70B step: its MFU (49 %) vs what its own figures give (99 %), as numbers
    (
        pct(0.49, 2).rstrip("%"),
        pct(6 * 70e9 * 2048 * 4096 / 7 / (512 * 990e12)).rstrip("%"),
        ("book/08_mfu",),
    ),
]
"""A source's rounded figure and the catalog's (or the course's own computation): only the errata
page may show both."""
