//! The Cortex-M boards under QEMU, as firmware/boards/ for the C kernels:
//! a UART for the records (CMSDK UART0 on the MPS2 boards, PL011 UART0 on
//! lm3s6965evb, the nRF51 UART on microbit), semihosting for the parameters
//! and the exit code, SysTick for the stamps, the NVIC for the software
//! interrupt; on the boards without a PAC (MPS2, microbit) also the device
//! interrupt vectors cortex-m-rt asks of a board.
//!
//! Boards that share code: mps2-an386-fpu runs mps2-an385's (the same
//! memory map and peripherals, a Cortex-M4F built for hard float, whose FPU
//! cortex-m-rt enables at reset on an eabihf target); microbit-m0plus runs
//! microbit's image timed as a Cortex-M0+. Each reports its own name and CPU.
//!
//! ARMv6-M (the microbit boards; cfg armv6m, set by build.rs from the target)
//! has no MOVW/MOVT, no STIR, and reaches the NVIC's priority registers a word
//! at a time: addresses come from literal loads, as in the C board code.
//!
//! A Rust kernel that has no tick of its own leaves SysTick free-running at a
//! 10 ms period with no interrupt (as FreeRTOS's tick here: see
//! FreeRTOSConfig.h): the harness then waits for its wrap where a
//! C kernel waits for the next tick.

use core::ptr::{read_volatile, write_volatile};

/// SysTick counts down.
pub const STAMP_COUNTS_DOWN: bool = true;

#[cfg(any(feature = "mps2-an385", feature = "mps2-an386-fpu"))]
mod this {
    #[cfg(feature = "mps2-an385")]
    pub const NAME: &str = "mps2-an385";
    #[cfg(feature = "mps2-an385")]
    pub const CPU: &str = "cortex-m3";
    #[cfg(feature = "mps2-an386-fpu")]
    pub const NAME: &str = "mps2-an386-fpu";
    #[cfg(feature = "mps2-an386-fpu")]
    pub const CPU: &str = "cortex-m4f";
    pub const CPU_CLOCK_HZ: u32 = 25_000_000;
    pub const CPU_CLOCK_HZ_TEXT: &str = "25000000";
    pub const SOFT_IRQ: u16 = 30;
    /// The interrupt an interrupt-mode executor runs in.
    pub const EXECUTOR_IRQ: u16 = 31;
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
    pub const CPU: &str = "cortex-m3";
    pub const CPU_CLOCK_HZ: u32 = 12_500_000;
    pub const CPU_CLOCK_HZ_TEXT: &str = "12500000";
    pub const SOFT_IRQ: u16 = 0; // GPIOA, which nothing on the board drives
    pub const EXECUTOR_IRQ: u16 = 31; // no kernel that runs here has an interrupt-mode executor
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

/// The nRF51822 of the BBC micro:bit (firmware/boards/microbit/board.c).
#[cfg(any(feature = "microbit", feature = "microbit-m0plus"))]
mod this {
    #[cfg(feature = "microbit")]
    pub const NAME: &str = "microbit";
    #[cfg(feature = "microbit")]
    pub const CPU: &str = "cortex-m0";
    #[cfg(feature = "microbit-m0plus")]
    pub const NAME: &str = "microbit-m0plus";
    #[cfg(feature = "microbit-m0plus")]
    pub const CPU: &str = "cortex-m0plus";
    pub const CPU_CLOCK_HZ: u32 = 16_000_000;
    pub const CPU_CLOCK_HZ_TEXT: &str = "16000000";
    /// Lines no peripheral of the nRF51 drives (QEMU's machine has 32; the
    /// nRF51 numbers its 26 by peripheral ID): 31 as in the C board code.
    pub const SOFT_IRQ: u16 = 31;
    pub const EXECUTOR_IRQ: u16 = 30;
    pub const SCOPE_PIN: &str = "P0.13";
    // nRF51 UART (nRF51 Series Reference Manual, "UART"): a task starts the
    // transmitter, an event says a byte has gone, ENABLE = 4 turns it on
    const UART_TASKS_STARTTX: *mut u32 = 0x4000_2008 as *mut u32;
    const UART_EVENTS_TXDRDY: *mut u32 = 0x4000_211C as *mut u32;
    const UART_ENABLE: *mut u32 = 0x4000_2500 as *mut u32;
    const UART_PSELTXD: *mut u32 = 0x4000_250C as *mut u32;
    const UART_TXD: *mut u32 = 0x4000_251C as *mut u32;
    const UART_ENABLE_ON: u32 = 4;
    const UART_TX_PIN: u32 = 24; // P0.24: the micro:bit's interface chip reads it
    const GPIO_DIRSET: *mut u32 = 0x5000_0518 as *mut u32;
    const SCOPE_PIN_MASK: u32 = 1 << 13; // P0.13

    pub fn uart_init() {
        unsafe {
            core::ptr::write_volatile(UART_PSELTXD, UART_TX_PIN);
            core::ptr::write_volatile(UART_ENABLE, UART_ENABLE_ON);
            core::ptr::write_volatile(UART_TASKS_STARTTX, 1);
            core::ptr::write_volatile(GPIO_DIRSET, SCOPE_PIN_MASK);
        }
    }

    pub fn uart_put(byte: u8) {
        unsafe {
            core::ptr::write_volatile(UART_EVENTS_TXDRDY, 0);
            core::ptr::write_volatile(UART_TXD, byte as u32);
            while core::ptr::read_volatile(UART_EVENTS_TXDRDY) == 0 {} // the byte has left
        }
    }
}

pub use this::{CPU, CPU_CLOCK_HZ, EXECUTOR_IRQ, NAME, SCOPE_PIN, SOFT_IRQ};

// The scope pin, written in subroutines as embOS's LED_SetLED0()/LED_ClrLED0()
// and the C boards do; the simulator timestamps the stores at the labels
// board_scope_high_edge and board_scope_low_edge.
#[cfg(not(armv6m))]
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

#[cfg(any(feature = "mps2-an385", feature = "mps2-an386-fpu"))]
scope_subroutines!("0x8000", "0x4002"); // FPGA IO LED register, 0x40028000

#[cfg(feature = "lm3s6965evb")]
scope_subroutines!("0x5004", "0x4002"); // GPIO port F, pin 0 through the data mask: 0x40025004

// GPIO OUTSET / OUTCLR (0x50000508 / 0x5000050C): a store of the pin's bit
// sets or clears it alone; the addresses are literals (no MOVW/MOVT).
#[cfg(any(feature = "microbit", feature = "microbit-m0plus"))]
core::arch::global_asm!(
    ".section .text.board_scope, \"ax\", %progbits",
    ".global board_scope_high, board_scope_low, board_scope_high_edge, board_scope_low_edge",
    ".thumb_func",
    "board_scope_high:",
    "    ldr r0, =0x50000508",
    "    ldr r1, =0x2000",
    "board_scope_high_edge:",
    "    str r1, [r0]",
    "    bx lr",
    ".thumb_func",
    "board_scope_low:",
    "    ldr r0, =0x5000050C",
    "    ldr r1, =0x2000",
    "board_scope_low_edge:",
    "    str r1, [r0]",
    "    bx lr",
    ".ltorg",
);

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
const SYST_CSR: *mut u32 = 0xE000_E010 as *mut u32;
const SYST_RVR: *mut u32 = 0xE000_E014 as *mut u32;
const SYST_CVR: *mut u32 = 0xE000_E018 as *mut u32;
const NVIC_IPR: *mut u8 = 0xE000_E400 as *mut u8;
#[cfg(not(armv6m))]
const NVIC_STIR: *mut u32 = 0xE000_EF00 as *mut u32;
#[cfg(armv6m)]
const NVIC_ISPR0: *mut u32 = 0xE000_E200 as *mut u32;
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
#[cfg(not(armv6m))]
pub fn stamp_now() -> u32 {
    let count: u32;
    unsafe {
        core::arch::asm!("movw {c}, #0xE010", "movt {c}, #0xE000", "ldr {c}, [{c}, #8]",
                         c = out(reg) count, options(nostack, readonly, preserves_flags))
    };
    count
}

/// ARMv6-M: SysTick's base from a literal of this function's own, past which it branches.
#[cfg(armv6m)]
#[inline(never)]
pub fn stamp_now() -> u32 {
    let count: u32;
    unsafe {
        core::arch::asm!("ldr {c}, =0xE000E010", "ldr {c}, [{c}, #8]", "b 1f", ".ltorg", "1:",
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

#[cfg(not(armv6m))]
pub fn set_irq_priority(irq: u16, priority: u8) {
    unsafe { write_volatile(NVIC_IPR.add(irq as usize), priority) }
}

/// ARMv6-M: four interrupts' priority bytes in each word, reached a word at a time.
#[cfg(armv6m)]
pub fn set_irq_priority(irq: u16, priority: u8) {
    let word = unsafe { NVIC_IPR.add(irq as usize & !3) } as *mut u32;
    let shift = 8 * (irq as u32 % 4);
    unsafe { write_volatile(word, read_volatile(word) & !(0xFF << shift) | (priority as u32) << shift) }
}

#[cfg(not(armv6m))]
pub fn soft_irq_pend() {
    unsafe { write_volatile(NVIC_STIR, SOFT_IRQ as u32) }
}

/// ARMv6-M has no STIR: the interrupt is pended through ISPR.
#[cfg(armv6m)]
pub fn soft_irq_pend() {
    unsafe { write_volatile(NVIC_ISPR0, 1 << SOFT_IRQ) }
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

// The device interrupt vectors of the boards without a PAC (cortex-m-rt's
// "device" feature wants them from a board): 32 lines on both, the two
// switchscope uses named in device.x.
#[cfg(all(not(feature = "pac-vectors"), any(feature = "mps2-an385", feature = "mps2-an386-fpu", feature = "microbit", feature = "microbit-m0plus")))]
#[derive(Clone, Copy)]
#[repr(C)]
pub union Vector {
    handler: unsafe extern "C" fn(),
    reserved: usize,
}

#[cfg(all(not(feature = "pac-vectors"), any(feature = "mps2-an385", feature = "mps2-an386-fpu", feature = "microbit", feature = "microbit-m0plus")))]
extern "C" {
    fn DefaultHandler();
    fn switchscope_soft_irq();
    fn switchscope_executor_irq();
}

#[cfg(all(not(feature = "pac-vectors"), any(feature = "mps2-an385", feature = "mps2-an386-fpu", feature = "microbit", feature = "microbit-m0plus")))]
#[link_section = ".vector_table.interrupts"]
#[no_mangle]
pub static __INTERRUPTS: [Vector; 32] = {
    let mut table = [Vector { handler: DefaultHandler }; 32];
    table[SOFT_IRQ as usize] = Vector { handler: switchscope_soft_irq };
    table[EXECUTOR_IRQ as usize] = Vector { handler: switchscope_executor_irq };
    table
};
