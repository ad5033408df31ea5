"""Sweeps on Dask: a LocalCluster through the Python API, and a real scheduler with two workers
on localhost through ``--scheduler``, one of them killed mid-sweep: the same rows as run here."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import cspace
from cspace.sweeps.results import read
from cspace.sweeps.variant import RUN_COLUMNS

from .common import ROOT, slow

distributed = pytest.importorskip("distributed")

FEEDER = ROOT / "fixtures" / "sweeps" / "feeder.toml"
DESIGN = {"crank": [2.0, 2.5, 3.0, 3.5, 4.0], "link": [7.0, 8.0, 9.0, 10.0]}  # 20 variants


def results(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.drop(columns=[c for c in RUN_COLUMNS if c in frame.columns]).reset_index(drop=True)


@pytest.fixture(scope="module")
def here() -> pd.DataFrame:
    """The 20 variants run in this process."""
    return cspace.sweep(FEEDER, DESIGN)


def test_a_local_cluster_gives_the_rows_of_a_serial_run(here):
    """The rows of a 2-worker LocalCluster's run, whose workers do not profile the tasks."""
    import dask

    from cspace.sweeps.runner import local_client

    with local_client(2) as client:
        on_cluster = cspace.sweep(FEEDER, DESIGN, client=client)
        profiling = client.run(lambda: dask.config.get("distributed.worker.profile.enabled"))
        client.cluster.close()
    pd.testing.assert_frame_equal(results(on_cluster), results(here))
    assert len(profiling) == 2 and not any(profiling.values())
    assert dask.config.get("distributed.worker.profile.enabled")  # this process's configuration is left as it was


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _started(argv: list[str], log: Path) -> subprocess.Popen:
    """A process of this checkout's cspace (PYTHONPATH: the workers import it as the sweep does)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, *argv], cwd=ROOT, env=env, stdout=log.open("w"),
                            stderr=subprocess.STDOUT, start_new_session=True)


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@pytest.fixture
def cluster(tmp_path):
    """A ``dask scheduler`` and two single-threaded ``dask worker`` processes on localhost (no
    nanny: a worker killed stays dead), on free ports; all stopped after."""
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    processes = [_started(["-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", str(port),
                           "--no-dashboard"], tmp_path / "scheduler.log")]
    try:
        for k in range(2):
            processes.append(_started(["-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
                                       "--no-nanny", "--no-dashboard", "--host", "127.0.0.1"],
                                      tmp_path / f"worker{k}.log"))
        with distributed.Client(address, timeout="30s") as client:
            client.wait_for_workers(2, timeout=60)
        yield address, processes[1:]
    finally:
        for process in reversed(processes):
            _stop(process)


def _sweep(address: str, out: Path, log: Path) -> subprocess.Popen:
    return _started(["-m", "cspace.cli", "sweep", str(FEEDER), "--vary", "crank=2:4:5", "--vary", "link=7:10:4",
                     "--out", str(out), "--scheduler", address], log)


def test_an_existing_cluster_gives_the_rows_of_a_serial_run(cluster, here, tmp_path):
    address, _ = cluster
    out = tmp_path / "remote.parquet"
    process = _sweep(address, out, tmp_path / "sweep.log")
    log = (tmp_path / "sweep.log").read_text()
    assert process.wait(300) == 0, log
    assert "dashboard" not in log  # the cluster's dashboard is its own: only a local cluster's is said
    pd.testing.assert_frame_equal(results(read(out)), results(here), check_dtype=False)


@slow
def test_a_worker_killed_mid_sweep_loses_no_variant(cluster, here, tmp_path):
    address, workers = cluster
    out = tmp_path / "killed.csv"
    journal = tmp_path / "killed.csv.partial.jsonl"
    process = _sweep(address, out, tmp_path / "sweep.log")
    deadline = time.monotonic() + 120
    # Killed at the first row: the feeder's variants trace in milliseconds, and waiting for a
    # second row at 50 ms intervals saw the sweep end first (0edce5c, on an idle machine).
    while not (journal.exists() and journal.read_text().count("\n") >= 1):
        assert process.poll() is None and time.monotonic() < deadline, (tmp_path / "sweep.log").read_text()
        time.sleep(0.005)
    os.killpg(workers[0].pid, signal.SIGKILL)  # mid-sweep: 1 of 20 rows in
    assert process.wait(300) == 0, (tmp_path / "sweep.log").read_text()
    table = read(out)
    assert len(table) == 20 and (table["error"] == "").all()
    pd.testing.assert_frame_equal(results(table), results(here), check_dtype=False)


@slow
def test_a_sweep_on_a_local_cluster_says_where_its_dashboard_is(tmp_path, monkeypatch, capsys):
    """The address said is the running cluster's dashboard (it answers); run here (--workers 1),
    nothing is said."""
    import urllib.request

    from cspace.cli import main
    from cspace.sweeps import runner

    answered = {}

    def answering(workers: int):
        client = start(workers)
        with urllib.request.urlopen(client.dashboard_link, timeout=30) as page:
            answered[client.dashboard_link] = page.status
        return client

    start = runner.local_client
    monkeypatch.setattr(runner, "local_client", answering)
    argv = ["sweep", str(FEEDER), "--vary", "crank=2:3:2", "--vary", "link=8:8:1", "--out"]
    assert main([*argv, str(tmp_path / "local.csv"), "--workers", "2"]) == 0
    said = [line for line in capsys.readouterr().err.splitlines() if "dashboard" in line]
    (link, status), = answered.items()
    assert status == 200 and link.startswith("http://")
    assert len(said) == 1 and said[0].startswith(f"cspace: note: Dask dashboard: {link}")
    assert main([*argv, str(tmp_path / "here.csv"), "--workers", "1"]) == 0
    assert "dashboard" not in capsys.readouterr().err
