"""Boards over a serial line, without hardware: the very image the simulated
path measures runs on its simulator with the serial port on a pty (simavr,
read as a /dev/pts/N device) or a TCP socket (QEMU, read as socket://), and
`switchscope run --port ... --no-flash` reads it through pyserial. Its figures
must equal the simulated path's, sample for sample."""

import json
import os
import select
import socket
import subprocess
import threading
import time
import tty
from pathlib import Path

import pytest

from switchscope import catalog
from switchscope.build import native
from switchscope.build.firmware import build
from switchscope.catalog.job import Job
from switchscope.cli import main
from switchscope.common.errors import FirmwareFailed, SwitchscopeError
from switchscope.decode import wire
from switchscope.figures import kinds
from switchscope.figures.measure import counted_over_port, measure
from switchscope.figures.result import Result
from switchscope.present import report
from switchscope.run import flash, qemu, serial_port, simavr

SAMPLES = 300


def _job(target: str, scenario: str) -> Job:
    return Job(catalog.KERNELS["freertos"], catalog.TARGETS[target], catalog.SCENARIOS[scenario],
               catalog.METHODS["probe"], unit="instructions" if catalog.TARGETS[target].simulator == "qemu" else None)


def _parameters(job: Job) -> list[str]:
    return kinds.of(job).parameters(SAMPLES, job.resolved_config())


def _listening(port: int) -> bool:
    wanted = f":{port:04X} "
    with open("/proc/net/tcp") as table:
        return any(wanted in line and line.split()[3] == "0A" for line in table)  # 0A: LISTEN


def _board_on_socket(job: Job) -> tuple[subprocess.Popen, str]:
    """QEMU running the job's image, its USART on a TCP socket it listens on (waiting for the reader)."""
    elf = build(job.kernel, job.target, job.scenario, job.method, job.resolved_config()).elf
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = qemu.command(qemu.QEMU, job.target, elf, _parameters(job))
    command[command.index("stdio")] = f"tcp:127.0.0.1:{port},server=on,wait=on"
    board = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             start_new_session=True)
    deadline = time.monotonic() + 20
    while not _listening(port):
        assert board.poll() is None and time.monotonic() < deadline, board.stderr.read().decode()
        time.sleep(0.05)
    return board, f"socket://127.0.0.1:{port}"


class PtyBoard:
    """A serial device (a pty's slave) with a board behind it (its master). Like an Arduino, which
    resets when its port is opened, the board starts only once the reader has opened the device: a
    serial port drops what arrived before it was opened."""

    def __init__(self, start):
        self.master, slave = os.openpty()
        tty.setraw(slave)  # bytes as they are: no newline translation, no echo
        self.device = os.ttyname(slave)
        os.close(slave)
        self.board = None
        self.thread = threading.Thread(target=self._start_when_opened, args=(start,), daemon=True)
        self.thread.start()

    def _start_when_opened(self, start):
        hangup = select.poll()
        hangup.register(self.master, select.POLLHUP)
        deadline = time.monotonic() + 30
        while hangup.poll(0) and time.monotonic() < deadline:  # no one has the slave open yet
            time.sleep(0.01)
        time.sleep(0.2)  # the reader's open() flushes what has arrived: start after it, as a bootloader does
        self.board = start(self.master)

    def close(self):
        self.thread.join(timeout=30)
        if isinstance(self.board, subprocess.Popen):
            self.board.kill()
            self.board.wait()
        os.close(self.master)  # open until now: what the board wrote before it ended is still there to read


def _write_all(fd: int, data: bytes) -> None:
    while data:  # a pty takes a few kilobytes at a time
        data = data[os.write(fd, data):]


def _simavr_board(job: Job) -> PtyBoard:
    """simavr running the job's image, its USART0 written to the pty's master."""
    elf = build(job.kernel, job.target, job.scenario, job.method, job.resolved_config()).elf
    command = simavr.command(native.built("simavr"), job.target, elf, _parameters(job), SAMPLES,
                             simavr.INTERRUPT_ENTRY_CYCLES)
    return PtyBoard(lambda master: subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=master,
                                                    stderr=subprocess.DEVNULL, start_new_session=True))


def _read_over_port(capsys, tmp_path, target: str, scenario: str, port: str, *extra: str) -> dict:
    out = tmp_path / f"{target}-{scenario}.json"
    status = main(["run", "--target", target, "--scenario", scenario, "--port", port, "--no-flash",
                   "--json", str(out), "--quiet", *extra])
    printed = capsys.readouterr()
    assert status == 0, printed.err
    (result,) = json.loads(out.read_text())["results"]
    return result


@pytest.mark.firmware
@pytest.mark.parametrize("scenario", ["yield", "signal"])
def test_the_arduino_image_read_over_a_serial_device_gives_the_simulated_figures(scenario, capsys, tmp_path):
    job = _job("atmega328p", scenario)
    simulated = measure(job, SAMPLES)
    board = _simavr_board(job)
    try:
        result = _read_over_port(capsys, tmp_path, "arduino-uno", scenario, board.device, "--samples", str(SAMPLES))
    finally:
        board.close()
    assert result["samples"] == simulated.samples and result["unit"] == "cycles"
    assert result["excluded"] == simulated.excluded
    assert result["simulator"]["name"] == f"arduino-uno at {board.device}"
    assert "2000000 baud" in result["simulator"]["options"]


def _simavr_on_socket(job: Job) -> tuple[threading.Thread, str]:
    """simavr running the job's image once a reader connects, its USART0 written to the connection."""
    elf = build(job.kernel, job.target, job.scenario, job.method, job.resolved_config()).elf
    command = simavr.command(native.built("simavr"), job.target, elf, _parameters(job), SAMPLES,
                             simavr.INTERRUPT_ENTRY_CYCLES)
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(30)

    def serve():
        with server, server.accept()[0] as connection:
            subprocess.run(command, stdin=subprocess.DEVNULL, stdout=connection.fileno(), stderr=subprocess.DEVNULL,
                           timeout=60, check=False)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return thread, f"socket://127.0.0.1:{server.getsockname()[1]}"


@pytest.mark.firmware
def test_the_arduino_image_read_over_a_socket_gives_the_simulated_figures(capsys, tmp_path):
    job = _job("atmega328p", "isr")
    simulated = measure(job, SAMPLES)
    thread, url = _simavr_on_socket(job)
    result = _read_over_port(capsys, tmp_path, "arduino-uno", "isr", url)
    thread.join(timeout=60)
    assert result["samples"] == simulated.samples and result["unit"] == "cycles"
    assert result["simulator"]["name"] == f"arduino-uno at {url}"


@pytest.mark.firmware
@pytest.mark.parametrize("target", ["stm32vldiscovery", "netduinoplus2", "mps2-an385"])
def test_a_qemu_board_model_read_over_a_socket_gives_the_simulated_figures(target, capsys, tmp_path):
    """The STM32 kits' image on QEMU's model of the kit: SysTick stamps, so instructions."""
    job = _job(target, "signal")
    simulated = measure(job, SAMPLES)
    board, url = _board_on_socket(job)
    try:
        result = _read_over_port(capsys, tmp_path, target, "signal", url)
    finally:
        board.kill()
        board.wait()
    assert result["samples"] == simulated.samples and result["unit"] == "instructions"
    assert result["count"] == SAMPLES  # without --samples: what the image measures
    assert "stamps: SysTick (QEMU's model: instructions)" in result["simulator"]["options"]


@pytest.mark.firmware
def test_a_board_already_running_is_read_from_the_start_of_its_next_run(tmp_path):
    """Garbage first (another run's tail, a bootloader's chatter), then a whole run: the reader skips to its HELLO."""
    job = _job("atmega328p", "yield")
    elf = build(job.kernel, job.target, job.scenario, job.method, job.resolved_config()).elf
    whole = subprocess.run(simavr.command(native.built("simavr"), job.target, elf, _parameters(job), SAMPLES,
                                          simavr.INTERRUPT_ENTRY_CYCLES),
                           capture_output=True, check=False).stdout
    board = PtyBoard(lambda master: _write_all(master, whole[len(whole) // 2:] + b"\x13garbage\x00\xff" + whole))
    try:
        reading = serial_port.read_run(board.device, 2_000_000, time_limit=20)
    finally:
        board.close()
    assert reading.stream.complete and len(reading.stream.samples) == SAMPLES and not reading.stream.problems
    assert reading.skipped == len(whole) - len(whole) // 2 + len(b"\x13garbage\x00\xff")


def test_a_missing_or_silent_board_fails_within_seconds_with_what_to_do(tmp_path, capsys):
    started = time.monotonic()
    assert main(["run", "--target", "arduino-uno", "--port", str(tmp_path / "ttyACM0"), "--scenario", "yield"]) == 2
    said = capsys.readouterr().err
    assert "no board at" in said and "ls /dev/ttyACM*" in said and time.monotonic() - started < 5
    assert "to flash it by hand: avrdude -p atmega328p -c arduino -P PORT" in said
    master, slave = os.openpty()  # a port that exists but where nothing is said
    device = os.ttyname(slave)
    try:
        started = time.monotonic()
        with pytest.raises(FirmwareFailed, match="no switchscope run started within 0.2 s") as failure:
            serial_port.read_run(device, 115_200, time_limit=10, start_wait=0.2)
        assert "reset button" in failure.value.hint and time.monotonic() - started < 4
    finally:
        os.close(master)
        os.close(slave)
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    with pytest.raises(SwitchscopeError, match="nothing listens there"):
        serial_port.read_run(f"socket://127.0.0.1:{port}", 115_200, time_limit=5)


def test_the_board_options_are_checked_before_any_work(capsys):
    master, slave = os.openpty()  # a serial line with no board on it
    port = os.ttyname(slave)
    cases = [(["--target", "arduino-uno"], "is a real board: give its serial port"),
             (["--target", "atmega328p", "--no-flash"], "--no-flash applies to a board read over --port"),
             (["--target", "arduino-uno", "--port", port, "--kernel", "all"], "one kernel's image at a time"),
             (["--target", "arduino-uno", "--port", port, "--simulate"], "give one of them"),
             (["--target", "arduino-uno", "--port", port, "--no-flash"], "choose its --scenario"),
             (["--target", "arduino-uno", "--port", port, "--scenario", "yield", "--method", "scope"],
              "only the probe method measures"),
             (["--target", "arduino-uno", "--port", "/dev/null", "--scenario", "yield"],
              "--port /dev/null is one of the kernel's memory devices"),
             (["--target", "arduino-uno", "--port", "/tmp", "--scenario", "yield"], "--port /tmp is a directory"),
             (["--target", "ibex", "--port", port, "--scenario", "yield"],
              "ibex is no real board switchscope can flash\n  flash its image by other means, then read the board with --port"),
             (["--target", "mps2-an385", "--port", "socket://127.0.0.1", "--no-flash", "--scenario", "yield"],
              "a socket URL names a host and a port"),
             (["--target", "mps2-an385", "--port", "bogus://x", "--no-flash", "--scenario", "yield"],
              "protocol 'bogus' not known")]
    try:
        for arguments, said in cases:
            status = main(["run", *arguments])
            assert status in ((2,) if "--port" in said else (1, 2)) and said in capsys.readouterr().err, arguments
    finally:
        os.close(master)
        os.close(slave)


def test_the_uno_is_flashed_with_avrdude_through_its_bootloader(tmp_path, monkeypatch):
    target = catalog.TARGETS["atmega328p"]
    device = tmp_path / "ttyACM0"
    device.touch()
    monkeypatch.setattr(flash, "hex_image", lambda _target, elf: elf.with_suffix(".hex"))
    monkeypatch.setattr(flash, "require", lambda executable, package: f"/usr/bin/{executable}")
    argv = flash.command(target, tmp_path / "yield.elf", str(device))
    assert argv == ["/usr/bin/avrdude", "-p", "atmega328p", "-c", "arduino", "-P", str(device), "-b", "115200", "-D",
                    "-U", f"flash:w:{tmp_path / 'yield.hex'}:i"]
    kit = catalog.TARGETS["stm32vldiscovery"]  # through its ST-LINK: the port is the adapter's, for reading
    assert flash.command(kit, tmp_path / "yield.elf", str(device)) == [
        "/usr/bin/openocd", "-f", "board/stm32vldiscovery.cfg",
        "-c", f"program {tmp_path / 'yield.elf'} verify reset exit"]
    with pytest.raises(SwitchscopeError, match="not a URL"):
        flash.command(target, tmp_path / "yield.elf", "socket://127.0.0.1:4444")
    with pytest.raises(SwitchscopeError, match="no real board"):
        flash.command(catalog.TARGETS["mps2-an385"], tmp_path / "yield.elf", str(device))


def test_every_kit_is_listed_with_its_stamp_timer_and_flasher(capsys):
    assert main(["list", "boards"]) == 0
    listed = capsys.readouterr().out
    for board, timer, flasher in (("arduino-uno", "Timer1", "avrdude"), ("stm32vldiscovery", "DWT", "openocd"),
                                  ("netduinoplus2", "DWT", "openocd")):
        line = next(line for line in listed.splitlines() if line.strip().startswith(board))
        details = listed.split(line, 1)[1].splitlines()[1]
        assert timer in details and flasher in details, (board, details)


def test_without_avrdude_flashing_names_the_package(tmp_path, monkeypatch):
    device = tmp_path / "ttyACM0"
    device.touch()
    monkeypatch.setenv("PATH", str(tmp_path))  # no avrdude, no avr-objcopy: the first one missing is named
    with pytest.raises(SwitchscopeError) as failure:
        flash.command(catalog.TARGETS["atmega328p"], tmp_path / "yield.elf", str(device))
    assert "avrdude" in f"{failure.value} {failure.value.hint}"  # the flasher and its Debian package


def _record(kind: int, body: bytes) -> bytes:
    return wire.encode_record(bytes([kind]) + body)


def test_a_chip_that_stamps_with_its_cycle_counter_is_read_in_true_cycles():
    """What an STM32 kit sends (no chip here, so the stream is written out): the DWT counter
    counts up through 2^32 (modulus 0), one count per cycle, and may wrap inside a window."""
    meta = {"board": "netduinoplus2", "stamp_timer": "DWT", "stamp_modulus": "0", "stamp_direction": "up",
            "stamp_clock_hz": "168000000", "samples": "2"}
    data = _record(wire.HELLO, bytes([wire.PROTOCOL_VERSION]))
    data += b"".join(_record(wire.META, f"{k}={v}".encode()) for k, v in meta.items())
    data += _record(wire.CALIB, (1000).to_bytes(4, "little") + (1011).to_bytes(4, "little"))  # the probe: 11
    for seq, start, end in ((0, 5000, 5125), (1, 2**32 - 100, 25)):  # 125 counts, then 125 across the wrap
        data += _record(wire.SAMPLE, seq.to_bytes(4, "little") + start.to_bytes(4, "little")
                        + end.to_bytes(4, "little") + bytes(3))
    stream = wire.decode(data + _record(wire.END, (2).to_bytes(4, "little")))
    job, said = counted_over_port(_job("netduinoplus2", "yield"), stream)
    assert job.counted_in == "cycles" and job.target.timing_model_for("cycles") is None
    assert said == "stamps: DWT cycle counter (silicon)"
    reading = catalog.METHODS["probe"].reading(stream, None, job.target, "chip", job.counted_in)
    assert list(reading.raw) == [125, 125] and reading.overhead == 11
    assert reading.extra["timer"]["modulus"] == 2**32 and reading.extra["timer"]["counts_per_unit"] == "1"
    chip = Result(kind="scenario", scenario="yield", method="probe", unit="cycles", samples=[125], overhead=11,
                  first=125, timer={"name": "DWT", **reading.extra["timer"]})
    assert report.counted_by(chip) == " (DWT, silicon)"  # what the tables say beside the unit


def _fake_flasher(directory: Path, name: str, exit_code: int, said: str = "") -> Path:
    """A stand-in for the flasher alone (no board here): it records its arguments and answers as told."""
    log = directory / f"{name}.args"
    script = directory / name
    script.write_text(f"#!/bin/sh\nprintf '%s\\n' \"$@\" > {log}\necho '{said}' >&2\nexit {exit_code}\n")
    script.chmod(0o755)
    return log


@pytest.mark.firmware
def test_flash_builds_the_image_and_hands_it_to_avrdude(tmp_path, monkeypatch, capsys):
    device = tmp_path / "ttyACM0"
    device.touch()
    tools = tmp_path / "bin"
    tools.mkdir()
    log = _fake_flasher(tools, "avrdude", 0)
    monkeypatch.setenv("PATH", f"{tools}:{os.environ['PATH']}")
    assert main(["flash", "--target", "arduino-uno", "--port", str(device), "--scenario", "signal",
                 "--method", "scope", "--samples", "77"]) == 0
    arguments = log.read_text().split("\n")
    image = Path(arguments[arguments.index("-U") + 1].removeprefix("flash:w:").removesuffix(":i"))
    assert arguments[:6] == ["-p", "atmega328p", "-c", "arduino", "-P", str(device)]
    assert image.read_text().startswith(":") and image.with_suffix(".elf").is_file()  # Intel HEX beside the ELF
    assert "freertos/atmega328p/signal/scope" in capsys.readouterr().out
    # what was handed to avrdude measures 77 windows with no runner to tell it so
    assert _run_without_host_parameters(catalog.TARGETS["atmega328p"], image.with_suffix(".elf")).meta["samples"] \
        == "77"

    _fake_flasher(tools, "avrdude", 1, "avrdude: stk500_recv(): programmer is not responding")
    assert main(["flash", "--target", "arduino-uno", "--port", str(device)]) == 1
    said = capsys.readouterr().err
    assert "programmer is not responding" in said and "by hand: " in said and "flash:w:" in said


@pytest.mark.firmware
def test_a_kit_flashed_through_its_debug_probe_is_flashed_with_the_port_open_and_its_failure_said(
        tmp_path, monkeypatch, capsys):
    tools = tmp_path / "bin"
    tools.mkdir()
    log = _fake_flasher(tools, "openocd", 1, "Error: open failed")
    monkeypatch.setenv("PATH", f"{tools}:{os.environ['PATH']}")
    master, slave = os.openpty()  # the USB-serial adapter's port: open while the probe flashes
    device = os.ttyname(slave)
    try:
        started = time.monotonic()
        assert main(["run", "--target", "stm32vldiscovery", "--port", device, "--scenario", "yield", "--quiet"]) == 1
        assert time.monotonic() - started < 30
        said = capsys.readouterr().err
        assert main(["run", "--target", "mps2-an385", "--port", device, "--scenario", "yield"]) == 2
        assert "no real board switchscope can flash" in capsys.readouterr().err
    finally:
        os.close(master)
        os.close(slave)
    assert "openocd could not flash stm32vldiscovery" in said and "Error: open failed" in said
    assert "by hand: " in said and "program " in said and "board/stm32vldiscovery.cfg" in log.read_text()


def test_a_socket_port_keeps_what_arrives_at_once_and_what_came_before_the_peer_closed():
    """pyserial's socket port drops what arrives while it opens, and what it had read when the peer
    closes mid-read: a board model that sends the moment it is connected (QEMU with wait=on) lost
    the start of its run now and then. The socket port switchscope reads keeps every byte."""
    server = socket.create_server(("127.0.0.1", 0))
    sent = bytes(range(1, 256)) * 64

    def send():
        with server, server.accept()[0] as connection:
            connection.sendall(sent)  # at once, then close

    thread = threading.Thread(target=send, daemon=True)
    thread.start()
    port = serial_port.open_port(f"socket://127.0.0.1:{server.getsockname()[1]}", 115_200)
    received = b""
    try:
        while (data := port.read_some()) is not None:
            received += data
    finally:
        port.close()
        thread.join(timeout=10)
    assert received == sent


def test_the_search_for_a_run_start_looks_at_each_byte_once():
    """A board already deep in a long run: the reader scans what it has not scanned yet, never the
    whole preamble again (which made it quadratic in what came before the run)."""
    hello = wire.encode_record(bytes([wire.HELLO, wire.PROTOCOL_VERSION]))
    meta = wire.encode_record(bytes([wire.META]) + b"board=x")
    other = wire.encode_record(bytes([wire.SAMPLE_COMPACT, 7, 1, 0]))
    buffer = other * 1000
    start, searched = serial_port._run_start(buffer)
    assert start is None and searched == len(buffer)
    buffer += hello  # its META has not come yet: looked at again next time
    start, searched = serial_port._run_start(buffer, searched)
    assert start is None and searched == len(buffer) - 1
    buffer += meta
    start, _ = serial_port._run_start(buffer, searched)
    assert start == len(other) * 1000


def _run_without_host_parameters(target, image: Path):
    """The image on its simulator with nothing passed to it, as on a chip: its stream."""
    if target.simulator == "simavr":
        command = simavr.command(native.built("simavr"), target, image, [], 100, simavr.INTERRUPT_ENTRY_CYCLES)
        command = command[:command.index("--parameters-at")]
    else:
        command = qemu.command(qemu.QEMU, target, image, [])
    return wire.decode(subprocess.run(command, capture_output=True, timeout=60, check=False).stdout)


@pytest.mark.firmware
@pytest.mark.parametrize("target", ["atmega328p", "stm32vldiscovery"])
def test_a_flashed_image_carries_its_run_parameters(target):
    """A chip has no simulator to pass it --samples: the host writes the parameters into the image it
    flashes, and the image measures them. As built, an image measures its defaults."""
    job = _job(target, "yield")
    built = build(job.kernel, job.target, job.scenario, job.method, job.resolved_config()).elf
    assert flash.with_parameters(built, []) == built
    carried = _run_without_host_parameters(job.target, flash.with_parameters(built, ["samples=77"]))
    assert carried.complete and carried.meta["samples"] == "77" and len(carried.samples) == 77
    assert _run_without_host_parameters(job.target, built).meta["samples"] == "1000"
    with pytest.raises(SwitchscopeError, match="do not fit"):
        flash.with_parameters(built, ["samples=1"] * 20)
