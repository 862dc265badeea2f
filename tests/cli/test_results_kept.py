"""Results are never lost and nothing hangs or ends in a traceback: a reader of standard output that goes
away or a standard output closed from the start ends only the printing (every file is written first, and
the exit status says how the measuring went); a count too large for the firmware is refused like a sample
count; a results file no run writes (empty samples, a number no float holds, samples outside their own TRM
range, a damaged switches block) is refused by compare, report and sweep --resume alike, naming the file
and the field; and off a terminal, every finished measurement is a line on stderr."""

import errno
import io
import json
import os
import subprocess
import sys

import pytest

from conftest import lay_out, refused_cleanly, run_command
from switchscope.decode import stats

COMMAND = [sys.executable, "-m", "switchscope"]

VCD = """$timescale 1 ns $end
$scope module top $end
$var wire 1 ! D13 $end
$upscope $end
$enddefinitions $end
#0
0!
""" + "".join(f"#{t}\n1!\n#{t + 100}\n0!\n#{t + 200}\n1!\n#{t + 350}\n0!\n" for t in range(1000, 20000, 1000))

GOOD = {"scenario": "yield", "method": "probe", "unit": "cycles", "samples": [124, 124, 125], "overhead": 8,
        "first": 124, "kernel": "freertos", "target": "mps2-an385", "options": {"preemption": "on"}}


def results_file(*results: dict) -> str:
    return json.dumps({"results": list(results)})


BAD_RESULTS = [  # (a result no run writes, what names its field)
    ({**GOOD, "samples": []}, "results[0].samples"),
    ({**GOOD, "samples": [124, 10**400]}, "results[0].samples[1]: an integer of 401 digits is too large"),
    ({**GOOD, "samples": [124, 10**30]}, "results[0].samples[1]: an integer of 31 digits is too large"),
    ({**GOOD, "overhead": 10**400}, "results[0].overhead: an integer of 401 digits is too large"),
    ({**GOOD, "f_cpu_hz": 1e300}, "results[0].f_cpu_hz: 1e+300 is too large"),
]


@pytest.mark.parametrize("command", ["compare", "report"])
@pytest.mark.parametrize("result, fragment", BAD_RESULTS, ids=[fragment[:40] for _, fragment in BAD_RESULTS])
def test_a_result_no_reader_can_work_with_is_refused_naming_the_file_and_field(tmp_path, monkeypatch, capsys,
                                                                               command, result, fragment):
    arguments = ["compare", "good.json", "bad.json"] if command == "compare" else \
        ["report", "bad.json", "--html", "page.html"]
    said = refused_cleanly(tmp_path, {"good.json": results_file(GOOD), "bad.json": results_file(result)},
                           arguments, 2, fragment, monkeypatch, capsys)
    assert "bad.json" in said


SWITCHES = {"kind": "switches", "scenario": "switches", "method": "marker", "unit": "cycles",
            "samples": [113, 113, 120, 113], "overhead": 0, "first": 113, "kernel": "freertos",
            "target": "mps2-an385", "cpu": "cortex-m3", "f_cpu_hz": 25000000, "source": "app.elf",
            "timing_model": "cortex-m3", "simulator": {"name": "QEMU emulator version 10.0.2"},
            "switches": {"current": "pxCurrentTCB", "switch_path": ["PendSV_Handler"], "tasks": ["consume", "produce"],
                         "causes": ["tick", "call in xQueueReceive"],
                         "samples": [[0, 1, 0], [1, 0, 1], [0, 1, 1], [1, 0, 0]],
                         "least": [108, 108, 110, 108], "most": [128, 128, 135, 128],
                         "starts": [10, 200, 400, 600], "ends": [123, 313, 520, 713],
                         "unswitched": 0, "asked": 4, "stopped": None}}


def damaged(**block) -> dict:
    """SWITCHES with its switches block changed (a value of None: the field removed)."""
    changed = {**SWITCHES["switches"], **block}
    return {**SWITCHES, "switches": {key: value for key, value in changed.items() if value is not None}}


DAMAGED_SWITCHES = [  # (a damaged block, what names the field); each raised in the report's view before
    (damaged(tasks=[]), "results[0].switches.tasks: [] should be non-empty"),  # ZeroDivisionError
    (damaged(causes=[]), "results[0].switches.causes: [] should be non-empty"),
    (damaged(current=None), "results[0].switches: 'current' is a required property"),  # KeyError
    (damaged(switch_path=None), "results[0].switches: 'switch_path' is a required property"),
    (damaged(samples=[[0, 1, 0], [1, 5, 1], [0, 1, 1], [1, 0, 0]]), "switches.samples[1]: [1, 5, 1] is not"),
    (damaged(samples=[[0, 1, 0], [1, 0, 1], [0, 1, 7], [1, 0, 0]]), "switches.samples[2]: [0, 1, 7] is not"),
    (damaged(samples=[[0, 1, 0], [1, 0, 1], [0, 1, 1]]), "switches.samples has 3 entries for 4 samples"),
    (damaged(most=None), "switches.least and switches.most must both be absent"),  # TypeError
    (damaged(least=[108, 108]), "switches.least and switches.most must both be absent"),  # IndexError
    (damaged(starts=[10, 200, 400, 600, 800], ends=[123, 313, 520, 713, 900]), "switches.starts and"),
    (damaged(ends=[123]), "switches.starts and switches.ends must hold as many times"),  # IndexError
    ({key: value for key, value in SWITCHES.items() if key != "switches"},
     "results[0]: 'switches' is a required property"),  # KeyError
]


def test_report_shows_a_whole_switches_block(tmp_path, monkeypatch, capsys):
    lay_out(tmp_path, {"switches.json": results_file(SWITCHES)})
    monkeypatch.chdir(tmp_path)
    status, said = run_command(["report", "switches.json", "--html", "page.html"], capsys)
    assert status == 0, said
    page = (tmp_path / "page.html").read_text()
    assert "freertos task switches" in page and "consume -&gt; produce" in page


def forged(samples: list, restated: bool = False) -> dict:
    """A sweep's result of yield whose TRM range is 118-144 and whose samples were replaced by `samples`,
    its written statistics left as the run wrote them (`restated`: those of the new samples)."""
    figures = {"min": 124, "median": 124.0, "mode": 124, "mean": 124.0, "max": 124, "stddev": 0.0, "p99": 124}
    if restated:
        figures = stats.statistics(samples)
    bounds = {side: {key: (0.0 if key == "stddev" else value) for key in figures}
              for side, value in (("min", 118), ("max", 144))}
    return {**GOOD, "samples": samples, "first": samples[0], "timing_model": "cortex-m3", "bounds": bounds,
            "stats": figures}


@pytest.mark.parametrize("arguments", [
    ["compare", "good.json", "sweep.json"],
    ["report", "sweep.json", "--html", "page.html"],
    ["sweep", "--scenario", "yield", "--samples", "3", "--resume", "--json", "sweep.json"],
], ids=["compare", "report", "sweep --resume"])
def test_samples_outside_their_own_trm_range_are_refused_by_every_reader(tmp_path, monkeypatch, capsys, arguments):
    """One reader and one rule: what compare refuses as altered, sweep --resume does not keep."""
    files = {"good.json": results_file(forged([124, 124, 125], restated=True)),
             "sweep.json": results_file(forged([1, 1, 1]))}
    said = refused_cleanly(tmp_path, files, arguments, 2,
                           "sweep.json, result 0: the min of its samples, 1, lies outside its TRM range "
                           "('bounds': 118 to 144)", monkeypatch, capsys)
    if arguments[0] == "sweep":
        assert said.startswith("error: --resume: ") and "measure the sweep again into a new --json file" in said


def test_samples_inside_their_trm_range_are_read(tmp_path, monkeypatch, capsys):
    lay_out(tmp_path, {"base.json": results_file(forged([124, 124, 125], restated=True)),
                       "new.json": results_file(forged([124, 126, 143], restated=True))})
    monkeypatch.chdir(tmp_path)
    status, said = run_command(["compare", "base.json", "new.json"], capsys)
    assert status == 1 and "slower, inside the TRM range" in said, said


def test_measure_count_is_bounded_as_samples_are(tmp_path, monkeypatch, capsys):
    """A count the firmware cannot count to ran until it was killed; it is refused before any work."""
    said = refused_cleanly(tmp_path, {"app.elf": "not an ELF"},
                           ["measure", "app.elf", "--target", "mps2-an385", "--switches", "--kernel", "freertos",
                            "--count", "99999999999999999999"], 2,
                           "--count takes 1 to 4294967295, got 99999999999999999999", monkeypatch, capsys)
    assert "app.elf" not in said  # said before the firmware is even looked at


class ReaderGone(io.TextIOBase):
    """Standard output whose reader went away (switchscope ... | head -1): every write is a broken pipe."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise BrokenPipeError(errno.EPIPE, "Broken pipe")

    def flush(self) -> None:
        raise BrokenPipeError(errno.EPIPE, "Broken pipe")


# commands that print and write, with what each must have written
PRINTING_COMMANDS = [
    (["analyze", "capture.vcd", "--channel", "D13", "--json", "out.json"], ["out.json"]),
    (["compare", "base.json", "new.json", "--json", "out.json", "--junit", "out.xml"], ["out.json", "out.xml"]),
    (["report", "base.json", "--html", "page.html"], ["page.html"]),
]


@pytest.mark.parametrize("stdout", [ReaderGone, None], ids=["reader gone", "closed"])
@pytest.mark.parametrize("arguments, written", PRINTING_COMMANDS, ids=[a[0] for a, _ in PRINTING_COMMANDS])
def test_standard_output_gone_ends_the_printing_only(tmp_path, monkeypatch, capsys, stdout, arguments, written):
    lay_out(tmp_path, {"capture.vcd": VCD, "base.json": results_file(GOOD), "new.json": results_file(GOOD)})
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdout", stdout() if stdout else None)
    status, said = run_command(arguments, capsys)
    assert status == 0, said
    assert "Traceback" not in said and "Broken pipe" not in said and "error" not in said, said
    for name in written:
        assert (tmp_path / name).stat().st_size > 0, name
    if arguments[0] != "report":
        assert json.loads((tmp_path / "out.json").read_text())


def closed_pipe() -> int:
    """The writing end of a pipe whose reader is gone already: every write to it is a broken pipe."""
    reading, writing = os.pipe()
    os.close(reading)
    return writing


def run_process(arguments: list[str], cwd, stdout) -> subprocess.CompletedProcess:
    """switchscope ARGUMENTS as a process, standard output a closed pipe ("pipe") or closed (">&-")."""
    if stdout == ">&-":
        return subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", *COMMAND, *arguments], cwd=cwd,
                              stderr=subprocess.PIPE, text=True, timeout=600)
    writing = closed_pipe()
    try:
        return subprocess.run([*COMMAND, *arguments], cwd=cwd, stdout=writing, stderr=subprocess.PIPE, text=True,
                              timeout=600)
    finally:
        os.close(writing)


@pytest.mark.firmware
@pytest.mark.parametrize("stdout", ["pipe", ">&-"])
def test_run_writes_its_json_whatever_became_of_standard_output(tmp_path, stdout):
    done = run_process(["run", "--scenario", "yield", "--samples", "200", "--json", "p.json"], tmp_path, stdout)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    written = json.loads((tmp_path / "p.json").read_text())
    assert [result["count"] for result in written["results"]] == [200] and "incomplete" not in written
    # stderr is no terminal here: the finished measurement is a line of its own
    assert "[1/1] freertos yield, probe on mps2-an385: median 124 cycles (" in done.stderr, done.stderr


@pytest.mark.firmware
def test_a_sweep_whose_reader_went_away_finishes_its_json(tmp_path):
    done = run_process(["sweep", "--scenario", "yield", "--samples", "200,300", "--jobs", "1", "--json", "s.json"],
                       tmp_path, "pipe")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    written = json.loads((tmp_path / "s.json").read_text())
    assert "incomplete" not in written and [r["count"] for r in written["results"]] == [200, 300]
    assert "[2/2] freertos yield, probe on mps2-an385, 300 samples: median 124 cycles (" in done.stderr


MODEL_AS_RTL = {**GOOD, "target": "ibex", "cpu": "rv32imc", "f_cpu_hz": 50000000, "timing_model": "ibex-small",
                "simulator": {"name": "QEMU emulator version 10.0.2"}}  # ibex-qemu's cycles, relabelled


@pytest.mark.parametrize("relabelled, fragment", [
    (MODEL_AS_RTL, "a result of ibex timed by the ibex-small model, and it has no timing model in cycles"),
    ({**MODEL_AS_RTL, "timing_model": None},
     "a result of ibex measured on 'QEMU emulator version 10.0.2', and ibex runs on verilator"),
], ids=["timing model kept", "timing model removed"])
def test_sweep_resume_keeps_no_model_result_relabelled_as_the_rtls(tmp_path, monkeypatch, capsys, relabelled,
                                                                   fragment):
    """A timing model's result under the RTL's name would be kept as the RTL's measurement, and compared as one."""
    said = refused_cleanly(tmp_path, {"sweep.json": results_file(relabelled)},
                           ["sweep", "--target", "ibex", "--scenario", "yield", "--samples", "3", "--resume",
                            "--json", "sweep.json"], 2, fragment, monkeypatch, capsys)
    assert said.startswith("error: --resume: ") and "measure the sweep again into a new --json file" in said


# a whole result of FreeRTOS on mps2-an385 (firmware/boards/mps2-an385/board.toml: Cortex-M3, 25 MHz, 4 MiB
# of flash and of RAM), as run writes it
WHOLE = {**GOOD, "cpu": "cortex-m3", "f_cpu_hz": 25_000_000, "timing_model": "cortex-m3",
         "firmware": {"flash_bytes": 9000, "ram_bytes": 4000, "flash_limit": 4 * 2**20, "ram_limit": 4 * 2**20},
         "simulator": {"name": "QEMU emulator version 10.0.2"}}
STM32 = {"target": "stm32vldiscovery", "f_cpu_hz": 24_000_000}  # its board.toml: 24 MHz, 128 KiB flash, 8 KiB RAM
STM32_MEMORY = {"flash_bytes": 9000, "ram_bytes": 4000, "flash_limit": 128 * 1024, "ram_limit": 8 * 1024}


@pytest.mark.parametrize("relabelled, fragment", [
    ({**WHOLE, "target": "stm32vldiscovery"}, "f_cpu_hz is 25000000, and stm32vldiscovery's is 24000000"),
    ({**WHOLE, **STM32}, "firmware.flash_limit is 4194304, and stm32vldiscovery's is 131072"),
    ({**WHOLE, **STM32, "firmware": {**STM32_MEMORY, "ram_limit": 4 * 2**20}},
     "firmware.ram_limit is 4194304, and stm32vldiscovery's is 8192"),
    ({**WHOLE, "target": "lm3s6965evb"}, "f_cpu_hz is 25000000, and lm3s6965evb's is 12500000"),
    ({**WHOLE, "target": "lm3s6965evb", "f_cpu_hz": 12_500_000,  # its board.toml: 256 KiB flash, 64 KiB RAM
      "firmware": {**STM32_MEMORY, "flash_limit": 256 * 1024, "ram_limit": 64 * 1024}},
     "a result of freertos on lm3s6965evb, and switchscope builds no freertos for lm3s6965evb"),
    ({**WHOLE, "target": "mps2-an386", "timing_model": None}, "cpu is cortex-m3, and mps2-an386's is cortex-m4"),
], ids=["clock", "flash", "ram", "clock of another", "kernel not ported", "core"])
@pytest.mark.parametrize("command", ["compare", "report"])
def test_a_result_relabelled_to_another_target_is_refused_naming_the_field(tmp_path, monkeypatch, capsys,
                                                                          relabelled, fragment, command):
    """Refused for what its target's board.toml says, not only for what the result says of itself."""
    arguments = ["compare", "good.json", "bad.json", "--across-targets"] if command == "compare" else \
        ["report", "bad.json", "--html", "page.html"]
    said = refused_cleanly(tmp_path, {"good.json": results_file(WHOLE), "bad.json": results_file(relabelled)},
                           arguments, 2, fragment, monkeypatch, capsys)
    assert "bad.json, result 0" in said and "measure again" in said


def test_a_result_read_from_a_board_over_its_serial_line_keeps_the_boards_clock(tmp_path, monkeypatch, capsys):
    """A chip read over its port may run at a clock of its own (set by its bootloader or its crystal)."""
    from_board = {**WHOLE, **STM32, "f_cpu_hz": 8_000_000, "timing_model": None, "firmware": STM32_MEMORY,
                  "simulator": {"name": "stm32vldiscovery at /dev/ttyACM0",
                                "options": "115200 baud; stamps: DWT cycle counter (silicon)"}}
    lay_out(tmp_path, {"board.json": results_file(from_board), "sim.json": results_file({**from_board, "timing_model": "cortex-m3",
                                                                                    "simulator": WHOLE["simulator"]})})
    monkeypatch.chdir(tmp_path)
    status, said = run_command(["compare", "board.json", "board.json"], capsys)
    assert status == 0 and "same" in said, said
    status, said = run_command(["compare", "board.json", "sim.json"], capsys)  # simulated: the board.toml's clock
    assert status == 2 and "sim.json, result 0: f_cpu_hz is 8000000, and stm32vldiscovery's is 24000000" in said


LATENCY = {**GOOD, "scenario": "irq-latency", "method": "marker", "samples": [12, 12, 40, 12], "first": 12,
           "worst": {"cycles": 40, "sample": 2, "samples": 1, "address": "0x1dcc", "function": "vPortEnterCritical",
                     "held_from": "0x1dcc", "held_to": "0x1dee", "held": True},
           "phases": {"covered": 4, "period": 4, "steps": "instructions", "one_per_phase": True,
                      "ticked": {"samples": 1, "worst": 30, "median": 30}},
           "sample_phases": [0, 1, 2, 3], "sample_addresses": ["0x10", "0x12", "0x1dcc", "0x16"]}


def latency_damaged(**changed) -> dict:
    """LATENCY with fields changed; a dict value is merged into the field's (a value of None: removed)."""
    document = json.loads(json.dumps(LATENCY))
    for key, value in changed.items():
        if isinstance(value, dict):
            merged = {**document[key], **value}
            document[key] = {k: v for k, v in merged.items() if v is not None}
        else:
            document[key] = value
    return document


DAMAGED_LATENCY = [  # (a damaged irq-latency block, what names the field); each drew a page or raised before
    (latency_damaged(worst={"cycles": None}), "result 0: worst: no figure in the result's unit (cycles)"),  # KeyError
    (latency_damaged(worst={"cycles": 20}), "worst.cycles is 20, below its largest sample 40"),  # a page drawn
    (latency_damaged(worst={"function": None}), "results[0].worst: 'function' is a dependency of 'address'"),
    (latency_damaged(worst={"sample": 9}), "worst.sample is 9, and the result holds 4 samples"),
    (latency_damaged(phases={"covered": 9}), "phases.covered is 9, more than the loop's 4 steps"),
    (latency_damaged(phases={"ticked": {"samples": 1}}), "results[0].phases.ticked: 'worst' is a required property"),
    (latency_damaged(sample_phases=[0, 1]), "sample_phases has 2 entries for 4 samples"),
    (latency_damaged(sample_addresses=["0x10"]), "sample_addresses has 1 entries for 4 samples"),
]


DAMAGED_BLOCKS = [("switches.json", result, fragment) for result, fragment in DAMAGED_SWITCHES] + \
    [("latency.json", result, fragment) for result, fragment in DAMAGED_LATENCY]


@pytest.mark.parametrize("name, result, fragment", DAMAGED_BLOCKS, ids=[f[:40] for _, _, f in DAMAGED_BLOCKS])
def test_report_refuses_a_damaged_switches_or_irq_latency_block_naming_what_is_wrong(tmp_path, monkeypatch, capsys,
                                                                                     name, result, fragment):
    said = refused_cleanly(tmp_path, {name: results_file(result)}, ["report", name, "--html", "page.html"], 2,
                           fragment, monkeypatch, capsys)
    assert f"input {name}" in said


def test_report_draws_a_whole_irq_latency_block(tmp_path, monkeypatch, capsys):
    lay_out(tmp_path, {"latency.json": results_file(LATENCY)})
    monkeypatch.chdir(tmp_path)
    status, said = run_command(["report", "latency.json", "--html", "page.html"], capsys)
    assert status == 0, said
    assert "vPortEnterCritical" in (tmp_path / "page.html").read_text()


@pytest.mark.parametrize("page", ["suite/index.html", "suite/report.html", "suite/runs/page.html"])
def test_report_writes_no_page_inside_an_input_directory(tmp_path, monkeypatch, capsys, page):
    """A suite's own index.html (or any file beside its results) is the suite's, not the report's to replace."""
    said = refused_cleanly(tmp_path, {"suite/plan.json": "{}", "suite/index.html": "<p>the suite's page</p>",
                                      "suite/runs/freertos/mps2-an385/yield.json": results_file(GOOD)},
                           ["report", "suite", "--html", page], 2, f"--html {page}: is inside the input directory suite",
                           monkeypatch, capsys)
    assert "give a path outside it" in said


@pytest.mark.firmware
@pytest.mark.parametrize("earlier", [True, False], ids=["an earlier file", "no file"])
def test_a_run_that_measured_nothing_keeps_the_earlier_json(tmp_path, monkeypatch, capsys, earlier):
    """A run whose every measurement failed (here: stopped after a millisecond) writes no --json: an empty list in
    place of the earlier results would lose them, and a gate reading it would compare nothing."""
    if earlier:
        lay_out(tmp_path, {"results.json": results_file(GOOD)})
    monkeypatch.chdir(tmp_path)
    before = (tmp_path / "results.json").read_bytes() if earlier else None
    status, said = run_command(["run", "--scenario", "yield", "--samples", "100", "--timeout", "0.001", "--quiet",
                                "--json", "results.json"], capsys)
    assert status == 1 and "Traceback" not in said, said
    kept = "the file there is kept as it was" if earlier else "no file was made"
    assert f"--json results.json not written: nothing was measured (1 failed, as said above); {kept}" in said
    assert ((tmp_path / "results.json").read_bytes() if earlier else (tmp_path / "results.json").exists()) == \
        (before if earlier else False)


def test_a_list_of_one_entry_per_sample_must_have_as_many_as_the_samples(tmp_path, monkeypatch, capsys):
    """rotate's pairs name the tasks of each kept sample: one too few, and every later sample is another's."""
    rotate = {**GOOD, "scenario": "rotate", "tasks": 3, "pairs": [[1, 2], [2, 3]]}
    refused_cleanly(tmp_path, {"rotate.json": results_file(rotate)}, ["report", "rotate.json", "--html", "page.html"],
                    2, "result 0: pairs has 2 entries for 3 samples", monkeypatch, capsys)


def test_every_sign_the_tables_print_has_a_plain_reading():
    """A terminal that cannot encode a sign reads a plain one in its place, never a "?": every non-ASCII
    sign in the table code (the § and ‡ marks as much as µ) has one."""
    from pathlib import Path

    from switchscope.cli import _encodable
    present = Path(__file__).resolve().parents[2] / "host" / "switchscope" / "present"
    signs = {sign for module in present.glob("*.py") for sign in module.read_text(encoding="utf-8")
             if not sign.isascii()}
    assert {"µ", "§", "‡", "†"} <= signs
    lacking = sorted(sign for sign in signs if "?" in _encodable(sign, "ascii"))
    assert not lacking, f"no plain reading for {lacking}"
    assert _encodable("0.74§ (§ zero-wait-state figures)", "ascii") == "0.74# (# zero-wait-state figures)"
    assert _encodable("‡ software clz", "ascii") == "++ software clz"


@pytest.mark.firmware
@pytest.mark.parametrize("encoding", ["ascii", "iso8859-7"])  # Greek has its letter mu, not the micro sign
def test_a_terminal_that_cannot_encode_the_micro_sign_reads_us(tmp_path, encoding):
    done = subprocess.run([*COMMAND, "run", "--scenario", "yield", "--samples", "200", "--json", "p.json"],
                          cwd=tmp_path, capture_output=True, env={**os.environ, "PYTHONIOENCODING": encoding},
                          timeout=600)
    assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr.decode(errors="replace")
    said = done.stdout.decode(encoding)
    assert "in us at 25 MHz:" in said and "µ" not in said
    assert json.loads((tmp_path / "p.json").read_text())["results"][0]["count"] == 200
