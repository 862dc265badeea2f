//! The ATmega328P under switchscope's simavr runner, as
//! firmware/boards/atmega328p for the C kernels: USART0 for the records,
//! Timer1 (16 bits, clk/1) for the stamps, PB0's pin-change interrupt as the
//! software interrupt, the parameters in a .noinit buffer the runner fills,
//! the exit code in GPIOR0 followed by sleep with interrupts off.
//!
//! A kernel without a tick waits for Timer1's overflow (every 65536 cycles,
//! 4.1 ms) where a C kernel waits for its tick.

use core::ptr::{read_volatile, write_volatile};

pub const NAME: &str = "atmega328p";
pub const CPU: &str = "atmega328p";
pub const CPU_CLOCK_HZ: u32 = 16_000_000;
const CPU_CLOCK_HZ_TEXT: &str = "16000000";
/// Timer1 counts up.
pub const STAMP_COUNTS_DOWN: bool = false;

// data-space addresses and bits of the registers used
const UCSR0A: *mut u8 = 0xC0 as *mut u8;
const UCSR0B: *mut u8 = 0xC1 as *mut u8;
const UCSR0C: *mut u8 = 0xC2 as *mut u8;
const UBRR0L: *mut u8 = 0xC4 as *mut u8;
const UDR0: *mut u8 = 0xC6 as *mut u8;
const TCCR1A: *mut u8 = 0x80 as *mut u8;
const TCCR1B: *mut u8 = 0x81 as *mut u8;
const TIFR1: *mut u8 = 0x36 as *mut u8;
const TCNT1L: *mut u8 = 0x84 as *mut u8;
const TCNT1H: *mut u8 = 0x85 as *mut u8;
const PINB: *mut u8 = 0x23 as *mut u8;
const DDRB: *mut u8 = 0x24 as *mut u8;
const DDRD: *mut u8 = 0x2A as *mut u8;
const PORTD: *mut u8 = 0x2B as *mut u8;
const PCIFR: *mut u8 = 0x3B as *mut u8;
const PCICR: *mut u8 = 0x68 as *mut u8;
const PCMSK0: *mut u8 = 0x6B as *mut u8;
const GPIOR0: *mut u8 = 0x3E as *mut u8;
const SMCR: *mut u8 = 0x53 as *mut u8;
const U2X0: u8 = 1 << 1;
const UDRE0: u8 = 1 << 5;
const TXEN0: u8 = 1 << 3;
const UCSZ_8BIT: u8 = 0b110;
const CS10: u8 = 1;
const TOV1: u8 = 1;
const PB0: u8 = 1;
const PB5: u8 = 1 << 5;
const PD2_PD3: u8 = 0b1100;
const SLEEP_POWER_DOWN: u8 = 0b101; // SM1 | SE

/// Filled by the runner, which finds this symbol in the ELF; not cleared at start-up.
#[no_mangle]
#[link_section = ".noinit"]
static mut board_host_parameters: [u8; 64] = [0; 64];

fn set(register: *mut u8, value: u8) {
    unsafe { write_volatile(register, value) }
}

fn get(register: *mut u8) -> u8 {
    unsafe { read_volatile(register) }
}

pub fn init() {
    set(UCSR0A, U2X0); // 2 Mbaud: UBRR 0, double speed
    set(UBRR0L, 0);
    set(UCSR0B, TXEN0);
    set(UCSR0C, UCSZ_8BIT);
    set(TCCR1A, 0);
    set(TCCR1B, CS10);
    // simavr 1.6 polls a low INT0/INT1 pin on every cycle and then cannot skip ahead: keep them high
    set(DDRD, get(DDRD) | PD2_PD3);
    set(PORTD, get(PORTD) | PD2_PD3);
    set(DDRB, get(DDRB) | PB0 | PB5);
    set(PCMSK0, PB0);
    set(PCIFR, PB0);
    set(PCICR, 1);
}

pub fn write(bytes: &[u8]) {
    for &byte in bytes {
        while get(UCSR0A) & UDRE0 == 0 {}
        set(UDR0, byte);
    }
}

/// The parameters the host passed ("samples=1000 ..."), or "" if none.
pub fn parameters() -> &'static str {
    let buffer = unsafe { &mut *core::ptr::addr_of_mut!(board_host_parameters) };
    if !buffer.starts_with(b"ss:") {
        return "";
    }
    let end = buffer.iter().position(|&b| b == 0).unwrap_or(buffer.len() - 1);
    core::str::from_utf8(&buffer[3..end]).unwrap_or("")
}

pub fn exit(code: u32) -> ! {
    set(GPIOR0, code as u8);
    unsafe { core::arch::asm!("cli") };
    set(SMCR, SLEEP_POWER_DOWN);
    loop {
        unsafe { core::arch::asm!("sleep") };
    }
}

pub fn stamp_modulus() -> u32 {
    65536
}

/// Timer1's count: the low byte first, which latches the high one.
pub fn stamp_now() -> u32 {
    let low = get(TCNT1L) as u32;
    (get(TCNT1H) as u32) << 8 | low
}

/// Spin until Timer1 overflows.
pub fn wait_next_tick() {
    set(TIFR1, TOV1); // writing 1 clears the flag
    while get(TIFR1) & TOV1 == 0 {}
}

/// Whether Timer1 overflowed since the last call (which clears the flag).
pub fn tick_wrapped() -> bool {
    let wrapped = get(TIFR1) & TOV1 != 0;
    set(TIFR1, TOV1);
    wrapped
}

/// Writing 1 to a PIN bit toggles the output: one store pends PCINT0.
pub fn soft_irq_pend() {
    set(PINB, PB0);
}

/// The scope pin: PB5, the Arduino's "L" LED; one instruction (2 cycles) each way.
#[inline(always)]
pub fn scope_high() {
    unsafe { core::arch::asm!("sbi 0x05, 5", options(nostack, preserves_flags)) }
}

#[inline(always)]
pub fn scope_low() {
    unsafe { core::arch::asm!("cbi 0x05, 5", options(nostack, preserves_flags)) }
}

pub fn describe() {
    crate::wire::meta("board", NAME);
    crate::wire::meta("cpu", CPU);
    crate::wire::meta("f_cpu_hz", CPU_CLOCK_HZ_TEXT);
    crate::wire::meta("scope_pin", "B5");
}
