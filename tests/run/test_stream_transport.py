"""The MPS2 record stream, as switchscope's runner has it sent (batches through
semihosting) and as the image sends it read over its UART like a board's: the
same windows, the same samples."""

import numpy as np
import pytest

from switchscope import catalog
from switchscope.build.firmware import build
from switchscope.common.tools import require
from switchscope.run.qemu import BATCHED_STREAM, command as qemu_command
from switchscope.run.runner import _collect

pytestmark = pytest.mark.firmware


@pytest.mark.parametrize("scenario", ["yield", "rotate"])
def test_the_batched_stream_carries_the_samples_the_uart_carries(scenario):
    target = catalog.TARGETS["mps2-an385"]
    firmware = build(catalog.KERNELS["freertos"], target, catalog.SCENARIOS[scenario])
    qemu = require("qemu-system-arm", "qemu-system-arm")
    streams = {}
    for way, extra in (("uart", []), ("batched", [BATCHED_STREAM])):
        stream, exit_code, stderr, _ = _collect(qemu_command(qemu, target, firmware.elf, ["samples=3000", *extra]),
                                                120, None)
        assert exit_code == 0 and stream.complete and not stream.problems, (way, stderr)
        streams[way] = stream
    uart, batched = streams["uart"], streams["batched"]
    assert len(uart.samples) == len(batched.samples) == 3000
    # the code between windows differs (a byte to the UART, a copy into a batch), the windows do not: each
    # sample is as many instructions long. SysTick on the AN385 counts at 25 MHz and -icount shift=8 makes an
    # instruction 256 ns: 6.4 counts an instruction, so a length in counts may differ by one with the
    # instruction count's phase, never by an instruction. SysTick counts down from 249,999 (a 100 Hz tick).
    # Which windows a tick falls into (flagged, and left out by the host) moves with the pacing, which the
    # code between windows moves: the samples compared are those neither run flagged.
    lengths = {way: (s.samples.column("start") - s.samples.column("end")) % 250_000 for way, s in streams.items()}
    kept = (uart.samples.column("flags") == 0) & (batched.samples.column("flags") == 0)
    assert kept.sum() > 2900
    assert np.abs(lengths["uart"][kept] - lengths["batched"][kept]).max() <= 1
    instructions = {way: np.rint(counts[kept] / 6.4) for way, counts in lengths.items()}
    assert np.array_equal(instructions["uart"], instructions["batched"])
    assert np.array_equal(uart.samples.column("seq"), batched.samples.column("seq"))
    assert uart.calibration == batched.calibration
    assert {k: v for k, v in uart.meta.items() if k != "tick_waits"} == \
        {k: v for k, v in batched.meta.items() if k != "tick_waits"}
