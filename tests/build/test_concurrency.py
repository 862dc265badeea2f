"""Two commands at once, in a fresh build directory: both build the native
tools and the same firmware at the same moment, under locks, and both
measure, with identical figures."""

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.firmware


def test_two_runs_at_once_build_once_and_both_measure(tmp_path):
    environment = {**os.environ, "SWITCHSCOPE_BUILD": str(tmp_path / "build")}
    outputs = [tmp_path / f"run{index}.json" for index in range(2)]
    commands = [subprocess.Popen([sys.executable, "-m", "switchscope", "run", "--target", "atmega328p",
                                  "--scenario", "yield", "--samples", "200", "--quiet", "--json", str(out)],
                                 env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for out in outputs]
    for command in commands:
        _, stderr = command.communicate(timeout=600)
        assert command.returncode == 0, stderr
    first, second = (json.loads(out.read_text())["results"][0] for out in outputs)
    assert first["samples"] == second["samples"] and first["count"] == 200 - first["excluded"]
    assert not list((tmp_path / "build").rglob("*.partial"))
