//! The timer probe, instruction for instruction the C one (BOARD_STAMP_TO in
//! firmware/boards/*/board_config.h). ARMv7-M: two movw/movt pairs form the
//! addresses, one ldr reads SysTick, one str keeps the count; ARMv6-M: two
//! literal loads, the ldr, the str and a branch over the literals. AVR: lds TCNT1L
//! (which latches the high byte), sts, lds TCNT1H, sts. Calibration times
//! open() followed at once by close(), so the host subtracts exactly what the
//! probe adds.

use core::arch::asm;

/// Which method the probe serves, for the host.
pub const METHOD: &str = if cfg!(feature = "marker") {
    "marker"
} else if cfg!(feature = "scope") {
    "scope"
} else {
    "probe"
};

/// The scope method: a bare pulse (A, B), then the pin high (C) right before
/// the switching call; low (D) when the other task resumes. The host takes
/// tCS = tCD - tAB from the simulator's record of the pin.
#[cfg(feature = "scope")]
#[inline(always)]
pub fn open() {
    if crate::harness::cold_caches() {
        crate::board::empty_caches();
    }
    crate::board::tick_wrapped();
    unsafe { *core::ptr::addr_of_mut!(CLOSED) = false };
    crate::board::scope_high(); // A
    crate::board::scope_low(); // B
    crate::board::scope_high(); // C
}

#[cfg(feature = "scope")]
#[inline(always)]
pub fn close() {
    crate::board::scope_low(); // D
    unsafe {
        *core::ptr::addr_of_mut!(TICK_IN_WINDOW) = crate::board::tick_wrapped();
        *core::ptr::addr_of_mut!(CLOSED) = true;
    }
}

#[no_mangle]
pub static mut SWITCHSCOPE_WINDOW_START: u32 = 0;
#[no_mangle]
pub static mut SWITCHSCOPE_WINDOW_END: u32 = 0;
static mut TICK_IN_WINDOW: bool = false;
// set by the closing, cleared by the opening: a sample recorded before its
// window closed carries a stale stamp
static mut CLOSED: bool = false;

/// Store the stamp timer's count into `$to` with the board's fixed sequence.
#[cfg(all(target_arch = "arm", not(armv6m), not(any(feature = "marker", feature = "scope"))))]
macro_rules! stamp_to {
    ($to:ident) => {
        asm!(
            "movw {at}, #:lower16:{to}",
            "movt {at}, #:upper16:{to}",
            "movw {count}, #0xE018",
            "movt {count}, #0xE000",
            "ldr {count}, [{count}]",
            "str {count}, [{at}]",
            to = sym $to,
            at = out(reg) _,
            count = out(reg) _,
            options(nostack, preserves_flags),
        )
    };
}

/// ARMv6-M (no MOVW/MOVT; literal loads reach only 1 KB forward): both
/// addresses are literals placed right after the sequence, which branches
/// over them, as BOARD_STAMP_TO in firmware/boards/microbit/board_config.h.
/// The simulator recognises the timer's load by the literal load of
/// SysTick's address before it.
#[cfg(all(target_arch = "arm", armv6m, not(any(feature = "marker", feature = "scope"))))]
macro_rules! stamp_to {
    ($to:ident) => {
        asm!(
            "ldr {at}, ={to}",
            "ldr {count}, =0xE000E018",
            "ldr {count}, [{count}]",
            "str {count}, [{at}]",
            "b 1f",
            ".ltorg",
            "1:",
            to = sym $to,
            at = out(reg) _,
            count = out(reg) _,
            options(nostack, preserves_flags),
        )
    };
}

#[cfg(all(target_arch = "avr", not(any(feature = "marker", feature = "scope"))))]
macro_rules! stamp_to {
    ($to:ident) => {
        asm!(
            "lds {count}, 0x84",
            "sts {to}, {count}",
            "lds {count}, 0x85",
            "sts {to}+1, {count}",
            to = sym $to,
            count = out(reg) _,
            options(nostack, preserves_flags),
        )
    };
}

/// Note the address of the next instruction in a section the host reads from
/// the ELF (not loaded: it costs no instruction and no memory on the target;
/// a .debug name, because the AVR linker discards other unreferenced
/// sections). Every inlined copy of a marker adds its own address. The marker
/// claims to clobber what a call would, so that the compiler cannot prepare
/// work of either side in those registers across it (a bare label let it
/// move a `movs r2, #1` of the closing bookkeeping into the window).
#[cfg(feature = "marker")]
macro_rules! mark {
    ($section:literal) => {
        asm!(
            "1:",
            concat!(".pushsection ", $section, ",\"\""),
            ".long 1b",
            ".popsection",
            clobber_abi("C"),
            options(nostack, preserves_flags),
        )
    };
}

/// Open the window: immediately before the call that causes the switch.
#[cfg(feature = "marker")]
#[inline(always)]
pub fn open() {
    if crate::harness::cold_caches() {
        crate::board::empty_caches();
    }
    crate::board::tick_wrapped();
    unsafe {
        *core::ptr::addr_of_mut!(CLOSED) = false;
        mark!(".debug_switchscope_open");
    }
}

/// Close the window: first thing after the other task resumes.
#[cfg(feature = "marker")]
#[inline(always)]
pub fn close() {
    unsafe {
        mark!(".debug_switchscope_close");
        *core::ptr::addr_of_mut!(TICK_IN_WINDOW) = crate::board::tick_wrapped();
        *core::ptr::addr_of_mut!(CLOSED) = true;
    }
}

/// Open the window: immediately before the call that causes the switch.
#[cfg(not(any(feature = "marker", feature = "scope")))]
#[inline(always)]
pub fn open() {
    if crate::harness::cold_caches() {
        crate::board::empty_caches();
    }
    crate::board::tick_wrapped(); // clear the wrap flag, outside the window
    unsafe {
        *core::ptr::addr_of_mut!(CLOSED) = false;
        stamp_to!(SWITCHSCOPE_WINDOW_START);
    }
}

/// Close the window: first thing after the other task resumes.
#[cfg(not(any(feature = "marker", feature = "scope")))]
#[inline(always)]
pub fn close() {
    unsafe {
        stamp_to!(SWITCHSCOPE_WINDOW_END);
        *core::ptr::addr_of_mut!(TICK_IN_WINDOW) = crate::board::tick_wrapped();
        *core::ptr::addr_of_mut!(CLOSED) = true;
    }
}

/// The stamps of the window just closed, whether the stamp timer wrapped in
/// it, and whether it was closed at all.
pub fn window() -> (u32, u32, bool, bool) {
    unsafe {
        (
            core::ptr::read_volatile(core::ptr::addr_of!(SWITCHSCOPE_WINDOW_START)),
            core::ptr::read_volatile(core::ptr::addr_of!(SWITCHSCOPE_WINDOW_END)),
            core::ptr::read_volatile(core::ptr::addr_of!(TICK_IN_WINDOW)),
            core::ptr::read_volatile(core::ptr::addr_of!(CLOSED)),
        )
    }
}
