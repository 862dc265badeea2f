"""The oscilloscope method: probe and scope agree on every scenario of both
targets, the VCD opens in the real sigrok-cli, and `analyze` gives the same
figures from a VCD, a sigrok session and a sigrok CSV of the same run."""

import dataclasses
import json
import shutil
import subprocess

import pytest

from switchscope import catalog
from switchscope.catalog import configs
from switchscope.catalog.job import Job
from switchscope.cli import main
from switchscope.decode.capture_files import CaptureError
from switchscope.figures.capture import analyze
from switchscope.figures.measure import measure

from conftest import core_alone, layout_blind

pytestmark = pytest.mark.firmware  # every test here builds and runs firmware

SWITCH_SCENARIOS = [name for name, s in catalog.SCENARIOS.items() if not s.check and not s.latency and not s.suite]
FREERTOS_TARGETS = catalog.KERNELS["freertos"].targets
# one VCD time step per sigrok sample: one cycle (625 x 100 ps at 16 MHz, 400 x 100 ps at 25 MHz)
SIGROK_DOWNSAMPLE = {name: catalog.TARGETS[name].vcd_scale(catalog.TARGETS[name].resolve_unit(None))[1]
                     for name in FREERTOS_TARGETS}
# cycles per second of the trace: the clock, or 1 GHz where a VCD step is a cycle (24 MHz, 168 MHz: periods
# that are no whole number of picoseconds)
CLOCK = {name: catalog.TARGETS[name].f_cpu_hz if SIGROK_DOWNSAMPLE[name] > 1 else 10**9 for name in FREERTOS_TARGETS}
PIN = {name: catalog.TARGETS[name].scope_pin for name in FREERTOS_TARGETS}


def job(scenario, target, method, chosen=None):
    kernel, board, chosen_scenario = catalog.KERNELS["freertos"], catalog.TARGETS[target], catalog.SCENARIOS[scenario]
    config = configs.resolve(chosen, kernel, board, chosen_scenario) if chosen else None
    return Job(kernel, board, chosen_scenario, catalog.METHODS[method], config=config)


def kept_by_seq(result, samples):
    """sequence number -> value of every sample the run kept (the excluded ones are listed by seq)."""
    excluded = {e["seq"] for e in result.excluded_samples}
    return dict(zip([seq for seq in range(samples) if seq not in excluded], result.samples))


# the quick tests take each simulator and core model once (simavr's AVR, QEMU's Cortex-M3 and M4); the
# boards that add neither run in the whole suite
SMOKE_TARGETS = ("atmega328p", "mps2-an385", "mps2-an386")
# The three methods agree sample for sample where the core's cost of an instruction does not depend on where the
# code lies, and each method's build lays the code out differently (conftest.layout_blind)
LAYOUT_BLIND_TARGETS = layout_blind(FREERTOS_TARGETS)


@pytest.mark.parametrize("target", [pytest.param(name, marks=[pytest.mark.smoke] if name in SMOKE_TARGETS else [])
                                    for name in LAYOUT_BLIND_TARGETS])
@pytest.mark.parametrize("scenario", SWITCH_SCENARIOS)
def test_probe_scope_and_marker_agree_sample_for_sample(scenario, target):
    # On a chip whose flash is modelled, the core alone: with the chip's wait states the probe's stamps and the
    # scope's pin stores wait on fetches and literals of their own that their calibration, run on warm lines,
    # cannot take out, and they read a few cycles off the marker (docs/flash.md, "The methods, with a memory
    # model"): every method's build is one layout, and here that makes them agree
    alone = core_alone(catalog.TARGETS[target])
    probe = measure(job(scenario, target, "probe", alone), samples=100)
    scope = measure(job(scenario, target, "scope", alone), samples=100)
    marker = measure(job(scenario, target, "marker", alone), samples=100)
    for result in (probe, scope, marker):
        assert result.count + result.excluded == 100
    # Which windows are left out differs between the three builds: the tick falls into other
    # windows of rotate, which does not wait for it, and the probe alone leaves out a window in
    # which its timer wrapped (on the ATmega328P, where Timer1 is not the tick): compare the
    # windows all three kept, sample for sample. Not the medians: a rotation whose two directions
    # differ splits its samples about evenly between two values, and which one the median is is chance.
    kept = [kept_by_seq(result, 100) for result in (probe, scope, marker)]
    common = sorted(set(kept[0]) & set(kept[1]) & set(kept[2]))
    assert len(common) >= (80 if scenario == "rotate" else 95)
    assert [kept[0][seq] for seq in common] == [kept[1][seq] for seq in common] == [kept[2][seq] for seq in common]
    assert scope.scope["pin"] == PIN[target]
    assert scope.overhead > 0  # the bare pulse
    assert marker.overhead == 0


def test_the_scope_ruler_reads_exactly_n(tmp_path):
    result = measure(job("ruler", "atmega328p", "scope"), samples=70)
    blocks = [0, 1, 2, 3, 10, 100, 1000]
    assert result.samples == [blocks[seq % 7] for seq in range(70)]
    assert result.overhead == 2  # sbi then cbi: the pin's own cost


@pytest.fixture(scope="module")
def sigrok_cli():
    path = shutil.which("sigrok-cli")
    assert path, "sigrok-cli is part of the set-up (Debian package sigrok-cli)"
    return path


@pytest.mark.parametrize("target", list(catalog.KERNELS["freertos"].targets))
def test_analyze_gives_the_run_figures_from_vcd_sr_and_csv(tmp_path, sigrok_cli, target):
    vcd = tmp_path / "trace.vcd"
    result = measure(job("resume", target, "scope"), samples=12, vcd=vcd)
    session, csv_plain, csv_timed = tmp_path / "trace.sr", tmp_path / "trace.csv", tmp_path / "trace-timed.csv"
    subprocess.run([sigrok_cli, "-I", f"vcd:downsample={SIGROK_DOWNSAMPLE[target]}", "-i", str(vcd),
                    "-o", str(session)], check=True)
    if target == "mps2-an385":
        subprocess.run([sigrok_cli, "-i", str(session), "-O", "csv"], stdout=csv_plain.open("w"), check=True)
    subprocess.run([sigrok_cli, "-i", str(session), "-O", "csv:time=true:dedup=true"],
                   stdout=csv_timed.open("w"), check=True)
    # a plain CSV has a row per sample: millions for the AVR's 15 ms ticks, so
    # that form is read on the short Cortex-M3 trace only
    captures = (vcd, session, csv_timed) + ((csv_plain,) if target == "mps2-an385" else ())
    for capture in captures:
        found = analyze(capture, PIN[target], CLOCK[target])
        assert found.samples == result.samples, capture.name
        assert found.overhead == result.overhead, capture.name


def test_analyze_on_the_command_line_writes_the_same_json_layout(tmp_path, capsys):
    vcd = tmp_path / "trace.vcd"
    assert main(["run", "--target", "atmega328p", "--scenario", "yield", "--method", "scope", "--samples", "5",
                 "--vcd", str(vcd), "--quiet"]) == 0
    out = tmp_path / "capture.json"
    assert main(["analyze", str(vcd), "--channel", "B5", "--clock", "16000000", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "unit: cycles" in printed and "in µs" in printed
    (written,) = json.loads(out.read_text())["results"]
    assert set(written["stats"]) == {"min", "median", "mode", "mean", "max", "stddev", "p99"}
    assert written["count"] == 5 and written["channel"] == "B5" and written["unit"] == "cycles"


class TestCaptureErrors:
    @pytest.fixture(scope="class")
    def capture(self, tmp_path_factory, sigrok_cli):
        folder = tmp_path_factory.mktemp("capture")
        vcd = folder / "trace.vcd"
        measure(job("resume", "atmega328p", "scope"), samples=4, vcd=vcd)
        session = folder / "trace.sr"
        subprocess.run([sigrok_cli, "-I", "vcd:downsample=625", "-i", str(vcd), "-o", str(session)], check=True)
        coarse = folder / "coarse.sr"  # 8 MHz: the 2-cycle bare pulse is one sample wide
        subprocess.run([sigrok_cli, "-I", "vcd:downsample=1250", "-i", str(vcd), "-o", str(coarse)], check=True)
        return vcd, session, coarse

    def test_a_channel_that_does_not_exist_lists_the_ones_that_do(self, capture):
        vcd, session, _ = capture
        for path in (vcd, session):
            with pytest.raises(CaptureError, match="has no channel 'LED'") as error:
                analyze(path, "LED")
            assert "its channels: B5" in str(error.value)

    def test_a_truncated_session_file(self, capture, tmp_path):
        _, session, _ = capture
        cut = tmp_path / "cut.sr"
        cut.write_bytes(session.read_bytes()[: session.stat().st_size // 2])
        with pytest.raises(CaptureError, match="not a complete sigrok session file"):
            analyze(cut, "B5")

    def test_a_vcd_cut_mid_line(self, capture, tmp_path):
        vcd, _, _ = capture
        cut = tmp_path / "cut.vcd"
        cut.write_text(vcd.read_text()[:-3])
        with pytest.raises(CaptureError, match="ends in the middle of a line"):
            analyze(cut, "B5")

    def test_a_capture_with_no_complete_pattern(self, capture, tmp_path):
        vcd, _, _ = capture
        lines = vcd.read_text().splitlines()
        first_pulse_ends = lines.index("0!", lines.index("1!"))  # keep only the first bare pulse
        cut = tmp_path / "one-pulse.vcd"
        cut.write_text("\n".join(lines[: first_pulse_ends + 1]) + "\n")
        with pytest.raises(CaptureError, match="no complete A-B-C-D pattern"):
            analyze(cut, "B5")

    def test_a_sample_rate_too_coarse_for_the_pulses(self, capture):
        _, _, coarse = capture
        with pytest.raises(CaptureError, match="sample rate is too coarse") as error:
            analyze(coarse, "B5", 16_000_000)
        assert "at least 16 MHz" in str(error.value)

    def test_not_a_capture_at_all(self, tmp_path):
        junk = tmp_path / "notes.txt"
        junk.write_text("hello\n")
        with pytest.raises(CaptureError, match="not a VCD, sigrok session"):
            analyze(junk, "B5")


def test_analyze_reads_the_time_base_of_switchscopes_own_vcd(tmp_path):
    # a VCD in cycles states its clock (40 ns a cycle at 25 MHz); one in QEMU instructions
    # (256 ns of virtual time each) can never be read as cycles
    in_cycles, in_instructions = tmp_path / "cycles.vcd", tmp_path / "instructions.vcd"
    cycles = measure(job("yield", "mps2-an385", "scope"), samples=5, vcd=in_cycles)
    instructions = measure(dataclasses.replace(job("yield", "mps2-an385", "scope"), unit="instructions"), samples=5,
                           vcd=in_instructions)
    found = analyze(in_cycles, "LED0")
    assert (found.unit, found.samples, found.f_cpu_hz) == ("cycles", cycles.samples, 25_000_000)
    found = analyze(in_instructions, "LED0")
    assert (found.unit, found.samples) == ("instructions", instructions.samples)
    with pytest.raises(CaptureError, match="counts QEMU instructions"):
        analyze(in_instructions, "LED0", 25_000_000)
    with pytest.raises(CaptureError, match="counts cycles of 25 MHz, not of 16 MHz"):
        analyze(in_cycles, "LED0", 16_000_000)
