"""The lines under a terminal table: what the x floor column divides by, the windows a load fell into,
the firmware's sizes, and what the figures were measured with (compiler, simulator, kernel version, when
and at which commit)."""

from __future__ import annotations

from collections import Counter

from switchscope import catalog
from switchscope.figures.result import Result, Stats
from switchscope.present.cells import cell, kernel_named, row_label

X_FLOOR_COLUMN = "x floor"  # the median as a multiple of the floor kernel's
KIB, MIB = 1024, 1024 * 1024


def floor_lines(results: list[Result]) -> list[str]:
    """Under a table with an x floor column: the floor's figures it divides by, each with the floor's
    configuration, and the results that have none because the floor measured other work."""
    floored = [r for r in results if r.floor and "median" in r.floor]
    lines = []
    if floored:
        first = floored[0].floor
        figures = ", ".join(f"{row_label(r)} {cell(r.floor['median'])}"
                            + (f" [{r.floor['options']}]" if r.floor.get("options") else "") for r in floored)
        lines.append(f"  {X_FLOOR_COLUMN}: the median over the floor kernel's ({first['method']} on "
                     f"{first['target']}, {floored[0].unit}): {figures}")
    lines += [f"  {X_FLOOR_COLUMN}: none for {row_label(r)}: {r.floor['refused']}"
              for r in results if r.floor and "refused" in r.floor]
    lines += [f"  {X_FLOOR_COLUMN}: {row_label(r)} is below 1: this kernel switched in fewer {r.unit} than the floor "
              f"built the same way ({r.floor['options']}), which is then not the least a switch can cost there"
              for r in floored if r.x_floor is not None and r.x_floor < 1]
    return lines


def excluded_reasons(result: Result) -> str:
    """Why samples were left out, each reason with its count, most first: "52 stamp wrapped, 3 tick in window"."""
    reasons = Counter(str(item.get("reason")).replace("_", " ") if isinstance(item, dict) else "no reason given"
                      for item in result.excluded_samples)  # the stream's stamp_wrapped read as words
    return ", ".join(f"{count:,} {reason}" for reason, count in reasons.most_common())


def excluded_lines(results: list[Result]) -> list[str]:
    """Under a table with an excl column: why each row's excluded samples were left out."""
    return [f"  excl, {row_label(r)}: {r.excluded:,} left out: {excluded_reasons(r)}"
            for r in results if r.excluded_samples]


def load_lines(results: list[Result]) -> list[str]:
    """Under a table of runs under load: how many kept windows the load's interrupt fell into and their
    median, beside the median of the others, which the load left alone."""
    lines = []
    for r in results:
        if r.interfered is None:
            continue
        config = r.config
        load = (f"load={config.get('load')}: a timer interrupt every {config.get('load_period_us')} µs, "
                f"{config.get('load_tasks')} encoding task(s)")
        hit = [r.samples[i] for i in r.interfered]
        calm = r.undisturbed
        said = f"{len(hit)} of {r.count} kept windows interfered"
        if hit:
            said += f", median {cell(Stats.of(hit).median)}, max {cell(max(hit))}"
        if calm and hit:
            said += f"; the {len(calm)} undisturbed: median {cell(Stats.of(calm).median)}, max {cell(max(calm))}"
        lines.append(f"  {row_label(r)}, {load}: {said} ({r.unit}; the interfered are kept in the figures above)")
    return lines


def _binary(size: int) -> str:
    """A memory's size as its datasheet says it: 4 MiB, 32 KiB, or bytes."""
    if size % MIB == 0:
        return f"{size // MIB} MiB"
    return f"{size // KIB} KiB" if size % KIB == 0 else f"{size:,} bytes"


def _kib_span(sizes: list[int]) -> str:
    least, most = f"{min(sizes) / KIB:.1f}", f"{max(sizes) / KIB:.1f}"
    return f"{least} KiB" if least == most else f"{least}-{most} KiB"


def _machine_memory(result: Result) -> bool:
    """Whether the limits are a simulated machine's memory (QEMU's MPS2: an FPGA board, no chip), not a chip's."""
    target = catalog.TARGETS.get(result.target or "")
    return target is not None and target.memory == "machine"


def firmware_lines(group: list[Result]) -> list[str]:
    """The images' flash and static RAM in one line: from the least to the largest when they differ, against
    the chip's flash and RAM, or, where the limits are a simulated machine's memory, that said apart."""
    sized = [r for r in group if {"flash_bytes", "flash_limit", "ram_bytes", "ram_limit"} <= set(r.firmware)]
    if not sized:
        return []
    flash = _kib_span([r.firmware["flash_bytes"] for r in sized])
    ram = _kib_span([r.firmware["ram_bytes"] for r in sized])
    flash_limit, ram_limit = (_binary(sized[0].firmware[key]) for key in ("flash_limit", "ram_limit"))
    alike = len({(r.firmware["flash_bytes"], r.firmware["ram_bytes"]) for r in sized}) == 1
    said = f"  firmware sizes{f' ({len(sized)} images alike)' if alike and len(sized) > 1 else ''}:"
    if _machine_memory(sized[0]):
        memory = (f"{flash_limit} of each" if flash_limit == ram_limit
                  else f"{flash_limit} of flash and {ram_limit} of RAM")
        return [f"{said} flash {flash}, static RAM {ram} (the simulated machine has {memory})"]
    return [f"{said} flash {flash} of {flash_limit}, static RAM {ram} of {ram_limit}"]


def measured_when(result: Result) -> str:
    """When, and at which commit of the project measured (the git work tree it ran in), when known."""
    when = f"measured {result.measured_at}" if result.measured_at else ""
    project = result.project or {}
    if project.get("commit"):
        when += f" at {_commit(project)}" + (f" of {project['repository']}" if project.get("repository") else "")
    return when


def _commit(project: dict) -> str:
    """The commit a result was measured at, shortened, and whether the work tree had changes; "" unknown."""
    if not project.get("commit"):
        return ""
    return project["commit"][:12] + (" (uncommitted changes)" if project.get("dirty") else "")


def _each(values) -> list[str]:
    return list(dict.fromkeys(str(v) for v in values if v))


def provenance_line(results: list[Result], when: bool = True) -> str:
    """What a table of many results was measured with, each different value once: the kernels' versions,
    the compilers, the simulators, and (`when`) when, the first and the last, and at which commits."""
    kernels = _each(kernel_named(r.kernel, r.kernel_version) for r in results)
    compilers = _each((r.toolchain or {}).get("compiler") for r in results)
    simulators = _each((r.simulator or {}).get("name") for r in results)
    times = sorted(r.measured_at for r in results if r.measured_at)
    commits = _each(_commit(r.project or {}) for r in results)
    parts = [", ".join(kernels), f"built with {' / '.join(compilers)}" if compilers else "",
             f"on {' / '.join(simulators)}" if simulators else ""]
    if times and when:
        parts.append(f"measured {times[0]}" + (f" to {times[-1]}" if times[-1] != times[0] else "")
                     + (f" at {', '.join(commits)}" if commits else ""))
    return "  " + "; ".join(part for part in parts if part)
