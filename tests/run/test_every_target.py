"""switchscope run --target all: every target that runs the kernel measures it, and the targets' table sets
the newer cores (Cortex-M0, Cortex-M0+, Cortex-M4F) beside the others, each with what counted its cycles and
the range its manual allows around its median; each target timed on another chip's QEMU machine (the
Cortex-M0+ on the Cortex-M0's, the STM32L432 on the STM32L475's, the STM32F103 on the STM32F100's) marked,
its caveat under the table."""

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
# the targets timed on another chip's machine, and the machine their caveat names
TIMED_ELSEWHERE = {M0PLUS: "QEMU's Cortex-M0 machine", "nucleo-l432kc": "QEMU's STM32L475 machine",
                   "bluepill": "QEMU's STM32F100 machine"}
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
        counted_by = NEWER_CORES[target] + (CAVEAT_MARK if target in TIMED_ELSEWHERE else "")
        assert row["counted by"] == counted_by and row["core"] == result["cpu"], row
        median, bounds = result["stats"]["median"], result["bounds"]
        assert float(row["median"]) == median and row["unit"] == "cycles"
        least, most = (float(figure) for figure in row["TRM range"].split("-"))
        assert (least, most) == (bounds["min"]["median"], bounds["max"]["median"])
        assert least <= median <= most, row
    # each caveat is said once, under the table, for each target timed on another chip's machine
    caveats = sorted(line.strip() for line in under if line.strip().startswith(CAVEAT_MARK))
    assert caveats == sorted(f"{CAVEAT_MARK} {name}: {catalog.TARGETS[name].caveat}" for name in TIMED_ELSEWHERE)
    assert all(machine in catalog.TARGETS[name].caveat for name, machine in TIMED_ELSEWHERE.items())
    assert {target for (_, target), row in rows.items() if CAVEAT_MARK in row["counted by"]} == set(TIMED_ELSEWHERE)
    assert sum(CAVEAT_MARK in row["counted by"] for row in rows.values()) == len(KERNELS) * len(TIMED_ELSEWHERE)
