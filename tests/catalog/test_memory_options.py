"""The memory options (wait_states, accelerator, cache): run options of the targets whose flash is modelled
(board.toml [flash]), scoped to them as a scenario's options are to their scenarios: refused where asked
for on targets without one alone, naming the targets that have one, left out of the others' configurations
and labels among several, said once. They change no build; they reach the run as MemorySettings (and
cache=cold as the run parameter cold=1), and are recorded with each result like every option."""

import pytest

from switchscope import catalog
from switchscope.catalog import configs
from switchscope.catalog.memory import MemorySettings
from switchscope.catalog.plan import plan
from switchscope.common.errors import SwitchscopeError
from switchscope.figures import shards
from switchscope.figures.matrix import Point

FREERTOS = catalog.KERNELS["freertos"]
F405, MPS2 = catalog.TARGETS["netduinoplus2"], catalog.TARGETS["mps2-an385"]
YIELD = catalog.SCENARIOS["yield"]
PROBE = [catalog.METHODS["probe"]]


def _resolve(chosen: dict, target=F405):
    return configs.resolve(chosen, FREERTOS, target, YIELD)


def test_a_target_with_a_flash_model_takes_them_at_their_defaults_and_one_without_has_none():
    assert {name: _resolve({})[name] for name in ("wait_states", "accelerator", "cache")} == \
        {"wait_states": "programmed", "accelerator": "programmed", "cache": "warm"}
    assert not {"wait_states", "accelerator", "cache"} & set(_resolve({}, MPS2).as_dict())  # its results as before


@pytest.mark.parametrize("chosen, settings, parameters", [
    ({}, MemorySettings(), []),
    ({"wait_states": "0"}, MemorySettings(wait_states=0), []),
    ({"accelerator": "off"}, MemorySettings(accelerator=False), []),
    ({"accelerator": "on", "wait_states": "5"}, MemorySettings(wait_states=5, accelerator=True), []),
    ({"cache": "cold"}, MemorySettings(cold=True), ["cold=1"]),
    ({"cache": "cold", "sampling": "per-tick"}, MemorySettings(cold=True), ["per_tick=1", "cold=1"]),
])
def test_they_reach_the_run_as_memory_settings_and_cold_as_a_run_parameter(chosen, settings, parameters):
    config = _resolve(chosen)
    assert configs.memory_settings(config) == settings
    assert configs.run_parameters(config) == parameters
    assert configs.memory_settings(_resolve({}, MPS2)) == MemorySettings()


def test_they_change_no_build():
    """One firmware for every memory setting: the sweep's shards keep its points together."""
    builds = {shards.build_key(Point(job, 100)) for job in plan([FREERTOS], [F405], [YIELD], PROBE, configs.variants(
        ["wait_states=programmed,0", "accelerator=off,on", "cache=warm,cold"])).jobs}
    assert len(builds) == 1


def test_on_a_target_without_a_flash_model_alone_they_are_refused_naming_the_targets_that_have_one():
    with pytest.raises(SwitchscopeError, match=r"option accelerator applies on targets with a flash model "
                                               r"\(.*netduinoplus2.*\) only, not mps2-an385 \(accelerator=off\)") as error:
        plan([FREERTOS], [MPS2], [YIELD], PROBE, [{"accelerator": "off"}])
    assert "--target" in error.value.hint and "netduinoplus2" in error.value.hint
    with pytest.raises(SwitchscopeError, match="not mps2-an385 \\(cache=warm\\)"):  # even its default: it has none
        _resolve({"cache": "warm"}, MPS2)


@pytest.mark.parametrize("elsewhere,ours", [("art", "accelerator"), ("prefetch", "accelerator"),
                                             ("latency", "wait_states"), ("flash", "cache")])
def test_the_manuals_names_for_them_point_to_ours(elsewhere, ours):
    with pytest.raises(SwitchscopeError, match=f"unknown configuration option '{elsewhere}'") as error:
        _resolve({elsewhere: "off"}, catalog.TARGETS["netduinoplus2"])
    assert error.value.hint.startswith(f"did you mean {ours}? ")


def test_among_several_targets_they_apply_on_those_with_one_and_are_said_once():
    found = plan([FREERTOS], [MPS2, F405], [YIELD], PROBE, configs.variants(["accelerator=off,on"]))
    labels = sorted((job.target.name, job.changed_options()) for job in found.jobs)
    assert labels == [("mps2-an385", ""), ("netduinoplus2", "accelerator=off"), ("netduinoplus2", "accelerator=on")]
    (note,) = found.notes
    assert note.startswith("accelerator applies on targets with a flash model") and \
        note.endswith("only: mps2-an385 measured without it")


@pytest.mark.parametrize("chosen, fragment", [
    ({"wait_states": "16"}, "'16' is not a value of wait_states"),
    ({"accelerator": "fast"}, "'fast' is not a value of accelerator"),
])
def test_a_value_the_option_has_not_is_refused(chosen, fragment):
    with pytest.raises(SwitchscopeError, match=fragment):
        _resolve(chosen)


def test_what_a_chips_flash_cannot_do_is_refused_with_the_chip_named():
    """A flash interface whose register holds fewer wait states, and a flash with no cache to empty."""
    import dataclasses
    f1 = dataclasses.replace(F405, name="an-f1", flash=dataclasses.replace(
        F405.flash, register_layout="stm32f1", icache=None, dcache=None))
    with pytest.raises(SwitchscopeError, match="wait_states=3: an-f1's flash takes 0 to 2 wait states"):
        _resolve({"wait_states": "3"}, f1)
    with pytest.raises(SwitchscopeError, match="cache=cold: an-f1's flash has no cache to empty"):
        _resolve({"cache": "cold"}, f1)
    bare = dataclasses.replace(f1, flash=dataclasses.replace(f1.flash, prefetch=False))
    with pytest.raises(SwitchscopeError, match="accelerator=on: an-f1's flash has no accelerator"):
        _resolve({"accelerator": "on"}, bare)


def test_measure_takes_the_memory_options_alone_and_not_cold():
    assert configs.memory_choice({"accelerator": "off", "wait_states": "2"}, F405) == \
        MemorySettings(wait_states=2, accelerator=False)
    with pytest.raises(SwitchscopeError, match="measure takes the memory options only"):
        configs.memory_choice({"opt": "-Os"}, F405)
    with pytest.raises(SwitchscopeError, match="cache=cold empties the caches through switchscope's harness"):
        configs.memory_choice({"cache": "cold"}, F405)
    with pytest.raises(SwitchscopeError, match="not mps2-an385"):
        configs.memory_choice({"wait_states": "0"}, MPS2)


def test_each_flash_interface_leaves_reset_as_its_manual_says():
    """FLASH_ACR's reset value: RM0090 3.9.1 0x0000 0000 (0 wait states, all off); RM0394 3.7.1 0x0000 0600 (ICEN
    bit 9 and DCEN bit 10: the caches on); RM0008 3.3.3 0x0000 0030 (PRFTBE bit 4 and its status PRFTBS bit 5)."""
    resets = {name: target.flash.register_reset for name, target in catalog.TARGETS.items() if target.flash}
    assert resets == {"netduinoplus2": 0, "nucleo-l432kc": 1 << 9 | 1 << 10, "bluepill": 1 << 4 | 1 << 5}


def test_cold_caches_with_the_accelerator_off_is_refused_alone_and_left_out_among_several():
    """Off, the caches hold nothing: emptying them would measure the accelerator-off figure twice."""
    with pytest.raises(SwitchscopeError, match="cache=cold with accelerator=off: the caches are off"):
        _resolve({"accelerator": "off", "cache": "cold"})
    found = plan([FREERTOS], [F405], [YIELD], PROBE, configs.variants(["accelerator=off,on", "cache=warm,cold"]))
    measured = {(job.config.as_dict()["accelerator"], job.config.as_dict()["cache"]) for job in found.jobs}
    assert measured == {("off", "warm"), ("on", "warm"), ("on", "cold")}
    assert any("nothing to empty" in skipped.reason for skipped in found.skipped)
