"""--cluster: a suite on a local Dask cluster gives the local pool's results, sample for sample; a worker
killed mid-run has its points measured elsewhere, each point once."""

import os
import signal

import psutil
import pytest

from conftest import measured_fields, run_command
from switchscope import catalog
from switchscope.catalog.plan import plan
from switchscope.figures import cluster, matrix

pytestmark = pytest.mark.firmware

SUITE = ["suite", "--kernel", "floor", "--target", "atmega328p", "--samples", "40", "--quiet"]


def test_a_suite_on_a_local_cluster_is_the_local_pools(tmp_path, capsys):
    assert run_command([*SUITE, "--out", str(tmp_path / "pool")], capsys)[0] == 0
    status, said = run_command([*SUITE, "--cluster", "local:2", "--out", str(tmp_path / "dask")], capsys)
    assert status == 0, said
    runs = sorted(p.relative_to(tmp_path / "pool") for p in (tmp_path / "pool").glob("runs/**/*.json"))
    assert runs == sorted(p.relative_to(tmp_path / "dask") for p in (tmp_path / "dask").glob("runs/**/*.json"))
    assert all(measured_fields(tmp_path / "dask" / run) == measured_fields(tmp_path / "pool" / run) for run in runs)


def test_a_worker_killed_mid_run_loses_no_point():
    kernel, target = catalog.KERNELS["freertos"], catalog.TARGETS["mps2-an385"]
    jobs = plan([kernel], [target], [catalog.SCENARIOS["rotate"]], [catalog.METHODS["probe"]],
                [{"preemption": value} for value in ("on", "off")], tasks=[2, 3, 4, 5]).jobs
    points = [matrix.Point(job, 2000) for job in jobs]
    local = matrix.run_points(points, 2)
    seen, killed = [], []

    def measuring_worker():
        """A Dask worker process now running a simulator (processes come and go: those gone are passed over)."""
        for process in psutil.Process().children(recursive=True):
            try:
                if "qemu-system-arm" in [child.name() for child in process.children()]:
                    return process.pid
            except psutil.Error:
                continue
        return None

    def on_outcome(index, outcome):
        seen.append(index)
        if not killed and (pid := measuring_worker()):  # one worker, and the simulator it runs, gone mid-run
            try:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            except ProcessLookupError:  # it ended its point just now: the next outcome tries again
                pass

    results = {}
    cluster.run(list(enumerate(points)), "local:2",
                lambda index, outcome: (on_outcome(index, outcome), results.__setitem__(index, outcome)))
    assert killed, "no worker was found measuring, to kill"
    assert sorted(seen) == list(range(len(points)))  # every point, once
    assert [results[i].samples for i in range(len(points))] == [outcome.samples for _, outcome in local]
