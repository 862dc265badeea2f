"""The run stage: a firmware on QEMU or simavr, bounded in time and ended with
the command, or on a real board over a serial line (flashed first); what
comes back is a decode.recording.RunOutput.

May import: build, catalog, decode, common. Imported by: figures, cli.
"""
