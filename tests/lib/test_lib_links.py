"""Every link in the catalog has one scope: one-way bytes/s per chip, in the pattern a ring
collective uses, built as (one link's one-way figure) × (links the chip drives at once with every
port in use); how many a group of N uses is in tests/lib/test_lib_topology.py."""

from __future__ import annotations

import pytest

import roofline_lib as rl
from roofline_lib import chapter
from roofline_lib.hardware import CATALOG, LINK_SCOPE, LINKS, Link

CATALOG_LINKS = sorted(
    {(f"{name}.{key}", link) for name, chip in CATALOG.items() for key, link in chip.links.items()}
    | {(f"LINKS.{key}", link) for key, link in LINKS.items()},
    key=lambda item: item[0],
)


@pytest.mark.parametrize(("where", "link"), CATALOG_LINKS, ids=[w for w, _ in CATALOG_LINKS])
def test_every_catalog_link_states_the_ring_scope(where, link):
    assert link.scope == LINK_SCOPE, where
    assert link.ports, f"{where}: say which ports the figure counts"
    assert LINK_SCOPE in link.basis, "the scope is shown with the figure's basis"


@pytest.mark.parametrize(("where", "link"), CATALOG_LINKS, ids=[w for w, _ in CATALOG_LINKS])
def test_every_link_figure_is_per_port_times_ports_used(where, link):
    assert isinstance(link.ports_used, int) and link.ports_used >= 1, where
    assert link.one_way_bytes_per_s == pytest.approx(
        link.per_port_one_way_bytes_per_s * link.ports_used
    )
    # ... and the citation shows that arithmetic, from the figure it quotes.
    note = link.citation.note
    assert f"{link.per_port_one_way_bytes_per_s / 1e9:g} GB/s" in note or (
        f"{link.per_port_one_way_bytes_per_s:.2g}".replace("+", "") in note
    ), f"{where}: the note does not show the per-port figure"
    assert str(link.ports_used) in note, f"{where}: the note does not show the port count"
    if link.citation.bidirectional_headline:
        assert "both directions" in note, where


@pytest.mark.parametrize(
    ("chip", "key", "per_port", "ports", "total"),
    [
        ("H100 SXM", "nvlink4", 25e9, 18, 450e9),
        ("A100 80GB SXM", "nvlink3", 25e9, 12, 300e9),
        ("B200", "nvlink5", 50e9, 18, 900e9),
        ("MI300X", "infinity_fabric", 64e9, 7, 448e9),
        ("H100 SXM", "ib_ndr", 50e9, 1, 50e9),
        ("TPU v4", "ici", 45e9, 2, 90e9),
        ("TPU v5e", "ici", 50e9, 2, 100e9),
        ("TPU v5p", "ici", 100e9, 2, 200e9),
        ("TPU v6e", "ici", 100e9, 2, 200e9),
    ],
)
def test_link_figures(chip, key, per_port, ports, total):
    link = rl.get_chip(chip).links[key]
    assert link.per_port_one_way_bytes_per_s == pytest.approx(per_port)
    assert link.ports_used == ports
    assert rl.get_chip(chip).bandwidth(key) == pytest.approx(total)


def test_mi300x_and_h100_shards_compare_per_gpu_at_the_same_n():
    """Eight GPUs use all seven Infinity Fabric links of an MI300X (448 GB/s), as an H100 uses all
    18 NVLinks: per GPU the MI300X then needs 1.3× the H100's shard (2,918 vs 2,199). Two GPUs
    share one link (64 GB/s): 20,428, 9.3× the H100's, whose NVLink goes through a switch."""
    mi300x, h100 = rl.get_chip("MI300X"), rl.get_chip("H100 SXM")
    nv = rl.critical_shard_dim(h100.peak("bf16"), h100.bandwidth("nvlink4", n_chips=8))
    mi_8 = rl.critical_shard_dim(mi300x.peak("bf16"), mi300x.bandwidth("infinity_fabric", 8))
    mi_2 = rl.critical_shard_dim(mi300x.peak("bf16"), mi300x.bandwidth("infinity_fabric", 2))
    assert mi_8 == pytest.approx(1307.4e12 / 448e9)  # ≈ 2,918 (the φ of N = 8 left out)
    assert mi_2 == pytest.approx(1307.4e12 / 64e9)  # ≈ 20,428
    assert round(mi_8) == 2918 and round(mi_2) == 20428 and round(nv) == 2199
    assert mi_8 / nv < 1.5 and mi_2 / nv > 9


def test_assumptions_are_recorded_where_no_source_states_them():
    fabric = rl.get_chip("MI300X").links["infinity_fabric"].citation
    assert "7" in fabric.assumed and "assumed" in fabric.basis
    v5p = rl.get_chip("TPU v5p").links["ici"].citation
    assert "6 neighbors" in v5p.note, "the 6 ports of a v5p are sourced, not assumed"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"per_port_one_way_bytes_per_s": 1e10}, "give both"),
        ({"ports_used": 2}, "give both"),
        ({"per_port_one_way_bytes_per_s": 1e10, "ports_used": 0}, "ports_used must be"),
        ({"per_port_one_way_bytes_per_s": 1e10, "ports_used": 2.0}, "ports_used must be"),
        ({"per_port_one_way_bytes_per_s": 1e10, "ports_used": True}, "ports_used must be"),
        ({"per_port_one_way_bytes_per_s": 1e10, "ports_used": 3}, r"per_port.*× ports_used"),
        ({"per_port_one_way_bytes_per_s": -1.0, "ports_used": 2}, "per_port_one_way_bytes_per_s"),
    ],
)
def test_inconsistent_links_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Link("mylink", "My link", 2e10, **kwargs)


def test_chapter_link_keeps_the_chapter_scope():
    ici = chapter.TPU_V5E_CHAPTER.links["ici"]
    assert ici.one_way_bytes_per_s == chapter.V5E_ICI_CHAPTER_BYTES_PER_S == 4.5e10
    assert ici.scope == chapter.CHAPTER_LINK_SCOPE != LINK_SCOPE


def test_the_chapters_two_chip_example_is_network_bound_on_the_chapters_chip():
    """The chapter: D = 8192 split over two TPU v5e is network-bound (D/2 = 4096 < C/W ≈ 4378);
    the threshold is D > 2C/W ≈ 8755. Computed from the chapter's chip, not the catalog's."""
    chip = chapter.TPU_V5E_CHAPTER
    split = rl.sharded_matmul(1024, 8192, 8192, n_chips=2)
    assert split.network_intensity == pytest.approx(4096)
    verdict = rl.analyze(split, chip, "ici")
    assert verdict.regime == "network-bound"
    assert chip.peak("bf16") / chip.bandwidth("ici") == pytest.approx(1.97e14 / 4.5e10)
    d_star = rl.critical_contracting_dim(chip.peak("bf16"), chip.bandwidth("ici"), n_chips=2)
    assert d_star == pytest.approx(8755.6, abs=0.1)
    assert rl.analyze(rl.sharded_matmul(1024, 8756 * 2, 8192, n_chips=2), chip, "ici").regime == (
        "compute-bound"
    )


@pytest.mark.parametrize(
    ("key", "links", "words"),
    [
        ("nvlink3", 12, "twelve third-generation NVLink connections"),
        ("nvlink4", 18, "18x NVIDIA NVLink"),
    ],
)
def test_nvlink_link_counts_quote_nvidia(key, links, words):
    """The A100's 12 and the H100's 18 NVLinks per GPU are NVIDIA's own counts, quoted."""
    link = rl.get_link(key)
    assert link.ports_used == links
    assert words in link.citation.note and not link.citation.assumed


def test_b200_nvlink_count_is_quoted_not_assumed():
    link = rl.get_chip("B200").links["nvlink5"]
    assert "18 NVLink 100" in link.citation.quote and link.ports_used == 18
    assert not link.citation.assumed, "NVIDIA's NVLink page states 18 links per Blackwell GPU"
