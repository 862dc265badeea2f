"""load=voip's encoder, firmware/include/switchscope/g711.h, compiled for the host and checked against
ITU-T G.711's mu-law coding worked by hand: the top 14 bits of the sample, their magnitude clipped to 8159 and
biased by 33, coded as segment (leading one's position less five) and the four bits after that one, the
code inverted, the sign bit set for positive samples."""

import shutil
import struct
import subprocess
from pathlib import Path

import pytest

INCLUDE = Path(__file__).resolve().parents[2] / "firmware" / "include"

HAND_WORKED = [
    (0, 0xFF),        # magnitude 0 + 33 = 33: segment 0, bits (33 >> 1) & 15 = 0; 0x00 inverted
    (-1, 0x7E),       # -1 >> 2 = -1 (rounds down): magnitude 1 + 33 = 34, segment 0, (34 >> 1) & 15 = 1: 0x01 ^ 0x7F
    (1000, 0xCE),     # 1000 >> 2 = 250, + 33 = 283: leading one bit 8, segment 3, (283 >> 4) & 15 = 1: 0x31 ^ 0xFF
    (-1000, 0x4E),    # -1000 >> 2 = -250: the same magnitude, negative: 0x31 ^ 0x7F
    (32767, 0x80),    # 8191 clipped to 8159, + 33 = 8192: past segment 7, the last code, 0x7F ^ 0xFF
    (-32768, 0x00),   # the same, negative: 0x7F ^ 0x7F
    (124, 0xEF),      # 124 >> 2 = 31, + 33 = 64: leading one bit 6, segment 1, (64 >> 2) & 15 = 0: 0x10 ^ 0xFF
]


@pytest.fixture(scope="module")
def encode(tmp_path_factory):
    folder = tmp_path_factory.mktemp("g711")
    (folder / "encode.c").write_text(
        '#include <stdio.h>\n#include "switchscope/g711.h"\n'
        "int main(void) { int v; while (scanf(\"%d\", &v) == 1) printf(\"%d\\n\", g711_mulaw((int16_t)v)); }\n")
    subprocess.run([shutil.which("gcc") or "gcc", f"-I{INCLUDE}", str(folder / "encode.c"), "-o",
                    str(folder / "encode")], check=True)

    def run(values):
        out = subprocess.run([str(folder / "encode")], input="\n".join(map(str, values)), capture_output=True,
                             text=True, check=True).stdout
        return [int(line) for line in out.split()]
    return run


def test_the_hand_worked_codes_and_every_other_as_a_second_coder_gives_them(encode):
    values = [value for value, _ in HAND_WORKED]
    assert encode(values) == [code for _, code in HAND_WORKED]
    try:  # a second, independent coder, where this Python still has it (audioop left the library in 3.13)
        import audioop
    except ImportError:
        return
    every = list(range(-32768, 32768))
    assert encode(every) == list(audioop.lin2ulaw(struct.pack(f"<{len(every)}h", *every), 2))
