//! The harness, as firmware/common/harness.c: parameters, the description of
//! the build, calibration, the sample stream and the end of the run.

use crate::{board, probe, wire};

const DEFAULT_SAMPLES: u32 = 1000;
const CALIBRATION_PAIRS: usize = 8;

static mut SAMPLES: u32 = DEFAULT_SAMPLES;

/// A numeric parameter "name=value" the host passed, or `fallback`.
pub fn parameter(name: &str, fallback: u32) -> u32 {
    for word in board::parameters().split(' ') {
        if let Some(value) = word.strip_prefix(name).and_then(|rest| rest.strip_prefix('=')) {
            return value.parse().unwrap_or(fallback);
        }
    }
    fallback
}

pub fn samples() -> u32 {
    unsafe { *core::ptr::addr_of!(SAMPLES) }
}

/// Board, greeting and description; `kernel` lists the kernel's key=value facts.
pub fn start(scenario: &str, kernel: &[(&str, &str)]) {
    board::init();
    wire::send(&[&[wire::HELLO, wire::PROTOCOL_VERSION]]);
    let samples = parameter("samples", DEFAULT_SAMPLES).max(1);
    unsafe { *core::ptr::addr_of_mut!(SAMPLES) = samples };
    board::describe();
    for (key, value) in kernel {
        wire::meta(key, value);
    }
    wire::meta("scenario", scenario);
    wire::meta("method", probe::METHOD);
    wire::meta_number("samples", samples);
}

/// Describe the stamp timer and calibrate the probe: before the first window.
pub fn begin() {
    wire::meta_number("stamp_modulus", board::stamp_modulus());
    wire::meta("stamp_direction", if board::STAMP_COUNTS_DOWN { "down" } else { "up" });
    wire::meta_number("stamp_clock_hz", board::CPU_CLOCK_HZ);
    if cfg!(any(feature = "marker", feature = "scope")) {
        // markers cost nothing; the scope's bare pulse before each window is its calibration
        return;
    }
    for _ in 0..CALIBRATION_PAIRS {
        board::wait_next_tick();
        probe::open();
        probe::close();
        let (start, end, _, _) = probe::window();
        wire::send(&[&[wire::CALIB], &start.to_le_bytes(), &end.to_le_bytes()]);
    }
}

/// Send the window just closed as sample `seq`.
pub fn record(seq: u32, tag: u16) {
    let (start, end, tick, closed) = probe::window();
    let flags = if tick { wire::TICK_IN_WINDOW } else { 0 } | if closed { 0 } else { wire::NOT_CLOSED };
    wire::send(&[&[wire::SAMPLE], &seq.to_le_bytes(), &start.to_le_bytes(), &end.to_le_bytes(),
                 &tag.to_le_bytes(), &[flags]]);
}

pub fn end(samples_sent: u32) -> ! {
    wire::send(&[&[wire::END], &samples_sent.to_le_bytes()]);
    board::exit(0)
}

pub fn fail(reason: &str) -> ! {
    wire::send(&[&[wire::FAULT], reason.as_bytes()]);
    board::exit(3)
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    let reason = info.message().as_str().unwrap_or("panic");
    fail(reason)
}

#[cfg(target_arch = "arm")]
#[cortex_m_rt::exception]
unsafe fn HardFault(_frame: &cortex_m_rt::ExceptionFrame) -> ! {
    fail("HardFault")
}
