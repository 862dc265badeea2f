"""--cluster tcp://HOST:PORT where no Dask scheduler is: a port that accepts and says nothing, and one that
speaks another protocol, are each a clear error within seconds, never a hang or a traceback."""

import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from switchscope.common.errors import SwitchscopeError
from switchscope.figures import cluster


@pytest.fixture(autouse=True)
def dask_installed():
    """Dask, imported before a test times anything; when the test runs, not when the suite is collected."""
    pytest.importorskip("dask.distributed", reason="the [cluster] extra, which ./setup.sh installs")


def _server(reply: bytes):
    """A port on this machine that accepts connections and sends `reply` (nothing, if empty)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    held = []

    def serve() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            if reply:
                connection.sendall(reply)
            held.append(connection)

    threading.Thread(target=serve, daemon=True).start()
    return listener, held


# (what the port replies, what the refusal says, the waits: 10 s and 2 s more for a user). A silent port is
# waited on to the end, and the test need not wait long; a wrong reply ends the wait as it comes, and the waits
# stay seconds, so that a busy machine cannot turn it into a silence.
@pytest.mark.parametrize("reply, said, waits", [
    (b"", "said nothing", (0.3, 0.3)),
    (b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n" * 20, "not in Dask's protocol", (2, 2)),
], ids=["silent", "http"])
def test_a_port_that_is_no_scheduler_is_said_so_in_seconds(reply, said, waits, monkeypatch):
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT_S", waits[0])
    monkeypatch.setattr(cluster, "CONNECT_GRACE_S", waits[1])
    listener, held = _server(reply)
    address = f"tcp://127.0.0.1:{listener.getsockname()[1]}"
    started = time.monotonic()
    try:
        with pytest.raises(SwitchscopeError, match=said) as refused:
            cluster.run([], address, lambda index, outcome: None)
    finally:
        listener.close()
        for connection in held:
            connection.close()
    assert time.monotonic() - started < cluster.CONNECT_TIMEOUT_S + cluster.CONNECT_GRACE_S + 3
    assert "dask scheduler" in refused.value.hint


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.slow  # a real scheduler's start, and a client process's import of Dask: seconds
def test_a_scheduler_without_workers_is_said_so_not_waited_on_for_ever():
    """A real scheduler, as a user starts it (`dask scheduler`), and the client in a process of its own, as a
    user's command is: a scheduler inside the test's process (LocalCluster(processes=False)) was seen to hang
    on closing in a busy pytest-xdist worker, and a client after this file's garbage-speaking ports met the
    state they left in the process."""
    port = _free_port()
    dask = Path(sys.executable).with_name("dask")
    scheduler = subprocess.Popen([str(dask), "scheduler", "--host", "127.0.0.1", "--port", str(port),
                                  "--no-dashboard"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:  # until it listens
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert scheduler.poll() is None and time.monotonic() < deadline, "dask scheduler did not start"
                time.sleep(0.2)
        client = subprocess.run([sys.executable, "-c", CLIENT_WITHOUT_WORKERS, f"tcp://127.0.0.1:{port}"],
                                capture_output=True, text=True, timeout=120)
    finally:
        scheduler.kill()
        scheduler.wait(timeout=30)
    said = client.stdout + client.stderr
    assert client.returncode == 0, said
    error, hint, seconds, err = said.split("\n@@\n")[:4]
    assert "has no workers" in error and "dask worker tcp://" in hint
    assert float(seconds) < 2 + 10  # its wait (2 s here, 30 s for a user) and the connection, never for ever
    assert "waiting up to 2 s" in err


# cluster.run on an address with a wait of 2 s for workers; prints the error, its hint, the seconds it took
# and what it said on stderr, each after a line "@@"
CLIENT_WITHOUT_WORKERS = r"""
import contextlib, io, sys, time
from switchscope.common.errors import SwitchscopeError
from switchscope.figures import cluster
cluster.WORKERS_TIMEOUT_S = 2
said = io.StringIO()
started = time.monotonic()
try:
    with contextlib.redirect_stderr(said):
        cluster.run([], sys.argv[1], lambda index, outcome: None)
    sys.exit("cluster.run returned without an error")
except SwitchscopeError as refused:
    print(refused, refused.hint, time.monotonic() - started, said.getvalue(), sep="\n@@\n")
"""
