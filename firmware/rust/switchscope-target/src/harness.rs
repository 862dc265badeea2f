//! The harness, as firmware/common/harness.c: parameters, the description of
//! the build, calibration, the sample stream and the end of the run.

use crate::{board, probe, wire};

const DEFAULT_SAMPLES: u32 = 1000;
const CALIBRATION_PAIRS: usize = 8;

static mut SAMPLES: u32 = DEFAULT_SAMPLES;

/// Pacing, as in firmware/common/harness.c; these kernels have no tick of
/// their own, so the wrap of the stamp timer stands for it: a window that sees
/// it is left out. By default the next window starts at once while the counts
/// left before the wrap are more than twice the longest iteration (window,
/// record, loop) seen so far; with the run parameter per_tick=1 every window
/// waits for the wrap. The first always does.
struct Pace {
    per_tick: bool,
    stamp: u32,   // the stamp timer at the last check
    longest: u32, // the longest iteration, in stamp counts
    waits: u32,   // windows that waited for the wrap
}

static mut PACE: Pace = Pace { per_tick: false, stamp: 0, longest: 0, waits: 0 };

/// Stamp counts from `earlier` to `later`, across one wrap of the timer.
pub fn counts_between(earlier: u32, later: u32) -> u32 {
    let modulus = board::stamp_modulus();
    let counts = if board::STAMP_COUNTS_DOWN { earlier.wrapping_sub(later) } else { later.wrapping_sub(earlier) };
    if counts >= modulus { counts.wrapping_add(modulus) } else { counts }
}

/// Returns once the next window and its record fit before the stamp timer wraps.
/// Never inlined, for the same reason as record().
#[inline(never)]
pub fn next_window(seq: u32) {
    let pace = unsafe { &mut *core::ptr::addr_of_mut!(PACE) };
    let now = board::stamp_now();
    if !pace.per_tick && seq > 0 {
        pace.longest = pace.longest.max(counts_between(pace.stamp, now));
        let room = if board::STAMP_COUNTS_DOWN { now } else { board::stamp_modulus() - now };
        if room / 2 > pace.longest {
            pace.stamp = now;
            return;
        }
    }
    board::wait_next_tick();
    pace.stamp = board::stamp_now();
    pace.waits += 1;
}

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

static mut COLD_CACHES: bool = false;

/// The run parameter cold=1: every window opens with the board's caches emptied (probe::open).
#[inline(always)]
pub fn cold_caches() -> bool {
    unsafe { *core::ptr::addr_of!(COLD_CACHES) }
}

/// Board, greeting and description; `kernel` lists the kernel's key=value facts.
pub fn start(scenario: &str, kernel: &[(&str, &str)]) {
    board::init();
    wire::send(&[&[wire::HELLO, wire::PROTOCOL_VERSION]]);
    let samples = parameter("samples", DEFAULT_SAMPLES).max(1);
    unsafe {
        *core::ptr::addr_of_mut!(SAMPLES) = samples;
        (*core::ptr::addr_of_mut!(PACE)).per_tick = parameter("per_tick", 0) != 0;
        *core::ptr::addr_of_mut!(COLD_CACHES) = parameter("cold", 0) != 0;
    }
    board::describe();
    for (key, value) in kernel {
        wire::meta(key, value);
    }
    wire::meta("scenario", scenario);
    wire::meta("method", probe::METHOD);
    wire::meta_number("samples", samples);
    if cold_caches() {
        wire::meta_number("cold_caches", 1);
    }
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

/// Send the window just closed as sample `seq`: a compact record when it
/// is ordinary, in full every 256th time and whenever anything is unusual.
/// Never inlined: inlined into a measuring loop it changes how the compiler
/// arranges the code around the window (Embassy's yield by one instruction).
#[inline(never)]
pub fn record(seq: u32, tag: u16) {
    static mut NEXT_SEQ: u32 = 0;
    static mut LAST_TAG: u16 = 0;
    let (start, end, tick, closed) = probe::window();
    let flags = if tick { wire::TICK_IN_WINDOW } else { 0 } | if closed { 0 } else { wire::NOT_CLOSED };
    let length = counts_between(start, end);
    let (next_seq, last_tag) = unsafe { (&mut *core::ptr::addr_of_mut!(NEXT_SEQ), &mut *core::ptr::addr_of_mut!(LAST_TAG)) };
    let ordinary = flags == 0 && tag == *last_tag && seq == *next_seq && seq & 0xFF != 0 && length <= 0xFFFF;
    *next_seq = seq.wrapping_add(1);
    *last_tag = tag;
    if ordinary {
        wire::send(&[&[wire::SAMPLE_COMPACT, seq as u8], &(length as u16).to_le_bytes()]);
    } else {
        wire::send(&[&[wire::SAMPLE], &seq.to_le_bytes(), &start.to_le_bytes(), &end.to_le_bytes(),
                     &tag.to_le_bytes(), &[flags]]);
    }
}

pub fn end(samples_sent: u32) -> ! {
    // how the windows were paced, for the host: how many waited for the wrap, of a period of how many counts
    wire::meta_number("tick_waits", unsafe { (*core::ptr::addr_of!(PACE)).waits });
    wire::meta_number("tick_period_counts", board::stamp_modulus());
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
