"""The machine a measurement ran on, stored with every result and described in one paragraph.

A :class:`Machine` holds the CPU (:class:`~roofline_lib.measure.cpuinfo.CpuInfo`), the GPU when
one did the work (:class:`GpuInfo`), the backend, the compute threads and the math library
doing the matmuls (OpenBLAS, MKL, cuBLAS ...) with its thread count, and the software versions.
Its description is in the environment's language (:mod:`roofline_lib.words`); what the machine
itself reports (model names, library versions, where a cache size was read) stays as reported.
"""

from __future__ import annotations

import platform
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ..fmt import format_number, format_quantity
from ..words import say
from .cpuinfo import CpuInfo


def format_bytes(n: float) -> str:
    """A memory size in binary units, as caches and RAM are sold: ``33554432 → "32 MiB"``."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{format_number(n / scale, 3)} {unit}"
    return f"{format_number(n, 3)} bytes"


@dataclass(frozen=True)
class GpuInfo:
    """The GPU that did the work.

    Attributes:
        name: the device name the driver reports, e.g. ``"NVIDIA H100 80GB HBM3"``.
        driver: the driver version (e.g. ``"550.54.15"``), or ``""`` when unreadable.
        cuda: the CUDA (or ROCm/HIP) version PyTorch was built with.
        memory_bytes: device memory, bytes.
        l2_bytes: L2 cache, bytes, or None.
        multiprocessors: streaming multiprocessors (SMs), or None.
        compute_capability: e.g. ``"9.0"``.
    """

    name: str
    driver: str = ""
    cuda: str = ""
    memory_bytes: int | None = None
    l2_bytes: int | None = None
    multiprocessors: int | None = None
    compute_capability: str = ""

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> GpuInfo:
        return cls(**d)


@dataclass(frozen=True)
class Machine:
    """Where and how a measurement ran.

    Attributes:
        backend: ``"numpy"`` or ``"torch"``.
        device: ``"cpu"`` or a torch device such as ``"cuda:0"``.
        cpu: the host CPU (always described, since it drives the GPU too).
        gpu: the GPU, when ``device`` is one; else None.
        threads: compute threads the matmuls ran with (BLAS threads, or torch's intra-op threads);
            1 for a GPU's host thread.
        math_library: what ran the matmuls, e.g. ``"OpenBLAS 0.3.31 (SkylakeX kernels, pthreads)"``.
        math_library_threads: its thread count (threadpoolctl, or torch), or None.
        versions: software versions: python, numpy, and torch when used.
        platform: :func:`platform.platform`.
    """

    backend: str
    device: str
    cpu: CpuInfo
    threads: int
    math_library: str
    math_library_threads: int | None = None
    gpu: GpuInfo | None = None
    versions: Mapping[str, str] = field(default_factory=dict)
    platform: str = field(default_factory=platform.platform)

    def __post_init__(self) -> None:
        object.__setattr__(self, "versions", MappingProxyType(dict(self.versions)))

    @property
    def name(self) -> str:
        """Short name for titles: the GPU's name, or the CPU model with the cores used."""
        if self.gpu is not None:
            return self.gpu.name
        cores = min(self.threads, self.cpu.usable_cores)
        if cores == 1:
            return say("{model} (1 core)", model=self.cpu.model)
        return say("{model} ({cores} cores)", model=self.cpu.model, cores=cores)

    def describe(self) -> str:
        """One paragraph: the hardware, the threads and library used, and the software."""
        cpu = self.cpu
        versions = ", ".join(f"{k} {v}" for k, v in self.versions.items())
        smt = (
            say(" ({n} logical CPUs)", n=cpu.logical_cpus)
            if cpu.logical_cpus != cpu.physical_cores
            else ""
        )
        quota = (
            say(", limited to {n} CPUs by a cgroup quota", n=f"{cpu.cpu_quota:g}")
            if cpu.cpu_quota
            else ""
        )
        cache = (
            say(
                "{size} last-level cache ({source})",
                size=format_bytes(cpu.llc_bytes),
                source=cpu.llc_source,
            )
            if cpu.llc_bytes
            else say("last-level cache {source}", source=cpu.llc_source)
        )
        clock = (
            say(
                "{clock} clock (from {source})",
                clock=format_quantity(cpu.clock_hz, "Hz"),
                source=say(cpu.clock_source),
            )
            if cpu.clock_hz
            else say("clock unknown ({source})", source=say(cpu.clock_source))
        )
        memory = (
            say(", {size} memory", size=format_bytes(cpu.memory_bytes)) if cpu.memory_bytes else ""
        )
        simd = ", ".join(cpu.simd) or say("none recognised")
        lib = self.math_library
        if self.math_library_threads is not None:
            lib += say(" with {n} thread(s)", n=self.math_library_threads)
        host = say(
            "{model}: {cores} physical core(s){smt}{quota} available, {clock}, SIMD {simd}, "
            "{cache}{memory}",
            model=cpu.model,
            cores=cpu.physical_cores,
            smt=smt,
            quota=quota,
            clock=clock,
            simd=simd,
            cache=cache,
            memory=memory,
        )
        if self.gpu is not None:
            gpu = self.gpu
            mem = (
                say(", {size} memory", size=format_bytes(gpu.memory_bytes))
                if gpu.memory_bytes
                else ""
            )
            l2 = say(", {size} L2", size=format_bytes(gpu.l2_bytes)) if gpu.l2_bytes else ""
            sms = say(", {n} SMs", n=gpu.multiprocessors) if gpu.multiprocessors else ""
            cc = (
                say(", compute capability {cc}", cc=gpu.compute_capability)
                if gpu.compute_capability
                else ""
            )
            return say(
                "GPU {name} ({device}{mem}{l2}{sms}{cc}), driver {driver}, CUDA {cuda}; matmuls "
                "by {library}; measured with the {backend} backend ({versions}) on {platform}. "
                "Host CPU {host}.",
                name=gpu.name,
                device=self.device,
                mem=mem,
                l2=l2,
                sms=sms,
                cc=cc,
                driver=gpu.driver or say("unknown"),
                cuda=gpu.cuda or say("unknown"),
                library=lib,
                backend=self.backend,
                versions=versions,
                platform=self.platform,
                host=host,
            )
        return say(
            "CPU {host}. Matmuls ran on {threads} thread(s) by {library}; measured with the "
            "{backend} backend ({versions}) on {platform}.",
            host=host,
            threads=self.threads,
            library=lib,
            backend=self.backend,
            versions=versions,
            platform=self.platform,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "backend": self.backend,
            "device": self.device,
            "cpu": self.cpu.to_dict(),
            "threads": self.threads,
            "math_library": self.math_library,
            "math_library_threads": self.math_library_threads,
            "gpu": self.gpu.to_dict() if self.gpu is not None else None,
            "versions": dict(self.versions),
            "platform": self.platform,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Machine:
        gpu = d.get("gpu")
        return cls(
            backend=d["backend"],
            device=d["device"],
            cpu=CpuInfo.from_dict(d["cpu"]),
            threads=int(d["threads"]),
            math_library=d["math_library"],
            math_library_threads=d.get("math_library_threads"),
            gpu=GpuInfo.from_dict(gpu) if gpu is not None else None,
            versions=d.get("versions", {}),
            platform=d.get("platform", ""),
        )
