//! Puts the board's memory map and interrupt names where cortex-m-rt's linker
//! script looks for them, for the boards no PAC on crates.io supplies them
//! for (mps2-an385 and mps2-an386-fpu, microbit and microbit-m0plus; where a
//! kernel's PAC supplies the vectors, only the memory map). Also tells the
//! code an ARMv6-M target (cfg armv6m): rustc names no cfg for it.
use std::{env, fs, path::PathBuf};

fn main() {
    println!("cargo:rustc-check-cfg=cfg(armv6m)");
    if env::var("TARGET").unwrap().starts_with("thumbv6m-") {
        println!("cargo:rustc-cfg=armv6m");
    }
    let feature = |name: &str| env::var_os(format!("CARGO_FEATURE_{}", name.to_uppercase().replace('-', "_"))).is_some();
    let (memory, device) = if feature("mps2-an385") || feature("mps2-an386-fpu") {
        (include_str!("mps2-an385/memory.x"), include_str!("device.x"))
    } else if feature("microbit") || feature("microbit-m0plus") {
        (include_str!("microbit/memory.x"), include_str!("device.x"))
    } else {
        return; // another board's PAC provides both
    };
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    fs::write(out.join("memory.x"), memory).unwrap();
    if !feature("pac-vectors") {
        fs::write(out.join("device.x"), device).unwrap();
    }
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=mps2-an385/memory.x");
    println!("cargo:rerun-if-changed=device.x");
    println!("cargo:rerun-if-changed=microbit/memory.x");
}
