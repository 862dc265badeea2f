"""Finding results in what a run wrote, and the few facts every page states
about them (compiler, simulator, kernel version)."""

from __future__ import annotations

import re

from pages_text import median

KERNEL_NAMES = {"freertos": "FreeRTOS", "floor": "floor", "rtic": "RTIC", "embassy": "Embassy", "lilos": "lilos"}
CORES = {"mps2-an385": "Cortex-M3", "mps2-an386": "Cortex-M4", "mps2-an386-fpu": "Cortex-M4F",
         "microbit": "Cortex-M0", "microbit-m0plus": "Cortex-M0+", "atmega328p": "ATmega328P",
         "lm3s6965evb": "Cortex-M3", "stm32vldiscovery": "Cortex-M3", "netduinoplus2": "Cortex-M4",
         "ibex": "Ibex small", "ibex-maxperf": "Ibex maxperf", "vexriscv": "VexRiscv_Full"}


def matches(result: dict, where: dict) -> bool:
    for key, wanted in where.items():
        if key == "options":
            if any(result.get("options", {}).get(name) != value for name, value in wanted.items()):
                return False
        elif key == "tasks":
            if (result.get("tasks") or None) != wanted:
                return False
        elif result.get(key) != wanted:
            return False
    return True


def pick(results: list[dict], **where) -> list[dict]:
    return [result for result in results if matches(result, where)]


def one(results: list[dict], **where) -> dict:
    """The one result that fits; several that fit must agree on their samples' statistics (a suite measures
    the default configuration once, but a run may hold it twice)."""
    found = pick(results, **where)
    if not found:
        raise LookupError(f"no result with {where}")
    if len({repr(r["stats"]) for r in found}) > 1:
        raise LookupError(f"{len(found)} results with {where}, with other figures: say more of which")
    return found[0]


def maybe(results: list[dict], **where) -> dict | None:
    try:
        return one(results, **where)
    except LookupError:
        return None


def med(result: dict) -> str:
    return median(result["stats"]["median"])


def us(result: dict, value: float | None = None) -> str:
    """A figure in µs at the result's clock, two places."""
    value = result["stats"]["median"] if value is None else value
    return f"{value * result['ns_per_unit'] / 1000:,.2f}"


def trm(result: dict, statistic: str = "median") -> str:
    """The least and the most cycles the core's TRM allows for the statistic, "" without a timing model."""
    bounds = result.get("bounds")
    if not bounds:
        return ""
    low, high = bounds["min"][statistic], bounds["max"][statistic]
    return f"{median(low)}-{median(high)}"


def compiler(result: dict) -> str:
    """"arm-none-eabi-gcc 12.2.1", "avr-gcc 5.4.0", or rustc's whole version line."""
    text = result["toolchain"]["compiler"]
    if text.startswith("rustc"):
        return text
    version = re.search(r"\) (\d+\.\d+\.\d+)", text)
    return f"{text.split()[0]} {version.group(1)}" if version else text


def simulator(result: dict) -> str:
    """"QEMU 10.0.2", "simavr 1.6"."""
    name = result["simulator"]["name"]
    version = re.search(r"(\d+\.\d+(?:\.\d+)?)", name)
    short = "QEMU" if "QEMU" in name else "simavr" if "simavr" in name else name.split()[0]
    return f"{short} {version.group(1) if version else ''}".strip()


def kernel_label(result: dict) -> str:
    """"FreeRTOS V11.2.0", "Embassy 0.10.0", "floor"."""
    name = KERNEL_NAMES.get(result["kernel"], result["kernel"])
    return name if result["kernel"] == "floor" else f"{name} {result['kernel_version'].split()[-1]}"


def default_options(kernel: str, target: str, scenario: str, tasks: int | None = None, **chosen) -> dict[str, str]:
    """The options a run of the kernel on the target takes by default (its port's own defaults included), with
    the chosen ones changed: what `switchscope run` would measure."""
    from switchscope import catalog
    from switchscope.catalog import configs
    return configs.resolve(chosen, catalog.KERNELS[kernel], catalog.TARGETS[target], catalog.SCENARIOS[scenario],
                           tasks).as_dict()


def mhz(result: dict) -> str:
    return f"{result['f_cpu_hz'] / 1e6:g} MHz"
