"""What the terminal's tables say beyond their statistics, as a new user reads them: the ruler as a
verdict per length, the firmware's sizes in one line (a simulated machine's memory said apart from a
chip's), a load's interfered windows beside the undisturbed ones, what a sweep or a suite was measured
with, the latency timer's interrupt by what it is, and µs wherever a microsecond is printed. Pure: hand-made results."""

import pytest

from conftest import run_command
from switchscope import catalog
from switchscope.catalog.job import Job
from switchscope.cli import measuring
from switchscope.figures.matrix import Point
from switchscope.figures.result import Result
from switchscope.present import latency_view, report, ruler_view, suite_page

BLOCKS = [0, 1, 2, 3, 10, 100, 1000]


def result(scenario="resume", samples=(267,) * 5, target="mps2-an385", flash=9624, ram=29800, **fields) -> Result:
    limits = {"mps2-an385": (4194304, 4194304), "atmega328p": (32768, 2048)}[target]
    clock = {"mps2-an385": 25_000_000, "atmega328p": 16_000_000}[target]
    fields.setdefault("method", "probe")
    fields.setdefault("config", {"configTICK_RATE_HZ": "100", "optimisation": "-O2"})
    return Result("scenario", scenario, unit="cycles", samples=list(samples), overhead=8, first=samples[0],
                  kernel="freertos", kernel_version="V11.2.0", target=target, f_cpu_hz=clock,
                  cpu="cortex-m3" if target.startswith("mps2") else "atmega328p",
                  toolchain={"compiler": "arm-none-eabi-gcc 12.2.1"}, simulator={"name": "QEMU emulator 10.0.2"},
                  measured_at="2026-01-02T03:04:05+00:00", project={"commit": "0123456789abcdef", "dirty": False},
                  firmware={"flash_bytes": flash, "flash_limit": limits[0], "ram_bytes": ram, "ram_limit": limits[1]},
                  **fields)


def ruler(samples=None, method="probe") -> Result:
    tags = [BLOCKS[seq % 7] for seq in range(70)]
    return result("ruler", samples or tags, sample_tags=tags, method=method)


def test_a_ruler_is_a_verdict_per_length_not_one_distribution():
    text = report.table([ruler()])
    rows = {line.split()[0]: line.split() for line in text.splitlines()[3:10]}
    assert list(rows) == [str(n) for n in BLOCKS]
    assert all(row[1] == row[0] and row[2] == "10" and row[-1] == "pass" for row in rows.values())
    assert "ruler: pass: all 70 samples read their block's N exactly" in text
    assert "median" not in text and "in µs" not in text  # no statistics of the lengths mixed together
    assert not ruler_view.failed([ruler()])


def test_a_ruler_that_reads_a_length_wrong_fails_there():
    samples = [BLOCKS[seq % 7] for seq in range(70)]
    samples[3] += 1  # a block of 3 nops read 4
    text = report.table([ruler(samples)])
    assert "FAIL (1 off)" in next(line for line in text.splitlines() if line.split()[:2] == ["3", "3"])
    assert "ruler: FAIL: 1 of 70 samples do not read their block's N" in text
    assert ruler_view.failed([ruler(samples)])


def test_a_failed_ruler_makes_run_exit_1(monkeypatch, capsys):
    samples = [BLOCKS[seq % 7] + (seq == 0) for seq in range(70)]
    monkeypatch.setattr(measuring, "measure", lambda *arguments, **named: ruler(samples))
    status, said = run_command(["run", "--scenario", "ruler", "--samples", "70", "--quiet"], capsys)
    assert status == 1 and "ruler: FAIL" in said, said
    monkeypatch.setattr(measuring, "measure", lambda *arguments, **named: ruler())
    status, said = run_command(["run", "--scenario", "ruler", "--samples", "70", "--quiet"], capsys)
    assert status == 0 and "ruler: pass" in said, said


def test_the_ruler_beside_other_scenarios_keeps_their_statistics():
    text = report.table([result("yield", (124,) * 5), ruler(method="probe")])
    assert "ruler: pass" in text
    assert next(line for line in text.splitlines() if line.startswith("  yield ")).split()[:2] == ["yield", "5"]
    assert not any(line.startswith("  ruler  ") for line in text.splitlines())


def test_the_simulated_machines_memory_is_said_apart_from_the_firmwares_sizes():
    text = report.table([result("resume", flash=9624, ram=29800), result("yield", flash=11700, ram=29800)])
    assert "  firmware sizes: flash 9.4-11.4 KiB, static RAM 29.1 KiB (the simulated machine has 4 MiB of each)" \
        in text.splitlines()
    assert "4194304" not in text


def test_a_chips_flash_and_ram_stay_its_limits():
    text = report.table([result("resume", target="atmega328p", flash=9624, ram=1200),
                         result("yield", target="atmega328p", flash=9624, ram=1200)])
    assert "  firmware sizes (2 images alike): flash 9.4 KiB of 32 KiB, static RAM 1.2 KiB of 2 KiB" \
        in text.splitlines()


def test_a_loads_interfered_windows_show_their_count_and_median_beside_the_undisturbed():
    loaded = result("rotate", [296, 296, 371, 296, 8786, 355, 296], tasks=2, interfered=[2, 4, 5],
                    config={"load": "voip", "load_period_us": "125", "load_tasks": "1", "optimisation": "-O2"})
    line = next(line for line in report.table([loaded]).splitlines() if "load=voip" in line)
    assert "load=voip: a timer interrupt every 125 µs, 1 encoding task(s):" in line
    assert "3 of 7 kept windows interfered, median 371, max 8786" in line
    assert "the 4 undisturbed: median 296, max 296" in line


def test_a_sweep_table_says_what_it_was_measured_with():
    lines = report.sweep_table([result("resume"), result("yield", (124,) * 5)]).splitlines()
    assert lines[-1] == ("  freertos V11.2.0; built with arm-none-eabi-gcc 12.2.1; on QEMU emulator 10.0.2; "
                         "measured 2026-01-02T03:04:05+00:00 at 0123456789ab")
    assert lines[0].split()[-2:] == ["median", "µs"]


def test_a_suites_summary_says_what_it_was_measured_with_but_not_when(tmp_path):
    # not when: two shares merged say what the whole suite measured at once says
    job = Job(catalog.KERNELS["freertos"], catalog.TARGETS["mps2-an385"], catalog.SCENARIOS["yield"],
              catalog.METHODS["probe"])
    suite_page.write(tmp_path, [(Point(job, 5, "kernels"), result("yield", (124,) * 5))], 5, 1.0, 1)
    assert ("Measured with: freertos V11.2.0; built with arm-none-eabi-gcc 12.2.1; on QEMU emulator 10.0.2."
            in (tmp_path / "summary.md").read_text().splitlines())


def test_the_latency_timers_interrupt_is_named_by_what_it_is():
    latency = result("irq-latency", (12,) * 5, method="marker", worst={"cycles": 12, "sample": 0})
    assert latency_view.note(latency) == ("timed by the simulator from the assertion of the latency timer's "
                                          "interrupt (CMSDK TIMER1, handler board_latency_entry) to the handler's "
                                          "first instruction")
    assert "CMSDK TIMER1, handler board_latency_entry" in report.table([latency])
    probe = result("irq-latency", (12,) * 5, target="atmega328p", worst={"cycles": 12, "sample": 0})
    assert latency_view.note(probe).startswith("the latency timer's interrupt (Timer1 compare A, handler __vector_11)")


@pytest.mark.parametrize("text", [
    lambda: report.table([result()]),
    lambda: report.sweep_table([result()]),
    lambda: report.marker_table(result(details={"from": {"point": "a", "address": 1},
                                                "to": {"point": "b", "address": 2}})),
])
def test_a_microsecond_is_printed_as_us_with_the_micro_sign(text):
    printed = text()
    assert "µs" in printed and "microsecond" not in printed and " us" not in printed
