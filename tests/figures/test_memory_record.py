"""What a result records of the memory its cycles were counted with ("memory", results.schema.json), and the
words every table, page and export says it in: on a board with a flash model its wait states and where they
are read, its accelerator's parts, each as programmed or forced, cold or warm caches and the manual whose
rules apply; zero wait states on a board without one; nothing for a count that is no simulated clock's."""

import dataclasses
import json

import jsonschema
import pytest

from switchscope import catalog
from switchscope.catalog import configs
from switchscope.catalog.job import Job
from switchscope.catalog.memory import MemorySettings
from switchscope.common.errors import SwitchscopeError
from switchscope.figures import memory_used
from switchscope.figures.measure import measure_on_port
from switchscope.figures.result import Result
from switchscope.figures.results_files import SCHEMA_FILE

F405, MPS2 = catalog.TARGETS["netduinoplus2"], catalog.TARGETS["mps2-an385"]
ART = "prefetch, I-cache 64 lines of 128 bits, D-cache 8 lines of 128 bits"


def test_a_board_with_a_flash_model_records_its_settings_as_programmed_by_its_board_code():
    assert memory_used.record(F405, "cycles", MemorySettings()) == {
        "model": True, "description": f"flash 5 wait states as programmed, {ART}, warm", "wait_states": 5,
        "wait_states_set": "programmed", "wait_states_source": F405.flash.wait_states_source,
        "accelerator": {"prefetch": True, "icache": {"lines": 64, "line_bits": 128, "ways": 64},
                        "dcache": {"lines": 8, "line_bits": 128, "ways": 8}},
        "accelerator_set": "programmed", "accelerator_enabled": {"prefetch": True, "icache": True, "dcache": True},
        "caches": "warm", "programmed_by": "board code", "manual": "RM0090",
        "register": "0x40023c00 (stm32f4, 0x0 out of reset)"}


def test_a_part_the_board_code_leaves_off_is_said_off_not_listed():
    """The STM32L432's board code stores 0x604 into FLASH_ACR, as STM32CubeL4's template does: LATENCY 4, ICEN
    (bit 9) and DCEN (bit 10), and PRFTEN (bit 8) clear (RM0394 3.7.1's bits): its prefetch stays off."""
    l432 = catalog.TARGETS["nucleo-l432kc"]
    record = memory_used.record(l432, "cycles", MemorySettings())
    assert record["accelerator_enabled"] == {"prefetch": False, "icache": True, "dcache": True}
    assert record["description"] == ("flash 4 wait states as programmed, I-cache 32 lines of 256 bits, "
                                      "D-cache 8 lines of 256 bits, prefetch off, warm")
    forced_on = memory_used.record(l432, "cycles", MemorySettings(accelerator=True))
    assert forced_on["accelerator_enabled"] == {"prefetch": True, "icache": True, "dcache": True}
    assert forced_on["description"].startswith("flash 4 wait states as programmed, prefetch, I-cache")
    assert memory_used.record(l432, "cycles", MemorySettings(accelerator=False))["accelerator_enabled"] == \
        {"prefetch": False, "icache": False, "dcache": False}
    assert memory_used.record(l432, "cycles", MemorySettings(), own_firmware=True)["accelerator_enabled"] is None


def test_what_a_run_forces_is_said_forced():
    cold_without = memory_used.record(F405, "cycles", MemorySettings(wait_states=0, accelerator=False, cold=True))
    assert cold_without["description"] == "flash 0 wait states (forced), accelerator off (forced), cold caches"
    assert (cold_without["wait_states"], cold_without["wait_states_set"], cold_without["accelerator_set"],
            cold_without["caches"]) == (0, "forced", "forced off", "cold")
    assert memory_used.record(F405, "cycles", MemorySettings(accelerator=True))["description"] == \
        f"flash 5 wait states as programmed, {ART} (forced on), warm"


def test_a_firmware_of_ones_own_is_timed_as_it_programs_its_flash_interface():
    """measure: the chip leaves reset at 0 wait states with its accelerator off; what the ELF stores decides."""
    own = memory_used.record(F405, "cycles", MemorySettings(), own_firmware=True)
    assert own["wait_states"] is None and own["programmed_by"] == "the firmware"
    assert own["description"] == ("flash wait states as the firmware programs them (5 at the board's clock), "
                                  f"{ART} as the firmware enables them (the register 0x0 out of reset), warm")
    assert memory_used.record(F405, "cycles", MemorySettings(wait_states=3), own_firmware=True)["wait_states"] == 3


def test_a_board_without_one_records_zero_wait_states_and_a_count_of_no_clock_nothing():
    assert memory_used.record(MPS2, "cycles", MemorySettings()) == \
        {"model": False, "description": "zero wait states", "wait_states": 0}
    assert memory_used.record(F405, "instructions", MemorySettings()) is None  # what QEMU counts: no clock's cycles
    silicon = dataclasses.replace(F405, simulator="silicon", unit="cycles", default_unit=None, timing_model=None)
    assert memory_used.record(silicon, "cycles", MemorySettings()) is None  # the chip's own DWT: its own memory


def test_the_record_is_what_the_results_schema_accepts_and_reads_back():
    schema = json.loads(SCHEMA_FILE.read_text())
    for record in (memory_used.record(F405, "cycles", MemorySettings(cold=True)),
                   memory_used.record(F405, "cycles", MemorySettings(), own_firmware=True),
                   memory_used.record(MPS2, "cycles", MemorySettings())):
        result = Result("scenario", "yield", "probe", "cycles", [130, 131], 8, 130, target="netduinoplus2",
                        memory=record)
        document = json.loads(json.dumps({"results": [result.to_json()]}))
        jsonschema.validate(document, schema)
        assert Result.from_json(document["results"][0]).memory == record


def test_a_board_read_over_its_port_refuses_what_only_the_model_can_force():
    """On the kit its firmware's FLASH_ACR decides: a forced setting would be recorded and not applied."""
    kernel, scenario = catalog.KERNELS["freertos"], catalog.SCENARIOS["yield"]
    job = Job(kernel, F405, scenario, catalog.METHODS["probe"],
              configs.resolve({"accelerator": "off"}, kernel, F405, scenario))
    with pytest.raises(SwitchscopeError, match="a board's own flash runs as its firmware programs it"):
        measure_on_port(job, "socket://127.0.0.1:9", 1_000_000, 10, flash_first=False)
