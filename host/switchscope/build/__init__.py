"""The build stage: a scenario's firmware for a kernel, target, method and
configuration (C with the board's compiler, Rust with the pinned toolchains),
the kernel's source from its crate, and the native helpers the simulators
need (the QEMU plugin with the Cortex-M timing model, the simavr runner).

May import: catalog, decode, common. Imported by: run, figures, cli.
"""
