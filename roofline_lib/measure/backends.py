"""Backends: what runs the kernels. ``numpy`` on the CPU, ``torch`` on a GPU (or, when asked
explicitly, on the CPU).

:func:`select_backend` picks one by name; ``"auto"`` takes torch when it is installed and a CUDA
(or ROCm) GPU is present, and numpy otherwise. torch is optional: nothing here imports it unless
the torch backend is chosen or ``"auto"`` looks for a GPU.

A backend provides, for the measurement modules: a timer, the square matmul for the peak, the
sweep's matmuls, the triad, a description of the machine, and the dtypes it can measure well;
and, for code that times its own loops (tools/bench_measure.py), new arrays on its device and a
way to wait for the device.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, Protocol

from .._checks import UnknownNameError
from .machine import Machine
from .timing import Kernel, Timer

BACKENDS = ("auto", "numpy", "torch")
"""Allowed values of ``backend``."""


class BackendUnavailableError(RuntimeError):
    """The chosen backend cannot run here (torch not installed, or no GPU for it)."""


class Triad(Protocol):
    """A triad kernel: call it to run a = b + s·c once over its arrays."""

    elements: int
    threads: int

    def __call__(self) -> None: ...

    def close(self) -> None: ...


class Backend(Protocol):
    """What :func:`roofline_lib.measure.measure` needs from a backend."""

    name: str
    device: str
    timer: Timer
    dtypes: tuple[str, ...]
    default_dtype: str
    default_dim: int
    peak_sizes: tuple[int, ...]
    min_repeat_s: float
    threads: int
    cache_bytes: int
    triad_method: str

    def session(self) -> AbstractContextManager[object]:
        """A context in which the measurement runs (e.g. thread limits applied)."""
        ...

    def check_dtype(self, dtype: str) -> str:
        """``dtype`` if this backend measures it well; else a ValueError saying why not."""
        ...

    def peak_dtypes(self, dtype: str) -> tuple[str, ...]:
        """The dtypes whose peak is measured when the sweep runs in ``dtype`` (it first)."""
        ...

    def machine(self) -> Machine: ...

    def square_matmul(self, n: int, dtype: str) -> Kernel: ...

    def sweep_matmuls(self, max_batch: int, D: int, F: int, dtype: str) -> Callable[[int], Kernel]:
        """Operands for B up to ``max_batch``; the result maps B to the kernel for that B."""
        ...

    def triad(self, elements: int | None = None) -> Triad:
        """The triad over ``elements`` fp64 elements per array (a positive integer), or, by
        default, arrays of at least 4 × the last-level cache (see :func:`.bandwidth.triad_size`)."""
        ...

    def release(self) -> None:
        """Give back memory held by finished kernels (a GPU's caching allocator)."""
        ...

    def new_array(self, shape: tuple[int, ...], dtype: str, fill: float | None = None) -> Any:
        """A new array (numpy) or tensor (torch) on this backend's device, as a script makes
        one: standard normal values, or ``fill`` everywhere. ``dtype``: one the backend's arrays
        can hold ('fp32' and 'fp64' always; an UnknownNameError lists them otherwise)."""
        ...

    def synchronize(self) -> None:
        """Wait until the device has finished all work queued so far (on the CPU, nothing to
        wait for: the call returns at once)."""
        ...


def torch_gpu_available() -> bool:
    """True when torch imports and sees a CUDA (or ROCm) GPU. Never raises."""
    try:
        import torch
    except Exception:
        return False
    try:
        return bool(torch.cuda.is_available())
    except Exception:
        return False


def select_backend(
    backend: str = "auto", *, device: str | None = None, threads: int | None = None
) -> Backend:
    """The backend named ``backend`` ('auto', 'numpy' or 'torch').

    ``device`` is for torch: ``"cuda"``, ``"cuda:1"`` or ``"cpu"`` (default: the GPU, and an
    error if there is none, so a CPU run of torch is always asked for explicitly). ``threads``
    caps the CPU threads (BLAS threads for numpy, intra-op threads for torch on the CPU).
    """
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise UnknownNameError(
            f"unknown backend {backend!r}; allowed: {', '.join(repr(b) for b in BACKENDS)}"
        )
    if threads is not None and (
        isinstance(threads, bool) or not isinstance(threads, int) or threads < 1
    ):
        raise ValueError(f"threads must be a positive integer or None, got {threads!r}")
    if backend == "auto":
        if device not in (None, "cpu") and not str(device).startswith("cuda"):
            raise ValueError(f"device must be None, 'cpu' or 'cuda[:N]', got {device!r}")
        backend = "torch" if device != "cpu" and torch_gpu_available() else "numpy"
        if backend == "numpy" and device is not None and device != "cpu":
            raise BackendUnavailableError(f"device={device!r}: no GPU visible to torch")
        if backend == "numpy":
            device = None
    if backend == "numpy":
        if device not in (None, "cpu"):
            raise ValueError(f"device must be None or 'cpu' for the numpy backend, got {device!r}")
        from .numpy_backend import NumpyBackend

        return NumpyBackend(threads=threads)
    from .torch_backend import TorchBackend

    return TorchBackend(device=device, threads=threads)
