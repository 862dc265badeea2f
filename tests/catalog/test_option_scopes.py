"""The scenarios an option changes, and the options it needs (kernel.toml: `scenarios`, `requires`): where it
changes nothing it is refused when it was asked for there alone, and left out of that combination's
configuration and label among several, said once in the plan's notes. Names are chosen one, several (a comma
list) or all."""

import pytest

from switchscope import catalog
from switchscope.catalog import configs
from switchscope.catalog.plan import plan
from switchscope.common.errors import SwitchscopeError, UnknownName

FREERTOS, FLOOR = catalog.KERNELS["freertos"], catalog.KERNELS["floor"]
MPS2 = [catalog.TARGETS["mps2-an385"]]
PROBE = [catalog.METHODS["probe"]]


def _scenarios(names: str):
    return catalog.select_scenarios(names)


def test_every_kernel_says_which_scenarios_its_scenario_options_change():
    scoped = {"lock": ("sem-shuffle",), "msg_size": ("msg",), "irq_priority": ("irq-latency", "irq-ruler"),
              "rotation": ("rotate",), "load": ("rotate",)}
    for kernel in catalog.KERNELS.values():
        for option in kernel.options:
            if option.name in scoped:
                assert option.scenarios == scoped[option.name], (kernel.name, option.name)
    load_options = {o.name: o for o in FREERTOS.options}
    assert load_options["load_period_us"].requires == load_options["load_tasks"].requires == (("load", "voip"),)


@pytest.mark.parametrize("kernel", [FREERTOS, FLOOR])
def test_an_option_of_another_scenario_alone_is_refused_with_the_scenarios_it_applies_to(kernel):
    with pytest.raises(SwitchscopeError, match=r"option lock applies to sem-shuffle only, not yield \(lock=mutex\)"):
        plan([kernel], MPS2, _scenarios("yield"), PROBE, [{"lock": "mutex"}])
    with pytest.raises(SwitchscopeError, match="lock applies to sem-shuffle only, not yield"):
        configs.resolve({"lock": "mutex"}, kernel, MPS2[0], catalog.SCENARIOS["yield"])


def test_among_several_scenarios_it_applies_to_its_own_and_is_left_out_of_the_others_labels():
    found = plan([FREERTOS], MPS2, _scenarios("all"), PROBE, [{"lock": "mutex"}])
    by_scenario = {job.scenario.name: job for job in found.jobs}
    assert by_scenario["sem-shuffle"].config["lock"] == "mutex"
    for name, job in by_scenario.items():
        if name != "sem-shuffle":
            assert job.config == configs.resolve({}, FREERTOS, job.target, job.scenario) and "[" not in str(job)
    (note,) = found.notes
    assert note.startswith("lock applies to sem-shuffle only: resume, signal, yield and ") and "measured without it" in note


def test_what_an_option_brings_comes_only_where_it_applies():
    found = plan([FREERTOS], MPS2, _scenarios("yield,rotate"), PROBE, [{"rotation": "priority"}])
    levels = {job.scenario.name: job.config["max_priorities"] for job in found.jobs}
    assert levels == {"yield": "8", "rotate": "18"}  # rotation=priority's 18 levels: rotate's alone


def test_the_values_of_an_option_a_scenario_does_not_take_are_one_measurement_there():
    found = plan([FREERTOS], MPS2, _scenarios("yield,msg"), PROBE, configs.variants(["msg_size=1,16,64"]))
    assert sorted(str(job) for job in found.jobs) == [
        "freertos/mps2-an385/msg/probe [msg_size=16]", "freertos/mps2-an385/msg/probe [msg_size=1]",
        "freertos/mps2-an385/msg/probe [msg_size=64]", "freertos/mps2-an385/yield/probe"]


def test_an_option_that_needs_another_options_value_is_refused_without_it_and_left_out_where_it_lacks():
    rotate = _scenarios("rotate")
    with pytest.raises(SwitchscopeError, match=r"load_tasks applies with load=voip only \(load_tasks=2\)") as error:
        plan([FREERTOS], MPS2, rotate, PROBE, [{"load_tasks": "2"}])
    assert "--config load=voip" in error.value.hint
    found = plan([FREERTOS], MPS2, rotate, PROBE, configs.variants(["load=none,voip", "load_tasks=2"]))
    assert sorted(job.config.label(configs.resolve({}, FREERTOS, MPS2[0], rotate[0])) for job in found.jobs) == \
        ["default", "load=voip,load_tasks=2"]
    assert found.notes == ["load_tasks applies with load=voip only: measured without it where load is not voip"]


@pytest.mark.parametrize("pairs, fragment", [
    (["preemption=on", "preemption=off"], "option preemption given twice"),
    (["preemption=on,opt=-O2,preemption=off"], "option preemption given twice"),
    (["preemption=on,on"], "preemption=on,on: on given twice"),
    (["opt=-O2,-Os,-O2"], "-O2 given twice"),
])
def test_an_option_or_a_value_given_twice_in_a_sweep_is_refused(pairs, fragment):
    with pytest.raises(SwitchscopeError, match=fragment):
        configs.variants(pairs)


def test_an_option_given_twice_to_a_command_of_one_configuration_is_refused():
    with pytest.raises(SwitchscopeError, match="option opt given twice"):
        configs.parse(["opt=-O2", "opt=-Os"])


@pytest.mark.parametrize("requested, names", [
    ("yield", ["yield"]),
    ("yield,isr", ["yield", "isr"]),
    (" isr , yield ", ["isr", "yield"]),
    ("deadlock-break,msg", ["deadlock-raise", "deadlock-release", "msg"]),
    ("deadlock-break,deadlock-raise", ["deadlock-raise", "deadlock-release"]),
])
def test_scenarios_are_chosen_by_a_name_or_a_comma_list(requested, names):
    assert [scenario.name for scenario in catalog.select_scenarios(requested)] == names


def test_targets_kernels_and_methods_take_comma_lists_and_real_boards_among_them():
    assert [t.name for t in catalog.select_targets("mps2-an385,arduino-uno")] == ["mps2-an385", "atmega328p"]
    assert catalog.real_boards_named("mps2-an385,arduino-uno") == ["arduino-uno"]
    assert catalog.real_boards_named("stm32vldiscovery") == []  # QEMU models it: its own target
    assert [k.name for k in catalog.select_kernels("floor,freertos")] == ["floor", "freertos"]
    assert [m.name for m in catalog.select_methods("marker,probe")] == ["marker", "probe"]


@pytest.mark.parametrize("requested, fragment", [
    ("yield,yeild", "unknown scenario 'yeild' in 'yield,yeild'"),
    ("yield,", "an empty name in the list"),
    ("isr,isr", "isr given twice"),
    ("all,isr", "'all' is every scenario already"),
])
def test_a_bad_list_is_refused_with_what_to_write(requested, fragment):
    with pytest.raises(SwitchscopeError, match=fragment) as error:
        catalog.select_scenarios(requested)
    if isinstance(error.value, UnknownName) and "yeild" in requested:
        assert "did you mean yield?" in error.value.hint
