"""Tables that say what differs: side-by-side rows labelled by the options they differ in, kernels side by
side as targets are, an interrupt's worst case beside its median, why samples were excluded, n/a only where
a figure cannot be measured, one label and one precision per column, the settings that apply to a core, a
software count-leading-zeros said, and the µs of a board whose real chip adds flash wait states said to be
zero-wait-state figures. Pure: hand-made results (the tables are what is tested, not the measuring)."""

import re
import xml.etree.ElementTree as ElementTree
from html import unescape
from pathlib import Path

import pytest

from conftest import run_command
from switchscope import catalog
from switchscope.catalog import configs
from switchscope.cli import measuring
from switchscope.figures.result import Result
from switchscope.figures.results_files import ResultsFile
from switchscope.present import exports, html_report, report, side_by_side, svg

SVG = "{http://www.w3.org/2000/svg}"
CLOCKS = {"mps2-an385": 25e6, "ibex": 50e6, "ibex-qemu": 50e6, "microbit": 16e6, "atmega328p": 16e6,
          "netduinoplus2": 168e6}
CPUS = {"mps2-an385": "cortex-m3", "ibex": "rv32imc", "ibex-qemu": "rv32imc", "microbit": "cortex-m0",
        "atmega328p": "atmega328p", "netduinoplus2": "cortex-m4"}


def result(scenario="yield", samples=(124,) * 9, target="mps2-an385", kernel="freertos", method="probe",
           changed=None, **fields) -> Result:
    options = {**configs.defaults(catalog.KERNELS[kernel], catalog.TARGETS[target]), **(changed or {})}
    fields.setdefault("timing_model", catalog.TARGETS[target].timing_model)
    fields.setdefault("simulator", {"name": "QEMU emulator 10.0.2"})
    return Result("scenario", scenario, method=method, unit="cycles", samples=list(samples), overhead=8,
                  first=samples[0], kernel=kernel, kernel_version={"freertos": "V11.2.0", "floor": "1"}[kernel],
                  target=target, cpu=CPUS[target], f_cpu_hz=CLOCKS[target], options=options,
                  toolchain={"compiler": "gcc 12"}, **fields)


RTL = {"name": "Ibex 0.1 (small) RTL on Verilator 5.006"}


def latency(median: int, worst: int, target: str, irq_priority: str = "low") -> Result:
    samples = [median] * 8 + [worst]
    return result("irq-latency", samples, target, method="marker", changed={"irq_priority": irq_priority},
                  worst={"cycles": worst, "sample": 8, "samples": 1, "held": False},
                  **({"simulator": RTL} if target == "ibex" else {}))


def rows_of(text: str, header_word: str) -> tuple[list[str], list[list[str]]]:
    """A terminal table's header and rows, split on runs of two spaces or more (cells hold single spaces)."""
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if header_word in line.split())
    split = lambda line: re.split(r"\s{2,}", line.strip())
    header, body = split(lines[at]), []
    for line in lines[at + 1:]:
        if len(split(line)) != len(header):  # the notes under the table
            break
        body.append(split(line))
    return header, body


def page(tmp_path: Path, results: list[Result]) -> str:
    return unescape(html_report.render([ResultsFile(tmp_path / "results.json", results)], tmp_path / "report.html"))


def section(text: str, anchor: str) -> str:
    start = text.index(f'id="{anchor}"')
    return text[start:text.index("<h2", text.index("<h2", start) + 1)]


# 7: the options in which a side-by-side table's rows differ

def test_targets_side_by_side_label_rows_that_differ_in_an_option():
    """--config irq_priority=high,low on two targets: four rows, each saying its irq_priority."""
    results = [latency(57, 70, "mps2-an385"), latency(12, 12, "mps2-an385", "high"),
               latency(40, 52, "ibex"), latency(9, 9, "ibex", "high")]
    header, rows = rows_of(side_by_side.target_comparison(results), "target")
    options = [row[header.index("options")] for row in rows]
    targets = [row[header.index("target")] for row in rows]
    # the RISC-V port's switch is its own (ecall), and RV32IMC has no count-leading-zeros instruction, so its task
    # selection is the generic one: the rows differ in those too, and say it
    assert sorted(zip(targets, options)) == [
        ("ibex", "irq_priority=high,optimised_selection=off,switch=ecall"),
        ("ibex", "irq_priority=low,optimised_selection=off,switch=ecall"),
        ("mps2-an385", "irq_priority=high,optimised_selection=on,switch=pendsv"),
        ("mps2-an385", "irq_priority=low,optimised_selection=on,switch=pendsv")]
    assert len({tuple(row) for row in rows}) == 4  # no two rows alike


def test_methods_side_by_side_keep_each_configuration_apart():
    """--method all --config irq_priority=high,low: a row per priority, neither one lost under the other."""
    results = [result("isr", (m,) * 9, method=method, changed={"opt": opt})
               for opt, m in (("-O2", 150), ("-Os", 170)) for method in ("probe", "marker")]
    header, rows = rows_of(side_by_side.method_comparison(results), "target")
    assert [(row[header.index("options")], row[header.index("probe median")]) for row in rows] == \
        [("opt=-O2", "150"), ("opt=-Os", "170")]


def test_a_markdown_export_says_its_clock_is_a_zero_wait_state_one():
    text = exports.markdown_text([result(target="netduinoplus2", samples=(130,) * 9)])
    assert "§ netduinoplus2: zero-wait-state figures; the real chip runs its flash with 5 wait states" in text


def test_rows_alike_in_their_options_need_no_options_column():
    header, _ = rows_of(side_by_side.target_comparison([result(), result(target="netduinoplus2", samples=(130,) * 9)]),
                        "target")  # the Cortex-M3 and M4 ports' defaults are alike
    assert "options" not in header


def test_html_side_by_side_grids_say_the_options_their_columns_differ_in(tmp_path):
    """Each target in its own defaults: FreeRTOS's optimised selection is off on ARMv6-M (kernel.toml)."""
    targets = section(page(tmp_path, [result(), result(target="microbit", samples=(193,) * 9)]), "targets")
    assert "The columns' configurations differ: mps2-an385 (Cortex-M3 model): optimised_selection=on; " \
           "microbit (Cortex-M0 model): optimised_selection=off." in targets
    alike = section(page(tmp_path, [result(), result(target="netduinoplus2", samples=(130,) * 9)]), "targets")
    assert "configurations differ" not in alike


# 8: an interrupt's worst case beside its median

def test_irq_latency_side_by_side_gives_the_worst_case_beside_the_median(tmp_path):
    results = [latency(57, 70, "mps2-an385"), latency(40, 52, "ibex")]
    header, rows = rows_of(side_by_side.target_comparison(results), "target")
    worst = {row[header.index("target")]: row[header.index("max (worst)")] for row in rows}
    assert worst == {"mps2-an385": "70", "ibex": "52"}
    assert header.index("max (worst)") == header.index("median") + 1
    targets = section(page(tmp_path, results), "targets")
    assert "worst 70 cycles" in targets and "worst 52 cycles" in targets
    chart = ElementTree.fromstring(re.search(r"<svg class=\"plot bars\".*?</svg>", targets, re.S).group(0))
    whiskers = [p.find(f"{SVG}title").text for p in chart.iter(f"{SVG}path") if p.get("class") == "worst"]
    assert len(whiskers) == 2 and [w.rsplit(": ", 1)[1] for w in whiskers] == ["worst 70 cycles", "worst 52 cycles"]


# 10: why samples were excluded

def test_the_terminal_names_why_samples_were_excluded():
    """docs/measurement.md's rotate: 55 of 10,000 left out, 52 for the stamp's wrap, 3 for a tick."""
    rotate = result("rotate", (296,) * 9, tasks=2,
                    excluded_samples=[{"seq": i, "value": 0, "reason": "stamp_wrapped"} for i in range(52)]
                    + [{"seq": 60 + i, "value": 900, "reason": "tick_in_window"} for i in range(3)])
    text = report.table([rotate, result()])
    assert "  excl, rotate (2 tasks): 55 left out: 52 stamp wrapped, 3 tick in window" in text.splitlines()
    assert "excl, yield" not in text  # nothing excluded: nothing said
    assert "rotate (2 tasks) on mps2-an385 [default]: 55 left out: 52 stamp wrapped, 3 tick in window" in \
        report.sweep_table([rotate])


# 11: several kernels on one target

def test_kernels_on_one_target_are_set_side_by_side():
    freertos, floor = result(), result(kernel="floor", samples=(84,) * 9)
    header, rows = rows_of(side_by_side.kernel_comparison([freertos, floor]), "kernel")
    assert [row[header.index("kernel")] for row in rows] == ["freertos", "floor"]
    assert [row[header.index("median")] for row in rows] == ["124", "84"]
    assert "options" not in header  # the floor has none of FreeRTOS's options: that is no difference to list
    floor_os = result(kernel="floor", samples=(80,) * 9, changed={"opt": "-Os"})
    header, rows = rows_of(side_by_side.kernel_comparison([freertos, floor, floor_os]), "kernel")
    assert [row[header.index("options")] for row in rows] == ["opt=-O2", "opt=-O2", "opt=-Os"]
    assert side_by_side.kernel_comparison([freertos]) == ""


def test_run_prints_kernels_side_by_side(monkeypatch, capsys):
    medians = {"freertos": 124, "floor": 84}
    monkeypatch.setattr(measuring, "measure", lambda job, *arguments, **named: result(
        job.scenario.name, (medians[job.kernel.name],) * 9, kernel=job.kernel.name))
    status, said = run_command(["run", "--kernel", "freertos,floor", "--scenario", "yield", "--samples", "9",
                                "--quiet"], capsys)
    assert status == 0 and "kernels side by side (medians):" in said


# 9: n/a where a figure cannot be measured, blank where it was not

def test_targets_side_by_side_say_n_a_only_where_the_catalog_says_why(tmp_path):
    results = [result(method="marker", target=target) for target in ("mps2-an385", "ibex", "ibex-qemu", "microbit")]
    results += [latency(57, 70, "mps2-an385"), latency(40, 52, "ibex")]
    targets = section(page(tmp_path, results), "targets")
    grid = re.search(r'<table class="grid">.*?</table>', targets, re.S).group(0)
    row = re.search(r"<tr><td[^>]*>irq-latency</td>(.*?)</tr>", grid, re.S).group(1)
    cells = re.findall(r"<td([^>]*)>(.*?)</td>", row)
    columns = re.findall(r"<th[^>]*>([^<]*)</th>", grid)[1:]
    by_column = dict(zip(columns, cells))
    qemu = next(c for c in columns if c.startswith("ibex-qemu"))
    microbit = next(c for c in columns if c.startswith("microbit"))
    reason = catalog.TARGETS["ibex-qemu"].not_applicable[0][1]
    assert by_column[qemu] == (f' title="{reason}"', "n/a")
    assert by_column[microbit][1] == ""  # not measured: blank, not n/a
    assert f"cannot be measured there: {reason}" in targets


# 12: the settings that apply; a software count-leading-zeros

def test_a_cortex_m_setting_is_no_fact_of_an_ibex_build(tmp_path):
    reported = {"configMAX_SYSCALL_INTERRUPT_PRIORITY": "0xA0", "configUSE_PREEMPTION": "1"}
    text = page(tmp_path, [result(target="ibex", config=reported), result(config=reported)])
    ibex, m3 = re.findall(r"<dt>firmware reports</dt><dd>([^<]*)</dd>", text)
    assert "configMAX_SYSCALL_INTERRUPT_PRIORITY" not in ibex and "configUSE_PREEMPTION=1" in ibex
    assert "configMAX_SYSCALL_INTERRUPT_PRIORITY=0xA0" in m3


def test_cross_core_tables_say_when_a_kernel_counts_leading_zeros_in_software(tmp_path):
    optimised = {"configUSE_PORT_OPTIMISED_TASK_SELECTION": "1"}
    results = [result(config=optimised), result(target="ibex", samples=(246,) * 9, config=optimised,
                                                simulator=RTL)]
    text = side_by_side.target_comparison(results)
    header, rows = rows_of(text, "target")
    assert [row[header.index("core")] for row in rows] == ["cortex-m3", "rv32imc‡"]  # the M3 has CLZ
    assert "‡ the kernel's optimised task selection is on, on rv32imc, which has no count-leading-zeros" in text
    assert "rv32imc, which has no count-leading-zeros instruction" in section(page(tmp_path, results), "targets")
    switched_off = [result(), result(target="ibex", config={"configUSE_PORT_OPTIMISED_TASK_SELECTION": "0"})]
    assert "‡" not in side_by_side.target_comparison(switched_off)


# 13: labels

def test_what_counted_an_rtl_figure_has_one_label_in_the_terminal_and_the_html(tmp_path):
    rtl = result(target="ibex", samples=(246,) * 9, simulator=RTL)
    header, rows = rows_of(side_by_side.target_comparison([result(), rtl]), "target")
    assert rows[1][header.index("counted by")] == "Ibex RTL"
    targets = section(page(tmp_path, [result(), rtl]), "targets")
    assert "ibex (Ibex RTL)" in targets and "(Ibex)" not in targets


def test_the_floor_kernels_version_reads_as_a_version():
    heading = report.table([result(kernel="floor", samples=(84,) * 9)]).splitlines()[0]
    assert heading.startswith("floor version 1, on mps2-an385")


def test_a_microsecond_column_has_one_precision():
    """375 cycles at 25 MHz are 15 µs exactly, 603 at 50 MHz 12.06 µs: both to two places."""
    text = side_by_side.target_comparison([result(samples=(375,) * 9),
                                     result(target="ibex", samples=(603,) * 9, simulator={"name": "Ibex RTL"})])
    header, rows = rows_of(text, "target")
    assert [row[header.index("median µs")] for row in rows] == ["15.00", "12.06"]


def test_file_names_break_only_between_words(tmp_path):
    text = html_report.render([ResultsFile(tmp_path / "freertos-stm32vldiscovery-signal-scope.json", [result()])],
                              tmp_path / "report.html")
    assert ">freertos-<wbr>stm32<wbr>vldiscovery-<wbr>signal-<wbr>scope.<wbr>json</a>" in text
    assert re.search(r"td\.wrap \{[^}]*overflow-wrap: normal;", text)  # a wrapped cell breaks at its <wbr> only


def test_every_bar_of_a_crowded_chart_says_its_figure():
    """BeRTOS's layout: 4 scenarios x 4 configurations, 16 bars too narrow for a figure laid flat."""
    categories, series = ["resume", "signal", "yield", "isr"], ["Cooperative NOPRI", "Cooperative PRI",
                                                                 "Preemptive NOPRI", "Preemptive PRI"]
    values = {(c, s): 1000 + 37.5 * i for i, (c, s) in enumerate((c, s) for c in categories for s in series)}
    drawing = ElementTree.fromstring(svg.grouped_bars(categories, series, values, "cycles", "bars"))
    said = [t.text for t in drawing.iter(f"{SVG}text")]
    assert all(svg.figure_number(v) in said for v in values.values())
    top = min(float(t.get("y")) for t in drawing.iter(f"{SVG}text") if t.get("transform", "").startswith("rotate(-90 "))
    longest = max(svg.text_width(svg.figure_number(v)) for v in values.values())
    assert top - longest >= 0  # the tallest bar's upright figure stays inside the figure


def test_the_report_header_names_the_directory_read(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = html_report.render([ResultsFile(Path("results.json"), [result()])], tmp_path / "report.html")
    assert f"read from: {tmp_path.resolve()}</p>" in text


# 17: a board whose real chip adds flash wait states at its clock

def test_netduinoplus2s_flash_wait_states_are_the_reference_manuals():
    """RM0090, 3.5.1, Table 10 (2.7-3.6 V): 0 WS up to 30 MHz, then one more per 30 MHz: 150 < HCLK <= 168
    MHz is 5 WS. Worked here: ceil(168 / 30) - 1 = 5."""
    board = catalog.TARGETS["netduinoplus2"]
    assert board.flash.wait_states == -(-board.f_cpu_hz // 30_000_000) - 1 == 5
    assert "RM0090" in board.flash.wait_states_source
    assert catalog.TARGETS["mps2-an385"].flash is None  # an FPGA board's SRAM: no memory model, none to add


def test_every_table_printing_us_counted_without_the_memory_model_says_they_are_zero_wait_state(tmp_path):
    """A result that records no memory (a version before the flash model) of a board whose chip has wait states."""
    stm32 = result(target="netduinoplus2", samples=(130,) * 9)
    note = "netduinoplus2: zero-wait-state figures; the real chip runs its flash with 5 wait states at 168 MHz"
    lines = report.table([stm32]).splitlines()
    assert lines[4] == "  in µs at 168 MHz (§ zero-wait-state figures, under the table):"
    assert lines[7].startswith(f"  § {note} (RM0090")  # under the table in µs
    sides = side_by_side.target_comparison([result(), stm32])
    header, rows = rows_of(sides, "target")
    assert [row[header.index("median µs")] for row in rows] == ["4.96", "0.77§"]
    assert f"§ {note}" in sides and f"§ {note}" in report.sweep_table([stm32])
    html = page(tmp_path, [result(), stm32])
    assert "0.774 µs§" in section(html, "targets") and note in section(html, "targets")
    assert "0.774 µs§" in html and f"<dt>flash wait states</dt><dd>§ {note}" in html
    dwt = result(target="netduinoplus2", samples=(130,) * 9, timer={"name": "DWT"})  # the chip's own count
    assert "§" not in report.table([dwt]) and "zero-wait-state" not in report.table([result()])


# what a user runs

@pytest.mark.firmware
def test_a_run_at_two_priorities_on_two_targets_tells_its_rows_apart_and_gives_each_worst_case(capsys):
    status, said = run_command(["run", "--target", "mps2-an385,mps2-an386", "--scenario", "irq-latency",
                                "--config", "irq_priority=high,low", "--quiet"], capsys)
    assert status == 0, said
    table = said[said.index("targets side by side (medians):"):]
    header, rows = rows_of(table, "target")
    labelled = sorted((row[header.index("target")], row[header.index("options")]) for row in rows)
    # the Cortex-M3 and M4 ports' defaults are alike: the rows differ in irq_priority only
    assert labelled == [(target, f"irq_priority={value}") for target in ("mps2-an385", "mps2-an386")
                        for value in ("high", "low")]
    # each row's worst case is the one its own block reports under its table
    worst = [int(figure) for figure in re.findall(r"  irq-latency: worst (\d+) cycles", said)]
    assert sorted(int(row[header.index("max (worst)")]) for row in rows) == sorted(worst)
    assert all(int(row[header.index("max (worst)")]) >= int(row[header.index("median")]) for row in rows)


@pytest.mark.firmware
def test_a_run_of_two_kernels_sets_them_side_by_side_and_says_why_samples_were_left_out(capsys):
    status, said = run_command(["run", "--kernel", "freertos,floor", "--scenario", "rotate", "--tasks", "2",
                                "--samples", "10000", "--quiet"], capsys)
    assert status == 0, said
    header, rows = rows_of(said[said.index("kernels side by side (medians):"):], "kernel")
    medians = {row[header.index("kernel")]: row[header.index("median")] for row in rows}
    assert set(medians) == {"freertos", "floor"}
    for block in said.split("\n\n")[:2]:  # each kernel's own table: its median, and its exclusions named
        kernel = block.split()[0]
        columns, (row, *_) = rows_of(block, "scenario")
        assert row[columns.index("median")] == medians[kernel]
        excluded = int(row[columns.index("excl")])
        if excluded:
            reasons = re.search(r"excl, rotate \(2 tasks\): ([\d,]+) left out: (.*)", block)
            assert int(reasons.group(1)) == excluded
            assert sum(int(n) for n in re.findall(r"(\d+) [a-z ]+", reasons.group(2))) == excluded
