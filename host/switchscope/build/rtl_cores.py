"""The core a Verilator target runs, told by its board.toml's [simulator] config:
LiteX's VexRiscv variants by their Verilog files' names (VexRiscv_Full), every
other name an Ibex configuration of ibex_configs.yaml (small, maxperf)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from switchscope.build import verilator, vexriscv

VEXRISCV_PREFIX = "VexRiscv"


def is_vexriscv(core_config: str | None) -> bool:
    return bool(core_config) and core_config.startswith(VEXRISCV_PREFIX)


def builder(core_config: str | None) -> ModuleType:
    """The build module of the core's model: its ensure(config) and model_key(config)."""
    return vexriscv if is_vexriscv(core_config) else verilator


def ensure(core_config: str) -> Path:
    return builder(core_config).ensure(core_config)
