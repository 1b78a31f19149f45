"""One place per chip: the recipe in CONTRIBUTING.md ("How to add a chip") works as written.

A chip is one :class:`Chip` value in ``catalog.CHIPS``; lookup by name and alias is derived by
``catalog_of``; every citation says when its quote was last checked; a chip names the link a
network cost is timed on.
"""

from __future__ import annotations

from datetime import date, timedelta

import pytest

import roofline_lib as rl
from roofline_lib import explorer, published
from roofline_lib.hardware import (
    CATALOG,
    CHIPS,
    LINK_SCOPE,
    LINKS,
    Chip,
    Citation,
    Link,
    alias_key,
    catalog,
    catalog_of,
    get_chip,
)

TODAY = date.today().isoformat()

# Every alias the hand-typed table accepted before aliases were derived; each must still work.
ALIASES_BEFORE = {
    "h100": "H100 SXM",
    "h100-sxm": "H100 SXM",
    "h100 sxm": "H100 SXM",
    "h200": "H200",
    "a100": "A100 80GB SXM",
    "a100-80gb": "A100 80GB SXM",
    "b200": "B200",
    "mi300x": "MI300X",
    "tpu-v4": "TPU v4",
    "tpu v4": "TPU v4",
    "v4": "TPU v4",
    "tpu-v5e": "TPU v5e",
    "tpu v5e": "TPU v5e",
    "v5e": "TPU v5e",
    "tpu-v5p": "TPU v5p",
    "tpu v5p": "TPU v5p",
    "v5p": "TPU v5p",
    "tpu-v6e": "TPU v6e",
    "tpu v6e": "TPU v6e",
    "v6e": "TPU v6e",
}


def _cite(quote: str, verified: str = "2026-01-15") -> Citation:
    return Citation(
        title="Demo NPU datasheet", url="https://example.com/npu", quote=quote, verified=verified
    )


def demo_chip(name: str = "Demo NPU 2", aliases: tuple[str, ...] = ("dnpu",)) -> Chip:
    """A chip written the way CONTRIBUTING.md says: dense figures, one-way links, a citation each."""
    fast = Link(
        "demolink",
        "DemoLink",
        4 * 100e9,
        LINK_SCOPE,
        _cite("DemoLink: 800 GB/s bidirectional, 4 links per chip"),
        "per chip, all 4 DemoLinks together",
        100e9,
        4,
    )
    host = Link("pcie5", "PCIe Gen5 x16", 64e9, LINK_SCOPE, _cite("PCIe: 128GB/s"))
    return Chip(
        name=name,
        aliases=aliases,
        vendor="Demo",
        peak_flops_per_s={"bf16": 500e12},
        hbm_bandwidth_bytes_per_s=2e12,
        links={"pcie5": host, "demolink": fast},  # host link first: order must not matter
        default_link="demolink",
        citations={
            "peak_flops_per_s.bf16": _cite("BF16: 1,000 TFLOPS* (*with sparsity)"),
            "hbm_bandwidth_bytes_per_s": _cite("Memory bandwidth: 2 TB/s"),
        },
    )


# -- one edit: CATALOG and the aliases are derived from CHIPS -----------------------------------


def test_catalog_is_the_chips_tuple_by_name():
    assert tuple(CATALOG.values()) == CHIPS
    assert rl.chip_names() == tuple(chip.name for chip in CHIPS)
    assert tuple(rl.CATALOG) == rl.chip_names()


@pytest.mark.parametrize(("alias", "name"), sorted(ALIASES_BEFORE.items()))
def test_every_alias_that_worked_before_still_finds_its_chip(alias, name):
    assert get_chip(alias) is CATALOG[name]
    assert get_chip(alias.upper()) is CATALOG[name]


@pytest.mark.parametrize("chip", CHIPS, ids=lambda c: c.name)
def test_a_name_is_found_whatever_its_case_spaces_or_hyphens(chip):
    name = chip.name
    spellings = (name.lower(), name.upper(), name.replace(" ", "-"), name.replace(" ", "_"))
    for spelling in (*spellings, name.replace(" ", ""), f"  {name}  "):
        assert get_chip(spelling) is chip, spelling


def test_the_spellings_the_recipe_promises():
    h100 = CATALOG["H100 SXM"]
    for spelling in ("h100 sxm", "H100-SXM", "h100sxm", "H100", "H100_SXM"):
        assert get_chip(spelling) is h100
    assert alias_key("H100-SXM") == alias_key("h100 sxm") == "h100sxm"


def test_an_unknown_chip_lists_the_known_names():
    with pytest.raises(KeyError, match="known chips: H100 SXM, H200"):
        get_chip("h100 pcie")


# -- the recipe, on a demo chip ------------------------------------------------------------------


def test_a_demo_chip_added_once_is_found_by_name_and_alias():
    demo = demo_chip()
    found = catalog_of((*CHIPS, demo))
    assert found.names() == (*rl.chip_names(), "Demo NPU 2")
    for spelling in ("Demo NPU 2", "demo-npu-2", "DEMONPU2", "dnpu", "D-NPU"):
        assert found.get(spelling) is demo, spelling
    assert found.get("v5e") is CATALOG["TPU v5e"]  # the catalog's own aliases still work
    assert found.get(demo) is demo


def test_the_demo_chip_works_with_the_library():
    demo = demo_chip()
    assert rl.critical_intensity(demo) == pytest.approx(250)
    sharded = rl.analyze(rl.sharded_matmul(1024, 8192, 8192, 2), demo)
    assert sharded.level == "demolink"
    assert sharded.bandwidth_bytes_per_s == pytest.approx(400e9)
    for key, value, citation in demo.figures():
        assert value > 0 and citation is not None and citation.verified, key


def test_a_duplicate_alias_is_refused_naming_both_chips():
    clash = demo_chip(name="Demo NPU 3", aliases=("v5e",))
    message = r"duplicate chip alias: 'v5e' of 'Demo NPU 3' already finds 'TPU v5e'"
    with pytest.raises(ValueError, match=message):
        catalog_of((*CHIPS, clash))


def test_a_name_that_differs_only_in_spelling_is_a_duplicate():
    with pytest.raises(ValueError, match=r"'h100-sxm' of 'h100-sxm' already finds 'H100 SXM'"):
        catalog_of((*CHIPS, demo_chip(name="h100-sxm", aliases=())))
    with pytest.raises(ValueError, match="two catalog chips are named 'Demo NPU 2'"):
        catalog_of((demo_chip(), demo_chip()))


def test_an_alias_the_name_already_gives_is_refused():
    with pytest.raises(ValueError, match="already finds itself"):
        catalog_of([demo_chip(aliases=("demo-npu 2",))])


def test_a_catalog_holds_only_chips():
    with pytest.raises(TypeError, match="Chip values"):
        catalog_of(["H100 SXM"])  # type: ignore[list-item]


def test_a_renamed_copy_does_not_keep_the_originals_aliases():
    copy = CATALOG["H100 SXM"].with_figures(name="H100 (rounded)", hbm_bandwidth_bytes_per_s=3e12)
    assert copy.aliases == ()
    assert catalog_of((*CHIPS, copy)).get("h100") is CATALOG["H100 SXM"]


# -- every citation says when it was last checked -------------------------------------------------


def _all_citations() -> list[tuple[str, Citation]]:
    cites = [(f"{chip.name}: {key}", c) for chip in CHIPS for key, _, c in chip.figures()]
    cites += [(f"link {key}", link.citation) for key, link in LINKS.items()]
    cites += [(f"published {r.model}", r.citation) for r in published.REPORTED_MFU]
    cites += [
        (f"achievable {k}", a.citation) for k, a in published.ACHIEVABLE_MATMUL_FRACTION.items()
    ]
    cites += [("VPU", published.TPU_V5P_VPU_CITATION)]
    cites += [("LLaMA-2-70B", published.LLAMA2_70B_ATTENTION.citation)]
    return cites


def test_every_citation_says_when_its_quote_was_last_checked():
    cites = _all_citations()
    assert len(cites) > 60
    for what, citation in cites:
        assert citation is not None, what
        checked = date.fromisoformat(citation.verified)
        assert date(2024, 1, 1) <= checked <= date.today(), f"{what}: {citation.verified}"


@pytest.mark.parametrize(
    ("verified", "message"),
    [
        ("", "ISO date 'yyyy-mm-dd'"),
        ("1 Dec 2026", "ISO date 'yyyy-mm-dd'"),
        ("20261201", "ISO date 'yyyy-mm-dd'"),
        ("2026-13-01", "real date"),
        ("2026-02-30", "real date"),
        ((date.today() + timedelta(days=1)).isoformat(), "not be in the future"),
    ],
)
def test_a_citation_with_a_bad_verified_date_is_refused(verified, message):
    with pytest.raises(ValueError, match=message):
        _cite("anything", verified)


def test_a_citation_checked_today_is_accepted():
    assert _cite("anything", TODAY).verified == TODAY


def test_verified_is_required():
    with pytest.raises(TypeError, match="verified"):
        Citation(title="t", url="https://example.com", quote="q")  # type: ignore[call-arg]


# -- the default network link is named, not taken from dict order ---------------------------------


@pytest.mark.parametrize(
    ("name", "link"),
    [
        ("H100 SXM", "nvlink4"),
        ("H200", "nvlink4"),
        ("A100 80GB SXM", "nvlink3"),
        ("B200", "nvlink5"),
        ("MI300X", "infinity_fabric"),
        ("TPU v4", "ici"),
        ("TPU v5e", "ici"),
        ("TPU v5p", "ici"),
        ("TPU v6e", "ici"),
    ],
)
def test_each_catalog_chip_times_network_costs_on_its_fastest_link(name, link):
    chip = CATALOG[name]
    assert chip.default_link == link
    fastest = max(chip.links.values(), key=lambda lk: lk.one_way_bytes_per_s)
    assert chip.bandwidth(link) == fastest.one_way_bytes_per_s


def test_analyze_and_the_explorer_use_the_default_link_not_the_first():
    demo = demo_chip()
    assert next(iter(demo.links)) == "pcie5"  # the first link is the slow one
    estimate = rl.analyze(rl.sharded_matmul(256, 8192, 8192, 2), demo)
    assert estimate.level == "demolink"
    reading = explorer.evaluate(demo, "bf16", "sharded_matmul", 256, 8192, 8192)
    assert reading.estimate.level == "demolink"
    assert rl.analyze(rl.sharded_matmul(256, 8192, 8192, 2), demo, "pcie5").level == "pcie5"


def test_a_chip_with_one_link_defaults_to_it_and_one_with_none_has_no_default():
    one = rl.Chip(
        name="One-link NPU",
        peak_flops_per_s={"bf16": 4e14},
        hbm_bandwidth_bytes_per_s=1e12,
        links={"mylink": rl.Link("mylink", "My link", 1e11)},
    )
    assert one.default_link == "mylink"
    bare = rl.Chip(name="No links", peak_flops_per_s={"bf16": 4e14}, hbm_bandwidth_bytes_per_s=1e12)
    assert bare.default_link is None
    with pytest.raises(ValueError, match="no network link"):
        explorer.evaluate(bare, "bf16", "sharded_matmul")


def test_a_chip_with_two_links_must_name_its_default():
    demo = demo_chip()
    with pytest.raises(ValueError, match=r"has 2 links \('pcie5', 'demolink'\): name the one"):
        Chip(
            name="Undecided",
            peak_flops_per_s={"bf16": 1e14},
            hbm_bandwidth_bytes_per_s=1e12,
            links=demo.links,
        )


def test_a_default_link_must_be_one_of_the_chips_links():
    message = r"default_link must be one of its links; allowed: 'pcie5', 'demolink', got 'nvlink4'"
    with pytest.raises(ValueError, match=message):
        Chip(
            name="Wrong default",
            peak_flops_per_s={"bf16": 1e14},
            hbm_bandwidth_bytes_per_s=1e12,
            links=demo_chip().links,
            default_link="nvlink4",
        )
    with pytest.raises(ValueError, match="the chip has no links"):
        Chip(
            name="No links",
            peak_flops_per_s={"bf16": 1e14},
            hbm_bandwidth_bytes_per_s=1e12,
            default_link="ici",
        )


def test_the_catalog_module_holds_every_chip_once():
    chips = [v for v in vars(catalog).values() if isinstance(v, Chip)]
    assert sorted(c.name for c in chips) == sorted(CATALOG)
