"""Integration tests: real arm-none-eabi-gcc, real FreeRTOS from its crate, real QEMU."""

import dataclasses
import json

import pytest

from conftest import machines_once
from switchscope import catalog
from switchscope.build.firmware import build
from switchscope.cli import main
from switchscope.common.errors import FirmwareFailed
from switchscope.figures.measure import measure
from switchscope.figures.result import Result
from switchscope.run.runner import run

pytestmark = pytest.mark.firmware  # every test here builds and runs firmware

SWITCH_SCENARIOS = [name for name, s in catalog.SCENARIOS.items() if not s.check and not s.latency and not s.suite]
TARGETS = machines_once(catalog.KERNELS["freertos"].targets)
# every switch scenario on every target, but where a board cannot run one (board.toml [not_applicable])
MEASURED = [(scenario, target) for scenario in SWITCH_SCENARIOS for target in TARGETS
            if not catalog.KERNELS["freertos"].not_measured(catalog.TARGETS[target], catalog.SCENARIOS[scenario],
                                                            catalog.METHODS["probe"])]


@pytest.mark.smoke
@pytest.mark.parametrize("target,unit", [("mps2-an385", "cycles"), ("mps2-an385", "instructions"),
                                         ("atmega328p", "cycles")])
def test_the_ruler_reads_exactly_n_for_n_known_operations(make_job, target, unit):
    # one `nop` is one instruction, and one cycle (on the AVR, and in the Cortex-M timing model)
    result = measure(dataclasses.replace(make_job("ruler", target=target), unit=unit), samples=70)
    assert result.unit == unit
    assert result.overhead > 0
    # the windows are paced away from the tick; on the AVR a window the 16-bit stamp timer wrapped in (every
    # 65,536 cycles: a 1,000-cycle block is one in 65) cannot be measured, and is left out, saying so
    assert all(item["reason"] == "stamp_wrapped" for item in result.excluded_samples)
    assert result.excluded <= (2 if target == "atmega328p" else 0)
    kept = [item for item in range(70) if item not in {e["seq"] for e in result.excluded_samples}]
    tags = result.sample_tags
    blocks = [0, 1, 2, 3, 10, 100, 1000]
    assert tags == [blocks[seq % 7] for seq in kept]
    assert result.samples == tags


# the quick tests (-m smoke) take each simulator and core model once: QEMU's Cortex-M3 and M4 and simavr's AVR, as
# tests/decode/test_scope.py does, and Verilator's Ibex; the boards that add neither run in the whole suite
SMOKE_TARGETS = ("atmega328p", "mps2-an385", "mps2-an386", "ibex")


@pytest.mark.parametrize("scenario, target", [pytest.param(*case, marks=[pytest.mark.smoke] if case[1] in SMOKE_TARGETS
                                                           else []) for case in MEASURED])
def test_the_same_firmware_gives_identical_samples_on_every_run(make_job, scenario, target):
    chosen = make_job(scenario, target=target)
    firmware = build(chosen.kernel, chosen.target, chosen.scenario)
    first = run(chosen.target, firmware.elf, ["samples=300"], 300, time_limit=60)
    second = run(chosen.target, firmware.elf, ["samples=300"], 300, time_limit=60)
    assert first.exit_code == 0 and first.stream.complete
    assert len(first.stream.samples) == 300
    assert first.stream.samples == second.stream.samples  # raw stamps, not just the differences
    assert first.stream.calibration == second.stream.calibration


@pytest.mark.parametrize("scenario, target", MEASURED)
def test_each_scenario_measures_a_plausible_switch(make_job, scenario, target):
    result = measure(make_job(scenario, target=target), samples=200)
    stats = result.stats
    assert result.count + result.excluded == 200
    assert result.clamped == 0 and result.stream_problems == []
    # a FreeRTOS switch is tens to hundreds of instructions on a Cortex-M3, hundreds of
    # cycles on an AVR (32 registers saved and restored): never less than the save and restore
    assert 30 <= stats.min <= stats.median <= stats.max < 2000
    assert result.kernel_version == "V11.2.0"
    assert result.config["configUSE_PREEMPTION"] == "1"


def test_a_tick_inside_the_window_is_flagged_and_excluded(make_job):
    result = measure(make_job("tick_window"), samples=40)
    assert result.excluded == 20
    assert [s["seq"] for s in result.excluded_samples] == list(range(1, 40, 2))
    assert result.count == 20
    assert result.stats.max == 0  # the even windows hold nothing but the probe


def test_a_firmware_that_never_ends_is_stopped_and_its_last_output_shown(make_job):
    with pytest.raises(FirmwareFailed) as failure:
        measure(make_job("hang"), samples=10, time_limit=3)
    message = str(failure.value)
    assert "did not finish within 3 s" in message
    assert "about to spin forever" in message


def test_a_firmware_that_crashes_reports_where(make_job):
    with pytest.raises(FirmwareFailed) as failure:
        measure(make_job("crash"), samples=10, time_limit=30)
    message = str(failure.value)
    assert "exception 00000003" in message  # HardFault (the undefined instruction escalates)
    assert "pc=0x" in message
    assert "about to execute an undefined instruction" in message


def test_run_writes_the_json_a_user_compares_across_runs(tmp_path, capsys):
    out = tmp_path / "out.json"
    assert main(["run", "--scenario", "resume", "--samples", "100", "--json", str(out), "--quiet"]) == 0
    table = capsys.readouterr().out
    assert "resume" in table and "unit: cycles" in table and "in µs at 25 MHz" in table
    document = json.loads(out.read_text())
    (written,) = document["results"]
    assert written["schema"] == "switchscope.result/1"
    for key in ("kernel", "kernel_version", "target", "cpu", "f_cpu_hz", "scenario", "method", "unit",
                "samples", "stats", "overhead", "excluded", "config", "toolchain"):
        assert key in written
    assert set(written["stats"]) == {"min", "median", "mode", "mean", "max", "stddev", "p99"}
    result = Result.from_json(written)  # what compare and report read back
    assert (result.kernel, result.target, result.cpu, result.f_cpu_hz) == \
        ("freertos", "mps2-an385", "cortex-m3", 25_000_000)
    assert len(result.samples) == result.count == 100 - result.excluded
    assert result.toolchain["compiler"].startswith("arm-none-eabi-gcc")


def test_simavr_interrupt_entry_costs_the_datasheet_four_cycles(make_job):
    # isr is the one scenario with an interrupt entry inside its window: without
    # the runner's correction each sample is exactly 4 cycles shorter; with it
    # the ruler, which takes no interrupt, is unchanged.
    for scenario, difference in (("isr", 4), ("ruler", 0)):
        chosen = make_job(scenario, target="atmega328p")
        firmware = build(chosen.kernel, chosen.target, chosen.scenario)
        corrected = run(chosen.target, firmware.elf, ["samples=20"], 20, time_limit=60)
        raw = run(chosen.target, firmware.elf, ["samples=20"], 20, time_limit=60, interrupt_entry_cycles=0)
        elapsed = lambda sample: sample.length if sample.length >= 0 else (sample.end - sample.start) % 65536
        assert [elapsed(a) - elapsed(b) for a, b in zip(corrected.stream.samples, raw.stream.samples)] == \
            [difference] * 20, scenario


def test_the_avr_firmware_fits_the_chip_and_says_how_much_it_uses(make_job):
    result = measure(make_job("resume", target="atmega328p"), samples=10)
    firmware = result.firmware
    assert 0 < firmware["flash_bytes"] <= 32 * 1024 == firmware["flash_limit"]
    assert 0 < firmware["ram_bytes"] <= 2 * 1024 == firmware["ram_limit"]
    assert result.ns_per_unit == 62.5
    assert result.stats_ns.min == result.stats.min * 62.5


@pytest.mark.parametrize("target", ["mps2-an385", "atmega328p"])
def test_a_window_longer_than_the_stamp_timer_period_is_left_out_never_reported_modulo(make_job, target):
    result = measure(make_job("long_window", target=target), samples=20)
    assert [s["seq"] for s in result.excluded_samples] == list(range(1, 20, 2))
    assert {s["reason"] for s in result.excluded_samples} == {"stamp_wrapped"}
    assert result.count == 10
    assert result.stats.max == 0  # the even windows hold nothing but the probe
