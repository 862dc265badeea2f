//! The target side of switchscope for Rust kernels, the twin of the C harness
//! in firmware/common: the same record stream (docs/wire-format.md), the same
//! probe instructions, the same board. A kernel crate supplies its scenarios
//! and nothing else.
#![no_std]
#![cfg_attr(target_arch = "avr", feature(asm_experimental_arch))]

pub mod board;
pub mod harness;
pub mod probe;
pub mod ruler;
pub mod wire;

/// The scenario a kernel crate was built for: the name of its scenario feature
/// (expanded in the kernel crate, whose features it reads).
#[macro_export]
macro_rules! scenario_name {
    () => {
        if cfg!(feature = "resume") {
            "resume"
        } else if cfg!(feature = "signal") {
            "signal"
        } else if cfg!(feature = "yield") {
            "yield"
        } else if cfg!(feature = "isr") {
            "isr"
        } else {
            "ruler"
        }
    };
}
