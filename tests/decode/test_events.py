"""The simulator's watch log as the host reads it: counts, names, and with
cycles from a timing model the least and the most cycles the manual allows."""

import pytest

from switchscope.common.errors import FirmwareFailed
from switchscope.decode.methods import Marker
from switchscope.decode.event_log import EventLog, read_event_log


def test_a_log_in_model_cycles_carries_the_range_of_every_event(tmp_path):
    log = tmp_path / "events.txt"
    # "<cycles> <name> <instructions> <least> <most>", as the QEMU plugin writes with unit=cycles
    log.write_text("100 open 50 95 110\n226 close 104 214 260\n300 open 140 285 330\n424 close 194 406 476\n"
                   "500 end\n")
    events, limited = read_event_log(log)
    assert not limited and events.bounded and len(events) == 4
    assert [e.least for e in events] == [95, 214, 285, 406] and [e.most for e in events] == [110, 260, 330, 476]
    assert Marker._intervals(events)[0] == [126, 124]
    assert Marker._intervals(events, "least")[0] == [119, 121]  # 214 - 95, 406 - 285
    assert Marker._intervals(events, "most")[0] == [150, 146]
    assert events.named("close").least.tolist() == [214, 406]


def test_a_log_without_a_range_is_read_as_before(tmp_path):
    log = tmp_path / "events.txt"
    log.write_text("10 open 5\n20 close 9\n30 limit\n")
    events, limited = read_event_log(log)
    assert limited and not events.bounded and [e.least for e in events] == [None, None]
    assert [e.instructions for e in events] == [5, 9]


def test_a_malformed_log_is_refused(tmp_path):
    log = tmp_path / "events.txt"
    log.write_text("10 open 5 4 x\n20 close 9 8 10\n")
    with pytest.raises(FirmwareFailed, match="malformed"):
        read_event_log(log)


def test_a_log_cut_inside_its_last_line_gives_the_events_before_it(tmp_path):
    """A simulator stopped at the run's time limit is killed: the log ends where its buffer was last written,
    inside a line or a number."""
    log = tmp_path / "events.txt"
    for cut in ("2", "20 clo", "20 close 9 8"):
        log.write_text("10 open 5 4 6\n" + cut)
        events, limited = read_event_log(log)
        assert not limited and [e.time for e in events] == [10] and events.names == ["open"]


def _columns(events):
    return (events.time.tolist(), [events.names[i] for i in events.name_index.tolist()], events.instructions.tolist(),
            events.least.tolist(), events.most.tolist(), events.names)


def test_a_log_read_as_it_grows_gives_what_the_whole_log_gives(tmp_path):
    """The runner feeds the log as the simulator writes it: pieces cut anywhere, even inside a line or a
    number, and names first seen in a later piece, give the same columns and the same sorted names."""
    log = tmp_path / "events.txt"
    lines = [f"{100 * n} {name} {40 * n} {90 * n} {120 * n}"
             for n, name in enumerate(["stamp", "stamp", "resume@1c30:20000044", "entry@f8:20000044:9a:fd",
                                       "stamp", "chain@954:20000044", "stamp"], start=1)]
    log.write_text("\n".join(lines) + "\n800 limit\n")
    whole, whole_limited = read_event_log(log)
    data = log.read_bytes()
    for cuts in ([7], [3, 44, 45, 90], list(range(1, len(data), 13)), [len(data) - 1]):
        pieces = EventLog(log)
        for start, end in zip([0, *cuts], [*cuts, len(data)]):
            pieces.feed(data[start:end])
        events, limited = pieces.finish()
        assert limited and whole_limited
        assert _columns(events) == _columns(whole)
    assert whole.names == sorted(whole.names) and len(whole) == 7
