"""The kernel sandbox: what a student's code can and cannot reach (Linux namespaces only)."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
from pathlib import Path

import pytest

from roofline_grader import warm
from roofline_grader.sandbox import KernelHome, namespaces_available

AVAILABLE, WHY = namespaces_available()
pytestmark = [
    pytest.mark.skipif(not AVAILABLE, reason=f"no namespace sandbox here: {WHY}"),
    pytest.mark.slow,
    pytest.mark.xdist_group("grading"),
]

PROBE = """
import json, os, socket, signal
found = {"pid": os.getpid(), "ppid": os.getppid()}
try:
    open(os.path.join(COURSE, "planted.txt"), "w").write("x")
    found["write_course"] = "written"
except OSError as exc:
    found["write_course"] = type(exc).__name__
found["workspace"] = os.listdir(WORKSPACE)
found["own_dir_writable"] = os.access(os.getcwd(), os.W_OK)
try:
    socket.create_connection(("127.0.0.1", PORT), timeout=2)
    found["network"] = "connected"
except OSError as exc:
    found["network"] = type(exc).__name__
import roofline_lib
found["library"] = roofline_lib.__file__
print(json.dumps(found))
"""


async def _run(home: KernelHome, code: str) -> str:
    kernel, km = await warm.launch(home, "python3")
    client = km.client()
    client.start_channels()
    out: list[str] = []
    try:
        await client.wait_for_ready(timeout=60)
        await client.execute_interactive(
            code,
            timeout=30,
            output_hook=lambda msg: out.append(msg["content"].get("text", "")),
        )
    finally:
        client.stop_channels()
        await km.shutdown_kernel(now=True)
        kernel.remove()
    return "".join(out)


def test_a_kernel_cannot_touch_the_course_the_workspace_or_the_grader(tmp_path: Path) -> None:
    course, workspace = tmp_path / "course", tmp_path / "workspace"
    course.mkdir()
    workspace.mkdir()
    (workspace / "gradebook.db").write_text("secret")
    home = KernelHome("on", readonly_paths=[course], hidden_paths=[workspace])
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    try:
        code = f"COURSE, WORKSPACE, PORT = {str(course)!r}, {str(workspace)!r}, {port}\n" + PROBE
        found = json.loads(asyncio.run(_run(home, code)).strip().splitlines()[-1])
    finally:
        listener.close()
        home.remove()
    assert found["write_course"] == "OSError" and not (course / "planted.txt").exists()
    assert found["workspace"] == [], "the workspace is hidden"
    assert found["own_dir_writable"]
    assert found["network"] != "connected", "the kernel has no network, not even loopback"
    assert found["ppid"] == 0, "the kernel sees no process outside its namespace"
    assert found["library"].startswith(str(home.base)), "it imports its own copy of roofline_lib"


def test_killing_every_process_reaches_nothing_outside_the_kernel() -> None:
    bystander = subprocess.Popen(["sleep", "60"])
    home = KernelHome("on")
    try:
        asyncio.run(_run(home, "import os, signal\nos.kill(-1, signal.SIGKILL)\nprint('alive')"))
        assert bystander.poll() is None, "a process outside the sandbox survived kill(-1)"
    finally:
        bystander.kill()
        home.remove()
