"""irq-latency: a peripheral timer's interrupt asserted at every step of a loop, timed by the simulator from
its assertion to its handler's first instruction. The ruler's loop has one masked region of known length;
its expected latencies are worked out here from the Cortex-M3 Technical Reference Manual (r2p1)."""

import json
import subprocess
from collections import Counter

import pytest

from conftest import run_command
from switchscope import catalog
from switchscope.build import native
from switchscope.build.firmware import build
from switchscope.catalog import configs
from switchscope.catalog.job import Job
from switchscope.figures import kinds
from switchscope.figures.latency import function_at, sweep_samples
from switchscope.figures.measure import measure
from switchscope.run import simavr
from test_serial_boards import PtyBoard, _read_over_port

pytestmark = pytest.mark.firmware

# Cortex-M3 TRM 5.5.1: 12 cycles from the assertion to the first instruction of the handler (zero-wait-state
# memory); 5.5.2: 6 cycles when the handler is tail-chained at another's return. Table 18-1: NOP 1 cycle, and the
# changes of processor state (CPSID, CPSIE) 1 cycle each.
ENTRY, TAIL_CHAIN, NOP, CPSIE = 12, 6, 1, 1
RULER_MASKED = 8  # firmware/scenarios/irq-ruler.c: the no-ops between cpsid i and cpsie i
# the ruler's loop: cpsid, the no-ops, cpsie, then ldrb, cmp and beq back to the top
RULER_LOOP_INSTRUCTIONS = 1 + RULER_MASKED + 1 + 3


def latency_job(scenario, kernel="floor", unit="cycles", target="mps2-an385", method="marker", **options):
    kernel, target = catalog.KERNELS[kernel], catalog.TARGETS[target]
    chosen = catalog.SCENARIOS[scenario]
    return Job(kernel, target, chosen, catalog.METHODS[method], unit=unit,
               config=configs.resolve(options, kernel, target, chosen))


@pytest.fixture(scope="module")
def ruler():
    return measure(latency_job("irq-ruler"), samples=3 * 2 * RULER_LOOP_INSTRUCTIONS + 10)


def test_the_ruler_reads_the_chips_latency_outside_its_masked_region_and_that_plus_the_region_within(ruler):
    # asserted just after cpsid i, the interrupt waits for every no-op and for cpsie i, then enters
    assert ruler.worst["cycles"] == max(ruler.samples) == ENTRY + RULER_MASKED * NOP + CPSIE
    assert min(ruler.samples) == ENTRY
    assert ruler.worst["function"] == "ruler_masked_loop"
    # at each step of the loop (step 0 is cpsid i itself, whose boundary comes before the masking)
    for phase, latency in zip(ruler.sample_phases, ruler.samples):
        if 1 <= phase <= RULER_MASKED + 1:  # before a no-op, or before cpsie i
            assert latency == ENTRY + (RULER_MASKED + 1 - phase) * NOP + CPSIE, phase
        elif 0 <= phase <= RULER_LOOP_INSTRUCTIONS:
            assert latency == ENTRY, phase


def test_the_ruler_sweep_meets_every_instruction_of_its_loop(ruler):
    assert ruler.phases == {"covered": RULER_LOOP_INSTRUCTIONS, "period": RULER_LOOP_INSTRUCTIONS,
                            "steps": "instructions"}
    # the masked region the report names: the no-ops and cpsie i, two bytes each
    first, last = int(ruler.worst["held_from"], 16), int(ruler.worst["held_to"], 16)
    assert last - first == 2 * RULER_MASKED


def test_in_instructions_the_masked_region_is_its_instructions_and_entry_costs_none():
    counted = measure(latency_job("irq-ruler", unit="instructions"), samples=3 * 2 * RULER_LOOP_INSTRUCTIONS)
    assert counted.unit == "instructions"
    assert min(counted.samples) == 0 and max(counted.samples) == RULER_MASKED + 1


def test_the_same_firmware_gives_the_same_samples_at_the_same_addresses(ruler):
    again = measure(latency_job("irq-ruler"), samples=len(ruler.samples))
    assert again.samples == ruler.samples
    assert again.sample_addresses == ruler.sample_addresses and again.sample_phases == ruler.sample_phases


# The STM32F405 (netduinoplus2), its latency timer QEMU's TIM2 as its board code drives it: a Cortex-M4, whose TRM
# gives the M3's 12 cycles of entry, one cycle a NOP and a CPSIE. RM0090 Table 10: 5 wait states at 168 MHz; 3.5.2:
# a read that misses costs "at least equal to the number of wait states" (the model's point, WS), a read the
# I-cache holds is "provided without inserting any delay", and a prefetched one is ready 1 + WS cycles after the
# read before: the ruler's eight NOPs a read outlast it.
F405_WS = 5


@pytest.fixture(scope="module")
def f405_ruler():
    samples = 3 * 2 * RULER_LOOP_INSTRUCTIONS + 10
    chosen = ({"wait_states": "0"}, {"accelerator": "off"}, {"cache": "warm"}, {"cache": "cold"})
    return {"=".join(*option.items()): measure(latency_job("irq-ruler", target="netduinoplus2", **option),
                                                samples=samples) for option in chosen}


def test_tim2_meets_the_ruler_on_the_stm32f405s_core_alone_as_its_manual_says(f405_ruler):
    alone = f405_ruler["wait_states=0"]
    assert alone.phases["covered"] == alone.phases["period"] == RULER_LOOP_INSTRUCTIONS
    assert min(alone.samples) == ENTRY and max(alone.samples) == ENTRY + RULER_MASKED * NOP + CPSIE
    for phase, latency in zip(alone.sample_phases, alone.samples):
        if 1 <= phase <= RULER_MASKED + 1:
            assert latency == ENTRY + (RULER_MASKED + 1 - phase) * NOP + CPSIE, phase
        elif 0 <= phase <= RULER_LOOP_INSTRUCTIONS:
            assert latency == ENTRY, phase


def test_with_wait_states_the_latency_holds_the_handlers_first_read_unless_the_cache_has_it(f405_ruler):
    """The latency ends as the handler's first instruction starts, once fetched: a miss (the accelerator off,
    or its caches emptied before each sample) adds the wait states; warm, only the first sample misses."""
    alone, off = f405_ruler["wait_states=0"].samples, f405_ruler["accelerator=off"].samples
    cold, warm = f405_ruler["cache=cold"].samples, f405_ruler["cache=warm"].samples
    assert min(off) == ENTRY + F405_WS
    assert [c - a for c, a in zip(cold, alone)] == [F405_WS] * len(alone)
    assert warm[0] == alone[0] + F405_WS and warm[1:] == alone[1:]


# ATmega328P datasheet 6.7 "Interrupt Response Time": four cycles from the flag to the vector's first
# instruction once the instruction executing has completed; the instruction set manual: JMP (the vector) 3
# cycles, NOP, CLI, SEI, AND 1, LDS 2, BREQ 2 when taken; and SEI: "the instruction following SEI will be
# executed before any pending interrupts".
AVR_RESPONSE, AVR_JMP = 4, 3
# the ruler's loop as (mnemonic, cycles), from its top
AVR_LOOP = [("cli", 1)] + [("nop", 1)] * RULER_MASKED + [("sei", 1), ("lds", 2), ("and", 1), ("breq", 2)]


def avr_expected_latency(phase: int) -> int:
    """The cycles from a flag set `phase` cycles after the loop's top to the handler's first instruction:
    the interrupt is taken at the first instruction boundary at or after the flag where interrupts are
    enabled and the instruction just completed was not SEI, then come the response and the vector's JMP."""
    can_take, at, enabled, after_sei = {}, 0, True, False  # at the loop's top: BREQ just ran, I set
    for mnemonic, cycles in AVR_LOOP:
        can_take[at] = enabled and not after_sei
        at += cycles
        enabled = {"cli": False, "sei": True}.get(mnemonic, enabled)
        after_sei = mnemonic == "sei"
    can_take[at] = enabled and not after_sei  # the next loop's top
    taken = min(boundary for boundary, can in can_take.items() if can and boundary >= phase)
    return taken - phase + AVR_RESPONSE + AVR_JMP


def test_on_the_atmega328p_the_ruler_reads_what_the_datasheet_says_at_every_cycle_of_its_loop():
    loop = sum(cycles for _, cycles in AVR_LOOP)
    result = measure(latency_job("irq-ruler", target="atmega328p"), samples=3 * loop + 30)
    assert result.phases == {"covered": loop, "period": loop, "steps": "cycles"}
    assert min(result.samples) == AVR_RESPONSE + AVR_JMP
    # asserted as the first no-op starts: every no-op, SEI and the LDS after it, then the response and the JMP
    assert result.worst["cycles"] == max(result.samples) == RULER_MASKED + 1 + 2 + AVR_RESPONSE + AVR_JMP
    checked = 0
    for phase, latency in zip(result.sample_phases, result.samples):
        if 0 <= phase <= loop:
            assert latency == avr_expected_latency(phase % loop), phase
            checked += 1
    assert checked >= 2 * loop


@pytest.fixture(scope="module")
def freertos():
    return {priority: measure(latency_job("irq-latency", "freertos", irq_priority=priority), samples=5000)
            for priority in ("high", "low")}


def test_above_the_kernels_ceiling_freertos_adds_nothing_to_the_chips_latency(freertos):
    high = freertos["high"]
    # entered at once, or tail-chained as another handler returns: never held by the kernel
    assert set(high.samples) <= {ENTRY, TAIL_CHAIN} and ENTRY in high.samples
    assert high.phases["covered"] == high.phases["period"] > 100


def test_the_tick_round_sweeps_the_ticks_own_code(freertos):
    """The last samples aim at the tick: their assertions fall in FreeRTOS's tick handler and the tick's
    increment, which the loop's round meets only where a tick happens to fall."""
    low = freertos["low"]
    job = latency_job("irq-latency", "freertos", irq_priority="low")
    firmware = build(job.kernel, job.target, job.scenario, job.method, job.resolved_config()).elf
    tick = low.phases["tick"]
    assert tick["samples"] > 500 and tick["from"] < 0 < tick["to"]
    assert len(tick["addresses"]) == len(tick["latencies"]) == tick["samples"]
    functions = {function_at(firmware, int(a, 16)) for a in tick["addresses"]}
    assert {"SysTick_Handler", "xTaskIncrementTick", "PendSV_Handler"} <= functions, functions


def test_below_the_ceiling_freertos_critical_sections_hold_the_interrupt(freertos):
    low = freertos["low"]
    assert min(low.samples) <= ENTRY < max(low.samples)
    assert low.worst["cycles"] == max(low.samples) > 2 * ENTRY
    assert low.worst["function"] not in ("?", "") and low.worst["address"].startswith("0x")
    assert low.phases["covered"] == low.phases["period"]
    # what the result says of itself: the option, and the NVIC priority the board gave the timer against the ceiling
    assert low.options["irq_priority"] == "low" and freertos["high"].options["irq_priority"] == "high"
    assert low.config["configMAX_SYSCALL_INTERRUPT_PRIORITY"] == "0xA0"
    assert low.config["latency_irq_priority"] == "0xC0" and freertos["high"].config["latency_irq_priority"] == "0x00"


def test_a_run_of_irq_latency_says_its_worst_case_and_the_code_it_fell_in(capsys, tmp_path):
    status, said = run_command(["run", "--scenario", "irq-latency", "--samples", "1500", "--quiet",
                                "--config", "irq_priority=high,low", "--json", str(tmp_path / "r.json")], capsys)
    assert status == 0, said
    # two tables of one kernel: the one not at its defaults says which option it changed
    assert said.count("freertos V") == 2 and said.count("options irq_priority=high") == 1
    assert "irq-latency: worst " in said and " cycles (" in said and ", asserted at 0x" in said
    assert "phases covered 0" not in said
    assert "phases covered" in said and "timed by the simulator from the assertion of the latency timer's interrupt" in said


@pytest.mark.parametrize("scenario,kernel,samples", [("irq-ruler", "floor", 80), ("irq-latency", "freertos", 3000)])
@pytest.mark.parametrize("target,unit", [("mps2-an385", "instructions"), ("atmega328p", "cycles"),
                                         ("netduinoplus2", "instructions")])
def test_the_probe_reads_what_the_simulator_sees_at_every_sample(scenario, kernel, samples, target, unit):
    """The probe (the entry's read of the timer less the count it expired at) against the simulator's own
    view of the same run: under QEMU in instructions, the unit its timer counts, on simavr in cycles."""
    job = latency_job(scenario, kernel, unit, target, method="probe")
    probed = measure(job, samples=samples)
    taken = sweep_samples(job) or samples  # irq-latency's sweep takes its own
    agreement = probed.details["agreement"]
    assert agreement == {"samples": taken, "equal": taken, "least_difference": 0, "largest_difference": 0,
                         "unit": unit}
    assert probed.method == "probe" and probed.unit == unit


def test_on_the_atmega328p_freertos_is_met_at_every_cycle_of_its_loop_and_its_critical_sections_hold_it():
    result = measure(latency_job("irq-latency", "freertos", target="atmega328p"), samples=10_000)
    assert result.phases["covered"] == result.phases["period"] > 1000
    assert min(result.samples) == AVR_RESPONSE + AVR_JMP
    assert result.worst["cycles"] > 10 * (AVR_RESPONSE + AVR_JMP) and result.worst["function"] not in ("?", "")


def test_irq_latency_is_not_applicable_where_no_latency_timer_is_driven_and_says_why(capsys):
    status, said = run_command(["run", "--scenario", "irq-latency", "--target", "stm32vldiscovery",
                                "--samples", "10"], capsys)
    assert status == 2 and "drives no latency timer" in said and "STM32F100 implements no timer" in said
    status, said = run_command(["run", "--scenario", "irq-latency", "--method", "probe", "--samples", "10"], capsys)
    assert status == 2 and "the probe reads CMSDK TIMER1, which under qemu counts instructions" in said
    assert "--unit instructions" in said


def test_the_arduino_reads_its_own_interrupt_latency_over_its_port_as_the_simulator_does(capsys, tmp_path):
    """The Uno's image, run on simavr behind a serial device and read with --port: the probe reads the samples
    the simulated run took (the image carries the sweep's parameters)."""
    job = latency_job("irq-latency", "freertos", target="atmega328p", method="probe")
    samples = sweep_samples(job)
    simulated = measure(job, samples)
    elf = build(job.kernel, job.target, job.scenario, job.method, job.resolved_config()).elf
    parameters = kinds.of(job).parameters(samples, job.resolved_config())
    command = simavr.command(native.built("simavr"), job.target, elf, parameters, samples,
                             simavr.INTERRUPT_ENTRY_CYCLES)
    board = PtyBoard(lambda master: subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=master,
                                                     stderr=subprocess.DEVNULL, start_new_session=True))
    try:
        result = _read_over_port(capsys, tmp_path, "arduino-uno", "irq-latency", board.device,
                                 "--samples", str(samples))
    finally:
        board.close()
    assert result["method"] == "probe" and result["unit"] == "cycles"
    # a board logs no loop passes, so it keeps every sample of its sweep; the simulated run kept one per step
    # of the loop (and those a tick fell into) out of the very same samples
    assert len(result["samples"]) == samples
    assert not Counter(simulated.samples) - Counter(result["samples"])
    ticked = simulated.phases.get("ticked", {}).get("worst", 0)
    assert result["worst"]["cycles"] == max(simulated.worst["cycles"], ticked) and "address" not in result["worst"]


@pytest.mark.parametrize("target", ["mps2-an385", "atmega328p"])
def test_irq_latency_is_one_sample_per_step_of_the_loop_whatever_the_samples_asked(target, capsys, tmp_path):
    """The sweep meets every step of the workload's loop once in an iteration of its own, then the tick's: the
    same distribution for any --samples, identical run to run."""
    found = []
    for samples in (2000, 10_000, 20_000):
        path = tmp_path / f"{samples}.json"
        status, said = run_command(["run", "--scenario", "irq-latency", "--target", target, "--samples",
                                    str(samples), "--quiet", "--json", str(path)], capsys)
        assert status == 0, said
        found.append(json.loads(path.read_text())["results"][0])
    first = found[0]
    phases = first["phases"]
    assert phases["one_per_phase"] and phases["covered"] == phases["period"] > 100
    assert len(first["samples"]) == phases["period"]  # each step once; the tick's samples beside them
    for other in found[1:]:
        assert other["samples"] == first["samples"] and other["stats"] == first["stats"]
        assert other["worst"] == first["worst"] and other["phases"] == first["phases"]
        assert other["sample_addresses"] == first["sample_addresses"]


# Ibex (RV32, the harness's latency timer on irq_fast_i[0]): the ruler's loop is csrci mstatus (MIE clear), the
# no-ops, csrsi mstatus (MIE set), lbu, beqz, 32-bit each at word addresses. pipeline_details.rst (lines 35, 42, 45)
# gives the csrci and each no-op 1 cycle; Ibex's documentation gives no cycles for taking an interrupt
# (exception_interrupts.rst describes the behaviour only), so the entry is the one measured below in a run of nops:
# 4 cycles from the line's rise to the vector's first instruction, and, asserted while MIE is clear, the vector's
# first instruction 1 + 4 cycles after the csrsi's cycle. The cycles after the csrsi (it flushes the pipeline:
# ibex_id_stage.sv, csr_pipeline_flushes) and the load's and the branch's stalls around an interrupt are not
# documented: those steps are held only to the entry or a few cycles more.
IBEX_ENTRY = 4
IBEX_CSRSI_AT = 1 + RULER_MASKED  # the csrsi's cycle, the loop's top (the csrci) at 0


@pytest.mark.parametrize("target", ["ibex", "ibex-maxperf"])
def test_on_ibex_the_ruler_reads_the_entry_after_the_csrsi_at_every_masked_step(target):
    result = measure(latency_job("irq-ruler", target=target, method="probe"), samples=60)
    agreement = result.details["agreement"]
    assert agreement["equal"] == agreement["samples"] == 60  # the entry's read of mcycle is the harness's view
    assert result.phases["covered"] == result.phases["period"] > IBEX_CSRSI_AT
    assert result.worst["function"] == "ruler_masked_loop" and result.worst["held"]
    masked = 0
    for phase, latency in zip(result.sample_phases, result.samples):
        if 1 <= phase <= IBEX_CSRSI_AT:  # asserted in a no-op or in the csrsi: the vector 1 + entry after the csrsi
            assert latency == IBEX_CSRSI_AT + 1 + IBEX_ENTRY - phase, (phase, latency)
            masked += 1
        elif IBEX_CSRSI_AT < phase < result.phases["period"]:  # unmasked: the entry, or a stall's rest more
            assert latency <= IBEX_ENTRY + 2, (phase, latency)
    assert masked >= IBEX_CSRSI_AT  # every masked step met
    assert result.worst["cycles"] == max(result.samples) > IBEX_CSRSI_AT + IBEX_ENTRY


# Nothing in a run of nops (integer computation, 1 cycle each: pipeline_details.rst lines 35 and 42) holds an
# interrupt back, so its entry must come the same number of cycles after the line rises wherever in the run that
# is, on the fast line as on the NMI (exception_interrupts.rst line 56: taken whatever mstatus.MIE).
ENTRY_NOPS = 16  # tests/firmware/ibex_interrupt_entry.c: the no-ops at the top of its loop


@pytest.mark.parametrize("target", ["ibex", "ibex-maxperf"])
@pytest.mark.parametrize("irq_priority, line", [("low", "irq_fast_i[0]"), ("high", "irq_nm_i")])
def test_on_ibex_an_interrupt_in_a_run_of_nops_is_entered_in_the_same_cycles_at_every_step(target, irq_priority,
                                                                                            line):
    from conftest import TEST_FIRMWARE

    kernel, board = catalog.KERNELS["freertos"], catalog.TARGETS[target]
    entry = catalog.Scenario("ibex_interrupt_entry", "the latency timer's line raised at every step of a loop of "
                             "nops", check=True, kind="latency", source=TEST_FIRMWARE / "ibex_interrupt_entry.c")
    # irq_priority is irq-ruler's option, and this loop is irq-ruler's with no masked region
    config = configs.resolve({"irq_priority": irq_priority}, kernel, board, catalog.SCENARIOS["irq-ruler"])
    result = measure(Job(kernel, board, entry, catalog.METHODS["probe"], config=config), samples=60)
    agreement = result.details["agreement"]
    assert agreement["equal"] == agreement["samples"] == 60  # the entry's read of mcycle is the harness's view
    assert result.config["latency_irq"] == line
    period = result.phases["period"]
    in_nops = {}
    for phase, latency in zip(result.sample_phases, result.samples):
        if phase >= 0 and phase % period < ENTRY_NOPS:
            in_nops.setdefault(phase % period, set()).add(latency)
    assert in_nops == {phase: {IBEX_ENTRY} for phase in range(ENTRY_NOPS)}  # every step of the run met
