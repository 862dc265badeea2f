"""A simulator is one module of run/ (run/simulator.py says what it provides), chosen by the board's
[simulator] name through runner.SIMULATORS: every module provides the whole interface, the registry and
the names a board.toml may give agree, an unknown name is refused naming the known ones, and a module
added to the registry is what runner.run starts and reads."""

import inspect
import struct
import textwrap
import types
from dataclasses import replace

import pytest

from switchscope import catalog
from switchscope.common.errors import SwitchscopeError, UnknownName
from switchscope.decode import elf
from switchscope.decode.wire_format import END, HELLO, META, PROTOCOL_VERSION, SAMPLE, encode_record
from switchscope.run import qemu, runner, simavr, verilator
from switchscope.run.simulator import Simulator, pin_log_edges
from conftest import run_command

INTERFACE_FUNCTIONS = ("start", "provenance", "scope_edges", "outcome")


def interface_attributes():
    return inspect.get_annotations(Simulator)


def test_the_interface_is_what_the_modules_are_checked_against():
    assert set(interface_attributes()) == {"NAME", "UNIT", "ELF_MACHINE", "COUNTS", "TRACES_WINDOWS",
                                             "TIME_LIMIT_PER_SAMPLE_S"}
    assert all(callable(getattr(Simulator, name)) for name in INTERFACE_FUNCTIONS)


@pytest.mark.parametrize("name", sorted(runner.SIMULATORS))
def test_every_simulator_module_provides_the_interface(name):
    module = runner.SIMULATORS[name]
    for attribute, kind in interface_attributes().items():
        assert isinstance(getattr(module, attribute, None), {"str": str, "bool": bool, "float": float}[kind]), \
            f"{module.__name__} lacks {attribute} ({kind})"
    assert module.NAME == name
    assert module.UNIT in catalog.UNITS
    assert module.ELF_MACHINE in elf.MACHINES
    for function in INTERFACE_FUNCTIONS:
        provided = getattr(module, function, None)
        assert callable(provided), f"{module.__name__} lacks {function}"
        wanted = [p for p in inspect.signature(getattr(Simulator, function)).parameters if p != "self"]
        assert list(inspect.signature(provided).parameters) == wanted, f"{module.__name__}.{function}"


def test_the_registry_holds_the_three_modules_under_the_names_a_board_may_give():
    assert runner.SIMULATORS == {"qemu": qemu, "simavr": simavr, "verilator": verilator}
    assert tuple(runner.SIMULATORS) == catalog.SIMULATORS


def test_every_board_counts_in_its_simulators_own_unit():
    for target in catalog.current().targets.values():
        assert target.unit == runner.simulator_of(target).UNIT, target.name


def test_a_target_on_an_unknown_simulator_is_refused_naming_the_known_ones():
    board = catalog.TARGETS["mps2-an385"]
    with pytest.raises(UnknownName) as error:
        runner.simulator_of(replace(board, simulator="gem5"))
    said = str(error.value)
    assert "mps2-an385 runs on 'gem5'" in said and "must be one of qemu, simavr, verilator" in said
    assert error.value.exit_status == 2


BOARD = """
    name = "broken"
    summary = "a board on a simulator switchscope has no module for"
    cpu = "cortex-m3"
    f_cpu_hz = 1_000_000
    flash_bytes = 1024
    ram_bytes = 1024
    [simulator]
    name = "gem5"
    unit = "instructions"
    [stamp]
    timer = "SysTick"
    clock_hz = 1_000_000
"""


def test_a_board_toml_naming_an_unknown_simulator_is_refused_with_the_known_ones(tmp_path, monkeypatch, capsys):
    (tmp_path / "include" / "switchscope").mkdir(parents=True)
    (tmp_path / "include" / "switchscope" / "kernel.h").write_text("")
    (tmp_path / "boards" / "broken").mkdir(parents=True)
    (tmp_path / "boards" / "broken" / "board.toml").write_text(textwrap.dedent(BOARD))
    monkeypatch.setenv("SWITCHSCOPE_FIRMWARE", str(tmp_path))
    with pytest.raises(SwitchscopeError, match="'simulator.name' must be one of qemu, simavr, verilator"):
        catalog.select_targets("all")
    status, said = run_command(["list", "targets"], capsys)
    assert status == 2 and "boards/broken/board.toml" in said and "qemu, simavr, verilator" in said, said
    assert "Traceback" not in said


def replay_module(recording, events, pins):
    """A fourth simulator, whole: it replays a recorded stream, event log and pin log with `cat`."""
    module = types.ModuleType("replay")
    module.NAME, module.UNIT, module.ELF_MACHINE, module.COUNTS = "replay", "cycles", "EM_ARM", "cycles, replayed"

    def start(request):
        copy = f"cat {recording}"
        if request.watches:
            copy += f" && cp {events} {request.event_log}"
        if request.watch_scope_pin:
            copy += f" && cp {pins} {request.pin_log}"
        return ["sh", "-c", copy + " && echo 'replay: exit 3' >&2"]

    module.start = start
    module.provenance = lambda request: ("replay 1.0", f"{request.samples} samples")
    module.scope_edges = pin_log_edges
    module.outcome = lambda returncode, stderr: (3, None) if "exit 3" in stderr else (None, "no exit said")
    return module


def test_a_module_added_to_the_registry_is_what_runner_runs(tmp_path, monkeypatch):
    frames = [encode_record(bytes([HELLO, PROTOCOL_VERSION])), encode_record(bytes([META]) + b"scenario=yield")]
    frames += [encode_record(struct.pack("<BIIIHB", SAMPLE, seq, 1000, 900 - seq, 0, 0)) for seq in range(3)]
    frames.append(encode_record(struct.pack("<BI", END, 3)))
    recording = tmp_path / "stream.bin"
    recording.write_bytes(b"".join(frames))
    (tmp_path / "events.txt").write_text("10 from\n25 to\n30 end\n")
    (tmp_path / "pins.txt").write_text("5 LED 1\n9 LED 1\n12 LED 0\n")
    replay = replay_module(recording, tmp_path / "events.txt", tmp_path / "pins.txt")
    monkeypatch.setitem(runner.SIMULATORS, "replay", replay)
    target = replace(catalog.TARGETS["mps2-an385"], simulator="replay")

    output = runner.run(target, tmp_path / "fw.elf", [], 3, 30.0, watches=[(0x100, "from"), (0x200, "to")],
                        watch_scope_pin=True)
    assert [s.end for s in output.stream.samples] == [900, 899, 898] and output.stream.complete
    assert (output.exit_code, output.stopped, output.simulator, output.options) == (3, None, "replay 1.0", "3 samples")
    assert list(output.events.time) == [10, 25] and output.events.names == ["from", "to"]
    assert [(e.time, e.level) for e in output.edges] == [(5, 1), (12, 0)]  # the repeated high is no edge
    assert output.command[0] == "sh" and str(recording) in output.command[2]
