"""The host's rooms: every module in a stage package, imports running one way
(from the command line down to the common ground), no import circle, no
module over 400 lines. docs/architecture.md draws the same; a change that
breaks it fails here, naming the import."""

import ast
from pathlib import Path

import pytest

from import_circles import circles

HOST = Path(__file__).resolve().parents[1] / "host" / "switchscope"
# bottom to top: a stage may import its own modules and those of the stages before it
STAGES = ("common", "decode", "catalog", "build", "run", "figures", "present", "cli")
MAX_LINES = 400


def module_name(path: Path) -> str:
    parts = ["switchscope", *path.relative_to(HOST).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(HOST.rglob("*.py"))}


def stage(module: str) -> str | None:
    """The stage of a module; None for the package's own face (switchscope, its __main__)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in STAGES else None


def imported(path: Path) -> set[str]:
    """Every switchscope module `path` imports, wherever the import stands (a function's body too):
    `from switchscope.a import b` names switchscope.a.b when that is a module, else switchscope.a."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("switchscope")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("switchscope"):
            for alias in node.names:
                found.add(f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in MODULES else node.module)
    return found


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    """Each module's switchscope imports: read when a test asks for it, not when the suite is collected."""
    return {module: imported(path) & set(MODULES) for module, path in MODULES.items()}


def test_every_module_is_in_a_stage_package():
    outside = [str(path.relative_to(HOST)) for module, path in MODULES.items()
               if stage(module) is None and path.name not in ("__init__.py", "__main__.py")]
    assert not outside, f"modules outside the stage packages {STAGES}: {outside}"
    assert {path.parent.name for path in HOST.rglob("*.py")} <= {*STAGES, "switchscope"}


def test_every_stage_says_what_it_holds_and_what_it_may_import():
    for name in STAGES:
        doc = ast.get_docstring(ast.parse((HOST / name / "__init__.py").read_text())) or ""
        assert "May import:" in doc, f"{name}/__init__.py must say what the stage may import"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if stage(m)))
def test_imports_run_down_the_stages(module, graph):
    here = STAGES.index(stage(module))
    upward = sorted(target for target in graph[module] if stage(target) and STAGES.index(stage(target)) > here)
    assert not upward, f"{module} ({stage(module)}) imports from a stage above it: {upward}"


def test_there_is_no_import_circle(graph):
    assert not (found := circles(graph)), f"import circles: {found}"


def test_no_module_is_over_400_lines():
    long = {str(path.relative_to(HOST)): n for path in MODULES.values()
            if (n := len(path.read_text().splitlines())) > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines: {long}"


def test_the_checks_see_what_they_check(graph):
    """The graph is read from the code: the command line reaches the measurement, which reaches the wire
    format, and a made-up upward import would be caught."""
    assert "switchscope.figures.measure" in graph["switchscope.cli.measuring"]
    assert "switchscope.decode.wire" in graph["switchscope.run.runner"]
    assert STAGES.index(stage("switchscope.present.report")) > STAGES.index(stage("switchscope.figures.intrusion"))


def test_what_the_scripts_import_of_switchscope_exists():
    """setup.sh, .ci and bench run Python against the package: every `from switchscope... import` there must name
    a module and names it has (set-up's last steps import the native helpers' builder)."""
    import importlib
    import re
    checkout = HOST.parents[1]
    scripts = [checkout / "setup.sh", *sorted((checkout / ".ci").iterdir()), *sorted((checkout / "bench").glob("*.py"))]
    found = [(script.name, module, names) for script in scripts for module, names in
             re.findall(r"from (switchscope[\w.]*) import ([\w, ]+)", script.read_text())]
    assert any(name == "setup.sh" for name, _, _ in found)
    for script, module, names in found:
        imported_module = importlib.import_module(module)
        for name in (n.strip() for n in names.split(",")):
            assert hasattr(imported_module, name) or f"{module}.{name}" in MODULES, f"{script}: {module}.{name}"
