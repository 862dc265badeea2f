"""What the Ibex tests of FreeRTOS (tests/run/test_ibex.py) and of the floor (tests/run/test_floor_ibex.py) share:
an irq-latency job with options, and the count of Ibex's mid-word instruction fetches in a window.

Each method is a build of its own, and its stamps, pin stores or marks move the code after them: where a jump lands
on a 32-bit instruction that starts mid-word, it costs a cycle more (instruction_fetch.rst line 36: after a jump
"this penalty is at least one cycle, or at least two cycles if the instruction following the branch is uncompressed
and not aligned"), and two builds meet such targets a different number of times in a window. Counting them in each
build's own run gives the exact difference their figures must show."""

import re
import subprocess
import tempfile

from switchscope import catalog
from switchscope.build import verilator as model
from switchscope.build.firmware import build
from switchscope.decode import elf


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
    instruction after the opening stamp (in the scenario's window()) and the closing stamp's lui; for the scope
    the instruction after the pin's rising store and the falling store's lui (board_config.h: BOARD_STAMP_TO is
    lui, csrr, sw; BOARD_SCOPE_HIGH lui, li, sw; BOARD_SCOPE_LOW lui, sw; 32-bit each)."""
    if method == "marker":
        return (elf.section_words(firmware_elf, ".debug_switchscope_open")[0],
                elf.section_words(firmware_elf, ".debug_switchscope_close")[0])
    functions, _sizes, instructions = disassembly(firmware_elf)

    def first(function, found):
        return min(a for a, name in functions.items() if name == function and found(instructions[a]))

    if method == "scope":
        return (first("window", lambda text: re.match(r"sw\s+t5,16\(t6\)", text)) + 4,
                first(closing_function, lambda text: re.match(r"sw\s+zero,16\(t6\)", text)) - 4)
    reads = lambda text: "mcycle" in text and "mcycleh" not in text  # noqa: E731
    return first("window", reads) + 8, first(closing_function, reads) - 4


def misaligned_fetches(model_binary, firmware_elf, method: str, closing_function: str) -> int:
    """How many times one window (the sixth) transfers control (a jump, a taken branch, a trap's entry or
    return) to a 32-bit instruction that starts mid-word, the closing one included. Ibex's prefetch buffer
    fetches aligned 32-bit words (instruction_fetch.rst), so such a target needs two fetches where an aligned
    or a compressed one needs one: a cycle more. Every instruction is watched."""
    functions, sizes, _instructions = disassembly(firmware_elf)
    opening, closing = window_bounds(firmware_elf, method, closing_function)
    with tempfile.NamedTemporaryFile("r") as log:
        command = [str(model_binary), "--max-cycles", "20000000", "--log", log.name, "--limit", "2000000"]
        command += [part for address in functions for part in ("--watch", f"{address:x}={address:#x}")]
        subprocess.run([*command, str(firmware_elf)], capture_output=True, timeout=300, check=True)
        ran = [int(name, 16) for _cycle, name in (line.split() for line in log.read().splitlines())
               if name != "limit"]
    first = [k for k, address in enumerate(ran) if address == opening][5]
    last = ran.index(closing, first)
    return sum(1 for k in range(first + 1, last + 1)
               if ran[k] != ran[k - 1] + sizes[ran[k - 1]] and sizes[ran[k]] == 4 and ran[k] % 4 == 2)


def fetches_apart(jobs, closing_function: str, method: str = "probe") -> int:
    """The mid-word fetches of `method`'s window less the marker's: what its figure exceeds the marker's by.
    `jobs` maps the method names to their jobs."""
    counts = []
    for name in (method, "marker"):
        job = jobs[name]
        firmware_elf = build(job.kernel, job.target, job.scenario, job.method).elf
        counts.append(misaligned_fetches(model.ensure(job.target.core_config), firmware_elf, name,
                                         closing_function))
    return counts[0] - counts[1]
