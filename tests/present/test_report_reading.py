"""The HTML report read as a person reads it: every result's heading names
what was measured and no two are alike; option values that are numbers sort
as numbers; a run under a load shows its interfered windows beside the
others; the latency-per-step plot says which line is which. Pure: hand-made
results."""

import re
from dataclasses import replace as dataclasses_replace
from html import unescape
from pathlib import Path
from xml.etree import ElementTree

from switchscope import catalog
from switchscope.catalog import configs
from switchscope.figures.result import Result
from switchscope.figures.results_files import ResultsFile
from switchscope.present import html_parts, html_report, svg

SVG = "{http://www.w3.org/2000/svg}"
DEFAULTS = configs.defaults(catalog.KERNELS["freertos"], catalog.TARGETS["mps2-an385"])


def result(scenario: str = "yield", median: int = 300, samples: int = 50, tasks: int | None = None,
           method: str = "probe", unit: str = "cycles", **changed) -> Result:
    return Result(kind="scenario", scenario=scenario, method=method, unit=unit,
                  samples=[median + i % 3 for i in range(samples)], overhead=8, first=median, kernel="freertos",
                  target="mps2-an385", tasks=tasks, options={**DEFAULTS, **changed}, f_cpu_hz=25e6)


def page(tmp_path: Path, *files: list[Result]) -> str:
    return html_report.render([ResultsFile(tmp_path / f"results-{i}.json", results) for i, results in enumerate(files)],
                              tmp_path / "report.html")


def summaries(text: str) -> list[str]:
    """Each result's heading: its summary line, without the "#N" and the median after it."""
    return [unescape(heading) for heading in re.findall(r"<summary>#\d+ ([^<]*): median ", text)]


def test_every_result_heading_names_its_configuration_and_none_is_alike(tmp_path):
    results = [result("irq-latency", 57, method="marker", irq_priority="low"),
               result("irq-latency", 12, method="marker", irq_priority="high"),
               result("yield", 124, opt="-Os", preemption="off"),
               result("rotate", 280, tasks=4, samples=100), result("rotate", 281, tasks=4, samples=1000),
               result("rotate", 280, tasks=4, samples=100, switch="software"),
               result("yield", 300, unit="instructions"), result("yield", 124)]
    again = [result("yield", 124)]  # the same measurement once more, in another file
    headings = summaries(page(tmp_path, results, again))
    assert len(headings) == len(set(headings)) == len(results) + len(again), headings
    assert headings[:3] == ["freertos / mps2-an385 / irq-latency / marker",
                            "freertos / mps2-an385 / irq-latency / marker, irq_priority=high",
                            "freertos / mps2-an385 / yield / probe, opt=-Os, preemption=off"]
    # the switch-count curve's points differ in their samples only, and say so
    assert headings[3:6] == ["freertos / mps2-an385 / rotate (4 tasks) / probe, 100 samples",
                             "freertos / mps2-an385 / rotate (4 tasks) / probe, 1,000 samples",
                             "freertos / mps2-an385 / rotate (4 tasks) / probe, switch=software"]
    # another unit is another measurement; the same one twice is run 1 and run 2
    assert headings[6:] == ["freertos / mps2-an385 / yield / probe, instructions",
                            "freertos / mps2-an385 / yield / probe, cycles, run 1",
                            "freertos / mps2-an385 / yield / probe, cycles, run 2"]


def test_no_two_section_headings_are_alike_across_methods_and_configurations(tmp_path):
    rotate = [result("rotate", 280 + tasks, tasks=tasks, method=method, samples=samples)
              for method in ("probe", "marker") for tasks in (2, 3) for samples in (100, 300)]
    msg = [result("msg", 450 + size, msg_size=str(size), opt=opt) for opt in ("-O2", "-Os") for size in (1, 4, 16)]
    text = page(tmp_path, rotate + msg)
    headings = re.findall(r"<h3>([^<]+)</h3>", text)
    assert len(headings) == len(set(headings)), headings
    assert ("freertos on mps2-an385, marker method in cycles: rotate, time per switch against the number of tasks "
            "(default configuration)") in headings
    assert any("msg against the message&#x27;s size (probe method, cycles, opt=-Os)" in h for h in headings)


def test_numbers_in_option_values_sort_as_numbers():
    sizes = ["msg_size=64", "msg_size=4", "msg_size=16", "msg_size=1"]
    assert sorted(sizes, key=html_parts.natural_key) == ["msg_size=1", "msg_size=4", "msg_size=16", "msg_size=64"]
    assert sorted(["10,000 switches", "300 switches", "1,000 switches"], key=html_parts.natural_key) == \
        ["300 switches", "1,000 switches", "10,000 switches"]
    assert sorted(["opt=-Os", "opt=-O2", "opt=-O3"], key=html_parts.natural_key) == ["opt=-O2", "opt=-O3", "opt=-Os"]


def test_a_msg_size_sweep_reads_1_4_16_64_in_its_table_and_figures(tmp_path):
    results = [result("msg", 450 + size, msg_size=str(size)) for size in (16, 1, 64, 4)]
    text = page(tmp_path, results)
    section = re.search(r'<section id="configurations">(.*?)</section>', text, re.S).group(1)
    columns = re.findall(r'scope="col">(msg_size=\d+)</th>', section)
    assert columns == ["msg_size=1", "msg_size=4", "msg_size=16", "msg_size=64"]
    drawing = ElementTree.fromstring(re.search(r"<svg.*?</svg>", section, re.S).group(0))
    legend = [t.text for t in drawing.iter(f"{SVG}text") if (t.text or "").startswith("msg_size=")]
    assert legend == columns
    curve = re.search(r'<section id="msg">(.*?)</section>', text, re.S).group(1)
    ticks = ElementTree.fromstring(re.search(r"<svg.*?</svg>", curve, re.S).group(0))
    assert [t.text for t in ticks.iter(f"{SVG}text") if t.text in ("1", "4", "16", "64")] == ["1", "4", "16", "64"]


def test_rotate_lines_are_in_numeric_order_of_their_options(tmp_path):
    results = [result("rotate", 280 + tasks, tasks=tasks, msg_size=str(size)) for size in (64, 16, 1)
               for tasks in (2, 3)]
    section = re.search(r'<section id="rotate">(.*?)</section>', page(tmp_path, results), re.S).group(1)
    drawing = ElementTree.fromstring(re.search(r"<svg.*?</svg>", section, re.S).group(0))
    assert [t.text for t in drawing.iter(f"{SVG}text") if (t.text or "").startswith("msg_size=")] == \
        ["msg_size=1", "msg_size=16", "msg_size=64"]


def test_the_table_of_every_result_sorts_text_with_its_numbers_as_numbers():
    assert 'localeCompare(y, "en", {numeric: true})' in html_parts.SCRIPT


def test_a_run_under_load_shows_its_interfered_windows_beside_the_undisturbed_ones(tmp_path):
    samples = [287] * 6 + [346, 350, 900]
    loaded = Result(kind="scenario", scenario="rotate", method="probe", unit="cycles", samples=samples, overhead=8,
                    first=287, kernel="freertos", target="mps2-an385", tasks=4, interfered=[6, 7, 8],
                    options={**DEFAULTS, "load": "voip"},
                    config={"load": "voip", "load_period_us": 125, "load_tasks": 1})
    text = page(tmp_path, [loaded, result("yield")])
    summary = unescape(re.search(r"<summary>#1 (.*?)</summary>", text).group(1))
    assert "load=voip" in summary
    assert re.sub("<[^>]+>", "", summary).endswith("(3 interfered: median 350 cycles; 6 undisturbed: median 287 cycles)")
    rows = {cells[0]: cells[1:] for cells in (re.findall(r"<td[^>]*>([^<]*)</td>", row)
                                              for row in re.findall(r"<tr>(.*?)</tr>", text)) if cells}
    assert rows["interfered (3)"][:2] == ["346", "350"] and rows["undisturbed (6)"][:2] == ["287", "287"]
    assert "a timer interrupt every 125 µs, 1 encoding task(s); of the 9 kept windows, 3 interfered" in unescape(text)
    # a run without a load says nothing of one
    plain = re.search(r'<details class="result" id="result-2".*?</details>', text, re.S).group(0)
    assert "interfered" not in plain and "undisturbed" not in plain


def test_the_latency_at_each_step_has_a_legend():
    drawing = ElementTree.fromstring(svg.by_phase([0, 1, 2, 2, 3], [10, 12, 30, 14, 11], 4, "cycles",
                                                  "instructions", "latency at each step"))
    texts = [t.text for t in drawing.iter(f"{SVG}text")]
    assert "the most at each step" in texts and "the least at each step" in texts
    swatches = [r.get("fill") for r in drawing.iter(f"{SVG}rect")]
    strokes = [p.get("stroke") for p in drawing.iter(f"{SVG}polyline")]
    assert sorted(swatches) == sorted(strokes)  # each swatch the colour of its line


def test_a_core_timed_on_another_cores_machine_says_so_where_targets_are_side_by_side(tmp_path):
    m0, m0plus = (dataclasses_replace(result(median=median), target=target, timing_model=model,
                                      options=configs.defaults(catalog.KERNELS["freertos"], catalog.TARGETS[target]))
                  for median, target, model in ((193, "microbit", "cortex-m0"), (177, "microbit-m0plus", "cortex-m0plus")))
    text = unescape(page(tmp_path, [m0, m0plus]))
    start = text.index('id="targets"')
    targets = text[start:text.index("<h2", text.index("<h2", start) + 1)]  # its section, to the next heading
    caveat = catalog.TARGETS["microbit-m0plus"].caveat
    assert f"† microbit-m0plus: {caveat}" in targets
    assert "microbit-m0plus (Cortex-M0+ model)†" in targets  # its column is marked (and its bars and legend)
    assert "microbit (Cortex-M0 model)†" not in targets  # the Cortex-M0 runs on its own machine
