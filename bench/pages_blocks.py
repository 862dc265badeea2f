"""Every figure block of README.md and docs/*.md: its name (its markers'),
the runs its figures come from (pages_runs.RUNS), and its renderer."""

from __future__ import annotations

import pages_ci as ci
import pages_cores as cores
import pages_default as default
import pages_docs as docs
import pages_flash as flash
import pages_kernels as kernels
import pages_latency as latency
import pages_silicon as silicon
import pages_studies as studies
import pages_thread_metric as thread_metric
from pages_runs import Block
from pages_times import script_block

BLOCKS = (
    # README.md
    Block("switch-cost", ("suite",), studies.render_switch_cost),
    Block("readme-thread-metric", ("thread-metric",), thread_metric.render_silicon),
    # docs/default-run.md
    Block("default-provenance", ("default",), default.render_provenance),
    Block("default-m3", ("default",), default.render_m3),
    Block("default-m4-instructions", ("default", "instructions"), default.render_m4_and_instructions),
    Block("default-avr", ("default",), default.render_avr),
    Block("default-run-time", ("default",), default.render_run_time),
    Block("compilers", (), default.render_compilers),
    # docs/armv6m.md, docs/fpu.md
    Block("armv6m", ("armv6m",), cores.render_armv6m),
    Block("fpu", ("fpu",), cores.render_fpu),
    Block("fpu-breakdown", ("fpu", "fpu-breakdown"), cores.render_fpu_breakdown),
    # docs/rust-kernels.md, docs/rhealstone.md
    Block("kernels", ("suite", "instructions"), kernels.render_kernels),
    Block("kernels-avr", ("suite",), kernels.render_kernels_avr),
    Block("rust-methods", ("methods",), ci.render_rust_methods),
    Block("rhealstone", ("suite", "instructions", "mutex", "msg-size"), kernels.render_rhealstone),
    Block("rhealstone-m4-avr", ("suite", "mutex", "msg-size"), kernels.render_rhealstone_m4_avr),
    Block("rhealstone-prose", ("suite", "mutex", "msg-size"), kernels.render_rhealstone_prose),
    # docs/thread-metric.md
    Block("thread-metric", ("thread-metric",), thread_metric.render_targets),
    Block("thread-metric-kernels", ("thread-metric",), thread_metric.render_kernels),
    Block("thread-metric-intervals", ("thread-metric",), thread_metric.render_intervals),
    # docs/switches.md
    Block("switches-example", ("switches",), latency.render_switches),
    Block("switches-prose", ("switches",), latency.render_switches_prose),
    # docs/studies.md, docs/floor.md
    Block("bertos", ("suite",), studies.render_bertos),
    Block("rotate-curve", ("suite",), studies.render_rotate_curve),
    Block("mechanism", ("mechanism", "suite"), studies.render_mechanism),
    Block("mechanism-prose", ("suite",), studies.render_mechanism_prose),
    Block("breakdown", ("breakdown",), studies.render_breakdown),
    Block("load", ("load",), studies.render_load),
    Block("load-prose", ("load",), studies.render_load_prose),
    Block("floor", ("suite",), studies.render_floor),
    Block("floor-prose", ("suite",), studies.render_floor_prose),
    # docs/irq-latency.md
    Block("irq-latency", ("default", "irq-latency"), latency.render_latency),
    Block("irq-latency-prose", ("default", "irq-latency"), latency.render_latency_prose),
    # docs/boards.md, docs/methods.md, docs/throughput.md
    Block("kits", ("instructions", "suite"), default.render_kits),
    Block("methods-table", ("default", "instructions", "suite", "intrusion"), ci.render_methods_table),
    Block("intrusion-summary", ("intrusion",), docs.render_intrusion_summary),
    Block("suite-size", ("suite",), ci.render_suite_size),
    Block("throughput", ("throughput",), lambda m: script_block(m, "throughput", "python3 bench/throughput.py"),
          slow=True),
    Block("stream", ("stream",), lambda m: script_block(m, "stream", "python3 bench/stream.py"), slow=True),
    Block("matrix", ("matrix",), lambda m: script_block(m, "matrix", "python3 bench/matrix.py --cold"), slow=True),
    # docs/measurement.md
    Block("trm-range", ("default",), docs.render_trm_range),
    Block("tick", ("default", "instructions"), docs.render_tick),
    Block("cycles-cost", ("cycles-cost",), lambda m: script_block(m, "cycles-cost", "python3 bench/cycles.py"),
          slow=True),
    Block("ibex-model", ("ibex-model",), lambda m: script_block(m, "ibex-model", "python3 bench/ibex_model.py"),
          slow=True),
    Block("ibex-speed", ("ibex-speed",),
          lambda m: script_block(m, "ibex-speed", "python3 bench/ibex_model.py --speed"), slow=True),
    Block("ibex-slow-memory", ("ibex-slow-memory",), cores.render_ibex_slow_memory),
    Block("vexriscv-caches", ("vexriscv-caches",), cores.render_vexriscv_caches),
    Block("rust-methods-prose", ("methods",), ci.render_rust_methods_prose),
    Block("intrusion", ("intrusion",), docs.render_intrusion),
    Block("options", ("options",), docs.render_options),
    Block("rotate-excluded", ("default",), docs.render_rotate_excluded),
    # docs/ci.md, docs/architecture.md, docs/reliability.md
    Block("compare", ("optimisation",), ci.render_compare),
    Block("compare-avr", ("optimisation",), ci.render_avr_os),
    Block("suite-cost", ("suite-cost",), ci.render_suite_cost),
    Block("avr-wraps", ("default",), ci.render_avr_wraps),
    # docs/flash.md
    Block("flash-netduinoplus2", ("flash",), lambda m: flash.render_chip(m, "netduinoplus2")),
    Block("flash-nucleo-l432kc", ("flash",), lambda m: flash.render_chip(m, "nucleo-l432kc")),
    Block("flash-bluepill", ("flash",), lambda m: flash.render_chip(m, "bluepill")),
    Block("flash-stall-share", ("flash-breakdown",), flash.render_stall_share),
    Block("flash-methods", ("flash-methods",), flash.render_methods),
    Block("flash-latency", ("flash-latency",), flash.render_latency),
    # docs/silicon.md
    Block("silicon-exception", ("breakdown", "default", "irq-latency", "suite"), silicon.render_exception),
    Block("silicon-freertos-faq", ("breakdown", "suite"), silicon.render_freertos_faq),
    Block("silicon-thread-metric", ("thread-metric",), thread_metric.render_silicon),
    Block("silicon-embos", ("silicon",), silicon.render_embos),
    Block("silicon-zephyr", ("suite",), silicon.render_zephyr),
    Block("silicon-art", ("flash",), flash.render_art_factor),
    Block("silicon-f407", ("flash",), flash.render_f407),
    Block("silicon-bertos", ("suite",), silicon.render_bertos),
)
