"""The hardware catalog: every figure cited, dense not sparse, one-way not bidirectional."""

from __future__ import annotations

import pytest

import roofline_lib as rl
from roofline_lib.hardware import CATALOG, LINKS

REQUIRED_CHIPS = {
    "H100 SXM",
    "H200",
    "A100 80GB SXM",
    "B200",
    "MI300X",
    "TPU v4",
    "TPU v5e",
    "TPU v5p",
    "TPU v6e",
}
REQUIRED_LINKS = {"nvlink4", "ib_ndr", "pcie5"}


def test_catalog_has_the_required_chips_and_links():
    assert REQUIRED_CHIPS <= set(CATALOG)
    assert REQUIRED_LINKS <= set(LINKS)
    assert "ici" in rl.get_chip("TPU v5e").links


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_every_catalog_figure_has_a_source(name):
    chip = CATALOG[name]
    figures = list(chip.figures())
    assert figures
    for key, value, citation in figures:
        assert value > 0, key
        assert citation is not None, f"{name}: {key} has no source"
        assert citation.title and citation.url.startswith("https://"), key
        assert citation.quote, f"{name}: {key} does not quote the source"
        if citation.sparse_headline or citation.bidirectional_headline or citation.derived:
            assert citation.note, f"{name}: {key} changes the printed figure but does not say how"


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_every_chip_has_bf16_and_hbm(name):
    chip = CATALOG[name]
    assert chip.peak("bf16") > 1e14
    assert chip.bandwidth("hbm") > 5e11


def test_h100_dense_bf16_is_989_tflops_never_the_sparse_1979():
    h100 = rl.get_chip("H100 SXM")
    assert h100.peak("bf16") == pytest.approx(989.5e12)
    assert h100.citations["peak_flops_per_s.bf16"].sparse_headline
    assert "1,979" in h100.citations["peak_flops_per_s.bf16"].quote
    for chip in CATALOG.values():
        assert chip.peak("bf16") < 3e15, "no catalog chip reaches 3 PFLOP/s dense bf16"


def test_sparse_headlines_were_halved():
    h100 = rl.get_chip("H100 SXM")
    for dtype in ("tf32", "bf16", "fp16", "fp8", "int8"):
        citation = h100.citations[f"peak_flops_per_s.{dtype}"]
        assert citation.sparse_headline
        printed = float(citation.quote.split(":")[1].split()[0].replace(",", "")) * 1e12
        assert h100.peak(dtype) == pytest.approx(printed / 2)


def test_link_figures_are_one_way():
    nvlink = rl.get_link("nvlink4")
    assert nvlink.one_way_bytes_per_s == pytest.approx(450e9)
    assert nvlink.citation.bidirectional_headline and "900" in nvlink.citation.quote
    assert rl.get_link("ib_ndr").one_way_bytes_per_s == pytest.approx(50e9)
    assert rl.get_link("pcie5").one_way_bytes_per_s == pytest.approx(64e9)
    # TPU v5e: Google's 400 GB/s both ways over 4 ports is 50 GB/s one-way per port; a ring
    # along one torus axis drives two of them.
    ici = rl.get_chip("TPU v5e").links["ici"]
    assert ici.per_port_one_way_bytes_per_s == pytest.approx(50e9)
    assert rl.get_chip("TPU v5e").bandwidth("ici") == pytest.approx(100e9)


def test_b200_has_fp4_fp6_and_fp64_dense_and_the_current_hbm_figure():
    b200 = rl.get_chip("B200")
    assert b200.peak("fp4") == pytest.approx(9e15)  # 144 PFLOPS sparse / 8 GPUs / 2
    assert b200.peak("fp6") == pytest.approx(4.5e15)
    assert b200.peak("fp8") == pytest.approx(4.5e15)
    assert b200.peak("fp64") == pytest.approx(37e12)
    for dtype in ("fp4", "fp6", "fp8", "bf16"):
        assert b200.citations[f"peak_flops_per_s.{dtype}"].sparse_headline, dtype
    assert not b200.citations["peak_flops_per_s.fp64"].sparse_headline
    assert b200.bandwidth("hbm") == pytest.approx(7.7e12)
    hbm = b200.citations["hbm_bandwidth_bytes_per_s"]
    assert "7.7TB/s" in hbm.quote and "64 TB/s" in hbm.note, "say which figure is kept and why"
    # fp4 halves the bytes of an fp8 operand and doubles the rate: the critical batch of a
    # fp4 × fp4 matmul is the fp8 one.
    assert rl.critical_intensity(b200, "fp4") == pytest.approx(
        2 * rl.critical_intensity(b200, "fp8")
    )


def test_tpu_v5p_fp8_is_published_at_the_bf16_rate():
    v5p = rl.get_chip("TPU v5p")
    assert v5p.peak("fp8") == pytest.approx(459e12) == v5p.peak("bf16")
    assert "FP8" in v5p.citations["peak_flops_per_s.fp8"].quote
    # A chip without a published figure says so and lists what it has.
    with pytest.raises(KeyError, match=r"TPU v5p has no published peak for dtype 'fp4'.*'fp8'"):
        v5p.peak("fp4")


def test_lookup_by_alias_and_by_chip():
    h100 = rl.get_chip("H100 SXM")
    assert rl.get_chip("h100") is h100
    assert rl.get_chip("v5e") is rl.get_chip("TPU v5e")
    assert rl.get_chip(h100) is h100


def test_unknown_chip_lists_the_known_ones():
    with pytest.raises(KeyError) as info:
        rl.get_chip("H1000")
    message = str(info.value)
    assert "H1000" in message
    for name in REQUIRED_CHIPS:
        assert name in message
    # the same error is a ValueError too
    with pytest.raises(ValueError):
        rl.get_chip("nope")


def test_unknown_link_and_level_list_the_allowed_ones():
    with pytest.raises(KeyError, match="nvlink4"):
        rl.get_link("nvlink9")
    with pytest.raises(KeyError, match=r"'hbm', 'onchip', 'nvlink4', 'ib_ndr', 'pcie5'"):
        rl.get_chip("H100 SXM").bandwidth("l2")
    with pytest.raises(KeyError, match="'bf16', 'int8'"):
        rl.get_chip("TPU v5e").peak("fp8")


def test_users_can_define_their_own_chip():
    chip = rl.Chip(
        name="My NPU",
        peak_flops_per_s={"bf16": 4e14, "int8": 8e14},
        hbm_bandwidth_bytes_per_s=1e12,
        links={"mylink": rl.Link("mylink", "My link", 1e11)},
    )
    assert rl.critical_intensity(chip) == pytest.approx(400)
    assert rl.critical_intensity(chip, "bf16", "mylink") == pytest.approx(4000)
    assert rl.analyze(rl.matmul(1000, 8192, 8192), chip).regime == "compute-bound"
    assert chip.levels == ("hbm", "mylink")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"peak_flops_per_s": {}}, "at least one dtype"),
        ({"peak_flops_per_s": {"bf17": 1e14}}, "unknown dtype 'bf17'"),
        ({"peak_flops_per_s": {"bf16": -1}}, "peak_flops_per_s"),
        ({"hbm_bandwidth_bytes_per_s": 0}, "hbm_bandwidth_bytes_per_s must be a positive"),
        ({"hbm_bandwidth_bytes_per_s": float("nan")}, "hbm_bandwidth_bytes_per_s"),
        ({"name": ""}, "name must be a non-empty string"),
    ],
)
def test_bad_user_chips_are_refused(kwargs, message):
    base = {"name": "x", "peak_flops_per_s": {"bf16": 1e14}, "hbm_bandwidth_bytes_per_s": 1e12}
    with pytest.raises(ValueError, match=message):
        rl.Chip(**{**base, **kwargs})


def test_catalog_chips_are_immutable():
    chip = rl.get_chip("H100 SXM")
    with pytest.raises(AttributeError):
        chip.hbm_bandwidth_bytes_per_s = 1.0  # type: ignore[misc]
    with pytest.raises(TypeError):
        chip.peak_flops_per_s["bf16"] = 1.0  # type: ignore[index]


def test_chapter_chips_keep_citations_only_for_unchanged_figures():
    from roofline_lib.chapter import H100_CHAPTER

    assert "peak_flops_per_s.bf16" not in H100_CHAPTER.citations
    assert "hbm_bandwidth_bytes_per_s" not in H100_CHAPTER.citations
    assert H100_CHAPTER.links["nvlink4"].citation is not None


def test_sub_byte_dtypes_count_fractional_bytes():
    assert rl.bytes_per_element("fp4") == 0.5 == rl.bytes_per_element("int4")
    assert rl.bytes_per_element("fp6") == 0.75
    from roofline_lib.costs import MatmulDtypes

    fp4 = MatmulDtypes("fp4", "fp4", "bf16")
    assert fp4.compute == "fp4"
    cost = rl.matmul(3, 5, 7, fp4)  # odd sizes: half bytes must not be rounded away
    assert cost.bytes_read == pytest.approx(3 * 5 * 0.5 + 5 * 7 * 0.5)
    assert cost.bytes_written == pytest.approx(3 * 7 * 2)
    assert cost.flops == 2 * 3 * 5 * 7
    # fp4 weights with bf16 activations compute at the bf16 rate and read a quarter of the
    # weight bytes: the small-batch intensity is 4B (2B / 0.5).
    w4 = MatmulDtypes("bf16", "fp4", "bf16")
    assert w4.compute == "bf16"
    assert rl.matmul_small_batch(64, 8192, 8192, w4).arithmetic_intensity == pytest.approx(256)
    verdict = rl.analyze(rl.matmul(4096, 8192, 8192, fp4), "B200")
    assert verdict.regime == "compute-bound"
    assert verdict.t_math_s == pytest.approx(2 * 4096 * 8192 * 8192 / 9e15)
    assert rl.sharded_matmul(
        64, 8192, 8192, n_chips=2, dtypes=fp4
    ).network_bytes_per_chip == pytest.approx(64 * 8192 * 2)
