"""The numpy backend: matmuls by numpy's BLAS (OpenBLAS, MKL, Accelerate ...), on the CPU.

**What it measures:** fp32 and fp64, the two dtypes BLAS multiplies (SGEMM, DGEMM) with every
core's SIMD units. **What it does not:** numpy multiplies float16 and integer matrices with its
own loops, not BLAS (BLAS has no half-precision or integer GEMM): on the course's 2-core machine
an int8 matmul runs near 3 GFLOP/s and an fp16 one near 0.5 GFLOP/s, against about 200 GFLOP/s
for fp32. Those numbers describe numpy's fallback loops, not the machine, so asking for them
raises a ValueError instead of measuring them badly; numpy has no bf16, fp8 or int4 at all.
Use the torch backend on a GPU for bf16 and fp16.

Threads: BLAS runs the matmuls on its own thread pool (its size, and the library, are read with
threadpoolctl and can be capped with ``threads``); the triad runs on as many Python threads.
"""

from __future__ import annotations

import contextlib
import platform
from collections.abc import Callable, Iterator

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits

from .._checks import choice
from ..dtypes import DTYPES
from .bandwidth import NumpyTriad, triad_block, triad_size
from .cpuinfo import CpuInfo, read_cpu_info
from .machine import Machine
from .timing import Kernel, PerfCounterTimer, Timer

NUMPY_DTYPES = {"fp32": np.float32, "fp64": np.float64}
"""The dtypes the numpy backend measures: the two BLAS multiplies."""

NUMPY_CANNOT = {
    "fp16": "numpy multiplies float16 matrices with its own loops, not BLAS (there is no "
    "half-precision GEMM in BLAS), hundreds of times below the machine's fp32 peak",
    "int8": "numpy multiplies integer matrices with its own loops, not BLAS (BLAS has no "
    "integer GEMM), tens of times below the machine's fp32 peak",
    "bf16": "numpy has no bfloat16 dtype",
    "fp8": "numpy has no 8-bit float dtype",
    "int4": "numpy has no 4-bit integer dtype",
    "tf32": "tf32 is a GPU tensor-core mode of fp32 matmuls; CPUs have no such mode",
}
"""Why each other dtype is refused."""

_BLAS_NAMES = {
    "openblas": "OpenBLAS",
    "mkl": "Intel MKL",
    "blis": "BLIS",
    "accelerate": "Accelerate",
}


def blas_description(info: list[dict[str, object]]) -> tuple[str, int | None]:
    """(library, threads) from threadpoolctl's ``threadpool_info()``: the first BLAS entry,
    e.g. ("OpenBLAS 0.3.31 (SkylakeX kernels, pthreads)", 2)."""
    for entry in info:
        if entry.get("user_api") == "blas":
            api = str(entry.get("internal_api", "BLAS"))
            name = _BLAS_NAMES.get(api, api)
            version = entry.get("version") or ""
            extras = []
            if entry.get("architecture"):
                extras.append(f"{entry['architecture']} kernels")
            if entry.get("threading_layer"):
                extras.append(str(entry["threading_layer"]))
            tail = f" ({', '.join(extras)})" if extras else ""
            threads = entry.get("num_threads")
            return f"{name} {version}".strip() + tail, threads if isinstance(threads, int) else None
    return "no BLAS found by threadpoolctl (numpy's own loops)", None


class NumpyBackend:
    """numpy + BLAS on the CPU. ``threads`` caps BLAS's threads (None: BLAS's own default)."""

    name = "numpy"
    device = "cpu"
    dtypes = tuple(NUMPY_DTYPES)
    default_dtype = "fp32"
    default_dim = 4096
    peak_sizes: tuple[int, ...] = (256, 512, 1024, 2048)
    min_repeat_s = 0.002
    triad_method = (
        "numpy: np.multiply(c, s, out=a); np.add(a, b, out=a), block by block so that a is still "
        "in cache for the second pass; one contiguous part of the arrays per thread"
    )

    def __init__(self, threads: int | None = None, cpu: CpuInfo | None = None) -> None:
        self._requested_threads = threads
        self.timer: Timer = PerfCounterTimer()
        self.cpu = cpu or read_cpu_info()
        _, blas_threads = blas_description(threadpool_info())
        self.threads = threads or blas_threads or 1
        self.cache_bytes = self.cpu.llc_or_fallback_bytes
        self._rng = np.random.default_rng(0)

    @contextlib.contextmanager
    def session(self) -> Iterator[None]:
        if self._requested_threads is None:
            yield
            return
        with threadpool_limits(limits=self._requested_threads, user_api="blas"):
            yield

    def check_dtype(self, dtype: str) -> str:
        choice("dtype", dtype, DTYPES)
        if dtype not in NUMPY_DTYPES:
            raise ValueError(
                f"dtype {dtype!r} cannot be measured well with the numpy backend: "
                f"{NUMPY_CANNOT.get(dtype, 'unsupported')}. Allowed for numpy: "
                f"{', '.join(repr(d) for d in NUMPY_DTYPES)}; backend='torch' on a GPU "
                "measures 'bf16' and 'fp16'"
            )
        return dtype

    def peak_dtypes(self, dtype: str) -> tuple[str, ...]:
        return (dtype, *(d for d in NUMPY_DTYPES if d != dtype))

    def machine(self) -> Machine:
        library, lib_threads = blas_description(threadpool_info())
        return Machine(
            backend=self.name,
            device=self.device,
            cpu=self.cpu,
            threads=lib_threads or self.threads,
            math_library=library,
            math_library_threads=lib_threads,
            versions={"python": platform.python_version(), "numpy": np.__version__},
        )

    def _random(self, shape: tuple[int, int], dtype: str) -> np.ndarray:
        """Uniform [0, 1) values; filled by tiling a 64-row random block (values do not change
        a BLAS matmul's speed, and drawing hundreds of MiB of random numbers would)."""
        out = np.empty(shape, dtype=NUMPY_DTYPES[dtype])
        block = self._rng.random((min(64, shape[0]), shape[1])).astype(out.dtype)
        for start in range(0, shape[0], block.shape[0]):
            rows = out[start : start + block.shape[0]]
            rows[...] = block[: rows.shape[0]]
        return out

    def square_matmul(self, n: int, dtype: str) -> Kernel:
        a, b = self._random((n, n), dtype), self._random((n, n), dtype)
        c = np.empty_like(a)
        return lambda: np.matmul(a, b, out=c)

    def sweep_matmuls(self, max_batch: int, D: int, F: int, dtype: str) -> Callable[[int], Kernel]:
        x, w = self._random((max_batch, D), dtype), self._random((D, F), dtype)
        out = np.empty((max_batch, F), dtype=x.dtype)

        def for_batch(B: int) -> Kernel:
            xb, ob = x[:B], out[:B]
            return lambda: np.matmul(xb, w, out=ob)

        return for_batch

    def triad(self, elements: int | None = None) -> NumpyTriad:
        threads = max(1, min(self.threads, self.cpu.logical_cpus))
        block = triad_block(self.cache_bytes, threads)
        n = triad_size(elements, self.cache_bytes, self.cpu.available_memory_bytes, block * threads)
        return NumpyTriad(n, threads, block)

    def release(self) -> None:
        return None

    def new_array(
        self, shape: tuple[int, ...], dtype: str, fill: float | None = None
    ) -> np.ndarray:
        kind = NUMPY_DTYPES[choice("dtype", dtype, NUMPY_DTYPES)]
        if fill is not None:
            return np.full(shape, fill, dtype=kind)
        return self._rng.standard_normal(shape).astype(kind)

    def synchronize(self) -> None:
        return None  # numpy's calls return when their work is done
