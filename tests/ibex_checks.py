"""What the Ibex tests of FreeRTOS (tests/run/test_ibex.py) and of the floor (tests/run/test_floor_ibex.py)
share: an irq-latency job with options, the count of Ibex's mid-word instruction fetches in a window, and a bare
program assembled for simple_system.

Each method is a build of its own, and its stamps, pin stores or marks move the code after them: where a jump
lands on a 32-bit instruction that starts mid-word, it costs a cycle more (instruction_fetch.rst line 36: after a
jump "this penalty is at least one cycle, or at least two cycles if the instruction following the branch is
uncompressed and not aligned"), and two builds meet such targets a different number of times in a window.
Counting them in each build's own run gives the exact difference their figures must show."""

import re
import subprocess
import tempfile

from switchscope import catalog
from switchscope.build import verilator as model
from switchscope.build.firmware import build


def latency_job(target: str, method: str = "probe", kernel: str = "freertos", **options):
    """An irq-latency job on `target`, its options (irq_priority=high) resolved as the command line would."""
    from switchscope.catalog import configs
    from switchscope.catalog.job import Job

    chosen, board, scenario = catalog.KERNELS[kernel], catalog.TARGETS[target], catalog.SCENARIOS["irq-latency"]
    return Job(chosen, board, scenario, catalog.METHODS[method], config=configs.resolve(options, chosen, board,
                                                                                         scenario))


def disassembly(firmware_elf) -> tuple[dict[int, str], dict[int, int], dict[int, str]]:
    """Every instruction's function, size in bytes and text, by address."""
    text = subprocess.run(["riscv64-unknown-elf-objdump", "-d", str(firmware_elf)], capture_output=True,
                          text=True, check=True).stdout
    functions, sizes, instructions, function = {}, {}, {}, None
    for line in text.splitlines():
        if (header := re.match(r"^([0-9a-f]+) <(.+)>:", line)):
            function = header.group(2)
        elif function and (row := re.match(r"^\s+([0-9a-f]+):\s+([0-9a-f]+)\s+(.*)$", line)):
            address = int(row.group(1), 16)
            functions[address], sizes[address], instructions[address] = function, len(row.group(2)) // 2, row.group(3)
    return functions, sizes, instructions


def window_bounds(firmware_elf, method: str, closing_function: str) -> tuple[int, int]:
    """The first instruction a window counts and the one it ends at: the marker's marks; for the probe the
    instruction after the opening stamp (in the scenario's window()) and the closing stamp's lui; for the
    scope the instruction after the store that raises the pin and the lui of the one that lowers it."""
    from switchscope.decode import elf

    if method == "marker":
        return (elf.section_words(firmware_elf, ".debug_switchscope_open")[0],
                elf.section_words(firmware_elf, ".debug_switchscope_close")[0])
    functions, _sizes, instructions = disassembly(firmware_elf)

    def first_read(function):
        return min(a for a, name in functions.items() if name == function and "mcycle" in instructions[a]
                   and "mcycleh" not in instructions[a])

    def first_pin_store(function, value):
        return min(a for a, name in functions.items() if name == function
                   and re.match(rf"sw\s+{value},16\(t6\)", instructions[a]))

    if method == "scope":  # BOARD_SCOPE_HIGH: lui, li, sw; BOARD_SCOPE_LOW: lui, sw; 32-bit each
        return first_pin_store("window", "t5") + 4, first_pin_store(closing_function, "zero") - 4
    # BOARD_STAMP_TO: lui, csrr, sw, 32-bit each
    return first_read("window") + 8, first_read(closing_function) - 4


def misaligned_fetches(model, firmware_elf, method: str, closing_function: str) -> int:
    """How many times one window (the sixth) transfers control (a jump, a taken branch, a trap's entry or
    return) to a 32-bit instruction that starts mid-word, the closing one included. Ibex's prefetch buffer
    fetches aligned 32-bit words (instruction_fetch.rst), so such a target needs two fetches where an aligned
    or a compressed one needs one: a cycle more. The harness traces every instruction of the window."""
    _functions, sizes, _instructions = disassembly(firmware_elf)
    opening, closing = window_bounds(firmware_elf, method, closing_function)
    with tempfile.TemporaryDirectory() as scratch:
        trace = f"{scratch}/trace.txt"
        subprocess.run([str(model), "--max-cycles", "20000000", "--log", f"{scratch}/watches.txt",
                        "--watch", f"from={opening:#x}", "--watch", f"to={closing:#x}", "--stop", "6",
                        "--window-trace", trace, "--window", "5", str(firmware_elf)],
                       capture_output=True, timeout=300, check=True)
        lines = [line.split() for line in open(trace).read().splitlines()]
    assert lines and lines[-1][1] == "end", f"the window of {firmware_elf} never closed"
    ran = [int(fields[2], 16) for fields in lines if fields[1] == "i"] + [closing]
    return sum(1 for k in range(1, len(ran))
               if ran[k] != ran[k - 1] + sizes[ran[k - 1]] and sizes[ran[k]] == 4 and ran[k] % 4 == 2)


def closing_function(marker_elf) -> str:
    """The function the marker build's closing mark is in: the resumed task's."""
    functions, _sizes, _instructions = disassembly(marker_elf)
    _opening, closing = window_bounds(marker_elf, "marker", "")
    return functions[closing]


def fetches_apart(jobs, method: str = "probe") -> int:
    """The mid-word fetches of the method's window less the marker's (misaligned_fetches): `jobs` maps
    method names to the scenario's jobs. The scenario opens its window in a function named window() and
    closes it in one other function, as one window per sample does."""
    elfs = {name: build(jobs[name].kernel, jobs[name].target, jobs[name].scenario, jobs[name].method).elf
            for name in (method, "marker")}
    closing = closing_function(elfs["marker"])
    binary = model.ensure(jobs["marker"].target.core_config)
    return (misaligned_fetches(binary, elfs[method], method, closing)
            - misaligned_fetches(binary, elfs["marker"], "marker", closing))


def assert_a_partial_sweep_repeats(job) -> None:
    """Two runs of 300 steps of an irq-latency sweep (from step 16) give the same samples and the same events."""
    from switchscope.catalog import configs
    from switchscope.figures.latency import watches
    from switchscope.run.runner import run

    firmware = build(job.kernel, job.target, job.scenario, job.method, job.resolved_config())
    parameters = ["samples=300", *configs.run_parameters(job.resolved_config()), "first=16", "round=300"]
    runs = [run(job.target, firmware.elf, parameters, 300, time_limit=120, watches=watches(firmware.elf, job),
                latency=True) for _ in range(2)]
    assert runs[0].exit_code == 0 and len(runs[0].stream.samples) == 300
    assert runs[0].stream.samples == runs[1].stream.samples
    assert list(runs[0].events.time) == list(runs[1].events.time)


def assembled(folder, source: str):
    """A bare RV32 program of `source` (its code in section .boot) linked at simple_system's boot address,
    0x100080."""
    import shutil

    (folder / "program.S").write_text(source)
    (folder / "program.ld").write_text("ENTRY(_start)\nSECTIONS { . = 0x100080; .boot : { *(.boot) } }\n")
    subprocess.run([shutil.which(catalog.TARGETS["ibex"].gcc), "-march=rv32imc", "-misa-spec=2.2", "-mabi=ilp32",
                    "-nostdlib", "-nostartfiles", "-T", str(folder / "program.ld"), str(folder / "program.S"), "-o",
                    str(folder / "program.elf")], check=True)
    return folder / "program.elf"
