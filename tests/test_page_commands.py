"""Every `switchscope ...` command in a code block of README.md and docs/ is run, as written, through the
command line: its arguments parsed, its names resolved, its firmware built and measured. A command added to a
page is picked up from the page; one that a page no longer has fails here (HEAVY, MADE_BY names them).

What the test changes, and only that: a cap on the samples (SAMPLES_CAP; each --samples, --count value at most
that, the default too), outputs in a folder of the test's (a path outside it, /tmp/x or ../x, is taken inside
it), and the shell around a command (`.venv/bin/`, `(cd ... && ...)`, `> file`, `${{ matrix.k }}`, globs).
An input a command reads is made first: by the earlier command of the page that writes it, else by a command
of MADE_BY. A command that reads a real board (--port) has its board's measurement stood in for: everything
up to the port is real (the board's name, its image's job); so has every command of HEAVY, which measures
more firmware than the suite has time for: its plan, built from its names, is what is checked.

Each must end measured (0), or, where the test stands in for a measurement, with that measurement failed (1)
and nothing else: never bad input (2), never a traceback."""

from __future__ import annotations

import glob
import os
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from switchscope.common.errors import FirmwareFailed
from switchscope.common.paths import checkout

from conftest import run_command

pytestmark = pytest.mark.firmware

PAGES = [checkout() / "README.md", *sorted((checkout() / "docs").rglob("*.md"))]
SAMPLES_CAP = 50
# a command line: `switchscope` first on it (in YAML after `run:`, in a shell line after `&&`), or `.venv/bin/switchscope`
COMMAND = re.compile(r"(?:^\s*(?:-\s+)?(?:run:\s+)?|&&\s+)(?:\.venv/bin/)?switchscope\s+(.*)$")


@dataclass(frozen=True)
class PageCommand:
    page: str
    line: int
    text: str  # as the page writes it, from `switchscope` on, without its comment

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def arguments(self) -> list[str]:
        return shlex.split(self.text.replace("${{ matrix.k }}", "1"))


def page_commands() -> list[PageCommand]:
    found = []
    for page in PAGES:
        in_block = False
        lines = page.read_text().splitlines()
        for number, line in enumerate(lines, 1):
            if line.lstrip().startswith("```"):
                in_block = not in_block
                continue
            # a line a backslash continues, joined as the shell joins it
            following = number
            while in_block and line.endswith("\\") and following < len(lines):
                line = line[:-1] + " " + lines[following].strip()
                following += 1
            if in_block and (match := COMMAND.search(line)):
                text = re.sub(r"\s+#.*$", "", match.group(1)).strip()
                text = re.split(r"\s+(?:&&|\||>)\s*|\)\s*$", text)[0]  # the shell's part after it
                found.append(PageCommand(str(page.relative_to(checkout())), number, f"switchscope {text}"))
    return found


COMMANDS = page_commands()

# Commands that measure more firmware than the suite has time for (each its number of builds and runs): their
# plans are checked, their measurements stood in for. Each of their firmware is built and measured by the
# suite's own tests (tests/run, tests/figures).
HEAVY = {
    "switchscope run --target all --scenario yield --floor": "every core, Ibex's RTL too",
    "switchscope run --target all --scenario yield": "every core, Ibex's RTL too",
    "switchscope run --target all --method all": "12 targets, 9 scenarios, 3 methods",
    "switchscope run --kernel floor --target all --scenario all": "every core, every scenario",
    "switchscope suite --out results/": "every kernel and target",
    "switchscope suite --out results-2 --subset 2/8": "a share of the whole suite",
    "switchscope sweep --scenario rotate --tasks 2-8 --samples 100,1000,10000 --config preemption=on,off":
        "42 points",
    "switchscope sweep --scenario rotate --tasks 2-8 --config switch=software,pendsv": "14 points",
    "switchscope sweep --scenario rotate --tasks 2-8 --config rotation=priority --config switch=software,pendsv":
        "14 points",
    "switchscope sweep --scenario rotate --tasks 4 --samples 100,300,1000,3000,10000 --config "
    "switch=software,pendsv": "10 points",
    "switchscope sweep --tasks 2-8 --config opt=-O0,-O2,-Os --cluster local:4 --json s.json":
        "every scenario at 7 task counts and 3 optimisations, on a Dask cluster",
    "switchscope run --scenario irq-latency --config irq_priority=high,low --kernel all":
        "every kernel, the Rust ones built",
    "switchscope run --target all --samples 1000 --quiet --json ../base.json": "every target",
    "switchscope run --target all --samples 1000 --quiet --json new.json": "every target",
    "switchscope run --target all --samples 1000 --quiet --json /tmp/base.json": "every target",
    "switchscope suite --out results-${{ matrix.k }} --subset ${{ matrix.k }}/4": "a share of the whole suite",
    "switchscope run --target ibex --config fetch_wait_states=0,2,5":
        "every scenario at three wait-state counts, irq-latency's sweep behind a RAM of 5 among them (its rounds "
        "the longest: minutes)",
    "switchscope run --target ibex --config fetch_wait_states=2,data_wait_states=1":
        "every scenario, irq-latency's sweep two rounds long",
    "switchscope run --target ibex-qemu,ibex --config fetch_wait_states=2":
        "every scenario on the model and the RTL, irq-latency's sweep two rounds long on each",
    "switchscope run --target vexriscv --floor --config cache=warm,cold":
        "every scenario of two kernels, warm and cold, four irq-latency sweeps on the RTL",
}

# Inputs no earlier command of their page writes, each made by a command that writes it (in a folder of the
# test's), as a user has them: results of two runs, a capture, a firmware.
MADE_BY = {
    "base.json": ["run", "--scenario", "yield,isr", "--samples", "50", "--quiet", "--json", "base.json"],
    "new.json": ["run", "--scenario", "yield,isr", "--samples", "50", "--quiet", "--json", "new.json"],
    "results.json": ["run", "--scenario", "irq-latency", "--quiet", "--json", "results.json"],
    "out.json": ["run", "--scenario", "resume", "--samples", "50", "--quiet", "--json", "out.json"],
    "o2.json": ["run", "--scenario", "yield", "--samples", "50", "--quiet", "--json", "o2.json"],
    "os.json": ["run", "--scenario", "yield", "--samples", "50", "--config", "opt=-Os", "--quiet", "--json",
                "os.json"],
    "chip.json": ["run", "--target", "stm32vldiscovery", "--scenario", "signal", "--samples", "50", "--quiet",
                  "--json", "chip.json"],
    "results/": ["suite", "--kernel", "floor", "--target", "mps2-an385", "--samples", "50", "--quiet", "--out",
                 "results"],
    "results-main/": ["suite", "--kernel", "floor", "--target", "mps2-an385", "--samples", "50", "--quiet",
                      "--out", "results-main"],
    "results-branch/": ["suite", "--kernel", "floor", "--target", "mps2-an385", "--samples", "50", "--quiet",
                        "--out", "results-branch"],
    "results-*/": ["suite", "--kernel", "floor", "--target", "mps2-an385", "--samples", "50", "--quiet",
                   "--subset", "1/1", "--out", "results-1"],
}
ELF_INPUTS = ("app.elf",)  # your firmware: the example application, built for mps2-an385
CAPTURES = ("capture.sr", "yield.sr")  # a logic analyzer's capture of an Arduino Uno's D13: the pin's VCD, in sigrok


def _capped(arguments: list[str]) -> list[str]:
    """The samples capped: each value of --samples or --count at most SAMPLES_CAP (a list keeps as many
    distinct values), and the cap given where the command would take more by default."""
    capped, given = list(arguments), False
    for index, argument in enumerate(arguments[:-1]):
        if argument in ("--samples", "--count"):
            given = True
            values = [int(value) for value in arguments[index + 1].split(",")]
            ranked = sorted(set(values))
            capped[index + 1] = ",".join(str(min(value, SAMPLES_CAP) if len(ranked) == 1 else
                                             SAMPLES_CAP * (ranked.index(value) + 1) // len(ranked))
                                         for value in values)
    if not given and arguments and arguments[0] in ("run", "sweep", "suite", "intrusion"):
        capped += ["--samples", str(SAMPLES_CAP)]
    if not given and arguments and arguments[0] == "measure":
        capped += ["--count", str(SAMPLES_CAP)]
    return capped


def _inside(arguments: list[str], folder: Path) -> list[str]:
    """Paths outside the folder (/tmp/x, ../x) taken inside it, and globs expanded there."""
    taken = []
    for argument in arguments:
        if argument.startswith("/tmp/"):
            argument = argument.removeprefix("/tmp/")
        argument = argument.removeprefix("../")
        if any(mark in argument for mark in "*?[") and not argument.startswith("-"):
            taken += sorted(path.removeprefix(str(folder) + "/") for path in glob.glob(str(folder / argument)))
            continue
        taken.append(argument)
    return taken


def _written_by(arguments: list[str]) -> set[str]:
    outputs = set()
    for option in ("--json", "--out", "--vcd", "--html"):
        if option in arguments[:-1]:
            name = arguments[arguments.index(option) + 1].removeprefix("/tmp/").removeprefix("../")
            outputs |= {name, name.rstrip("/") + "/"}
    return outputs


def _read_by(command: PageCommand) -> list[str]:
    """The files and folders the command reads: its positional arguments that are no option's value."""
    arguments = command.arguments[1:]
    read, skip = [], False
    for argument in arguments:
        if skip:
            skip = False
        elif argument.startswith("-"):
            skip = "=" not in argument and argument not in _FLAGS
        elif argument not in ("bash", "zsh", "fish", "boards") and "." in argument or argument.endswith("/"):
            read.append(argument.removeprefix("/tmp/").removeprefix("../"))
    return read


_FLAGS = {"--floor", "--instructions", "--switches", "--build-example", "--quiet", "--across-targets",
          "--no-flash", "--simulate", "--resume", "--help"}


def _make(name: str, folder: Path, capsys, reader: PageCommand) -> None:
    """Make an input of `reader`: by the last command before it on its page that writes it (and measures for
    real), else by MADE_BY."""
    if (folder / name.rstrip("/")).exists() or glob.glob(str(folder / name)):
        return
    before = [c for c in COMMANDS if c.page == reader.page and c.line < reader.line and c.text not in HEAVY
              and "--port" not in c.arguments]
    project = next((c for c in reversed(before) if c.arguments[1] == "new-project"
                    and name.startswith(c.arguments[2].rstrip("/") + "/")), None)
    if project is not None:  # the project new-project writes, built as its page says: make -C DIR
        status, said = run_command(project.arguments[1:], capsys)
        assert status == 0, said
        import subprocess

        made = subprocess.run(["make", "-C", project.arguments[2]], capture_output=True, text=True, timeout=600)
        assert made.returncode == 0, made.stdout + made.stderr
        return
    if name in ELF_INPUTS:
        status, said = run_command(["measure", "--build-example", "--target", "mps2-an385", "--from",
                                    "xQueueGenericSend", "--to", "xQueueReceive", "--count", "1"], capsys)
        assert status == 0, said
        shutil.copy(re.search(r"the example application for mps2-an385: (\S+)", said).group(1), folder / name)
        return
    if name in CAPTURES:
        vcd = folder / "d13.vcd"
        status, said = run_command(["run", "--target", "atmega328p", "--scenario", "yield", "--method", "scope",
                                    "--samples", "20", "--quiet", "--vcd", str(vcd)], capsys)
        assert status == 0, said
        text = vcd.read_text().replace(" B5 ", " D13 ")  # the Uno's name of PB5, as the analyzer's channel is named
        vcd.write_text(text)
        sigrok = shutil.which("sigrok-cli")
        assert sigrok, "sigrok-cli is part of the set-up"
        import subprocess

        subprocess.run([sigrok, "-I", "vcd:downsample=625", "-i", str(vcd), "-o", str(folder / name)], check=True,
                       timeout=120)
        return
    earlier = [c for c in before if name in _written_by(c.arguments)]
    maker = _inside(_capped(earlier[-1].arguments[1:]), folder) if earlier else MADE_BY.get(name)
    assert maker, f"no command makes {name}: give it a MADE_BY entry"
    for needed in _read_by(earlier[-1] if earlier else PageCommand("", 0, "switchscope " + " ".join(maker))):
        _make(needed, folder, capsys, earlier[-1] if earlier else reader)
    status, said = run_command(maker, capsys)
    assert status == 0, f"making {name}: {' '.join(maker)}\n{said}"


class StandIn:
    """The measurements of a real board, and of HEAVY commands, stood in for: each fails at once, having been
    asked for (its job said), nothing built."""

    def __init__(self, monkeypatch):
        self.monkeypatch, self.asked = monkeypatch, []

    def _asked(self, what: str):
        self.asked.append(what)
        raise FirmwareFailed("not measured here (the test stands in for it)")

    def board(self):
        from switchscope.cli import boards, measuring

        self.monkeypatch.setattr(measuring, "measure_on_port", lambda job, *_a, **_k: self._asked(str(job)))
        self.monkeypatch.setattr(boards.flash, "flash", lambda target, image, port: self._asked(f"{image} to {port}"))

    def everything(self):
        from switchscope.cli import measuring

        self.board()
        self.monkeypatch.setattr(measuring, "measure", lambda job, *_a, **_k: self._asked(str(job)))
        self.monkeypatch.setattr(measuring.matrix, "run_points", lambda points, *_a, **_k: [
            (point, self._record(point)) for point in points])

    def _record(self, point) -> str:
        self.asked.append(str(point.job))
        return "not measured here (the test stands in for it)"


@pytest.fixture
def stand_in(monkeypatch):
    return StandIn(monkeypatch)


def test_every_page_has_its_commands_found():
    assert len(COMMANDS) > 70
    assert {command.page for command in COMMANDS} >= {"README.md", "docs/ci.md", "docs/boards.md",
                                                     "docs/own-firmware.md"}


def test_every_heavy_command_and_every_input_maker_is_still_on_a_page():
    texts = {command.text.removeprefix("switchscope ").removeprefix(".venv/bin/switchscope ")
             for command in COMMANDS}
    texts = {f"switchscope {text}" for text in texts}
    assert not set(HEAVY) - texts, f"no page has these any more: {set(HEAVY) - texts}"
    read = {name for command in COMMANDS for name in _read_by(command)}
    assert not set(MADE_BY) - read, f"no page command reads these any more: {set(MADE_BY) - read}"


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS, ids=[command.id for command in COMMANDS])
def test_the_page_command_runs_as_written(command, tmp_path, monkeypatch, capsys, stand_in, request):
    folder = tmp_path / "work"
    folder.mkdir()
    monkeypatch.chdir(folder)
    for name in _read_by(command):
        _make(name, folder, capsys, command)
    arguments = _inside(_capped(command.arguments[1:]), folder)
    heavy, on_board = command.text in HEAVY, "--port" in arguments
    if on_board and arguments[arguments.index("--port") + 1].startswith("/dev/"):  # the board's serial device:
        controller, device = os.openpty()  # a pty's, held open until the test ends
        request.addfinalizer(lambda: (os.close(controller), os.close(device)))
        arguments[arguments.index("--port") + 1] = os.ttyname(device)
    if heavy:
        stand_in.everything()
    elif on_board:
        stand_in.board()
    status, said = run_command(arguments, capsys)
    assert "Traceback" not in said, said
    if heavy or on_board:
        assert status == 1 and stand_in.asked, said  # got as far as the measurement, which the test stands in for
    elif arguments[0] == "compare":  # exit 1: a regression found, what compare is for (-Os against -O2)
        assert status in (0, 1) and re.search(r"\n\d+ compared: ", said), f"{command.id}: {said}"
    else:
        assert status == 0, f"{command.id}: {' '.join(arguments)}\n{said}"
