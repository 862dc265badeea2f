"""The HTML report's layout, read from the page it writes: every heading says
which configuration it shows, curves share a chart with a legend, histograms
are open, and the figures' labels are sized and spaced to be read on a phone."""

import re
from pathlib import Path
from xml.etree import ElementTree

from switchscope import catalog
from switchscope.catalog import configs
from switchscope.figures.result import Result
from switchscope.figures.results_files import ResultsFile
from switchscope.present import html_report, svg

SVG = "{http://www.w3.org/2000/svg}"
DEFAULTS = configs.defaults(catalog.KERNELS["freertos"], catalog.TARGETS["mps2-an385"])


def rotate(tasks: int, samples: int, median: int, **changed) -> Result:
    return Result(kind="scenario", scenario="rotate", method="probe", unit="cycles", samples=[median] * samples,
                  overhead=8, first=median, kernel="freertos", target="mps2-an385", tasks=tasks,
                  options={**DEFAULTS, **changed})


def page(tmp_path: Path, results: list[Result]) -> str:
    return html_report.render([ResultsFile(tmp_path / "sweep.json", results)], tmp_path / "report.html")


def charts(text: str) -> dict[str, ElementTree.Element]:
    """Each chart of the rotate section under its heading."""
    section = re.search(r'<section id="rotate">(.*?)</section>', text, re.S).group(1)
    return {heading: ElementTree.fromstring(drawing)
            for heading, drawing in re.findall(r"<h3>([^<]+)</h3>(<svg.*?</svg>)", section, re.S)}


def test_a_rotate_sweep_is_one_chart_per_axis_with_a_line_per_configuration_or_task_count(tmp_path):
    # 2 configurations x tasks 2, 3, 4 x 100 and 300 switches
    results = [rotate(tasks, samples, 280 - 5 * tasks + (samples == 300) - 10 * (preemption == "off"),
                      preemption=preemption)
               for preemption in ("on", "off") for tasks in (2, 3, 4) for samples in (100, 300)]
    found = charts(page(tmp_path, results))
    assert list(found) == [
        "freertos on mps2-an385: rotate, time per switch against the number of tasks",
        "freertos on mps2-an385: rotate, time per switch against the number of switches (default configuration)",
        "freertos on mps2-an385: rotate, time per switch against the number of switches (preemption=off)"]
    against_tasks, *against_switches = found.values()
    # against tasks: a line per configuration, its legend naming each
    assert len(against_tasks.findall(f".//{SVG}polyline")) == 2
    texts = [t.text for t in against_tasks.iter(f"{SVG}text")]
    assert "default configuration" in texts and "preemption=off" in texts
    assert [t for t in texts if t in ("2", "3", "4")] == ["2", "3", "4"]  # the x axis: the task counts, once each
    # each point is the 300-sample result (the most samples of that task count), its hover title says so
    titles = [p.find(f"{SVG}title").text for p in against_tasks.iter(f"{SVG}circle")]
    assert "preemption=off, 4 tasks: median 251 cycles (min 251, max 251, 0 excluded)" in titles
    # against switches: per configuration, a line per task count
    for chart in against_switches:
        assert len(chart.findall(f".//{SVG}polyline")) == 3
        assert {"2 tasks", "3 tasks", "4 tasks"} <= {t.text for t in chart.iter(f"{SVG}text")}


def test_one_configuration_is_said_in_the_heading_and_one_line_needs_no_legend(tmp_path):
    results = [rotate(tasks, 100, 300 - tasks, opt="-Os") for tasks in (2, 3, 4)]
    (heading, chart), = charts(page(tmp_path, results)).items()
    assert heading == "freertos on mps2-an385: rotate, time per switch against the number of tasks (opt=-Os)"
    assert len(chart.findall(f".//{SVG}polyline")) == 1
    assert not chart.findall(f".//{SVG}rect")  # no legend swatch
    assert [t.text for t in chart.iter(f"{SVG}text")].count("298") == 1  # one line: its figures by its points


def test_no_two_headings_of_a_page_are_the_same(tmp_path):
    results = [rotate(tasks, samples, 300, preemption=preemption) for preemption in ("on", "off")
               for tasks in (2, 3) for samples in (100, 300)]
    headings = re.findall(r"<h3>([^<]+)</h3>", page(tmp_path, results))
    assert headings and len(set(headings)) == len(headings), headings


def test_histograms_are_open_unless_there_are_too_many_to_scroll(tmp_path):
    few = page(tmp_path, [rotate(2, 100, 300)] * 3)
    assert few.count('<details class="result"') == few.count('<details class="result" id=') == 3
    assert len(re.findall(r'<details class="result" id="[^"]+" open>', few)) == 3
    many = page(tmp_path, [rotate(2, 10, 300)] * (html_report.OPENED_AT_MOST + 1))
    assert not re.findall(r'<details class="result" id="[^"]+" open>', many)
    assert f"{html_report.OPENED_AT_MOST + 1:,} results: each opens on a click" in many


def _labels(drawing: str) -> list[tuple[float, float, float]]:
    """(font size, left, right, baseline) of each unrotated label, its width as svg measures it."""
    found = []
    for text in ElementTree.fromstring(drawing).iter(f"{SVG}text"):
        if text.get("transform"):
            continue
        size = float(text.get("font-size", svg.FONT_SIZE))
        width = svg.text_width("".join(text.itertext()), size)
        x = float(text.get("x"))
        left = {"end": x - width, "middle": x - width / 2}.get(text.get("text-anchor"), x)
        found.append((size, left, left + width, float(text.get("y"))))
    return found


def test_labels_are_large_enough_for_a_phone_and_do_not_overlap():
    """A figure is shown at most 540 px wide and shrunk to a phone's width: 375 px less the page's margins
    leaves about 355 px; a label must still be 9 px there, so at least 9 * WIDTH / 355 units."""
    least = 9 * svg.WIDTH / 355
    drawings = [
        svg.histogram(list(range(1_000_000, 1_000_600)), "instructions", {"median": 1_000_300, "p99": 1_000_594},
                      "wide"),
        svg.histogram([267] * 9_000 + [312], "cycles", {"median": 267, "p99": 267}, "narrow"),
        svg.lines(["100", "1,000", "10,000"], [(f"{n} tasks", [{"median": 9_000 + n, "min": 1, "max": 12_345,
                                                                "title": ""}] * 3) for n in range(2, 9)],
                  "number of switches", "cycles", "seven lines"),
        svg.grouped_bars(["resume", "signal", "yield", "isr"], ["Cooperative NOPRI", "Cooperative PRI",
                                                                 "Preemptive NOPRI", "Preemptive PRI"],
                         {(c, s): 12_345 for c in ("resume", "signal", "yield", "isr")
                          for s in ("Cooperative NOPRI", "Preemptive PRI")}, "cycles", "bars"),
    ]
    for drawing in drawings:
        assert f'viewBox="0 0 {svg.WIDTH} ' in drawing
        labels = _labels(drawing)
        assert all(size >= least for size, *_ in labels), drawing[:200]
        for i, (_, left, right, y) in enumerate(labels):
            for _, other_left, other_right, other_y in labels[i + 1:]:
                same_line = abs(y - other_y) < svg.FONT_SIZE * 0.9  # a figure is about 0.7 of the size tall
                assert not (same_line and left < other_right - 1 and other_left < right - 1), drawing[:200]
