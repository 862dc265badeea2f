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
//! - sem-shuffle: the measuring task holds a lilos `Mutex` the other task
//!   asks for and waits on; the window is the release (the guard dropped) to
//!   the waiting task holding it.
//! - msg: the measuring task pushes a message (`message::SIZE` bytes) into a
//!   lilos `spsc` queue of one slot the other task pops from.
//! - resume and rotate have no lilos idiom: a task cannot be suspended and
//!   resumed by another, and tasks have no priorities, so no inversion for
//!   deadlock-break to break (the host says n/a).
//!
//! The task that closes the window is task 0, so that it is polled before the
//! measuring task resumes in the same pass.
#![no_std]
#![no_main]

use core::convert::Infallible;
use core::pin::pin;
use cortex_m::peripheral::NVIC;
#[cfg(any(feature = "signal", feature = "isr", feature = "sem-shuffle"))]
use lilos::exec::Notify;
#[cfg(feature = "msg")]
use switchscope_target::message;
use switchscope_target::{board, harness, probe};

const SCENARIO: &str =
    switchscope_target::scenario_name!("signal", "yield", "isr", "ruler", "sem-shuffle", "msg");

const KERNEL: &[(&str, &str)] = &[
    ("kernel", "lilos"),
    ("kernel_version", "lilos 1.3.0"),
    ("config.executor", "lilos run_tasks, interrupts masked while polling"),
    ("config.signal", "lilos Notify"),
    ("config.lock", "lilos Mutex"),
    ("config.queue", "lilos spsc Queue, one slot"),
];

#[cfg(any(feature = "signal", feature = "isr", feature = "sem-shuffle"))]
static WAKE: Notify = Notify::new();

#[cfg(feature = "isr")]
#[no_mangle]
unsafe extern "C" fn switchscope_soft_irq() {
    WAKE.notify();
}

/// sem-shuffle's lock and msg's queue's sending end, set by main before the tasks run and used by the
/// measuring task alone (the closing task gets its end as an argument), so that the measuring loop is
/// the same code in every scenario.
#[cfg(feature = "sem-shuffle")]
type Lock = core::pin::Pin<&'static lilos::mutex::Mutex<lilos::util::CancelSafe<()>>>;
#[cfg(feature = "sem-shuffle")]
static mut LOCK: Option<Lock> = None;
#[cfg(feature = "msg")]
type Receiver = lilos::spsc::Popper<'static, message::Message>;
#[cfg(feature = "msg")]
static mut SENDER: Option<lilos::spsc::Pusher<'static, message::Message>> = None;
#[cfg(feature = "msg")]
static RECEIVED: core::sync::atomic::AtomicU16 = core::sync::atomic::AtomicU16::new(0);

/// Task 0, sem-shuffle: woken, asks for the lock the measuring task holds; closes the window once it has it.
#[cfg(feature = "sem-shuffle")]
async fn closing_task(lock: Lock) -> Infallible {
    loop {
        WAKE.until_next().await;
        let guard = lock.lock_assuming_cancel_safe().await;
        probe::close();
        drop(guard);
    }
}

/// Task 0, msg: closes the window as it receives the message.
#[cfg(feature = "msg")]
async fn closing_task(mut queue: Receiver) -> Infallible {
    loop {
        let received = queue.pop().await;
        probe::close();
        RECEIVED.store(message::sum(&received), core::sync::atomic::Ordering::Relaxed);
    }
}

/// Task 0: closes the window when it runs again.
#[cfg(not(any(feature = "sem-shuffle", feature = "msg")))]
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

#[cfg(feature = "sem-shuffle")]
async fn window(_seq: u32) -> u16 {
    // Safety: set by main before the tasks run, and read by this task only
    let lock = unsafe { (*core::ptr::addr_of!(LOCK)).unwrap() };
    let held = lock.try_lock_assuming_cancel_safe(); // free: taken at once
    WAKE.notify();
    lilos::exec::yield_cpu().await; // task 0 runs up to its request, and waits
    probe::open();
    drop(held);
    lilos::exec::yield_cpu().await;
    0
}

#[cfg(feature = "msg")]
async fn window(seq: u32) -> u16 {
    // Safety: set by main before the tasks run, and used by this task only
    let sender = unsafe { (*core::ptr::addr_of_mut!(SENDER)).as_mut().unwrap() };
    let sent = message::of(seq);
    probe::open();
    sender.try_push(sent).ok(); // the slot is empty: task 0 took the last message
    lilos::exec::yield_cpu().await;
    message::check(seq, RECEIVED.load(core::sync::atomic::Ordering::Relaxed));
    0
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
    #[cfg(feature = "sem-shuffle")]
    let closing = {
        let lock: Lock = lilos::create_static_mutex!(lilos::util::CancelSafe<()>, lilos::util::CancelSafe(()));
        // Safety: before the tasks run
        unsafe { *core::ptr::addr_of_mut!(LOCK) = Some(lock) };
        closing_task(lock)
    };
    #[cfg(feature = "msg")]
    let closing = {
        static mut STORAGE: [core::mem::MaybeUninit<message::Message>; 2] = [core::mem::MaybeUninit::uninit(); 2];
        static mut QUEUE: Option<lilos::spsc::Queue<'static, message::Message>> = None;
        // Safety: main runs once, before the tasks, and nothing else names STORAGE or QUEUE
        let (sender, receiver) = unsafe {
            let storage = &mut *core::ptr::addr_of_mut!(STORAGE);
            (*core::ptr::addr_of_mut!(QUEUE)).insert(lilos::spsc::Queue::new(storage)).split()
        };
        unsafe { *core::ptr::addr_of_mut!(SENDER) = Some(sender) };
        closing_task(receiver)
    };
    #[cfg(not(any(feature = "sem-shuffle", feature = "msg")))]
    let closing = closing_task();
    let closing = pin!(closing);
    let measuring = pin!(measuring_task());
    lilos::exec::run_tasks(&mut [closing, measuring], lilos::exec::ALL_TASKS)
}
