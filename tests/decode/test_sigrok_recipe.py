"""docs/measurement.md's sigrok recipe, run as written: a cycles VCD of
mps2-an385, downsampled by the factor the docs give, read back as a sigrok
session with the clock, gives the VCD's own figures exactly."""

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import run_command
from switchscope.common.paths import checkout


@pytest.mark.firmware
def test_the_documented_sigrok_recipe_gives_the_vcds_figures(tmp_path, monkeypatch, capsys):
    docs = (checkout() / "docs" / "measurement.md").read_text()
    recipe = re.search(r"`(sigrok-cli -I vcd:downsample=(\d+) -i trace\.vcd -o trace\.sr)`", docs)
    clock = re.search(r"`switchscope analyze trace\.sr --channel LED0 --clock (\S+)`", docs)
    assert recipe and clock and shutil.which("sigrok-cli")
    monkeypatch.chdir(tmp_path)
    status, said = run_command(["run", "--method", "scope", "--scenario", "resume", "--samples", "50",
                                "--vcd", "trace.vcd", "--quiet"], capsys)
    assert status == 0, said
    assert f"1 cycles = {recipe.group(2)} x 100 ps" in Path("trace.vcd").read_text()[:300]
    subprocess.run(recipe.group(1).split(), check=True, timeout=120)
    figures = []
    for arguments in (["trace.vcd"], ["trace.sr", "--clock", clock.group(1)]):
        status, said = run_command(["analyze", *arguments, "--channel", "LED0", "--json", "out.json"], capsys)
        assert status == 0, said
        (result,) = json.loads(Path("out.json").read_text())["results"]
        figures.append((result["unit"], result["samples"]))
    assert figures[0] == figures[1]
    assert figures[0][0] == "cycles" and len(figures[0][1]) == 50
