"""Captures and ELF files a user gives to analyze and measure: rows out of
order, glitches, sigrok sessions that would unpack to gigabytes, truncated or
foreign ELFs. Each gives the right figure with what was left out said, or one
line and status 2; none a traceback, none touches its input."""

import bz2
import gzip
import io
import json
import lzma
import struct
import zipfile
from pathlib import Path

import pytest

from conftest import lay_out, refused_cleanly, run_command

VCD_HEAD = "$timescale 1 ns $end\n$scope module top $end\n$var wire 1 ! D13 $end\n$upscope $end\n$enddefinitions $end\n"


def vcd(pulses) -> str:
    return VCD_HEAD + "#0\n0!\n" + "".join(f"#{rise}\n1!\n#{fall}\n0!\n" for rise, fall in sorted(pulses))


def clean_pulses(patterns=20, t_ab=100, t_cs=400, inner=20, period=10_000):
    """Each pattern: a bare pulse of t_ab, then a window of t_ab + t_cs: tCS = t_cs."""
    found = []
    for n in range(patterns):
        a = 1000 + n * period
        found += [(a, a + t_ab), (a + t_ab + inner, a + 2 * t_ab + inner + t_cs)]
    return found


def csv(rows) -> str:
    return "; Samplerate: 100 MHz\nnanoseconds,D13\n" + "".join(f"{t},{level}\n" for t, level in rows)


def csv_rows(pulses):
    return [(0, 0)] + [row for rise, fall in pulses for row in ((rise, 1), (fall, 0))]


def _lied(members: dict[str, bytes], claims: dict[str, int]) -> bytes:
    """A zip whose headers claim `claims` unpacked sizes: a bomb's header, without a bomb's bytes.
    Its members carry a fixed date, so the same bytes come out whenever it is made."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data, zipfile.ZIP_DEFLATED)
    data = bytearray(buffer.getvalue())
    for name, size in claims.items():
        encoded = name.encode()
        at = data.find(b"PK\x01\x02")  # central directory entries: the size zipfile believes, at offset 24
        while at >= 0:
            name_length = struct.unpack_from("<H", data, at + 28)[0]
            if bytes(data[at + 46: at + 46 + name_length]) == encoded:
                struct.pack_into("<I", data, at + 24, size)
            at = data.find(b"PK\x01\x02", at + 4)
    return bytes(data)


def by_name(cases) -> list[str]:
    """The cases' test ids: their file names, not their contents (long, and an archive's are bytes)."""
    return [case[0] for case in cases]


METADATA = b"[device 1]\ncapturefile=logic-1\ntotal probes=1\nsamplerate=1 MHz\nprobe1=D13\nunitsize=1\n"


UNREADABLE = [
    ("swapped.csv", csv([(0, 0), (100, 1), (300, 0), (200, 1), (400, 0)]), "line 6: time goes back"),
    ("repeated.csv", csv([(0, 0), (100, 1), (100, 0), (200, 1)]), "line 5: time goes back or stands still"),
    ("reversed.csv", csv(reversed(csv_rows(clean_pulses(3)))), "out of time order"),
    ("shuffled.csv", csv(sorted(csv_rows(clean_pulses(4)), key=lambda row: (row[0] * 7919) % 1009)),
     "out of time order"),
    ("bomb-metadata.sr", _lied({"version": b"2", "metadata": METADATA}, {"metadata": 1 << 30}),
     "metadata member unpacks to 1,073,741,824 bytes"),
    ("bomb-chunk.sr", _lied({"version": b"2", "metadata": METADATA, "logic-1-1": b"\0" * 100},
                            {"logic-1-1": 1 << 30}), "member logic-1-1 unpacks to 1,073,741,824 bytes"),
    ("bomb-total.sr", _lied({"version": b"2", "metadata": METADATA,
                             **{f"logic-1-{n}": b"\0" for n in range(1, 40)}},
                            {f"logic-1-{n}": 200 << 20 for n in range(1, 40)}), "in all, more than switchscope reads"),
    ("random.vcd", VCD_HEAD + "#0\n0!\n" + "".join(f"#{t}\n1!\n#{t + 60 + t % 7}\n0!\n" for t in
                                                   (1, 150, 420, 1000, 1210, 1900, 2000, 2600)),
     "do not pair cleanly"),
]


@pytest.mark.parametrize("name, content, fragment", UNREADABLE, ids=by_name(UNREADABLE))
def test_a_capture_that_cannot_be_paired_or_read_is_refused(tmp_path, monkeypatch, capsys, name, content, fragment):
    said = refused_cleanly(tmp_path, {name: content.encode() if isinstance(content, str) else content},
                           ["analyze", name, "--channel", "D13", "--json", "out.json"], 2, fragment, monkeypatch,
                           capsys)
    assert name in said


@pytest.mark.parametrize("where", ["in a gap between patterns", "beside a bare pulse", "a drop inside a window"])
def test_a_glitch_is_left_out_and_said_and_the_figure_stays_right(tmp_path, monkeypatch, capsys, where):
    pulses = clean_pulses()
    if where == "in a gap between patterns":
        pulses.append((5000 + 10_000 * 7, 5010 + 10_000 * 7))  # 10 ns, mid-way between patterns 7 and 8
    elif where == "beside a bare pulse":
        pulses.append((1000 + 10_000 * 9 - 30, 1000 + 10_000 * 9 - 20))
    else:
        rise, fall = pulses.pop(11)  # pattern 5's window drops for 10 ns
        pulses += [(rise, rise + 150), (rise + 160, fall)]
    lay_out(tmp_path, {"glitch.vcd": vcd(pulses)})
    monkeypatch.chdir(tmp_path)
    status, said = run_command(["analyze", "glitch.vcd", "--channel", "D13", "--json", "out.json"], capsys)
    assert status == 0, said
    assert "left out, not measured" in said and "clamped" not in said
    (result,) = json.loads(Path("out.json").read_text())["results"]
    assert set(result["samples"]) == {400}  # tCS of every pattern kept: the window less the bare pulse
    assert 1 <= 20 - result["count"] <= 3
    assert all(item["reason"] for item in result["excluded_samples"])


ELF_CASES = [  # (how the file is made from /bin/true, target, fragment)
    (lambda data: data[:64], "mps2-an385", "truncated ELF file: its section headers end at byte"),
    (lambda data: data[:len(data) // 2], "mps2-an385", "truncated ELF file"),
    (lambda data: data[:-1], "atmega328p", "truncated ELF file"),
    (lambda data: data[:10], "mps2-an385", "is not an ELF file"),
    (lambda data: data, "mps2-an385", "is built for EM_X86_64, and mps2-an385 is Arm (Cortex-M)"),
    (lambda data: data, "atmega328p", "and atmega328p is AVR"),
]


@pytest.mark.parametrize("make, target, fragment", ELF_CASES, ids=[c[2][:30] + " " + c[1] for c in ELF_CASES])
def test_an_elf_that_is_cut_short_or_foreign_is_refused(tmp_path, monkeypatch, capsys, make, target, fragment):
    host_elf = Path("/bin/true").read_bytes()
    refused_cleanly(tmp_path, {"firmware.elf": make(host_elf)},
                    ["measure", "firmware.elf", "--target", target, "--from", "main", "--to", "exit"], 2, fragment,
                    monkeypatch, capsys)


def _declared(*variables: str, scopes=("top",)) -> str:
    """A VCD header declaring `variables` ("wire 1 ! D13") inside `scopes`, innermost last."""
    opened = "".join(f"$scope module {name} $end\n" for name in scopes)
    declared = "".join(f"$var {variable} $end\n" for variable in variables)
    return "$timescale 1 ns $end\n" + opened + declared + "$upscope $end\n" * len(scopes) + "$enddefinitions $end\n"


def _changes(pulses, code="!", vector=False) -> str:
    value = (lambda level: f"b{level} {code}\n") if vector else (lambda level: f"{level}{code}\n")
    return f"#0\n{value(0)}" + "".join(f"#{rise}\n{value(1)}#{fall}\n{value(0)}" for rise, fall in sorted(pulses))


TWO_SCOPES = ("$timescale 1 ns $end\n$scope module top $end\n$scope module la $end\n$var wire 1 ! D13 $end\n"
              "$upscope $end\n$scope module cpu $end\n$var wire 1 \" D13 $end\n$upscope $end\n$upscope $end\n"
              "$enddefinitions $end\n")


MISREAD = [  # the gzip member's time is fixed, as the zip's are
    ("capture.vcd.gz", gzip.compress(vcd(clean_pulses()).encode(), mtime=0), "is gzip-compressed: gunzip it first"),
    ("capture.vcd.xz", lzma.compress(vcd(clean_pulses()).encode()), "is xz-compressed: unxz it first"),
    ("capture.vcd.bz2", bz2.compress(vcd(clean_pulses()).encode()), "is bzip2-compressed: bunzip2 it first"),
    ("bus.vcd", _declared("wire 8 ! D13") + _changes(clean_pulses(), vector=True),
     "channel 'D13' is a vector of 8 bits, and a pin is one bit"),
    ("twice.vcd", _declared("wire 1 ! D13", 'wire 1 " D13') + _changes(clean_pulses(), '"'),
     "'D13' is declared twice in one scope, as two signals (! and \")"),
    ("scopes.vcd", TWO_SCOPES + _changes(clean_pulses(), '"'), "'D13' names 2 signals (top.la.D13, top.cpu.D13)"),
    ("listed-twice.csv", "; Samplerate: 100 MHz\n; Channels (2/2): D13, D13\nnanoseconds,D13,D13\n"
     + "".join(f"{t},{level},{level}\n" for t, level in csv_rows(clean_pulses())),
     "channel 'D13' is listed 2 times (column 2, column 3)"),
    ("listed-twice-no-time.csv", "; Samplerate: 100 MHz\nD13,D12,D13\n0,0,0\n1,0,1\n0,0,0\n",
     "channel 'D13' is listed 2 times (column 1, column 3)"),
    ("listed-twice.sr", _lied({"version": b"2", "metadata": METADATA.replace(b"total probes=1", b"total probes=2")
                               + b"probe2=D13\n", "logic-1-1": bytes([0, 3, 0])}, {}),
     "channel 'D13' is listed 2 times (probe1, probe2)"),
    ("no-metadata.sr", _lied({"version": b"2", "logic-1-1": bytes([0, 1, 0])}, {}),
     "is a zip archive with no metadata member"),
    ("x-in-a-pulse.vcd", VCD_HEAD + "#0\n0!\n#100\n1!\n#150\nx!\n#160\n1!\n#400\n0!\n",
     "line 11: channel 'D13' goes from 1 to x (unknown) at #150"),
    ("z-in-a-gap.vcd", VCD_HEAD + "#0\n0!\n#100\n1!\n#400\n0!\n#500\nz!\n",
     "channel 'D13' goes from 0 to z (unknown) at #500"),
]


@pytest.mark.parametrize("name, content, fragment", MISREAD, ids=by_name(MISREAD))
def test_a_capture_is_refused_for_what_is_really_wrong(tmp_path, monkeypatch, capsys, name, content, fragment):
    said = refused_cleanly(tmp_path, {name: content}, ["analyze", name, "--channel", "D13"], 2, fragment,
                           monkeypatch, capsys)
    assert "truncated" not in said and "no complete" not in said


OTHER_VALID_WAYS = [
    ("cr.vcd", vcd(clean_pulses()).replace("\n", "\r"), "D13"),
    ("crlf.vcd", vcd(clean_pulses()).replace("\n", "\r\n"), "D13"),
    ("one-bit-vector.vcd", _declared("wire 1 ! D13") + _changes(clean_pulses(), vector=True), "D13"),
    ("scopes.vcd", TWO_SCOPES + _changes(clean_pulses(), '"'), "top.cpu.D13"),
    # a comment is text, whatever it holds: value changes and time stamps in one are not the pin's
    ("comment.vcd", vcd(clean_pulses()).replace("#1000\n", "$comment\n#1050 1! #1060\n0!\n$end\n#1000\n", 1)
     .replace("#11000\n", "$comment #11000 0! #11050 1! $end\n#11000\n"), "D13"),
    # unknown until the pin is first driven, as a simulator's dump starts
    ("x-at-start.vcd", VCD_HEAD + "$dumpvars x! $end\n" + vcd(clean_pulses())[len(VCD_HEAD):], "D13"),
]


@pytest.mark.parametrize("name, content, channel", OTHER_VALID_WAYS, ids=by_name(OTHER_VALID_WAYS))
def test_a_capture_written_another_valid_way_reads_as_the_plain_one(tmp_path, monkeypatch, capsys, name, content,
                                                                    channel):
    lay_out(tmp_path, {name: content.encode()})
    monkeypatch.chdir(tmp_path)
    status, said = run_command(["analyze", name, "--channel", channel, "--json", "out.json"], capsys)
    assert status == 0, said
    (result,) = json.loads(Path("out.json").read_text())["results"]
    assert result["count"] == 20 and set(result["samples"]) == {400}
