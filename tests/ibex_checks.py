"""What the RTL tests share (tests/run/test_ibex.py, test_floor_ibex.py, test_ibex_slow_memory.py,
test_vexriscv.py): an irq-latency job with options, a partial irq-latency sweep's repetition, the three methods'
agreement window for window, and a bare program assembled for simple_system."""

import itertools
import subprocess

from switchscope import catalog
from switchscope.build.firmware import build


def latency_job(target: str, method: str = "probe", kernel: str = "freertos", **options):
    """An irq-latency job on `target`, its options (irq_priority=high) resolved as the command line would."""
    from switchscope.catalog import configs
    from switchscope.catalog.job import Job

    chosen, board, scenario = catalog.KERNELS[kernel], catalog.TARGETS[target], catalog.SCENARIOS["irq-latency"]
    return Job(chosen, board, scenario, catalog.METHODS[method], config=configs.resolve(options, chosen, board,
                                                                                         scenario))


def assert_a_partial_sweep_repeats(job):
    """Two runs of 300 steps of an irq-latency sweep (from step 16), behind the memory the job's options ask
    for, give the same samples and the same events. Returns the samples."""
    from switchscope.catalog import configs
    from switchscope.figures.latency import watches
    from switchscope.run.runner import run

    firmware = build(job.kernel, job.target, job.scenario, job.method, job.resolved_config())
    parameters = ["samples=300", *configs.run_parameters(job.resolved_config()), "first=16", "round=300"]
    runs = [run(job.target, firmware.elf, parameters, 300, time_limit=120, watches=watches(firmware.elf, job),
                latency=True, memory=configs.memory_settings(job.resolved_config())) for _ in range(2)]
    assert runs[0].exit_code == 0 and len(runs[0].stream.samples) == 300
    assert runs[0].stream.samples == runs[1].stream.samples
    assert list(runs[0].events.time) == list(runs[1].events.time)
    return runs[0].stream.samples


def assert_the_methods_read_the_same_windows(results: dict, windows: int) -> None:
    """The probe's, the scope's and the marker's results (by method name), each of `windows` windows, read the
    same cycles window for window on every window all three keep. A run leaves a window out where a tick fell
    between its tick-count reads around it, and each method's points take their own few cycles, so a tick can
    fall inside one run's reads and just outside another's: at most two windows are left out."""
    def by_window(result) -> dict[int, int]:
        left_out = {sample["seq"] for sample in result.excluded_samples}
        return dict(zip((seq for seq in itertools.count() if seq not in left_out), result.samples))

    seen = {name: by_window(result) for name, result in results.items()}
    kept = sorted(set.intersection(*(set(cycles) for cycles in seen.values())))
    assert len(kept) >= windows - 2, {name: sorted(set(range(windows)) - set(cycles)) for name, cycles in seen.items()}
    assert [seen["probe"][seq] for seq in kept] == [seen["scope"][seq] for seq in kept] \
        == [seen["marker"][seq] for seq in kept]


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
