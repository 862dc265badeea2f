"""switchscope breakdown: one window traced instruction by instruction through the timing model, adding up to
the marker method's figure, with the exception entry and return the TRM gives on lines of their own."""

import pytest
from conftest import run_command

from switchscope import catalog
from switchscope.catalog import configs
from switchscope.catalog.job import Job
from switchscope.figures.breakdown import CLOSING_FETCH, Breakdown, Step, breakdown, parse, steps_of
from switchscope.present import breakdown_text

FREERTOS, AN385, YIELD = catalog.KERNELS["freertos"], catalog.TARGETS["mps2-an385"], catalog.SCENARIOS["yield"]


def test_each_instruction_costs_the_count_to_the_next_less_the_flow_charged_between():
    lines = ["100 i 8a4", "102 i 8a6", "103 f exception-entry 12", "117 i 400", "119 end"]
    functions = [(0x400, 0x440, "PendSV_Handler"), (0x8a0, 0x8b0, "task")]
    steps = steps_of(parse(lines), functions, {0x8a4: "movs r0, #1"})
    assert steps == [Step(2, 0x8a4, "task", 4, "movs r0, #1"), Step(3, 0x8a6, "task", 6),  # 117 - 102 - 12
                     Step(12, None, text="exception-entry"), Step(2, 0x400, "PendSV_Handler", 0)]


def test_the_flash_models_lines_stay_in_the_instruction_as_its_stall_and_how_its_reads_were_served():
    """An instruction starts once fetched: its fetch's lines come before its own (whose count is after them), its
    data reads after; the fetch of the instruction the window ends at is the window's, a step of its own."""
    lines = ["100 i 8a4", "103 f flash-read 5", "108 i 8a6", "110 f flash-literal 5", "115 f flash-icache-hit 0",
             "115 i 8a8", "116 f exception-entry 12", "128 f flash-read 5", "133 end"]
    steps = steps_of(parse(lines), [(0x8a0, 0x8b0, "task")], {})
    assert steps == [Step(3, 0x8a4, "task", 4),
                     Step(12, 0x8a6, "task", 6, "", 10, ("flash-read", "flash-literal")),
                     Step(1, 0x8a8, "task", 8, "", 0, ("flash-icache-hit",)), Step(12, None, text="exception-entry"),
                     Step(5, None, text=CLOSING_FETCH, stall=5, reads=("flash-read",))]
    assert sum(step.cycles for step in steps) == 133 - 100  # the window: from its first instruction's line to the end
    assert [step.core for step in steps[:3]] == [3, 2, 1]
    traced = Breakdown(Job(FREERTOS, AN385, YIELD, catalog.METHODS["marker"]), 0, 33, steps, "cycles")
    shown = breakdown_text.text(traced, every_instruction=True)
    assert "flash stall (fetches and loads): 15 of 33 cycles (45.5%)" in shown
    assert "(2 core + 10 stall: miss, literal miss)" in shown
    assert sum(run[3] for run in breakdown_text.runs(traced)) == traced.stall  # the stall column adds up too


def test_a_trace_without_its_end_is_refused():
    with pytest.raises(Exception, match="never closed"):
        parse(["100 i 8a4"])


@pytest.mark.firmware
@pytest.mark.parametrize("switch", ["pendsv", "software"])
def test_a_yield_window_adds_up_and_shows_the_exception_only_with_pendsv(switch):
    job = Job(FREERTOS, AN385, YIELD, catalog.METHODS["marker"], configs.resolve({"switch": switch}, FREERTOS,
                                                                                  AN385, YIELD), unit="cycles")
    traced = breakdown(job, 10)
    assert traced.total == traced.measured  # checked inside too: the trace and the marker figure are one count
    flows = [(s.text, s.cycles) for s in traced.steps if s.address is None]
    if switch == "pendsv":
        # Cortex-M3 TRM r2p1, 5.5.1: 12 cycles from the exception to the handler's first instruction, stacking
        # the 8 registers of the frame; Figure 5-5: 10 cycles of exception return, unstacking them
        assert flows == [("exception-entry", 12), ("exception-return", 10)]
    else:
        assert flows == []  # the software switch is calls and returns only
    saves = [s for s in traced.steps if s.text.startswith("stmdb") and "r4, r5, r6, r7, r8, r9, sl, fp" in s.text]
    assert [s.cycles for s in saves] == [9]  # TRM Table 3-1: STM "1 + N", N = 8 (r4-r11)
    functions = [s.function for s in traced.steps if s.address is not None]
    switcher = "PendSV_Handler" if switch == "pendsv" else "ss_software_switch"
    first, last = functions.index("vTaskSwitchContext"), len(functions) - 1 - functions[::-1].index("vTaskSwitchContext")
    assert switcher in functions[:first] and switcher in functions[last:]


@pytest.mark.firmware
def test_breakdown_from_the_command_line(capsys):
    status, said = run_command(["breakdown", "--scenario", "yield", "--instructions"], capsys)
    assert status == 0 and "exception entry (stacking 8 registers)" in said and "every instruction:" in said
    status, said = run_command(["breakdown", "--target", "atmega328p"], capsys)
    assert status == 2 and "atmega328p runs on simavr, which does not" in said and "mps2-an385" in said


@pytest.mark.firmware
def test_a_breakdown_on_a_chip_says_its_memory_and_the_stall_the_accelerator_saves(capsys):
    stalls = {}
    for accelerator in ("off", "on"):
        status, said = run_command(["breakdown", "--target", "netduinoplus2", "--scenario", "yield", "--config",
                                    f"accelerator={accelerator}"], capsys)
        assert status == 0 and "memory on netduinoplus2: flash 5 wait states as programmed" in said
        stalls[accelerator] = int(said.split("flash stall (fetches and loads): ")[1].split()[0])
    # every read of the window waits its 5 wait states without the accelerator; with it, most are hits
    assert stalls["off"] > 4 * stalls["on"] and stalls["off"] % 5 == 0


def test_two_traces_part_at_the_first_instruction_whose_cost_differs_flows_counted_in_the_one_before():
    """A model charges a trap's entry as a step of its own after the instruction it follows; the RTL counts it
    in that instruction: folded so, the traces agree there and part where an instruction's cost differs."""
    from switchscope.figures.breakdown import Breakdown, parting
    model = [Step(2, 0x80000010, "task", 0, "ecall"), Step(1, None, text="interrupt-entry"),
             Step(2, 0x80000100, "vectors", 0, "j trap"), Step(38, 0x80000200, "trap", 0, "div a0,a1,a2")]
    rtl = [Step(3, 0x100010, "task", 0, "ecall"), Step(2, 0x100100, "vectors", 0, "j trap"),
           Step(37, 0x100200, "trap", 0, "div a0,a1,a2")]
    found = parting(Breakdown(None, 0, 0, model, "cycles"), Breakdown(None, 0, 0, rtl, "cycles"))
    assert (found.index, found.function, found.cycles) == (2, "trap", (38, 37))
    moved = [*rtl[:2], Step(37, 0x100204, "trap", 4, "div a0,a1,a2")]
    found = parting(Breakdown(None, 0, 0, model, "cycles"), Breakdown(None, 0, 0, moved, "cycles"))
    assert found.cycles is None and found.other == "trap+4 div a0,a1,a2"
    assert parting(Breakdown(None, 0, 0, rtl, "cycles"), Breakdown(None, 0, 0, rtl, "cycles")) is None
