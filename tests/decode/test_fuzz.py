"""Property tests: whatever bytes a capture file or a record stream holds,
the readers give a figure or a SwitchscopeError that says what is wrong,
never another exception and never a hang. Inputs are built near the real
formats (so that they get past the first check) and then damaged."""

import configparser
import io
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from switchscope import catalog
from switchscope.common.errors import SwitchscopeError
from switchscope.decode import wire
from switchscope.decode.methods import Probe
from switchscope.figures.capture import analyze

SETTINGS = settings(max_examples=300, deadline=2000, suppress_health_check=[HealthCheck.function_scoped_fixture])


def FUZZ(test):
    """Hypothesis's settings for these tests, and the property mark: hundreds of generated inputs, seconds
    each. The plain tests below (the wire decoder's fixed inputs, the inputs that once crashed a reader) are
    quick, and run with the unit tests."""
    return pytest.mark.property(SETTINGS(test))

numbers = st.one_of(st.integers(-3, 10**6).map(str), st.sampled_from(
    ["0", "-1", "1e2000000000", "9" * 5000, "nan", "inf", "1.5", "", "0x10", "1e-30", "+7", "٣"]))


@st.composite
def vcd_texts(draw):
    timescale = draw(st.sampled_from(["1 ns", "10 ps", "0 ns", "1 s", "100 fs", "1ns", "5 xs", "1 ms"]))
    code = draw(st.sampled_from(["!", "#", "a", "!!", "0"]))
    lines = [f"$timescale {timescale} $end", "$scope module top $end",
             f"$var wire {draw(st.sampled_from(['1', '8', '0']))} {code} D13 $end", "$upscope $end",
             "$enddefinitions $end"]
    for _ in range(draw(st.integers(0, 30))):
        lines.append(draw(st.one_of(numbers.map(lambda n: f"#{n}"),
                                    st.sampled_from(["0", "1", "x", "z", "b101 "]).map(lambda v: v + code),
                                    st.text(max_size=12))))
    text = "\n".join(lines) + draw(st.sampled_from(["\n", "", "\n\n"]))
    return text.encode("utf-8", errors="replace")


@st.composite
def csv_texts(draw):
    header = draw(st.sampled_from(["Time,D13", "nanoseconds,D13", "D13", "time,D13,D2", "seconds,D13", ""]))
    lines = []
    if draw(st.booleans()):
        lines.append(f"; Samplerate: {draw(numbers)} {draw(st.sampled_from(['MHz', 'kHz', 'Hz', 'GHz', 'x']))}")
    if draw(st.booleans()):
        lines.append("; Channels (1/8): D13")
    lines.append(header)
    for _ in range(draw(st.integers(0, 30))):
        lines.append(",".join(draw(st.lists(st.one_of(numbers, st.sampled_from(["0", "1"])), min_size=0,
                                            max_size=3))))
    return ("\n".join(lines) + draw(st.sampled_from(["\n", ""]))).encode("utf-8", errors="replace")


@st.composite
def sigrok_sessions(draw):
    metadata = configparser.ConfigParser(interpolation=None)
    metadata["device 1"] = {
        "capturefile": draw(st.sampled_from(["logic-1", "logic", "other"])),
        "total probes": draw(st.sampled_from(["1", "8", "0", "-1", "x", "100000"])),
        "samplerate": f"{draw(numbers)} {draw(st.sampled_from(['MHz', 'Hz', 'kHz']))}",
        "unitsize": draw(st.sampled_from(["1", "2", "0", "-1", "x"])),
        "probe1": "D13",
    }
    text = io.StringIO()
    metadata.write(text)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("metadata", text.getvalue() if draw(st.booleans()) else draw(st.text(max_size=40)))
        for name in draw(st.lists(st.sampled_from(["logic-1-1", "logic-1-2", "logic-1", "logic-1-x"]),
                                  max_size=3, unique=True)):
            archive.writestr(name, draw(st.binary(max_size=64)))
    data = buffer.getvalue()
    if draw(st.booleans()):  # truncated
        data = data[:draw(st.integers(4, len(data)))]
    return data


def _analyze(tmp_path, data: bytes, suffix: str):
    path = tmp_path / f"capture{suffix}"
    path.write_bytes(data)
    try:
        result = analyze(path, "D13", None)
    except SwitchscopeError as error:
        assert str(error)
        return
    assert result.count == len(result.samples) > 0


@FUZZ
@given(data=vcd_texts())
def test_the_vcd_reader_never_crashes(tmp_path, data):
    _analyze(tmp_path, data, ".vcd")


@FUZZ
@given(data=csv_texts())
def test_the_sigrok_csv_reader_never_crashes(tmp_path, data):
    _analyze(tmp_path, data, ".csv")


@FUZZ
@given(data=sigrok_sessions())
def test_the_sigrok_session_reader_never_crashes(tmp_path, data):
    _analyze(tmp_path, data, ".sr")


@FUZZ
@given(data=st.binary(max_size=300))
def test_any_bytes_as_a_capture_get_a_clear_error(tmp_path, data):
    _analyze(tmp_path, data, ".bin")


def _stream(meta: dict[str, str], samples: list[tuple[int, int, int]]) -> bytes:
    frames = [wire.encode_record(bytes([wire.HELLO, wire.PROTOCOL_VERSION]))]
    frames += [wire.encode_record(bytes([wire.META]) + f"{k}={v}".encode()) for k, v in meta.items()]
    frames += [wire.encode_record(bytes([wire.CALIB]) + start.to_bytes(4, "little") + (start + 5).to_bytes(4, "little"))
               for start in (100, 200)]
    for seq, start, end in samples:
        frames.append(wire.encode_record(bytes([wire.SAMPLE]) + seq.to_bytes(4, "little") + start.to_bytes(4, "little")
                                         + end.to_bytes(4, "little") + bytes(3)))
    return b"".join(frames)


@FUZZ
@given(modulus=numbers, clock=numbers, direction=st.sampled_from(["up", "down", "sideways", ""]),
       samples=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1)),
                        max_size=8))
def test_the_stream_to_figures_path_refuses_what_it_cannot_use(modulus, clock, direction, samples):
    stream = wire.decode(_stream({"stamp_modulus": modulus, "stamp_clock_hz": clock, "stamp_direction": direction},
                                 samples))
    try:
        reading = Probe()._timer_reading(stream, catalog.TARGETS["atmega328p"], "fuzz")
    except SwitchscopeError as error:
        assert str(error)
        return
    assert len(reading.raw) == len(stream.samples)
    assert all(value >= 0 for value in reading.raw)


@pytest.mark.parametrize("data", [b"", b"\x00" * 10, bytes(range(256)) * 4])
def test_the_wire_decoder_takes_any_bytes(data):
    wire.decode(data)


@FUZZ
@given(data=st.binary(max_size=2000))
def test_the_wire_decoder_never_crashes(data):
    stream = wire.decode(data)
    assert len(stream.samples) <= stream.records


def _session(unitsize: str, samplerate: str = "1 MHz", chunk: bytes = b"\x00\x01\x00\x01\x00") -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("metadata", f"[device 1]\ncapturefile = logic-1\ntotal probes = 1\nsamplerate = "
                                     f"{samplerate}\nunitsize = {unitsize}\nprobe1 = D13\n")
        archive.writestr("logic-1-1", chunk)
    return buffer.getvalue()


VCD_HEAD = "$timescale 1 ns $end\n$scope module top $end\n$var wire 1 ! D13 $end\n$upscope $end\n$enddefinitions $end\n"

# Inputs that once crashed or hung a reader, each kept: (file suffix, content, a fragment of the error)
ONCE_FATAL = [
    (".vcd", VCD_HEAD + "#" + "9" * 5000 + "\n1!\n", "bad time stamp"),
    (".vcd", VCD_HEAD.replace("1 ns", "0 ns") + "#0\n0!\n", "timescale is 0"),
    (".vcd", VCD_HEAD + "#10\n1!\n#5\n0!\n", "time goes back"),
    (".vcd", VCD_HEAD + "#0\n0!\n#10\n1!\n0!\n#20\n1!\n#30\n0!\n", "a pulse of zero width"),
    (".csv", "; Samplerate: 1 MHz\nnanoseconds,D13\n1e2000000000,1\n", "not a plain decimal number"),
    (".csv", "; Channels (1/1): D13\n; Samplerate: 1 MHz\nTime,logic\n0,0\n", "does not state a time unit"),
    (".csv", "; Samplerate: 1 MHz\nnanoseconds,D13\n1500,1\n", "not the time of a whole sample"),
    (".csv", "; Samplerate: 16 MHz\nmicroseconds,D13\n1,1\n", "coarser than one sample period"),
    (".csv", "; Samplerate: 0 MHz\nD13\n1\n", "sample rate"),
    (".csv", "; Samplerate: 1 MHz\nD13\n7\n", "not a sample"),
    (".sr", _session("0"), "unit size of 0"),
    (".sr", _session("1", "0 Hz"), "sample rate"),
    (".vcd", VCD_HEAD + "#0\n0!\n#10\n1!\n#11\n0!\n#100\n1!\n#101\n0!\n", "sample rate is too coarse"),
    (".vcd", VCD_HEAD + "#0\n0!\n#10\n1!\n", "no complete A-B-C-D pattern"),
]


@pytest.mark.parametrize("suffix, data, fragment", ONCE_FATAL, ids=[f[2] for f in ONCE_FATAL])
def test_inputs_that_once_crashed_a_reader_get_a_clear_error(tmp_path, suffix, data, fragment):
    path = tmp_path / f"capture{suffix}"
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    with pytest.raises(SwitchscopeError) as error:
        analyze(path, "D13", None)
    assert fragment in str(error.value)


def test_a_firmware_reporting_a_clock_of_minus_one_is_refused():
    stream = wire.decode(_stream({"stamp_modulus": "206", "stamp_clock_hz": "-1", "stamp_direction": "up"},
                                 [(0, 0, 1)]))
    with pytest.raises(SwitchscopeError, match="stamp_clock_hz"):
        Probe()._timer_reading(stream, catalog.TARGETS["atmega328p"], "fuzz")


def test_a_csv_whose_times_are_exact_gives_the_figures_it_holds(tmp_path):
    # 10 MHz: one sample is 0.1 us. Two patterns: A-B 5 samples, C-D 12, then 5 and 13.
    rows = [(0.0, 0), (1.0, 1), (1.5, 0), (3.0, 1), (4.2, 0), (10.0, 1), (10.5, 0), (12.0, 1), (13.3, 0)]
    path = tmp_path / "exact.csv"
    path.write_text("; Channels (1/1): D13\n; Samplerate: 10 MHz\nmicroseconds,logic\n"
                    + "".join(f"{time:.2f},{level}\n" for time, level in rows))
    result = analyze(path, "D13", 10e6)
    assert result.unit == "cycles" and result.samples == [7, 8]


def test_a_timer_direction_that_does_not_fit_the_stamps_is_refused():
    # the calibration pairs read 5 counts apart counting up; said to count down they would read 65531
    stream = wire.decode(_stream({"stamp_modulus": "65536", "stamp_clock_hz": "16000000", "stamp_direction": "down"},
                                 [(0, 100, 400)]))
    with pytest.raises(SwitchscopeError, match="does not count down as the firmware says"):
        Probe()._timer_reading(stream, catalog.TARGETS["atmega328p"], "fuzz")
