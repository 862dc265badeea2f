"""FreeRTOS's optimised task selection (configUSE_PORT_OPTIMISED_TASK_SELECTION) counts leading zeros: one rule
on every core, on by default where the instruction set has a count-leading-zeros instruction and off where it
has none. Where it has none but the port builds it anyway (Ibex, RV32IMC: __builtin_clz becomes a call of libgcc's
__clzsi2) it may be chosen, and the result's configuration says the count is software.

Which cores have one, from the architecture manuals, not from switchscope's table:
- ARMv7-M (Cortex-M3, M4, M4F): CLZ, ARM DDI 0403E, section A7.7.24 "CLZ".
- ARMv6-M (Cortex-M0, M0+): none; ARM DDI 0419E, chapter A6's instruction list has no CLZ.
- RV32IMC (Ibex small and maxperf): none; clz is in the bit-manipulation extension Zbb (RISC-V Bitmanip 1.0.0,
  section 2.1.2), and Ibex's ibex_configs.yaml sets RV32B: ibex_pkg::RV32BNone for both configurations.
- AVR (ATmega328P): none; the AVR Instruction Set Manual (DS40002198A) lists no count-leading-zeros instruction.
"""

import dataclasses

import pytest

from conftest import job
from switchscope import catalog
from switchscope.build.firmware import build
from switchscope.catalog import configs
from switchscope.common.errors import SwitchscopeError
from switchscope.decode import elf
from switchscope.figures.measure import measure

FREERTOS = catalog.KERNELS["freertos"]
HAS_CLZ = {"cortex-m3": True, "cortex-m4": True, "cortex-m4f": True,  # DDI 0403E A7.7.24
           "cortex-m0": False, "cortex-m0plus": False,  # DDI 0419E
           "rv32imc": False,  # Zbb's, which Ibex leaves out
           "rv32im": False,  # VexRiscv_Full: no Zbb either (GenCoreDefault adds no bit-manipulation plugin)
           "atmega328p": False}


@pytest.mark.parametrize("target", [name for name in catalog.TARGETS if name in FREERTOS.targets])
def test_optimised_selection_is_on_by_default_exactly_where_the_core_has_clz(target):
    chosen = catalog.TARGETS[target]
    config = configs.resolve({}, FREERTOS, chosen, catalog.SCENARIOS["yield"])
    assert config["optimised_selection"] == ("on" if HAS_CLZ[chosen.cpu] else "off")
    assert config.defines()["configUSE_PORT_OPTIMISED_TASK_SELECTION"] == ("1" if HAS_CLZ[chosen.cpu] else "0")


@pytest.mark.parametrize("target", ["microbit", "microbit-m0plus", "atmega328p"])
def test_where_the_port_has_no_optimised_selection_choosing_it_is_refused(target):
    with pytest.raises(SwitchscopeError, match="no CLZ|no optimised task selection"):
        configs.resolve({"optimised_selection": "on"}, FREERTOS, catalog.TARGETS[target], catalog.SCENARIOS["yield"])


@pytest.mark.parametrize("target", ["ibex", "ibex-maxperf", "ibex-qemu"])
def test_on_ibex_it_may_be_chosen(target):
    config = configs.resolve({"optimised_selection": "on"}, FREERTOS, catalog.TARGETS[target],
                             catalog.SCENARIOS["yield"])
    assert config.defines()["configUSE_PORT_OPTIMISED_TASK_SELECTION"] == "1"


@pytest.mark.firmware
def test_ibex_with_optimised_selection_calls_a_software_clz_and_its_result_says_so():
    chosen = job("yield", target="ibex")
    on = configs.resolve({"optimised_selection": "on"}, FREERTOS, chosen.target, chosen.scenario)
    # the default build has no software count at all; the chosen one links libgcc's and says so
    assert "__clzsi2" not in elf.symbols(build(FREERTOS, chosen.target, chosen.scenario).elf)
    assert "__clzsi2" in elf.symbols(build(FREERTOS, chosen.target, chosen.scenario, config=on).elf)
    default, optimised = measure(chosen, samples=50), measure(dataclasses.replace(chosen, config=on), samples=50)
    assert default.options["optimised_selection"] == "off" and "count_leading_zeros" not in default.config
    assert optimised.config["count_leading_zeros"].startswith("software CLZ (libgcc __clzsi2")
    assert optimised.config["configUSE_PORT_OPTIMISED_TASK_SELECTION"] == "1"
    # a Cortex-M port's ceiling is no Ibex setting: the RISC-V port masks every interrupt
    assert "configMAX_SYSCALL_INTERRUPT_PRIORITY" not in default.config
    assert optimised.stats.median > default.stats.median  # the call of the software count is in the switch


@pytest.mark.firmware
def test_a_cortex_m3_counts_with_its_clz_instruction_and_its_result_says_so():
    result = measure(job("yield"), samples=50)
    assert result.config["count_leading_zeros"] == "CLZ instruction"
    assert result.config["configMAX_SYSCALL_INTERRUPT_PRIORITY"] == "0xA0"
