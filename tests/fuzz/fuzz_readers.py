#!/usr/bin/env python3
"""Coverage-guided fuzzing of one reader with atheris (libFuzzer):

    pip install atheris==3.0.0
    python3 tests/fuzz/fuzz_readers.py vcd -atheris_runs=1000000
    python3 tests/fuzz/fuzz_readers.py {vcd,csv,sr,wire,stream} [libFuzzer options]

Each input is given to the reader as a file (or, for `wire` and `stream`, as
the record stream itself). A reader may return figures or raise a
SwitchscopeError; anything else is a crash, which libFuzzer saves as
crash-<hash>: every one found becomes a case in tests/test_fuzz.py.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "host"))

with atheris.instrument_imports():
    from switchscope import catalog
    from switchscope.decode import wire
    from switchscope.figures.capture import analyze
    from switchscope.common.errors import SwitchscopeError
    from switchscope.decode.methods import Probe

SUFFIX = {"vcd": ".vcd", "csv": ".csv", "sr": ".sr"}
SEED = {  # a valid start for each format, so that the fuzzer gets past the first checks
    "vcd": b"$timescale 1 ns $end\n$var wire 1 ! D13 $end\n$enddefinitions $end\n#0\n0!\n#10\n1!\n#20\n0!\n",
    "csv": b"; Channels (1/1): D13\n; Samplerate: 10 MHz\nnanoseconds,logic\n0,0\n100,1\n150,0\n300,1\n420,0\n",
}


def main() -> None:
    kind = sys.argv.pop(1) if len(sys.argv) > 1 and sys.argv[1] in (*SUFFIX, "wire", "stream") else None
    if kind is None:
        sys.exit(__doc__)
    scratch = Path(tempfile.mkdtemp(prefix="switchscope-fuzz-"))
    capture = scratch / f"input{SUFFIX.get(kind, '')}"
    target = catalog.TARGETS["atmega328p"]

    def one_input(data: bytes) -> None:
        try:
            if kind in SUFFIX:
                capture.write_bytes(SEED.get(kind, b"") + data if data[:1] == b"+" else data)
                analyze(capture, "D13", None)
            elif kind == "wire":
                wire.decode(data)
            else:
                Probe()._timer_reading(wire.decode(data), target, "fuzz")
        except SwitchscopeError:
            pass

    atheris.Setup(sys.argv, one_input)
    try:
        atheris.Fuzz()
    finally:
        for path in scratch.iterdir():
            os.unlink(path)
        scratch.rmdir()


if __name__ == "__main__":
    main()
