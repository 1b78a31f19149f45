"""The torch backend: matmuls by cuBLAS (or rocBLAS) on a GPU, or by torch's CPU kernels when
``device="cpu"`` is asked for explicitly.

On a GPU every timing is synchronised: :class:`CudaEventTimer` records CUDA events around the
calls and waits for the second one, so the time is the GPU's, not the Python loop's (which only
queues kernels and returns at once). The triad is the fused ``torch.add(b, c, alpha=s, out=a)``,
one pass over memory. torch is imported only when this backend is built.

Dtypes: on a GPU 'bf16' (the default, the tensor cores' rate), 'fp16' and 'fp32' (tensor cores
off: torch's default ``allow_tf32=False``); on the CPU 'fp32' (the default), 'fp64' and 'bf16'.
"""

from __future__ import annotations

import contextlib
import platform
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .._checks import choice
from ..dtypes import DTYPES
from .backends import BackendUnavailableError
from .bandwidth import TRIAD_SCALAR, triad_size
from .cpuinfo import read_cpu_info
from .machine import GpuInfo, Machine
from .timing import Kernel, PerfCounterTimer, Timer

GPU_DTYPES = ("bf16", "fp16", "fp32")
CPU_DTYPES = ("fp32", "fp64", "bf16")
GPU_TRIAD_MIN_BYTES = 256 * 2**20
"""A GPU triad array holds at least this much (and at least 4× the L2), so the kernel runs long
enough for its launch to be negligible."""


def _torch() -> Any:
    try:
        import torch
    except ImportError:
        raise BackendUnavailableError(
            "backend='torch' needs PyTorch, which is not installed here; install torch, or use "
            "backend='numpy' (or 'auto')"
        ) from None
    return torch


class CudaEventTimer:
    """Seconds for ``calls`` back-to-back calls, read from two CUDA events on the current
    stream; waits for everything queued before the first event, and for the second event."""

    name = "cuda events"

    def __init__(self, torch: Any, device: Any) -> None:
        self._torch, self._device = torch, device

    def __call__(self, fn: Kernel, calls: int) -> float:
        cuda = self._torch.cuda
        start, end = cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)
        cuda.synchronize(self._device)
        start.record()
        for _ in range(calls):
            fn()
        end.record()
        end.synchronize()
        return float(start.elapsed_time(end)) / 1e3  # elapsed_time is in milliseconds


class TorchTriad:
    """a = b + s·c with ``torch.add(b, c, alpha=s, out=a)`` on fp64 tensors."""

    def __init__(self, torch: Any, device: Any, elements: int, threads: int) -> None:
        self.elements, self.threads = elements, threads
        self._a = torch.zeros(elements, dtype=torch.float64, device=device)
        self._b = torch.ones(elements, dtype=torch.float64, device=device)
        self._c = torch.full((elements,), 2.0, dtype=torch.float64, device=device)
        self._add = torch.add

    def __call__(self) -> None:
        self._add(self._b, self._c, alpha=TRIAD_SCALAR, out=self._a)

    @property
    def arrays(self) -> tuple[Any, Any, Any]:
        """(a, b, c), torch tensors."""
        return self._a, self._b, self._c

    def close(self) -> None:
        del self._a, self._b, self._c


def nvidia_driver_version(root: Path = Path("/")) -> str:
    """The NVIDIA kernel driver's version from /proc/driver/nvidia/version, or ``""``."""
    try:
        text = (root / "proc/driver/nvidia/version").read_text()
    except OSError:
        return ""
    match = re.search(r"Kernel Module\s+(?:for\s+\S+\s+)?([\d.]+)", text)
    return match.group(1) if match else ""


class TorchBackend:
    """torch on ``device`` ('cuda', 'cuda:N' or 'cpu'; None: the GPU, or an error if none)."""

    name = "torch"
    triad_method = "torch: torch.add(b, c, alpha=s, out=a), one fused pass"

    def __init__(self, device: str | None = None, threads: int | None = None) -> None:
        torch = _torch()
        self._t = torch
        if device is None:
            if not torch.cuda.is_available():
                raise BackendUnavailableError(
                    "backend='torch' found no GPU (torch.cuda.is_available() is False); pass "
                    "device='cpu' to run torch on the CPU, or use backend='numpy'"
                )
            device = "cuda"
        if not isinstance(device, str) or not re.fullmatch(r"cpu|cuda(:\d+)?", device):
            raise ValueError(f"device must be 'cpu', 'cuda' or 'cuda:N', got {device!r}")
        self._device = torch.device(device)
        self.cpu = read_cpu_info()
        self.is_gpu = self._device.type == "cuda"
        if self.is_gpu:
            if not torch.cuda.is_available():
                raise BackendUnavailableError(f"device={device!r}: no GPU visible to torch")
            if self._device.index is None:
                self._device = torch.device("cuda", torch.cuda.current_device())
            self.timer: Timer = CudaEventTimer(torch, self._device)
            self.dtypes: tuple[str, ...] = GPU_DTYPES
            self.default_dtype, self.default_dim = "bf16", 8192
            self.peak_sizes: tuple[int, ...] = (1024, 2048, 4096, 8192)
            self.min_repeat_s = 0.01
            props = torch.cuda.get_device_properties(self._device)
            l2 = getattr(props, "L2_cache_size", 0) or 0
            self.cache_bytes = int(l2) or 50 * 2**20
            self.threads = 1
            self._memory: int | None = int(props.total_memory)  # None: unknown (a CPU's)
        else:
            self.timer = PerfCounterTimer()
            self.dtypes = CPU_DTYPES
            self.default_dtype, self.default_dim = "fp32", 4096
            self.peak_sizes = (256, 512, 1024, 2048)
            self.min_repeat_s = 0.002
            self.cache_bytes = self.cpu.llc_or_fallback_bytes
            self.threads = threads or int(torch.get_num_threads())
            self._memory = self.cpu.available_memory_bytes
        self._requested_threads = None if self.is_gpu else threads
        self.device = str(self._device)

    # -- dtypes ------------------------------------------------------------------------------

    def _torch_dtype(self, dtype: str) -> Any:
        """The torch dtype of ``dtype`` ('bf16', 'fp16', 'fp32' or 'fp64')."""
        t = self._t
        kinds = {"bf16": t.bfloat16, "fp16": t.float16, "fp32": t.float32, "fp64": t.float64}
        return kinds[choice("dtype", dtype, kinds)]

    def check_dtype(self, dtype: str) -> str:
        choice("dtype", dtype, DTYPES)
        if dtype not in self.dtypes:
            where = "a GPU" if self.is_gpu else "the CPU"
            raise ValueError(
                f"dtype {dtype!r} is not measured by the torch backend on {where}; allowed: "
                f"{', '.join(repr(d) for d in self.dtypes)}"
            )
        return dtype

    def peak_dtypes(self, dtype: str) -> tuple[str, ...]:
        if self.is_gpu:
            return (dtype,)
        return (dtype, *(d for d in ("fp32", "fp64") if d != dtype))

    # -- the machine -------------------------------------------------------------------------

    @contextlib.contextmanager
    def session(self) -> Iterator[None]:
        t = self._t
        previous = t.get_num_threads()
        if self._requested_threads is not None:
            t.set_num_threads(self._requested_threads)
        try:
            with contextlib.ExitStack() as stack:
                stack.enter_context(t.inference_mode())
                if self.is_gpu:  # events, kernels and allocations all on this device
                    stack.enter_context(t.cuda.device(self._device))
                yield
        finally:
            t.set_num_threads(previous)

    def machine(self) -> Machine:
        t = self._t
        versions = {"python": platform.python_version(), "torch": t.__version__}
        try:
            import numpy

            versions["numpy"] = numpy.__version__
        except ImportError:  # pragma: no cover - numpy is a dependency of the course
            pass
        if not self.is_gpu:
            backends = [
                name
                for name, mod in (("MKL", "mkl"), ("oneDNN", "mkldnn"), ("OpenMP", "openmp"))
                if getattr(getattr(t.backends, mod, None), "is_available", lambda: False)()
            ]
            library = f"torch {t.__version__} CPU kernels ({', '.join(backends) or 'ATen'})"
            threads = t.get_num_threads()
            return Machine(
                self.name, self.device, self.cpu, threads, library, threads, None, versions
            )
        props = t.cuda.get_device_properties(self._device)
        driver = nvidia_driver_version()
        if not driver:
            with contextlib.suppress(Exception):
                v = int(t._C._cuda_getDriverVersion())
                driver = f"CUDA driver API {v // 1000}.{v % 1000 // 10}"
        hip = getattr(t.version, "hip", None)
        gpu = GpuInfo(
            name=t.cuda.get_device_name(self._device),
            driver=driver,
            cuda=(f"HIP {hip}" if hip else str(t.version.cuda or "")),
            memory_bytes=int(props.total_memory),
            l2_bytes=int(getattr(props, "L2_cache_size", 0) or 0) or None,
            multiprocessors=int(props.multi_processor_count),
            compute_capability=f"{props.major}.{props.minor}",
        )
        library = "rocBLAS/hipBLASLt" if hip else "cuBLAS/cuBLASLt"
        return Machine(self.name, self.device, self.cpu, 1, library, None, gpu, versions)

    # -- kernels -----------------------------------------------------------------------------

    def _random(self, shape: tuple[int, int], dtype: str) -> Any:
        g = self._t.Generator(device=self._device).manual_seed(0)
        return self._t.randn(
            shape, generator=g, dtype=self._torch_dtype(dtype), device=self._device
        )

    def square_matmul(self, n: int, dtype: str) -> Kernel:
        a, b = self._random((n, n), dtype), self._random((n, n), dtype)
        c = self._t.empty_like(a)
        mm = self._t.matmul
        return lambda: mm(a, b, out=c)

    def sweep_matmuls(self, max_batch: int, D: int, F: int, dtype: str) -> Callable[[int], Kernel]:
        x, w = self._random((max_batch, D), dtype), self._random((D, F), dtype)
        out = self._t.empty((max_batch, F), dtype=x.dtype, device=self._device)
        mm = self._t.matmul

        def for_batch(B: int) -> Kernel:
            xb, ob = x[:B], out[:B]
            return lambda: mm(xb, w, out=ob)

        return for_batch

    def triad(self, elements: int | None = None) -> TorchTriad:
        cache = max(self.cache_bytes, GPU_TRIAD_MIN_BYTES // 4) if self.is_gpu else self.cache_bytes
        available = int(self._memory * 0.9) if self.is_gpu and self._memory else self._memory
        n = triad_size(elements, cache, available)
        return TorchTriad(self._t, self._device, n, self.threads)

    def release(self) -> None:
        if self.is_gpu:
            self._t.cuda.empty_cache()

    def new_array(self, shape: tuple[int, ...], dtype: str, fill: float | None = None) -> Any:
        kind = self._torch_dtype(dtype)
        if fill is not None:
            return self._t.full(shape, fill, dtype=kind, device=self._device)
        return self._t.randn(shape, dtype=kind, device=self._device)

    def synchronize(self) -> None:
        if self.is_gpu:
            self._t.cuda.synchronize(self._device)
