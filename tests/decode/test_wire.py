"""Unit tests of the record stream: framing, checksums, and every way a stream can break."""

import struct

import pytest

from switchscope.decode.wire import (CALIB, END, HELLO, LOG, META, PROTOCOL_VERSION, SAMPLE, SAMPLE_COMPACT, cobs_decode, cobs_encode, crc8, decode,
                              encode_record)

pytestmark = pytest.mark.smoke  # pure: part of the quick subset


def sample(seq, start=1000, end=900, tag=0, flags=0):
    return encode_record(struct.pack("<BIIIHB", SAMPLE, seq, start, end, tag, flags))


def stream(*frames):
    head = encode_record(bytes([HELLO, PROTOCOL_VERSION])) + encode_record(bytes([META]) + b"scenario=resume")
    return head + b"".join(frames)


def end(count):
    return encode_record(struct.pack("<BI", END, count))


class TestFraming:
    @pytest.mark.parametrize("data", [b"", b"\x00", b"\x00\x00", b"abc", b"a\x00b\x00", bytes(range(256)) * 2,
                                      b"\x01" * 254, b"\x01" * 255, b"\x01" * 600])
    def test_cobs_round_trip(self, data):
        encoded = cobs_encode(data)
        assert 0 not in encoded
        assert cobs_decode(encoded) == data

    def test_crc8_known_value(self):
        # CRC-8/SMBUS (poly 0x07, init 0) of "123456789" is 0xF4
        assert crc8(b"123456789") == 0xF4

    def test_cobs_decode_rejects_a_short_frame(self):
        with pytest.raises(ValueError):
            cobs_decode(b"\x05ab")


class TestDecoding:
    def test_complete_stream(self):
        data = stream(encode_record(struct.pack("<BII", CALIB, 500, 494)), sample(0), sample(1, tag=7, flags=1),
                      encode_record(bytes([LOG]) + b"hello"), end(2))
        s = decode(data)
        assert s.problems == []
        assert s.complete and s.end_count == 2
        assert s.protocol == PROTOCOL_VERSION
        assert s.meta == {"scenario": "resume"}
        assert s.calibration == [(500, 494)]
        assert [(x.seq, x.tag, x.tick_in_window) for x in s.samples] == [(0, 0, False), (1, 7, True)]
        assert s.logs == ["hello"]

    def test_stamp_values_with_zero_bytes_survive(self):
        s = decode(stream(sample(0, start=0x00010000, end=0), end(1)))
        assert (s.samples[0].start, s.samples[0].end) == (0x00010000, 0)

    def test_lost_records_are_reported_with_their_sequence_numbers(self):
        s = decode(stream(sample(0), sample(3), end(4)))
        assert [x.seq for x in s.samples] == [0, 3]
        assert len(s.problems) == 1
        assert "samples 1..2 lost" in str(s.problems[0])
        assert s.problems[0].record == 3  # hello, meta, sample 0, then this one

    def test_repeated_record_is_dropped_and_reported(self):
        s = decode(stream(sample(0), sample(1), sample(1), end(2)))
        assert [x.seq for x in s.samples] == [0, 1]
        assert "sample 1 repeated" in str(s.problems[0])

    def test_garbled_record_is_reported_with_its_position_and_decoding_resumes(self):
        good = stream(sample(0))
        bad = bytearray(sample(1))
        bad[2] ^= 0x40  # one flipped bit in the sequence number (a data byte, not a COBS code)
        s = decode(good + bytes(bad) + sample(2) + end(3))
        assert [x.seq for x in s.samples] == [0, 2]
        messages = [str(p) for p in s.problems]
        assert messages[0] == f"record 3 (byte {len(good)}): garbled record: checksum mismatch"
        assert "samples 1..1 lost" in messages[1]

    def test_truncated_stream_says_where_it_stops(self):
        data = stream(sample(0), sample(1))
        cut = data + sample(2)[:5]
        s = decode(cut)
        assert not s.complete
        assert s.trailing_bytes == 5
        assert str(s.problems[-1]) == (f"record 4 (byte {len(data)}): stream ends inside a record "
                                       "(5 bytes after the last complete one)")

    def test_record_of_the_wrong_length(self):
        s = decode(stream(encode_record(struct.pack("<BI", SAMPLE, 1)), end(0)))
        assert "has 4 bytes, expected 15" in str(s.problems[0])

    def test_unknown_record_type(self):
        s = decode(stream(encode_record(b"\x55abc")))
        assert "unknown record type 0x55" in str(s.problems[0])

    def test_other_protocol_version(self):
        s = decode(encode_record(bytes([HELLO, 9])))
        assert "protocol version 9" in str(s.problems[0])

    def test_end_count_disagreeing_with_the_samples(self):
        s = decode(stream(sample(0), end(5)))
        assert "target sent 5 samples" in str(s.problems[0])

    def test_feeding_byte_by_byte_gives_the_same_result(self):
        from switchscope.decode.wire import StreamDecoder
        data = stream(sample(0), sample(1), end(2))
        decoder = StreamDecoder()
        for byte in data:
            decoder.feed(bytes([byte]))
        assert decoder.finish() == decode(data)


def compact(seq, length):
    return encode_record(struct.pack("<BBH", SAMPLE_COMPACT, seq & 0xFF, length))


class TestCompactSamples:
    def test_compact_records_carry_the_length_the_last_tag_and_an_implied_sequence(self):
        s = decode(stream(sample(0, tag=5), compact(1, 300), compact(2, 0), end(3)))
        assert s.problems == []
        assert [(x.seq, x.length, x.tag, x.flags) for x in s.samples] == [(0, -1, 5, 0), (1, 300, 5, 0), (2, 0, 5, 0)]

    def test_a_gap_in_the_low_byte_is_reported_as_lost_samples(self):
        s = decode(stream(sample(0), compact(1, 7), compact(5, 7), end(6)))
        assert [x.seq for x in s.samples] == [0, 1, 5]
        assert "samples 2..4 lost" in str(s.problems[0])

    def test_the_sequence_continues_across_the_low_byte_wrap(self):
        frames = [sample(0)] + [compact(seq, seq % 1000) for seq in range(1, 256)] + [sample(256)] + \
                 [compact(seq, 9) for seq in range(257, 600)]
        s = decode(stream(*frames, end(600)))
        assert s.problems == []
        assert list(s.samples.column("seq")) == list(range(600))


def _random_stream(rng, count, damage):
    """A plausible firmware stream: full records every 256th sample and for
    unusual ones, compact records otherwise, with texts in between; then
    `damage` random byte changes, cuts or duplications."""
    frames, tag = [encode_record(bytes([HELLO, PROTOCOL_VERSION]))], 0
    for seq in range(count):
        if rng.random() < 0.01:
            frames.append(encode_record(bytes([LOG]) + b"log %d" % seq))
        flags = 1 if rng.random() < 0.02 else 0
        if rng.random() < 0.05:
            tag = rng.randrange(3)
        if seq % 256 == 0 or flags or rng.random() < 0.05:
            frames.append(sample(seq, rng.randrange(1 << 16), rng.randrange(1 << 16), tag, flags))
        else:
            frames.append(compact(seq, rng.randrange(1 << 16)))
    frames.append(end(count))
    data = bytearray(b"".join(frames))
    for _ in range(damage):
        at = rng.randrange(len(data))
        choice = rng.randrange(3)
        if choice == 0:
            data[at] = rng.randrange(256)
        elif choice == 1:
            del data[at:at + rng.randrange(1, 40)]
        else:
            data[at:at] = data[at:at + rng.randrange(1, 40)]
    return bytes(data)


def _decoded_one_record_at_a_time(data):
    from switchscope.decode.wire import StreamDecoder
    decoder = StreamDecoder()
    decoder._decode_together = lambda *args: False  # every record through the one-by-one path
    decoder.feed(data)
    return decoder.finish()


@pytest.mark.parametrize("seed", range(40))
def test_decoding_as_arrays_gives_what_decoding_record_by_record_gives(seed):
    import random
    from switchscope.decode.wire import StreamDecoder
    rng = random.Random(seed)
    data = _random_stream(rng, rng.randrange(1, 3000), damage=seed % 4)
    expected = _decoded_one_record_at_a_time(data)
    decoder = StreamDecoder()
    for piece in range(0, len(data), 4096):  # pieces as the pipe delivers them
        decoder.feed(data[piece:piece + 4096])
    assert decoder.finish() == expected
