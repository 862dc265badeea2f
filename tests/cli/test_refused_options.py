"""Nothing taken without a word: an option that changes nothing where it is asked for, an option, a value,
a name or a percentile given twice, --tasks without rotate, a suite or intrusion with nothing to measure,
an empty output path, a bogus merge input, an ELF of another core. Each is refused before any work, with
what is wrong and what to do; where several scenarios are asked for, an option applies to its own and the
command says the others are measured without it. Comma lists are taken wherever an option takes several
names. Every case here but the last is pure: nothing is built or run."""

import json
import os
import struct
from pathlib import Path

import pytest

from conftest import refused_cleanly, run_command
from switchscope.common.errors import SwitchscopeError
from switchscope.figures import merge

# (arguments, a fragment of the message): each exits 2, writes nothing, prints no traceback
REFUSED = [
    # an option of other scenarios, or one that needs another option's value
    (["run", "--scenario", "yield", "--config", "lock=mutex"], "option lock applies to sem-shuffle only, not yield"),
    (["run", "--scenario", "yield", "--config", "irq_priority=high"], "irq_priority applies to irq-latency, irq-ruler"),
    (["run", "--scenario", "yield", "--config", "msg_size=16"], "option msg_size applies to msg only, not yield"),
    (["run", "--scenario", "yield", "--config", "rotation=priority"], "option rotation applies to rotate only"),
    (["run", "--scenario", "yield", "--config", "load=voip"], "option load applies to rotate only, not yield"),
    (["run", "--scenario", "rotate", "--config", "load_period_us=250"], "load_period_us applies with load=voip only"),
    (["run", "--scenario", "rotate", "--config", "load_tasks=2"], "add --config load=voip"),
    (["run", "--scenario", "yield,isr", "--config", "lock=mutex"], "not yield, isr"),
    (["run", "--kernel", "floor", "--scenario", "yield", "--config", "lock=mutex"], "applies to sem-shuffle only"),
    (["run", "--kernel", "embassy", "--scenario", "yield", "--config", "msg_size=8"], "applies to msg only"),
    (["sweep", "--scenario", "yield", "--config", "msg_size=1,16"], "applies to msg only, not yield (msg_size=1,16)"),
    (["breakdown", "--scenario", "yield", "--config", "lock=mutex"], "applies to sem-shuffle only"),
    # given twice
    (["run", "--config", "preemption=on", "--config", "preemption=off"], "option preemption given twice"),
    (["run", "--config", "preemption=on,preemption=off"], "option preemption given twice"),
    (["breakdown", "--config", "opt=-O2", "--config", "opt=-Os"], "option opt given twice"),
    (["sweep", "--config", "preemption=on,on"], "--config preemption=on,on: on given twice"),
    (["sweep", "--scenario", "irq-latency", "--config", "irq_priority=high,high"], "high given twice"),
    (["run", "--scenario", "yield,yield"], "yield given twice"),
    (["sweep", "--tasks", "2-4,3"], "--tasks '2-4,3' gives 3 twice"),
    (["run", "--percentiles", "99,99.0"], "99 and 99.0 are one percentile (column p99)"),
    # --tasks where no scenario has tasks, a reversed range
    (["sweep", "--tasks", "2-4", "--scenario", "yield"], "--tasks applies to the rotate scenario only"),
    (["run", "--tasks", "3", "--scenario", "yield,isr"], "--tasks applies to the rotate scenario only"),
    (["sweep", "--tasks", "8-2"], "--tasks '8-2': the range is reversed"),
    # nothing measurable
    (["suite", "--kernel", "rtic", "--target", "atmega328p", "--out", "results"], "RTIC is ported to lm3s6965evb"),
    (["intrusion", "--kernel", "rtic", "--target", "atmega328p"], "nothing to measure: rtic on atmega328p"),
    # empty output paths
    (["run", "--export-csv", ""], "--export-csv: the path is empty"),
    (["sweep", "--export-markdown", " "], "--export-markdown: the path is empty"),
    (["run", "--json", ""], "--json: the path is empty"),
    (["suite", "--out", ""], "--out: the path is empty"),
    (["report", "results.json", "--html", ""], "--html: the path is empty"),
    (["merge", "results.json", "--out", ""], "--out: the path is empty"),
    # lists: an unknown, empty or doubled item; 'all' among names; a list where one name is taken
    (["run", "--scenario", "yeild,isr"], "unknown scenario 'yeild' in 'yeild,isr'"),
    (["run", "--scenario", "yeild,isr"], "did you mean yield?"),
    (["run", "--method", "probe,markr"], "did you mean marker?"),
    (["sweep", "--kernel", "freertos,flor"], "did you mean floor?"),
    (["intrusion", "--target", "mps2-an385,atmega"], "did you mean atmega328p?"),
    (["run", "--scenario", "yield,,isr"], "an empty name in the list"),
    (["run", "--kernel", "all,floor"], "'all' is every kernel already"),
    (["run", "--target", "mps2-an385,arduino-uno"], "arduino-uno is a real board: give its serial port"),
    (["flash", "--scenario", "yield,isr"], "is a list, and this command takes one name"),
    (["breakdown", "--target", "mps2-an385,atmega328p"], "is a list, and this command takes one name"),
    # measure on a real board's name: its simulated twin would run it under another name
    (["measure", "--build-example", "--target", "arduino-uno", "--switches", "--kernel", "freertos"],
     "arduino-uno is a real board, and measure runs a firmware on a simulator"),
]


@pytest.mark.parametrize("arguments, fragment", REFUSED, ids=[" ".join(c[0]) + " " + c[1][:20] for c in REFUSED])
def test_what_would_be_taken_without_a_word_is_refused(tmp_path, monkeypatch, capsys, arguments, fragment):
    refused_cleanly(tmp_path, {"results.json": '{"results": []}'}, arguments, 2, fragment, monkeypatch, capsys)


@pytest.fixture
def jobs_asked(monkeypatch):
    """The jobs run and sweep would measure, in order: each measurement fails at once, nothing is built."""
    from switchscope.cli import measuring

    asked = []

    def measure(job, *_args, **_kwargs):
        asked.append(str(job))
        raise SwitchscopeError("not measured here")

    def run_points(points, *_args, **_kwargs):
        asked.extend(f"{point.job} x{point.samples}" for point in points)
        return [(point, "not measured here") for point in points]

    monkeypatch.setattr(measuring, "measure", measure)
    monkeypatch.setattr(measuring.matrix, "run_points", run_points)
    return asked


def test_an_option_of_one_scenario_applies_there_and_the_others_are_measured_without_it(jobs_asked, capsys):
    status, said = run_command(["run", "--config", "lock=mutex", "--samples", "10", "--quiet"], capsys)
    assert status == 1, said  # every measurement failed (on purpose): the plan is what is checked
    # run measures simulated jobs side by side, as a sweep's points of its --samples
    assert "freertos/mps2-an385/sem-shuffle/probe [lock=mutex] x10" in jobs_asked
    assert "freertos/mps2-an385/yield/probe x10" in jobs_asked  # no lock=mutex in its label
    assert not any("lock=" in job for job in jobs_asked if "sem-shuffle" not in job)
    assert said.count("note: lock applies to sem-shuffle only") == 1, said


def test_values_of_an_option_a_scenario_does_not_take_measure_it_once(jobs_asked, capsys):
    status, said = run_command(["sweep", "--scenario", "yield,msg", "--config", "msg_size=1,16", "--samples", "10",
                                "--quiet"], capsys)
    assert status == 1, said
    assert sorted(jobs_asked) == ["freertos/mps2-an385/msg/probe [msg_size=16] x10",
                                  "freertos/mps2-an385/msg/probe [msg_size=1] x10",
                                  "freertos/mps2-an385/yield/probe x10"]
    assert said.count("note: msg_size applies to msg only: yield measured without it") == 1, said


def test_an_option_that_needs_another_applies_where_that_is_chosen(jobs_asked, capsys):
    status, said = run_command(["sweep", "--scenario", "rotate", "--config", "load=none,voip", "--config",
                                "load_period_us=250", "--samples", "10", "--quiet"], capsys)
    assert status == 1, said
    assert sorted(jobs_asked) == ["freertos/mps2-an385/rotate/probe [load=voip,load_period_us=250] x10",
                                  "freertos/mps2-an385/rotate/probe x10"]
    assert "note: load_period_us applies with load=voip only: measured without it where load is not voip" in said


@pytest.mark.parametrize("arguments, expected", [
    (["run", "--scenario", "yield,isr"], ["yield/probe", "isr/probe"]),
    (["run", "--scenario", "yield", "--method", "probe,marker"], ["yield/probe", "yield/marker"]),
    (["run", "--scenario", "yield", "--kernel", "freertos,floor"], ["freertos/mps2-an385/yield", "floor/mps2-an385/yield"]),
    (["run", "--scenario", "yield", "--target", "mps2-an385,atmega328p"], ["mps2-an385/yield", "atmega328p/yield"]),
    (["run", "--scenario", "deadlock-break,yield"], ["deadlock-raise", "deadlock-release", "yield/probe"]),
    (["run", "--scenario", "rotate,yield", "--tasks", "3"], ["rotate/probe/3 tasks", "yield/probe"]),
    (["sweep", "--scenario", "yield,isr", "--kernel", "freertos,floor"], ["freertos/mps2-an385/yield",
                                                                          "floor/mps2-an385/isr"]),
])
def test_comma_lists_are_taken_where_an_option_takes_several_names(jobs_asked, capsys, arguments, expected):
    status, said = run_command([*arguments, "--samples", "10", "--quiet"], capsys)
    assert status == 1, said
    for fragment in expected:
        assert any(fragment in job for job in jobs_asked), (fragment, jobs_asked)
    assert len(jobs_asked) == len(set(jobs_asked))


def test_suite_and_intrusion_take_comma_lists(monkeypatch, tmp_path, capsys):
    from switchscope.cli import measuring

    seen = {}

    def suite_run(kernels, targets, *_args, **_kwargs):
        seen["suite"] = ([k.name for k in kernels], [t.name for t in targets])
        return [], [], 0.0

    def intrusion_report(kernel, target, scenario, *_args, **_kwargs):
        seen.setdefault("intrusion", []).append((kernel.name, target.name, scenario.name))
        raise SwitchscopeError("not measured here")

    monkeypatch.setattr(measuring.suite, "run", suite_run)
    monkeypatch.setattr(measuring.intrusion, "report", intrusion_report)
    status, said = run_command(["suite", "--kernel", "freertos,floor", "--target", "mps2-an385,atmega328p",
                                "--out", str(tmp_path / "s"), "--quiet"], capsys)
    assert status == 0 and seen["suite"] == (["freertos", "floor"], ["mps2-an385", "atmega328p"]), said
    status, said = run_command(["intrusion", "--target", "mps2-an385", "--scenario", "yield,isr", "--quiet"], capsys)
    assert status == 1 and seen["intrusion"] == [("freertos", "mps2-an385", "yield"),
                                                 ("freertos", "mps2-an385", "isr")], said


def test_the_help_says_a_selection_takes_a_comma_list(capsys):
    for command in ("run", "sweep", "suite", "intrusion"):
        status, said = run_command([command, "--help"], capsys)
        assert status == 0 and "a comma list" in said and "yield,isr" in said or command == "suite", said


def test_percentiles_are_named_with_every_digit_given(capsys):
    from switchscope.cli.values import percentiles
    from switchscope.present import exports

    chosen = percentiles("99.99999,99.999999")
    assert [column for column in exports.header(chosen) if column.startswith("p9")] == ["p99.99999", "p99.999999"]


# --- merge's inputs -------------------------------------------------------------------------------------------

def _plan(kernels='["floor"]', share="1/2") -> str:
    return (f'{{"kernels": {kernels}, "targets": ["atmega328p"], "samples": 100, "complete": true, '
            f'"subset": {{"subset": "{share}", "plan": "0123456789abcdef", "points": 1}}, '
            '"wall_seconds": 1.0, "workers": 1}')


MERGE_FILES = {"a/plan.json": _plan(), "b/plan.json": _plan(share="3/2"), "c/plan.json": _plan(kernels='"floor"'),
               "s2.json": '{"results": []}', "suite/plan.json": _plan(share="1/1"), "suite/runs/.keep": ""}


@pytest.mark.parametrize("arguments, fragment", [
    (["merge", "a", "b", "--out", "m"], "b/plan.json: share 3/2 is invalid: a share is K/N, 1 <= K <= N"),
    (["merge", "c", "--out", "m"], "c/plan.json: is not one switchscope suite wrote: 'kernels' is 'floor'"),
    (["merge", "a", "--out", "suite/runs/merged"], "is inside the suite directory"),
    (["merge", "s2.json", "--out", "suite/runs/merged.json"], "is inside the suite directory"),
    (["merge", "/dev/zero", "s2.json", "--out", "m.json"], "/dev/zero: is not a regular file or a directory"),
])
def test_a_bogus_merge_input_is_said_for_what_it_is(tmp_path, monkeypatch, capsys, arguments, fragment):
    refused_cleanly(tmp_path, MERGE_FILES, arguments, 2, fragment, monkeypatch, capsys)


def test_a_fifo_given_to_merge_is_refused_not_waited_on(tmp_path, monkeypatch, capsys):
    os.mkfifo(tmp_path / "f")  # nobody writes it: opened, it would wait for ever
    refused_cleanly(tmp_path, MERGE_FILES, ["merge", "f", "s2.json", "--out", "m.json"], 2,
                    "f: is not a regular file or a directory (a FIFO", monkeypatch, capsys)


def test_a_results_file_past_the_bound_is_refused_unread(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(merge, "MAX_INPUT_BYTES", 1000)  # the bound's check, on a file of a size a test can hold
    refused_cleanly(tmp_path, {**MERGE_FILES, "huge.json": '{"results": []}' + " " * 986},
                    ["merge", "huge.json", "s2.json", "--out", "m.json"], 2,
                    "huge.json: 1,001 bytes, more than merge reads (1,000 bytes at most)", monkeypatch, capsys)


# --- measure: an ELF of another core -------------------------------------------------------------------------

def _uleb(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def arm_elf(arch: int | None, name: bytes = b"") -> bytes:
    """A minimal Arm ELF with the build attributes a compiler records (Tag_CPU_name, Tag_CPU_arch, profile M),
    or none (arch None)."""
    names = b"\0.ARM.attributes\0.shstrtab\0"
    attributes = b""
    if arch is not None:
        tags = b"\x05" + name + b"\0" + b"\x06" + _uleb(arch) + b"\x07" + _uleb(ord("M"))
        file_group = b"\x01" + struct.pack("<I", 5 + len(tags)) + tags
        vendor = b"aeabi\0" + file_group
        attributes = b"A" + struct.pack("<I", 4 + len(vendor)) + vendor
    body_at = 52
    names_at = body_at + len(attributes)
    table_at = (names_at + len(names) + 3) & ~3
    sections = [struct.pack("<10I", *[0] * 10)]
    if arch is not None:
        sections.append(struct.pack("<10I", 1, 0x70000003, 0, 0, body_at, len(attributes), 0, 0, 1, 0))
    sections.append(struct.pack("<10I", 17, 3, 0, 0, names_at, len(names), 0, 0, 1, 0))
    header = b"\x7fELF\x01\x01\x01" + b"\0" * 9 + struct.pack("<HHIIIIIHHHHHH", 2, 40, 1, 0x8000, 0, table_at,
                                                             0x05000200, 52, 32, 0, 40, len(sections),
                                                             len(sections) - 1)
    body = header + attributes + names
    return body + b"\0" * (table_at - len(body)) + b"".join(sections)


@pytest.mark.parametrize("arch, name, target, fragment", [
    (13, b"7E-M", "mps2-an385", "is built for ARMv7E-M (Cortex-M4 or M7), and mps2-an385 is a cortex-m3 (ARMv7-M)"),
    (13, b"7E-M", "lm3s6965evb", "give --target mps2-an386 or mps2-an386-fpu or netduinoplus2"),
])
def test_an_elf_built_for_a_larger_core_is_refused(tmp_path, monkeypatch, capsys, arch, name, target, fragment):
    refused_cleanly(tmp_path, {"app.elf": arm_elf(arch, name)},
                    ["measure", "app.elf", "--target", target, "--from", "main", "--to", "exit"], 2, fragment,
                    monkeypatch, capsys)


def test_an_elf_of_the_targets_core_or_of_no_recorded_core_goes_on(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for arch, said in ((10, None), (None, "does not record the core it was built for")):
        Path("app.elf").write_bytes(arm_elf(arch, b"7-M"))
        status, text = run_command(["measure", "app.elf", "--target", "mps2-an385", "--from", "main", "--to",
                                    "exit"], capsys)
        # past the core: the next check is the symbols, which this ELF has none of
        assert status == 2 and "has no symbol 'main'" in text and "is built for" not in text, text
        assert (said is None and "note:" not in text) or (said in text and "runs as mps2-an385's cortex-m3" in text)


@pytest.mark.parametrize("arch, name, target", [(10, b"7-M", "mps2-an386"), (12, b"6S-M", "mps2-an385")])
def test_an_elf_built_for_a_smaller_core_runs_and_says_so(tmp_path, monkeypatch, capsys, arch, name, target):
    """ARMv7-M code runs unchanged on a Cortex-M4, ARMv6-M code on a Cortex-M3: timed as that core runs it."""
    monkeypatch.chdir(tmp_path)
    Path("app.elf").write_bytes(arm_elf(arch, name))
    status, text = run_command(["measure", "app.elf", "--target", target, "--from", "main", "--to", "exit"], capsys)
    assert status == 2 and "has no symbol 'main'" in text, text  # past the core's check
    assert "runs it unchanged" in text and "model times it as that core runs it" in text


@pytest.mark.parametrize("name, target, other", [(b"Cortex-M0", "microbit-m0plus", "microbit"),
                                                 (b"cortex-m0plus", "microbit", "microbit-m0plus")])
def test_an_elf_that_names_another_core_of_the_same_architecture_is_refused(tmp_path, monkeypatch, capsys, name,
                                                                             target, other):
    """armcc and clang record the core in Tag_CPU_name: an image for the Cortex-M0 is not timed as an M0+."""
    refused_cleanly(tmp_path, {"app.elf": arm_elf(12, name)},
                    ["measure", "app.elf", "--target", target, "--from", "main", "--to", "exit"], 2,
                    f"give --target {other}", monkeypatch, capsys)


def test_an_elf_that_records_only_its_architecture_says_which_core_times_it(tmp_path, monkeypatch, capsys):
    """GCC records ARMv6S-M for -mcpu=cortex-m0 and cortex-m0plus alike: the note says which core is assumed."""
    monkeypatch.chdir(tmp_path)
    Path("app.elf").write_bytes(arm_elf(12, b"6S-M"))
    status, text = run_command(["measure", "app.elf", "--target", "microbit-m0plus", "--from", "main", "--to",
                                "exit"], capsys)
    assert status == 2 and "has no symbol 'main'" in text, text  # past the core's check
    assert "records its architecture (ARMv6S-M), not its core" in text
    assert "timed as microbit-m0plus's cortex-m0plus; --target microbit times it as the other" in text


@pytest.mark.firmware
def test_a_run_of_several_scenarios_measures_an_option_where_it_applies_and_says_so(tmp_path, capsys):
    status, said = run_command(["run", "--scenario", "yield,sem-shuffle", "--config", "lock=mutex", "--samples",
                                "200", "--quiet", "--json", str(tmp_path / "r.json")], capsys)
    assert status == 0, said
    options = {r["scenario"]: r["options"] for r in json.loads((tmp_path / "r.json").read_text())["results"]}
    assert options["sem-shuffle"]["lock"] == "mutex" and options["yield"]["lock"] == "semaphore"  # its default
    assert said.count("note: lock applies to sem-shuffle only: yield measured without it") == 1, said


@pytest.mark.parametrize("option,values", [("--scenario", ("yield", "isr")), ("--kernel", ("freertos", "floor")),
                                           ("--samples", ("100", "200"))])
def test_an_option_given_twice_is_refused_not_the_last_kept(option, values, capsys):
    status, said = run_command(["run", option, values[0], option, values[1]], capsys)
    assert status == 2, said
    assert f"{option} given twice" in said and "Traceback" not in said
