"""measure --switches: every task switch of a firmware run as a user's, with nothing added to it.
switchscope's own yield and isr ELFs are run as if they were someone else's: the switches found
must be the ones the scenario makes, with the right causes; each window is the switching
handler's entry, the handler and the return; the example application shows its pairs."""

import json
import re
import subprocess
from collections import Counter

import pytest

from conftest import job, run_command
from switchscope import catalog
from switchscope.build.firmware import build, build_example
from switchscope.catalog import configs
from switchscope.common.errors import FirmwareFailed
from switchscope.decode import elf
from switchscope.figures.measure_elf import measure_elf
from switchscope.common import paths
from switchscope.figures.switches import measure_switches

pytestmark = pytest.mark.firmware

FREERTOS, MPS2, AVR = catalog.KERNELS["freertos"], catalog.TARGETS["mps2-an385"], catalog.TARGETS["atmega328p"]
SAMPLES = 1000  # what the scenario firmware measures when the run passes no parameters
BOTH = ["mps2-an385", "atmega328p"]


def scenario_elf(scenario, target="mps2-an385"):
    return build(FREERTOS, catalog.TARGETS[target], catalog.SCENARIOS[scenario]).elf


def by_kind(result):
    facts = result.details["switches"]
    return Counter((facts["tasks"][a], facts["tasks"][b], facts["causes"][c]) for a, b, c in facts["samples"])


def windows_by_cause(result):
    facts, found = result.details["switches"], {}
    for (_, _, cause), value in zip(facts["samples"], result.samples):
        found.setdefault(facts["causes"][cause], set()).add(value)
    return found


def disassembly(firmware, function):
    start, end, _ = next(f for f in elf.functions(firmware) if f[2] == function)
    tool = "avr-objdump" if elf.machine(firmware) == "EM_AVR" else "arm-none-eabi-objdump"
    return subprocess.run([tool, "-d", f"--start-address={start}", f"--stop-address={end}", str(firmware)],
                          capture_output=True, text=True, check=True).stdout.splitlines()


@pytest.mark.parametrize("target", BOTH)
def test_yield_makes_the_switches_its_code_says_and_each_is_a_call_in_ss_yield(target):
    # each sample: the measuring task yields to the released partner, which yields back; the measuring task
    # yields again (the window it times) and the partner blocks on its signal: 2 + 1 + 1 switches
    result = measure_switches(scenario_elf("yield", target), catalog.TARGETS[target], FREERTOS, 10**6, 120)
    found = by_kind(result)
    assert found["measure", "partner", "call in ss_yield"] == 2 * SAMPLES
    assert found["partner", "measure", "call in ss_yield"] == SAMPLES
    assert found["partner", "measure", "call in xQueueSemaphoreTake"] == SAMPLES
    assert result.details["switches"]["stopped"] is None  # the firmware ran to its end


@pytest.mark.parametrize("target", BOTH)
def test_isr_switches_are_caused_by_its_interrupt(target):
    # the board's software interrupt: NVIC STIR on mps2-an385 (its handler switchscope_soft_irq), a pin
    # change on the ATmega328P (PCINT0, vector 3, whose handler avr-gcc names __vector_3)
    handler = {"mps2-an385": "switchscope_soft_irq", "atmega328p": "__vector_3"}[target]
    result = measure_switches(scenario_elf("isr", target), catalog.TARGETS[target], FREERTOS, 10**6, 120)
    assert by_kind(result)["low", "high", f"interrupt {handler}"] == SAMPLES


def test_a_software_switch_is_found_where_the_task_calls_it_and_timed_to_the_other_task():
    # --config switch=software: a task's yield calls ss_software_switch (no exception) and only the
    # tick's switches still go through PendSV; the calls are found, each timed from the function's
    # first instruction to the other task's first, as the PendSV build's are
    def pairs(result):
        found = Counter()
        for (outgoing, incoming, _), count in by_kind(result).items():
            found[outgoing, incoming] += count if "IDLE" not in (outgoing, incoming) else 0
        return +found

    software = configs.resolve({"switch": "software"}, FREERTOS, MPS2, catalog.SCENARIOS["yield"])
    firmware = build(FREERTOS, MPS2, catalog.SCENARIOS["yield"], config=software).elf
    result = measure_switches(firmware, MPS2, FREERTOS, 10**6, 120)
    assert pairs(result) == pairs(measure_switches(scenario_elf("yield"), MPS2, FREERTOS, 10**6, 120))
    assert pairs(result)["partner", "measure"] == 2 * SAMPLES
    # ss_yield ends in a tail call of ss_software_switch: the call is its caller's, the scenario's window
    assert by_kind(result)["measure", "partner", "call in window"] == 2 * SAMPLES
    assert by_kind(result)["partner", "measure", "call in xQueueSemaphoreTake"] == SAMPLES
    assert "ss_software_switch" in result.details["switches"]["switch_path"]
    # the window: the function up to its last instruction (the marker method), then that LDR PC, 2 cycles
    # and a pipeline refill of 1 to 3 (Cortex-M3 TRM r2p1 Table 3-1), landing in the other task
    exit_at = next(int(line.split(":")[0], 16) for line in disassembly(firmware, "ss_software_switch")
                   if "ldr\tpc" in line.replace("ldr.w", "ldr"))
    through = set(measure_elf(firmware, MPS2, "ss_software_switch", hex(exit_at), 20, 60).samples)
    calls = set().union(*(values for cause, values in windows_by_cause(result).items() if cause.startswith("call")))
    assert calls and all(any(3 <= value - before <= 5 for before in through) for value in calls)


def test_a_window_is_the_handlers_entry_its_instructions_and_the_return():
    # Cortex-M3 TRM r2p1: exception entry 12 cycles (5.5.1), a tail-chain 6 (5.6), and the return's
    # unstacking 10 (Figure 5-5) after the BX LR that starts it, 1 cycle (Table 3-1, its refill replaced).
    # Between them the handler, counted by the marker method from its first instruction to that BX LR.
    firmware = scenario_elf("yield")
    return_at = next(int(line.split(":")[0], 16) for line in disassembly(firmware, "PendSV_Handler")
                     if "\tbx\tlr" in line)
    handler = measure_elf(firmware, MPS2, "PendSV_Handler", hex(return_at), 20, 60)
    (through,) = set(handler.samples)
    windows = windows_by_cause(measure_switches(firmware, MPS2, FREERTOS, 3000, 60))
    assert windows["call in ss_yield"] == {12 + through + 1 + 10}
    assert windows["tick"] == {6 + through + 1 + 10}


def test_an_avr_window_is_vportyield_and_its_return():
    # ATmega328P: vPortYield saves the context, calls vTaskSwitchContext and restores the other task's; its
    # RET, 4 cycles with a 16-bit program counter (instruction set summary, datasheet 31), lands in that
    # task. vPortYield up to its RET is counted by the marker method; it varies with vTaskSwitchContext's path.
    firmware = scenario_elf("yield", "atmega328p")
    ret_at = next(int(line.split(":")[0], 16) for line in disassembly(firmware, "vPortYield") if "\tret" in line)
    through = set(measure_elf(firmware, AVR, "vPortYield", hex(ret_at), 200, 60).samples)
    windows = windows_by_cause(measure_switches(firmware, AVR, FREERTOS, 3000, 60))
    assert windows["call in ss_yield"] and windows["call in ss_yield"] <= {value + 4 for value in through}


@pytest.mark.parametrize("target", BOTH)
def test_the_same_firmware_gives_the_same_switches_every_run(target):
    example = build_example(FREERTOS, catalog.TARGETS[target])
    first, second = (measure_switches(example, catalog.TARGETS[target], FREERTOS, 1500, 60) for _ in range(2))
    assert first.samples == second.samples and first.details["switches"]["samples"] == \
        second.details["switches"]["samples"]


@pytest.mark.parametrize("target", BOTH)
def test_the_example_application_shows_its_pairs_and_causes(target, tmp_path, capsys):
    out = tmp_path / "app.json"
    status, said = run_command(["measure", "--build-example", "--target", target, "--switches", "--kernel",
                                "freertos", "--count", "1500", "--json", str(out)], capsys)
    assert status == 0, said
    assert "by task pair:" in said and "by cause:" in said
    (result,) = json.loads(out.read_text())["results"]
    facts = result["switches"]
    kinds = Counter((facts["tasks"][a], facts["tasks"][b], facts["causes"][c]) for a, b, c in facts["samples"])
    # the timer's interrupt wakes the producer, whose message wakes the more urgent consumer at once
    assert kinds["produce", "consume", "call in xQueueGenericSend"] > 0
    assert kinds["consume", "produce", "call in xQueueReceive"] > 0
    # the board's spare timer, named by what it is: CMSDK TIMER1 entered at board_latency_entry; Timer1's
    # compare A, vector 11
    timer = {"mps2-an385": "CMSDK TIMER1, handler board_latency_entry",
             "atmega328p": "Timer1 compare A, handler __vector_11"}[target]
    assert any(cause == f"the latency timer's interrupt ({timer})" and into == "produce" for (_, into, cause) in kinds)
    # the background task and the idle task share the lowest priority and yield to each other
    assert kinds["backgnd", "IDLE", "call in background"] > 0 and kinds["IDLE", "backgnd", "call in prvIdleTask"] > 0
    assert result["unit"] == "cycles" and result["kind"] == "switches"
    page = tmp_path / "app.html"
    status, said = run_command(["report", str(out), "--html", str(page)], capsys)
    assert status == 0, said
    html = page.read_text()
    assert "Task switches of an application" in html and "by task pair" in html and "by cause" in html
    assert html.count('class="plot timeline"') == 1 and 'class="plot histogram"' in html
    assert bool(result.get("bounds")) == (target == "mps2-an385")  # a model's cycles carry the TRM's range


def documented_example_targets():
    """The targets docs/switches.md names for the example application: the T of its measure --build-example
    command."""
    text = (paths.checkout() / "docs/switches.md").read_text()
    said = re.search(r"--build-example --target T .*?\(T: ([^:)]*)", text, re.S)
    assert said, "docs/switches.md names the example application's targets after its command"
    return re.split(r",\s*|\s+or\s+", " ".join(said.group(1).split()))


def test_the_docs_name_the_example_on_every_board_whose_code_drives_a_spare_timer():
    named = documented_example_targets()
    # the example's interrupt comes from the spare timer ([latency_timer]) of a board with C code and a compiler
    fitting = [t.name for t in catalog.TARGETS.values() if t.gcc and t.has_c_board and t.latency_timer]
    assert sorted(named) == sorted(fitting)
    for text in [paths.checkout() / "README.md", *(paths.checkout() / "docs").glob("*.md")]:
        for target in re.findall(r"--build-example --target (\S+)", text.read_text()):
            assert target == "T" or target in named, f"{text.name} runs the example on {target}"


@pytest.mark.parametrize("target", documented_example_targets())
def test_the_example_switches_on_every_target_the_docs_name(target, capsys):
    # on Ibex the port's tick set-up (machine_timer.c) must be linked, or xPortStartScheduler calls the weak,
    # undefined vPortSetupTimerInterrupt at address 0 and the firmware ends before its first task
    status, said = run_command(["measure", "--build-example", "--target", target, "--switches", "--kernel",
                                "freertos", "--count", "400"], capsys)
    assert status == 0, said
    assert "by task pair:" in said and "produce -> consume" in said and "consume -> produce" in said, said
    assert "warning" not in said, said  # all 400 switches found


def test_a_firmware_that_never_switches_ends_at_the_timeout_saying_so():
    spin = build(FREERTOS, MPS2, job("spin").scenario).elf
    never = r"no task switch found \(pxCurrentTCB never changed.*"
    with pytest.raises(FirmwareFailed, match=never + r"(within 5 s|ended after \d+ exception entries and returns)"):
        measure_switches(spin, MPS2, FREERTOS, 100, 5)


def test_what_cannot_be_measured_is_refused_with_the_reason(capsys):
    embassy = build(catalog.KERNELS["embassy"], MPS2, catalog.SCENARIOS["signal"]).elf
    status, said = run_command(["measure", str(embassy), "--target", "mps2-an385", "--switches", "--kernel",
                                "freertos"], capsys)
    assert status == 2 and "has no symbol pxCurrentTCB" in said
    status, said = run_command(["measure", str(embassy), "--target", "mps2-an385", "--switches", "--kernel",
                                "embassy"], capsys)
    assert status == 2 and "futures an executor polls" in said
    status, said = run_command(["measure", str(embassy), "--target", "mps2-an385", "--switches"], capsys)
    assert status == 2 and "needs the --kernel" in said
