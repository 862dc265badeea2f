"""The rotate scenario and configurations: tasks run in the expected order for
any N, and configuration variants are built, recorded and refused as they should."""

import pytest

from switchscope import catalog
from switchscope.catalog import configs
from switchscope.catalog.job import Job
from switchscope.common.errors import SwitchscopeError
from switchscope.figures.measure import measure

FREERTOS = catalog.KERNELS["freertos"]
ROTATE = catalog.SCENARIOS["rotate"]


def rotate_job(target, tasks, **options):
    chosen = configs.resolve(options, FREERTOS, catalog.TARGETS[target], ROTATE, tasks)
    return Job(FREERTOS, catalog.TARGETS[target], ROTATE, catalog.METHODS["probe"], chosen, tasks)


@pytest.mark.firmware
@pytest.mark.parametrize("tasks", [2, 3, 5, 8])
def test_every_task_runs_in_the_expected_order(tasks):
    result = measure(rotate_job("mps2-an385", tasks), samples=3 * tasks + 1)
    kept = [s for s in range(3 * tasks + 1) if s not in {e["seq"] for e in result.excluded_samples}]
    # sample k is the switch from task k mod N to task k+1 mod N
    assert result.pairs == [[k % tasks, (k + 1) % tasks] for k in kept]
    assert result.tasks == tasks


@pytest.mark.firmware
@pytest.mark.parametrize("switch", ["pendsv", "software"])
@pytest.mark.parametrize("tasks", range(2, 9))
def test_the_study_rotation_by_priorities_of_their_own_runs_in_order(tasks, switch):
    result = measure(rotate_job("mps2-an385", tasks, rotation="priority", switch=switch), samples=3 * tasks + 1)
    kept = [s for s in range(3 * tasks + 1) if s not in {e["seq"] for e in result.excluded_samples}]
    assert result.pairs == [[k % tasks, (k + 1) % tasks] for k in kept]
    assert result.options["rotation"] == "priority" and result.config["switch"] == switch
    assert result.config["configMAX_PRIORITIES"] == "18"  # the levels 16 tasks need, brought by rotation=priority


def test_a_value_brings_its_defaults_below_the_users_own_choice():
    target = catalog.TARGETS["mps2-an385"]
    assert configs.resolve({"rotation": "priority"}, FREERTOS, target, ROTATE, 8).as_dict()["max_priorities"] == "18"
    chosen = configs.resolve({"rotation": "priority", "max_priorities": "12"}, FREERTOS, target, ROTATE, 8)
    assert chosen.as_dict()["max_priorities"] == "12"
    assert configs.resolve({}, FREERTOS, target, ROTATE, 8).as_dict()["max_priorities"] == "8"


@pytest.mark.parametrize("options", [{}, {"preemption": "off"}, {"priorities": "off", "time_slicing": "off"},
                                     {"preemption": "off", "priorities": "off"}])
@pytest.mark.firmware
def test_the_rotation_order_holds_in_every_scheduling_mode(options):
    result = measure(rotate_job("atmega328p", 3, **options), samples=12)
    assert result.pairs == [[k % 3, (k + 1) % 3] for k in range(12)
                               if k not in {e["seq"] for e in result.excluded_samples}]
    assert result.options["preemption"] == options.get("preemption", "on")


@pytest.mark.firmware
def test_a_configuration_is_built_run_and_recorded():
    job = Job(FREERTOS, catalog.TARGETS["mps2-an385"], catalog.SCENARIOS["signal"], catalog.METHODS["probe"],
              configs.resolve({"preemption": "off", "priorities": "off", "opt": "-Os"}, FREERTOS,
                              catalog.TARGETS["mps2-an385"], catalog.SCENARIOS["signal"]))
    result = measure(job, samples=20)
    assert result.config["configUSE_PREEMPTION"] == "0"  # as the firmware reports itself
    assert result.config["priorities"] == "off"
    assert result.config["optimisation"] == "-Os"
    assert result.options["opt"] == "-Os"
    default = measure(Job(FREERTOS, catalog.TARGETS["mps2-an385"], catalog.SCENARIOS["signal"],
                          catalog.METHODS["probe"]), samples=20)
    # cooperative, one priority: the switch now also needs an explicit yield
    assert result.stats.median != default.stats.median


@pytest.mark.parametrize("options,tasks,target,scenario,message", [
    ({"optimised_selection": "on"}, None, "atmega328p", "signal", "no optimised task selection"),
    ({"priorities": "off"}, 3, "mps2-an385", "rotate", "needs time_slicing=off"),
    ({}, 6, "atmega328p", "rotate", "rotate takes 2 to 4 tasks on atmega328p"),
    ({}, 3, "mps2-an385", "signal", "--tasks applies to the rotate scenario only"),
    ({"rotation": "priority", "priorities": "off"}, 3, "mps2-an385", "rotate", "a priority of its own"),
    ({"rotation": "priority"}, 3, "atmega328p", "rotate", "needs up to 18 priority levels"),
    ({"switch": "pendsv"}, None, "atmega328p", "yield", "no PendSV"),
    ({"max_priorities": "2"}, None, "mps2-an385", "signal", "'2' is not a value of max_priorities"),
    ({"colour": "blue"}, None, "mps2-an385", "signal", "unknown configuration option 'colour'"),
])
def test_invalid_configurations_are_refused_with_the_reason(options, tasks, target, scenario, message):
    with pytest.raises(SwitchscopeError, match=message):
        configs.resolve(options, FREERTOS, catalog.TARGETS[target], catalog.SCENARIOS[scenario], tasks)


def test_a_config_label_names_what_differs_from_the_default():
    target, scenario = catalog.TARGETS["mps2-an385"], catalog.SCENARIOS["signal"]
    default = configs.resolve({}, FREERTOS, target, scenario)
    changed = configs.resolve({"preemption": "off", "opt": "-O0"}, FREERTOS, target, scenario)
    assert changed.label(default) == "opt=-O0,preemption=off"
    assert default.label(default) == "default"
    assert changed.defines()["configUSE_PREEMPTION"] == "0"
    assert configs.resolve({"priorities": "off"}, FREERTOS, target, scenario).defines()["SWITCHSCOPE_SAME_PRIORITY"] == "1"
