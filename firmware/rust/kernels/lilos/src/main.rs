//! switchscope's scenarios on lilos. lilos runs a fixed array of async tasks
//! in one executor: each pass polls, in index order, the tasks woken since the
//! last, with interrupts masked; interrupts run between passes. There are no
//! priorities, so every switch is cooperative: the window holds the wake, the
//! measuring task's `yield_cpu()` and the next pass up to the other task.
//!
//! - signal: the measuring task notifies a `Notify` the other task waits on.
//! - yield: `yield_cpu()` between two tasks.
//! - isr: a software-pended interrupt's handler notifies the waiting task (the
//!   handler runs once the executor unmasks interrupts, after the pass).
//! - resume and rotate have no lilos idiom: a task cannot be suspended and
//!   resumed by another, and tasks have no priorities (the host says n/a).
//!
//! The task that closes the window is task 0, so that it is polled before the
//! measuring task resumes in the same pass.
#![no_std]
#![no_main]

use core::convert::Infallible;
use core::pin::pin;
use cortex_m::peripheral::NVIC;
#[cfg(any(feature = "signal", feature = "isr"))]
use lilos::exec::Notify;
use switchscope_target::{board, harness, probe};

const SCENARIO: &str = switchscope_target::scenario_name!("signal", "yield", "isr", "ruler");

const KERNEL: &[(&str, &str)] = &[
    ("kernel", "lilos"),
    ("kernel_version", "lilos 1.3.0"),
    ("config.executor", "lilos run_tasks, interrupts masked while polling"),
    ("config.signal", "lilos Notify"),
];

#[cfg(any(feature = "signal", feature = "isr"))]
static WAKE: Notify = Notify::new();

#[cfg(feature = "isr")]
#[no_mangle]
unsafe extern "C" fn switchscope_soft_irq() {
    WAKE.notify();
}

/// Task 0: closes the window when it runs again.
async fn closing_task() -> Infallible {
    loop {
        #[cfg(any(feature = "signal", feature = "isr"))]
        WAKE.until_next().await;
        #[cfg(feature = "yield")]
        lilos::exec::yield_cpu().await;
        #[cfg(feature = "ruler")]
        core::future::pending::<()>().await;
        probe::close();
    }
}

/// Task 1: the measuring loop.
async fn measuring_task() -> Infallible {
    harness::begin();
    lilos::exec::yield_cpu().await; // let task 0 run up to where it waits
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
    WAKE.notify();
    lilos::exec::yield_cpu().await;
    0
}

#[cfg(feature = "isr")]
async fn window(_seq: u32) -> u16 {
    probe::open();
    board::soft_irq_pend();
    lilos::exec::yield_cpu().await;
    0
}

#[cfg(feature = "yield")]
async fn window(_seq: u32) -> u16 {
    probe::open();
    lilos::exec::yield_cpu().await;
    0
}

#[cfg(feature = "ruler")]
async fn window(seq: u32) -> u16 {
    switchscope_target::ruler::run(seq)
}

#[cortex_m_rt::entry]
fn main() -> ! {
    harness::start(SCENARIO, KERNEL);
    board::set_irq_priority(board::SOFT_IRQ, 0xC0);
    unsafe { NVIC::unmask(board::Irq(board::SOFT_IRQ)) };
    let closing = pin!(closing_task());
    let measuring = pin!(measuring_task());
    lilos::exec::run_tasks(&mut [closing, measuring], lilos::exec::ALL_TASKS)
}
