"""--cluster: a sweep's or a suite's points measured on a Dask cluster
instead of the local pool. `tcp://HOST:PORT` is a running scheduler whose
workers have switchscope set up by the same setup.sh (the same checkout,
compilers, simulators and pinned crates); `local:N` starts N worker
processes on this machine. Each point is one task: the worker that takes it
builds its firmware (once per configuration in that worker's build
directory; on one machine the build directory is shared and locked) and runs
it, and its Result comes back as soon as it is measured. A worker lost
mid-point has its point run again elsewhere (the scheduler's retries). The
same firmware on the same simulator gives identical samples wherever it
runs, so the results are the local pool's."""

from __future__ import annotations

import re
import signal
import sys
import threading
from typing import Callable

from switchscope.common.errors import SwitchscopeError, ToolMissing
from switchscope.figures.measure import measure
from switchscope.figures.result import Result

ADDRESS = re.compile(r"^(local:(?P<workers>[1-9][0-9]{0,2})|(tcp|tls)://[^\s:/]+:(?P<port>[0-9]{1,5}))$")
PORTS = range(1, 65536)  # a TCP port is 16 bits, and 0 is no port to connect to
CONNECT_TIMEOUT_S = 10
CONNECT_GRACE_S = 2  # past Client's own timeout, which a far end that accepts and says nothing outlasts
WORKERS_TIMEOUT_S = 30  # a scheduler without workers: how long to wait for one to join
RETRIES = 3  # a point whose worker died is run again at most this many times


def check_address(text: str) -> str:
    matched = ADDRESS.match(text)
    if not matched:
        raise SwitchscopeError(f"--cluster {text}: local:N (N workers on this machine, 1 to 999) or tcp://HOST:PORT "
                               "(a running Dask scheduler) is expected", "e.g. --cluster local:4")
    if matched.group("port") is not None and int(matched.group("port")) not in PORTS:
        raise SwitchscopeError(f"--cluster {text}: port {int(matched.group('port'))} cannot exist (a TCP port is "
                               f"{PORTS.start} to {PORTS.stop - 1})",
                               "give the port the scheduler listens on (dask scheduler says it; 8786 by default)")
    return text


NO_SCHEDULER = ("start one (dask scheduler), with workers started from a set-up switchscope checkout "
                "(dask worker tcp://HOST:PORT), or use --cluster local:N")


def _connect(client_class, address: str):
    """A client of the scheduler at `address`, or an error within CONNECT_TIMEOUT_S however the far end
    behaves: Client's own timeout covers a port where nothing listens, not one that accepts and then says
    nothing (a stray socket) or speaks another protocol (a web server, the dashboard's port), which can
    hang the handshake or fail it deep inside."""
    outcome = {}

    def connect() -> None:
        try:
            outcome["client"] = client_class(address, timeout=CONNECT_TIMEOUT_S)
        except BaseException as error:  # noqa: BLE001 - whatever the handshake met, the answer is the same
            outcome["error"] = error

    attempt = threading.Thread(target=connect, name="switchscope-dask-connect", daemon=True)
    attempt.start()
    attempt.join(CONNECT_TIMEOUT_S + CONNECT_GRACE_S)
    if "client" in outcome:
        return outcome["client"]
    error = outcome.get("error")
    if error is None:
        reason = f"something accepted the connection but said nothing within {CONNECT_TIMEOUT_S} s"
    elif isinstance(error, OSError):
        reason = str(error)[:160]
    else:  # e.g. a web server's reply read as a Dask frame
        reason = f"something answered, but not in Dask's protocol ({type(error).__name__})"
    raise SwitchscopeError(f"--cluster {address}: no Dask scheduler answered ({reason})", NO_SCHEDULER)


def measure_point(index: int, point) -> tuple[int, Result | str]:
    """What a worker runs: one point of the matrix (matrix.Point), its Result or the error's message, as
    the local pool's workers give them."""
    try:
        return index, measure(point.job, point.samples)
    except SwitchscopeError as error:
        return index, str(error)


def run(todo: list[tuple[int, object]], address: str, on_outcome: Callable[[int, Result | str], None]) -> None:
    """Measure the points on the cluster, calling `on_outcome(index, outcome)` as each comes back."""
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise ToolMissing("--cluster needs dask.distributed", "install it: .venv/bin/pip install -e '.[cluster]' "
                                                              "(./setup.sh does)") from None
    local = address.startswith("local:")
    cluster = None
    try:
        if local:
            # its worker processes are started ignoring Ctrl-C, which the terminal sends them as well: this
            # command ends them, and they would print their own traceback each
            on_interrupt = signal.signal(signal.SIGINT, signal.SIG_IGN)
            try:
                cluster = LocalCluster(n_workers=int(address[6:]), threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=50)
            finally:
                signal.signal(signal.SIGINT, on_interrupt)
            client = Client(cluster)
        else:
            client = _connect(Client, address)
    except OSError as error:
        raise SwitchscopeError(f"--cluster {address}: no Dask scheduler answered ({error})", NO_SCHEDULER) from None
    try:
        if not local and not client.scheduler_info().get("workers"):
            print(f"--cluster {address}: the scheduler has no workers yet; waiting up to {WORKERS_TIMEOUT_S} s "
                  "for one", file=sys.stderr)
            try:
                client.wait_for_workers(1, timeout=WORKERS_TIMEOUT_S)
            except TimeoutError:
                raise SwitchscopeError(f"--cluster {address}: the scheduler has no workers (none joined in "
                                       f"{WORKERS_TIMEOUT_S} s)", "start them from a set-up switchscope checkout: "
                                       f"dask worker {address}") from None
        futures = [client.submit(measure_point, index, point, key=f"switchscope-point-{index}", pure=False,
                                 retries=RETRIES) for index, point in todo]
        for future in as_completed(futures):
            index, outcome = future.result()
            on_outcome(index, outcome)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
