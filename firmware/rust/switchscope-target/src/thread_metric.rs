//! What the Thread-Metric tests share on the Rust kernels, as
//! firmware/scenarios/thread_metric.h does for the C ones (see
//! docs/thread-metric.md): a round is one pass of the test's loops from the
//! measuring task's place in its loop back to it; a window runs a round
//! untimed, which brings every task to its place, then times the next.
//!
//! Before its windows the measuring task runs rounds back to back for an
//! interval of INTERVAL_TICKS ticks and says how many loops it counted and how many stamp-timer counts the
//! interval lasted, read after each round. These kernels have no tick of
//! their own: the stamp timer's wrap stands for it, as it does for pacing.
//! That bookkeeping after each round, which Thread-Metric has not, is then
//! timed alone and said too, as the C tests do.
//!
//! A round is an expression, awaited where the kernel's tasks are async, so
//! the interval and the window are macros: thread_metric_interval!(round, 5)
//! before harness::begin(), and thread_metric_window!(round) as the window.

use core::cell::UnsafeCell;

use crate::{board, harness, wire};

pub const INTERVAL_TICKS: u32 = 2;
/// The bookkeeping timed alone after the interval: its cost per round.
pub const TALLIES: u32 = 64;

/// A loop counter, read and written as memory every time (Thread-Metric's
/// counters are volatile): one writer each, a task or a handler.
pub struct Loops(UnsafeCell<u32>);

// Safety: each counter has a single writer, and a word's store is not torn on
// the 32-bit cores; on the AVR a reader may see half an update, and none reads
// a counter another context writes.
unsafe impl Sync for Loops {}

impl Loops {
    pub const fn new() -> Self {
        Loops(UnsafeCell::new(0))
    }

    #[inline(always)]
    pub fn get(&self) -> u32 {
        unsafe { core::ptr::read_volatile(self.0.get()) }
    }

    #[inline(always)]
    pub fn set(&self, value: u32) {
        unsafe { core::ptr::write_volatile(self.0.get(), value) }
    }

    #[inline(always)]
    pub fn count(&self) {
        self.set(self.get().wrapping_add(1))
    }
}

/// The interval's count. Built and advanced by thread_metric_interval!.
pub struct Interval {
    loops_per_round: u32,
    ticks: u32,  // how long the interval lasts (0: no interval)
    passed: u32, // ticks passed since it started
    loops: u32,
    counts: u32,
    before: u32, // the stamp timer after the last round
}

impl Interval {
    /// Says how many loops a round counts and starts the interval at a tick.
    pub fn start(loops_per_round: u32) -> Self {
        wire::meta_number("tm_loops_per_round", loops_per_round);
        board::wait_next_tick();
        board::tick_wrapped(); // the AVR's wait leaves the overflow flag set: that tick is the start
        Interval { loops_per_round, ticks: INTERVAL_TICKS, passed: 0, loops: 0, counts: 0, before: board::stamp_now() }
    }

    /// After each round: its loops, its stamp counts, and whether a tick passed in it; whether to run
    /// another (the ticks have not all passed). Never inlined, so that its cost is the same in the interval
    /// and timed alone.
    #[inline(never)]
    pub fn counted(&mut self) -> bool {
        self.loops += self.loops_per_round;
        let now = board::stamp_now();
        self.counts += harness::counts_between(self.before, now);
        self.before = now;
        if board::tick_wrapped() {
            self.passed += 1;
        }
        self.passed < self.ticks
    }

    /// Describes the interval, and the bookkeeping timed alone.
    pub fn end(&self) {
        let before = board::stamp_now();
        let mut alone = Interval { loops_per_round: 0, ticks: u32::MAX, passed: 0, loops: 0, counts: 0, before };
        for _ in 0..TALLIES {
            alone.counted();
        }
        wire::meta_number("tm_interval_ticks", self.ticks);
        wire::meta_number("tm_interval_loops", self.loops);
        wire::meta_number("tm_interval_stamp_counts", self.counts);
        wire::meta_number("tm_tallies", TALLIES);
        wire::meta_number("tm_tallies_stamp_counts", alone.counts);
    }
}

/// The interval before the windows: rounds back to back until the ticks have
/// passed. `$round` is the test's round, with `.await` where it is async.
#[macro_export]
macro_rules! thread_metric_interval {
    ($round:expr, $loops_per_round:expr) => {{
        let mut interval = $crate::thread_metric::Interval::start($loops_per_round);
        loop {
            $round;
            if !interval.counted() {
                break;
            }
        }
        interval.end();
    }};
}

/// A window: a round untimed, then a round between the probe's open and
/// close. Its value is the sample's tag (0).
#[macro_export]
macro_rules! thread_metric_window {
    ($round:expr) => {{
        $round;
        $crate::probe::open();
        $round;
        $crate::probe::close();
        0u16
    }};
}

/// tm-basic's round, which uses no kernel service: work through 1024 32-bit
/// words, Thread-Metric's size, reading, changing and writing back each one,
/// and count a loop (the work is firmware/scenarios/tm-basic.c's).
pub fn basic_round() {
    const WORDS: usize = 1024;
    struct Words(UnsafeCell<[u32; WORDS]>);
    // Safety: only the measuring task touches the words
    unsafe impl Sync for Words {}
    static WORDS_: Words = Words(UnsafeCell::new([0; WORDS]));
    static LOOPS: Loops = Loops::new();
    let words = unsafe { &mut *WORDS_.0.get() };
    let salt = LOOPS.get();
    for (i, word) in words.iter_mut().enumerate() {
        *word = (*word ^ salt).wrapping_add(i as u32);
    }
    LOOPS.set(salt.wrapping_add(1));
}

/// tm-message's message: 16 bytes, the first word the loop's count.
pub type Message = [u32; 4];

/// The message the loop `loops` sends.
pub fn message_of(loops: u32) -> Message {
    [loops, 0, 0, 0]
}

/// Stops the run if the message received is not the one sent.
pub fn message_check(sent: &Message, received: &Message) {
    if received[0] != sent[0] {
        harness::fail("tm-message: the message received is not the one sent");
    }
}
