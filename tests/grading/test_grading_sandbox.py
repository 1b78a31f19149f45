"""A hostile class: submissions that attack the sandbox, graded in one run beside honest students.

Each attacker hands in Problem 1 solved, with one extra cell at the top that attacks and prints what
it found as JSON; the autograded notebook keeps that output, so the tests read what the attack saw.
Honest bystanders are graded in the same run, on two workers, so that an attack on other kernels
would have victims to reach. Whatever an attack does, the bystanders keep full marks, nothing on
the host changes, and the attacker's own answers are still graded.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import pytest

from roofline_grader.course import command_env
from roofline_grader.kernel import sandbox
from roofline_grader.kernel.sandbox import KernelHome, SandboxUnavailableError

from .conftest import CELL_TIMEOUT_S, roofline_grade
from .grading_cases import ROOT, Case, code, problem1_full, solved

pytestmark = pytest.mark.slow

MARK = f"roofline-planted-{uuid.uuid4().hex[:8]}"
"""A file a planted program would create on the host if it ever ran outside the sandbox."""
PLANTED = ("bwrap", "unshare", "prlimit", "python3", "sh")


def attacks(workspace: Path, submissions: Path) -> dict[str, str]:
    """Student id -> the attacking cell (each prints one JSON line of what it found)."""
    secrets = [
        "/etc/shadow",
        "/root/.ssh",
        str(Path.home() / ".ssh"),
        str(ROOT / "solutions" / "problem1" / "problem1.ipynb"),
        str(ROOT / "roofline_grader" / "checks" / "problem1.py"),
        str(workspace / "gradebook.db"),
        str(workspace / ".roofline"),
        str(submissions / "honest-1" / "problem1" / "problem1.ipynb"),
    ]
    return {
        "attacks-siblings": code(
            """
            import glob, json, os, time
            from jupyter_client import BlockingKernelClient
            own = os.path.join(os.path.dirname(os.environ.get("ROOFLINE_CHECK_PLAN", "/x")), "kernel.json")
            patterns = ["/dev/shm/*/kernels/*/kernel.json", "/dev/shm/*/*/kernels/*/kernel.json",
                        "/tmp/*/kernels/*/kernel.json", "/tmp/*/*/kernels/*/kernel.json",
                        "/proc/[0-9]*/root/sandbox/ipc/*", "/proc/[0-9]*/cwd/kernel.json",
                        "/dev/shm/*/kernels/*/plan.json", "/run/user/*/jupyter/*.json"]
            seen, sent = set(), 0
            deadline = time.time() + 6
            while time.time() < deadline:
                for path in {p for pattern in patterns for p in glob.glob(pattern)} - seen - {own}:
                    mine = "/sandbox/ipc/" + os.path.basename(path)
                    if os.path.exists(mine) and os.path.samefile(path, mine):
                        continue  # its own sockets, seen through its own /proc
                    seen.add(path)
                    if path.endswith("kernel.json"):
                        try:
                            kc = BlockingKernelClient(connection_file=path)
                            kc.load_connection_file()
                            kc.start_channels()
                            kc.execute("import os; os._exit(1)")
                            sent += 1
                        except Exception:
                            pass
                time.sleep(0.2)
            pids = [p for p in os.listdir("/proc") if p.isdigit()]
            print(json.dumps({"foreign": sorted(seen), "sent": sent, "pids": len(pids)}))
            """
        ),
        "plants-programs": code(
            f"""
            import json, os
            script = "#!/bin/sh\\ntouch /tmp/{MARK} /dev/shm/{MARK} 2>/dev/null\\nexec /usr/bin/true\\n"
            found = {{}}
            for folder in [os.path.expanduser("~/.local/bin"), "/root/.local/bin", "/usr/local/bin",
                           "/usr/bin", "/tmp", "{Path.home()}/.local/bin"]:
                for name in {list(PLANTED)!r}:
                    path = os.path.join(folder, name)
                    try:
                        os.makedirs(folder, exist_ok=True)
                        with open(path, "w") as fh:
                            fh.write(script)
                        os.chmod(path, 0o755)
                        found[path] = "written"
                    except OSError as exc:
                        found[path] = type(exc).__name__
            print(json.dumps(found))
            """
        ),
        "reads-secrets": code(
            f"""
            import json, os
            found = {{"root": sorted(os.listdir("/"))}}
            for path in {secrets!r}:
                try:
                    if os.path.isdir(path):
                        found[path] = "listed" if os.listdir(path) is not None else ""
                    else:
                        found[path] = open(path, "rb").read(64).hex()
                except OSError as exc:
                    found[path] = type(exc).__name__
            try:
                import roofline_grader.checks
                found["checks"] = "imported"
            except ImportError as exc:
                found["checks"] = "ImportError"
            found["etc"] = sorted(os.listdir("/etc"))
            try:
                found["course"] = sorted(os.listdir({str(ROOT)!r}))
            except OSError as exc:
                found["course"] = type(exc).__name__
            print(json.dumps(found))
            """
        ),
        "forks-a-bomb": code(
            """
            import json, os, time
            children = 0
            try:
                for _ in range(5000):
                    pid = os.fork()
                    if pid == 0:
                        time.sleep(120)
                        os._exit(0)
                    children += 1
            except OSError as exc:
                error = type(exc).__name__
            else:
                error = ""
            print(json.dumps({"children": children, "error": error}))
            """
        ),
        "hogs-memory": code(
            """
            import json, os, time
            held = []
            for i in range(3):
                pid = os.fork()
                if pid == 0:
                    block = bytearray(1700 * 2**20)
                    for j in range(0, len(block), 4096):
                        block[j] = 1
                    open(f"/tmp/held-{i}", "w").write("1")
                    time.sleep(6)
                    os._exit(0)
                held.append(pid)
            time.sleep(5)
            alive = 0
            for i, pid in enumerate(held):
                try:
                    done, status = os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    done = pid
                alive += done == 0 and os.path.exists(f"/tmp/held-{i}")
            print(json.dumps({"holding_together": alive}))
            """
        ),
        "fills-the-disk": code(
            """
            import json, os
            written = {}
            for folder in ["/tmp", "/dev/shm", os.getcwd(), "/sandbox/ipc", "/"]:
                total = 0
                try:
                    for i in range(10_000):
                        with open(os.path.join(folder, f"fill-{i}"), "wb") as fh:
                            for _ in range(64):
                                fh.write(b"x" * 2**20)
                                total += 2**20
                except OSError:
                    pass
                written[folder] = total
                for i in range(10_000):
                    try:
                        os.remove(os.path.join(folder, f"fill-{i}"))
                    except OSError:
                        break
            print(json.dumps(written))
            """
        ),
        "kills-everything": code(
            """
            import os, signal
            try:
                os.kill(-1, signal.SIGKILL)  # every process it may signal but itself
            except ProcessLookupError:
                pass  # there is none
            os.kill(0, signal.SIGKILL)  # its process group, itself included
            """
        ),
        "burns-cpu": code(
            """
            import json, os, resource, time
            start, children = time.time(), []
            for _ in range(4):
                pid = os.fork()
                if pid == 0:
                    end = time.time() + 3
                    while time.time() < end:
                        pass
                    os._exit(0)
                children.append(pid)
            for pid in children:
                os.waitpid(pid, 0)
            used = resource.getrusage(resource.RUSAGE_CHILDREN)
            print(json.dumps({"wall": time.time() - start, "cpu": used.ru_utime + used.ru_stime}))
            """
        ),
        "raises-noisy-error": code(
            """
            raise ValueError("\\x1b[31m\\x1b]0;title\\x07red\\x00\\r\\n" + "A" * 10_000)
            """
        ),
        "floods-output": code(
            """
            from IPython.display import display
            import ipywidgets
            for _ in range(20):
                display({"text/x-roofline-answers": "x" * 500_000}, raw=True)
            handle = display({"text/plain": "a"}, display_id=True)
            for _ in range(300):
                display({"text/plain": "b"}, raw=True, display_id=handle.display_id)
            handle.update({"text/plain": "y" * 2_000_000}, raw=True)
            areas = [ipywidgets.Textarea(value="z" * 200_000) for _ in range(200)]
            """
        ),
    }


@dataclass
class HostileRun:
    workspace: Path
    submissions: Path
    stdout: str
    grades: dict[str, dict[str, Any]]

    def found(self, student: str) -> Any:
        """What the attacking cell printed (its last JSON line)."""
        nb = nbformat.read(
            str(self.workspace / "autograded" / student / "problem1" / "problem1.ipynb"), 4
        )
        text = "".join(
            o.get("text", "") for o in nb.cells[0].get("outputs", []) if o.output_type == "stream"
        )
        lines = [x for x in text.splitlines() if x.startswith("{")]
        assert lines, f"{student}'s attack printed nothing: {nb.cells[0].get('outputs')}"
        return json.loads(lines[-1])


def _attacker(release: Path, student: str, attack: str) -> Case:
    nb = solved(release, "problem1")
    nb.cells.insert(0, nbformat.v4.new_code_cell(attack))
    return Case(student, {"problem1": nb}, problem1_full())


GRADED_BY = {"pool": ("--jobs", "2"), "cluster": ("--cluster", "local:2")}
"""The hostile class is graded twice: by the process pool, and by a Dask cluster's worker
processes (roofline_grader.run.cluster), whose kernels must be just as sealed."""


@pytest.fixture(scope="module", params=list(GRADED_BY))
def hostile(
    tmp_path_factory: pytest.TempPathFactory, release: Path, request: pytest.FixtureRequest
) -> HostileRun:
    root = tmp_path_factory.mktemp(f"hostile-{request.param}")
    submissions, workspace = root / "submissions", root / "workspace"
    cases = [Case(f"honest-{i}", {"problem1": solved(release, "problem1")}) for i in (1, 2, 3)]
    cases += [
        _attacker(release, student, attack)
        for student, attack in attacks(workspace, submissions).items()
    ]
    for case in cases:
        case.write(submissions)
    run = roofline_grade(
        submissions,
        "--out",
        workspace,
        *GRADED_BY[request.param],
        "--timeout",
        CELL_TIMEOUT_S,
        "--quiet",
    )
    assert run.returncode == 0, run.stderr[-3000:]
    results = {}
    for path in (workspace / ".roofline" / "results").glob("*.json"):
        record = json.loads(path.read_text())
        if record["assignment"] == "problem1":
            results[record["student"]] = record
    return HostileRun(workspace, submissions, run.stdout, results)


def _scores(run: HostileRun, student: str) -> dict[str, float]:
    return {k: v["auto_score"] for k, v in run.grades[student]["grades"].items()}


def test_every_student_keeps_full_marks_whatever_a_classmate_attacks(hostile: HostileRun) -> None:
    for student in hostile.grades:
        assert _scores(hostile, student) == problem1_full(), student


def test_a_kernel_finds_no_other_kernel_to_connect_to(hostile: HostileRun) -> None:
    found = hostile.found("attacks-siblings")
    assert found["foreign"] == [] and found["sent"] == 0, found
    assert found["pids"] <= 3, "the kernel sees only its own processes"


def test_programs_planted_on_path_or_home_never_run_outside(hostile: HostileRun) -> None:
    found = hostile.found("plants-programs")
    assert any(v == "written" for v in found.values()), "the kernel has a writable scratch"
    for folder in ("/usr/local/bin", "/usr/bin"):
        assert found[f"{folder}/bwrap"] != "written"
    for name in PLANTED:
        assert not (Path.home() / ".local" / "bin" / name).exists()
        assert not (Path("/root/.local/bin") / name).exists() or os.geteuid() != 0
    assert not (Path("/tmp") / MARK).exists() and not (Path("/dev/shm") / MARK).exists()


def test_secrets_of_the_host_the_course_and_classmates_are_unreadable(
    hostile: HostileRun,
) -> None:
    found = hostile.found("reads-secrets")
    for path in attacks(hostile.workspace, hostile.submissions)["reads-secrets"].split("'")[1::2]:
        if path.startswith("/") and path in found:
            assert found[path] in ("FileNotFoundError", "PermissionError"), (path, found[path])
    assert found["checks"] == "ImportError"
    assert found["course"] in ("FileNotFoundError", [], [".venv"]), found["course"]
    assert "shadow" not in found["etc"] and "ssh" not in found["etc"]


def test_a_fork_bomb_stops_at_the_process_limit(hostile: HostileRun) -> None:
    found = hostile.found("forks-a-bomb")
    assert found["error"] in ("BlockingIOError", "OSError") and found["children"] < 128, found


def test_processes_cannot_share_more_than_the_kernels_memory(hostile: HostileRun) -> None:
    found = hostile.found("hogs-memory")
    limit = sandbox.LIMITS.memory_bytes
    assert found["holding_together"] * 1700 * 2**20 < limit, found


def test_scratch_space_is_bounded_and_the_rest_is_read_only(hostile: HostileRun) -> None:
    found = hostile.found("fills-the-disk")
    limits = sandbox.LIMITS
    assert found["/tmp"] <= limits.scratch_bytes and found["/dev/shm"] <= limits.shm_bytes
    assert found["/sandbox/ipc"] <= 2**20 and found["/"] == 0, found


def test_killing_every_process_reaches_only_the_attackers_own_kernel(hostile: HostileRun) -> None:
    record = hostile.grades["kills-everything"]
    assert any(p["kind"] == "kernel-died" for p in record["problems"]), record["problems"]
    assert _scores(hostile, "kills-everything") == problem1_full()


def test_busy_loops_in_the_background_get_one_cpu_not_the_machine(hostile: HostileRun) -> None:
    line = next(x for x in hostile.stdout.splitlines() if x.startswith("Kernel sandbox:"))
    if "CPU for the whole kernel" not in line:
        pytest.skip("this host offers no cpu cgroup controller to the grader")
    found = hostile.found("burns-cpu")
    assert found["cpu"] < 1.5 * found["wall"], found


def test_every_output_channel_counts_against_the_cap(hostile: HostileRun) -> None:
    saved = hostile.workspace / "autograded" / "floods-output" / "problem1" / "problem1.ipynb"
    assert saved.stat().st_size < 3 * 2**20, saved.stat().st_size
    assert "widgets" not in json.loads(saved.read_text())["metadata"]
    assert any(p["kind"] == "output-truncated" for p in hostile.grades["floods-output"]["problems"])


def test_a_students_error_reaches_reports_only_as_a_short_clean_excerpt(
    hostile: HostileRun,
) -> None:
    report = json.loads((hostile.workspace / "report.json").read_text())
    details = [p["detail"] for p in report["problems"] if p["student"] == "raises-noisy-error"]
    assert details and all(len(d) <= 310 for d in details), details
    assert all(not any(ord(c) < 32 or c == "\x7f" for c in d) for d in details), details
    page = (hostile.workspace / "feedback" / "raises-noisy-error" / "index.html").read_text()
    assert "\x1b" not in page and "A" * 400 not in page


def test_the_report_says_which_sandbox_and_limits_were_in_force(hostile: HostileRun) -> None:
    line = next(x for x in hostile.stdout.splitlines() if x.startswith("Kernel sandbox:"))
    assert "bubblewrap" in line and "/tmp" in line and "per process" in line
    if os.geteuid() == 0:
        assert f"kernels run as {sandbox.SANDBOX_USER}" in line


def test_no_kernel_runs_as_host_root(hostile: HostileRun) -> None:
    found = hostile.found("reads-secrets")
    assert found["/etc/shadow"] != "listed"
    support = sandbox.support()
    assert support.run_as is None or support.run_as[0] != 0
    if os.geteuid() == 0:
        assert support.run_as is not None


# -- without a sandbox ---------------------------------------------------------------------------


def test_grading_refuses_to_run_unsandboxed_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox, "trusted_tool", lambda name, dirs=(): None)
    sandbox.support.cache_clear()
    try:
        with pytest.raises(SandboxUnavailableError, match="--no-sandbox"):
            KernelHome("on")
        home = KernelHome("off")
        assert "switched off" in home.sandbox_note and "bubblewrap" in home.sandbox_note
        home.remove()
    finally:
        sandbox.support.cache_clear()


# -- a killed or terminated run ------------------------------------------------------------------


def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _scratch_of(*pids: int) -> list[Path]:
    """The scratch folders and cgroups that processes ``pids`` made."""
    from roofline_grader.kernel import cgroups

    roots = {sandbox.scratch_root(), Path("/tmp")}
    folders = [p for r in roots for pid in pids for p in r.glob(f"roofline-*-{pid}-*")]
    marks = tuple(f"{cgroups.PREFIX}-{pid}-" for pid in pids)
    return folders + [f for f in cgroups.leftovers() if f.name.startswith(marks)]


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_a_killed_run_leaves_no_process_and_no_scratch(
    tmp_path: Path, release: Path, how: signal.Signals
) -> None:
    submissions = tmp_path / "submissions"
    slow = solved(release, "problem1")
    slow.cells.insert(0, nbformat.v4.new_code_cell("import time\ntime.sleep(60)"))
    for i in range(4):
        Case(f"slow-{i}", {"problem1": slow}).write(submissions)
    run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "roofline_grader.run.cli",
            str(submissions),
            "--out",
            str(tmp_path / "ws"),
            "--jobs",
            "2",
            "--quiet",
            "--timeout",
            "90",
        ],
        cwd=ROOT,
        env=command_env(ROOT),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    family: set[int] = set()
    while time.monotonic() < deadline:
        family = _descendants(run.pid)
        kernels = [p for p in family if "ipykernel" in _cmdline(p)]
        if len(kernels) >= 2:
            break
        time.sleep(0.2)
    assert len([p for p in family if "ipykernel" in _cmdline(p)]) >= 2, "kernels never started"
    time.sleep(0.5)
    family = _descendants(run.pid)
    made = _scratch_of(run.pid, *family)
    assert made, "the run has scratch folders and cgroups while it grades"
    run.send_signal(how)
    run.wait(timeout=60)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(map(_alive, family)):
        time.sleep(0.2)
    assert not [(p, _cmdline(p)) for p in family if _alive(p)], "processes outlived the run"
    if how == signal.SIGTERM:
        assert [p for p in made if p.exists()] == [], "a terminated run removes its scratch"
    else:  # a run killed outright cannot clean up: the next run sweeps what it left
        other = tmp_path / "other"
        Case("one-more", {"problem1": solved(release, "problem1")}).write(other)
        again = roofline_grade(other, "--out", tmp_path / "ws2", "--jobs", "1", "--quiet")
        assert again.returncode == 0, again.stderr[-2000:]
        assert [p for p in made if p.exists()] == [], "the next run removes a killed run's scratch"


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


# -- the per-process limits alone, as on a host that delegates no cgroups -------------------------


async def _run_in_kernel(home: KernelHome, source: str) -> str:
    from roofline_grader.kernel import warm

    kernel, km = await warm.launch(home, "python3")
    client = km.client()
    client.start_channels()
    out: list[str] = []
    try:
        await client.wait_for_ready(timeout=60)
        await client.execute_interactive(
            source,
            timeout=60,
            output_hook=lambda msg: out.append(msg["content"].get("text", "")),
        )
    finally:
        client.stop_channels()
        await warm.discard((kernel, km))
    return "".join(out)


def test_without_cgroups_the_process_limit_still_holds_per_sandbox() -> None:
    import asyncio

    home = KernelHome("on", use_cgroups=False)
    try:
        assert home.area is None and "no limit for the kernel as a whole" in home.limits_note()
        bomb = attacks(Path("/nonexistent"), Path("/nonexistent"))["forks-a-bomb"]
        text = asyncio.run(_run_in_kernel(home, bomb))
    finally:
        home.remove()
    found = json.loads(text.strip().splitlines()[-1])
    assert found["error"] == "BlockingIOError" and found["children"] < 128, found


def test_the_grader_refuses_messages_too_large_for_its_memory() -> None:
    import asyncio

    import zmq

    from roofline_grader.kernel import warm

    async def socket_limits() -> list[int]:
        home = KernelHome("on")
        kernel, km = await warm.launch(home, "python3")
        client = km.client()
        client.start_channels()
        try:
            await client.wait_for_ready(timeout=60)
            channels = (client.iopub_channel, client.shell_channel, client.control_channel)
            return [c.socket.getsockopt(zmq.MAXMSGSIZE) for c in channels]
        finally:
            client.stop_channels()
            await warm.discard((kernel, km))
            home.remove()

    assert asyncio.run(socket_limits()) == [sandbox.MAX_MESSAGE_BYTES] * 3
