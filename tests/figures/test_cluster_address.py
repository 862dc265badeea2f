"""--cluster tcp://HOST:PORT where no Dask scheduler is: a port that accepts and says nothing, and one that
speaks another protocol, are each a clear error within seconds, never a hang or a traceback."""

import socket
import threading
import time

import pytest

from switchscope.common.errors import SwitchscopeError
from switchscope.figures import cluster

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


@pytest.mark.parametrize("reply,said", [(b"", "said nothing"),
                                        (b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n" * 20,
                                         "not in Dask's protocol")])
def test_a_port_that_is_no_scheduler_is_said_so_in_seconds(reply, said, monkeypatch):
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT_S", 2)  # 10 s for a user; the test need not wait that long
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
    assert time.monotonic() - started < cluster.CONNECT_TIMEOUT_S + 5
    assert "dask scheduler" in refused.value.hint


def test_a_scheduler_without_workers_is_said_so_not_waited_on_for_ever(monkeypatch, capsys):
    from dask.distributed import LocalCluster
    monkeypatch.setattr(cluster, "WORKERS_TIMEOUT_S", 2)  # 30 s for a user
    with LocalCluster(n_workers=0, processes=False, protocol="tcp://", dashboard_address=None) as empty:
        started = time.monotonic()
        with pytest.raises(SwitchscopeError, match="has no workers") as refused:
            cluster.run([], empty.scheduler_address, lambda index, outcome: None)
        assert time.monotonic() - started < cluster.WORKERS_TIMEOUT_S + 10
    assert "dask worker tcp://" in refused.value.hint
    assert "waiting up to 2 s" in capsys.readouterr().err
