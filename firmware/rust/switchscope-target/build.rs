//! Puts mps2-an385's memory map and interrupt names where cortex-m-rt's
//! linker script looks for them (no PAC on crates.io supplies them).
use std::{env, fs, path::PathBuf};

fn main() {
    if env::var_os("CARGO_FEATURE_MPS2_AN385").is_none() {
        return; // another board's PAC provides both
    }
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    fs::write(out.join("memory.x"), include_str!("mps2-an385/memory.x")).unwrap();
    fs::write(out.join("device.x"), include_str!("mps2-an385/device.x")).unwrap();
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=mps2-an385/memory.x");
    println!("cargo:rerun-if-changed=mps2-an385/device.x");
}
