"""What the CPU is: model, usable cores, SIMD flags, clock, last-level cache and memory.

Everything is read from Linux's ``/proc`` and ``/sys`` below a ``root`` directory (``/`` by
default), by small pure parsers over text, so tests can describe any machine with a few files.
Elsewhere (macOS, Windows) the fields that cannot be read are None and say so in their
``*_source``; nothing here needs a compiler, a subprocess or a third-party package.
"""

from __future__ import annotations

import math
import os
import platform
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..words import say_later

SIMD_FLAGS = (
    "avx512f",
    "avx512_bf16",
    "avx512_fp16",
    "amx_bf16",
    "avx2",
    "fma",
    "avx",
    "sse2",
    "asimd",
    "sve",
)
"""The instruction-set flags that decide the FLOPs a core can do per cycle (see ``theory``)."""

LLC_FALLBACK_BYTES = 64 * 2**20
"""Assumed last-level cache when none can be read: 64 MiB, more than most single sockets had
before 2022, so that arrays 4× this size are out of cache on nearly any machine."""


@dataclass(frozen=True)
class CpuInfo:
    """The CPU as this process sees it.

    Attributes:
        model: the model name, e.g. ``"AMD EPYC 7B13"`` (``"unknown CPU"`` when unreadable).
        vendor: e.g. ``"AuthenticAMD"``, ``"GenuineIntel"``, ``"ARM"`` (or ``""``).
        logical_cpus: CPUs this process may run on (its affinity mask).
        physical_cores: distinct physical cores among them (SMT siblings counted once).
        cpu_quota: a cgroup CPU quota in CPUs (e.g. 2.0), or None if unlimited or unknown.
        simd: the flags of :data:`SIMD_FLAGS` the CPU reports.
        clock_hz: the clock used for the theoretical peak, Hz, or None.
        clock_source: where ``clock_hz`` comes from and how far to trust it.
        llc_bytes: total last-level cache, bytes (summed over its instances), or None.
        llc_source: where ``llc_bytes`` comes from.
        memory_bytes: total memory (MemTotal), bytes, or None.
        available_memory_bytes: memory available now (MemAvailable), bytes, or None.
    """

    model: str
    vendor: str
    logical_cpus: int
    physical_cores: int
    cpu_quota: float | None
    simd: tuple[str, ...]
    clock_hz: float | None
    clock_source: str
    llc_bytes: int | None
    llc_source: str
    memory_bytes: int | None = None
    available_memory_bytes: int | None = None

    @property
    def usable_cores(self) -> int:
        """Physical cores this process can keep busy: physical cores, capped by the quota."""
        cores = self.physical_cores
        if self.cpu_quota is not None:
            cores = min(cores, max(1, math.ceil(self.cpu_quota)))
        return max(1, cores)

    @property
    def llc_or_fallback_bytes(self) -> int:
        """``llc_bytes``, or :data:`LLC_FALLBACK_BYTES` when it is unknown."""
        return self.llc_bytes or LLC_FALLBACK_BYTES

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "vendor": self.vendor,
            "logical_cpus": self.logical_cpus,
            "physical_cores": self.physical_cores,
            "cpu_quota": self.cpu_quota,
            "simd": list(self.simd),
            "clock_hz": self.clock_hz,
            "clock_source": self.clock_source,
            "llc_bytes": self.llc_bytes,
            "llc_source": self.llc_source,
            "memory_bytes": self.memory_bytes,
            "available_memory_bytes": self.available_memory_bytes,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> CpuInfo:
        return cls(**{**d, "simd": tuple(d["simd"])})


# --------------------------------------------------------------------------------------------
# Parsers (pure: text in, values out)
# --------------------------------------------------------------------------------------------


def parse_cpuinfo(text: str) -> list[dict[str, str]]:
    """``/proc/cpuinfo`` as one ``{key: value}`` dict per processor block."""
    blocks: list[dict[str, str]] = []
    current: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            if current:
                blocks.append(current)
                current = {}
            continue
        key, sep, value = line.partition(":")
        if sep:
            current[key.strip()] = value.strip()
    if current:
        blocks.append(current)
    return blocks


def parse_cpu_list(text: str) -> set[int]:
    """A kernel CPU list such as ``"0-3,8,10-11"`` as a set of CPU numbers."""
    cpus: set[int] = set()
    for part in text.strip().split(","):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus


def parse_size(text: str) -> int:
    """A sysfs cache size such as ``"32768K"``, ``"1M"`` or ``"512"`` as bytes."""
    match = re.fullmatch(r"\s*(\d+)\s*([KMG]?)i?B?\s*", text, flags=re.IGNORECASE)
    if not match:
        raise ValueError(f"cache size must look like '32768K', got {text!r}")
    scale = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30}[match.group(2).upper()]
    return int(match.group(1)) * scale


def parse_cpu_max(text: str) -> float | None:
    """cgroup v2 ``cpu.max`` (``"200000 100000"`` → 2.0 CPUs; ``"max 100000"`` → None)."""
    parts = text.split()
    if len(parts) != 2 or parts[0] == "max":
        return None
    return int(parts[0]) / int(parts[1])


def parse_meminfo(text: str) -> dict[str, int]:
    """``/proc/meminfo`` as bytes by key (``MemTotal``, ``MemAvailable``, ...)."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        fields = rest.split()
        if fields and fields[0].isdigit():
            scale = 1024 if len(fields) > 1 and fields[1].lower() == "kb" else 1
            out[key.strip()] = int(fields[0]) * scale
    return out


def physical_cores(blocks: Iterable[Mapping[str, str]], cpus: set[int]) -> int | None:
    """Distinct (physical id, core id) pairs among the processors in ``cpus``, or None if the
    blocks do not say (e.g. on ARM, where /proc/cpuinfo has no core ids)."""
    cores = set()
    for block in blocks:
        if "processor" not in block or "core id" not in block:
            return None
        if int(block["processor"]) in cpus:
            cores.add((block.get("physical id", "0"), block["core id"]))
    return len(cores) or None


def model_name(blocks: list[dict[str, str]]) -> tuple[str, str]:
    """(model, vendor) from /proc/cpuinfo blocks, falling back on :mod:`platform`."""
    first = blocks[0] if blocks else {}
    vendor = first.get("vendor_id", "")
    model = first.get("model name") or first.get("Model") or first.get("Hardware") or ""
    if not vendor and "CPU implementer" in first:
        vendor = "ARM"
    if not model:
        model = platform.processor() or platform.machine() or "unknown CPU"
    return model, vendor


def simd_flags(blocks: list[dict[str, str]]) -> tuple[str, ...]:
    """The :data:`SIMD_FLAGS` in the first processor's ``flags`` (x86) or ``Features`` (ARM)."""
    first = blocks[0] if blocks else {}
    found = set((first.get("flags") or first.get("Features") or "").split())
    if platform.machine().lower() in ("arm64", "aarch64") and not found:
        found.add("asimd")  # every 64-bit ARM core has Advanced SIMD (NEON)
    return tuple(flag for flag in SIMD_FLAGS if flag in found)


def clock_from(
    cpufreq_max_khz: str | None, blocks: list[dict[str, str]], model: str
) -> tuple[float | None, str]:
    """(clock in Hz, source) in order of trust: cpufreq's maximum (the boost clock), the highest
    ``cpu MHz`` in /proc/cpuinfo, the ``@ 2.60GHz`` in the model name, else (None, reason)."""
    if cpufreq_max_khz and cpufreq_max_khz.strip().isdigit():
        return int(cpufreq_max_khz) * 1e3, say_later(
            "cpufreq's cpuinfo_max_freq: the maximum boost clock"
        )
    mhz = [float(b["cpu MHz"]) for b in blocks if _is_number(b.get("cpu MHz", ""))]
    if mhz:
        return max(mhz) * 1e6, say_later(
            "'cpu MHz' in /proc/cpuinfo: the current or nominal clock; turbo may run faster"
        )
    match = re.search(r"@\s*([\d.]+)\s*GHz", model)
    if match:
        return float(match.group(1)) * 1e9, say_later(
            "the model name: the base clock; turbo runs faster"
        )
    return None, say_later("no clock readable: no cpufreq, no 'cpu MHz', none in the model name")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


# --------------------------------------------------------------------------------------------
# Reading the machine
# --------------------------------------------------------------------------------------------


def _read(root: Path, path: str) -> str | None:
    try:
        return (root / path.lstrip("/")).read_text()
    except OSError:
        return None


def affinity() -> set[int]:
    """CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return set(os.sched_getaffinity(0))
    return set(range(os.cpu_count() or 1))


def last_level_cache(root: Path, cpus: set[int]) -> tuple[int | None, str]:
    """(bytes, source): the highest-level data or unified cache in sysfs, summed over its
    distinct instances among ``cpus`` (one L3 per chiplet on AMD, one per socket on Intel)."""
    best_level, instances = 0, dict[str, int]()
    for cpu in sorted(cpus):
        base = f"sys/devices/system/cpu/cpu{cpu}/cache"
        try:
            indices = sorted((root / base).glob("index*"))
        except OSError:
            continue
        for index in indices:
            rel = f"{base}/{index.name}"
            level, kind, size = (_read(root, f"{rel}/{f}") for f in ("level", "type", "size"))
            if not (level and size) or (kind and kind.strip() == "Instruction"):
                continue
            shared = (_read(root, f"{rel}/shared_cpu_list") or str(cpu)).strip()
            lvl = int(level)
            if lvl > best_level:
                best_level, instances = lvl, {}
            if lvl == best_level:
                instances[shared] = parse_size(size)
    if instances:
        total = sum(instances.values())
        plural = "s" if len(instances) > 1 else ""
        return total, f"L{best_level} from sysfs, {len(instances)} instance{plural}"
    return None, (f"unknown: no sysfs cache entries; {LLC_FALLBACK_BYTES // 2**20} MiB assumed")


def read_cpu_info(root: str | Path = "/", cpus: set[int] | None = None) -> CpuInfo:
    """Describe the CPU from the files below ``root``; ``cpus`` defaults to this process's
    affinity (with a non-default root, to every processor in its /proc/cpuinfo)."""
    root = Path(root)
    blocks = parse_cpuinfo(_read(root, "proc/cpuinfo") or "")
    if cpus is None:
        if root == Path("/"):
            cpus = affinity()
        else:
            cpus = {int(b["processor"]) for b in blocks if b.get("processor", "").isdigit()}
            cpus = cpus or {0}
    model, vendor = model_name(blocks)
    cores = physical_cores(blocks, cpus) or len(cpus)
    quota_text = _read(root, "sys/fs/cgroup/cpu.max")
    quota = parse_cpu_max(quota_text) if quota_text else None
    if quota is None:
        q, p = (_read(root, f"sys/fs/cgroup/cpu/cpu.cfs_{k}_us") for k in ("quota", "period"))
        if q and p and int(q) > 0:
            quota = int(q) / int(p)
    first = min(cpus)
    max_khz = _read(root, f"sys/devices/system/cpu/cpu{first}/cpufreq/cpuinfo_max_freq")
    clock_hz, clock_source = clock_from(max_khz, blocks, model)
    llc, llc_source = last_level_cache(root, cpus)
    mem = parse_meminfo(_read(root, "proc/meminfo") or "")
    return CpuInfo(
        model=model,
        vendor=vendor,
        logical_cpus=len(cpus),
        physical_cores=cores,
        cpu_quota=quota,
        simd=simd_flags(blocks),
        clock_hz=clock_hz,
        clock_source=clock_source,
        llc_bytes=llc,
        llc_source=llc_source,
        memory_bytes=mem.get("MemTotal"),
        available_memory_bytes=mem.get("MemAvailable"),
    )
