"""Reading a run's record stream from a board over a serial line: any pyserial
URL (/dev/ttyACM0, socket://host:port, rfc2217://host:port).

The wire format is the simulators' (docs/wire-format.md). A board may have been
running before the port was opened, or print other things: bytes before the
first HELLO record are skipped, so a run is read from its start. Every wait is
bounded: for the run to start, and for each next record once it has.
"""

from __future__ import annotations

import errno
import time
from dataclasses import dataclass
from pathlib import Path

from switchscope import wire
from switchscope.errors import FirmwareFailed, SwitchscopeError
from switchscope.runner import Progress
from switchscope.wire import Stream, StreamDecoder

START_WAIT_S = 8.0  # from opening the port to the run's first record: an Arduino's bootloader waits about 1.6 s
RECORD_WAIT_S = 5.0  # once the run has started, the longest silence between records
PREAMBLE_LIMIT = 1 << 20  # bytes kept while looking for the run's start
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
    if _is_device(url) and not Path(url).exists():
        raise SwitchscopeError(f"no board at {url}: there is no such port",
                               f"connect the board and find its port: {FIND_PORTS}; then give it with --port"
                               + (f"; {also}" if also else ""))


def open_port(url: str, baud: int):
    """The port, opened for reading; a SwitchscopeError that says what to do when it cannot be."""
    import serial  # pyserial

    check_exists(url)
    try:
        port = serial.serial_for_url(url, baudrate=baud, timeout=0.05, do_not_open=True,
                                     **({"exclusive": True} if _is_device(url) else {}))
        if not _is_device(url):
            # pyserial's open() of a socket:// URL reads and drops whatever has arrived, for as long as
            # more keeps arriving: a board model that starts sending when the connection is made would
            # lose the start of its run. What a device had before it was opened is stale, and dropped.
            port.reset_input_buffer = lambda: None
        port.open()
        return port
    except ValueError as error:
        raise SwitchscopeError(f"--port {url}: {error}",
                               "give a serial device (/dev/ttyACM0) or a pyserial URL (socket://HOST:PORT, "
                               "rfc2217://HOST:PORT)") from None
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


def _run_start(buffer: bytes) -> int | None:
    """Where the run's first record, its HELLO, starts in `buffer`, if it has arrived. A HELLO is
    recognised by its last bytes before a delimiter, whatever came before it (a bootloader's output,
    the tail of another run, which need not end with a delimiter), and by the META record that
    follows it: four bytes of another run's records pass for a HELLO about once in 65,536 frames."""
    end = buffer.find(b"\0", HELLO_FRAME)
    while end >= 0:
        if _is_record(buffer[end - HELLO_FRAME:end], wire.HELLO, 3):
            following = buffer.find(b"\0", end + 1)
            if following < 0:
                return None  # the record after it has not arrived yet
            if _is_record(buffer[end + 1:following], wire.META):
                return end - HELLO_FRAME
        end = buffer.find(b"\0", end + 1)
    return None


def _read_some(port) -> bytes | None:
    """What has arrived, waiting at most the port's timeout; None once the other
    end has closed. One byte at a time when nothing is known to be waiting: a
    socket:// port loses what it had read when the peer closes during a read of
    more than one byte."""
    import serial

    try:
        waiting = port.in_waiting
        return port.read(waiting if waiting else 1)
    except (serial.SerialException, OSError):
        return None  # closed (a socket's peer, a pty's simulator): what came before is decoded already


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
    skipped = 0
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
                    f"{url}: no switchscope run started within {start_wait:.0f} s ({seen})",
                    f"press the board's reset button while switchscope waits, check the baud rate ({baud}), "
                    "and that the board runs a switchscope image (without --no-flash switchscope flashes it)")
            if running and now - last_data > record_wait:
                raise FirmwareFailed(_stopped(url, decoder.stream, f"went silent for {record_wait:.0f} s"),
                                     "the board hung, was reset, or the cable was pulled")
            data = _read_some(port)
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
            start = _run_start(bytes(preamble))
            if start is not None:
                skipped += start
                decoder.feed(bytes(preamble[start:]))
                running = True
            elif len(preamble) > PREAMBLE_LIMIT:  # keep the tail: a frame may be arriving
                cut = bytes(preamble).rfind(b"\0")
                skipped += cut + 1
                del preamble[:cut + 1]
    finally:
        port.close()
    return PortReading(decoder.finish(), skipped, time.monotonic() - started)


def _stopped(url: str, stream: Stream, what: str) -> str:
    said = "\n".join(f"    {line}" for line in stream.last_output()) or "    (nothing)"
    return f"{url}: the board {what} ({len(stream.samples)} samples received). Its last output:\n{said}"
