"""Shared helpers: jobs for tests that build and run real firmware, and the
harness that runs a command line in-process and checks a refusal's promises."""

import time
from pathlib import Path

import pytest

from switchscope import catalog
from switchscope.catalog.job import Job

TEST_FIRMWARE = Path(__file__).parent / "firmware"


def layout_blind(names) -> list[str]:
    """The targets where the methods' builds, laid out differently, cost the same: not Ibex's RTL, where a
    32-bit instruction 2 bytes past a word after a jump costs a second fetch (tests/run/test_ibex.py), nor the
    Ibex model, which charges that fetch too."""
    return [name for name in names if catalog.TARGETS[name].simulator != "verilator"
            and not (catalog.TARGETS[name].timing_model or "").startswith("ibex")]


def machines_once(names) -> list[str]:
    """The targets less those timed on another chip's machine ([simulator] caveat) whose QEMU machine and core
    model another of them already runs (bluepill: stm32vldiscovery's machine and Cortex-M3 model): for the tests
    of what the machine, the kernel's port and the harness do, which such a target repeats. The tests of a
    figure (methods agree, rulers) keep every target: its chip's memory is its own."""
    kept, seen = [], set()
    for name in sorted(names, key=lambda name: catalog.TARGETS[name].caveat is not None):
        target = catalog.TARGETS[name]
        pair = (target.simulator, target.simulated_machine, target.timing_model)
        if target.caveat is None or pair not in seen:
            kept.append(name)
        seen.add(pair)
    return [name for name in names if name in kept]


# the core's own cycles on a board whose flash is modelled (board.toml [flash]): no wait states, no accelerator
# (at zero wait states the ART on still moves a few cycles)
CORE_ALONE = {"wait_states": "0", "accelerator": "off"}


def core_alone(target) -> dict[str, str]:
    """The options that leave a target's cycles its core's own: CORE_ALONE where its flash is modelled."""
    return CORE_ALONE if target.flash is not None else {}


def job(scenario: str, target: str = "mps2-an385", kernel: str = "freertos") -> Job:
    """A job for a catalogued scenario, or for one of the test scenarios in tests/firmware/."""
    if scenario in catalog.SCENARIOS:
        chosen = catalog.SCENARIOS[scenario]
    else:
        chosen = catalog.Scenario(scenario, f"test scenario {scenario}", source=TEST_FIRMWARE / f"{scenario}.c")
    return Job(catalog.KERNELS[kernel], catalog.TARGETS[target], chosen, catalog.METHODS["probe"])


@pytest.fixture
def make_job():
    return job


def run_command(arguments, capsys) -> tuple[int | None, str]:
    """The exit status and everything said of `switchscope ARGUMENTS`, run in this
    process; a traceback, if it ended in one, is part of what was said."""
    import signal
    import traceback

    from switchscope import cli

    handlers = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    crash = ""
    try:
        status = cli.main(arguments)
    except SystemExit as exit:  # argparse's own errors
        status = exit.code
    except BaseException:
        status, crash = None, traceback.format_exc()
    finally:
        for number, handler in handlers.items():
            signal.signal(number, handler)
    captured = capsys.readouterr()
    return status, captured.out + captured.err + crash


def wait_for(condition, seconds: float = 60.0):
    """The first true value of `condition()`, asked every 0.1 s; an AssertionError after `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {seconds} s")


def lay_out(folder: Path, files: dict[str, str | bytes]) -> Path:
    """Write `files` (name: text or bytes) under `folder`."""
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="latin-1")
    return folder


def refused_cleanly(folder: Path, files, arguments, status: int, fragment: str, monkeypatch, capsys) -> str:
    """Run `switchscope ARGUMENTS` in `folder` holding `files` and check the promises
    of a refusal: the exit status, a message naming the problem, no traceback, the
    inputs untouched and nothing written. Returns what was said."""
    lay_out(folder, files)
    monkeypatch.chdir(folder)
    before = {path: path.read_bytes() for path in folder.rglob("*") if path.is_file()}
    got, said = run_command(arguments, capsys)
    assert "Traceback" not in said, said
    assert got == status, said
    assert fragment in said, said
    assert {path: path.read_bytes() for path in before} == before  # inputs untouched
    assert sorted(path for path in folder.rglob("*") if path.is_file()) == sorted(before)  # nothing written
    return said


# When and how fast a result was measured, not what it measured: left out where two runs' results are compared.
VARYING_FIELDS = {"measured_at", "wall_seconds", "project"}


def measured_fields(path: Path) -> dict:
    """The one result of a run's JSON file, without the fields that vary from run to run."""
    import json

    (result,) = json.loads(path.read_text())["results"]
    return {key: value for key, value in result.items() if key not in VARYING_FIELDS}


@pytest.hookimpl(tryfirst=True)  # before -m deselects by the marks
def pytest_collection_modifyitems(items):
    """A property test is a slow one too (hundreds of generated inputs, seconds each): -m 'not slow' leaves it
    out with the others (pyproject.toml's markers say which)."""
    for item in items:
        if item.get_closest_marker("property") and not item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.slow)
