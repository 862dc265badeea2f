//! Records as COBS frames with a CRC-8 (polynomial 0x07), encoded while they
//! are sent, with no buffer: see docs/wire-format.md.

use crate::board;

pub const HELLO: u8 = 0x01;
pub const META: u8 = 0x02;
pub const CALIB: u8 = 0x03;
pub const SAMPLE: u8 = 0x10;
pub const SAMPLE_COMPACT: u8 = 0x11;
pub const LOG: u8 = 0x20;
pub const FAULT: u8 = 0x7E;
pub const END: u8 = 0x7F;
pub const PROTOCOL_VERSION: u8 = 2;
pub const TICK_IN_WINDOW: u8 = 0x01;
pub const NOT_CLOSED: u8 = 0x02;
const MAX_PAYLOAD: usize = 96;

/// CRC-8 a nibble at a time, without a table (see firmware/common/record.c).
fn crc8(crc: u8, byte: u8) -> u8 {
    let step = |crc: u8| {
        let high = crc >> 4;
        (crc << 4) ^ high ^ (high << 1) ^ (high << 2)
    };
    step(step(crc ^ byte))
}

/// Send one record given as the concatenation of `parts` (the first byte of
/// the first part is the record type), cut at 96 bytes.
pub fn send(parts: &[&[u8]]) {
    let bytes = || parts.iter().flat_map(|part| part.iter().copied()).take(MAX_PAYLOAD);
    let crc = bytes().fold(0, crc8);
    let total = bytes().count() + 1;
    let byte_at = |index: usize| if index + 1 == total { crc } else { bytes().nth(index).unwrap_or(0) };
    // COBS: each run of non-zero bytes goes out after a code byte giving its length + 1.
    let mut start = 0;
    while start <= total {
        let mut end = start;
        while end < total && byte_at(end) != 0 {
            end += 1;
        }
        board::write(&[(end - start + 1) as u8]);
        for index in start..end {
            board::write(&[byte_at(index)]);
        }
        start = end + 1;
    }
    board::write(&[0]);
}

/// A META record "key=value".
pub fn meta(key: &str, value: &str) {
    send(&[&[META], key.as_bytes(), b"=", value.as_bytes()]);
}

/// A META record whose value is a number.
pub fn meta_number(key: &str, value: u32) {
    let mut digits = [0u8; 10];
    let mut at = digits.len();
    let mut rest = value;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    send(&[&[META], key.as_bytes(), b"=", &digits[at..]]);
}
