"""The command line's answers to bad input: a clear message and exit code, never a traceback."""

import os
import shutil

import pytest

from switchscope.cli import main


@pytest.mark.parametrize("option,value,valid", [
    ("--kernel", "zephyr", "floor, freertos, embassy, lilos, rtic, all"),
    ("--target", "stm32f4", "atmega328p, bluepill, ibex, ibex-maxperf, ibex-qemu, lm3s6965evb, microbit, microbit-m0plus, mps2-an385, mps2-an386, mps2-an386-fpu, netduinoplus2, nucleo-l432kc, stm32vldiscovery, vexriscv, all"),
    ("--scenario", "pingpong", "resume, signal, yield, isr, rotate, sem-shuffle, deadlock-raise, deadlock-release, msg, "
                               "tm-basic, tm-cooperative, tm-preemptive, tm-interrupt, tm-interrupt-preemption, "
                               "tm-message, tm-synchronization, tm-memory, irq-latency, ruler, irq-ruler, "
                               "deadlock-break, thread-metric, all"),
    ("--method", "oscilloscope", "probe, scope, marker, all"),
])
def test_an_unknown_name_lists_the_valid_ones(capsys, option, value, valid):
    assert main(["run", option, value]) == 2
    err = capsys.readouterr().err
    assert f"unknown {option[2:]} '{value}'" in err
    assert f"valid {option[2:]}s: {valid}" in err
    assert "Traceback" not in err


def test_list_names_every_kernel_target_scenario_and_method(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for word in ("kernels:", "freertos", "targets:", "mps2-an385", "scenarios:", "resume", "signal", "yield",
                 "isr", "ruler", "methods:", "probe"):
        assert word in out


def test_no_command_prints_help(capsys):
    assert main([]) == 2
    assert "usage: switchscope" in capsys.readouterr().out


@pytest.mark.parametrize("count", ["0", "4294967296"])
def test_sample_count_must_fit_the_firmware(capsys, count):
    # the firmware counts samples in 32 bits: a larger count would be cut on its way there
    assert main(["run", "--samples", count]) == 2
    assert f"--samples takes 1 to 4294967295, got {count}" in capsys.readouterr().err


def _path_with(tmp_path, *tools):
    """A PATH holding only the named tools (and the Python running the tests)."""
    for tool in tools:
        os.symlink(shutil.which(tool), tmp_path / tool)
    return str(tmp_path)


@pytest.fixture
def helper_built(monkeypatch):
    """The simulator's host helper (the QEMU plugin) taken as built: building it takes the host's gcc, which
    these PATHs leave out, and whether it is built is the checkout's state (a fresh one, or a plugin source
    newer than its build), not the message tested here."""
    from switchscope.build import native

    monkeypatch.setattr(native, "ensure", lambda simulator, core_config=None: native.TOOLS[simulator].output)


def test_a_missing_compiler_names_its_debian_package(tmp_path, monkeypatch, capsys, helper_built):
    monkeypatch.setenv("PATH", _path_with(tmp_path))
    assert main(["run", "--scenario", "resume", "--samples", "10", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "arm-none-eabi-gcc not found" in err
    assert "apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi" in err


def test_a_missing_riscv_compiler_names_its_debian_package(tmp_path, monkeypatch, capsys):
    from switchscope.build import native

    monkeypatch.setattr(native, "ensure", lambda simulator, core_config=None: tmp_path / "ibex-sim")  # the model
    monkeypatch.setenv("PATH", _path_with(tmp_path))
    assert main(["run", "--target", "ibex", "--scenario", "yield", "--samples", "10", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "riscv64-unknown-elf-gcc not found" in err and "apt-get install gcc-riscv64-unknown-elf" in err


def test_a_missing_simulator_names_its_debian_package(tmp_path, monkeypatch, capsys, helper_built):
    monkeypatch.setenv("PATH", _path_with(tmp_path, "arm-none-eabi-gcc", "arm-none-eabi-size", "cargo"))
    assert main(["run", "--scenario", "resume", "--samples", "10", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "qemu-system-arm not found" in err
    assert "apt-get install qemu-system-arm" in err
