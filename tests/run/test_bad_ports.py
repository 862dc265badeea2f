"""Ports that cannot give a run: a hwgrep:// that matches no device, an
rfc2217:// or socket:// peer that speaks garbage or hangs up. Each ends within
seconds with one line that names the port and what to do; none a traceback."""

import os
import socket
import threading
import time

import pytest

from conftest import refused_cleanly, run_command


@pytest.mark.parametrize("url, fragment", [
    ("hwgrep://no-such-device-anywhere", "no ports found matching regexp"),
    ("hwgrep://^$", "no ports found matching regexp"),
    ("hwgrep://nosuch&skip_busy", "no ports found matching regexp"),
])
def test_a_hwgrep_url_that_matches_nothing_is_refused_before_any_work(tmp_path, monkeypatch, capsys, url, fragment):
    said = refused_cleanly(tmp_path, {}, ["run", "--target", "arduino-uno", "--port", url, "--scenario", "yield"], 2,
                           fragment, monkeypatch, capsys)
    assert f"--port {url}" in said and "serial.tools.list_ports" in said


class Peer:
    """A TCP peer on localhost that does one thing to whoever connects: `behaviour(connection)`."""

    def __init__(self, behaviour):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.behaviour = behaviour
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            with connection:
                try:
                    self.behaviour(connection)
                except OSError:
                    pass

    def close(self):
        self.server.close()


def garbage(connection):
    """Random bytes every 20 ms for a fifth of a second, then a hang-up: what ends the run on a socket:// port."""
    for _ in range(10):
        connection.sendall(os.urandom(97))
        time.sleep(0.02)


def hang_up(connection):
    connection.sendall(b"\xff\xfa\x2c")  # the start of a telnet sub-negotiation, then nothing


# pyserial's wait for an RFC 2217 server's option negotiation (3 s unless the URL says): a fifth of a second here,
# and once at its own length, which a user meets
SHORT_NEGOTIATION = "?timeout=0.2"
# pyserial sleeps 0.3 s after it closes an RFC 2217 port ("give the server some time"), and waits for the
# negotiation before that: half a second or more for each test through it, none of which the test can shorten
through_rfc2217 = pytest.mark.slow


@pytest.mark.parametrize("scheme, query, behaviour, fragment", [
    pytest.param("rfc2217", SHORT_NEGOTIATION, garbage, "the far end does not speak RFC 2217", marks=through_rfc2217,
                 id="rfc2217-garbage"),
    pytest.param("rfc2217", "", garbage, "the far end does not speak RFC 2217", marks=through_rfc2217,
                 id="rfc2217-garbage-pyserials-own-wait"),
    pytest.param("rfc2217", SHORT_NEGOTIATION, hang_up, "rfc2217://127.0.0.1:", marks=through_rfc2217,
                 id="rfc2217-hang_up"),
    pytest.param("socket", "", garbage, "none of them the start of a run", id="socket-garbage"),
    pytest.param("socket", "", hang_up, "socket://127.0.0.1:", id="socket-hang_up"),
])
def test_a_peer_that_speaks_garbage_fails_within_seconds(tmp_path, monkeypatch, capsys, scheme, query, behaviour,
                                                         fragment):
    peer = Peer(behaviour)
    monkeypatch.chdir(tmp_path)
    try:
        started = time.monotonic()
        status, said = run_command(["run", "--target", "mps2-an385", "--port",
                                    f"{scheme}://127.0.0.1:{peer.port}{query}", "--no-flash", "--scenario", "yield",
                                    "--timeout", "20"], capsys)
    finally:
        peer.close()
    assert "Traceback" not in said and status in (1, 2) and fragment in said, said
    assert time.monotonic() - started < 20
    assert not list(tmp_path.iterdir())


def stray_end_of_subnegotiation(connection):
    connection.sendall(b"\xff\xf0")  # IAC SE with no IAC SB before it: pyserial's reader thread raises on it
    time.sleep(1)


@through_rfc2217
def test_a_peer_that_kills_pyserials_reader_thread_is_one_clear_error(monkeypatch):
    """pyserial's RFC 2217 reader thread dies with a TypeError on such bytes, and Python printed its
    traceback under the command's error; the error is now said in the command's one line."""
    from switchscope.common.errors import SwitchscopeError
    from switchscope.run import serial_port

    died = []
    monkeypatch.setattr(threading, "excepthook", died.append)  # where a thread's traceback would have gone
    peer = Peer(stray_end_of_subnegotiation)
    try:
        with pytest.raises(SwitchscopeError) as refused:  # timeout: pyserial's wait for the option negotiation
            serial_port.open_port(f"rfc2217://127.0.0.1:{peer.port}?timeout=0.2", 115200)
    finally:
        peer.close()
    assert not died, died
    assert threading.excepthook == died.append  # put back once the port is closed
    said = str(refused.value)
    assert said.startswith(f"rfc2217://127.0.0.1:{peer.port}?timeout=0.2: the far end does not speak RFC 2217 "
                           "(pyserial could not read what it sent: TypeError"), said
    assert "give socket://HOST:PORT instead" in said
