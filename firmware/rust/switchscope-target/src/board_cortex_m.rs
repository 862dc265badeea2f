//! The Cortex-M3 boards under QEMU, as firmware/boards/ for the C kernels:
//! a UART for the records (CMSDK UART0 on mps2-an385, PL011 UART0 on
//! lm3s6965evb), semihosting for the parameters and the exit code, SysTick for
//! the stamps, NVIC STIR for the software interrupt; on mps2-an385 also the
//! device interrupt vectors cortex-m-rt asks of a board.
//!
//! A Rust kernel that has no tick of its own leaves SysTick free-running at a
//! 10 ms period with no interrupt (as FreeRTOS's tick here: see
//! FreeRTOSConfig.h): the harness then waits for its wrap where a
//! C kernel waits for the next tick.

use core::ptr::{read_volatile, write_volatile};

pub const CPU: &str = "cortex-m3";
/// SysTick counts down.
pub const STAMP_COUNTS_DOWN: bool = true;

#[cfg(feature = "mps2-an385")]
mod this {
    pub const NAME: &str = "mps2-an385";
    pub const CPU_CLOCK_HZ: u32 = 25_000_000;
    pub const CPU_CLOCK_HZ_TEXT: &str = "25000000";
    pub const SOFT_IRQ: u16 = 30;
    pub const SCOPE_PIN: &str = "LED0";
    const UART0_DATA: *mut u32 = 0x4000_4000 as *mut u32;
    const UART0_STATE: *const u32 = 0x4000_4004 as *const u32;
    const UART0_CTRL: *mut u32 = 0x4000_4008 as *mut u32;
    const UART0_BAUDDIV: *mut u32 = 0x4000_4010 as *mut u32;

    pub fn uart_init() {
        unsafe {
            core::ptr::write_volatile(UART0_BAUDDIV, 16);
            core::ptr::write_volatile(UART0_CTRL, 1);
        }
    }

    pub fn uart_put(byte: u8) {
        unsafe {
            while core::ptr::read_volatile(UART0_STATE) & 1 != 0 {}
            core::ptr::write_volatile(UART0_DATA, byte as u32);
        }
    }
}

#[cfg(feature = "lm3s6965evb")]
mod this {
    pub const NAME: &str = "lm3s6965evb";
    pub const CPU_CLOCK_HZ: u32 = 12_500_000;
    pub const CPU_CLOCK_HZ_TEXT: &str = "12500000";
    pub const SOFT_IRQ: u16 = 0; // GPIOA, which nothing on the board drives
    pub const SCOPE_PIN: &str = "PF0";
    const UART0_DR: *mut u32 = 0x4000_C000 as *mut u32;
    const UART0_FR: *const u32 = 0x4000_C018 as *const u32;
    const FR_TXFF: u32 = 1 << 5;

    pub fn uart_init() {}

    pub fn uart_put(byte: u8) {
        unsafe {
            while core::ptr::read_volatile(UART0_FR) & FR_TXFF != 0 {}
            core::ptr::write_volatile(UART0_DR, byte as u32);
        }
    }
}

pub use this::{CPU_CLOCK_HZ, NAME, SCOPE_PIN, SOFT_IRQ};

// The scope pin, written in subroutines as embOS's LED_SetLED0()/LED_ClrLED0()
// and the C boards do; the simulator timestamps the stores at the labels
// board_scope_high_edge and board_scope_low_edge.
macro_rules! scope_subroutines {
    ($low16:literal, $high16:literal) => {
        core::arch::global_asm!(
            ".section .text.board_scope, \"ax\", %progbits",
            ".global board_scope_high, board_scope_low, board_scope_high_edge, board_scope_low_edge",
            ".thumb_func",
            "board_scope_high:",
            concat!("    movw r0, #", $low16),
            concat!("    movt r0, #", $high16),
            "    movs r1, #1",
            "board_scope_high_edge:",
            "    str r1, [r0]",
            "    bx lr",
            ".thumb_func",
            "board_scope_low:",
            concat!("    movw r0, #", $low16),
            concat!("    movt r0, #", $high16),
            "    movs r1, #0",
            "board_scope_low_edge:",
            "    str r1, [r0]",
            "    bx lr",
        );
    };
}

#[cfg(feature = "mps2-an385")]
scope_subroutines!("0x8000", "0x4002"); // FPGA IO LED register, 0x40028000

#[cfg(feature = "lm3s6965evb")]
scope_subroutines!("0x5004", "0x4002"); // GPIO port F, pin 0 through the data mask: 0x40025004

extern "C" {
    fn board_scope_high();
    fn board_scope_low();
}

#[inline(always)]
pub fn scope_high() {
    unsafe { board_scope_high() }
}

#[inline(always)]
pub fn scope_low() {
    unsafe { board_scope_low() }
}
/// The interrupt an interrupt-mode executor runs in (mps2-an385).
pub const EXECUTOR_IRQ: u16 = 31;
const SYST_CSR: *mut u32 = 0xE000_E010 as *mut u32;
const SYST_RVR: *mut u32 = 0xE000_E014 as *mut u32;
const SYST_CVR: *mut u32 = 0xE000_E018 as *mut u32;
const NVIC_IPR: *mut u8 = 0xE000_E400 as *mut u8;
const NVIC_STIR: *mut u32 = 0xE000_EF00 as *mut u32;
const SYSTICK_PERIOD: u32 = CPU_CLOCK_HZ / 100;
const CSR_ENABLE_CPU_CLOCK: u32 = 0b101;
const CSR_COUNTFLAG: u32 = 1 << 16;

pub fn init() {
    this::uart_init();
    unsafe {
        write_volatile(SYST_RVR, SYSTICK_PERIOD - 1);
        write_volatile(SYST_CVR, 0);
        write_volatile(SYST_CSR, CSR_ENABLE_CPU_CLOCK);
    }
}

pub fn write(bytes: &[u8]) {
    for &byte in bytes {
        this::uart_put(byte);
    }
}

fn semihosting(operation: u32, argument: usize) -> u32 {
    let mut r0 = operation;
    unsafe { core::arch::asm!("bkpt 0xab", inout("r0") r0, in("r1") argument, options(nostack)) };
    r0
}

/// The parameters the host passed ("samples=1000 ..."), or "" if none.
pub fn parameters() -> &'static str {
    static mut COMMAND_LINE: [u8; 128] = [0; 128];
    let buffer = unsafe { &mut *core::ptr::addr_of_mut!(COMMAND_LINE) };
    let mut block = [buffer.as_mut_ptr() as usize, buffer.len() - 1];
    if semihosting(0x15, block.as_mut_ptr() as usize) != 0 {
        return "";
    }
    core::str::from_utf8(&buffer[..block[1]]).unwrap_or("")
}

pub fn exit(code: u32) -> ! {
    let block = [0x20026usize, code as usize];
    loop {
        semihosting(0x20, block.as_ptr() as usize);
    }
}

/// The period init() gave SysTick: a constant, so that the harness, which
/// needs it for every sample, reads no register for it.
pub fn stamp_modulus() -> u32 {
    SYSTICK_PERIOD
}

/// SysTick's count, read at an offset from SysTick's base: the simulator logs
/// only loads from the count register's own address, the probe's stamps.
pub fn stamp_now() -> u32 {
    let count: u32;
    unsafe {
        core::arch::asm!("movw {c}, #0xE010", "movt {c}, #0xE000", "ldr {c}, [{c}, #8]",
                         c = out(reg) count, options(nostack, readonly, preserves_flags))
    };
    count
}

/// Spin until SysTick wraps: the start of a new period.
pub fn wait_next_tick() {
    unsafe {
        read_volatile(SYST_CSR); // clears COUNTFLAG
        while read_volatile(SYST_CSR) & CSR_COUNTFLAG == 0 {}
    }
}

/// Whether SysTick wrapped since the last call (reading clears the flag).
pub fn tick_wrapped() -> bool {
    unsafe { read_volatile(SYST_CSR) & CSR_COUNTFLAG != 0 }
}

pub fn set_irq_priority(irq: u16, priority: u8) {
    unsafe { write_volatile(NVIC_IPR.add(irq as usize), priority) }
}

pub fn soft_irq_pend() {
    unsafe { write_volatile(NVIC_STIR, SOFT_IRQ as u32) }
}

/// An interrupt number for the cortex-m crate's NVIC functions.
#[derive(Clone, Copy)]
pub struct Irq(pub u16);

unsafe impl cortex_m::interrupt::InterruptNumber for Irq {
    fn number(self) -> u16 {
        self.0
    }
}

pub fn describe() {
    crate::wire::meta("board", NAME);
    crate::wire::meta("cpu", CPU);
    crate::wire::meta("f_cpu_hz", this::CPU_CLOCK_HZ_TEXT);
    crate::wire::meta("scope_pin", SCOPE_PIN);
}

// The device interrupt vectors of mps2-an385 (cortex-m-rt's "device" feature
// wants them from a board): 32 lines, the two switchscope uses named in device.x.
#[cfg(feature = "mps2-an385")]
#[derive(Clone, Copy)]
#[repr(C)]
pub union Vector {
    handler: unsafe extern "C" fn(),
    reserved: usize,
}

#[cfg(feature = "mps2-an385")]
extern "C" {
    fn DefaultHandler();
    fn switchscope_soft_irq();
    fn switchscope_executor_irq();
}

#[cfg(feature = "mps2-an385")]
#[link_section = ".vector_table.interrupts"]
#[no_mangle]
pub static __INTERRUPTS: [Vector; 32] = {
    let mut table = [Vector { handler: DefaultHandler }; 32];
    table[SOFT_IRQ as usize] = Vector { handler: switchscope_soft_irq };
    table[EXECUTOR_IRQ as usize] = Vector { handler: switchscope_executor_irq };
    table
};
