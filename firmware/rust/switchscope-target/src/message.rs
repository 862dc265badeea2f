//! msg's message: SWITCHSCOPE_MSG_SIZE bytes (the host's --config msg_size,
//! given to cargo in the environment; 4, a 32-bit word, without it), filled
//! from the sample's number so that the receiver's copy can be checked.

/// The message's size in bytes.
pub const SIZE: usize = parse(option_env!("SWITCHSCOPE_MSG_SIZE"));

/// The message a sample sends.
pub type Message = [u8; SIZE];

const fn parse(text: Option<&str>) -> usize {
    let bytes = match text {
        Some(text) => text.as_bytes(),
        None => return 4,
    };
    let mut value = 0;
    let mut i = 0;
    while i < bytes.len() {
        assert!(bytes[i].is_ascii_digit(), "SWITCHSCOPE_MSG_SIZE is a number of bytes");
        value = value * 10 + (bytes[i] - b'0') as usize;
        i += 1;
    }
    assert!(value >= 1 && value <= 64, "SWITCHSCOPE_MSG_SIZE is 1 to 64 bytes");
    value
}

/// Sample `seq`'s message: byte i is seq + i.
pub fn of(seq: u32) -> Message {
    let mut message = [0; SIZE];
    for (i, byte) in message.iter_mut().enumerate() {
        *byte = (seq as usize + i) as u8;
    }
    message
}

/// A sum of the bytes, for the receiver to hand back: the sender compares it
/// with its own message's, outside the window.
pub fn sum(message: &Message) -> u16 {
    message.iter().map(|&byte| byte as u16).sum() // at most 64 x 255: no overflow
}

/// Stops the run if the receiver's sum is not that of sample `seq`'s message.
pub fn check(seq: u32, received_sum: u16) {
    if received_sum != sum(&of(seq)) {
        crate::harness::fail("msg: the message received is not the one sent");
    }
}
