"""The Verilator runner (run/verilator.py): its command line, how it reads the
harness's end, and the harness's run-control options on the Ibex model."""

import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from switchscope import catalog
from switchscope.build import native
from switchscope.build import verilator as model
from switchscope.run import runner, verilator
from conftest import ibex_script



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


@pytest.fixture(scope="module")
def timing():
    """The prototype's timing program and its mark_ labels."""
    elf = ibex_script("programs").build("timing")
    return elf, ibex_script("run").symbols(elf, "mark_")


@pytest.mark.firmware
def test_limit_ends_the_run_and_the_log_says_limit(timing, tmp_path):
    elf, marks = timing
    log = tmp_path / "events.txt"
    watches = [f"{name}={address:#x}" for name, address in marks.items()]
    result = subprocess.run([str(model.ensure("small")), "--log", str(log), "--limit", "3",
                             *(w for watch in watches for w in ("--watch", watch)), str(elf)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and "stop or limit reached" in result.stderr, result.stderr
    lines = log.read_text().splitlines()
    assert len(lines) == 4 and lines[-1].endswith(" limit")


@pytest.mark.firmware
def test_stop_ends_after_the_intervals_from_to(timing, tmp_path):
    elf, marks = timing
    log = tmp_path / "events.txt"
    result = subprocess.run([str(model.ensure("small")), "--log", str(log), "--stop", "1",
                             "--watch", f"from={marks['mark_alu']:#x}", "--watch", f"to={marks['mark_load']:#x}",
                             "--watch", f"after={marks['mark_end']:#x}", str(elf)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and "stop or limit reached" in result.stderr
    assert [line.split()[1] for line in log.read_text().splitlines()] == ["from", "to"]  # stopped before "after"


@pytest.mark.firmware
def test_parameters_outside_the_ram_are_refused(timing):
    elf, _marks = timing
    bad = subprocess.run([str(model.ensure("small")), "--parameters-at", "0x10", "--parameters", "x", str(elf)],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--parameters needs --parameters-at inside the RAM" in bad.stderr


def test_the_models_top_is_simple_systems_with_its_interrupt_lines_as_inputs(tmp_path):
    """The top is derived from the package's at build time: the lines it ties to 0 become input ports."""
    root, _version = model.package_root()
    top = model.interrupt_top(root, tmp_path).read_text()
    assert "input IO_IRQ_SOFTWARE" in top and "input [14:0] IO_IRQ_FAST" in top and "input IO_IRQ_NM" in top
    assert ".irq_software_i         (IO_IRQ_SOFTWARE)" in top and ".irq_nm_i               (IO_IRQ_NM)" in top
    assert ".irq_external_i         (1'b0)" in top  # the lines nothing drives stay tied off
    assert top.count("module ibex_simple_system") == 1  # the same name: the harness's hierarchy is unchanged


def test_a_top_without_the_tied_off_line_is_refused_naming_the_file(monkeypatch, tmp_path):
    package = tmp_path / "package"
    source = package / model.TOP_FILE
    source.parent.mkdir(parents=True)
    root, _version = model.package_root()
    source.write_text((root / model.TOP_FILE).read_text().replace(".irq_nm_i               (1'b0)",
                                                                    ".irq_nm_i               (nmi)"))
    with pytest.raises(model.SwitchscopeError, match="irq_nm_i is not tied to 0 exactly once") as raised:
        model.interrupt_top(package, tmp_path / "out")
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
    import shutil
    import time

    from conftest import run_command
    (tmp_path / "loop.S").write_text(LOOP)
    (tmp_path / "loop.ld").write_text("ENTRY(_start)\nSECTIONS { . = 0x100080; .boot : { *(.boot) } }\n")
    subprocess.run([shutil.which(catalog.TARGETS["ibex"].gcc), "-march=rv32imc", "-mabi=ilp32", "-nostdlib",
                    "-nostartfiles", "-T", str(tmp_path / "loop.ld"), str(tmp_path / "loop.S"), "-o",
                    str(tmp_path / "loop.elf")], check=True)
    monkeypatch.chdir(tmp_path)
    model.ensure("small")  # built before the clock starts: a fresh checkout builds it once
    started = time.monotonic()
    status, said = run_command(["measure", "loop.elf", "--target", "ibex", "--from", "never", "--to", "never2",
                                "--count", "100"], capsys)
    assert status != 0 and "Traceback" not in said, said
    assert "--from never (0x100082) was reached 0 time(s)" in said and "Illegal instruction" not in said, said
    assert "the firmware did not finish within 21 s and was stopped" in said
    assert time.monotonic() - started < 60
