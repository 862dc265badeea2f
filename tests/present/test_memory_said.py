"""Every figure's memory said where it is printed: under every table with µs, in exports and on the HTML page
each board's memory once per setting (a flash model's wait states, accelerator and caches; zero wait states
on a board without one), rows of a sweep over the accelerator side by side, and a comparison whose sides
were counted with other memories saying so beside its verdict. Pure: hand-made results."""

import csv
import io
from html import unescape

from switchscope import catalog
from switchscope.catalog import configs
from switchscope.catalog.memory import MemorySettings
from switchscope.figures import memory_used
from switchscope.figures.result import Result
from switchscope.figures.results_files import ResultsFile
from switchscope.present import compare, exports, html_report, report, side_by_side

F405, MPS2 = catalog.TARGETS["netduinoplus2"], catalog.TARGETS["mps2-an385"]
FREERTOS = catalog.KERNELS["freertos"]
ART_ON = ("flash 5 wait states as programmed, prefetch, I-cache 64 lines of 128 bits, D-cache 8 lines of 128 bits, "
          "warm")
ART_OFF = "flash 5 wait states as programmed, accelerator off (forced)"


def result(target=F405, samples=(263,) * 9, settings=MemorySettings(), chosen=None, recorded=True) -> Result:
    config = configs.resolve(chosen or {}, FREERTOS, target, catalog.SCENARIOS["yield"])
    return Result("scenario", "yield", "probe", "cycles", list(samples), 8, samples[0], kernel="freertos",
                  kernel_version="V11.2.0", target=target.name, cpu=target.cpu, f_cpu_hz=target.f_cpu_hz,
                  options=config.as_dict(), toolchain={"compiler": "gcc 12"}, timing_model=target.timing_model,
                  simulator={"name": "QEMU emulator 10.0.2"},
                  memory=memory_used.record(target, "cycles", settings) if recorded else None)


ON, OFF = result(), result(samples=(499,) * 9, settings=MemorySettings(accelerator=False),
                           chosen={"accelerator": "off"})


def test_a_run_table_says_the_memory_of_its_figures_under_the_us():
    lines = report.table([ON]).splitlines()
    assert lines[lines.index("  in µs at 168 MHz:") + 3] == f"  memory on netduinoplus2: {ART_ON}"
    assert "§" not in report.table([ON])  # counted with its memory model: no zero-wait-state mark
    assert "  memory on mps2-an385: zero wait states" in report.table([result(MPS2, (124,) * 9)]).splitlines()


def test_a_sweep_over_the_accelerator_gives_its_rows_side_by_side_each_memory_said():
    table = report.sweep_table([OFF, ON])
    assert "accelerator=off" in table and "accelerator=programmed" in table
    assert f"  memory on netduinoplus2: {ART_OFF}" in table and f"  memory on netduinoplus2: {ART_ON}" in table


def test_every_target_at_its_own_clock_and_memory():
    """run --target all: µs at each board's clock, each memory under the table once, with its boards."""
    sides = side_by_side.target_comparison([result(MPS2, (124,) * 9), result(catalog.TARGETS["microbit"], (192,) * 9),
                                            ON])
    assert "4.96" in sides and "12.00" in sides and "1.57" in sides  # at 25 MHz, 16 MHz and 168 MHz
    lines = sides.splitlines()
    assert "  memory on mps2-an385, microbit: zero wait states" in lines
    assert f"  memory on netduinoplus2: {ART_ON}" in lines


def test_exports_and_the_page_say_it(tmp_path):
    assert f"memory on netduinoplus2: {ART_OFF}." in exports.markdown_text([OFF])
    rows = list(csv.DictReader(io.StringIO(exports.csv_text([OFF, result(MPS2, (124,) * 9)]))))
    assert [row["memory"] for row in rows] == [ART_OFF, "zero wait states"]
    page = unescape(html_report.render([ResultsFile(tmp_path / "results.json", [ON, OFF])], tmp_path / "r.html"))
    assert f"<dt>memory</dt><dd>{ART_ON}</dd>" in page and f"<dt>memory</dt><dd>{ART_OFF}</dd>" in page


def test_a_comparison_across_memories_says_so_beside_its_verdict():
    """A result before the flash model (none recorded) against one with it: slower, and why."""
    (found,) = compare.compare([result(samples=(124,) * 9, recorded=False)], [ON], "median", compare.Threshold(0, False))
    assert found.verdict == "slower" and \
        f"memory zero wait states, without the chip's memory model vs {ART_ON}" in found.why
    ignored = ("accelerator",)
    (across,) = compare.compare([OFF], [ON], "median", compare.Threshold(0, False), ignored)
    assert across.verdict == "faster" and f"memory {ART_OFF} vs {ART_ON}" in across.why
