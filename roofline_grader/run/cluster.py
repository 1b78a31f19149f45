"""Grade on a Dask cluster: ``roofline-grade SUBMISSIONS --cluster ADDRESS``.

``ADDRESS`` is ``local`` (a :class:`distributed.LocalCluster` of ``--jobs`` worker processes),
``local:N`` (N of them) or a running scheduler's address, ``tcp://HOST:PORT`` (``tls://`` too),
for workers started by ``dask worker``, dask-jobqueue or dask-kubernetes. The workers need the
course's Python environment (the same ``roofline_lib`` and ``roofline_grader``, as Dask requires of
every worker) and bubblewrap; they need no file of the instructor's:

* the **shipment** (:class:`Shipment`), sent once to each worker through the scheduler: the
  template gradebook's bytes, the release's grade cells, the run's settings, and the fingerprint
  of the grader that made them;
* each **submission** (:class:`Submission`) carries its notebook's bytes;
* each worker returns a :class:`Graded`: the typed result that the process pool returns
  (:class:`~roofline_grader.results.SubmissionResult`) and the autograded notebook's bytes.

The client merges results into the master gradebook in batches, one transaction each, then
records them in the journal, exactly as with the process pool (:func:`roofline_grader.run.runner`'s
second stage), so resume, rerun and ``--force`` behave the same.

A worker refuses work, loudly, when it cannot sandbox (``--no-sandbox`` not given) or when its
``roofline_lib``/``roofline_grader`` differ from the client's (the hidden checks would differ):
the run stops with :class:`ClusterError` naming the worker and the reason, and what was merged
stays merged. A worker process that dies has its tasks run again elsewhere by the scheduler. A
task the scheduler gives up on (it was running on ``allowed-failures`` + 1 workers that died: the
scheduler's ``distributed.scheduler.allowed-failures``, 3 by default) is a suspect, since it may
only have shared a worker with the culprit: after the others, each suspect is graded again alone,
and only one that takes its workers down again is marked failed, with the reason in the report.
A scheduler that goes away stops the run with :class:`ClusterError`; running the same command
again resumes. Dask is imported only here, and only when ``--cluster`` is given.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from roofline_grader.intake.discover import Task
from roofline_grader.results import SubmissionResult
from roofline_grader.run.engine import Job, OnResult, grade_isolating_culprits
from roofline_grader.run.journal import grader_fingerprint
from roofline_grader.run.worker import Settings

if TYPE_CHECKING:  # pragma: no cover
    from distributed import Client

QUIET_DASK = {
    "DASK_LOGGING__DISTRIBUTED": "error",
    "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False",
    "DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL": "1s",
    "DASK_DISTRIBUTED__ADMIN__SYSTEM_MONITOR__INTERVAL": "5s",
    "DASK_DISTRIBUTED__WORKER__MEMORY__MONITOR_INTERVAL": "1s",
    "DASK_DISTRIBUTED__SCHEDULER__WORK_STEALING": "False",
}
"""Dask settings for grading (environment variables; each one already set is left alone): no
statistical profiler, event-loop ticks, system and memory monitors at seconds rather than
milliseconds, and no work stealing (every task is one notebook, queued on the scheduler). On a
two-core machine the defaults cost a busy LocalCluster about a fifth of its speed; an idle one
used 3.5 CPU-seconds in 30 s with them and 0.5 without."""


def connect_timeout_s() -> float:
    """How long to try to reach the scheduler (at the start, or again after losing it) before
    giving up, in seconds: Dask's own ``distributed.comm.timeouts.connect`` (30 s unless set,
    e.g. ``DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT=60s`` for a slow network)."""
    import dask.config
    from dask.utils import parse_timedelta

    return float(parse_timedelta(dask.config.get("distributed.comm.timeouts.connect"), "s"))


IN_FLIGHT_PER_WORKER = 4
"""Submissions handed to the scheduler ahead, per worker: enough to keep every worker busy, few
enough that a class of 90,000 notebooks is not read into memory at once."""
_ADDRESS = re.compile(r"^(tcp|tls|inproc|ucx)://[^\s/]+(:\d+)?/?$")


class ClusterError(RuntimeError):
    """The cluster cannot be used: unreachable, lost, or a worker refused the work."""


class WorkerRefusedError(RuntimeError):
    """Raised on a worker that must not grade (no sandbox, a different grader)."""


@dataclass(frozen=True)
class ClusterSpec:
    """Where to grade: a LocalCluster of ``workers`` processes (None: as many as ``--jobs``), or
    the scheduler at ``address``."""

    address: str | None
    workers: int | None = None

    def local_workers(self, jobs: int) -> int:
        """How many worker processes a LocalCluster of this spec starts, given ``--jobs``."""
        return self.workers if self.workers is not None else max(1, jobs)

    def words(self, jobs: int) -> str:
        local = f"a local Dask cluster of {self.local_workers(jobs)} worker process(es)"
        return self.address or local


def parse_cluster(text: str) -> ClusterSpec:
    """``local``, ``local:N`` or ``tcp://HOST:PORT`` as a :class:`ClusterSpec`; ValueError naming
    ``--cluster`` and the allowed forms otherwise."""
    allowed = "allowed: local, local:N (N worker processes) or a scheduler address tcp://HOST:PORT"
    value = text.strip()
    if value == "local":
        return ClusterSpec(None)
    if value.startswith("local:"):
        count = value.partition(":")[2]
        if not count.isdigit() or int(count) < 1:
            raise ValueError(f"--cluster {text!r}: N must be a whole number >= 1; {allowed}")
        return ClusterSpec(None, int(count))
    if _ADDRESS.match(value):
        return ClusterSpec(value.rstrip("/"))
    raise ValueError(f"--cluster {text!r} is not a cluster; {allowed}")


@dataclass(frozen=True)
class Shipment:
    """What every worker needs for every task of a run, sent to each worker once."""

    template_db: bytes
    settings: Settings
    grader: str
    """Fingerprint of the client's roofline_lib and roofline_grader (journal.grader_fingerprint)."""


@dataclass(frozen=True)
class Submission:
    """One task with its notebook's bytes (None when no notebook was submitted)."""

    task: Task
    notebook: bytes | None


@dataclass(frozen=True)
class Graded:
    """A worker's answer: the result, the autograded notebook's bytes, and who graded it."""

    result: SubmissionResult
    autograded: bytes | None
    worker: str
    sandbox: str


# -- the worker's side ----------------------------------------------------------------------------


@dataclass
class _Installed:
    """A worker process's copy of one shipment: its folders and the settings that point there."""

    settings: Settings
    inbox: Path
    sandbox: str


_INSTALLED: dict[str, _Installed] = {}


def _install(shipment: Shipment, fingerprint: Callable[[], str]) -> _Installed:
    """Unpack ``shipment`` in this worker process (once per run), after checking that this worker
    may grade it; WorkerRefusedError says why not."""
    key = f"{shipment.grader}|{shipment.settings.scratch}"
    if key in _INSTALLED:
        return _INSTALLED[key]
    here = fingerprint()
    if here != shipment.grader:
        raise WorkerRefusedError(
            f"worker {_worker_address()}: its roofline_lib/roofline_grader (fingerprint "
            f"{here[:12]}) are not the ones the run was started with ({shipment.grader[:12]}): "
            "install the course's version on every worker"
        )
    from roofline_grader.kernel.sandbox import KernelHome, SandboxUnavailableError, scratch_root

    try:
        home = KernelHome(shipment.settings.sandbox)  # refuses when bubblewrap cannot run here
    except SandboxUnavailableError as exc:
        raise WorkerRefusedError(
            f"worker {_worker_address()} cannot sandbox the students' code: {exc}"
        ) from exc
    sandbox = home.summary()
    home.remove()
    pid = os.getpid()
    root = Path(tempfile.mkdtemp(prefix=f"roofline-grade-{pid}-dask-", dir=scratch_root()))
    kernels = Path(tempfile.mkdtemp(prefix=f"roofline-kernels-{pid}-dask-", dir=scratch_root()))
    atexit.register(shutil.rmtree, root, True)
    atexit.register(shutil.rmtree, kernels, True)
    (root / "template.db").write_bytes(shipment.template_db)
    inbox = root / "inbox"
    inbox.mkdir()
    scratch = root / "scratch"
    scratch.mkdir()
    settings = replace(
        shipment.settings,
        template_db=str(root / "template.db"),
        scratch=str(scratch),
        kernel_root=str(kernels),
        hidden_paths=(*shipment.settings.hidden_paths, str(root)),
    )
    installed = _Installed(settings, inbox, sandbox)
    _INSTALLED[key] = installed
    return installed


def _worker_address() -> str:
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        return f"pid {os.getpid()}"


def grade_remote(submission: Submission, shipment: Shipment) -> Graded:
    """Grade one submission on this worker (the function the client submits)."""
    from roofline_grader.run import worker

    installed = _install(shipment, grader_fingerprint)
    task = submission.task
    local = task
    if submission.notebook is not None:
        path = installed.inbox / f"{task.key}.ipynb"
        path.write_bytes(submission.notebook)
        local = replace(task, notebook=str(path))
    try:
        result = worker.grade(local, installed.settings)
        autograded = None
        if result.autograded and Path(result.autograded).is_file():
            autograded = Path(result.autograded).read_bytes()
    finally:
        if submission.notebook is not None:
            (installed.inbox / f"{task.key}.ipynb").unlink(missing_ok=True)
        shutil.rmtree(Path(installed.settings.scratch) / task.key, ignore_errors=True)
        (Path(installed.settings.scratch) / f"{task.key}.started").unlink(missing_ok=True)
    result = replace(result, notebook=task.notebook, autograded=None)
    return Graded(result, autograded, _worker_address(), installed.sandbox)


# -- the client's side ----------------------------------------------------------------------------


@dataclass
class WorkerTally:
    """What one worker graded in this run."""

    notebooks: int = 0
    seconds: float = 0.0


@dataclass
class ClusterEngine:
    """The :class:`~roofline_grader.run.engine.Engine` of a Dask cluster: a connected client (and
    the LocalCluster it started, if any). Each worker decides its own sandbox, and refuses to
    grade without one unless the run says ``--no-sandbox``."""

    spec: ClusterSpec
    client: Client
    jobs: int = 1
    local: Any = None
    sandbox: str = ""
    tallies: dict[str, WorkerTally] = field(default_factory=dict)
    give_up_after_s: float = field(default_factory=connect_timeout_s)
    """How long the scheduler may stay unreachable before the run stops (read once)."""
    wall_s: float = 0.0
    merge_s: float = 0.0
    """Time spent on results on the client: storing, merging and journaling them (serial: the
    limit of a very large cluster)."""

    @property
    def workers(self) -> int:
        return len(self.client.scheduler_info(n_workers=-1).get("workers", {}))

    @property
    def words(self) -> str:
        return self.spec.words(self.jobs)

    def check_sandbox(self, sandbox: str) -> None:
        pass  # each worker decides when the run's shipment reaches it

    def sandbox_note(self) -> str:
        return self.sandbox or "decided on each worker"

    def close(self) -> None:
        with contextlib.suppress(Exception):  # a lost scheduler: nothing to close politely
            self.client.close(timeout=10)
        if self.local is not None:
            self.local.close(timeout=30)
            self.local = None

    @property
    def merged(self) -> int:
        return sum(t.notebooks for t in self.tallies.values())

    def notes(self) -> list[str]:
        """The cluster, each worker's throughput and the client's merge time, for the report."""
        lines = [f"Cluster: {self.words}; {len(self.tallies)} worker(s) graded this run."]
        for address, tally in sorted(self.tallies.items()):
            each = tally.seconds / tally.notebooks if tally.notebooks else 0.0
            rate = tally.notebooks / self.wall_s * 60 if self.wall_s else 0.0
            lines.append(
                f"  {address}: {tally.notebooks} notebook(s), {each:.2f} s each, "
                f"{rate:.0f} a minute"
            )
        if self.merged:
            lines.append(
                f"  merging into the gradebook here: {self.merge_s / self.merged * 1000:.0f} ms "
                "a notebook (in batches, one transaction each, whatever the number of workers)"
            )
        return lines

    def as_json(self) -> dict[str, Any]:
        """The same, for report.json (seconds)."""
        return {
            "cluster": self.words,
            "wall_s": round(self.wall_s, 3),
            "merge_s": round(self.merge_s, 3),
            "workers": {
                address: {"notebooks": t.notebooks, "seconds": round(t.seconds, 3)}
                for address, t in sorted(self.tallies.items())
            },
        }

    def run(self, tasks: Sequence[Task], job: Job, on_result: OnResult) -> None:
        """Grade ``tasks`` on the cluster, calling ``on_result`` for each result as it arrives."""
        if not tasks:
            return
        started = time.monotonic()
        try:
            shipment = Shipment(job.template_db.read_bytes(), job.settings, job.grader)
            # a task, not scattered data: the scheduler keeps it and runs it again on another
            # worker if every worker that held its result dies (scattered data would be lost)
            shipped = self.client.submit(_shipment, shipment, pure=False)

            def batch(batch_tasks: Sequence[Task], window: int) -> list[Task]:
                return self._batch(
                    batch_tasks, window, shipped, job.settings, on_result, job.stuck_after_s
                )

            window = max(1, self.workers) * IN_FLIGHT_PER_WORKER
            grade_isolating_culprits(tasks, window, batch, job.settings, on_result)
        finally:
            self.wall_s += time.monotonic() - started

    def _lost(self, exc: BaseException | None = None) -> str:
        why = f" ({type(exc).__name__})" if exc is not None else ""
        return (
            f"lost the Dask scheduler at {self.words}{why}; what was graded is kept: run "
            "the same command again to grade the rest"
        )

    def _batch(
        self,
        tasks: Sequence[Task],
        window: int,
        shipped: Any,
        settings: Settings,
        on_result: OnResult,
        stuck_after_s: float,
    ) -> list[Task]:
        """Grade ``tasks``, at most ``window`` at a time on the scheduler; returns the tasks the
        scheduler gave up on (their workers died), without results."""
        from distributed import as_completed
        from distributed.client import FutureCancelledError
        from distributed.scheduler import KilledWorker

        queue: Iterator[Task] = iter(tasks)
        by_future: dict[Any, Task] = {}
        done = as_completed()
        suspects: list[Task] = []

        def submit_next() -> bool:
            task = next(queue, None)
            if task is None:
                return False
            data = Path(task.notebook).read_bytes() if task.notebook else None
            future = self.client.submit(grade_remote, Submission(task, data), shipped, pure=False)
            by_future[future] = task
            done.add(future)
            return True

        for _ in range(window):
            if not submit_next():
                break
        scratch = Path(settings.scratch)
        try:
            while by_future:
                future = self._next(done, stuck_after_s)
                task = by_future.pop(future)
                try:
                    graded: Graded = future.result()
                except KilledWorker:
                    suspects.append(task)
                except WorkerRefusedError as exc:
                    raise ClusterError(f"a Dask worker refused to grade: {exc}") from exc
                except (FutureCancelledError, OSError) as exc:
                    raise ClusterError(self._lost(exc)) from exc
                else:
                    result = self._receive(graded, task, scratch)
                    merging = time.monotonic()
                    on_result(result)
                    self.merge_s += time.monotonic() - merging
                future.release()
                submit_next()
        finally:
            for future in by_future:
                future.cancel()
        return suspects

    def _next(self, done: Any, stuck_after_s: float) -> Any:
        """The next finished future. ClusterError when the scheduler stays unreachable for
        ``give_up_after_s``, or nothing finishes for ``stuck_after_s``."""
        deadline = time.monotonic() + stuck_after_s
        unreachable_since: float | None = None
        while True:
            try:
                return _wait_one(done, 0.5)
            except TimeoutError:
                pass
            now = time.monotonic()
            if self.client.status == "running" and self._scheduler_reachable():
                unreachable_since = None
            else:
                unreachable_since = unreachable_since or now
                if now - unreachable_since > self.give_up_after_s or self.client.status in (
                    "closing",
                    "closed",
                ):
                    raise ClusterError(self._lost())
            if now > deadline:
                raise ClusterError(
                    f"no result from the cluster at {self.words} for {stuck_after_s:.0f} s "
                    "(are its workers alive?); what was graded is kept: run the same command "
                    "again to grade the rest"
                )

    def _scheduler_reachable(self) -> bool:
        comm = getattr(self.client.scheduler_comm, "comm", None)
        return comm is not None and not comm.closed()

    def _receive(self, graded: Graded, task: Task, scratch: Path) -> SubmissionResult:
        """The worker's result with its autograded notebook stored where the runner expects it."""
        tally = self.tallies.setdefault(graded.worker, WorkerTally())
        tally.notebooks += 1
        tally.seconds += graded.result.seconds or 0.0
        self.sandbox = self.sandbox or graded.sandbox
        result = graded.result
        if graded.autograded is not None:
            folder = scratch / task.key
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"{task.assignment}.ipynb"
            path.write_bytes(graded.autograded)
            result = replace(result, autograded=str(path))
        return result


def _shipment(shipment: Shipment) -> Shipment:
    """The run's shipment as a task's result (see :meth:`ClusterSession.run`)."""
    return shipment


def _wait_one(done: Any, timeout_s: float) -> Any:
    """The next future of an ``as_completed`` within ``timeout_s``; TimeoutError if none."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if done.has_ready():
            return next(done.__iter__())
        if done.is_empty():
            break
        time.sleep(0.05)
    raise TimeoutError


def connect(spec: ClusterSpec, jobs: int) -> ClusterEngine:
    """Connect to the cluster (starting a LocalCluster for ``local``, of ``jobs`` workers unless
    it says how many); ClusterError naming the address when it cannot be reached within
    :func:`connect_timeout_s`."""
    for name, value in QUIET_DASK.items():  # before Dask reads its configuration; inherited by
        os.environ.setdefault(name, value)  # the workers of a LocalCluster
    logging.getLogger("distributed").setLevel(logging.ERROR)
    from distributed import Client, LocalCluster

    if spec.address is None:
        local = LocalCluster(
            n_workers=spec.local_workers(jobs),
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
        return ClusterEngine(spec, Client(local), jobs, local)
    timeout_s = connect_timeout_s()
    try:
        client = Client(spec.address, timeout=timeout_s)
    except (OSError, TimeoutError) as exc:
        raise ClusterError(
            f"cannot reach the Dask scheduler at {spec.address} within {timeout_s:g} s "
            f"({type(exc).__name__}); nothing was graded or written"
        ) from exc
    return ClusterEngine(spec, client, jobs)
