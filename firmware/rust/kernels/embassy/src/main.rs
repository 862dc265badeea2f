//! switchscope's scenarios on Embassy. Embassy's tasks are futures polled by
//! executors; a higher priority is a second executor running in an interrupt
//! (InterruptExecutor), which preempts the thread-mode one. So:
//!
//! - signal: a task in thread mode signals an embassy-sync `Signal` that a task
//!   of the interrupt executor awaits: the wake pends the executor's
//!   interrupt, which preempts at once.
//! - yield: two tasks of the thread executor; `yield_now()` hands over.
//! - isr: a software-pended interrupt's handler signals the interrupt
//!   executor's task.
//! - sem-shuffle: the measuring task holds an embassy-sync `Mutex` the
//!   interrupt executor's task asks for and waits on; the window is the
//!   release (the guard dropped) to the waiting task holding it.
//! - msg: the measuring task sends a message (`message::SIZE` bytes) on an
//!   embassy-sync `Channel` of one slot the interrupt executor's task awaits.
//! - tm-basic, tm-message, tm-synchronization, tm-interrupt: Thread-Metric's
//!   tests (firmware/scenarios/tm-*.c) whose one task fits Embassy: the
//!   measuring task alone in the thread executor, with an embassy-sync
//!   `Channel` of one slot, a `Signal` as the semaphore, and the software
//!   interrupt's handler giving it. tm-cooperative does not fit: the run
//!   queue polls each batch in the reverse order of the last, so tasks that
//!   yield do not take turns; tm-preemptive and tm-interrupt-preemption need
//!   suspend and resume, tm-memory a block pool (the host says n/a).
//! - resume and rotate have no Embassy idiom: a task cannot be suspended and
//!   resumed by another, nor have its priority changed; deadlock-break has no
//!   inheritance to measure (the host says n/a).
//!
//! The task that closes a window then signals DONE, and the measuring task
//! waits for DONE right after its switching call: Embassy's run queue runs the
//! tasks of a batch in the reverse order of their wakes, so a task that yields
//! is polled again before the task it woke. Where the switch is preemptive
//! (the interrupt executor) DONE is already set when the wait starts, after the
//! window; where it is cooperative (`yield`, and everything on the AVR, which
//! has no interrupt executor) the wait is how the measuring task gives way, and
//! it is inside the window.
#![no_std]
#![no_main]
#![cfg_attr(target_arch = "avr", feature(abi_avr_interrupt))]

#[cfg(target_arch = "arm")]
use cortex_m::peripheral::NVIC;
#[cfg(target_arch = "arm")]
use embassy_executor::InterruptExecutor;
use embassy_executor::{Executor, Spawner};
#[cfg(not(feature = "thread-metric"))]
use embassy_sync::{blocking_mutex::raw::CriticalSectionRawMutex, signal::Signal};
#[cfg(any(target_arch = "arm", feature = "isr"))]
use switchscope_target::board;
#[cfg(feature = "msg")]
use switchscope_target::message;
use switchscope_target::harness;
#[cfg(not(feature = "thread-metric"))]
use switchscope_target::probe;

const SCENARIO: &str = switchscope_target::scenario_name!(
    "signal", "yield", "isr", "ruler", "sem-shuffle", "msg",
    "tm-basic", "tm-message", "tm-synchronization", "tm-interrupt"
);

#[cfg(target_arch = "arm")]
const EXECUTORS: &str = "thread mode + interrupt executor (IRQ 31) for the urgent task";
#[cfg(target_arch = "avr")]
const EXECUTORS: &str = "thread mode only (no interrupt executor on AVR): cooperative";

const KERNEL: &[(&str, &str)] = &[
    ("kernel", "embassy"),
    ("kernel_version", "embassy-executor 0.10.0"),
    ("config.executors", EXECUTORS),
    ("config.signal", "embassy-sync Signal"),
    ("config.lock", "embassy-sync Mutex (no priority inheritance)"),
    ("config.queue", "embassy-sync Channel, one slot"),
];

/// Thread-Metric's tests: what the measuring task's round is, and how many loops it counts.
#[cfg(feature = "thread-metric")]
mod thread_metric {
    #[cfg(any(feature = "tm-synchronization", feature = "tm-interrupt"))]
    use embassy_sync::{blocking_mutex::raw::CriticalSectionRawMutex, signal::Signal};
    #[cfg(feature = "tm-interrupt")]
    use switchscope_target::board;
    #[cfg(not(feature = "tm-basic"))]
    use switchscope_target::thread_metric::Loops;

    #[cfg(any(feature = "tm-basic", feature = "tm-message", feature = "tm-synchronization"))]
    pub const LOOPS_PER_ROUND: u32 = 1;
    #[cfg(feature = "tm-interrupt")]
    pub const LOOPS_PER_ROUND: u32 = 2;

    #[cfg(not(feature = "tm-basic"))]
    static LOOPS: Loops = Loops::new();

    /// tm-basic: the words' work, no kernel service.
    #[cfg(feature = "tm-basic")]
    pub async fn round() {
        switchscope_target::thread_metric::basic_round();
    }

    #[cfg(feature = "tm-message")]
    static QUEUE: embassy_sync::channel::Channel<
        embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex,
        switchscope_target::thread_metric::Message,
        1,
    > = embassy_sync::channel::Channel::new();

    /// tm-message: send 16 bytes to the queue and receive them back; neither waits.
    #[cfg(feature = "tm-message")]
    pub async fn round() {
        use switchscope_target::thread_metric::{message_check, message_of};
        let sent = message_of(LOOPS.get());
        QUEUE.send(sent).await;
        let received = QUEUE.receive().await;
        message_check(&sent, &received);
        LOOPS.set(sent[0].wrapping_add(1));
    }

    #[cfg(any(feature = "tm-synchronization", feature = "tm-interrupt"))]
    static SEMAPHORE: Signal<CriticalSectionRawMutex, ()> = Signal::new();

    /// tm-synchronization: give the semaphore and take it, given: no wait.
    #[cfg(feature = "tm-synchronization")]
    pub async fn round() {
        SEMAPHORE.signal(());
        SEMAPHORE.wait().await;
        LOOPS.count();
    }

    #[cfg(feature = "tm-interrupt")]
    static HANDLER_LOOPS: Loops = Loops::new();

    /// tm-interrupt: the software interrupt's handler counts a loop and gives the semaphore.
    #[cfg(feature = "tm-interrupt")]
    pub fn handler() {
        HANDLER_LOOPS.count();
        SEMAPHORE.signal(());
    }

    /// tm-interrupt: pend the software interrupt and take what its handler gave.
    #[cfg(feature = "tm-interrupt")]
    pub async fn round() {
        board::soft_irq_pend();
        SEMAPHORE.wait().await; // on the AVR the handler may not have run yet: then the task waits
        LOOPS.count();
    }
}

#[cfg(not(feature = "thread-metric"))]
static WAKE: Signal<CriticalSectionRawMutex, ()> = Signal::new();
#[cfg(not(feature = "thread-metric"))]
static DONE: Signal<CriticalSectionRawMutex, ()> = Signal::new();
/// sem-shuffle: the lock, and the urgent task's word that it has asked for it.
#[cfg(feature = "sem-shuffle")]
static LOCK: embassy_sync::mutex::Mutex<CriticalSectionRawMutex, ()> = embassy_sync::mutex::Mutex::new(());
#[cfg(feature = "sem-shuffle")]
static REQUESTED: Signal<CriticalSectionRawMutex, ()> = Signal::new();
/// msg: the queue, and the sum of the bytes the urgent task received.
#[cfg(feature = "msg")]
static QUEUE: embassy_sync::channel::Channel<CriticalSectionRawMutex, message::Message, 1> =
    embassy_sync::channel::Channel::new();
#[cfg(feature = "msg")]
static RECEIVED: core::sync::atomic::AtomicU16 = core::sync::atomic::AtomicU16::new(0);
#[cfg(target_arch = "arm")]
static HIGH: InterruptExecutor = InterruptExecutor::new();
#[cfg(target_arch = "arm")]
static mut THREAD: Option<Executor> = None;

#[cfg(target_arch = "arm")]
#[no_mangle]
unsafe extern "C" fn switchscope_executor_irq() {
    HIGH.on_interrupt()
}

#[cfg(all(feature = "isr", target_arch = "arm"))]
#[no_mangle]
unsafe extern "C" fn switchscope_soft_irq() {
    WAKE.signal(());
}

#[cfg(all(feature = "isr", target_arch = "avr"))]
#[avr_device::interrupt(atmega328p)]
fn PCINT0() {
    WAKE.signal(());
}

#[cfg(all(feature = "tm-interrupt", target_arch = "arm"))]
#[no_mangle]
unsafe extern "C" fn switchscope_soft_irq() {
    thread_metric::handler();
}

#[cfg(all(feature = "tm-interrupt", target_arch = "avr"))]
#[avr_device::interrupt(atmega328p)]
fn PCINT0() {
    thread_metric::handler();
}

/// The measuring task waits until the other task has closed the window.
#[cfg(not(any(feature = "ruler", feature = "thread-metric")))]
async fn until_closed() {
    DONE.wait().await;
}

/// The more urgent task, in the interrupt executor: closes the window as soon as it is woken.
#[cfg(not(any(feature = "sem-shuffle", feature = "msg", feature = "thread-metric")))]
#[embassy_executor::task]
async fn high_task() {
    loop {
        WAKE.wait().await;
        probe::close();
        DONE.signal(());
    }
}

/// sem-shuffle: woken, asks for the lock the measuring task holds, and closes the window once it has it.
#[cfg(feature = "sem-shuffle")]
#[embassy_executor::task]
async fn high_task() {
    loop {
        WAKE.wait().await;
        REQUESTED.signal(()); // seen once this task waits for the lock: the executor polls it first
        let guard = LOCK.lock().await;
        probe::close();
        drop(guard);
        DONE.signal(());
    }
}

/// msg: closes the window as it receives the message.
#[cfg(feature = "msg")]
#[embassy_executor::task]
async fn high_task() {
    loop {
        let received = QUEUE.receive().await;
        probe::close();
        RECEIVED.store(message::sum(&received), core::sync::atomic::Ordering::Relaxed);
        DONE.signal(());
    }
}

#[embassy_executor::task]
async fn measuring_task() {
    #[cfg(feature = "thread-metric")]
    switchscope_target::thread_metric_interval!(thread_metric::round().await, thread_metric::LOOPS_PER_ROUND);
    harness::begin();
    // let every other task of this executor run up to where it waits
    embassy_futures::yield_now().await;
    // the loop is written out in each kernel: moved into switchscope-target, the
    // compiler arranges Embassy's yield window differently (130 -> 137 instructions)
    for seq in 0..harness::samples() {
        harness::next_window(seq);
        let tag = window(seq).await;
        harness::record(seq, tag);
    }
    harness::end(harness::samples())
}

#[cfg(feature = "signal")]
async fn window(_seq: u32) -> u16 {
    probe::open();
    WAKE.signal(());
    until_closed().await;
    0
}

#[cfg(feature = "sem-shuffle")]
async fn window(_seq: u32) -> u16 {
    let held = LOCK.try_lock().ok(); // free: taken at once
    WAKE.signal(());
    REQUESTED.wait().await; // the urgent task now waits for the lock
    probe::open();
    drop(held);
    until_closed().await;
    0
}

#[cfg(feature = "msg")]
async fn window(seq: u32) -> u16 {
    let sent = message::of(seq);
    probe::open();
    QUEUE.try_send(sent).ok(); // the slot is empty: the urgent task took the last message
    until_closed().await;
    message::check(seq, RECEIVED.load(core::sync::atomic::Ordering::Relaxed));
    0
}

#[cfg(feature = "isr")]
async fn window(_seq: u32) -> u16 {
    probe::open();
    board::soft_irq_pend();
    until_closed().await;
    0
}

#[cfg(feature = "yield")]
static ARMED: core::sync::atomic::AtomicBool = core::sync::atomic::AtomicBool::new(false);

#[cfg(feature = "yield")]
async fn window(_seq: u32) -> u16 {
    ARMED.store(true, core::sync::atomic::Ordering::Relaxed);
    probe::open();
    embassy_futures::yield_now().await;
    until_closed().await;
    0
}

/// yield: the partner, in the same executor, yields whenever it is polled and
/// closes the window the measuring task armed (the check is inside the window:
/// a load and a branch).
#[cfg(feature = "yield")]
#[embassy_executor::task]
async fn partner_task() {
    loop {
        embassy_futures::yield_now().await;
        if ARMED.load(core::sync::atomic::Ordering::Relaxed) {
            probe::close();
            ARMED.store(false, core::sync::atomic::Ordering::Relaxed);
            DONE.signal(());
        }
    }
}

#[cfg(feature = "thread-metric")]
async fn window(_seq: u32) -> u16 {
    switchscope_target::thread_metric_window!(thread_metric::round().await)
}

#[cfg(feature = "ruler")]
async fn window(seq: u32) -> u16 {
    switchscope_target::ruler::run(seq)
}

#[cfg(target_arch = "arm")]
#[cortex_m_rt::entry]
fn main() -> ! {
    harness::start(SCENARIO, KERNEL);
    // the soft interrupt and the executor's share a priority: the executor runs as
    // the handler returns (tail-chained), as a kernel's switch follows its ISR
    board::set_irq_priority(board::SOFT_IRQ, 0xC0);
    board::set_irq_priority(board::EXECUTOR_IRQ, 0xC0);
    unsafe { NVIC::unmask(board::Irq(board::SOFT_IRQ)) };
    #[cfg_attr(feature = "thread-metric", allow(unused_variables))]
    let high = HIGH.start(board::Irq(board::EXECUTOR_IRQ));
    #[cfg(not(feature = "thread-metric"))] // Thread-Metric's tests leave the interrupt executor empty
    high.spawn(high_task().unwrap());
    let thread = unsafe { (*core::ptr::addr_of_mut!(THREAD)).insert(Executor::new()) };
    thread.run(spawn_thread_tasks)
}

#[cfg(target_arch = "avr")]
#[avr_device::entry]
fn main() -> ! {
    static mut THREAD: Option<Executor> = None;
    harness::start(SCENARIO, KERNEL);
    unsafe { avr_device::interrupt::enable() };
    THREAD.insert(Executor::new()).run(|spawner: Spawner| {
        #[cfg(not(feature = "thread-metric"))]
        spawner.spawn(high_task().unwrap()); // first, so that it waits before the first window
        spawn_thread_tasks(spawner);
    })
}

fn spawn_thread_tasks(spawner: Spawner) {
    spawner.spawn(measuring_task().unwrap());
    #[cfg(feature = "yield")]
    spawner.spawn(partner_task().unwrap());
}
