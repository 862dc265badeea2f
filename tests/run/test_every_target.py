"""switchscope run --target all: every target that runs the kernel measures it, and the targets' table sets
the newer cores (Cortex-M0, Cortex-M0+, Cortex-M4F) beside the others, each with what counted its cycles and
the range its manual allows around its median; the Cortex-M0+ marked as timed on QEMU's Cortex-M0 machine,
the caveat under the table."""

import json
import re

import pytest

from conftest import run_command
from switchscope import catalog

pytestmark = pytest.mark.firmware

KERNELS = ("freertos", "floor")
# target -> what counted its cycles, as the table names it
NEWER_CORES = {"microbit": "Cortex-M0 model", "microbit-m0plus": "Cortex-M0+ model",
               "mps2-an386-fpu": "Cortex-M4F model"}
M0PLUS = "microbit-m0plus"
CAVEAT_MARK = "†"
SAMPLES = 20


def table_rows(said: str) -> tuple[dict[tuple[str, str], dict[str, str]], list[str]]:
    """The targets' table's rows by (kernel, target), each cell by its column's name, and the lines under
    it. Cells are split on two spaces or more: some names and cells hold one."""
    lines = said[said.index("targets side by side (medians):"):].splitlines()[1:]
    header = re.split(r"\s{2,}", lines[0].strip())
    rows = {}
    for at, line in enumerate(lines[1:], start=1):
        cells = re.split(r"\s{2,}", line.strip())
        if len(cells) != len(header):
            return rows, lines[at:]
        row = dict(zip(header, cells))
        rows[(row["kernel"], row["target"])] = row
    return rows, []


def test_run_on_every_target_sets_the_newer_cores_beside_the_others(capsys, tmp_path):
    status, said = run_command(["run", "--target", "all", "--scenario", "yield", "--floor", "--samples",
                                str(SAMPLES), "--quiet", "--json", str(tmp_path / "r.json")], capsys)
    assert status == 0, said
    results = {(r["kernel"], r["target"]): r for r in json.loads((tmp_path / "r.json").read_text())["results"]}
    rows, under = table_rows(said)
    for kernel in KERNELS:
        ported = {target for target in catalog.KERNELS[kernel].targets if target in catalog.TARGETS}
        assert {target for k, target in rows if k == kernel} == ported
    for (kernel, target), row in rows.items():
        if target not in NEWER_CORES:
            continue
        result = results[(kernel, target)]
        counted_by = NEWER_CORES[target] + (CAVEAT_MARK if target == M0PLUS else "")
        assert row["counted by"] == counted_by and row["core"] == result["cpu"], row
        median, bounds = result["stats"]["median"], result["bounds"]
        assert float(row["median"]) == median and row["unit"] == "cycles"
        least, most = (float(figure) for figure in row["TRM range"].split("-"))
        assert (least, most) == (bounds["min"]["median"], bounds["max"]["median"])
        assert least <= median <= most, row
    # the caveat is said once, under the table, for the one target timed on another core's machine
    caveats = [line.strip() for line in under if line.strip().startswith(CAVEAT_MARK)]
    assert caveats == [f"{CAVEAT_MARK} {M0PLUS}: {catalog.TARGETS[M0PLUS].caveat}"]
    assert "QEMU's Cortex-M0 machine" in caveats[0]
    assert sum(CAVEAT_MARK in row["counted by"] for row in rows.values()) == len(KERNELS)
