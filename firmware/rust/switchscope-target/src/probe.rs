//! The timer probe, instruction for instruction the C one (BOARD_STAMP_TO in
//! firmware/boards/mps2-an385/board_config.h): two movw/movt pairs form the
//! addresses, one ldr reads SysTick, one str keeps the count. Calibration times
//! open() followed at once by close(), so the host subtracts exactly what the
//! probe adds.

use core::arch::asm;

#[no_mangle]
pub static mut SWITCHSCOPE_WINDOW_START: u32 = 0;
#[no_mangle]
pub static mut SWITCHSCOPE_WINDOW_END: u32 = 0;
static mut TICK_IN_WINDOW: bool = false;

/// Open the window: immediately before the call that causes the switch.
#[inline(always)]
pub fn open() {
    crate::board::tick_wrapped(); // clear the wrap flag, outside the window
    unsafe {
        asm!(
            "movw {at}, #:lower16:{start}",
            "movt {at}, #:upper16:{start}",
            "movw {count}, #0xE018",
            "movt {count}, #0xE000",
            "ldr {count}, [{count}]",
            "str {count}, [{at}]",
            start = sym SWITCHSCOPE_WINDOW_START,
            at = out(reg) _,
            count = out(reg) _,
            options(nostack, preserves_flags),
        );
    }
}

/// Close the window: first thing after the other task resumes.
#[inline(always)]
pub fn close() {
    unsafe {
        asm!(
            "movw {at}, #:lower16:{end}",
            "movt {at}, #:upper16:{end}",
            "movw {count}, #0xE018",
            "movt {count}, #0xE000",
            "ldr {count}, [{count}]",
            "str {count}, [{at}]",
            end = sym SWITCHSCOPE_WINDOW_END,
            at = out(reg) _,
            count = out(reg) _,
            options(nostack, preserves_flags),
        );
        *core::ptr::addr_of_mut!(TICK_IN_WINDOW) = crate::board::tick_wrapped();
    }
}

/// The stamps of the window just closed, and whether SysTick wrapped in it.
pub fn window() -> (u32, u32, bool) {
    unsafe {
        (
            core::ptr::read_volatile(core::ptr::addr_of!(SWITCHSCOPE_WINDOW_START)),
            core::ptr::read_volatile(core::ptr::addr_of!(SWITCHSCOPE_WINDOW_END)),
            core::ptr::read_volatile(core::ptr::addr_of!(TICK_IN_WINDOW)),
        )
    }
}
