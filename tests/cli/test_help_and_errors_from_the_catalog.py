"""Help and refusals that name targets take the names from the catalog, so that they say where a thing
works: measure --help's --switches, the example application's targets, irq_priority=high's targets, the
methods irq-latency is timed by, and the one kernel the example is written for, refused before it is built."""

import re

import pytest

from switchscope import catalog
from switchscope.cli.parser import parser

from conftest import refused_cleanly, run_command


def _measure_help(monkeypatch) -> str:
    monkeypatch.setenv("COLUMNS", "10000")  # one line each: argparse wraps a long list at a name's hyphen
    return " ".join(parser()._subparsers._group_actions[0].choices["measure"].format_help().split())


def test_measure_help_names_every_target_switches_are_found_on_and_no_other(tmp_path, monkeypatch, capsys):
    said = _measure_help(monkeypatch)
    named = set(re.search(r"--switches time every task switch instead \(in cycles; needs --kernel\), on (.*?) "
                          r"--kernel", said).group(1).replace(",", " ").split())
    assert {"ibex", "ibex-maxperf", "atmega328p", "mps2-an385", "microbit"} <= named  # the RTL, simavr, QEMU's Cortex-M
    assert "ibex-qemu" not in named  # the plugin follows no RISC-V trap
    (tmp_path / "app.elf").write_bytes(b"\x7fELF")
    monkeypatch.chdir(tmp_path)
    for name in catalog.TARGETS:
        status, text = run_command(["measure", "app.elf", "--target", name, "--switches", "--kernel", "freertos"],
                                   capsys)
        assert "Traceback" not in text
        assert (f"--switches on {name}:" not in text) == (name in named), text


def test_switches_on_ibex_qemu_are_refused_pointing_at_the_rtl(tmp_path, monkeypatch, capsys):
    said = refused_cleanly(tmp_path, {"app.elf": b"\x7fELF"}, ["measure", "app.elf", "--target", "ibex-qemu",
                           "--switches", "--kernel", "freertos"], 2, "RISC-V trap", monkeypatch, capsys)
    assert "measure the switches with --target ibex or ibex-maxperf," in said


def test_the_example_refused_on_a_target_names_every_target_it_is_built_for(tmp_path, monkeypatch, capsys):
    said = refused_cleanly(tmp_path, {}, ["measure", "--build-example", "--target", "ibex-qemu", "--switches",
                                          "--kernel", "freertos"], 2, "spare timer", monkeypatch, capsys)
    hint = said.splitlines()[-1]
    # the boards whose board code drives a spare timer (board.toml [latency_timer]): the micro:bit's too
    for name in ("mps2-an385", "mps2-an386", "atmega328p", "microbit", "microbit-m0plus", "ibex"):
        assert name in hint, said
    assert "ibex-qemu" not in hint and "stm32vldiscovery" not in hint


@pytest.mark.parametrize("kernel", ["embassy", "floor"])
def test_the_example_with_another_kernel_is_refused_before_anything_is_built(tmp_path, monkeypatch, capsys, kernel):
    build = tmp_path / "build"
    monkeypatch.setenv("SWITCHSCOPE_BUILD", str(build))
    said = refused_cleanly(tmp_path, {}, ["measure", "--build-example", "--target", "mps2-an385", "--switches",
                                          "--kernel", kernel], 2, "the example application is written for FreeRTOS",
                           monkeypatch, capsys)
    assert "--kernel freertos" in said
    assert not (build / "examples").exists()  # refused before the build


def test_irq_priority_high_on_the_atmega_names_the_targets_that_take_it(tmp_path, monkeypatch, capsys):
    said = refused_cleanly(tmp_path, {}, ["run", "--target", "atmega328p", "--scenario", "irq-latency", "--config",
                                          "irq_priority=high"], 2, "no interrupt priorities", monkeypatch, capsys)
    hint = said.splitlines()[-1]
    # Ibex: high is its non-maskable interrupt; the Cortex-M3 and M4: above BASEPRI's ceiling
    assert "ibex" in hint and "mps2-an385" in hint and "mps2-an386" in hint, said
    # FreeRTOS's ARMv6-M port masks every priority (PRIMASK), and virt has no latency timer: not there
    assert "microbit" not in hint and "ibex-qemu" not in hint and "atmega328p" not in hint, said


def test_irq_latency_by_a_method_that_cannot_time_it_names_the_methods_that_can(tmp_path, monkeypatch, capsys):
    said = refused_cleanly(tmp_path, {}, ["run", "--scenario", "irq-latency", "--method", "scope"], 2,
                           "--method marker", monkeypatch, capsys)
    assert "--method probe" in said
    assert "choose a --target the kernel is ported to" not in said  # not the generic hint
