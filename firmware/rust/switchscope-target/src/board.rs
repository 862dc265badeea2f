//! The board the firmware runs on, chosen by architecture and cargo feature.

#[cfg(target_arch = "arm")]
#[path = "board_cortex_m.rs"]
mod implementation;

#[cfg(target_arch = "avr")]
#[path = "board_avr.rs"]
mod implementation;

pub use implementation::*;
