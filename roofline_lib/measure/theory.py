"""Theoretical peak FLOP/s: what the hardware could do if every cycle did useful arithmetic.

CPU (derived from the instruction-set flags):

    peak = cores × clock × FLOPs per cycle per core,
    FLOPs per cycle per core = units × (vector bits / element bits) × FLOPs per unit per cycle.

The flags say how wide a vector is, not how many arithmetic units a core has, so the units are
an **assumption**, chosen as the most a core of that ISA has (under-claiming the achieved
fraction rather than over-claiming it):

* AVX-512 (``avx512f``): 2 FMA units of 512 bits (Intel Xeon Gold/Platinum have two). Cores with
  one 512-bit unit, or that split each 512-bit instruction into two 256-bit halves (AMD Zen 4),
  peak at half of it at the same clock;
* AVX2 + FMA: 2 FMA units of 256 bits (Intel since Haswell, AMD since Zen 2);
* AVX without FMA: one 256-bit add unit and one 256-bit multiply unit;
* SSE2 only: one 128-bit add unit and one 128-bit multiply unit;
* 64-bit ARM (``asimd``/``sve``): 4 FMA units of 128 bits (Neoverse V1/V2, Apple M-series);
* an FMA counts 2 FLOPs. bf16 with ``avx512_bf16`` counts twice the fp32 rate (VDPBF16PS does
  two bf16 products per fp32 lane); without it, bf16 runs through fp32 (the fp32 rate). Intel
  AMX is not modelled: with ``amx_bf16`` the bf16 peak is None rather than a false bound.

The clock is cpufreq's maximum (the boost clock) when Linux exposes it; otherwise the
``cpu MHz`` in /proc/cpuinfo, which in a virtual machine is usually the nominal clock and sits
below the boost clock (an Intel Xeon VM measured 402 GFLOP/s fp32 against 333 GFLOP/s computed
at its 'cpu MHz'). The peak is therefore an **upper bound** (``upper_bound=True``) only when the
clock is cpufreq's maximum; from any other clock it is the peak at that clock, and a core in
turbo can exceed it. The clock's source is recorded with the peak.

GPU: the catalog's dense peak for the dtype (``roofline_lib.hardware``), found by device name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..dtypes import bytes_per_element
from ..fmt import format_quantity
from ..hardware import get_chip
from ..words import say
from .cpuinfo import CpuInfo
from .machine import Machine

CPU_DTYPES = ("fp64", "fp32", "bf16")
"""Dtypes with a CPU theoretical peak."""


@dataclass(frozen=True)
class TheoreticalPeak:
    """A theoretical peak and how it was derived.

    Attributes:
        dtype: the arithmetic's dtype, e.g. ``"fp32"``.
        flops_per_s: the peak, FLOP/s.
        source: ``"isa"`` (CPU: cores × clock × FLOPs/cycle) or ``"catalog"`` (a catalog chip).
        formula: the arithmetic, e.g. ``"2 cores × 2.6 GHz × 64 FLOPs/cycle"``.
        assumptions: what the figure assumes, in a sentence or two.
        upper_bound: whether the hardware cannot exceed it: True for a catalog peak (at boost
            clock) and a CPU peak at cpufreq's maximum clock; False for a CPU peak from a
            nominal or current clock, which turbo can exceed.
    """

    dtype: str
    flops_per_s: float
    source: str
    formula: str
    assumptions: str
    upper_bound: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "dtype": self.dtype,
            "flops_per_s": self.flops_per_s,
            "source": self.source,
            "formula": self.formula,
            "assumptions": self.assumptions,
            "upper_bound": self.upper_bound,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> TheoreticalPeak:
        return cls(**d)


@dataclass(frozen=True)
class VectorUnits:
    """A core's assumed arithmetic units: ``units`` units of ``bits`` bits, each doing
    ``flops_per_lane`` FLOPs per lane per cycle (2 for an FMA; an add unit plus a multiply
    unit are counted as one unit with 2). ``bf16_dot``: the ISA has a bf16 dot-product
    instruction (two bf16 products per fp32 lane)."""

    isa: str
    units: int
    bits: int
    flops_per_lane: int
    note: str
    bf16_dot: bool = False

    def flops_per_cycle(self, dtype: str) -> float:
        """FLOPs per cycle per core in ``dtype``: units × (bits / element bits) × FLOPs per lane;
        bf16 is twice the fp32 figure with ``bf16_dot`` and the fp32 figure without."""
        if dtype == "bf16":
            fp32 = self.flops_per_cycle("fp32")
            return 2 * fp32 if self.bf16_dot else fp32
        lanes = self.bits / (8 * bytes_per_element(dtype))
        return self.units * lanes * self.flops_per_lane


def vector_units(simd: tuple[str, ...] | list[str]) -> VectorUnits | None:
    """The assumed units for a set of SIMD flags (see the module docstring), or None."""
    flags = set(simd)
    if "avx512f" in flags:
        return VectorUnits(
            "AVX-512",
            2,
            512,
            2,
            say(
                "2 FMA units × 512 bits per core, the most an AVX-512 core has; cores with one "
                "512-bit FMA unit, or that split 512-bit instructions into two 256-bit halves "
                "(AMD Zen 4), peak at half"
            ),
            bf16_dot="avx512_bf16" in flags,
        )
    if "avx2" in flags and "fma" in flags:
        return VectorUnits("AVX2 + FMA", 2, 256, 2, say("2 FMA units × 256 bits per core"))
    if "avx" in flags:
        return VectorUnits("AVX", 1, 256, 2, say("one 256-bit add and one 256-bit multiply unit"))
    if "asimd" in flags or "sve" in flags:
        return VectorUnits(
            "ARM NEON/SVE",
            4,
            128,
            2,
            say("4 FMA units × 128 bits per core (Neoverse V1/V2, Apple M)"),
        )
    if "sse2" in flags:
        return VectorUnits("SSE2", 1, 128, 2, say("one 128-bit add and one 128-bit multiply unit"))
    return None


def cpu_theoretical_peak(cpu: CpuInfo, threads: int, dtype: str) -> TheoreticalPeak | None:
    """cores × clock × FLOPs/cycle/core for ``dtype`` with ``threads`` compute threads, where
    cores = min(usable physical cores, threads) (SMT siblings share one core's units). An upper
    bound only when the clock is cpufreq's maximum (see the module docstring). None when the
    clock or the SIMD units cannot be read, or for bf16 on a CPU with AMX."""
    units = vector_units(cpu.simd)
    if dtype not in CPU_DTYPES or units is None or cpu.clock_hz is None:
        return None
    if dtype == "bf16" and "amx_bf16" in cpu.simd:
        return None
    cores = max(1, min(cpu.usable_cores, threads))
    per_cycle = units.flops_per_cycle(dtype)
    peak = cores * cpu.clock_hz * per_cycle
    formula = say(
        "{cores} cores × {clock} × {per_cycle} {dtype} FLOPs/cycle ({isa}) = {peak}"
        if cores > 1
        else "{cores} core × {clock} × {per_cycle} {dtype} FLOPs/cycle ({isa}) = {peak}",
        cores=cores,
        clock=format_quantity(cpu.clock_hz, "Hz"),
        per_cycle=f"{per_cycle:g}",
        dtype=dtype,
        isa=units.isa,
        peak=format_quantity(peak, "FLOP/s"),
    )
    bound = cpu.clock_source.startswith("cpufreq")
    assumptions = say(
        "{units}; clock from {source}", units=units.note, source=say(cpu.clock_source)
    )
    if not bound:
        assumptions += say("; not an upper bound: a core in turbo runs above this clock")
    return TheoreticalPeak(dtype, peak, "isa", formula, assumptions, upper_bound=bound)


# --------------------------------------------------------------------------------------------
# GPUs: the catalog entry by device name
# --------------------------------------------------------------------------------------------

_GPU_NAME_RULES = (
    # (every word that must appear, words that must not, catalog name)
    (("h200",), ("nvl",), "H200"),
    (("h100",), ("pcie", "nvl"), "H100 SXM"),
    (("a100", "sxm"), (), "A100 80GB SXM"),
    (("b200",), (), "B200"),
    (("mi300x",), (), "MI300X"),
)
"""Device names as drivers print them ("NVIDIA H100 80GB HBM3", "NVIDIA H200",
"NVIDIA A100-SXM4-80GB", "AMD Instinct MI300X") → catalog chips. PCIe and NVL variants run at
lower clocks and power than the SXM part the catalog describes, so they get no catalog peak."""


def catalog_chip_name(device_name: str) -> str | None:
    """The catalog chip for a GPU's device name, or None when the catalog has no such part."""
    name = device_name.lower()
    for needed, excluded, chip in _GPU_NAME_RULES:
        if all(w in name for w in needed) and not any(w in name for w in excluded):
            return chip
    return None


def gpu_theoretical_peak(device_name: str, dtype: str) -> TheoreticalPeak | None:
    """The catalog's dense peak for ``dtype`` on the chip named ``device_name``, or None."""
    chip_name = catalog_chip_name(device_name)
    if chip_name is None:
        return None
    chip = get_chip(chip_name)
    if dtype not in chip.peak_flops_per_s:
        return None
    peak = chip.peak(dtype)
    citation = chip.citations.get(f"peak_flops_per_s.{dtype}")
    basis = f" ({citation.basis_in()}: {citation.quote})" if citation else ""
    return TheoreticalPeak(
        dtype,
        peak,
        "catalog",
        say(
            "roofline_lib catalog, {chip} dense {dtype}: {peak}",
            chip=chip.name,
            dtype=dtype,
            peak=format_quantity(peak, "FLOP/s"),
        ),
        say("the vendor's dense peak at boost clock{basis}", basis=basis),
        upper_bound=True,
    )


def theoretical_peaks(machine: Machine, dtypes: Sequence[str]) -> dict[str, TheoreticalPeak]:
    """Theoretical peak per dtype on ``machine`` where one can be derived (see :mod:`.theory`):
    the catalog's for a GPU, cores × clock × FLOPs/cycle for a CPU."""
    out = {}
    for dtype in dtypes:
        if machine.gpu is not None:
            peak = gpu_theoretical_peak(machine.gpu.name, dtype)
        else:
            peak = cpu_theoretical_peak(machine.cpu, machine.threads, dtype)
        if peak is not None:
            out[dtype] = peak
    return out
