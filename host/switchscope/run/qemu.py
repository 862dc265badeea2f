"""Running firmware on QEMU: the Cortex-M machines (qemu-system-arm), parameters
in and the exit code out through semihosting, the record stream on the UART
(or in batches through semihosting); and RISC-V's virt machine
(qemu-system-riscv32, ibex-qemu), where the firmware takes its parameters
from a buffer QEMU's loader fills, as Ibex's RTL harness does, and exits
through the SiFive test device. Every run is identical under -icount. What
QEMU counts is instructions; our plugin (host/qemu-plugin) logs the watches
and, through its timing model, counts cycles."""

from __future__ import annotations

from pathlib import Path

from switchscope.build import native
from switchscope.catalog import Target
from switchscope.catalog.memory import plugin_arguments
from switchscope.common.errors import SwitchscopeError
from switchscope.common.tools import require, version_line
from switchscope.decode import elf
from switchscope.decode.recording import Edge, Events
from switchscope.run.simulator import PARAMETERS_MAGIC, PARAMETERS_SYMBOL, Request, edges

NAME = "qemu"
UNIT = "instructions"
ELF_MACHINE = "EM_ARM"  # the Cortex-M boards'; a RISC-V board's firmware is EM_RISCV (elf_machine)
COUNTS = "instructions, counted by QEMU"
TRACES_WINDOWS = True  # breakdown: the plugin logs every instruction of one window (trace=)
TIME_LIMIT_PER_SAMPLE_S = 0.002  # the default time limit's allowance per sample: a sample takes well under a millisecond of QEMU

QEMU = "qemu-system-arm"
# the QEMU that runs a firmware of each architecture, and the Debian package that installs it
QEMU_FOR = {"EM_ARM": (QEMU, "qemu-system-arm"), "EM_RISCV": ("qemu-system-riscv32", "qemu-system-misc")}
PARAMETERS_BYTES = 256  # the board's buffer (firmware/boards/ibex/board.c), its final NUL included
LATENCY_ARM_SYMBOL = "board_latency_timer_arm"  # board.h: where the irq-latency scenarios arm the latency timer
SCOPE_EDGE_EVENTS = {"pin1": 1, "pin0": 0}  # the watches at the scope pin's two stores (Scope.watches)

# Run here, a board that can send its record stream in batches through semihosting does (mps2-an385's board.c);
# its image read over its UART as a board's sends it there.
BATCHED_STREAM = "stream=semihosting"


def elf_machine(target: Target) -> str:
    """The architecture of the target's firmware (elf.MACHINES): RISC-V for an RV32 core, else Cortex-M."""
    return "EM_RISCV" if target.is_riscv else ELF_MACHINE


def qemu_binary(target: Target) -> str:
    """The QEMU for the target's architecture, or a refusal naming the package that installs it."""
    executable, package = QEMU_FOR[elf_machine(target)]
    return require(executable, package)


def command(qemu: str, target: Target, firmware_elf: Path, parameters: list[str],
            parameters_file: Path | None = None) -> list[str]:
    """QEMU's command line; a RISC-V target's parameters go to `parameters_file` (written here)."""
    line = [qemu, "-machine", target.simulated_machine, "-display", "none", "-monitor", "none", "-serial", "stdio"]
    if target.is_riscv:
        line += _riscv_loading(firmware_elf, parameters, parameters_file)
    else:
        # Semihosting carries the parameters in and the exit code out; commas in a
        # QEMU option value are escaped by doubling.
        args = "".join(f",arg={p.replace(',', ',,')}" for p in parameters)
        line += ["-semihosting-config", f"enable=on,target=native{args}"]
    return line + [
        # Virtual time advances 2**shift ns per instruction and never with the host clock:
        # the timers then count instructions, and every run is identical.
        "-icount", f"shift={target.icount_shift},sleep=off",
        "-kernel", str(firmware_elf),
    ]


def _riscv_loading(firmware_elf: Path, parameters: list[str], parameters_file: Path | None) -> list[str]:
    """virt without firmware (-bios none) would start at the RAM's first word, the board's trap table: the
    loader sets the PC to the ELF's entry instead. The parameters are written into board_host_parameters by
    a second loader before the first instruction, the bytes Ibex's RTL harness writes there: the board code
    is then the RTL image's, byte for byte (semihosting would need code of its own)."""
    line = ["-bios", "none", "-device", f"loader,addr={hex(elf.entry(firmware_elf))},cpu-num=0"]
    address = elf.symbols(firmware_elf).get(PARAMETERS_SYMBOL)
    if address is not None and parameters_file is not None:  # a switchscope firmware; a user's own has none
        data = (PARAMETERS_MAGIC + " ".join(parameters)).encode() + b"\0"
        if len(data) > PARAMETERS_BYTES:
            raise SwitchscopeError(f"the run's parameters take {len(data)} bytes, more than the board's "
                                   f"{PARAMETERS_BYTES}-byte buffer", "ask for fewer options")
        parameters_file.write_bytes(data)
        line += ["-device", f"loader,file={parameters_file},addr={hex(address)},force-raw=on"]
    return line


def _cycles(request: Request) -> bool:
    """Whether the run counts cycles, through the plugin's timing model."""
    return (request.unit or request.target.unit) == "cycles"


def start(request: Request) -> list[str]:
    """QEMU with the plugin loaded where anything is watched, stamped or followed."""
    target, firmware_elf = request.target, request.firmware_elf
    if target.is_riscv:  # its UART takes each byte as it comes: no batches
        line = command(qemu_binary(target), target, firmware_elf, request.parameters,
                       request.event_log.parent / "parameters.bin")
    else:
        line = command(qemu_binary(target), target, firmware_elf, [*request.parameters, BATCHED_STREAM])
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
        riscv = target.is_riscv
        # the trap tables' entries on RISC-V, the vector table's handlers on a Cortex-M: where an exception enters
        handlers = elf.riscv_vector_entries(firmware_elf) if riscv else elf.exception_handlers(firmware_elf)
        arguments += "".join(f",handler={hex(a)}" for a in handlers)
        if request.stamps:  # the probe's reads of its timer: a CSR (csrr rd, mcycle) or a register's address
            arguments += f",stamp_csr={target.stamp_csr:#x}" if riscv else f",stamp={hex(target.stamp_address)}"
        if request.switch_word:
            address, name_offset, name_bytes = request.switch_word
            arguments += f",switch_word={hex(address)}"
            if name_bytes:
                arguments += f",switch_name={name_offset}:{name_bytes}"
            # a switching function that task code calls (no exception): the plugin follows its range
            ends = {start: end for start, end, _ in elf.functions(firmware_elf)}
            arguments += "".join(f",switch_call={hex(a)}:{hex(ends[a])}" for a in request.switch_path
                                 if a not in handlers and a in ends)
        if target.flash and not riscv:  # the chip's flash, its wait states and accelerator (flash_memory.c)
            arguments += plugin_arguments(target.flash, request.memory)
        memory = request.memory
        if target.slow_memory and memory.slow:  # ibex_fetch.c
            arguments += (f",ibex_fetch_ws={memory.fetch_wait_states},ibex_data_ws={memory.data_wait_states}"
                          f",ibex_ram={target.slow_memory.address:#x}:{target.ram_bytes:#x}")
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
    return version_line(qemu_binary(target)), options


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
