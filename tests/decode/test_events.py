"""The simulator's watch log as the host reads it: counts, names, and with
cycles from a timing model the least and the most cycles the manual allows."""

import pytest

from switchscope.common.errors import FirmwareFailed
from switchscope.decode.methods import Marker
from switchscope.run.runner import _read_events


def test_a_log_in_model_cycles_carries_the_range_of_every_event(tmp_path):
    log = tmp_path / "events.txt"
    # "<cycles> <name> <instructions> <least> <most>", as the QEMU plugin writes with unit=cycles
    log.write_text("100 open 50 95 110\n226 close 104 214 260\n300 open 140 285 330\n424 close 194 406 476\n"
                   "500 end\n")
    events, limited = _read_events(log)
    assert not limited and events.bounded and len(events) == 4
    assert [e.least for e in events] == [95, 214, 285, 406] and [e.most for e in events] == [110, 260, 330, 476]
    assert Marker._intervals(events)[0] == [126, 124]
    assert Marker._intervals(events, "least")[0] == [119, 121]  # 214 - 95, 406 - 285
    assert Marker._intervals(events, "most")[0] == [150, 146]
    assert events.named("close").least.tolist() == [214, 406]


def test_a_log_without_a_range_is_read_as_before(tmp_path):
    log = tmp_path / "events.txt"
    log.write_text("10 open 5\n20 close 9\n30 limit\n")
    events, limited = _read_events(log)
    assert limited and not events.bounded and [e.least for e in events] == [None, None]
    assert [e.instructions for e in events] == [5, 9]


def test_a_malformed_log_is_refused(tmp_path):
    log = tmp_path / "events.txt"
    log.write_text("10 open 5 4 x\n20 close 9 8 10\n")
    with pytest.raises(FirmwareFailed, match="malformed"):
        _read_events(log)
