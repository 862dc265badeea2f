"""Reading a run's record stream from a board over a serial line: any pyserial
URL (/dev/ttyACM0, socket://host:port, rfc2217://host:port).

The wire format is the simulators' (docs/wire-format.md). A board may have been
running before the port was opened, or print other things: bytes before the
first HELLO record are skipped, so a run is read from its start. Every wait is
bounded: for the run to start, and for each next record once it has.
"""

from __future__ import annotations

import errno
import os
import select
import socket
import stat
import threading
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

from switchscope.common.errors import FirmwareFailed, SwitchscopeError
from switchscope.decode import wire
from switchscope.decode.wire import Stream, StreamDecoder
from switchscope.run.runner import Progress

START_WAIT_S = 8.0  # from opening the port to the run's first record: an Arduino's bootloader waits about 1.6 s
RECORD_WAIT_S = 5.0  # once the run has started, the longest silence between records
PREAMBLE_LIMIT = 1 << 20  # bytes kept while looking for the run's start
URL_HINT = "give a serial device (/dev/ttyACM0) or a pyserial URL (socket://HOST:PORT, rfc2217://HOST:PORT)"
MEMORY_DEVICES_MAJOR = 1  # Linux's /dev/null, /dev/zero, /dev/full, /dev/random, ...: devices.txt, "1 char"
FIND_PORTS = "ls /dev/ttyACM* /dev/ttyUSB* (an Arduino Uno or an ST-LINK is usually /dev/ttyACM0)"


@dataclass
class PortReading:
    stream: Stream
    skipped: int  # bytes before the run's first record (another run's tail, a bootloader's output)
    seconds: float


def _is_device(url: str) -> bool:
    return "://" not in url


def check_exists(url: str, also: str = "") -> None:
    """A serial device must be there (a URL's far end is known only once it is opened); `also`
    adds to what the error says to do."""
    if not _is_device(url):
        return
    hint = f"connect the board and find its port: {FIND_PORTS}; then give it with --port" + (f"; {also}" if also else "")
    try:
        found = os.stat(url)
    except FileNotFoundError:
        raise SwitchscopeError(f"no board at {url}: there is no such port", hint) from None
    except OSError as error:
        raise SwitchscopeError(f"--port {url}: {error.strerror}", hint) from None
    if stat.S_ISDIR(found.st_mode):
        raise SwitchscopeError(f"--port {url} is a directory, not a serial port", hint)
    if stat.S_ISCHR(found.st_mode) and os.major(found.st_rdev) == MEMORY_DEVICES_MAJOR:
        raise SwitchscopeError(f"--port {url} is one of the kernel's memory devices (/dev/null, /dev/zero, ...), "
                               "not a serial port: no board answers there", hint)


def check_port(url: str, also: str = "") -> None:
    """Before any work: a device must exist, a URL must be one pyserial knows (its far end is
    known only once it is opened)."""
    if not url.strip():
        raise SwitchscopeError("--port is empty: give the board's serial device or URL",
                               "for example --port /dev/ttyACM0 (an empty shell variable gives an empty --port)")
    if _is_device(url):
        check_exists(url, also)
    elif url.startswith("socket://"):
        _socket_address(url)
    else:
        import serial

        try:
            serial.serial_for_url(url, do_not_open=True)
        except ValueError as error:
            raise SwitchscopeError(f"--port {url}: {error}", URL_HINT) from None
        except serial.SerialException as error:  # hwgrep:// looks for its device now
            raise SwitchscopeError(f"--port {url}: {error}",
                                   f"list the ports there are with: python3 -m serial.tools.list_ports -v; "
                                   f"{URL_HINT}") from None


def _socket_address(url: str) -> tuple[str, int]:
    where = urllib.parse.urlsplit(url)
    try:
        port = where.port
    except ValueError:
        port = None
    if not where.hostname or port is None:
        raise SwitchscopeError(f"--port {url}: a socket URL names a host and a port", "socket://127.0.0.1:4444, "
                                                                                     "for example")
    return where.hostname, port


PYSERIAL_READER = "pySerial RFC 2217 reader thread"  # how pyserial names the thread that reads an rfc2217:// port
NOT_RFC2217 = "for a raw TCP serial bridge (ser2net raw, QEMU's -serial tcp) give socket://HOST:PORT instead"


class _ReaderThreadError:
    """pyserial's RFC 2217 reader thread dies on some bytes no RFC 2217 server sends (a TypeError on a stray
    end of sub-negotiation), and Python prints its traceback. While a port is open this keeps that error
    instead, for the port to say in one line; any other thread's goes where it went before."""

    def __init__(self):
        self.error: BaseException | None = None
        self._previous = threading.excepthook
        threading.excepthook = self._hook

    def _hook(self, args) -> None:
        if args.thread is not None and args.thread.name.startswith(PYSERIAL_READER):
            self.error = args.exc_value
            return
        self._previous(args)

    def said(self, url: str) -> SwitchscopeError:
        return FirmwareFailed(f"{url}: the far end does not speak RFC 2217 (pyserial could not read what it sent: "
                              f"{type(self.error).__name__}: {self.error})", NOT_RFC2217)

    def restore(self) -> None:
        threading.excepthook = self._previous


class _SerialPort:
    """A serial device or an rfc2217:// URL, through pyserial."""

    def __init__(self, port, url: str, reader: _ReaderThreadError):
        self.port = port
        self.url = url
        self.reader = reader

    def read_some(self) -> bytes | None:
        """What has arrived (b"" if nothing did within the port's timeout); None once it is gone."""
        import serial

        try:
            waiting = self.port.in_waiting
            return self.port.read(waiting if waiting else 1)
        except (serial.SerialException, OSError):
            if self.reader.error is not None:
                raise self.reader.said(self.url) from None
            return None  # unplugged, or a pty's simulator ended: what came before is decoded already

    def close(self) -> None:
        try:
            self.port.close()  # pyserial waits here for its reader thread to end
        finally:
            self.reader.restore()


class _SocketPort:
    """A socket://HOST:PORT URL (pyserial's syntax), read with the socket itself: pyserial's socket
    port reads and drops whatever arrives while it opens (a board model that sends the moment it is
    connected, as QEMU with wait=on does, lost the start of its run), and drops what it had read when
    the peer closes in the middle of a read."""

    def __init__(self, url: str):
        try:
            self.socket = socket.create_connection(_socket_address(url), timeout=5)
        except ConnectionRefusedError:
            raise SwitchscopeError(f"{url}: nothing listens there (connection refused)",
                                   "start the board's bridge or simulator first, or check the host and port") from None
        except OSError as error:
            raise SwitchscopeError(f"{url}: cannot connect: {error.strerror or error}") from None

    def read_some(self) -> bytes | None:
        try:
            ready, _, _ = select.select([self.socket], [], [], 0.05)
            if not ready:
                return b""
            return self.socket.recv(65536) or None  # b"": the peer closed
        except OSError:
            return None

    def close(self) -> None:
        self.socket.close()


def open_port(url: str, baud: int):
    """The port, opened for reading (read_some, close); a SwitchscopeError that says what to do
    when it cannot be. What a device had before it was opened is stale, and pyserial drops it."""
    if url.startswith("socket://"):
        return _SocketPort(url)
    check_exists(url)
    reader = _ReaderThreadError()
    try:
        return _SerialPort(_opened(url, baud), url, reader)
    except BaseException:
        reader.restore()  # pyserial has ended its reader thread before it lets a failed open go
        if reader.error is not None:
            raise reader.said(url) from None
        raise


def _opened(url: str, baud: int):
    import serial  # pyserial

    try:
        return serial.serial_for_url(url, baudrate=baud, timeout=0.05,
                                     **({"exclusive": True} if _is_device(url) else {}))
    except ValueError as error:
        raise SwitchscopeError(f"--port {url}: {error}", URL_HINT) from None
    except (serial.SerialException, OSError) as error:
        number = getattr(error, "errno", None)
        text = str(error)
        if number == errno.EACCES or "Permission denied" in text:
            raise SwitchscopeError(f"{url}: permission denied",
                                   "add yourself to the dialout group (sudo usermod -aG dialout $USER, then log in "
                                   "again), or run as root") from None
        if number == errno.EBUSY or "lock" in text.lower() or "busy" in text.lower():
            raise SwitchscopeError(f"{url}: the port is busy: another program has it open",
                                   "close the serial monitor, terminal or flasher that holds it") from None
        if "does not seem to support RFC2217" in text:  # a raw TCP bridge, or something else altogether
            raise SwitchscopeError(f"{url}: the far end does not speak RFC 2217 (it did not answer the option "
                                   "negotiation)", NOT_RFC2217) from None
        if "refused" in text.lower():
            raise SwitchscopeError(f"{url}: nothing listens there (connection refused)",
                                   "start the board's bridge or simulator first, or check the host and port") from None
        raise SwitchscopeError(f"{url}: cannot be opened: {text}") from None


HELLO_FRAME = len(wire.cobs_encode(bytes([wire.HELLO, wire.PROTOCOL_VERSION, 0])))  # type, version, CRC


def _is_record(frame: bytes, kind: int, length: int | None = None) -> bool:
    """Whether a frame (without its delimiter) is an intact record of this type."""
    try:
        record = wire.cobs_decode(frame)
    except ValueError:
        return False
    return (len(record) >= 2 and record[0] == kind and wire.crc8(record[:-1]) == record[-1]
            and (length is None or len(record) == length))


def _run_start(buffer: bytes, searched: int = 0) -> tuple[int | None, int]:
    """Where the run's first record, its HELLO, starts in `buffer`, if it has arrived, and how far
    the search got (pass it back with more data: nothing before it is looked at again). A HELLO
    is recognised by its last bytes before a delimiter, whatever came before it (a bootloader's
    output, the tail of another run, which need not end with a delimiter), and by the META record
    that follows it: four bytes of another run's records pass for a HELLO about once in 65,536 frames."""
    end = buffer.find(b"\0", max(searched, HELLO_FRAME))
    while end >= 0:
        if _is_record(buffer[end - HELLO_FRAME:end], wire.HELLO, 3):
            following = buffer.find(b"\0", end + 1)
            if following < 0:
                return None, end  # the record after it has not arrived yet: look at this one again
            if _is_record(buffer[end + 1:following], wire.META):
                return end - HELLO_FRAME, end
        end = buffer.find(b"\0", end + 1)
    return None, len(buffer)


def read_run(url: str, baud: int, time_limit: float, progress: Progress | None = None,
             start_wait: float = START_WAIT_S, record_wait: float = RECORD_WAIT_S, alongside=None) -> PortReading:
    """One run's stream, from its HELLO to its END record, within `time_limit` seconds.
    `alongside`: a flasher that writes the board through a debug probe once the port is open, so that
    the run its reset starts is read from its first byte (its done() raises if it fails); the wait
    for the run to start counts from its end."""
    port = open_port(url, baud)
    decoder = StreamDecoder()
    started = last_data = waiting_since = time.monotonic()
    preamble = bytearray()
    skipped = searched = 0
    running = False
    try:
        while not decoder.stream.complete:
            now = time.monotonic()
            if alongside is not None and alongside.done():
                alongside, waiting_since = None, now
            if now - started > time_limit:
                raise FirmwareFailed(_stopped(url, decoder.stream, f"did not finish within {time_limit:.0f} s"),
                                     "--timeout raises the limit for long runs")
            if not running and alongside is None and now - waiting_since > start_wait:
                seen = f"{len(preamble) + skipped} bytes came, none of them the start of a run" if preamble or skipped \
                    else "nothing came"
                raise FirmwareFailed(
                    f"{url}: no switchscope run started within {start_wait:g} s ({seen})",
                    f"press the board's reset button while switchscope waits, check the baud rate ({baud}), "
                    "and that the board runs a switchscope image (without --no-flash switchscope flashes it)")
            if running and now - last_data > record_wait:
                raise FirmwareFailed(_stopped(url, decoder.stream, f"went silent for {record_wait:g} s"),
                                     "the board hung, was reset, or the cable was pulled")
            data = port.read_some()
            if data is None and not running:
                seen = f"{len(preamble) + skipped} bytes came, none of them the start of a run" \
                    if preamble or skipped else "nothing came"
                raise FirmwareFailed(f"{url}: the far end closed the connection before a switchscope run started "
                                     f"({seen})", "check that the port is the board's, and that the board runs a "
                                                  "switchscope image at the right baud rate")
            if data is None:
                break  # the stream ends here; the caller says what is missing
            if not data:
                continue
            last_data = time.monotonic()
            if running:
                decoder.feed(data)
                if progress:
                    progress(len(decoder.stream.samples))
                continue
            preamble += data
            start, searched = _run_start(bytes(preamble), searched)
            if start is not None:
                skipped += start
                decoder.feed(bytes(preamble[start:]))
                running = True
            elif len(preamble) > PREAMBLE_LIMIT:  # keep the tail: a frame may be arriving
                cut = bytes(preamble).rfind(b"\0", 0, searched)
                cut = cut if cut >= 0 else max(searched - HELLO_FRAME, 0)
                skipped += cut
                del preamble[:cut]
                searched -= cut
    finally:
        port.close()
    return PortReading(decoder.finish(), skipped, time.monotonic() - started)


def _stopped(url: str, stream: Stream, what: str) -> str:
    said = "\n".join(f"    {line}" for line in stream.last_output()) or "    (nothing)"
    return f"{url}: the board {what} ({len(stream.samples)} samples received). Its last output:\n{said}"
