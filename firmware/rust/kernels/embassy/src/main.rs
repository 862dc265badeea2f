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
//! - resume and rotate have no Embassy idiom: a task cannot be suspended and
//!   resumed by another, nor have its priority changed (the host says n/a).
#![no_std]
#![no_main]

use cortex_m::peripheral::NVIC;
use embassy_executor::{Executor, InterruptExecutor, Spawner};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;
use switchscope_target::{board, harness, probe};

#[cfg(feature = "signal")]
const SCENARIO: &str = "signal";
#[cfg(feature = "yield")]
const SCENARIO: &str = "yield";
#[cfg(feature = "isr")]
const SCENARIO: &str = "isr";
#[cfg(feature = "ruler")]
const SCENARIO: &str = "ruler";

const KERNEL: &[(&str, &str)] = &[
    ("kernel", "embassy"),
    ("kernel_version", "embassy-executor 0.10.0"),
    ("config.executors", "thread mode + interrupt executor (IRQ 31)"),
    ("config.signal", "embassy-sync Signal"),
];

static WAKE: Signal<CriticalSectionRawMutex, ()> = Signal::new();
static HIGH: InterruptExecutor = InterruptExecutor::new();
static mut THREAD: Option<Executor> = None;

#[no_mangle]
unsafe extern "C" fn switchscope_executor_irq() {
    HIGH.on_interrupt()
}

#[cfg(feature = "isr")]
#[no_mangle]
unsafe extern "C" fn switchscope_soft_irq() {
    WAKE.signal(());
}

/// The more urgent task, in the interrupt executor: closes the window as soon as it is woken.
#[embassy_executor::task]
async fn high_task() {
    loop {
        WAKE.wait().await;
        probe::close();
    }
}

#[embassy_executor::task]
async fn measuring_task() {
    harness::begin();
    // let every other task of this executor run up to where it waits
    embassy_futures::yield_now().await;
    for seq in 0..harness::samples() {
        board::wait_next_tick();
        let tag = window(seq).await;
        harness::record(seq, tag);
    }
    harness::end(harness::samples())
}

#[cfg(feature = "signal")]
async fn window(_seq: u32) -> u16 {
    probe::open();
    WAKE.signal(());
    0
}

#[cfg(feature = "isr")]
async fn window(_seq: u32) -> u16 {
    probe::open();
    board::soft_irq_pend();
    0
}

#[cfg(feature = "yield")]
async fn window(_seq: u32) -> u16 {
    probe::open();
    embassy_futures::yield_now().await;
    0
}

/// yield: the partner, in the same executor, closes the window each time it is polled.
#[cfg(feature = "yield")]
#[embassy_executor::task]
async fn partner_task() {
    loop {
        embassy_futures::yield_now().await;
        probe::close();
    }
}

#[cfg(feature = "ruler")]
async fn window(seq: u32) -> u16 {
    switchscope_target::ruler::run(seq)
}

#[cortex_m_rt::entry]
fn main() -> ! {
    harness::start(SCENARIO, KERNEL);
    // the soft interrupt and the executor's share a priority: the executor runs as
    // the handler returns (tail-chained), as a kernel's switch follows its ISR
    board::set_irq_priority(board::SOFT_IRQ, 0xC0);
    board::set_irq_priority(board::EXECUTOR_IRQ, 0xC0);
    unsafe { NVIC::unmask(board::Irq(board::SOFT_IRQ)) };
    let high = HIGH.start(board::Irq(board::EXECUTOR_IRQ));
    high.spawn(high_task().unwrap());
    let thread = unsafe { (*core::ptr::addr_of_mut!(THREAD)).insert(Executor::new()) };
    thread.run(|spawner: Spawner| {
        spawner.spawn(measuring_task().unwrap());
        #[cfg(feature = "yield")]
        spawner.spawn(partner_task().unwrap());
    })
}
