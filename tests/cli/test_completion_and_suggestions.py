"""Shell completion made from the grammar and the catalog, and 'did you mean'
for every misspelt name: a subcommand, a kernel, a target, a scenario, a
method, a unit, a configuration option or value."""

import re
import shutil
import subprocess

import pytest

from conftest import refused_cleanly, run_command
from switchscope import catalog


def _bash_completion(script_path, *words) -> list[str]:
    """COMPREPLY of the script's function for `switchscope WORDS`, the last word being completed, with
    COMP_WORDS split at "=" as bash splits them (COMP_WORDBREAKS) and COMP_LINE the words as typed."""
    split = [part for word in ("switchscope", *words) for part in re.split("(=)", word) if part] \
        + ([""] if not words[-1] or words[-1].endswith("=") and words[-1] != "=" else [])
    words_list = " ".join(f"'{w}'" for w in split)
    line = " ".join(("switchscope", *words))
    done = subprocess.run(["bash", "-c", f"source {script_path}; COMP_WORDS=({words_list}); "
                                         f"COMP_CWORD={len(split) - 1}; COMP_LINE='{line}'; COMP_POINT={len(line)}; "
                                         f"_switchscope; printf '%s\\n' \"${{COMPREPLY[@]}}\""],
                          capture_output=True, text=True, timeout=30, cwd=script_path.parent)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


@pytest.fixture
def bash_script(tmp_path, capsys):
    status, said = run_command(["completion", "bash"], capsys)
    assert status == 0
    path = tmp_path / "switchscope.bash"
    path.write_text(said)
    return path


def test_the_bash_script_is_valid_bash(bash_script):
    assert subprocess.run(["bash", "-n", str(bash_script)], capture_output=True, timeout=30).returncode == 0


@pytest.mark.parametrize("words, expected", [
    (("r",), ["report", "run"]),
    (("run", "--kernel", "fr"), ["freertos"]),
    (("sweep", "--target", "mps2"), ["mps2-an385", "mps2-an386", "mps2-an386-fpu"]),
    (("run", "--target", "ardu"), ["arduino-uno"]),
    (("run", "--scenario", "r"), ["resume", "rotate", "ruler"]),
    (("run", "--unit", "c"), ["cycles"]),
    (("compare", "base.json", "new.json", "--fail-on", "o"), ["outside-range"]),
    (("completion", ""), ["bash", "fish", "zsh"]),
    (("run", "--export-m"), ["--export-markdown"]),
])
def test_bash_completes_commands_options_and_names(bash_script, words, expected):
    assert sorted(_bash_completion(bash_script, *words)) == expected


@pytest.mark.parametrize("words, expected", [
    (("list", ""), ["all", "boards", "kernels", "methods", "options", "scenarios", "targets"]),
    (("list", "k"), ["kernels"]),
    # --config: the option's name (then its value), as bash inserts it after the "=" it splits the word at
    (("run", "--config", "pree"), ["preemption="]),
    (("sweep", "--config", "preemption="), ["off", "on"]),
    (("run", "--config", "switch=s"), ["software"]),
    (("run", "--config", "opt=-O"), ["-O0", "-O1", "-O2", "-O3", "-Os"]),
    (("sweep", "--config", "switch=pendsv,so"), ["pendsv,software"]),  # a further value of the same option
    (("run", "--config", "load=voip,load_t"), ["voip,load_tasks="]),  # a further option after a comma
    (("run", "--config", "nonesuch="), []),
])
def test_bash_completes_list_subjects_and_config_options_and_values(bash_script, words, expected):
    assert sorted(_bash_completion(bash_script, *words)) == expected


def test_fish_completes_every_config_option_with_its_values(capsys):
    status, said = run_command(["completion", "fish"], capsys)
    assert status == 0
    run_config = next(line for line in said.splitlines() if "from run'" in line and "-l config" in line)
    assert "preemption=off" in run_config and "switch=software" in run_config and "opt=-Os" in run_config
    assert "kernels" in next(line for line in said.splitlines() if "from list'" in line)


def test_bash_completes_every_kernel_of_the_catalog(bash_script):
    assert sorted(_bash_completion(bash_script, "run", "--kernel", "")) == sorted([*catalog.KERNELS, "all"])


def test_bash_completes_a_file_name_for_a_path_option(bash_script):
    (bash_script.parent / "results.json").write_text("{}")
    assert _bash_completion(bash_script, "compare", "--json", "res") == ["results.json"]


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_scripts_name_every_subcommand(capsys, shell):
    status, said = run_command(["completion", shell], capsys)
    assert status == 0
    for command in ("run", "sweep", "suite", "measure", "compare", "report", "list", "completion"):
        assert f" {command}" in said
    if shutil.which(shell):
        assert subprocess.run([shell, "-n"], input=said, text=True, timeout=30).returncode == 0


@pytest.mark.parametrize("arguments, fragment", [
    (["rnu"], "did you mean run?"),
    (["run", "--unit", "cycels"], "did you mean cycles?"),
    (["run", "--kernel", "freertso"], "did you mean freertos?"),
    (["run", "--target", "mps2an385"], "did you mean mps2-an385 or mps2-an386?"),
    (["run", "--target", "mps2"], "did you mean mps2-an385 or mps2-an386 or mps2-an386-fpu?"),  # a name begun is a name meant
    (["run", "--target", "STM32"], "did you mean stm32vldiscovery?"),
    (["run", "--scenario", "yeild"], "did you mean yield?"),
    (["run", "--method", "prboe"], "did you mean probe?"),
    (["run", "--config", "preemtion=on"], "did you mean preemption?"),
    (["run", "--config", "preemption=of"], "did you mean off?"),
    (["completion", "bsh"], "did you mean bash"),
    (["compare", "a", "b", "--fail-on", "outside"], "did you mean outside-range?"),
    (["run", "--targt", "mps2-an385"], "did you mean --target?"),
    (["run", "--samles", "200"], "did you mean --samples?"),
    (["compare", "a", "b", "--junt", "c.xml"], "did you mean --junit?"),
])
def test_a_misspelt_name_gets_the_closest_valid_one(tmp_path, monkeypatch, capsys, arguments, fragment):
    refused_cleanly(tmp_path, {}, arguments, 2, fragment, monkeypatch, capsys)


@pytest.mark.parametrize("subject", ["kernel", "target", "board", "scenario", "method", "option"])
def test_a_list_subject_in_the_singular_gets_its_plural(tmp_path, monkeypatch, capsys, subject):
    refused_cleanly(tmp_path, {}, ["list", subject], 2, f"did you mean {subject}s?", monkeypatch, capsys)


def test_a_name_like_none_gets_no_guess(tmp_path, monkeypatch, capsys):
    said = refused_cleanly(tmp_path, {}, ["run", "--kernel", "zephyr"], 2, "unknown kernel 'zephyr'", monkeypatch,
                           capsys)
    assert "did you mean" not in said and "valid kernels: floor, freertos" in said
