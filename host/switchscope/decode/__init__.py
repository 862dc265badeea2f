"""The decode stage: from bytes and counts to numbers. The record stream the
firmware sends (wire.py), logic-analyzer captures (VCD, sigrok), ELF files,
the scope pin's edges and pulses, what a run recorded (recording.py), the
arithmetic of stamps and distributions (stats.py), and the measurement
methods, which turn a run's recording into one reading per sample.

May import: common. Imported by: catalog, build, run, figures, present, cli.
"""
