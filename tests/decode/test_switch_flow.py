"""Task switches from an exception flow written by hand (decode/switches.py): which chains are
switches, where each window starts and ends, and what caused it."""

from switchscope.decode.recording import Event
from switchscope.decode.switches import Flow, switches

PENDSV, SYSTICK, TIMER = 0x1BAC, 0x1BF0, 0x2000
A, B = 0x20000100, 0x20000200  # two tasks' control blocks


def flow(*lines: tuple[int, str]) -> list[Event]:
    return [Event(time, name) for time, name in lines]


def test_a_task_call_switches_from_the_entry_to_the_first_instruction_of_the_other_task():
    found, unswitched = switches(flow((100, f"entry@{PENDSV:x}:{A:x}:1234:1201"),
                                      (213, f"resume@4000:{B:x}:" + b"partner".hex())), {PENDSV}, {SYSTICK})
    (switch,) = found
    assert (switch.start, switch.end, switch.outgoing, switch.incoming) == (100, 213, A, B)
    assert (switch.cause, switch.cause_address, switch.caller, switch.incoming_name) == ("call", 0x1234, 0x1201,
                                                                                           "partner")
    assert unswitched == 0


def test_a_tick_that_changes_nothing_is_no_switch_and_a_tail_chained_one_is_the_ticks():
    found, unswitched = switches(flow(
        (10, f"entry@{SYSTICK:x}:{A:x}:50:51"), (60, f"resume@50:{A:x}"),           # a tick, no PendSV
        (70, f"entry@{PENDSV:x}:{A:x}:52:53"), (180, f"resume@52:{A:x}"),           # PendSV, the same task
        (300, f"entry@{SYSTICK:x}:{A:x}:54:55"), (350, f"chain@{PENDSV:x}:{A:x}"),
        (457, f"resume@60:{B:x}")), {PENDSV}, {SYSTICK})
    (switch,) = found
    assert (switch.start, switch.end, switch.cause, switch.cause_address) == (350, 457, "tick", SYSTICK)
    assert unswitched == 1


def test_an_interrupt_inside_the_switching_handler_makes_the_last_pass_the_window_and_the_cause():
    # the task yields; the timer interrupts PendSV and pends it again: the window is the tail-chained pass
    found, _ = switches(flow(
        (100, f"entry@{PENDSV:x}:{A:x}:70:71"), (130, f"nest@{TIMER:x}:{A:x}"),
        (260, f"chain@{PENDSV:x}:{B:x}"), (367, f"resume@90:{B:x}")), {PENDSV}, {SYSTICK})
    (switch,) = found
    assert (switch.start, switch.end, switch.outgoing, switch.cause, switch.cause_address) == \
        (260, 367, A, "interrupt", TIMER)


def test_other_events_and_malformed_names_are_passed_over():
    assert Flow.of(Event(1, "from")) is None and Flow.of(Event(1, "entry@zz:1")) is None
    found, _ = switches(flow((1, "from"), (2, f"entry@{PENDSV:x}:{A:x}:1:1"), (3, "to"),
                             (9, f"resume@5:{B:x}")), {PENDSV}, set())
    assert [(s.start, s.end) for s in found] == [(2, 9)]
