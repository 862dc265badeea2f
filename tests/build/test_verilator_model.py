"""How the Ibex model's build (build/verilator.py) reads the installed pythondata-cpu-ibex: its configurations,
the Verilator command line, the generated primitives and the tracer's stub, and what it says when the package, a
configuration or a tool is missing. Nothing here runs Verilator."""

import re

import pytest

from switchscope.build import rtl_model
from switchscope.build import verilator as model
from switchscope.common.errors import SwitchscopeError


def test_the_configurations_come_from_the_package():
    configs = model.read_configs(model.package_root()[0])
    assert configs["small"]["RV32M"] == "ibex_pkg::RV32MFast"
    assert (configs["small"]["BranchTargetALU"], configs["small"]["WritebackStage"]) == ("0", "0")
    assert configs["maxperf"]["RV32M"] == "ibex_pkg::RV32MSingleCycle"
    assert (configs["maxperf"]["BranchTargetALU"], configs["maxperf"]["WritebackStage"]) == ("1", "1")


def test_a_line_that_is_not_key_value_is_refused(tmp_path):
    (tmp_path / "ibex_configs.yaml").write_text("small:\n  RV32E : 0\n  what is this\n")
    with pytest.raises(SwitchscopeError, match=r"ibex_configs.yaml:3: not a `key: value` line"):
        model.read_configs(tmp_path)


def test_enums_are_defines_the_rest_parameters_and_rvfi_is_on(tmp_path):
    root, _ = model.package_root()
    parameters = model.read_configs(root)["small"]
    arguments = model.verilator_arguments(root, parameters, tmp_path / "primitives", tmp_path, tracer=False)
    assert "+define+RV32M=ibex_pkg::RV32MFast" in arguments  # simple_system reads the enums as `defines
    assert "-GBranchTargetALU=0" in arguments
    assert "+define+RVFI=1" in arguments  # ibex_top_tracing refuses to elaborate without it
    assert str(tmp_path / "ibex_tracer.sv") in arguments  # the stub, without the tracer
    assert "-DIBEX_SIM_TRACER=1" not in arguments


def test_with_the_tracer_the_packages_own_is_used(tmp_path):
    root, _ = model.package_root()
    arguments = model.verilator_arguments(root, {}, tmp_path / "primitives", tmp_path, tracer=True)
    assert str(tmp_path / "ibex_tracer.sv") not in arguments
    assert "-DIBEX_SIM_TRACER=1" in arguments


def test_generic_primitives_stand_in_for_the_generated_ones(tmp_path):
    model.generic_primitives(model.package_root()[0], tmp_path)
    ram = (tmp_path / "prim_ram_2p.sv").read_text()
    assert "module prim_ram_2p" in ram and "prim_generic_ram_2p" not in ram
    assert (tmp_path / "prim_clock_gating.sv").is_file()


def test_the_tracer_stub_has_the_tracers_ports_and_no_body(tmp_path):
    stub = model.tracer_stub(model.package_root()[0], tmp_path).read_text()
    assert stub.startswith("module ibex_tracer") and stub.rstrip().endswith("endmodule")
    assert "rvfi_valid" in stub and "rvfi_pc_rdata" in stub
    assert "always" not in stub


def test_an_unknown_configuration_is_refused_with_the_choices():
    with pytest.raises(SwitchscopeError, match="no Ibex configuration 'fastest'") as refused:
        model.ensure("fastest")
    assert "small" in refused.value.hint and "maxperf" in refused.value.hint


def test_a_missing_package_is_said_with_the_install_command(monkeypatch):
    monkeypatch.setattr(rtl_model.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(SwitchscopeError, match="pythondata_cpu_ibex is not installed") as refused:
        model.ensure("small")
    assert "pip install pythondata-cpu-ibex==" in refused.value.hint


@pytest.mark.parametrize("tool, package", [("verilator", "verilator"), ("g++", "g++"), ("make", "make")])
def test_a_missing_tool_of_the_build_is_named_with_its_package(monkeypatch, tool, package):
    from switchscope.common import tools

    monkeypatch.setattr(tools.shutil, "which", lambda name: None if name == tool else f"/usr/bin/{name}")
    with pytest.raises(SwitchscopeError, match=re.escape(f"{tool} not found on PATH")) as refused:
        model.ensure("small")
    assert f"apt-get install {package}" in refused.value.hint
