"""The Verilator runner (run/verilator.py): its command line, how it reads the
harness's end, and the harness's run-control options and refusals on the Ibex model."""

import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from ibex_checks import assembled
from switchscope import catalog
from switchscope.build import native
from switchscope.build import verilator as model
from switchscope.run import runner, verilator


def ibex_target(config="small"):
    """A target on Verilator, made from a board of the catalog (the runner reads only these fields)."""
    board = next(iter(catalog.current().targets.values()))
    return replace(board, name=f"ibex-{config}", simulator="verilator", unit="cycles", core_config=config)


@pytest.fixture
def fake_model(monkeypatch, tmp_path):
    binary = tmp_path / "ibex-sim"
    monkeypatch.setattr(model, "ensure", lambda config: binary)
    return binary


def test_verilator_is_a_simulator_a_board_can_name():
    from switchscope.catalog.model import SIMULATORS
    assert "verilator" in SIMULATORS


def test_the_command_passes_the_parameters_into_the_boards_buffer(fake_model, monkeypatch, tmp_path):
    monkeypatch.setattr(verilator.elf, "symbols", lambda path: {"board_host_parameters": 0x101000})
    line = verilator.command(ibex_target(), tmp_path / "fw.elf", ["samples=10", "seed=1"], 10, [], None, 100, None)
    assert line[0] == str(fake_model) and line[-1] == str(tmp_path / "fw.elf")
    assert line[line.index("--parameters-at") + 1] == "0x101000"
    assert line[line.index("--parameters") + 1] == "ss:samples=10 seed=1"
    assert "--log" not in line  # nothing watched, no log


def test_the_command_watches_in_the_harness_syntax_with_limit_and_stop(fake_model, monkeypatch, tmp_path):
    monkeypatch.setattr(verilator.elf, "symbols", lambda path: {})
    line = verilator.command(ibex_target(), tmp_path / "any.elf", [], 5, [(0x100200, "from"), (0x100280, "to")],
                             tmp_path / "events.txt", 1234, 5)
    assert "--parameters" not in line  # a user's own ELF has no buffer
    assert line[line.index("--log") + 1] == str(tmp_path / "events.txt")
    assert line[line.index("--limit") + 1] == "1234" and line[line.index("--stop") + 1] == "5"
    watched = [line[i + 1] for i, word in enumerate(line) if word == "--watch"]
    assert watched == ["from=0x100200", "to=0x100280"]


@pytest.mark.parametrize("status, stderr, expected", [
    (0, "ibex-sim: halted code=0 after 900 cycles, 500 instructions retired\n", (0, None)),
    (0, "ibex-sim: halted code=3 after 900 cycles, 500 instructions retired\n", (3, None)),
    (0, "ibex-sim: stop or limit reached after 900 cycles, 500 instructions retired\n", (0, None)),
])
def test_the_harness_end_gives_the_firmwares_exit_code(status, stderr, expected):
    assert verilator.outcome(status, stderr) == expected


def test_a_cycle_bound_or_a_failure_is_said():
    code, stopped = verilator.outcome(1, "ibex-sim: cycle bound reached after 5000 cycles, 10 instructions retired\n")
    assert code is None and "cycle budget (5000 cycles)" in stopped and "never finished" in stopped
    code, stopped = verilator.outcome(2, "ibex-sim: cannot open x.elf\nfix: give an existing ELF file\n")
    assert code is None and "harness failed (exit 2): fix: give an existing ELF file" in stopped


def test_native_ensure_builds_the_model_of_the_configuration(monkeypatch):
    asked = []
    monkeypatch.setattr(model, "ensure", lambda config: asked.append(config) or Path("/model"))
    assert native.ensure("verilator", "maxperf") == Path("/model") and asked == ["maxperf"]


def test_runner_dispatches_a_verilator_board_to_its_module(monkeypatch, tmp_path):
    """runner.run hands a Verilator target to run/verilator.py and reads its end there."""
    monkeypatch.setattr(verilator, "command", lambda *a: ["true"])
    monkeypatch.setattr(verilator, "provenance", lambda target: ("Ibex RTL", "no timing model"))
    monkeypatch.setattr(runner, "_collect", lambda command, *a: (runner.StreamDecoder().finish(), 0,
                                                                   "ibex-sim: halted code=7 after 1 cycles\n", 0.1))
    output = runner.run(ibex_target(), tmp_path / "fw.elf", [], 1, 5.0)
    assert (output.exit_code, output.stopped, output.simulator) == (7, None, "Ibex RTL")


# Three watched points in a loop that never ends, at simple_system's boot address (0x100080).
LAPS = """
    .section .boot, "ax"
    .globl _start, first, second, third
_start:
first:
    nop
second:
    nop
third:
    nop
    j _start
"""


@pytest.fixture(scope="module")
def laps(tmp_path_factory):
    """The LAPS program and its three points' addresses."""
    from switchscope.decode import elf

    program = assembled(tmp_path_factory.mktemp("laps"), LAPS)
    found = elf.symbols(program)
    return program, {name: found[name] for name in ("first", "second", "third")}


def ibex_sim(*arguments, timeout=120):
    return subprocess.run([str(model.ensure("small")), *map(str, arguments)], capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.firmware
def test_limit_ends_the_run_and_the_log_says_limit(laps, tmp_path):
    program, points = laps
    log = tmp_path / "events.txt"
    watches = [item for name, address in points.items() for item in ("--watch", f"{name}={address:#x}")]
    result = ibex_sim("--log", log, "--limit", 3, *watches, program)
    assert result.returncode == 0 and "stop or limit reached" in result.stderr, result.stderr
    lines = log.read_text().splitlines()
    assert [line.split()[1] for line in lines] == ["first", "second", "third", "limit"]


@pytest.mark.firmware
def test_stop_ends_after_the_intervals_from_to(laps, tmp_path):
    program, points = laps
    log = tmp_path / "events.txt"
    result = ibex_sim("--log", log, "--stop", 1, "--watch", f"from={points['first']:#x}",
                      "--watch", f"to={points['second']:#x}", "--watch", f"after={points['third']:#x}", program)
    assert result.returncode == 0 and "stop or limit reached" in result.stderr
    assert [line.split()[1] for line in log.read_text().splitlines()] == ["from", "to"]  # stopped before "after"


@pytest.mark.firmware
def test_the_cycle_bound_ends_a_run_with_status_1(laps):
    result = ibex_sim("--max-cycles", 500, laps[0])
    assert result.returncode == 1 and "cycle bound reached after 500 cycles" in result.stderr, result.stderr


@pytest.mark.firmware
def test_parameters_outside_the_ram_are_refused(laps):
    bad = ibex_sim("--parameters-at", "0x10", "--parameters", "x", laps[0], timeout=60)
    assert bad.returncode == 2 and "--parameters needs --parameters-at inside the RAM" in bad.stderr


@pytest.mark.firmware
@pytest.mark.parametrize("arguments, fragment", [
    ((), "no program given"),
    (("/nonexistent.elf",), "cannot open /nonexistent.elf"),
    (("--watch", "nameless", "x.elf"), "is not NAME=ADDRESS"),
    (("--max-cycles", "-5", "x.elf"), "is not a number"),
    (("--trace", "t", "x.elf"), "built without Ibex's tracer"),
    (("--frobnicate",), "unknown option --frobnicate"),
])
def test_the_harness_refuses_bad_usage_with_status_2(arguments, fragment):
    result = ibex_sim(*arguments, timeout=60)
    assert result.returncode == 2 and fragment in result.stderr and "fix:" in result.stderr, result.stderr


@pytest.mark.firmware
def test_the_harness_refuses_a_file_that_is_not_an_rv32_elf(tmp_path):
    (tmp_path / "notes.elf").write_text("not an ELF at all, just text long enough to hold a header......")
    result = ibex_sim(tmp_path / "notes.elf", timeout=60)
    assert result.returncode == 2 and "not a 32-bit little-endian RISC-V ELF" in result.stderr


def test_the_models_top_is_simple_systems_with_its_interrupt_lines_as_inputs(tmp_path):
    """The top is derived from the package's at build time: the lines it ties to 0 become input ports, and its
    RAM takes each port's requests through a wait-state gate the harness sets."""
    root, _version = model.package_root()
    top = model.harness_top(root, tmp_path).read_text()
    assert "input IO_IRQ_SOFTWARE" in top and "input [14:0] IO_IRQ_FAST" in top and "input IO_IRQ_NM" in top
    assert ".irq_software_i         (IO_IRQ_SOFTWARE)" in top and ".irq_nm_i               (IO_IRQ_NM)" in top
    assert ".irq_external_i         (1'b0)" in top  # the lines nothing drives stay tied off
    assert top.count("module ibex_simple_system") == 1  # the same name: the harness's hierarchy is unchanged
    assert "input [7:0] IO_FETCH_WAIT_STATES" in top and "input [7:0] IO_DATA_WAIT_STATES" in top
    assert "assign instr_gnt = instr_req & fetch_ready;" in top  # simple_system grants every fetch at once
    assert "instr_req & instr_gnt" in top and "host_gnt[CoreD] & data_ready" in top  # the RAM takes granted ones


def test_a_top_without_the_tied_off_line_is_refused_naming_the_file(monkeypatch, tmp_path):
    package = tmp_path / "package"
    source = package / model.TOP_FILE
    source.parent.mkdir(parents=True)
    root, _version = model.package_root()
    source.write_text((root / model.TOP_FILE).read_text().replace(".irq_nm_i               (1'b0)",
                                                                    ".irq_nm_i               (nmi)"))
    with pytest.raises(model.SwitchscopeError, match="irq_nm_i is not tied to 0 exactly once") as raised:
        model.harness_top(package, tmp_path / "out")
    assert str(source) in str(raised.value) and "INTERRUPT_PORTS" in raised.value.hint


LOOP = """
    .section .boot, "ax"
    .globl _start
_start:
    j _start
never:
    nop
never2:
    nop
"""


@pytest.mark.firmware
def test_a_point_the_rtl_never_reaches_ends_the_run_at_its_time_limit_with_the_reason(tmp_path, monkeypatch, capsys):
    """A firmware that spins (at simple_system's boot address, 0x100080) before either point: the run is stopped at its time limit (20 s and 10 ms a
    count, as on QEMU at its own allowance), and says which point was never reached."""
    import time

    from conftest import run_command
    assembled(tmp_path, LOOP)
    monkeypatch.chdir(tmp_path)
    model.ensure("small")  # built before the clock starts: a fresh checkout builds it once
    started = time.monotonic()
    status, said = run_command(["measure", "program.elf", "--target", "ibex", "--from", "never", "--to", "never2",
                                "--count", "100"], capsys)
    assert status != 0 and "Traceback" not in said, said
    assert "--from never (0x100082) was reached 0 time(s)" in said and "Illegal instruction" not in said, said
    assert "the firmware did not finish within 21 s and was stopped" in said
    assert time.monotonic() - started < 60
