"""--cluster's forms, and Dask staying out of a run that does not ask for it (milliseconds)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from roofline_grader.run.cluster import ClusterSpec, parse_cluster

from .grading_cases import ROOT


@pytest.mark.parametrize(
    "text, spec",
    [
        ("local", ClusterSpec(None)),
        ("local:1", ClusterSpec(None, 1)),
        (" local:16 ", ClusterSpec(None, 16)),
        ("tcp://127.0.0.1:8786", ClusterSpec("tcp://127.0.0.1:8786")),
        ("tcp://scheduler.example.edu:8786/", ClusterSpec("tcp://scheduler.example.edu:8786")),
        ("tls://10.0.0.5:8786", ClusterSpec("tls://10.0.0.5:8786")),
    ],
)
def test_the_forms_of_cluster(text: str, spec: ClusterSpec) -> None:
    assert parse_cluster(text) == spec


def test_a_local_cluster_has_as_many_workers_as_jobs_unless_it_says() -> None:
    assert parse_cluster("local").local_workers(jobs=3) == 3
    assert parse_cluster("local:2").local_workers(jobs=3) == 2
    assert parse_cluster("local").words(jobs=4) == "a local Dask cluster of 4 worker process(es)"
    assert parse_cluster("tcp://h:1").words(jobs=4) == "tcp://h:1"


@pytest.mark.parametrize(
    "text", ["", "locale", "local:", "local:0", "local:-2", "local:two", "8786", "http://h:1"]
)
def test_anything_else_names_the_option_and_the_allowed_forms(text: str) -> None:
    with pytest.raises(ValueError, match=r"--cluster .*allowed: local, local:N .*tcp://HOST:PORT"):
        parse_cluster(text)


def test_without_cluster_dask_is_not_imported() -> None:
    code = (
        "import sys, roofline_grader.run.cli, roofline_grader.run.runner, roofline_grader.run.cluster\n"
        "roofline_grader.run.cli.parser().parse_args(['subs'])\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert run.stdout.strip() == "[]"
