"""Which floor figure a result is divided by, and the multiple, worked by hand."""

from switchscope.figures import floor
from switchscope.figures.result import Result
from switchscope.present import report, side_by_side


def result(kernel, samples, target="mps2-an385", cpu="cortex-m3", model="cortex-m3", scenario="yield",
           method="probe", unit="cycles", tasks=None, **fields):
    fields.setdefault("simulator", {"name": "QEMU"})
    return Result(kind="scenario", scenario=scenario, method=method, unit=unit, samples=list(samples), overhead=8,
                  first=samples[0], kernel=kernel, target=target, cpu=cpu, timing_model=model, tasks=tasks,
                  kernel_version="1", toolchain={"compiler": "arm-none-eabi-gcc 12.2.1"}, **fields)


def test_the_multiple_is_the_median_over_the_floors_median_on_the_same_target():
    kernel, least = result("freertos", [124, 124, 130]), result("floor", [84, 84, 90])
    floor.attach([kernel, least])
    assert kernel.x_floor == 1.48  # 124 / 84 = 1.476...
    assert kernel.floor == {"target": "mps2-an385", "method": "probe", "median": 84, "options": "default"}
    assert least.x_floor is None and least.floor is None  # the floor is not a multiple of itself


def test_another_board_of_the_same_core_and_model_serves_when_the_same_board_has_none():
    kernel = result("freertos", [124], target="stm32vldiscovery")
    floor.attach([kernel, result("floor", [62], target="mps2-an385")])
    assert kernel.x_floor == 2.0 and kernel.floor["target"] == "mps2-an385"


def test_the_same_board_is_preferred_to_another_of_its_core():
    kernel = result("freertos", [120], target="stm32vldiscovery")
    floor.attach([kernel, result("floor", [60], target="mps2-an385"), result("floor", [80], target="stm32vldiscovery")])
    assert kernel.x_floor == 1.5 and kernel.floor["target"] == "stm32vldiscovery"


def test_no_multiple_across_cores_units_methods_scenarios_task_counts_or_silicon_boards():
    least = result("floor", [84])
    others = [result("freertos", [124], cpu="cortex-m4", model="cortex-m4", target="mps2-an386"),
              result("freertos", [54], unit="instructions"),
              result("freertos", [124], method="marker"),
              result("freertos", [267], scenario="resume"),
              result("freertos", [296], scenario="rotate", tasks=2),
              result("freertos", [130], target="stm32-silicon", model=None)]  # a DWT count: its own board only
    floor.attach([least, *others])
    assert [r.x_floor for r in others] == [None] * len(others)


def test_the_table_gains_the_column_and_names_the_floors_figures():
    kernel, least = result("freertos", [124]), result("floor", [84])
    floor.attach([kernel, least])
    text = report.table([least, kernel])
    header = next(line for line in text.splitlines() if line.strip().startswith("scenario") and "x floor" in line)
    row = text.splitlines()[text.splitlines().index(header) + 1]
    assert row.split()[-1] == "1.48"
    assert "x floor: the median over the floor kernel's (probe on mps2-an385, cycles): yield 84" in text


def test_x_floor_is_written_and_read_back():
    kernel = result("freertos", [124])
    floor.attach([kernel, result("floor", [84])])
    document = kernel.to_json()
    assert document["x_floor"] == 1.48 and document["floor"]["median"] == 84
    assert Result.from_json(document).x_floor == 1.48


def test_a_floor_built_at_the_same_optimisation_is_the_one_divided_by():
    kernel = result("freertos", [120])
    kernel.options = {"opt": "-Os"}
    fast, small = result("floor", [60]), result("floor", [80])
    fast.options, small.options = {"opt": "-O2"}, {"opt": "-Os"}
    floor.attach([kernel, fast, small])
    assert kernel.x_floor == 1.5


def configured(kernel, samples, scenario="yield", **options):
    found = result(kernel, samples, scenario=scenario)
    found.options = {"opt": "-O2", **options}
    return found


def test_no_multiple_against_a_floor_that_did_other_work_and_the_result_says_why():
    """sem-shuffle with a mutex is not a multiple of the floor's semaphore, nor msg at 64 bytes of the floor's 4,
    nor -O0 of the floor at -O2: each keeps no multiple and names the option that differs."""
    cases = [(configured("freertos", [504], "sem-shuffle", lock="mutex"),
              configured("floor", [77], "sem-shuffle", lock="semaphore"), "lock=mutex (the floor's: semaphore)"),
             (configured("freertos", [700], "msg", msg_size="64"), configured("floor", [150], "msg", msg_size="4"),
              "msg_size=64 (the floor's: 4)"),
             (configured("freertos", [300], opt="-O0"), configured("floor", [84]), "opt=-O0 (the floor's: -O2)")]
    for kernel, least, why in cases:
        floor.attach([kernel, least])
        assert kernel.x_floor is None, why
        assert why in kernel.floor["refused"] and "--floor" in kernel.floor["refused"]
        text = report.table([kernel])
        assert f"x floor: none for {kernel.scenario}: " in text and why in text


def test_the_floor_that_did_the_same_work_is_divided_by_and_shown_with_its_options():
    kernel = configured("freertos", [504], "sem-shuffle", lock="mutex")
    semaphore = configured("floor", [77], "sem-shuffle", lock="semaphore")
    mutex = configured("floor", [140], "sem-shuffle", lock="mutex")
    floor.attach([kernel, semaphore, mutex])
    assert kernel.x_floor == 3.6  # 504 / 140
    assert kernel.floor["median"] == 140 and kernel.floor["options"] == "lock=mutex,opt=-O2"
    assert "sem-shuffle 140 [lock=mutex,opt=-O2]" in report.table([mutex, kernel])


def test_no_multiple_where_the_kernel_does_work_the_floor_cannot():
    """rotate under FreeRTOS's load=voip: the floor has no load, so no floor figure is the same work."""
    kernel = configured("freertos", [296], "rotate", load="voip")
    kernel.tasks = 2
    least = configured("floor", [87], "rotate")
    least.tasks = 2
    floor.attach([kernel, least])
    assert kernel.x_floor is None
    assert "load=voip (the floor has no load)" in kernel.floor["refused"]
    assert "the floor cannot do that work" in kernel.floor["refused"]


def test_the_floors_options_shown_are_those_that_change_its_scenario():
    least = configured("floor", [84], lock="semaphore", msg_size="4")  # yield: neither lock nor msg_size applies
    assert floor.options_label(least) == "opt=-O2"


def test_an_interrupt_latency_says_why_it_has_no_multiple():
    kernel, least = configured("freertos", [12, 189], "irq-latency"), configured("floor", [12, 120], "irq-latency")
    kernel.worst, least.worst = {"cycles": 189}, {"cycles": 120}
    floor.attach([kernel, least])
    assert kernel.x_floor is None and "a kernel that masks less waits less" in kernel.floor["refused"]


def test_a_kernel_below_the_floor_built_the_same_way_is_said_so():
    kernel, least = configured("freertos", [173], opt="-O0"), configured("floor", [196], opt="-O0")
    floor.attach([kernel, least])
    assert kernel.x_floor == 0.88
    assert "yield is below 1: this kernel switched in fewer cycles than the floor" in report.table([kernel])


def test_a_results_options_shown_are_those_that_change_its_scenario():
    """kernel.toml: lock is sem-shuffle's, msg_size msg's, irq_priority irq-latency's, rotation and load
    rotate's, load_period_us only with load=voip."""
    options = {"lock": "semaphore", "msg_size": "4", "irq_priority": "low", "rotation": "three_levels",
               "load": "none", "load_period_us": "125", "preemption": "on", "opt": "-O2"}
    assert configured("freertos", [124], **options).scenario_options() == {"preemption": "on", "opt": "-O2"}
    rotate = configured("freertos", [296], "rotate", **{**options, "load": "voip"}).scenario_options()
    assert set(rotate) == {"rotation", "load", "load_period_us", "preemption", "opt"}


def test_targets_side_by_side_name_what_counted_each_and_its_multiple():
    m3 = result("freertos", [124, 124, 130], f_cpu_hz=25e6)
    rtl = result("freertos", [246], target="ibex", cpu="rv32imc", model=None, f_cpu_hz=50e6,
                 simulator={"name": "Ibex 0.0.post2937-x (small) RTL on Verilator 5.006"})
    avr = result("freertos", [275], target="atmega328p", cpu="atmega328p", model=None, f_cpu_hz=16e6,
                 simulator={"name": "switchscope-simavr 1.6"})
    floor.attach([m3, rtl, avr, result("floor", [84, 84, 90])])
    rows = {line.split()[3]: line.split() for line in side_by_side.target_comparison([m3, rtl, avr]).splitlines()[2:]}
    assert rows["mps2-an385"][4:8] == ["cortex-m3", "Cortex-M3", "model", "124"]
    assert rows["mps2-an385"][-1] == "1.48"  # 124 / 84
    assert rows["mps2-an385"][-4] == "4.96"  # 124 cycles at 25 MHz: 4.96 µs
    assert rows["ibex"][5:8] == ["Ibex", "RTL", "246"] and rows["ibex"][-4] == "4.92"  # 246 at 50 MHz
    assert rows["ibex"][-1] == "-"  # no floor measured on the Ibex here: no multiple
    assert rows["atmega328p"][5] == "simavr"
    assert side_by_side.target_comparison([m3]) == ""  # one target: nothing to set side by side


def test_no_multiple_of_a_floor_counted_with_another_memory():
    """netduinoplus2 at 5 wait states behind the ART is no multiple of an MPS2 floor at zero wait states, though
    one Cortex-M4 model counted both."""
    art = {"model": True, "description": "flash 5 wait states as programmed, prefetch, ..., warm", "wait_states": 5}
    zero = {"model": False, "description": "zero wait states", "wait_states": 0}
    kernel = result("freertos", [133], target="netduinoplus2", cpu="cortex-m4", model="cortex-m4", memory=art)
    floor.attach([kernel, result("floor", [60], target="mps2-an386", cpu="cortex-m4", model="cortex-m4",
                                 memory=zero)])
    assert kernel.x_floor is None and "memory flash 5 wait states" in kernel.floor["refused"]
    same = result("freertos", [133], target="netduinoplus2", cpu="cortex-m4", model="cortex-m4", memory=art)
    floor.attach([same, result("floor", [70], target="netduinoplus2", cpu="cortex-m4", model="cortex-m4", memory=art)])
    assert same.x_floor == 1.9
