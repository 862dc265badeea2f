"""The irq-latency sweep from a watch log: assertions paired with handler entries, placed in the loop by the
last pass of its top, the loop's period from the iterations no interrupt fell into, and the held region."""

import numpy as np

from switchscope.decode.latency import masked_region, sweep
from switchscope.decode.recording import Events


def events(lines):
    """Events from (count, name) pairs, as the simulator logs them."""
    names = sorted({name for _, name in lines})
    return Events(np.array([t for t, _ in lines], dtype=np.int64),
                  np.array([names.index(n) for _, n in lines]), names, np.full(len(lines), -1, dtype=np.int64))


def test_each_assertion_is_paired_with_the_next_entry_and_placed_from_the_last_loop_top():
    log = [(0, "loop"), (10, "loop"), (20, "loop"), (23, "assert@100"), (35, "enter"),
           (40, "loop"), (50, "loop"), (57, "assert@10e"), (57, "enter"), (60, "loop")]
    found = sweep(events(log), False, "test")
    assert found.latency == [12, 0]
    assert found.addresses == [0x100, 0x10E]
    assert found.phases == [3, 7]
    assert found.period == 10  # 0-10, 10-20 and 40-50: no interrupt fell into them; 20-40 and 50-60 are longer
    assert found.covered == 2


def test_an_assertion_logged_just_before_the_tops_pass_is_step_zero():
    log = [(0, "loop"), (10, "loop"), (20, "assert@200"), (20, "loop"), (25, "enter"), (40, "loop"),
           (50, "loop"), (54, "assert@204"), (60, "enter")]
    found = sweep(events(log), False, "test")
    assert found.phases == [10, 4]
    assert found.period == 10 and found.covered == 2  # step 10 of a 10-step loop is its step 0


def test_the_held_region_is_the_run_of_neighbouring_addresses_that_waited_longer_than_the_least():
    addresses = [0x100, 0x102, 0x104, 0x106, 0x108, 0x10C, 0x200, 0x202]
    latency = [12, 20, 19, 18, 17, 12, 30, 12]
    assert masked_region(addresses, latency, 0x102) == (0x102, 0x108)
    assert masked_region(addresses, latency, 0x200) == (0x200, 0x200)  # 0x108 is too far: another region
    assert masked_region(addresses, latency, 0x10C) == (0x10C, 0x10C)  # at the least: held by nothing
