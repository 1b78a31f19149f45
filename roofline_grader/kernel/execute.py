"""SealedExecute: nbgrader's executor, with the hidden tests judged outside the student's kernel.

nbgrader decides a test cell's score from its outputs: an error output means zero. Everything a
kernel emits is under the control of the student's code, which runs in the same kernel before the
tests (it can patch roofline_lib or numpy, redefine builtins, swallow exceptions, even stop the test
code from running). So for the cells of :mod:`roofline_grader.checks`:

1. before the kernel starts, the grader draws each part's plan (the shapes to try) from a seed made
   of the student, the part and a digest of the student's answers (:func:`answers_digest`: a
   resubmission with other code meets other shapes, a regrade of the same file the same ones),
   and writes the plans to the kernel's private plan file;
2. the cell runs as usual; its visible checks run in the kernel, and its hidden region
   (``roofline_grader.hidden.check``) sends back the student's raw answers as plain data;
3. the grader judges those answers here, in a process the student's code never ran in, against
   references from roofline_lib, and **rewrites the cell's outputs**: nothing if every check
   passed, one error output listing the hints if any failed. A cell passes only if the kernel
   reported no error *and* the answers are right, so tampering with the kernel can only lose
   points.

Around that, the executor keeps one bad cell from costing the rest of the notebook:

* a cell that runs past the timeout is interrupted (nbgrader's behaviour); a kernel that ignores the
  interrupt, or dies (``os._exit``, a crash), is replaced by a fresh one in which the earlier cells
  are replayed (outputs discarded), and execution goes on after the culprit;
* a kernel that dies while a hidden check calls one of the student's functions (the check announces
  each call, ``hidden.PROBE_MIME``) costs only the parts that call it: that function is never called
  again (``hidden.SKIP``: a later part's follow-through from it is then not available, and the part
  is judged against the references alone), and a part whose follow-through probe of an earlier
  function crashed is checked again at once in the fresh kernel;
* output beyond ``max_output_bytes`` per cell is dropped as it arrives, counting every output
  channel (streams, every MIME type, display updates); the saved notebook is measured again at the
  end, and widget state (comm messages) is neither kept nor saved;
* the whole notebook has a time budget, after which the remaining cells are marked as not run;
* every kernel runs in a bubblewrap sandbox of its own with limits for the whole kernel
  (:mod:`roofline_grader.kernel.sandbox`) and, with ``prestart``, boots one notebook ahead
  (:mod:`roofline_grader.kernel.warm`).

What happened is written next to the notebook, as ``<notebook>.roofline.json``: the sandbox used,
every event (timeouts, deaths, errors, truncations) and each part's findings, which the reports and
the feedback pages are made from.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jupyter_core.utils import ensure_async, run_sync
from nbclient.client import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat import NotebookNode
from nbformat.v4 import new_output
from nbgrader import utils
from traitlets import Bool, Enum, Float, Integer, List, Unicode

from roofline_grader.checks import PARTS, Check, Finding, Probe, make_plan
from roofline_grader.hidden import PROBE_MIME, RECORD_MIME, SKIP
from roofline_grader.kernel import warm
from roofline_grader.kernel.nbclient_adapter import AdaptedExecute
from roofline_grader.kernel.sandbox import SANDBOX_MODES, KernelDir
from roofline_grader.results import Event, ProblemKind, Verdict

REPORT_SUFFIX = ".roofline.json"
"""The execution report is written as ``<notebook id><REPORT_SUFFIX>`` next to the notebook."""
MAX_RECORD_BYTES = 4 * 2**20
"""Room for a hidden check's answers record, apart from the cell's output cap."""
MAX_TEXT = 300


def hidden_check(cell: NotebookNode) -> Check | None:
    """The hidden test of a grade cell of code (a test cell), None for any other cell."""
    if cell.cell_type != "code" or not utils.is_grade(cell) or utils.is_solution(cell):
        return None
    part = PARTS.get(cell.metadata["nbgrader"].get("grade_id", ""))
    return None if part is None else part.check


def answers_digest(nb: NotebookNode) -> str:
    """A digest of the student's answers (the source of every answer cell), mixed into the seed of
    the hidden inputs: a resubmission with other code meets other inputs, and a regrade of the same
    file the same ones."""
    sources = [c.source for c in nb.cells if c.cell_type == "code" and utils.is_solution(c)]
    return hashlib.sha256("\0".join(sources).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _last_probe(cell: NotebookNode) -> tuple[str, str] | None:
    """(function, probe key) of the probe a hidden check was calling when the kernel died: the last
    marker it sent (hidden.PROBE_MIME) announces a probe and none says it finished. None when the
    last marker says a probe finished (the next one's announcement was lost with the kernel) or
    there is none: the death is then pinned on no function."""
    for output in reversed(cell.outputs):
        text = output.get("data", {}).get(PROBE_MIME) if "data" in output else None
        if text is None:
            continue
        try:
            marker = json.loads(text)
            if marker.get("done"):
                return None
            return str(marker["name"]), str(marker["key"])
        except (ValueError, KeyError, TypeError, AttributeError):
            return None
    return None


def is_hidden_check(cell: NotebookNode) -> bool:
    """A grade cell of code (a test cell) whose part has a hidden test."""
    return hidden_check(cell) is not None


def _error(ename: str, evalue: str) -> NotebookNode:
    lines = evalue.splitlines() or [""]
    output: NotebookNode = new_output(
        "error", ename=ename, evalue=evalue, traceback=[f"{ename}: {x}" for x in lines]
    )
    return output


_TERMINAL_CODES = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-_]|[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""ANSI escape sequences and control characters, which a student's error text may carry."""


def _short(text: str) -> str:
    """One line, at most MAX_TEXT characters, without terminal codes, control characters or
    IPython's temporary cell file names: all of a student's text that a report or page shows."""
    text = _TERMINAL_CODES.sub("", str(text))
    text = re.sub(r"\(\d+\.py, line (\d+)\)", r"(line \1)", " ".join(text.split()))
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


@dataclass(frozen=True)
class ExecutionReport:
    """What happened while a notebook ran, as ``<notebook>.roofline.json`` records it.

    Attributes:
        sandbox: the kernel's sandbox, as :meth:`roofline_grader.kernel.sandbox.KernelHome.describe` puts it.
        stopped: why the cells after some point were not run ('' when all were).
        events: every timeout, death, error, truncation and restart, in order.
        verdicts: the hidden checks' verdict on each part they judged, by grade id.
    """

    sandbox: Mapping[str, Any] = field(default_factory=dict)
    stopped: str = ""
    events: tuple[Event, ...] = ()
    verdicts: Mapping[str, Verdict] = field(default_factory=dict)

    VERSION = 1

    def write(self, path: Path) -> None:
        data = {
            "version": self.VERSION,
            "sandbox": dict(self.sandbox),
            "stopped": self.stopped,
            "events": [e.to_json() for e in self.events],
            "verdicts": {gid: v.to_json() for gid, v in self.verdicts.items()},
        }
        path.write_text(json.dumps(data, indent=1), encoding="utf-8")

    @classmethod
    def read(cls, path: Path) -> ExecutionReport:
        """The report at ``path``; an empty one if there is none (nbgrader never ran the cells)."""
        if not path.is_file():
            return cls()
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(
            sandbox=dict(data.get("sandbox") or {}),
            stopped=str(data.get("stopped", "")),
            events=tuple(Event.from_json(e) for e in data.get("events", [])),
            verdicts={g: Verdict.from_json(v) for g, v in data.get("verdicts", {}).items()},
        )


class SealedExecute(AdaptedExecute):
    """nbgrader's Execute preprocessor with out-of-kernel verdicts and recovery; see the module."""

    sandbox = Enum(SANDBOX_MODES, "on", help="Kernel sandbox: on (bubblewrap) or off.").tag(
        config=True
    )
    hidden_paths = List(Unicode(), help="Directories hidden from the kernel.").tag(config=True)
    notebook_timeout = Integer(600, help="Seconds for the whole notebook.").tag(config=True)
    max_output_bytes = Integer(1_000_000, help="Output kept per cell, bytes.").tag(config=True)
    max_restarts = Integer(3, help="Kernel replacements allowed per notebook.").tag(config=True)
    seed = Unicode("", help="Extra text mixed into the seeds of the hidden tests.").tag(config=True)
    started_at = Float(
        0.0, help="When grading the notebook began (time.time()); the budget counts from it."
    ).tag(config=True)
    student_id = Unicode(
        "", help="The student the plans are drawn for (default: the notebook's student)."
    ).tag(config=True)
    kernel_root = Unicode("", help="Where kernel directories go (default: temp).").tag(config=True)
    prestart = Bool(
        False, help="Boot the next notebook's kernel while this one runs (roofline-grade does)."
    ).tag(config=True)
    shutdown_kernel = Enum(["graceful", "immediate"], "immediate").tag(config=True)
    kernel_name: str  # nbclient's trait (Unicode), named for mypy: nbgrader's Execute is untyped
    iopub_timeout = Integer(5).tag(config=True)

    # -- the run --------------------------------------------------------------------------------

    def preprocess(
        self, nb: NotebookNode, resources: Any = None, km: Any = None
    ) -> tuple[NotebookNode, Any]:
        self.begin(nb, resources, km)
        self.timeout_func = self.cell_timeout
        info = (self.resources or {}).get("nbgrader", {})
        student = self.student_id or info.get("student", "")
        seed = f"{self.seed}|{student}|{info.get('assignment', '')}|{answers_digest(nb)}"
        self._plans: dict[str, dict[str, Probe]] = {}
        for cell in nb.cells:
            if (check := hidden_check(cell)) is not None:
                grade_id = cell.metadata["nbgrader"]["grade_id"]
                self._plans[grade_id] = make_plan(check, f"{seed}|{grade_id}")
        self._events: list[Event] = []
        self._verdicts: dict[str, Verdict] = {}
        self._no_replay: set[int] = set()
        self._restarts = 0
        self._crashed: dict[str, str] = {}  # function → the part whose checks it crashed
        self._retried: set[int] = set()
        self._stopped = ""
        self._answer_error: dict[str, str] = {}
        self._deadline = self.budget_deadline()
        self._kernel: KernelDir | None = None
        self._home = warm.home_for(self.sandbox, self.hidden_paths, self.kernel_root)
        if not self.kernel_name:
            self.kernel_name = nb.metadata.get("kernelspec", {}).get("name") or "python3"
        try:
            run_sync(self._async_run)()
        finally:
            if self._kernel is not None:
                self._kernel.remove()
        self._cap_saved_outputs()
        self._write_report()
        return self.nb, self.resources

    def budget_deadline(self) -> float:
        """When the notebook's budget ends, on ``time.monotonic()``'s clock: ``notebook_timeout``
        seconds after grading it began (``started_at``: reading, repairing and nbgrader's
        preprocessing count), or after now without one."""
        spent = max(0.0, time.time() - self.started_at) if self.started_at else 0.0
        return time.monotonic() + self.notebook_timeout - spent

    async def _take_kernel(self) -> None:
        """Use a fresh kernel (a spare that booted in advance) and give it the plans."""
        if self._kernel is not None:
            self._kernel.remove()
        if self.prestart:
            self._kernel, self.km = await warm.take(self._home, self.kernel_name)
        else:
            self._kernel, self.km = await warm.launch(self._home, self.kernel_name)
        plans = {
            gid: [self._skip_if_crashed(p.to_json()) for p in plan.values()]
            for gid, plan in self._plans.items()
        }
        self._kernel.write_plan(json.dumps(plans))

    def _skip_if_crashed(self, probe: dict[str, Any]) -> dict[str, Any]:
        """A probe of a function that crashed the kernel is not called again (hidden.SKIP)."""
        where = self._crashed.get(str(probe["name"]))
        if where is None:
            return probe
        return {**probe, SKIP: f"{probe['name']} crashed the kernel when {where} called it"}

    async def _async_run(self) -> None:
        await self._take_kernel()
        async with self.async_setup_kernel():
            assert self.kc is not None
            reply = await self.async_wait_for_reply(await ensure_async(self.kc.kernel_info()))
            if reply is not None and "language_info" in reply["content"]:
                self.nb.metadata["language_info"] = reply["content"]["language_info"]
            if self.prestart:
                await warm.refill(self._home, self.kernel_name)
            for index, cell in enumerate(self.nb.cells):
                await self._run_cell(cell, index)

    async def _run_cell(self, cell: NotebookNode, index: int) -> None:
        if cell.cell_type != "code" or not cell.source.strip():
            return
        if not self._stopped and time.monotonic() > self._deadline:
            self._stopped = f"the notebook ran out of its {self.notebook_timeout} s budget"
        if self._stopped:
            cell.outputs = [_error("NotRun", f"not run: {self._stopped}")]
            self._event(index, cell, ProblemKind.NOT_RUN, self._stopped)
            if is_hidden_check(cell):
                self._judge(cell)
            return
        self._output_bytes, self._record_bytes, self._truncated = 0, 0, False
        try:
            await NotebookClient.async_execute_cell(
                self, cell, index, execution_count=self.code_cells_executed + 1
            )
        except (DeadKernelError, CellTimeoutError) as exc:
            died = isinstance(exc, DeadKernelError)
            kind = ProblemKind.KERNEL_DIED if died else ProblemKind.STUCK
            what = (
                "the kernel died"
                if died
                else f"ran past {self.timeout} s and ignored the interrupt"
            )
            crashed = _last_probe(cell) if is_hidden_check(cell) else None
            detail = f"{what} (os._exit, a crash, memory?)" if died else what
            if crashed is not None:
                name, key = crashed
                part = cell.metadata["nbgrader"]["grade_id"]
                self._crashed.setdefault(name, f"the checks of {part}")
                detail = f"{what} when the checks called {name}"
                if key.startswith("own:") and index not in self._retried:
                    # a follow-through probe of an earlier function: this part does not call
                    # it itself, so check it again, in a fresh kernel, without that probe
                    self._retried.add(index)
                    self._event(index, cell, kind, detail)
                    await self._recover(index)
                    if not self._stopped:
                        cell.outputs = []
                        await self._run_cell(cell, index)
                        return
            if died:
                cell.outputs.append(_error("KernelDied", "the kernel died while running this cell"))
            else:
                cell.outputs.append(
                    _error(
                        "CellTimeoutError",
                        f"the cell ran past {self.timeout} s and ignored interrupts",
                    )
                )
            self._event(index, cell, kind, detail)
            await self._recover(index)
        else:
            self._note_errors(cell, index)
        if utils.is_solution(cell):
            errors = [o for o in cell.outputs if o.output_type == "error"]
            self._answer_error = dict(errors[0]) if errors else {}
        if self._truncated:
            note = f"[output beyond {self.max_output_bytes:,} bytes was dropped]\n"
            cell.outputs.append(new_output("stream", name="stdout", text=note))
            self._event(
                index,
                cell,
                ProblemKind.OUTPUT_TRUNCATED,
                f"more than {self.max_output_bytes:,} bytes",
            )
        if is_hidden_check(cell):
            self._judge(cell)

    def _note_errors(self, cell: NotebookNode, index: int) -> None:
        errors = [o for o in cell.outputs if o.output_type == "error"]
        if any(o.get("ename") == "CellTimeoutError" for o in errors):
            self._no_replay.add(index)
            self._event(
                index, cell, ProblemKind.TIMEOUT, f"ran past {self.timeout} s and was interrupted"
            )
        elif (
            errors and not utils.is_grade(cell) and errors[0].get("ename") != "NotImplementedError"
        ):
            first = errors[0]
            self._event(
                index, cell, ProblemKind.ERROR, f"{first.get('ename')}: {first.get('evalue', '')}"
            )

    # -- recovery ---------------------------------------------------------------------------------

    async def _recover(self, index: int) -> None:
        """Replace a dead or stuck kernel and replay the cells before ``index`` into it."""
        self._no_replay.add(index)
        self._restarts += 1
        if self._restarts > self.max_restarts:
            self._stopped = f"the kernel died or hung {self._restarts} times"
            await self.stop_kernel()
            return
        await self.stop_kernel()
        await self._take_kernel()
        await self.async_start_new_kernel_client()
        if self.prestart:
            await warm.refill(self._home, self.kernel_name)
        self._event(
            index,
            self.nb.cells[index],
            ProblemKind.RESTARTED,
            "a fresh kernel replayed the cells before it",
        )
        for i in range(index):
            original = self.nb.cells[i]
            if i in self._no_replay or original.cell_type != "code" or utils.is_grade(original):
                continue
            try:
                await NotebookClient.async_execute_cell(
                    self, copy.deepcopy(original), i, store_history=False
                )
            except (DeadKernelError, CellTimeoutError):
                self._stopped = "the kernel could not be restored after it died or hung"
                return
            finally:
                self.nb.cells[i] = original

    # -- kernels ----------------------------------------------------------------------------------

    def create_kernel_manager(self) -> Any:
        raise RuntimeError("SealedExecute takes its kernels from roofline_grader.kernel.warm")

    def cell_timeout(self, cell: NotebookNode) -> int:
        """Seconds ``cell`` may run: the per-cell timeout, capped by what is left of the notebook's
        budget (nbclient's ``timeout_func``; at least 1 s)."""
        remaining = max(1, int(self._deadline - time.monotonic()))
        timeout = self.timeout if self.timeout and self.timeout > 0 else None
        return remaining if timeout is None else min(timeout, remaining)

    def output(
        self, outs: list[NotebookNode], msg: dict[str, Any], display_id: str | None, cell_index: int
    ) -> NotebookNode | None:
        if not self._within_cap(msg, cell_index):
            return None
        output: NotebookNode | None = super().output(outs, msg, display_id, cell_index)
        return output

    def process_message(
        self, msg: dict[str, Any], cell: NotebookNode, cell_index: int
    ) -> NotebookNode | None:
        # display updates change outputs in place, without output(): count them here
        if msg.get("msg_type") == "update_display_data" and not self._within_cap(msg, cell_index):
            return None
        output: NotebookNode | None = super().process_message(msg, cell, cell_index)
        return output

    def _within_cap(self, msg: dict[str, Any], cell_index: int) -> bool:
        """Count a message's content against the cell's cap (a hidden check's one answers record
        against a budget of its own, so that printing cannot crowd out the answers)."""
        content = msg.get("content", {})
        size = len(json.dumps(content, default=str))
        cell = self.nb.cells[cell_index]
        if RECORD_MIME in (content.get("data") or {}) and is_hidden_check(cell):
            self._record_bytes += size
            if self._record_bytes <= MAX_RECORD_BYTES:
                return True
        else:
            self._output_bytes += size
            if self._output_bytes <= self.max_output_bytes:
                return True
        self._truncated = True
        return False

    def handle_comm_msg(self, outs: Any, msg: dict[str, Any], cell_index: int) -> None:
        """Widget state is not kept: nothing needs it to grade, and it has no cap of its own."""

    def _cap_saved_outputs(self) -> None:
        """Measure what will be saved, cell by cell, and drop what is over the cap (display
        updates can grow an earlier cell's outputs after it ran)."""
        self.nb.metadata.pop("widgets", None)
        for index, cell in enumerate(self.nb.cells):
            if cell.cell_type != "code" or not cell.get("outputs"):
                continue
            kept, total = [], 0
            for out in cell.outputs:
                total += len(json.dumps(out, default=str))
                if total > self.max_output_bytes:
                    note = f"[output beyond {self.max_output_bytes:,} bytes was dropped]\n"
                    kept.append(new_output("stream", name="stdout", text=note))
                    if not any(
                        e.cell == index and e.kind is ProblemKind.OUTPUT_TRUNCATED
                        for e in self._events
                    ):
                        self._event(
                            index,
                            cell,
                            ProblemKind.OUTPUT_TRUNCATED,
                            f"more than {self.max_output_bytes:,} bytes",
                        )
                    break
                kept.append(out)
            cell.outputs = kept

    # -- verdicts ---------------------------------------------------------------------------------

    def _judge(self, cell: NotebookNode) -> None:
        """Judge a hidden-check cell from its outputs, and rewrite them to show only the verdict."""
        grade_id = cell.metadata["nbgrader"]["grade_id"]
        records = [
            record
            for o in cell.outputs
            if o.output_type in ("display_data", "execute_result")
            and RECORD_MIME in o.get("data", {})
            for record in [_record(o["data"][RECORD_MIME])]
            if record is not None and record.get("grade_id") == grade_id
        ]
        errors = [o for o in cell.outputs if o.output_type == "error"]
        if errors:
            hint = explain(errors[0], self.timeout, self._answer_error)
            findings = [Finding("visible checks", False, hint)]
        elif not records:
            findings = [
                Finding(
                    "the hidden checks ran",
                    False,
                    "the hidden checks did not report back: the notebook's code changed how cells run",
                )
            ]
        elif len(records) > 1:
            findings = [
                Finding(
                    "the hidden checks ran",
                    False,
                    "the answers were reported more than once: the notebook's code added its own",
                )
            ]
        else:
            findings = self._verify(grade_id, records[0])
        passed = bool(findings) and all(f.passed for f in findings)
        hints = "\n".join(f"{f.label}: {f.hint}" for f in findings if not f.passed)
        cell.outputs = [] if passed else [_error("CheckFailed", hints)]
        self._verdicts[grade_id] = Verdict(passed, tuple(findings))

    def _verify(self, grade_id: str, record: dict[str, Any]) -> list[Finding]:
        answers = record.get("answers")
        if not isinstance(answers, dict):
            return [Finding("the hidden checks ran", False, "the answers could not be read")]
        check = PARTS[grade_id].check
        assert check is not None
        try:
            return check.verify(self._plans[grade_id], answers)
        except Exception as exc:  # malformed answers that slipped past the kernel's checks
            return [
                Finding(
                    "the hidden checks ran", False, f"the answers could not be judged ({exc!r})"
                )
            ]

    # -- the report -------------------------------------------------------------------------------

    def _event(self, index: int, cell: NotebookNode, kind: ProblemKind, detail: str) -> None:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        self._events.append(Event(index, grade_id, kind, _short(detail)))

    def _write_report(self) -> None:
        path = (self.resources or {}).get("metadata", {}).get("path")
        notebook = (self.resources or {}).get("nbgrader", {}).get("notebook")
        if not path or not notebook:
            return
        report = ExecutionReport(
            sandbox=self._home.describe(),
            stopped=self._stopped,
            events=tuple(self._events),
            verdicts=dict(self._verdicts),
        )
        report.write(Path(path) / f"{notebook}{REPORT_SUFFIX}")


def _record(data: Any) -> dict[str, Any] | None:
    """A hidden test's answers record, parsed; None if it is not one."""
    try:
        record = json.loads("".join(data) if isinstance(data, list) else data)
    except (TypeError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def explain(error: NotebookNode, timeout: int | None, answer_error: dict[str, Any]) -> str:
    """A hint, in words, for an error output of a check cell.

    ``answer_error`` is the error of the last answer cell run before it, if it had one.
    """
    ename, evalue = str(error.get("ename", "")), _short(error.get("evalue", ""))
    answer_ename = str(answer_error.get("ename", ""))
    if ename == "AssertionError":
        return evalue or "a visible check failed"
    if ename == "NotImplementedError" or (
        ename == "NameError" and answer_ename == "NotImplementedError"
    ):
        return "not answered yet: the answer still raises NotImplementedError"
    if ename == "NameError" and answer_ename:
        answer_evalue = _short(answer_error.get("evalue", ""))
        return f"{evalue}, because the answer cell failed with {answer_ename}: {answer_evalue}"
    if ename == "NameError":
        return f"{evalue}: the answer cell must define it"
    if ename in ("CellTimeoutError", "KeyboardInterrupt"):
        return f"the checks did not finish within {timeout} s: is there an endless loop?"
    if ename == "KernelDied":
        return "the kernel died while running the checks (os._exit, a crash, or too much memory)"
    if ename == "NotRun":
        return evalue
    return f"{ename}: {evalue}" if evalue else ename
