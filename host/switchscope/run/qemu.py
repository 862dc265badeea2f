"""Running firmware on QEMU's Cortex-M machines: parameters in and the exit
code out through semihosting, the record stream on the UART (or in batches
through semihosting), every run identical under -icount. What QEMU counts is
instructions; our plugin (host/qemu-plugin) logs the watches and, through its
timing model, counts cycles."""

from __future__ import annotations

from pathlib import Path

from switchscope.build import native
from switchscope.catalog import Target
from switchscope.common.tools import require, version_line
from switchscope.decode import elf
from switchscope.decode.recording import Edge, Events
from switchscope.run.simulator import Request, edges

NAME = "qemu"
UNIT = "instructions"
ELF_MACHINE = "EM_ARM"
COUNTS = "instructions, counted by QEMU"
TRACES_WINDOWS = True  # breakdown: the plugin logs every instruction of one window (trace=)
TIME_LIMIT_PER_SAMPLE_S = 0.002  # the default time limit's allowance per sample: a sample takes well under a millisecond of QEMU

QEMU = "qemu-system-arm"
LATENCY_ARM_SYMBOL = "board_latency_timer_arm"  # board.h: where the irq-latency scenarios arm the latency timer
STAMP_CSRS = {"mcycle": 0xB00}  # a RISC-V probe's timer CSR, by board.toml's [stamp] timer
SCOPE_EDGE_EVENTS = {"pin1": 1, "pin0": 0}  # the watches at the scope pin's two stores (Scope.watches)

# Run here, a board that can send its record stream in batches through semihosting does (mps2-an385's board.c);
# its image read over its UART as a board's sends it there.
BATCHED_STREAM = "stream=semihosting"


def command(qemu: str, target: Target, firmware_elf: Path, parameters: list[str]) -> list[str]:
    # Semihosting carries the parameters in and the exit code out; commas in a
    # QEMU option value are escaped by doubling.
    args = "".join(f",arg={p.replace(',', ',,')}" for p in parameters)
    return [
        qemu, "-machine", target.simulated_machine, "-display", "none", "-monitor", "none", "-serial", "stdio",
        "-semihosting-config", f"enable=on,target=native{args}",
        # Virtual time advances 2**shift ns per instruction and never with the host clock:
        # the timers then count instructions, and every run is identical.
        "-icount", f"shift={target.icount_shift},sleep=off",
        "-kernel", str(firmware_elf),
    ]


def _cycles(request: Request) -> bool:
    """Whether the run counts cycles, through the plugin's timing model."""
    return (request.unit or request.target.unit) == "cycles"


def start(request: Request) -> list[str]:
    """QEMU with the plugin loaded where anything is watched, stamped or followed."""
    target, firmware_elf = request.target, request.firmware_elf
    line = command(require(QEMU, QEMU), target, firmware_elf, [*request.parameters, BATCHED_STREAM])
    cycles = _cycles(request)
    if request.watches or (cycles and request.stamps) or request.switch_word:
        line += ["-plugin", f"{native.built('qemu')},out={request.event_log}{_plugin_arguments(request, cycles)}"]
    return line


def _plugin_arguments(request: Request, cycles: bool) -> str:
    target, firmware_elf = request.target, request.firmware_elf
    arguments = "".join(f",watch={hex(address)}:{name}" for address, name in request.watches)
    if request.latency:
        symbols = elf.symbols(firmware_elf)
        handler = symbols[target.latency_timer.handler]
        arguments += f",latency_irq={target.latency_timer.irq},latency_handler={hex(handler)}"
        if LATENCY_ARM_SYMBOL in symbols:  # pending no sooner than the delay it is armed with runs out
            counts = target.counts_per_unit(target.latency_timer.clock_hz)
            arguments += (f",latency_arm={hex(symbols[LATENCY_ARM_SYMBOL])}"
                          f",latency_counts={counts.numerator}/{counts.denominator}")
    arguments += f",limit={request.event_limit}"
    if request.stop_after:
        arguments += f",stop={request.stop_after}"
    if cycles:
        arguments += f",unit=cycles,core={target.timing_model}"
        riscv = elf.machine(firmware_elf) == "EM_RISCV"
        # the trap tables' entries on RISC-V, the vector table's handlers on a Cortex-M: where an exception enters
        handlers = elf.riscv_vector_entries(firmware_elf) if riscv else elf.exception_handlers(firmware_elf)
        arguments += "".join(f",handler={hex(a)}" for a in handlers)
        if request.stamps:  # the probe's reads of its timer: a CSR (csrr rd, mcycle) or a register's address
            arguments += f",stamp_csr={STAMP_CSRS[target.stamp_timer]:#x}" if riscv \
                else f",stamp={hex(target.stamp_address)}"
        if request.switch_word:
            address, name_offset, name_bytes = request.switch_word
            arguments += f",switch_word={hex(address)}"
            if name_bytes:
                arguments += f",switch_name={name_offset}:{name_bytes}"
            # a switching function that task code calls (no exception): the plugin follows its range
            ends = {start: end for start, end, _ in elf.functions(firmware_elf)}
            arguments += "".join(f",switch_call={hex(a)}:{hex(ends[a])}" for a in request.switch_path
                                 if a not in handlers and a in ends)
    if request.trace_window is not None:
        arguments += f",trace={request.trace_log},trace_window={request.trace_window}"
    return arguments


def provenance(request: Request) -> tuple[str, str]:
    target = request.target
    options = f"-icount shift={target.icount_shift},sleep=off"
    if target.machine and target.machine != target.name:
        options = f"-machine {target.machine} " + options
    if _cycles(request):
        options += f"; cycles from the {target.timing_model} timing model (switchscope plugin)"
    if target.caveat:
        options += f"; {target.caveat}"
    return version_line(require(QEMU, QEMU)), options


def scope_edges(request: Request, events: Events | None) -> tuple[list[Edge] | None, Events | None]:
    """The pin's edges are the watches at its two stores, which leave the events with them."""
    if events is None:
        return None, None
    found = edges([(e.time, SCOPE_EDGE_EVENTS[e.name], e.least, e.most) for e in events
                   if e.name in SCOPE_EDGE_EVENTS])
    return found, events.without(SCOPE_EDGE_EVENTS)


def outcome(returncode: int, stderr: str) -> tuple[int | None, str | None]:
    """Semihosting's exit is QEMU's own: its exit code is the firmware's."""
    return returncode, None
