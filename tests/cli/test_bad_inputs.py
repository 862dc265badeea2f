"""One table of bad inputs, a row each: the command line, the files it is
given, the exit status it must end with and a fragment of what it must say.
None may print a traceback, and none may touch its inputs. Every row fails
before any firmware is built, within seconds."""

import os

import pytest

from conftest import refused_cleanly

VCD = """$timescale 1 ns $end
$scope module top $end
$var wire 1 ! D13 $end
$upscope $end
$enddefinitions $end
#0
0!
#100
1!
#200
0!
"""

FILES = {
    "capture.vcd": VCD,
    "empty.vcd": "",
    "garbage.vcd": "\x00\x01 not a capture at all \xff",
    "garbage.csv": "time,D13\nabc,def\n",
    "garbage.sr": "PK not really a zip",
    "notes.txt": "not an ELF",
    "some-dir/.keep": "",
    "taken": "a file where a directory is wanted",
    "old-suite/plan.json": '{"subset": {"subset": "1/2", "plan": "0123456789abcdef", "points": 1}}',
    "old-suite/runs/floor/atmega328p/yield-default-1000.json": "{}",
    "unfinished/plan.json": '{"kernels": ["floor"], "targets": ["atmega328p"], "samples": 100, "complete": false, '
                            '"subset": {"subset": "1/1", "plan": "0123456789abcdef", "points": 1}, '
                            '"wall_seconds": 1.0, "workers": 1}',
    "share.json": '{"results": [], "subset": {"subset": "1/2", "plan": "0123456789abcdef", "points": 4}}',
    "unfinished.json": '{"results": [], "incomplete": "2 of 8 points measured so far"}',
    "other-plan.json": '{"results": [], "plan": {"digest": "0123456789abcdef", "points": 15}}',
}

# (arguments, expected exit status, a fragment of the message)
CASES = [
    ([], 2, "usage"),
    (["nosuchcommand"], 2, "invalid choice"),
    (["run", "--kernel", "nosuch"], 2, "freertos"),
    (["run", "--target", "nosuch"], 2, "mps2-an385"),
    (["run", "--scenario", "nosuch"], 2, "yield"),
    (["run", "--method", "nosuch"], 2, "probe"),
    (["run", "--unit", "furlongs"], 2, "invalid choice"),
    (["run", "--samples", "0"], 2, "--samples takes 1 to 4294967295"),
    (["run", "--samples", "4294967297"], 2, "--samples takes 1 to 4294967295"),
    (["run", "--samples", "many"], 2, "invalid int value"),
    (["run", "--json", "some-dir"], 2, "is a directory"),
    (["run", "--json", "taken/out.json"], 2, "is a file, not a directory"),
    (["run", "--json", "/proc/switchscope.json"], 2, "cannot create files in /proc"),
    (["run", "--vcd", "trace.vcd"], 2, "--vcd records the scope pin"),
    (["run", "--config", "nosuch=1"], 2, "unknown configuration option 'nosuch'"),
    (["run", "--config", "preemption=maybe"], 2, "'maybe' is not a value of preemption"),
    (["run", "--config", "preemption"], 2, "--config takes NAME=VALUE"),
    (["run", "--config", "=off"], 2, "--config takes NAME=VALUE"),
    (["run", "--scenario", "rotate", "--config", "load=voip,software"], 2, "'software' is not a value of load"),
    (["breakdown", "--scenario", "irq-latency"], 2, "irq-latency times interrupts, and has none"),
    (["run", "--scenario", "yield", "--tasks", "3"], 2, "--tasks applies to the rotate scenario only"),
    (["run", "--scenario", "rotate", "--tasks", "99"], 2, "rotate takes 2 to"),
    (["run", "--timeout", "nan"], 2, "seconds: nan is outside"),
    (["run", "--timeout", "-5"], 2, "seconds: -5 is outside"),
    (["run", "--target", "arduino-uno", "--port", ""], 2, "--port is empty"),
    (["run", "--target", "stm32vldiscovery", "--port", " "], 2, "--port is empty"),
    (["sweep", "--jobs", "-1"], 2, "jobs: -1 is outside 1 to 256"),
    (["suite", "--jobs", "0"], 2, "jobs: 0 is outside 1 to 256"),
    (["analyze", "capture.vcd", "--channel", "D13", "--clock", "1e-300"], 2, "a clock in Hz: 1e-300 is outside"),
    (["analyze", "capture.vcd", "--channel", "D13", "--clock", "fast"], 2, "'fast' is not a number"),
    (["sweep", "--samples", "0"], 2, "--samples takes numbers from 1 to"),
    (["sweep", "--samples", "4294967296"], 2, "--samples takes numbers from 1 to"),
    (["sweep", "--tasks", "1-100000000"], 2, "--tasks takes numbers from 1 to 255"),
    (["sweep", "--samples", "1-9000000"], 2, "gives more than 10000 values"),
    (["sweep", "--samples", "4000000000,4000000001", "--tasks", "2-8"], 2, "GiB"),
    (["sweep", "--config", "preemption"], 2, "--config takes NAME=VALUE"),
    (["sweep", "--json", "some-dir"], 2, "is a directory"),
    (["sweep", "--resume"], 2, "--resume continues the sweep written to --json"),
    (["sweep", "--resume", "--json", "notes.txt"], 2, "is not the JSON of a sweep"),
    (["suite", "--out", "taken"], 2, "is a file, not a directory"),
    (["suite", "--samples", "0"], 2, "--samples takes 1 to"),
    (["intrusion", "--samples", "0"], 2, "--samples takes 1 to"),
    (["intrusion", "--json", "some-dir"], 2, "is a directory"),
    (["analyze", "missing.vcd", "--channel", "D13"], 2, "missing.vcd"),
    (["analyze", "capture.vcd", "--channel", "D13", "--json", "capture.vcd"], 2, "is the input"),
    (["analyze", "empty.vcd", "--channel", "D13"], 2, "empty.vcd"),
    (["analyze", "garbage.vcd", "--channel", "D13"], 2, "garbage.vcd"),
    (["analyze", "garbage.csv", "--channel", "D13"], 2, "garbage.csv"),
    (["analyze", "garbage.sr", "--channel", "D13"], 2, "garbage.sr"),
    (["analyze", "notes.txt", "--channel", "D13"], 2, "notes.txt"),
    (["analyze", "capture.vcd", "--channel", "D7"], 2, "D7"),
    (["analyze", "capture.vcd", "--channel", "D13", "--clock", "0"], 2, "--clock"),
    (["measure", "missing.elf", "--target", "mps2-an385", "--from", "a", "--to", "b"], 2, "missing.elf"),
    (["measure", "notes.txt", "--target", "mps2-an385", "--from", "a", "--to", "b"], 2, "notes.txt"),
    (["measure", "notes.txt", "--target", "nosuch", "--from", "a", "--to", "b"], 2, "mps2-an385"),
    (["measure", "notes.txt", "--target", "mps2-an385", "--from", "a", "--to", "b", "--json", "notes.txt"],
     2, "is the input"),
    (["measure", "notes.txt", "--target", "mps2-an385", "--from", "a", "--to", "b", "--count", "0"],
     2, "--count takes 1 to 4294967295, got 0"),
    (["measure", "notes.txt", "--target", "all", "--from", "a", "--to", "b"], 2, "the one --target"),
    (["measure", "notes.txt", "--target", "mps2-an385"], 2, "--from and --to"),
    (["measure", "notes.txt", "--target", "mps2-an385", "--switches"], 2, "needs the --kernel"),
    (["measure", "notes.txt", "--target", "mps2-an385", "--switches", "--kernel", "freertos", "--from", "a"],
     2, "takes no --from"),
    (["measure", "notes.txt", "--target", "mps2-an385", "--switches", "--kernel", "all"], 2, "not all"),
    (["measure", "notes.txt", "--target", "mps2-an385", "--switches", "--kernel", "rtic"], 2, "interrupt handlers"),
    (["measure", "--target", "mps2-an385", "--switches", "--kernel", "freertos"], 2, "--build-example"),
    (["measure", "--build-example", "--target", "stm32vldiscovery", "--switches", "--kernel", "freertos"],
     2, "spare timer"),
    (["merge", "missing-dir", "--out", "all"], 2, "no such file or directory: missing-dir"),
    (["merge", "some-dir", "notes.txt", "--out", "all"], 2, "not both"),
    (["merge", "some-dir", "--out", "all"], 2, "no suite directory"),
    (["merge", "capture.vcd", "--out", "all.json"], 2, "capture.vcd"),
    (["suite", "--subset", "3/2"], 2, "K/N"),
    (["suite", "--out", "old-suite"], 2, "already holds a suite's results (plan.json, runs)"),
    (["suite", "--out", "old-suite", "--resume", "--kernel", "floor", "--target", "atmega328p"], 2,
     "holds share 1/2 of plan 0123456789abcdef"),
    (["merge", "some-dir", "--out", "old-suite"], 2, "already holds a suite's results"),
    (["merge", "unfinished", "--out", "all"], 2, "its suite was interrupted"),
    (["merge", "old-suite", "--out", "old-suite/runs"], 2, "is inside the input old-suite"),
    (["merge", "share.json", "--out", "new-dir/"], 2, "names a directory"),
    (["sweep", "--subset", "2/2", "--resume", "--json", "share.json", "--target", "atmega328p", "--scenario",
      "yield", "--config", "preemption=on,off"], 2, "holds share 1/2 of plan 0123456789abcdef, this is share 2/2"),
    (["sweep", "--resume", "--json", "share.json", "--target", "atmega328p", "--scenario", "yield"], 2,
     "this is a whole sweep"),
    (["merge", "unfinished.json", "--out", "all.json"], 2, "unfinished (2 of 8 points measured so far)"),
    (["sweep", "--resume", "--json", "other-plan.json", "--target", "atmega328p", "--scenario", "yield"], 2,
     "holds a sweep of another plan (15 points, this one has 1)"),
    (["sweep", "--subset", "two"], 2, "K/N"),
    (["suite", "--cluster", "somewhere"], 2, "local:N"),
    (["sweep", "--cluster", "local:0"], 2, "local:N"),
    (["sweep", "--cluster", "tcp://127.0.0.1:99999"], 2, "port 99999 cannot exist (a TCP port is 1 to 65535)"),
    (["suite", "--cluster", "tcp://scheduler:0"], 2, "port 0 cannot exist"),
    (["run", "--target", "ibex", "--config", "load=voip", "--scenario", "rotate"], 2,
     "load=voip needs a peripheral timer of its own, and the Ibex boards' code drives only the machine timer"),
    (["run", "--target", "ibex-qemu", "--config", "load=voip", "--scenario", "rotate"], 2,
     "use mps2-an385, mps2-an386 or microbit"),
    (["run", "--target", "ibex", "--port", "/dev/null", "--scenario", "yield"], 2,
     "--port /dev/null is one of the kernel's memory devices"),
    (["run", "--target", "ibex", "--port", "some-dir", "--no-flash", "--scenario", "yield"], 2,
     "--port some-dir is a directory, not a serial port"),
    # the RTL's run is bounded to an hour without --timeout: 20 s and 10 ms a sample, (3600 - 20) / 0.01 samples
    (["run", "--target", "ibex", "--scenario", "yield", "--samples", "4294967295"], 2,
     "--samples 4,294,967,295 on ibex: its verilator run is allowed 10 ms a sample, 11,930.5 hours for these"),
    (["run", "--target", "ibex", "--scenario", "yield", "--samples", "358001"], 2, "at most 358,000 fit"),
    (["sweep", "--target", "ibex", "--scenario", "yield", "--samples", "100,400000"], 2,
     "give --samples 358,000 or fewer (switchscope run takes a --timeout to wait longer)"),
    (["measure", "notes.txt", "--target", "ibex", "--from", "never", "--to", "never2", "--count", "4000000000"], 2,
     "--count 4,000,000,000 on ibex"),
    (["measure", "some-dir", "--target", "mps2-an385", "--switches", "--kernel", "freertos"], 2,
     "some-dir is a directory, not a firmware file"),
    (["measure", "some-dir", "--target", "ibex", "--from", "main", "--to", "exit"], 2,
     "some-dir is a directory, not a firmware file"),
]


@pytest.mark.parametrize("arguments, status, fragment", CASES, ids=[" ".join(c[0]) or "(none)" for c in CASES])
def test_bad_input_gets_a_clear_error(tmp_path, monkeypatch, capsys, arguments, status, fragment):
    refused_cleanly(tmp_path, FILES, arguments, status, fragment, monkeypatch, capsys)


@pytest.mark.parametrize("option", [["--switches", "--kernel", "freertos"], ["--from", "main", "--to", "exit"]])
def test_a_fifo_given_as_the_firmware_is_refused_unread(tmp_path, monkeypatch, capsys, option):
    os.mkfifo(tmp_path / "firmware.elf")  # opened, it would wait for a writer forever
    refused_cleanly(tmp_path, {}, ["measure", "firmware.elf", "--target", "mps2-an385", *option], 2,
                    "firmware.elf is a FIFO (a pipe), not a firmware file", monkeypatch, capsys)
