"""What the Ibex tests of FreeRTOS (tests/run/test_ibex.py) and of the floor (tests/run/test_floor_ibex.py)
share: an irq-latency job with options, a partial irq-latency sweep's repetition, and a bare program assembled
for simple_system."""

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
