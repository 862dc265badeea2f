"""The HTML report: built from real measurements (every kernel on mps2-an385,
a rotate sweep), checked as text, then opened in headless Chromium through
Selenium: tables and plots present, nothing fetched, no script error, sorting
and filtering work, a phone-sized window has no sideways scrolling. The
screenshots are kept as test artefacts (build/test-artefacts/, or
$SWITCHSCOPE_TEST_ARTEFACTS)."""

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from switchscope.cli import main
from switchscope.figures import results_files
from switchscope.present import svg

ARTEFACTS = Path(os.environ.get("SWITCHSCOPE_TEST_ARTEFACTS",
                                Path(__file__).resolve().parents[2] / "build" / "test-artefacts"))


def test_ticks_are_round_and_cover_the_range():
    assert svg.nice_ticks(0, 9812, 4) == [0, 2000, 4000, 6000, 8000]
    assert svg.nice_ticks(265, 289, 6) == [265, 270, 275, 280, 285]
    assert svg.nice_ticks(267, 267) == [267]
    ticks = svg.nice_ticks(0.0, 0.37, 4)
    assert ticks[0] == 0 and ticks[-1] <= 0.37 and len(ticks) >= 3


def test_a_narrow_distribution_gets_a_bar_per_value_and_a_wide_one_equal_bins():
    edges, counts, one_per_value = svg.histogram_bins([267, 267, 268, 300])
    assert one_per_value and list(edges[:2]) == [267, 268] and counts.sum() == 4 and counts[0] == 2
    edges, counts, one_per_value = svg.histogram_bins(list(range(0, 100_000, 7)))
    assert not one_per_value and len(counts) == svg.MAX_BINS and counts.sum() == len(range(0, 100_000, 7))
    _, counts, one_per_value = svg.histogram_bins([1.5, 2.25, 2.25])  # ns from a capture: not whole units
    assert not one_per_value and counts.sum() == 3


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    """Real results: every kernel's scenarios on mps2-an385 (so kernels side by side), and a
    rotate sweep over tasks, switch counts and preemption (so curves and configurations)."""
    where = tmp_path_factory.mktemp("report")
    run, sweep, avr = where / "run.json", where / "sweep.json", where / "avr.json"
    assert main(["run", "--kernel", "all", "--samples", "300", "--json", str(run), "--quiet"]) == 0
    assert main(["sweep", "--scenario", "rotate", "--tasks", "2-3", "--samples", "100,300",
                 "--config", "preemption=on,off", "--json", str(sweep), "--quiet"]) == 0
    assert main(["run", "--target", "atmega328p", "--scenario", "yield", "--samples", "100", "--json", str(avr),
                 "--quiet"]) == 0  # a second target: targets side by side
    return where, [run, sweep, avr]


@pytest.fixture(scope="module")
def page(measured):
    where, inputs = measured
    page = where / "pages" / "report.html"
    assert main(["report", *map(str, inputs), "--html", str(page)]) == 0
    results = [r for path in inputs for r in results_files.results(path, "input")]
    return page, results


@pytest.mark.firmware
def test_the_page_is_self_contained_and_shows_every_result(page):
    path, results = page
    text = path.read_text()
    # nothing to fetch: no external script, style, image or font (the SVG namespace is a name, not a fetch)
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=|url\(", text)
    assert set(re.findall(r"https?://[^\"' )]+", text)) <= {"http://www.w3.org/2000/svg"}
    for section in ("Kernels side by side", "Targets side by side", "Configurations side by side",
                    "Rotate: tasks and switches", "Every result", "Each result: distribution and provenance"):
        assert f">{section}</h2>" in text
    assert text.count('<details class="result"') == len(results)
    assert text.count('class="plot histogram"') == len(results)
    # each result's link leads to the JSON it came from, relative to the page
    links = set(re.findall(r'<dt>JSON</dt><dd><a href="([^"]+)"', text))
    assert len(links) == 3 and all((path.parent / link).resolve().is_file() for link in links)
    # the targets' table names what counted each one's cycles
    assert "atmega328p (simavr)" in text and "mps2-an385 (Cortex-M3 model)" in text
    # provenance is on the page: compiler, simulator, the unit and the clock
    assert "arm-none-eabi-gcc" in text and "QEMU emulator version 10" in text and "cycles at 25 MHz" in text


@pytest.mark.firmware
def test_each_histogram_holds_every_kept_sample(page):
    _, results = page
    for result in results:
        figure = svg.histogram(result.samples, result.unit, result.stats.as_dict(), "test")
        counted = sum(int(n.replace(",", "")) for n in re.findall(r": ([0-9,]+) samples \(", figure))
        assert counted == result.count, result.scenario


def test_report_refuses_bad_input_with_a_clear_error(tmp_path, capsys):
    folder = tmp_path / "inputs"  # the page is written outside it: never inside an input directory
    folder.mkdir()
    broken = folder / "broken.json"
    broken.write_text('{"results": [')
    empty = folder / "empty.json"
    empty.write_text('{"results": []}')
    cases = [([str(folder / "missing.json")], "no such file or directory"),
             ([str(broken)], "not JSON"),
             ([str(empty)], "nothing to report"),
             ([str(folder)], "not JSON")]  # a directory of JSON files: each is read, the broken one named
    for inputs, said in cases:
        assert main(["report", *inputs, "--html", str(tmp_path / "out.html")]) == 2
        assert said in capsys.readouterr().err
    assert main(["report", str(empty), "--html", str(empty)]) == 2  # never onto an input
    assert "which it would replace" in capsys.readouterr().err
    assert not (tmp_path / "out.html").exists()


def _chromium():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver = shutil.which("chromium"), shutil.which("chromedriver")
    assert browser and driver, "headless Chromium is needed: apt-get install chromium chromium-driver (./setup.sh does)"
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,1000"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(driver), options=options)


def _column(browser, name: str) -> list[str]:
    return browser.execute_script(
        "var name = arguments[0], table = document.getElementById('every-result');"
        "var index = Array.prototype.findIndex.call(table.tHead.rows[0].cells, function (c) {"
        "  return c.textContent === name; });"
        "return Array.prototype.filter.call(table.tBodies[0].rows, function (r) { return !r.hidden; })"
        "  .map(function (r) { return r.cells[index].textContent; });", name)


@pytest.mark.smoke
@pytest.mark.firmware
def test_the_report_renders_in_a_real_browser(page):
    path, results = page
    from selenium.webdriver.common.by import By

    browser = _chromium()
    try:
        browser.get(path.resolve().as_uri())
        assert browser.title == "switchscope report"
        errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
        assert not errors, errors
        # nothing was fetched: every style, script and figure is in the page
        assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0

        rows = browser.find_elements(By.CSS_SELECTOR, "#every-result tbody tr")
        assert len(rows) == len(results)
        assert len(browser.find_elements(By.CSS_SELECTOR, "section#kernels table")) >= 1
        drawn = browser.find_elements(By.CSS_SELECTOR, "section#kernels svg.plot rect.bar")
        assert drawn and all(bar.size["height"] > 0 for bar in drawn)
        assert len(browser.find_elements(By.CSS_SELECTOR, "section#rotate svg.plot circle.point")) >= 2

        # every link inside the page leads somewhere
        missing = browser.execute_script(
            "return Array.prototype.filter.call(document.querySelectorAll('a[href^=\"#\"]'), function (a) {"
            "  return !document.getElementById(a.getAttribute('href').slice(1)); }).length")
        assert missing == 0

        # a click on "median" sorts by it, a second click the other way
        header = browser.find_element(By.XPATH, "//table[@id='every-result']//th[text()='median']")
        header.click()
        medians = [float(v.replace(",", "")) for v in _column(browser, "median")]
        assert medians == sorted(medians) and len(set(medians)) > 1
        header.click()
        assert [float(v.replace(",", "")) for v in _column(browser, "median")] == sorted(medians, reverse=True)

        # the filter keeps the rows that say what was typed
        browser.find_element(By.ID, "filter").send_keys("lilos")
        kernels = _column(browser, "kernel")
        assert kernels and set(kernels) == {"lilos"}

        # each result shows its histogram with a bar per value, and its provenance, without a click; a click on
        # its summary folds it
        first = browser.find_element(By.ID, "result-1")
        bars = first.find_elements(By.CSS_SELECTOR, "svg.histogram rect.bar")
        assert bars and bars[0].size["width"] > 0
        assert "compiler" in first.text and "simulator" in first.text
        first.find_element(By.TAG_NAME, "summary").click()
        assert first.get_attribute("open") is None and "compiler" not in first.text

        ARTEFACTS.mkdir(parents=True, exist_ok=True)
        height = browser.execute_script("return document.documentElement.scrollHeight")
        browser.set_window_size(1280, min(height, 8000))
        assert browser.save_screenshot(str(ARTEFACTS / "report.png"))

        # on a phone: the page itself never scrolls sideways (wide tables scroll in their own box)
        browser.set_window_size(390, 844)
        overflow = browser.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 1
        assert browser.save_screenshot(str(ARTEFACTS / "report-phone.png"))
        print(f"\nscreenshots: {ARTEFACTS / 'report.png'}, {ARTEFACTS / 'report-phone.png'}")
        assert not [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    finally:
        browser.quit()


# Per figure: the smallest label as the screen shows it (px), and the unrotated labels whose boxes overlap.
LABELS_AS_SHOWN = """
return Array.prototype.map.call(document.querySelectorAll("svg.plot"), function (drawing) {
  var scale = drawing.getScreenCTM().a, texts = Array.prototype.slice.call(drawing.querySelectorAll("text"));
  var sizes = texts.map(function (t) { return parseFloat(getComputedStyle(t).fontSize) * scale; });
  var flat = texts.filter(function (t) { return !t.getAttribute("transform"); }), overlapping = [];
  for (var i = 0; i < flat.length; i++) for (var j = i + 1; j < flat.length; j++) {
    var a = flat[i].getBoundingClientRect(), b = flat[j].getBoundingClientRect();
    if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1)
      overlapping.push(flat[i].textContent + " / " + flat[j].textContent);
  }
  return {figure: drawing.querySelector("title").textContent, smallest: Math.min.apply(null, sizes),
          overlapping: overlapping, height: drawing.getBoundingClientRect().height};
});
"""


# Per figure: each label (legend, axis name, tick, category) whose drawn box reaches past the figure's viewBox,
# the box taken through the label's own rotation into the figure's units.
LABELS_OUTSIDE = """
var outside = [];
document.querySelectorAll("svg.plot").forEach(function (drawing) {
  var box = drawing.viewBox.baseVal, toFigure = drawing.getScreenCTM().inverse();
  drawing.querySelectorAll("text").forEach(function (text) {
    var b = text.getBBox(), through = toFigure.multiply(text.getScreenCTM());
    var corners = [[b.x, b.y], [b.x + b.width, b.y], [b.x, b.y + b.height], [b.x + b.width, b.y + b.height]]
      .map(function (c) { var p = drawing.createSVGPoint(); p.x = c[0]; p.y = c[1]; return p.matrixTransform(through); });
    var xs = corners.map(function (p) { return p.x; }), ys = corners.map(function (p) { return p.y; });
    if (Math.min.apply(null, xs) < box.x - 0.5 || Math.max.apply(null, xs) > box.x + box.width + 0.5 ||
        Math.min.apply(null, ys) < box.y - 0.5 || Math.max.apply(null, ys) > box.y + box.height + 0.5)
      outside.push(drawing.querySelector("title").textContent + ": " + text.textContent);
  });
});
return outside;
"""


def _long_configurations() -> list:
    """Results whose legends and category names are as long as a page gets: many options changed, rotate
    up to 8 tasks, a msg_size sweep given out of order."""
    from switchscope import catalog
    from switchscope.catalog import configs
    from switchscope.figures.result import Result

    defaults = configs.defaults(catalog.KERNELS["freertos"], catalog.TARGETS["mps2-an385"])
    variants = [{}, {"opt": "-Os", "lock": "mutex", "time_slicing": "off", "stack_check": "on", "switch": "software"},
                {"opt": "-Os", "lock": "mutex", "time_slicing": "off", "stack_check": "on", "optimised_selection": "off"},
                *({"msg_size": size} for size in ("64", "8", "16"))]
    return [Result(kind="scenario", scenario=scenario, method="probe", unit="cycles", tasks=tasks, overhead=8,
                   samples=[12_345 + i % 13 for i in range(50)], first=12_345, kernel="freertos", target="mps2-an385",
                   f_cpu_hz=25e6, options={**defaults, **variant})
            for variant in variants
            for scenario, tasks in [("resume", None), ("deadlock-release", None), ("msg", None),
                                    *(("rotate", n) for n in (2, 3, 8))]]


@pytest.mark.firmware
def test_the_report_fits_a_desktop_and_reads_on_a_phone(measured, tmp_path):
    """At 1,400 px the table of every result needs no sideways scrolling, even with the widest row
    switchscope writes (the longest target and unit, five-figure statistics, four options changed, a
    long file name); at 375 px every label of every figure is at least 9 px and none sits on another;
    at 1,280 and 390 px no legend or label reaches past its figure, even with many options changed;
    the histograms are open without a click; no two headings are the same; the configuration column
    sorts msg_size=8, 16, 64 in that order."""
    from selenium.webdriver.common.by import By

    from switchscope import catalog
    from switchscope.catalog import configs
    from switchscope.figures.result import Result

    _, inputs = measured
    options = {**configs.defaults(catalog.KERNELS["freertos"], catalog.TARGETS["stm32vldiscovery"]),
               "opt": "-Os", "preemption": "off", "priorities": "off", "time_slicing": "off"}
    samples = [12_345 + (i * 7919) % 97 for i in range(10_000)]
    widest = Result(kind="scenario", scenario="signal", method="scope", unit="instructions", samples=samples,
                    overhead=8, first=samples[0], kernel="freertos", target="stm32vldiscovery", options=options)
    wide = tmp_path / "freertos-stm32vldiscovery-signal-scope-cooperative-nopri-Os.json"
    wide.write_text(json.dumps({"results": [widest.to_json()]}))
    configurations = tmp_path / "configurations.json"
    configurations.write_text(json.dumps({"results": [r.to_json() for r in _long_configurations()]}))
    path = tmp_path / "report.html"
    assert main(["report", *map(str, inputs), str(wide), str(configurations), "--html", str(path)]) == 0
    headings = re.findall(r"<h3>([^<]+)</h3>", path.read_text())
    assert len(set(headings)) == len(headings), headings

    browser = _chromium()
    try:
        browser.get(path.resolve().as_uri())
        browser.set_window_size(1400, 900)
        overflow = browser.execute_script(
            "var box = document.getElementById('every-result').parentElement;"
            "return box.scrollWidth - box.clientWidth")
        assert overflow <= 1, f"the table of every result is {overflow} px too wide at 1,400 px"
        for width in (1280, 390):
            browser.set_window_size(width, 900)
            assert browser.execute_script(LABELS_OUTSIDE) == [], f"labels cut at {width} px"
        browser.set_window_size(1400, 900)
        browser.find_element(By.ID, "filter").send_keys("msg_size")
        browser.find_element(By.XPATH, "//table[@id='every-result']//th[text()='configuration']").click()
        assert [c for c in _column(browser, "configuration") if c.startswith("msg_size")] == \
            ["msg_size=8"] * 6 + ["msg_size=16"] * 6 + ["msg_size=64"] * 6
        browser.find_element(By.ID, "filter").clear()
        browser.execute_script("document.getElementById('filter').dispatchEvent(new Event('input'))")

        browser.set_window_size(375, 800)
        shown = browser.execute_script(LABELS_AS_SHOWN)
        assert shown and all(figure["smallest"] >= 9 for figure in shown), \
            min(shown, key=lambda figure: figure["smallest"])
        assert not [figure for figure in shown if figure["overlapping"]]
        histograms = [figure for figure in shown if figure["figure"].startswith("distribution of")]
        assert len(histograms) == sum(len(results_files.results(p, "input")) for p in [*inputs, wide, configurations])
        assert all(figure["height"] > 50 for figure in histograms)  # open, drawn, without a click
        assert browser.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 1
    finally:
        browser.quit()
