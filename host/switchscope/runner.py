"""Running firmware on a simulator and collecting its record stream.

A run is bounded: it ends when the firmware exits, or is killed at the time
limit. Either way the caller gets what the firmware sent, so a failure can be
explained by its last words.
"""

from __future__ import annotations

import os
import select
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from switchscope.catalog import Target
from switchscope.errors import FirmwareFailed
from switchscope.tools import require, version_line
from switchscope.wire import Stream, StreamDecoder

Progress = Callable[[int], None]  # called with the number of samples received so far


@dataclass
class RunOutput:
    stream: Stream
    exit_code: int | None  # None when the run was killed at the time limit
    stderr: str
    wall_seconds: float
    simulator: str  # version line of the simulator
    command: list[str]


def qemu_command(qemu: str, target: Target, elf: Path, parameters: list[str]) -> list[str]:
    # Semihosting carries the parameters in and the exit code out; commas in a
    # QEMU option value are escaped by doubling.
    args = "".join(f",arg={p.replace(',', ',,')}" for p in parameters)
    return [
        qemu, "-machine", target.name, "-display", "none", "-monitor", "none", "-serial", "stdio",
        "-semihosting-config", f"enable=on,target=native{args}",
        # Virtual time advances 2**shift ns per instruction and never with the host clock:
        # the timers then count instructions, and every run is identical.
        "-icount", f"shift={target.icount_shift},sleep=off",
        "-kernel", str(elf),
    ]


def run(target: Target, elf: Path, parameters: list[str], time_limit: float,
        progress: Progress | None = None) -> RunOutput:
    """Run `elf` on the target's simulator until it exits or `time_limit` seconds pass."""
    qemu = require(target.simulator, target.simulator_package)
    command = qemu_command(qemu, target, elf, parameters)
    decoder = StreamDecoder()
    started = time.monotonic()
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    stderr = bytearray()
    exit_code: int | None = None
    try:
        streams = {process.stdout.fileno(): "out", process.stderr.fileno(): "err"}
        while streams:
            remaining = time_limit - (time.monotonic() - started)
            if remaining <= 0:
                break
            ready, _, _ = select.select(list(streams), [], [], min(remaining, 0.25))
            for fd in ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    del streams[fd]
                elif streams[fd] == "out":
                    decoder.feed(chunk)
                    if progress:
                        progress(len(decoder.stream.samples))
                else:
                    stderr += chunk
        if streams:  # still open at the time limit: the firmware hangs or runs away
            process.kill()
            process.wait()
        else:
            exit_code = process.wait(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()
        process.stderr.close()
    return RunOutput(
        stream=decoder.finish(),
        exit_code=exit_code,
        stderr=stderr.decode(errors="replace"),
        wall_seconds=time.monotonic() - started,
        simulator=version_line(qemu),
        command=command,
    )


def check_completed(output: RunOutput, what: str, time_limit: float) -> None:
    """Raise FirmwareFailed unless the run ended normally with a complete stream."""
    stream = output.stream
    said = "\n".join(f"    {line}" for line in stream.last_output()) or "    (nothing)"
    received = f"{len(stream.samples)} samples received before it stopped"
    if output.exit_code is None:
        raise FirmwareFailed(
            f"{what}: the firmware did not finish within {time_limit:.0f} s and was stopped ({received}). "
            f"Its last output:\n{said}",
            "a scenario that never ends is a bug in it or in the kernel port; --timeout raises the limit for long runs",
        )
    if stream.fault:
        raise FirmwareFailed(f"{what}: the firmware failed: {stream.fault} ({received}). Its last output:\n{said}")
    if output.exit_code != 0:
        tail = "\n".join(f"    {line}" for line in output.stderr.strip().splitlines()[-8:]) or "    (nothing)"
        raise FirmwareFailed(
            f"{what}: the simulator exited with code {output.exit_code} ({received}).\n"
            f"  simulator said:\n{tail}\n  firmware's last output:\n{said}"
        )
    if not stream.complete:
        problems = "; ".join(str(p) for p in stream.problems[-3:]) or "no end record"
        raise FirmwareFailed(f"{what}: the sample stream is incomplete ({received}): {problems}")
