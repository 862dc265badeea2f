"""A result read back checked against the target it names: counted the way that target counts, on its
simulator, at its clock, on its core, by a kernel the catalog builds for it, within its memory. A result
relabelled to another target (a run of one board said to be of another with the same core) is refused:
compared or kept by --resume, it would pass for the other's."""

from __future__ import annotations

import re

from switchscope import catalog
from switchscope.common.errors import SwitchscopeError


class AlteredResult(SwitchscopeError):
    """A result whose parts contradict each other: no run writes one, an edit or a damaged copy does."""


HINT = "measure again: the file was altered, or holds another target's result under this target's name"
# how a run read from a real board over its serial line says so: its "simulator" options name the line's speed
OVER_SERIAL = re.compile(r"^\d+ baud\b")


def over_serial(document: dict) -> bool:
    """Whether a result was read from a board over a serial line, which may run at its own clock."""
    simulator = document.get("simulator")
    return isinstance(simulator, dict) and bool(OVER_SERIAL.match(str(simulator.get("options") or "")))


def check_target(document: dict, where: str) -> None:
    """A result of a target this switchscope knows must have been counted the way that target counts: in a
    unit its simulator (or its timing model, or its board over a serial line) gives, by that timing model,
    on that simulator; at the target's clock (a board over a serial line may run at its own), on its core,
    by a kernel ported to it (the catalog's firmware; a firmware of one's own, "source", may run any), within
    its memory. A model's result relabelled as the RTL's (ibex-qemu's cycles as ibex's), or one board's as
    another's with the same core, is refused: compared or kept by --resume, it would pass for the other."""
    target = catalog.TARGETS.get(document.get("target")) if isinstance(document.get("target"), str) else None
    if target is None:
        return
    unit, model = document.get("unit"), document.get("timing_model")
    counted = (*target.units, *(("cycles",) if target.real_board else ()))
    if unit in ("instructions", "cycles") and unit not in counted:
        raise AlteredResult(f"{where}: a result of {target.name} in {unit}, and {target.name} counts "
                            f"{' or '.join(counted)} only ({_simulator_said(target)})", HINT)
    if model is not None and model != target.timing_model_for(unit or ""):
        has = f"its timing model is {target.timing_model}" if target.timing_model else "it has no timing model"
        raise AlteredResult(f"{where}: a result of {target.name} timed by the {model} model, and {has} "
                            f"in {unit} ({_simulator_said(target)})", HINT)
    name = (document.get("simulator") or {}).get("name") if isinstance(document.get("simulator"), dict) else None
    named = {simulator for simulator in catalog.SIMULATORS if simulator in str(name or "").lower()}
    if named and target.simulator not in named:
        raise AlteredResult(f"{where}: a result of {target.name} measured on '{name}', and {target.name} runs on "
                            f"{target.simulator}", HINT)
    _check_board(document, target, where)


def _check_board(document: dict, target, where: str) -> None:
    """The facts of the target's board.toml the result restates: its clock, core and memory, and the kernel."""
    firmware = document.get("firmware") if isinstance(document.get("firmware"), dict) else {}
    facts = (("cpu", document.get("cpu"), target.cpu),
             ("f_cpu_hz", None if over_serial(document) else document.get("f_cpu_hz"), target.f_cpu_hz),
             ("firmware.flash_limit", firmware.get("flash_limit"), target.flash_bytes),
             ("firmware.ram_limit", firmware.get("ram_limit"), target.ram_bytes))
    for field, held, expected in facts:
        if held is not None and held != expected:
            raise AlteredResult(f"{where}: {field} is {held}, and {target.name}'s is {expected} (its board.toml)",
                                HINT)
    kernel = catalog.KERNELS.get(document.get("kernel")) if isinstance(document.get("kernel"), str) else None
    if kernel is not None and "source" not in document and target.name not in kernel.targets:
        why = dict(kernel.not_ported).get(target.name) or f"{kernel.title} is ported to {', '.join(kernel.targets)} only"
        raise AlteredResult(f"{where}: a result of {kernel.name} on {target.name}, and switchscope builds no "
                            f"{kernel.name} for {target.name} ({why})", HINT)


def _simulator_said(target) -> str:
    return {"verilator": "its RTL on Verilator", "simavr": "simavr", "qemu": "QEMU"}.get(target.simulator,
                                                                                       target.simulator)
