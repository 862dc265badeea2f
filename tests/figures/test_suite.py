"""Sweeps and the suite: every point a full distribution, the results
directory complete, and its figures real SVG drawings."""

import json
import re
import shutil
from xml.etree import ElementTree

import pytest

from switchscope import catalog
from switchscope.cli import main
from switchscope.common.errors import SwitchscopeError
from switchscope.figures import matrix, suite
from switchscope.figures.result import Result
from switchscope.present import suite_page


def test_counts_and_ranges_parse():
    assert matrix.parse_counts("2-5", "--tasks", 16) == [2, 3, 4, 5]
    assert matrix.parse_counts("100,1000,10000", "--samples", 2**32 - 1) == [100, 1000, 10000]
    assert matrix.parse_counts("2-3,8", "--tasks", 16) == [2, 3, 8]
    for bad in ("", "a-b", "0", "3-x", "17", "2-4294967297", "1-100000000"):
        with pytest.raises(SwitchscopeError):
            matrix.parse_counts(bad, "--tasks", 16 if bad == "17" else 2**32 - 1)


def test_config_variants_are_every_combination():
    variants = matrix.config_variants(["preemption=on,off", "opt=-O0,-O2,-Os"])
    assert len(variants) == 6
    assert {"preemption": "off", "opt": "-Os"} in variants
    assert matrix.config_variants([]) == [{}]


@pytest.mark.firmware
def test_a_sweep_gives_one_distribution_per_point(capsys, tmp_path):
    out = tmp_path / "sweep.json"
    assert main(["sweep", "--target", "atmega328p", "--tasks", "2-3", "--samples", "20,40",
                 "--config", "preemption=on,off", "--json", str(out), "--quiet"]) == 0
    results = json.loads(out.read_text())["results"]
    assert len(results) == 2 * 2 * 2  # tasks x samples x configurations
    assert {(r["tasks"], r["count"] + r["excluded"], r["options"]["preemption"]) for r in results} == \
        {(t, n, p) for t in (2, 3) for n in (20, 40) for p in ("on", "off")}
    assert "preemption=off" in capsys.readouterr().out


@pytest.mark.firmware
def test_the_suite_writes_tables_plots_and_one_json_per_run(tmp_path):
    outcomes, written, _ = suite.run([catalog.KERNELS["freertos"]], [catalog.TARGETS["atmega328p"]], 100,
                                     tmp_path / "suite", workers=2, write=suite_page.write)
    tmp_path = tmp_path / "suite"
    assert all(isinstance(outcome, Result) for _, outcome in outcomes), [o for _, o in outcomes if isinstance(o, str)]
    runs = list((tmp_path / "runs").rglob("*.json"))
    assert len(runs) == len(outcomes)
    summary = (tmp_path / "summary.md").read_text()
    assert "| scenario | Cooperative NOPRI | Cooperative PRI | Preemptive NOPRI | Preemptive PRI |" in summary
    assert "Time against the number of tasks" in summary and "Time against the number of switches" in summary
    assert "every cell: " in summary  # the configuration of every cell is stated
    svg = "{http://www.w3.org/2000/svg}"
    for name, drawn in (("bertos", "rect"), ("tasks", "circle"), ("switches", "circle")):
        image = ElementTree.parse(tmp_path / "plots" / f"{name}-freertos-atmega328p.svg").getroot()
        assert image.tag == f"{svg}svg" and image.find(f".//{svg}title").text
        assert len(image.findall(f".//{svg}{drawn}")) >= 3  # bars of each configuration, points of each curve
    histograms = list((tmp_path / "plots" / "histograms").rglob("*.svg"))
    assert len(histograms) == len(outcomes) and set(written) >= set(histograms)
    assert all(ElementTree.parse(h).getroot().findall(f".//{svg}rect") for h in histograms)
    # the HTML report of the same results: the BeRTOS layout, the curves, a distribution per run
    page = (tmp_path / "index.html").read_text()
    assert "(BeRTOS layout)</h3>" in page and "Cooperative NOPRI" in page
    assert "rotate, time per switch against the number of tasks" in page
    assert "time per switch against the number of switches" in page
    assert page.count('class="plot histogram"') == len(outcomes)
    assert all((tmp_path / link).is_file() for link in re.findall(r'<dt>JSON</dt><dd><a href="([^"]+)"', page))
    # the cooperative and NOPRI cells really are other builds: the preemptive-PRI signal differs from them
    cells = {(o.options["preemption"], o.options["priorities"]): o.stats.median
             for _, o in outcomes if o.scenario == "signal"}
    assert cells[("on", "on")] != cells[("off", "off")]
    # each measurement once: the default configuration is a BeRTOS column too, rotate with 4 tasks is on both
    # curves; so two suite directories compare result for result
    measured = [(o.scenario, o.tasks, tuple(sorted(o.options.items())), o.count + o.excluded) for _, o in outcomes]
    assert len(set(measured)) == len(measured)
    points = suite.points([catalog.KERNELS["freertos"]], [catalog.TARGETS["atmega328p"]], 100)
    assert len(outcomes) == len(points) - len(suite.BERTOS_SCENARIOS) - 1
    again, compared = tmp_path.parent / "again", tmp_path.parent / "compared.json"
    shutil.copytree(tmp_path, again)
    assert main(["compare", str(tmp_path), str(again), "--json", str(compared)]) == 0
    verdicts = [c["verdict"] for c in json.loads(compared.read_text())["comparisons"]]
    assert verdicts == ["same"] * len(outcomes)


@pytest.mark.firmware
def test_an_unchanged_firmware_is_not_rebuilt():
    from switchscope.build.firmware import build
    kernel, target, scenario = catalog.KERNELS["freertos"], catalog.TARGETS["mps2-an385"], catalog.SCENARIOS["yield"]
    first = build(kernel, target, scenario)
    stamp = first.elf.stat().st_mtime_ns
    again = build(kernel, target, scenario)
    assert again.elf == first.elf and again.elf.stat().st_mtime_ns == stamp


@pytest.mark.firmware
def test_the_suite_replays_the_study_software_against_pendsv_where_both_exist(tmp_path):
    outcomes, _, _ = suite.run([catalog.KERNELS["freertos"]], [catalog.TARGETS["mps2-an385"]], 100,
                               tmp_path, workers=2, write=suite_page.write)
    results = [o for _, o in outcomes if isinstance(o, Result) and o.scenario == "rotate"]
    medians = {(r.options["switch"], r.tasks): r.stats.median for r in results if r.count + r.excluded == 100}
    assert {tasks for switch, tasks in medians if switch == "software"} == set(range(2, 9))
    counts = {(r.options["switch"], r.count + r.excluded) for r in results if r.tasks == suite.SWITCHES_TASKS}
    assert counts >= {(m, n) for m in ("software", "pendsv") for n in (100, 300, 1000, 3000, 10000)}
    summary = (tmp_path / "summary.md").read_text()
    for tasks in range(2, 9):  # each row: both medians and PendSV's excess over software, in percent
        software, pendsv = medians[("software", tasks)], medians[("pendsv", tasks)]
        excess = f"{(pendsv - software) / software * 100:+.1f}%"
        assert f"| {tasks} | {software:g} | {pendsv:g} | {pendsv - software:g} | {excess} |" in summary
    assert "total time against the number of switches (4 tasks)" in summary
    # the BeRTOS table once per mechanism, a column group each: yield in its preemptive PRI cell of each group
    header = next(line for line in summary.splitlines() if line.startswith("| scenario | software: Cooperative NOPRI"))
    columns = [cell.strip() for cell in header.strip("|").split("|")]
    assert columns[1:] == [f"{m}: {c}" for m in ("software", "pendsv") for c, _ in suite.BERTOS_COLUMNS]
    bertos = {(o.options["switch"], o.options["preemption"], o.options["priorities"]): o.stats.median
              for p, o in outcomes if p.group.startswith("bertos:") and o.scenario == "yield"}
    row = next(line for line in summary.splitlines()[summary.splitlines().index(header):] if line.startswith("| yield"))
    cells = [cell.strip().split(" ")[0] for cell in row.strip("|").split("|")][1:]
    assert cells[columns.index("software: Preemptive PRI") - 1] == f"{bertos[('software', 'on', 'on')]:g}"
    assert cells[columns.index("pendsv: Cooperative NOPRI") - 1] == f"{bertos[('pendsv', 'off', 'off')]:g}"
    svg = "{http://www.w3.org/2000/svg}"
    for against in ("tasks", "switches"):
        image = ElementTree.parse(tmp_path / "plots" / f"mechanism-{against}-freertos-mps2-an385.svg").getroot()
        assert len(image.findall(f".//{svg}polyline")) == 2  # a curve per mechanism


def test_no_mechanism_table_where_the_kernel_has_one_mechanism(tmp_path):
    points = suite.points([catalog.KERNELS["freertos"]], [catalog.TARGETS["atmega328p"]], 100)
    assert not [p for p in points if p.group.startswith("mechanism")]
    assert {p.group for p in points if p.group.startswith("bertos:")} == \
        {f"bertos:{column}" for column, _ in suite.BERTOS_COLUMNS}  # one table, no mechanism group


@pytest.mark.firmware
def test_the_suite_sets_the_floor_beside_every_kernel(tmp_path):
    kernels = [catalog.KERNELS["freertos"], catalog.KERNELS["floor"]]
    outcomes, _, _ = suite.run(kernels, [catalog.TARGETS["atmega328p"]], 100, tmp_path, workers=2,
                               write=suite_page.write)
    side = {(p.job.kernel.name, o.scenario): o for p, o in outcomes if p.group == "kernels" and isinstance(o, Result)}
    kernel, least = side[("freertos", "yield")], side[("floor", "yield")]
    assert kernel.x_floor == round(kernel.stats.median / least.stats.median, 2) and least.x_floor is None
    summary = (tmp_path / "summary.md").read_text()
    assert f"x{kernel.x_floor:.2f}" in summary and "| scenario | freertos | floor |" in summary
    written = json.loads(next((tmp_path / "runs" / "freertos" / "atmega328p").glob("*yield*.json")).read_text())
    assert written["results"][0]["x_floor"] == kernel.x_floor  # the file says it too
