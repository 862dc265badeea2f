"""The memory options through the command line on netduinoplus2 (the STM32F405 at 168 MHz, [flash] from
RM0090): what each asks reaches the timing plugin's arguments and the firmware's run parameters, and each
result, table and JSON says the memory its figures were counted with. What the flash model charges is the
plugin's tests' (tests/run): here the arguments and the provenance, not the figures."""

import json
from pathlib import Path

import pytest

from conftest import job, run_command
from switchscope.build.firmware import build
from switchscope.catalog import configs
from switchscope.figures import kinds
from switchscope.run import qemu
from switchscope.run.simulator import Request

pytestmark = pytest.mark.firmware

F405 = "netduinoplus2"
ART_ON = "flash 5 wait states as programmed, prefetch, I-cache 64 lines of 128 bits, D-cache 8 lines of 128 bits"


def _plugin_and_parameters(chosen: dict, tmp_path: Path) -> tuple[str, list[str]]:
    """The plugin's arguments and the firmware's parameters of the yield run with the options `chosen`."""
    planned_job = job("yield", F405)
    config = configs.resolve(chosen, planned_job.kernel, planned_job.target, planned_job.scenario)
    firmware = build(planned_job.kernel, planned_job.target, planned_job.scenario, planned_job.method, config)
    planned = kinds.of(planned_job).planned_run(50, config, None, firmware.elf)
    request = Request(planned_job.target, firmware.elf, planned.parameters, 50, tmp_path / "events.txt",
                      tmp_path / "pins.txt", tmp_path / "trace.txt", 1000, 0, **planned.options)
    command = qemu.start(request)
    return command[command.index("-plugin") + 1], planned.parameters


@pytest.mark.parametrize("chosen, present, absent, cold", [
    ({}, ",flash=0x8000000:0x100000:16,flash_ws=5,flash_prefetch=1,flash_icache=64:16:64,flash_dcache=8:16:8,"
         "flash_register=0x40023c00:stm32f4", ("flash_force_ws", "flash_accelerator"), False),
    ({"wait_states": "0"}, ",flash_ws=0,flash_force_ws=1", ("flash_accelerator",), False),
    ({"accelerator": "off"}, ",flash_accelerator=off", ("flash_force_ws",), False),
    ({"cache": "cold"}, ",flash_ws=5,", ("flash_force_ws", "flash_accelerator"), True),
])
def test_each_option_reaches_the_plugin_and_cold_the_firmware(chosen, present, absent, cold, tmp_path):
    plugin, parameters = _plugin_and_parameters(chosen, tmp_path)
    assert present in plugin and not any(word in plugin for word in absent), plugin
    assert ("cold=1" in parameters) == cold


def test_a_sweep_of_the_accelerator_records_and_says_each_memory(tmp_path, capsys):
    path = tmp_path / "results.json"
    status, said = run_command(["run", "--target", F405, "--scenario", "yield", "--samples", "50", "--quiet",
                                "--config", "accelerator=off,on", "--json", str(path)], capsys)
    assert status == 0, said
    memories = {r["options"]["accelerator"]: r["memory"] for r in json.loads(path.read_text())["results"]}
    assert memories["off"]["accelerator_set"] == "forced off" and memories["on"]["accelerator_set"] == "forced on"
    assert all(m["model"] and m["wait_states"] == 5 and m["manual"] == "RM0090" for m in memories.values())
    assert "memory on netduinoplus2: flash 5 wait states as programmed, accelerator off (forced)" in said
    assert f"memory on netduinoplus2: {ART_ON} (forced on), warm" in said


def test_measure_times_a_firmware_as_it_programs_its_flash_unless_forced(tmp_path, capsys):
    built = job("yield", F405)
    elf = build(built.kernel, built.target, built.scenario, built.method).elf
    path = tmp_path / "measure.json"
    status, said = run_command(["measure", str(elf), "--target", F405, "--switches", "--kernel", "freertos",
                                "--count", "20", "--config", "wait_states=0", "--json", str(path)], capsys)
    assert status == 0, said
    (result,) = json.loads(path.read_text())["results"]
    assert (result["memory"]["wait_states"], result["memory"]["wait_states_set"],
            result["memory"]["programmed_by"]) == (0, "forced", "the firmware")
    assert "flash 0 wait states (forced)" in said
    status, said = run_command(["measure", str(elf), "--target", "mps2-an385", "--switches", "--kernel", "freertos",
                                "--config", "accelerator=off"], capsys)
    assert status == 2 and "applies on targets with a flash model" in said, said
