"""The catalog's data: every chip and link the course uses, each figure with its source.

Adding a chip is one edit: define its :class:`~roofline_lib.hardware.types.Chip` here (with a
:class:`~roofline_lib.hardware.types.Citation` per figure) and put it in :data:`CHIPS`; lookup by
name and alias is derived (:mod:`roofline_lib.hardware.lookup`). CONTRIBUTING.md walks through it;
the conventions every figure follows are in :mod:`roofline_lib.hardware`.
"""

from __future__ import annotations

from ..words import say_later
from .types import LINK_SCOPE, Chip, Citation, Link, Source, Topology

# --------------------------------------------------------------------------------------------
# Sources
# --------------------------------------------------------------------------------------------

GiB = 2.0**30
KiB = 2.0**10
GB = 1e9
TB = 1e12
T = 1e12  # tera-


def _cite(title: str, url: str) -> Source:
    return Source(title=title, url=url)


_H100_DS = _cite(
    "NVIDIA H100 Tensor Core GPU Datasheet", "https://www.nvidia.com/en-us/data-center/h100/"
)
_H100_WP = _cite(
    "NVIDIA H100 Tensor Core GPU Architecture (whitepaper)",
    "https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper",
)
_CUDA_GUIDE = _cite(
    "CUDA C++ Programming Guide: shared memory (32 banks of 4 bytes per clock)",
    "https://docs.nvidia.com/cuda/cuda-c-programming-guide/",
)
_H200_DS = _cite(
    "NVIDIA H200 Tensor Core GPU Datasheet", "https://www.nvidia.com/en-us/data-center/h200/"
)
_A100_DS = _cite(
    "NVIDIA A100 Tensor Core GPU Datasheet",
    "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf",
)
_A100_WP = _cite(
    "NVIDIA A100 Tensor Core GPU Architecture (whitepaper)",
    "https://images.nvidia.com/aem-dam/en-zz/Solutions/data-center/nvidia-ampere-architecture-whitepaper.pdf",
)
_NVLINK_PAGE = _cite(
    "NVIDIA NVLink and NVLink Switch (per-GPU link counts of each generation)",
    "https://www.nvidia.com/en-us/data-center/nvlink/",
)
_HGX = _cite(
    "NVIDIA HGX Platform: HGX B200 specifications", "https://www.nvidia.com/en-us/data-center/hgx/"
)
_DGX_B200 = _cite("NVIDIA DGX B200 Datasheet", "https://www.nvidia.com/en-us/data-center/dgx-b200/")
_DGX_H100 = _cite(
    "NVIDIA DGX H100 User Guide: Introduction to the NVIDIA DGX H100 System",
    "https://docs.nvidia.com/dgx/dgxh100-user-guide/introduction-to-dgxh100.html",
)
_DGX_A100 = _cite(
    "NVIDIA DGX A100 User Guide: Introduction to the NVIDIA DGX A100 System",
    "https://docs.nvidia.com/dgx/dgxa100-user-guide/introduction-to-dgxa100.html",
)
_MI300X_DS = _cite(
    "AMD Instinct MI300X Accelerator Data Sheet",
    "https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/amd-instinct-mi300x-data-sheet.pdf",
)
_TPU_V4 = _cite("Cloud TPU documentation: TPU v4", "https://cloud.google.com/tpu/docs/v4")
_TPU_V5E = _cite("Cloud TPU documentation: TPU v5e", "https://cloud.google.com/tpu/docs/v5e")
_TPU_V5P = _cite("Cloud TPU documentation: TPU v5p", "https://cloud.google.com/tpu/docs/v5p")
_TPU_V5P_BLOG = _cite(
    "Google Cloud blog: Introducing Cloud TPU v5p and AI Hypercomputer",
    "https://cloud.google.com/blog/products/ai-machine-learning/introducing-cloud-tpu-v5p-and-ai-hypercomputer",
)
_TPU_V6E = _cite("Cloud TPU documentation: TPU v6e", "https://cloud.google.com/tpu/docs/v6e")
_SCALING_BOOK_TPU = _cite(
    "How to Scale Your Model, Part 2: How to Think About TPUs",
    "https://jax-ml.github.io/scaling-book/tpus/",
)


def _sparse(src: Source, quote: str, note: str = "", *, verified: str) -> Citation:
    return Citation(
        **src,
        quote=quote,
        verified=verified,
        sparse_headline=True,
        note=note or "dense = headline ÷ 2",
    )


def _printed(src: Source, quote: str, note: str = "", *, verified: str) -> Citation:
    return Citation(**src, quote=quote, verified=verified, note=note)


def _derived(src: Source, quote: str, note: str, *, verified: str) -> Citation:
    return Citation(**src, quote=quote, verified=verified, derived=True, note=note)


# --------------------------------------------------------------------------------------------
# Links
# --------------------------------------------------------------------------------------------


def _link(
    key: str,
    name: str,
    per_port_one_way_bytes_per_s: float,
    ports_used: int,
    ports: str,
    citation: Citation,
    topology: Topology,
) -> Link:
    """A catalog link in :data:`LINK_SCOPE`: ``per_port_one_way_bytes_per_s × ports_used`` with
    every port in use, and the ``topology`` that says how many ports a group of N uses."""
    return Link(
        key,
        name,
        per_port_one_way_bytes_per_s * ports_used,
        LINK_SCOPE,
        citation,
        ports,
        per_port_one_way_bytes_per_s,
        ports_used,
        topology,
    )


NVLINK3 = _link(
    "nvlink3",
    "NVLink 3",
    25 * GB,
    12,
    "per A100 GPU, all 12 NVLink 3 links to the NVSwitch fabric together",
    Citation(
        **_A100_DS,
        quote="NVLink: 600GB/s",
        bidirectional_headline=True,
        note="600 GB/s counts both directions of all 12 links: 25 GB/s one-way per link × 12 = "
        "300 GB/s. The count of 12 is NVIDIA's (the A100 whitepaper, and the NVLink page: 'A "
        "single NVIDIA A100 Tensor Core GPU supports up to twelve third-generation NVLink "
        "connections for a total bandwidth of 600 GB/s')",
        verified="2026-12-01",
    ),
    Topology.SWITCHED,
)
NVLINK4 = _link(
    "nvlink4",
    "NVLink 4",
    25 * GB,
    18,
    say_later("per H100/H200 GPU, all 18 links to the NVSwitch fabric together"),  # page 5
    Citation(
        **_H100_DS,
        quote="NVLink: 900GB/s",
        bidirectional_headline=True,
        note="900 GB/s counts both directions of all 18 links: 25 GB/s one-way per link × 18 = "
        "450 GB/s. The count of 18 is NVIDIA's (the H100 whitepaper: 18 fourth-generation "
        "NVLink links, 900 GB/s in total; the DGX H100 datasheet: '18x NVIDIA NVLink "
        "connections per GPU, 900GB/s of bidirectional GPU-to-GPU bandwidth')",
        verified="2026-12-01",
    ),
    Topology.SWITCHED,
)
NVLINK5 = _link(
    "nvlink5",
    "NVLink 5",
    50 * GB,
    18,
    "per B200 GPU, all 18 links to the NVSwitch fabric together",
    Citation(
        **_NVLINK_PAGE,
        quote="A single NVIDIA Blackwell Tensor Core GPU supports up to 18 NVLink 100 "
        "gigabyte-per-second (GB/s) connections for a total bandwidth of 1.8 terabytes per "
        "second (TB/s)",
        bidirectional_headline=True,
        note="100 GB/s per link and 1.8 TB/s in total count both directions: 50 GB/s one-way per "
        "link × 18 = 900 GB/s (NVIDIA's HGX page prints the same total: 'NVLink (fifth "
        "generation): 1.8TB/s GPU-to-GPU bandwidth')",
        verified="2026-12-01",
    ),
    Topology.SWITCHED,
)
IB_NDR = _link(
    "ib_ndr",
    "InfiniBand NDR",
    50 * GB,
    1,
    say_later("per GPU: one 400 Gb/s ConnectX-7 port per GPU, as in a DGX H100"),  # page 5
    Citation(
        **_DGX_H100,
        quote="8x single-port NVIDIA ConnectX-7 VPI, up to 400Gb/s InfiniBand/Ethernet",
        note="400 Gb/s per port is a per-direction (full-duplex) rate: 400/8 = 50 GB/s "
        "one-way × 1 port per GPU",
        verified="2026-12-01",
    ),
    Topology.SINGLE_PORT,
)
IB_HDR = _link(
    "ib_hdr",
    "InfiniBand HDR",
    25 * GB,
    1,
    "per GPU: one 200 Gb/s ConnectX-6 port per GPU, as in a DGX A100",
    Citation(
        **_DGX_A100,
        quote="8x single-port NVIDIA ConnectX-6 VPI, 200Gb/s HDR InfiniBand",
        note="200 Gb/s per port is a per-direction rate: 200/8 = 25 GB/s one-way × 1 port per GPU",
        verified="2026-12-01",
    ),
    Topology.SINGLE_PORT,
)
PCIE4 = _link(
    "pcie4",
    "PCIe Gen4 x16",
    32 * GB,
    1,
    "GPU to host, one x16 slot",
    Citation(
        **_A100_DS,
        quote="PCIe Gen4: 64GB/s",
        bidirectional_headline=True,
        note="64 GB/s counts both directions; one-way = 32 GB/s × 1 slot (31.5 GB/s after "
        "128b/130b encoding)",
        verified="2026-12-01",
    ),
    Topology.SINGLE_PORT,
)
PCIE5 = _link(
    "pcie5",
    "PCIe Gen5 x16",
    64 * GB,
    1,
    "GPU to host, one x16 slot",
    Citation(
        **_H100_DS,
        quote="PCIe Gen5: 128GB/s",
        bidirectional_headline=True,
        note="128 GB/s counts both directions; one-way = 64 GB/s × 1 slot (63.0 GB/s after "
        "128b/130b encoding)",
        verified="2026-12-01",
    ),
    Topology.SINGLE_PORT,
)
INFINITY_FABRIC = _link(
    "infinity_fabric",
    "AMD Infinity Fabric (xGMI)",
    64 * GB,
    7,
    "per MI300X GPU in an 8-GPU platform: one link to each of its 7 peers; a group of N GPUs "
    "uses the N − 1 links to the others",
    Citation(
        **_MI300X_DS,
        quote="Peak Infinity Fabric Link Bandwidth: 128 GB/s",
        bidirectional_headline=True,
        note="128 GB/s per link counts both directions: 64 GB/s one-way per link. The links are "
        "fully connected, one per peer, so a collective over N GPUs of one platform drives the "
        "N − 1 links to the others: 64 GB/s for 2 GPUs (one shared link), 3 × 64 = 192 GB/s "
        "for 4, and 64 GB/s × 7 links = 448 GB/s for all 8 (several rings at once, every "
        "peer link carrying traffic, as all 18 NVLinks do on an H100). The stored 448 GB/s is "
        "that 8-GPU figure",
        assumed="7 links per GPU, one to each peer: the 8-GPU MI300X platform connects every "
        "GPU directly to each of the other 7; the quoted data sheet gives the per-link figure "
        "only",
        verified="2026-12-01",
    ),
    Topology.FULLY_CONNECTED,
)


def _ici(
    src: Source,
    quote: str,
    ports: int,
    bidir_total_bytes_per_s: float,
    chip: str,
    ports_source: str = "",
    *,
    verified: str,
) -> Link:
    per_port = bidir_total_bytes_per_s / ports / 2
    return _link(
        "ici",
        "ICI",
        per_port,
        2,
        f"per {chip} chip: the 2 ICI ports along one torus axis (one to each ring neighbour), "
        "as a bidirectional ring of three or more uses them; two chips share one",
        Citation(
            **src,
            quote=quote,
            verified=verified,
            bidirectional_headline=True,
            derived=True,
            note=f"{bidir_total_bytes_per_s / GB:g} GB/s over {ports} ports, both directions: "
            f"{bidir_total_bytes_per_s / GB:g} / {ports} / 2 = {per_port / GB:g} GB/s one-way "
            f"per port; a ring of three or more along one axis drives 2 ports: "
            f"2 × {per_port / GB:g} = {2 * per_port / GB:g} GB/s (the scaling book's 'bidi' "
            f"per-axis figure, stored); two chips share one link: {per_port / GB:g} GB/s"
            + (f". {ports_source}" if ports_source else ""),
        ),
        Topology.TORUS_AXIS,
    )


ICI_V4 = _link(
    "ici",
    "ICI",
    45 * GB,
    2,
    "per TPU v4 chip: the 2 ICI ports along one torus axis (one to each ring neighbour), "
    "as a bidirectional ring of three or more uses them; two chips share one",
    Citation(
        **_SCALING_BOOK_TPU,
        quote="TPU v4p ICI BW/link: 4.5e10 bytes/s one-way (9e10 bidi)",
        note="4.5e10 one-way per link × 2 links along a ring axis of three or more = 9e10 "
        "bytes/s (stored); two chips share one link: 4.5e10 bytes/s. Cloud TPU v4 "
        "documentation gives no per-chip ICI figure",
        verified="2026-12-01",
    ),
    Topology.TORUS_AXIS,
)
ICI_V5E = _ici(
    _TPU_V5E,
    "Bidirectional inter-chip interconnect (ICI) bandwidth (per chip): 400 GBps; "
    "ICI ports per chip: 4",
    4,
    400 * GB,
    "TPU v5e",
    verified="2026-12-01",
)
ICI_V5P = _ici(
    _TPU_V5P,
    "Bidirectional inter-chip interconnect (ICI) bandwidth per chip (GBps): 1200; "
    "Interconnect topology: 3D torus",
    6,
    1200 * GB,
    "TPU v5p",
    "6 ports: How to Scale Your Model (Part 2, tpus.md at commit 0819a7d, 18 February 2025) "
    "says 'TPU v4 and TPU v5p are connected to the nearest 6 neighbors (forming a 3D torus)'. "
    "Its table gives 9e10 bytes/s one-way per v5p link (1.8e11 bidi), not the 1e11 of "
    "Google's 1200 / 6 / 2: its first version (commit 04d8de5, 2 February 2025) gave 1e11 "
    "one-way per link, and commit 7e97132 of 8 February 2025 changed the table to 9e10",
    verified="2026-12-01",
)
ICI_V6E = _ici(
    _TPU_V6E,
    "Bidirectional inter-chip interconnect (ICI) bandwidth (per chip): 800 GBps; "
    "ICI ports per chip: 4",
    4,
    800 * GB,
    "TPU v6e",
    verified="2026-12-01",
)

NETWORK_LINKS: tuple[Link, ...] = (
    NVLINK3,
    NVLINK4,
    NVLINK5,
    IB_HDR,
    IB_NDR,
    PCIE4,
    PCIE5,
    INFINITY_FABRIC,
)
"""The GPU interconnects, found by key with :func:`~roofline_lib.hardware.get_link`. TPU ICI
differs per generation; see each TPU chip's ``links``."""

# --------------------------------------------------------------------------------------------
# Chips
# --------------------------------------------------------------------------------------------

_H100_SMEM_NOTE = (
    "132 SMs × 228 KiB of shared memory per SM (the whitepaper: 'configurable up to 228 KB')"
)
_H100_SMEM_BW_NOTE = say_later(  # quoted by the book's prose (page 3), in each edition's words
    "no vendor figure; 132 SMs × 128 bytes/clock (32 banks × 4 bytes, CUDA guide) × 1.83 GHz "
    "(the boost clock behind the whitepaper's 989.4 TFLOPS dense bf16) = 30.9 TB/s"
)


def _hopper(
    name: str,
    ds: Source,
    hbm_bytes: float,
    hbm_quote: str,
    hbm_bw: float,
    bw_quote: str,
    aliases: tuple[str, ...] = (),
) -> Chip:
    return Chip(
        name=name,
        aliases=aliases,
        vendor="NVIDIA",
        peak_flops_per_s={
            "fp64": 67 * T,
            "fp32": 67 * T,
            "tf32": 989 * T / 2,
            "bf16": 1979 * T / 2,
            "fp16": 1979 * T / 2,
            "fp8": 3958 * T / 2,
            "int8": 3958 * T / 2,
        },
        hbm_capacity_bytes=hbm_bytes,
        hbm_bandwidth_bytes_per_s=hbm_bw,
        onchip_name="SMEM",
        onchip_capacity_bytes=132 * 228 * KiB,
        onchip_bandwidth_bytes_per_s=132 * 128 * 1.83e9,
        links={"nvlink4": NVLINK4, "ib_ndr": IB_NDR, "pcie5": PCIE5},
        default_link="nvlink4",
        citations={
            "peak_flops_per_s.fp64": _printed(
                ds, "FP64 Tensor Core: 67 teraFLOPS", "dense", verified="2026-12-01"
            ),
            "peak_flops_per_s.fp32": _printed(
                ds,
                "FP32: 67 teraFLOPS",
                "dense, CUDA cores (no tensor cores)",
                verified="2026-12-01",
            ),
            "peak_flops_per_s.tf32": _sparse(
                ds, "TF32 Tensor Core: 989 teraFLOPS* (*with sparsity)", verified="2026-12-01"
            ),
            "peak_flops_per_s.bf16": _sparse(
                ds,
                "BFLOAT16 Tensor Core: 1,979 teraFLOPS* (*with sparsity)",
                "dense = 1,979 ÷ 2 = 989.5 TFLOPS (the whitepaper prints 989.4)",
                verified="2026-12-01",
            ),
            "peak_flops_per_s.fp16": _sparse(
                ds, "FP16 Tensor Core: 1,979 teraFLOPS* (*with sparsity)", verified="2026-12-01"
            ),
            "peak_flops_per_s.fp8": _sparse(
                ds, "FP8 Tensor Core: 3,958 teraFLOPS* (*with sparsity)", verified="2026-12-01"
            ),
            "peak_flops_per_s.int8": _sparse(
                ds, "INT8 Tensor Core: 3,958 TOPS* (*with sparsity)", verified="2026-12-01"
            ),
            "hbm_capacity_bytes": _printed(ds, hbm_quote, verified="2026-12-01"),
            "hbm_bandwidth_bytes_per_s": _printed(ds, bw_quote, verified="2026-12-01"),
            "onchip_capacity_bytes": _derived(
                _H100_WP,
                "Shared Memory Size / SM: Configurable up to 228 KB",
                _H100_SMEM_NOTE,
                verified="2026-12-01",
            ),
            "onchip_bandwidth_bytes_per_s": _derived(
                _CUDA_GUIDE,
                "32 banks, 4 bytes each, per clock per SM",
                _H100_SMEM_BW_NOTE,
                verified="2026-12-01",
            ),
        },
    )


H100_SXM = _hopper(
    "H100 SXM",
    _H100_DS,
    80 * GB,
    "GPU Memory: 80GB",
    3.35 * TB,
    "GPU Memory Bandwidth: 3.35TB/s",
    aliases=("H100",),
)
H200 = _hopper(
    "H200", _H200_DS, 141 * GB, "GPU Memory: 141GB", 4.8 * TB, "GPU Memory Bandwidth: 4.8TB/s"
)

A100_80GB = Chip(
    name="A100 80GB SXM",
    aliases=("A100", "A100 80GB"),
    vendor="NVIDIA",
    peak_flops_per_s={
        "fp64": 19.5 * T,
        "fp32": 19.5 * T,
        "tf32": 156 * T,
        "bf16": 312 * T,
        "fp16": 312 * T,
        "int8": 624 * T,
    },
    hbm_capacity_bytes=80 * GB,
    hbm_bandwidth_bytes_per_s=2039 * GB,
    onchip_name="SMEM",
    onchip_capacity_bytes=108 * 164 * KiB,
    onchip_bandwidth_bytes_per_s=108 * 128 * 1.41e9,
    links={"nvlink3": NVLINK3, "ib_hdr": IB_HDR, "pcie4": PCIE4},
    default_link="nvlink3",
    citations={
        "peak_flops_per_s.fp64": _printed(
            _A100_DS, "FP64 Tensor Core: 19.5 TFLOPS", "dense", verified="2026-12-01"
        ),
        "peak_flops_per_s.fp32": _printed(
            _A100_DS, "FP32: 19.5 TFLOPS", "dense", verified="2026-12-01"
        ),
        "peak_flops_per_s.tf32": _printed(
            _A100_DS,
            "Tensor Float 32 (TF32): 156 TFLOPS | 312 TFLOPS*",
            "the dense figure is printed; * is with sparsity",
            verified="2026-12-01",
        ),
        "peak_flops_per_s.bf16": _printed(
            _A100_DS,
            "BFLOAT16 Tensor Core: 312 TFLOPS | 624 TFLOPS*",
            "the dense figure is printed; * is with sparsity",
            verified="2026-12-01",
        ),
        "peak_flops_per_s.fp16": _printed(
            _A100_DS,
            "FP16 Tensor Core: 312 TFLOPS | 624 TFLOPS*",
            "the dense figure is printed; * is with sparsity",
            verified="2026-12-01",
        ),
        "peak_flops_per_s.int8": _printed(
            _A100_DS,
            "INT8 Tensor Core: 624 TOPS | 1248 TOPS*",
            "the dense figure is printed; * is with sparsity",
            verified="2026-12-01",
        ),
        "hbm_capacity_bytes": _printed(_A100_DS, "GPU Memory: 80GB HBM2e", verified="2026-12-01"),
        "hbm_bandwidth_bytes_per_s": _printed(
            _A100_DS, "GPU Memory Bandwidth: 2,039GB/s (A100 80GB SXM)", verified="2026-12-01"
        ),
        "onchip_capacity_bytes": _derived(
            _A100_WP,
            "shared memory configurable up to 164 KB per SM",
            "108 SMs × 164 KiB",
            verified="2026-12-01",
        ),
        "onchip_bandwidth_bytes_per_s": _derived(
            _CUDA_GUIDE,
            "32 banks, 4 bytes each, per clock per SM",
            "no vendor figure; 108 SMs × 128 bytes/clock × 1.41 GHz boost clock = 19.5 TB/s",
            verified="2026-12-01",
        ),
    },
)

B200 = Chip(
    name="B200",
    vendor="NVIDIA",
    peak_flops_per_s={
        "fp64": 37 * T,
        "fp32": 600 * T / 8,
        "tf32": 2.2e15 / 2,
        "bf16": 36e15 / 8 / 2,
        "fp16": 36e15 / 8 / 2,
        "fp8": 72e15 / 8 / 2,
        "fp6": 72e15 / 8 / 2,
        "int8": 72e15 / 8 / 2,
        "fp4": 144e15 / 8 / 2,
    },
    hbm_capacity_bytes=1440 * GB / 8,
    hbm_bandwidth_bytes_per_s=7.7 * TB,
    links={"nvlink5": NVLINK5, "ib_ndr": IB_NDR},
    default_link="nvlink5",
    citations={
        "peak_flops_per_s.fp64": _printed(
            _HGX,
            "HGX B200, per GPU: FP64/FP64 Tensor Core 37 TFLOPS",
            "dense: NVIDIA prints no sparse FP64 figure",
            verified="2026-12-01",
        ),
        "peak_flops_per_s.fp32": _printed(
            _HGX,
            "HGX B200 (8 GPUs): FP32 600 TFLOPS",
            "dense; per GPU = 600 ÷ 8 = 75 TFLOPS",
            verified="2026-12-01",
        ),
        "peak_flops_per_s.tf32": _sparse(
            _HGX,
            "Individual Blackwell GPU Specifications, HGX B200: TF32 Tensor Core 2.2 PFLOPS* "
            "(*with sparsity)",
            "per GPU dense = 2.2 ÷ 2 = 1.1 PFLOPS, NVIDIA's per-GPU figure (the 8-GPU total, "
            "18 PFLOPS, ÷ 8 would give 2.25; NVIDIA prints 2.2 per GPU)",
            verified="2026-12-04",
        ),
        "peak_flops_per_s.bf16": _sparse(
            _HGX,
            "HGX B200 (8 GPUs): FP16/BF16 Tensor Core 36 PFLOPS* (*with sparsity)",
            "per GPU dense = 36 ÷ 8 ÷ 2 = 2.25 PFLOPS",
            verified="2026-12-01",
        ),
        "peak_flops_per_s.fp16": _sparse(
            _HGX,
            "HGX B200 (8 GPUs): FP16/BF16 Tensor Core 36 PFLOPS* (*with sparsity)",
            "per GPU dense = 36 ÷ 8 ÷ 2 = 2.25 PFLOPS",
            verified="2026-12-01",
        ),
        "peak_flops_per_s.fp8": _sparse(
            _HGX,
            "HGX B200 (8 GPUs): FP8/FP6 Tensor Core 72 PFLOPS* (*with sparsity)",
            "per GPU dense = 72 ÷ 8 ÷ 2 = 4.5 PFLOPS",
            verified="2026-12-01",
        ),
        "peak_flops_per_s.fp6": _sparse(
            _HGX,
            "HGX B200 (8 GPUs): FP8/FP6 Tensor Core 72 PFLOPS* (*with sparsity)",
            "per GPU dense = 72 ÷ 8 ÷ 2 = 4.5 PFLOPS (NVIDIA prints FP6 with FP8)",
            verified="2026-12-01",
        ),
        "peak_flops_per_s.int8": _sparse(
            _HGX,
            "HGX B200 (8 GPUs): INT8 Tensor Core 72 POPS* (*with sparsity)",
            "per GPU dense = 72 ÷ 8 ÷ 2 = 4.5 POPS",
            verified="2026-12-01",
        ),
        "peak_flops_per_s.fp4": _sparse(
            _HGX,
            "HGX B200 (8 GPUs): FP4 Tensor Core 144 PFLOPS* (*with sparsity); per GPU: 18 PFLOPS",
            "per GPU dense = 144 ÷ 8 ÷ 2 = 9 PFLOPS",
            verified="2026-12-01",
        ),
        "hbm_capacity_bytes": _printed(
            _DGX_B200,
            "GPU Memory: 1,440GB total (8 GPUs)",
            "per GPU = 180 GB",
            verified="2026-12-01",
        ),
        "hbm_bandwidth_bytes_per_s": _printed(
            _HGX,
            "HGX B200, per GPU: GPU Memory | Bandwidth 180GB HBM3E | 7.7TB/s "
            "(8 GPUs: up to 62TB/s)",
            "NVIDIA's current HGX page prints 7.7 TB/s per GPU (8 × 7.7 ≈ 62 TB/s in total); "
            "the older DGX B200 datasheet printed 64 TB/s for 8 GPUs (8 TB/s each). The catalog "
            "keeps 7.7 TB/s: it is the per-GPU figure NVIDIA prints now, for the same HGX board, "
            "and the smaller one, so no roofline built on it promises more than the part delivers",
            verified="2026-12-01",
        ),
    },
)

MI300X = Chip(
    name="MI300X",
    vendor="AMD",
    peak_flops_per_s={
        "fp64": 163.4 * T,
        "fp32": 163.4 * T,
        "tf32": 653.7 * T,
        "bf16": 1307.4 * T,
        "fp16": 1307.4 * T,
        "fp8": 2614.9 * T,
        "int8": 2614.9 * T,
    },
    hbm_capacity_bytes=192 * GB,
    hbm_bandwidth_bytes_per_s=5.3 * TB,
    links={"infinity_fabric": INFINITY_FABRIC, "pcie5": PCIE5},
    default_link="infinity_fabric",
    citations={
        "peak_flops_per_s.fp64": _printed(
            _MI300X_DS,
            "Peak Double Precision Matrix (FP64) Performance: 163.4 TFLOPs",
            verified="2026-12-01",
        ),
        "peak_flops_per_s.fp32": _printed(
            _MI300X_DS,
            "Peak Single Precision Matrix (FP32) Performance: 163.4 TFLOPs",
            verified="2026-12-01",
        ),
        "peak_flops_per_s.tf32": _printed(
            _MI300X_DS,
            "Peak TF32 Performance: 653.7 TFLOPs",
            "dense is printed; the sparse figure (1307.4) is listed separately",
            verified="2026-12-01",
        ),
        "peak_flops_per_s.bf16": _printed(
            _MI300X_DS,
            "Peak bfloat16: 1307.4 TFLOPs",
            "dense is printed; with structured sparsity: 2614.9",
            verified="2026-12-01",
        ),
        "peak_flops_per_s.fp16": _printed(
            _MI300X_DS,
            "Peak Half Precision (FP16) Performance: 1307.4 TFLOPs",
            "dense is printed; with structured sparsity: 2614.9",
            verified="2026-12-01",
        ),
        "peak_flops_per_s.fp8": _printed(
            _MI300X_DS,
            "Peak Eight-bit Precision (FP8) Performance: 2614.9 TFLOPs",
            "dense is printed; with structured sparsity: 5229.8",
            verified="2026-12-01",
        ),
        "peak_flops_per_s.int8": _printed(
            _MI300X_DS,
            "Peak INT8 Performance: 2614.9 TOPs",
            "dense is printed; with structured sparsity: 5229.8",
            verified="2026-12-01",
        ),
        "hbm_capacity_bytes": _printed(
            _MI300X_DS, "Memory Capacity: 192 GB HBM3", verified="2026-12-01"
        ),
        "hbm_bandwidth_bytes_per_s": _printed(
            _MI300X_DS, "Peak Theoretical Memory Bandwidth: 5.3 TB/s", verified="2026-12-01"
        ),
    },
)

TPU_V4 = Chip(
    name="TPU v4",
    aliases=("v4",),
    vendor="Google",
    peak_flops_per_s={"bf16": 275 * T, "int8": 275 * T},
    hbm_capacity_bytes=32 * GiB,
    hbm_bandwidth_bytes_per_s=1200 * GB,
    links={"ici": ICI_V4},
    default_link="ici",
    citations={
        "peak_flops_per_s.bf16": _printed(
            _TPU_V4, "Peak compute per chip: 275 teraflops (bf16 or int8)", verified="2026-12-01"
        ),
        "peak_flops_per_s.int8": _printed(
            _TPU_V4, "Peak compute per chip: 275 teraflops (bf16 or int8)", verified="2026-12-01"
        ),
        "hbm_capacity_bytes": _printed(
            _TPU_V4, "HBM2 capacity and bandwidth: 32 GiB, 1200 GBps", verified="2026-12-01"
        ),
        "hbm_bandwidth_bytes_per_s": _printed(
            _TPU_V4, "HBM2 capacity and bandwidth: 32 GiB, 1200 GBps", verified="2026-12-01"
        ),
    },
)

TPU_V5E = Chip(
    name="TPU v5e",
    aliases=("v5e",),
    vendor="Google",
    peak_flops_per_s={"bf16": 197 * T, "int8": 393 * T},
    hbm_capacity_bytes=16 * GB,
    hbm_bandwidth_bytes_per_s=819 * GB,
    onchip_name="VMEM",
    onchip_capacity_bytes=128 * 2.0**20,
    links={"ici": ICI_V5E},
    default_link="ici",
    citations={
        "peak_flops_per_s.bf16": _printed(
            _TPU_V5E, "Peak compute per chip (bf16): 197 TFLOPs", verified="2026-12-01"
        ),
        "peak_flops_per_s.int8": _printed(
            _TPU_V5E,
            "Peak compute per chip (Int8): 393 TOPs",
            "both sources (the original and the guide) use 3.94e14 (twice the bf16 rate)",
            verified="2026-12-01",
        ),
        "hbm_capacity_bytes": _printed(
            _TPU_V5E, "HBM2 capacity and bandwidth: 16 GB, 819 GBps", verified="2026-12-01"
        ),
        "hbm_bandwidth_bytes_per_s": _printed(
            _TPU_V5E,
            "HBM2 capacity and bandwidth: 16 GB, 819 GBps",
            "one revision of the page prints '800 GiBps'; both sources use 8.2e11 and 8.1e11",
            verified="2026-12-01",
        ),
        "onchip_capacity_bytes": _printed(
            _SCALING_BOOK_TPU,
            "VMEM: 128 MiB on TPU v5e",
            "VMEM bandwidth is not published",
            verified="2026-12-01",
        ),
    },
)

TPU_V5P = Chip(
    name="TPU v5p",
    aliases=("v5p",),
    vendor="Google",
    peak_flops_per_s={"bf16": 459 * T, "fp8": 459 * T, "int8": 918 * T},
    hbm_capacity_bytes=95 * GiB,
    hbm_bandwidth_bytes_per_s=2765 * GB,
    links={"ici": ICI_V5P},
    default_link="ici",
    citations={
        "peak_flops_per_s.bf16": _printed(
            _TPU_V5P, "Peak compute per chip (BF16): 459 TFLOPs", verified="2026-12-01"
        ),
        "peak_flops_per_s.fp8": _printed(
            _TPU_V5P,
            "Peak compute per chip (FP8) (TFLOPs): 459",
            "dense; the same rate as bf16 (the v5p MXU has no faster fp8 path, so fp8 halves "
            "the bytes, not the time per FLOP). Older revisions of the page list bf16 only",
            verified="2026-12-01",
        ),
        "peak_flops_per_s.int8": _printed(
            _TPU_V5P_BLOG, "459 teraFLOPS of bfloat16 or 918 teraOPS of Int8", verified="2026-12-01"
        ),
        "hbm_capacity_bytes": _printed(
            _TPU_V5P, "HBM capacity per chip (GiB): 95", verified="2026-12-01"
        ),
        "hbm_bandwidth_bytes_per_s": _printed(
            _TPU_V5P, "HBM bandwidth per chip (GBps): 2765", verified="2026-12-01"
        ),
    },
)

TPU_V6E = Chip(
    name="TPU v6e",
    aliases=("v6e",),
    vendor="Google",
    peak_flops_per_s={"bf16": 918 * T, "int8": 1836 * T},
    hbm_capacity_bytes=32 * GB,
    hbm_bandwidth_bytes_per_s=1638 * GB,
    links={"ici": ICI_V6E},
    default_link="ici",
    citations={
        "peak_flops_per_s.bf16": _printed(
            _TPU_V6E,
            "Peak compute per chip (bf16): 918 TFLOPs",
            "both sources use 9.1e14",
            verified="2026-12-01",
        ),
        "peak_flops_per_s.int8": _printed(
            _TPU_V6E, "Peak compute per chip (Int8): 1836 TOPs", verified="2026-12-01"
        ),
        "hbm_capacity_bytes": _printed(
            _TPU_V6E, "HBM capacity per chip: 32 GB", verified="2026-12-01"
        ),
        "hbm_bandwidth_bytes_per_s": _printed(
            _TPU_V6E,
            "HBM bandwidth per chip: 1638 GBps",
            "both sources use 1.6e12",
            verified="2026-12-01",
        ),
    },
)

CHIPS: tuple[Chip, ...] = (
    H100_SXM,
    H200,
    A100_80GB,
    B200,
    MI300X,
    TPU_V4,
    TPU_V5E,
    TPU_V5P,
    TPU_V6E,
)
"""Every catalog chip, in the order tables list them. :data:`roofline_lib.hardware.CATALOG` and
every alias are derived from it."""
