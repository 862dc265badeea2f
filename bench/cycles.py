#!/usr/bin/env python3
"""What counting cycles costs: the default run's wall time in cycles (the
Cortex-M timing model) and in instructions, and the model's speed on a long
loop of ordinary code (loads, stores, ALU, a taken branch per iteration).

    python3 bench/cycles.py [--samples 10000] [--iterations 20000000]

Prints one table; bench/pages.py --slow puts it in docs/measurement.md.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from checkout import CHECKOUT, switchscope_command

LOOP = """
    .syntax unified
    .thumb
    .section .vectors, "a"
    .word stack_top
    .word reset
    .text
    .thumb_func
    reset:
    ldr r6, =data
    ldr r5, =ITERATIONS
    loop_from:
    nop
    1:
    ldr r1, [r6]
    ldr r2, [r6, #4]
    adds r1, r1, r2
    str r1, [r6, #8]
    eors r3, r3, r1
    lsls r4, r3, #2
    subs r5, r5, #1
    bne 1b
    loop_to:
    b reset
    .ltorg
    .bss
    .align 2
    data: .space 64
    .space 1024
    stack_top:
"""
LINK = """
    MEMORY { CODE (rx) : ORIGIN = 0, LENGTH = 64K  RAM (rwx) : ORIGIN = 0x20000000, LENGTH = 64K }
    SECTIONS { .text : { KEEP(*(.vectors)) *(.text*) } > CODE  .bss : { *(.bss*) } > RAM }
"""
INSTRUCTIONS_PER_ITERATION = 8


def timed(command: list[str]) -> float:
    started = time.monotonic()
    finished = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if finished.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{finished.stderr}")
    return time.monotonic() - started


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    options.add_argument("--samples", type=int, default=10000)
    options.add_argument("--iterations", type=int, default=20_000_000)
    args = options.parse_args()
    switchscope = switchscope_command()

    run = [*switchscope, "run", "--samples", str(args.samples), "--quiet"]
    timed(run)  # builds what is missing, so both timings below are warm
    run_cycles, run_instructions = timed(run), timed([*run, "--unit", "instructions"])

    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        (folder / "loop.S").write_text(LOOP.replace("ITERATIONS", str(args.iterations)))
        (folder / "loop.ld").write_text(LINK)
        subprocess.run(["arm-none-eabi-gcc", "-mcpu=cortex-m3", "-mthumb", "-nostdlib", "-T", str(folder / "loop.ld"),
                        str(folder / "loop.S"), "-o", str(folder / "loop.elf")], check=True)
        measure = [*switchscope, "measure", str(folder / "loop.elf"), "--target", "mps2-an385", "--from", "loop_from",
                   "--to", "loop_to", "--count", "1", "--timeout", "600"]
        loop_cycles, loop_instructions = timed([*measure, "--unit", "cycles"]), timed([*measure, "--unit", "instructions"])

    executed = args.iterations * INSTRUCTIONS_PER_ITERATION / 1e6
    print(f"| what | instructions | cycles (timing model) | cycles / instructions |")
    print(f"|---|--:|--:|--:|")
    print(f"| `switchscope run --samples {args.samples}` (FreeRTOS, mps2-an385, every scenario), wall s | "
          f"{run_instructions:.2f} | {run_cycles:.2f} | {run_cycles / run_instructions:.2f}x |")
    print(f"| a loop of {executed:.0f} M instructions, wall s | {loop_instructions:.2f} | {loop_cycles:.2f} | "
          f"{loop_cycles / loop_instructions:.2f}x |")
    print(f"| the loop's speed, M guest instructions/s | {executed / loop_instructions:.0f} | "
          f"{executed / loop_cycles:.0f} | |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
