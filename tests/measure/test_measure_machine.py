"""Reading the machine (/proc and /sys parsers on fake roots) and deriving theoretical peaks."""

from __future__ import annotations

from pathlib import Path

import pytest

from roofline_lib.measure import read_cpu_info
from roofline_lib.measure.cpuinfo import (
    LLC_FALLBACK_BYTES,
    parse_cpu_list,
    parse_cpu_max,
    parse_meminfo,
    parse_size,
)
from roofline_lib.measure.machine import Machine, format_bytes
from roofline_lib.measure.theory import (
    TheoreticalPeak,
    catalog_chip_name,
    cpu_theoretical_peak,
    gpu_theoretical_peak,
    vector_units,
)

pytestmark = pytest.mark.xdist_group("measure")

FLAGS_AVX512 = "fpu sse sse2 avx fma avx2 avx512f avx512dq avx512_bf16"
FLAGS_AVX2 = "fpu sse sse2 avx fma avx2"


def _cpuinfo(cores: int, threads_per_core: int, flags: str, mhz: float = 2600.0) -> str:
    blocks = []
    for cpu in range(cores * threads_per_core):
        blocks.append(
            f"processor\t: {cpu}\nvendor_id\t: GenuineIntel\n"
            f"model name\t: Intel(R) Xeon(R) Test CPU @ 2.10GHz\nphysical id\t: 0\n"
            f"core id\t\t: {cpu % cores}\ncpu MHz\t\t: {mhz}\nflags\t\t: {flags}\n"
        )
    return "\n".join(blocks)


def _machine_root(
    tmp_path: Path,
    *,
    cores: int = 4,
    smt: int = 2,
    flags: str = FLAGS_AVX512,
    llc: str | None = "16384K",
    llc_instances: int = 2,
    max_khz: str | None = None,
    cpu_max: str | None = None,
) -> Path:
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc/cpuinfo").write_text(_cpuinfo(cores, smt, flags))
    (tmp_path / "proc/meminfo").write_text("MemTotal: 16384 kB\nMemAvailable: 8192 kB\n")
    n = cores * smt
    per = n // llc_instances
    for cpu in range(n):
        base = tmp_path / f"sys/devices/system/cpu/cpu{cpu}"
        if llc is not None:
            for index, (level, kind, size, shared) in enumerate(
                [
                    ("1", "Data", "48K", str(cpu)),
                    ("1", "Instruction", "32K", str(cpu)),
                    ("2", "Unified", "2048K", str(cpu)),
                    ("3", "Unified", llc, f"{cpu // per * per}-{cpu // per * per + per - 1}"),
                ]
            ):
                d = base / f"cache/index{index}"
                d.mkdir(parents=True)
                for name, value in (
                    ("level", level),
                    ("type", kind),
                    ("size", size),
                    ("shared_cpu_list", shared),
                ):
                    (d / name).write_text(value + "\n")
        if max_khz is not None:
            (base / "cpufreq").mkdir(parents=True, exist_ok=True)
            (base / "cpufreq/cpuinfo_max_freq").write_text(max_khz + "\n")
    if cpu_max is not None:
        (tmp_path / "sys/fs/cgroup").mkdir(parents=True)
        (tmp_path / "sys/fs/cgroup/cpu.max").write_text(cpu_max + "\n")
    return tmp_path


def test_smt_siblings_count_once_and_caches_sum_over_instances(tmp_path: Path) -> None:
    cpu = read_cpu_info(_machine_root(tmp_path, cores=4, smt=2, llc="16384K", llc_instances=2))
    assert cpu.logical_cpus == 8
    assert cpu.physical_cores == 4
    assert cpu.llc_bytes == 2 * 16 * 2**20
    assert "L3" in cpu.llc_source
    assert cpu.model.startswith("Intel(R) Xeon(R)")
    assert cpu.vendor == "GenuineIntel"
    assert cpu.simd[:2] == ("avx512f", "avx512_bf16")
    assert cpu.memory_bytes == 16384 * 1024
    assert cpu.available_memory_bytes == 8192 * 1024


def test_clock_prefers_cpufreq_maximum_to_cpu_mhz(tmp_path: Path) -> None:
    cpu = read_cpu_info(_machine_root(tmp_path, max_khz="3500000"))
    assert cpu.clock_hz == 3.5e9
    assert "boost" in cpu.clock_source


def test_clock_falls_back_to_cpu_mhz_and_says_so(tmp_path: Path) -> None:
    cpu = read_cpu_info(_machine_root(tmp_path))
    assert cpu.clock_hz == 2.6e9
    assert "cpu MHz" in cpu.clock_source and "turbo" in cpu.clock_source


def test_unknown_cache_falls_back_and_says_so(tmp_path: Path) -> None:
    cpu = read_cpu_info(_machine_root(tmp_path, llc=None))
    assert cpu.llc_bytes is None
    assert cpu.llc_or_fallback_bytes == LLC_FALLBACK_BYTES
    assert "unknown" in cpu.llc_source


def test_cgroup_quota_caps_the_usable_cores(tmp_path: Path) -> None:
    cpu = read_cpu_info(_machine_root(tmp_path, cores=8, smt=1, cpu_max="250000 100000"))
    assert cpu.cpu_quota == 2.5
    assert cpu.usable_cores == 3


def test_parsers() -> None:
    assert parse_cpu_list("0-3,8,10-11") == {0, 1, 2, 3, 8, 10, 11}
    assert parse_size("32768K") == 32 * 2**20
    assert parse_size("1M") == 2**20
    assert parse_cpu_max("max 100000") is None
    assert parse_cpu_max("200000 100000") == 2.0
    assert parse_meminfo("MemTotal:  2 kB\n") == {"MemTotal": 2048}
    assert format_bytes(32 * 2**20) == "32 MiB"
    with pytest.raises(ValueError, match="cache size"):
        parse_size("lots")


def test_theoretical_peak_is_cores_times_clock_times_flops_per_cycle(tmp_path: Path) -> None:
    cpu = read_cpu_info(_machine_root(tmp_path, cores=4, smt=2, max_khz="3000000"))
    fp32 = cpu_theoretical_peak(cpu, threads=8, dtype="fp32")
    fp64 = cpu_theoretical_peak(cpu, threads=8, dtype="fp64")
    assert fp32 is not None and fp64 is not None
    # 4 physical cores (SMT threads share them) × 3 GHz × 2 FMA × 16 fp32 lanes × 2 FLOPs
    assert fp32.flops_per_s == 4 * 3e9 * 64
    assert fp64.flops_per_s == 4 * 3e9 * 32
    assert fp32.upper_bound, "at cpufreq's maximum clock the peak is an upper bound"
    assert "not an upper bound" not in fp32.assumptions
    assert fp32.source == "isa"
    # fewer threads than cores: only the cores used count
    assert cpu_theoretical_peak(cpu, threads=1, dtype="fp32").flops_per_s == 3e9 * 64


def test_a_peak_at_the_nominal_clock_is_not_called_an_upper_bound(tmp_path: Path) -> None:
    # An Intel Xeon VM exposes no cpufreq, only 'cpu MHz' (its nominal clock): the measured fp32
    # peak there (402 GFLOP/s) exceeded the 333 GFLOP/s computed at that clock, because turbo
    # runs faster. Such a peak is the peak at that clock, never claimed as a bound.
    cpu = read_cpu_info(_machine_root(tmp_path, cores=4, smt=2))
    assert cpu.clock_source.startswith("'cpu MHz'")
    fp32 = cpu_theoretical_peak(cpu, threads=8, dtype="fp32")
    assert fp32 is not None and not fp32.upper_bound
    assert "not an upper bound" in fp32.assumptions
    assert TheoreticalPeak.from_dict(fp32.to_dict()) == fp32


def test_flops_per_cycle_follow_the_instruction_set() -> None:
    assert vector_units(FLAGS_AVX512.split()).flops_per_cycle("fp32") == 64
    assert vector_units(FLAGS_AVX512.split()).flops_per_cycle("bf16") == 128
    assert vector_units(FLAGS_AVX2.split()).flops_per_cycle("fp32") == 32
    assert vector_units(FLAGS_AVX2.split()).flops_per_cycle("fp64") == 16
    assert vector_units(["avx", "sse2"]).flops_per_cycle("fp32") == 16
    assert vector_units(["sse2"]).flops_per_cycle("fp64") == 4
    assert vector_units(["asimd"]).flops_per_cycle("fp32") == 32
    assert vector_units([]) is None


def test_no_theoretical_peak_without_a_clock_or_for_amx(tmp_path: Path) -> None:
    cpu = read_cpu_info(_machine_root(tmp_path, flags=FLAGS_AVX512 + " amx_bf16"))
    assert cpu_theoretical_peak(cpu, 4, "bf16") is None
    assert cpu_theoretical_peak(cpu, 4, "fp32") is not None
    from dataclasses import replace

    assert cpu_theoretical_peak(replace(cpu, clock_hz=None), 4, "fp32") is None


@pytest.mark.parametrize(
    ("device_name", "chip"),
    [
        ("NVIDIA H100 80GB HBM3", "H100 SXM"),
        ("NVIDIA H200", "H200"),
        ("NVIDIA A100-SXM4-80GB", "A100 80GB SXM"),
        ("NVIDIA B200", "B200"),
        ("AMD Instinct MI300X", "MI300X"),
        ("NVIDIA H100 PCIe", None),
        ("NVIDIA H100 NVL", None),
        ("NVIDIA GeForce RTX 4090", None),
    ],
)
def test_gpus_map_to_catalog_chips_by_device_name(device_name: str, chip: str | None) -> None:
    assert catalog_chip_name(device_name) == chip


def test_gpu_theoretical_peak_is_the_catalog_dense_peak() -> None:
    import roofline_lib

    peak = gpu_theoretical_peak("NVIDIA H100 80GB HBM3", "bf16")
    assert peak is not None
    assert peak.flops_per_s == roofline_lib.get_chip("H100 SXM").peak("bf16")
    assert peak.source == "catalog"
    assert gpu_theoretical_peak("NVIDIA H100 80GB HBM3", "int4") is None  # not in the catalog
    assert gpu_theoretical_peak("NVIDIA GeForce RTX 4090", "bf16") is None


def test_this_machine_is_described(tmp_path: Path) -> None:
    cpu = read_cpu_info()
    assert cpu.logical_cpus >= 1 and cpu.physical_cores >= 1
    m = Machine("numpy", "cpu", cpu, threads=1, math_library="OpenBLAS 0.3 (test)")
    text = m.describe()
    assert cpu.model in text and "OpenBLAS" in text and "1 thread" in text
    assert Machine.from_dict(m.to_dict()) == m
