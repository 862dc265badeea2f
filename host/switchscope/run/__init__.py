"""The run stage: a firmware on a simulator, bounded in time and ended with
the command, or on a real board over a serial line (flashed first); what
comes back is a decode.recording.RunOutput. Each simulator is one module
(qemu, simavr, verilator) of the interface simulator.py describes, which
runner.py chooses by the board's [simulator] name.

May import: build, catalog, decode, common. Imported by: figures, cli.
"""
