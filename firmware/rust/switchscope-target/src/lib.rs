//! The target side of switchscope for Rust kernels, the twin of the C harness
//! in firmware/common: the same record stream (docs/wire-format.md), the same
//! probe instructions, the same board. A kernel crate supplies its scenarios
//! and nothing else.
#![no_std]
#![cfg_attr(target_arch = "avr", feature(asm_experimental_arch))]

#[cfg(all(target_arch = "arm", not(any(feature = "mps2-an385", feature = "mps2-an386-fpu", feature = "lm3s6965evb",
                                         feature = "microbit", feature = "microbit-m0plus"))))]
compile_error!("no board: build with --features switchscope-target/<target> (mps2-an385, mps2-an386-fpu, \
                lm3s6965evb, microbit or microbit-m0plus), as switchscope does");

pub mod board;
pub mod harness;
pub mod message;
pub mod probe;
pub mod ruler;
pub mod thread_metric;
pub mod wire;

/// The scenario a kernel crate was built for: which of its scenario features,
/// listed by the crate, is on (expanded in the kernel crate, whose features it
/// reads): `scenario_name!("signal", "yield", "isr", "ruler")`.
#[macro_export]
macro_rules! scenario_name {
    ($($name:literal),+) => {
        $(if cfg!(feature = $name) { $name } else)+ { "none" }
    };
}
