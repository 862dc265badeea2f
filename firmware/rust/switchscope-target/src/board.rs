//! The board the firmware runs on, chosen by architecture and cargo feature.

#[cfg(target_arch = "arm")]
#[path = "board_cortex_m.rs"]
mod implementation;

#[cfg(target_arch = "avr")]
#[path = "board_avr.rs"]
mod implementation;

pub use implementation::*;

/// Empty the caches in front of the board's code memory before a window (the run parameter cold=1; the C
/// boards' board_empty_caches): no board a Rust kernel runs on has one, so a cold run's windows open as a
/// warm run's do, and the test in probe::open costs no instruction.
#[inline(always)]
pub fn empty_caches() {}
