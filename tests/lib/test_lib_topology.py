"""A link's bandwidth depends on how many chips share the work: its topology says how many of
its ports a group of N chips drives at once.

Every expected number here is worked by hand from the vendors' figures:

* MI300X Infinity Fabric: 128 GB/s per link both ways → 64 GB/s one way; one link to each of 7
  peers (fully connected): N GPUs use N − 1 links, so 64 (N = 2), 192 (N = 4), 448 (N = 8).
* H100 NVLink 4: 900 GB/s both ways over 18 links to the NVSwitch → 450 GB/s one way at any N.
* TPU v5e ICI: 400 GB/s both ways over 4 ports → 50 GB/s one way per port; two chips share one
  link (50 GB/s), a ring of three or more along one torus axis drives its 2 ports (100 GB/s).
* InfiniBand NDR: one 400 Gb/s port per GPU → 50 GB/s one way at any N.
"""

from __future__ import annotations

import numpy as np
import pytest

import roofline_lib as rl
from roofline_lib.hardware import TOPOLOGIES, Link, Topology

GB = 1e9
MI300X_BF16 = 1307.4e12  # AMD's dense bf16 peak (2614.9 TFLOPS with sparsity ÷ 2)


@pytest.mark.parametrize(
    ("n_chips", "links", "one_way"), [(2, 1, 64 * GB), (4, 3, 192 * GB), (8, 7, 448 * GB)]
)
def test_mi300x_uses_one_infinity_fabric_link_per_peer(n_chips, links, one_way):
    fabric = rl.get_chip("MI300X").links["infinity_fabric"]
    assert fabric.topology is Topology.FULLY_CONNECTED
    assert fabric.ports_at(n_chips) == links
    assert fabric.one_way_bytes_per_s_at(n_chips) == pytest.approx(one_way)
    assert rl.get_chip("MI300X").bandwidth("infinity_fabric", n_chips) == pytest.approx(one_way)


def test_mi300x_stored_figure_is_the_eight_gpu_one():
    fabric = rl.get_chip("MI300X").links["infinity_fabric"]
    assert fabric.one_way_bytes_per_s == pytest.approx(448 * GB)
    assert "8" in fabric.citation.note and "64 GB/s for 2 GPUs" in fabric.citation.note


@pytest.mark.parametrize("n_chips", [2, 3, 4, 8, 64])
def test_h100_nvlink_is_switched_and_the_same_at_any_n(n_chips):
    nvlink = rl.get_chip("H100 SXM").links["nvlink4"]
    assert nvlink.topology is Topology.SWITCHED
    assert nvlink.ports_at(n_chips) == 18
    assert nvlink.one_way_bytes_per_s_at(n_chips) == pytest.approx(450 * GB)


@pytest.mark.parametrize(("n_chips", "ports", "one_way"), [(2, 1, 50 * GB), (4, 2, 100 * GB)])
def test_two_tpu_v5e_chips_share_one_ici_link(n_chips, ports, one_way):
    ici = rl.get_chip("TPU v5e").links["ici"]
    assert ici.topology is Topology.TORUS_AXIS
    assert ici.ports_at(n_chips) == ports
    assert ici.one_way_bytes_per_s_at(n_chips) == pytest.approx(one_way)


@pytest.mark.parametrize("n_chips", [2, 8, 256])
def test_infiniband_is_one_port_at_any_n(n_chips):
    ib = rl.get_chip("H100 SXM").links["ib_ndr"]
    assert ib.topology is Topology.SINGLE_PORT
    assert ib.ports_at(n_chips) == 1
    assert ib.one_way_bytes_per_s_at(n_chips) == pytest.approx(50 * GB)


def test_one_chip_sends_nothing_and_gets_the_two_chip_figure():
    """N = 1 sends no bytes (φ = 0); its bandwidth is the two-chip one, so times stay 0/W."""
    fabric = rl.get_chip("MI300X").links["infinity_fabric"]
    assert fabric.one_way_bytes_per_s_at(1) == fabric.one_way_bytes_per_s_at(2) == 64 * GB
    verdict = rl.analyze(rl.sharded_matmul(8, 64, 8, n_chips=1), "MI300X")
    assert verdict.t_comms_s == 0 and verdict.regime == "compute-bound"


def test_an_array_of_chip_counts_broadcasts():
    fabric = rl.get_chip("MI300X").links["infinity_fabric"]
    np.testing.assert_array_equal(fabric.ports_at([2, 4, 8, 16]), [1, 3, 7, 7])
    np.testing.assert_allclose(
        fabric.one_way_bytes_per_s_at(np.array([[2], [8]])), [[64 * GB], [448 * GB]]
    )


def test_every_catalog_link_has_a_topology_that_matches_its_hardware():
    expected = {
        "nvlink3": Topology.SWITCHED,
        "nvlink4": Topology.SWITCHED,
        "nvlink5": Topology.SWITCHED,
        "infinity_fabric": Topology.FULLY_CONNECTED,
        "ici": Topology.TORUS_AXIS,
        "ib_ndr": Topology.SINGLE_PORT,
        "ib_hdr": Topology.SINGLE_PORT,
        "pcie4": Topology.SINGLE_PORT,
        "pcie5": Topology.SINGLE_PORT,
    }
    for chip in rl.CATALOG.values():
        for key, link in chip.links.items():
            assert link.topology is expected[key], f"{chip.name}.{key}"
            # with every port in use, the N-figure is the stored one
            assert link.one_way_bytes_per_s_at(64) == pytest.approx(link.one_way_bytes_per_s)


def test_sharded_matmul_on_mi300x_is_timed_at_the_links_for_its_n():
    """B = F = 8,192 bf16. Two GPUs, D = 32,768: 2·B·(D/2)·F FLOPs at 1307.4 TFLOP/s against
    B·F·2 bytes (φ = 1) over the one 64 GB/s link they share: intensity D/2 = 16,384 <
    1307.4e12 / 64e9 = 20,428, network-bound (all seven links, 448 GB/s, would have said
    compute-bound: 16,384 > 2,918). Eight GPUs, D = 65,536: φ = 1.75 of B·F·2 bytes over seven
    links, 448 GB/s; intensity (D/8)/1.75 = 4,681 > 2,918, compute-bound."""
    B, F = 8192, 8192
    two = rl.analyze(rl.sharded_matmul(B, 32768, F, n_chips=2), "MI300X")
    assert two.bandwidth_bytes_per_s == pytest.approx(64 * GB)
    assert two.t_comms_s == pytest.approx(B * F * 2 / (64 * GB))
    assert two.t_math_s == pytest.approx(2 * B * (32768 / 2) * F / MI300X_BF16)
    assert two.critical_intensity == pytest.approx(MI300X_BF16 / (64 * GB))  # ≈ 20,428
    assert two.arithmetic_intensity == pytest.approx(16384)
    assert two.regime == "network-bound"
    eight = rl.analyze(rl.sharded_matmul(B, 65536, F, n_chips=8), "MI300X")
    assert eight.bandwidth_bytes_per_s == pytest.approx(448 * GB)
    assert eight.t_comms_s == pytest.approx(1.75 * B * F * 2 / (448 * GB))
    assert eight.arithmetic_intensity == pytest.approx(8192 / 1.75)
    assert eight.regime == "compute-bound"


def test_analyze_broadcasts_the_bandwidth_over_an_array_of_n():
    B, D, F = 1024, 8192 * 8, 8192
    verdict = rl.analyze(rl.sharded_matmul(B, D, F, n_chips=np.array([2, 4, 8])), "MI300X")
    np.testing.assert_allclose(verdict.bandwidth_bytes_per_s, [64 * GB, 192 * GB, 448 * GB])
    phi = np.array([1, 1.5, 1.75])
    np.testing.assert_allclose(verdict.t_comms_s, phi * B * F * 2 / np.array([64, 192, 448]) / GB)
    np.testing.assert_allclose(
        verdict.critical_intensity, MI300X_BF16 / np.array([64, 192, 448]) / GB
    )


def test_two_chip_critical_shard_on_mi300x_is_about_20400():
    chip = rl.get_chip("MI300X")
    shard = rl.critical_shard_dim(chip.peak("bf16"), chip.bandwidth("infinity_fabric", 2))
    assert shard == pytest.approx(MI300X_BF16 / (64 * GB))
    assert round(shard) == 20428


def test_two_tpu_v5e_chips_need_d_above_7880():
    v5e = rl.get_chip("TPU v5e")
    d = rl.critical_contracting_dim(v5e.peak("bf16"), v5e.bandwidth("ici", 2), n_chips=2)
    assert d == pytest.approx(2 * 197e12 / (50 * GB)) and round(d) == 7880


def test_a_user_link_given_only_its_total_keeps_it_at_every_n():
    link = Link("mylink", "My link", 2e11)
    assert link.topology is Topology.SWITCHED
    assert link.one_way_bytes_per_s_at(2) == link.one_way_bytes_per_s_at(16) == 2e11


def test_topology_may_be_given_as_its_string():
    link = Link("ring", "Ring", 2e10, per_port_one_way_bytes_per_s=1e10, ports_used=2,
                topology="torus_axis")  # fmt: skip
    assert link.topology is Topology.TORUS_AXIS and link.one_way_bytes_per_s_at(2) == 1e10
    assert set(TOPOLOGIES) == {"switched", "fully_connected", "torus_axis", "single_port"}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"topology": "mesh"}, r"topology must be one of 'switched', 'fully_connected'.*'mesh'"),
        ({"topology": "fully_connected"}, "give per_port_one_way_bytes_per_s and ports_used"),
        ({"topology": "torus_axis"}, "give per_port_one_way_bytes_per_s and ports_used"),
        (
            {"topology": "single_port", "per_port_one_way_bytes_per_s": 1e10, "ports_used": 2},
            "'single_port' needs ports_used = 1",
        ),
    ],
)
def test_bad_topologies_are_refused_naming_the_parameter(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Link("mylink", "My link", 2e10, **kwargs)


@pytest.mark.parametrize("bad", [0, -2, 2.5, float("nan"), [2, 0]])
def test_bad_chip_counts_are_refused_naming_n_chips(bad):
    fabric = rl.get_chip("MI300X").links["infinity_fabric"]
    with pytest.raises(ValueError, match="n_chips must be a positive integer"):
        fabric.one_way_bytes_per_s_at(bad)
    with pytest.raises(ValueError, match="n_chips"):
        rl.get_chip("MI300X").bandwidth("infinity_fabric", bad)


def test_a_memory_level_takes_no_chip_count():
    with pytest.raises(ValueError, match=r"n_chips applies to a link level.*'hbm'"):
        rl.get_chip("H100 SXM").bandwidth("hbm", n_chips=2)
    with pytest.raises(rl.UnknownNameError, match="allowed"):
        rl.get_chip("H100 SXM").bandwidth("nvlink9", n_chips=2)


def test_the_explorer_data_carries_what_the_javascript_needs_for_n():
    from roofline_lib.explorer_data import chip_data

    levels = {lv["key"]: lv for lv in chip_data(rl.get_chip("MI300X"))["levels"]}
    fabric = levels["infinity_fabric"]
    assert fabric["topology"] == "fully_connected"
    assert fabric["per_port_bytes_per_s"] == 64 * GB and fabric["ports_used"] == 7
    assert fabric["bytes_per_s"] == 448 * GB  # every port: the JavaScript scales it by N
    assert "topology" not in levels["hbm"]


def test_the_explorer_readout_states_n_and_the_bandwidth_at_n():
    from roofline_lib.explorer import evaluate, readout_rows

    reading = evaluate("TPU v5e", "bf16", "sharded_matmul", 1024, 8192, 8192)  # two chips
    rows = dict(readout_rows(reading))
    assert rows["ICI, one-way per chip at N = 2"] == "50 GB/s"
    assert reading.estimate.bandwidth_bytes_per_s == pytest.approx(50 * GB)


def test_problem_7_gives_one_w_per_link_because_its_links_do_not_depend_on_n():
    """Problem 7 (page 10, roofline_grader.checks.problem7) hands the student one W per link and
    asks for the critical D at each N of PROBLEM_7_CHIP_COUNTS: that is right only while its
    links are switched or single-port. A fully-connected or torus link there would need W(N)."""
    from roofline_lib import chapter

    chip = rl.get_chip(chapter.PROBLEM_7_CHIP)
    for key in (chapter.PROBLEM_7_NODE_LINK, chapter.PROBLEM_7_CLUSTER_LINK):
        link = chip.links[key]
        for n in chapter.PROBLEM_7_CHIP_COUNTS:
            assert link.one_way_bytes_per_s_at(n) == link.one_way_bytes_per_s, (key, n)
