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
//! - tm-basic, tm-cooperative, tm-message, tm-synchronization, tm-interrupt:
//!   Thread-Metric's tests (firmware/scenarios/tm-*.c) that fit lilos: the
//!   measuring task is task 0 (tm-cooperative: and four tasks after it, each
//!   counting and yielding), with a `spsc` queue of one slot, and for the
//!   semaphore a flag and a `Notify`, lilos's way to wait for a condition.
//!   tm-preemptive and tm-interrupt-preemption need suspend and resume,
//!   tm-memory a block pool (the host says n/a).
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
#[cfg(not(feature = "thread-metric"))]
use switchscope_target::probe;
use switchscope_target::{board, harness};

const SCENARIO: &str = switchscope_target::scenario_name!(
    "signal", "yield", "isr", "ruler", "sem-shuffle", "msg",
    "tm-basic", "tm-cooperative", "tm-message", "tm-synchronization", "tm-interrupt"
);

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

#[cfg(feature = "tm-interrupt")]
#[no_mangle]
unsafe extern "C" fn switchscope_soft_irq() {
    thread_metric::handler();
}

/// Thread-Metric's tests: the measuring task's round, how many loops it counts, and the other tasks.
#[cfg(feature = "thread-metric")]
mod thread_metric {
    #[cfg(feature = "tm-cooperative")]
    use core::convert::Infallible;
    #[cfg(any(feature = "tm-synchronization", feature = "tm-interrupt"))]
    use core::sync::atomic::{AtomicBool, Ordering};
    #[cfg(any(feature = "tm-synchronization", feature = "tm-interrupt"))]
    use lilos::exec::Notify;
    #[cfg(not(feature = "tm-basic"))]
    use switchscope_target::thread_metric::Loops;
    #[cfg(feature = "tm-interrupt")]
    use switchscope_target::board;

    #[cfg(any(feature = "tm-basic", feature = "tm-message", feature = "tm-synchronization"))]
    pub const LOOPS_PER_ROUND: u32 = 1;
    #[cfg(feature = "tm-interrupt")]
    pub const LOOPS_PER_ROUND: u32 = 2;
    #[cfg(feature = "tm-cooperative")]
    pub const TASKS: usize = 5;
    #[cfg(feature = "tm-cooperative")]
    pub const LOOPS_PER_ROUND: u32 = TASKS as u32;

    #[cfg(any(feature = "tm-message", feature = "tm-synchronization", feature = "tm-interrupt"))]
    static LOOPS: Loops = Loops::new();

    /// tm-basic: the words' work, no kernel service.
    #[cfg(feature = "tm-basic")]
    pub async fn round() {
        switchscope_target::thread_metric::basic_round();
    }

    /// tm-cooperative: one counter per task; the measuring task's is the first.
    #[cfg(feature = "tm-cooperative")]
    pub static LOOPS: [Loops; TASKS] = [const { Loops::new() }; TASKS];

    /// tm-cooperative: count and yield; back once the four others have each
    /// counted and yielded (each pass polls the tasks in index order).
    #[cfg(feature = "tm-cooperative")]
    pub async fn round() {
        LOOPS[0].count();
        lilos::exec::yield_cpu().await;
    }

    /// tm-cooperative: tasks 1 to 4.
    #[cfg(feature = "tm-cooperative")]
    pub async fn cooperative_task(count: &'static Loops) -> Infallible {
        loop {
            count.count();
            lilos::exec::yield_cpu().await;
        }
    }

    /// tm-message: the queue's two ends, both the measuring task's, set by main before the tasks run.
    #[cfg(feature = "tm-message")]
    pub static mut QUEUE: Option<(
        lilos::spsc::Pusher<'static, switchscope_target::thread_metric::Message>,
        lilos::spsc::Popper<'static, switchscope_target::thread_metric::Message>,
    )> = None;

    /// tm-message: send 16 bytes to the queue and receive them back; neither waits.
    #[cfg(feature = "tm-message")]
    pub async fn round() {
        use switchscope_target::thread_metric::{message_check, message_of};
        // Safety: set by main before the tasks run, and used by this task only
        let (sender, receiver) = unsafe { (*core::ptr::addr_of_mut!(QUEUE)).as_mut().unwrap() };
        let sent = message_of(LOOPS.get());
        sender.reserve().await.push(sent);
        let received = receiver.pop().await;
        message_check(&sent, &received);
        LOOPS.set(sent[0].wrapping_add(1));
    }

    /// A binary semaphore as lilos builds one: a flag, and a `Notify` to wait
    /// for it on. The test and clear need no atomic swap (none on ARMv6-M):
    /// interrupts are masked while the executor polls.
    #[cfg(any(feature = "tm-synchronization", feature = "tm-interrupt"))]
    struct Semaphore {
        given: AtomicBool,
        notify: Notify,
    }

    #[cfg(any(feature = "tm-synchronization", feature = "tm-interrupt"))]
    impl Semaphore {
        fn give(&self) {
            self.given.store(true, Ordering::Relaxed);
            self.notify.notify();
        }

        async fn take(&self) {
            self.notify
                .until(|| {
                    let given = self.given.load(Ordering::Relaxed);
                    self.given.store(false, Ordering::Relaxed);
                    given
                })
                .await
        }
    }

    #[cfg(any(feature = "tm-synchronization", feature = "tm-interrupt"))]
    static SEMAPHORE: Semaphore = Semaphore { given: AtomicBool::new(false), notify: Notify::new() };

    /// tm-synchronization: give the semaphore and take it, given: no wait.
    #[cfg(feature = "tm-synchronization")]
    pub async fn round() {
        SEMAPHORE.give();
        SEMAPHORE.take().await;
        LOOPS.count();
    }

    #[cfg(feature = "tm-interrupt")]
    static HANDLER_LOOPS: Loops = Loops::new();

    /// tm-interrupt: the software interrupt's handler counts a loop and gives the semaphore.
    #[cfg(feature = "tm-interrupt")]
    pub fn handler() {
        HANDLER_LOOPS.count();
        SEMAPHORE.give();
    }

    /// tm-interrupt: pend the software interrupt and take what its handler gave. The handler
    /// runs once the executor unmasks interrupts, after this poll: the task waits a pass.
    #[cfg(feature = "tm-interrupt")]
    pub async fn round() {
        board::soft_irq_pend();
        SEMAPHORE.take().await;
        LOOPS.count();
    }
}

/// Task 0 in Thread-Metric's tests: the interval, then the measuring loop.
#[cfg(feature = "thread-metric")]
async fn thread_metric_task() -> Infallible {
    switchscope_target::thread_metric_interval!(thread_metric::round().await, thread_metric::LOOPS_PER_ROUND);
    harness::begin();
    for seq in 0..harness::samples() {
        harness::next_window(seq);
        let tag = switchscope_target::thread_metric_window!(thread_metric::round().await);
        harness::record(seq, tag);
    }
    harness::end(harness::samples())
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
#[cfg(not(any(feature = "sem-shuffle", feature = "msg", feature = "thread-metric")))]
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
#[cfg(not(feature = "thread-metric"))]
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
    #[cfg(feature = "tm-message")]
    {
        use switchscope_target::thread_metric::Message;
        static mut STORAGE: [core::mem::MaybeUninit<Message>; 2] = [core::mem::MaybeUninit::uninit(); 2];
        static mut QUEUE: Option<lilos::spsc::Queue<'static, Message>> = None;
        // Safety: main runs once, before the tasks, and nothing else names STORAGE or QUEUE
        unsafe {
            let storage = &mut *core::ptr::addr_of_mut!(STORAGE);
            let ends = (*core::ptr::addr_of_mut!(QUEUE)).insert(lilos::spsc::Queue::new(storage)).split();
            *core::ptr::addr_of_mut!(thread_metric::QUEUE) = Some(ends);
        }
    }
    #[cfg(feature = "tm-cooperative")]
    {
        use thread_metric::{cooperative_task, LOOPS};
        let measuring = pin!(thread_metric_task());
        let (one, two) = (pin!(cooperative_task(&LOOPS[1])), pin!(cooperative_task(&LOOPS[2])));
        let (three, four) = (pin!(cooperative_task(&LOOPS[3])), pin!(cooperative_task(&LOOPS[4])));
        lilos::exec::run_tasks(&mut [measuring, one, two, three, four], lilos::exec::ALL_TASKS)
    }
    #[cfg(all(feature = "thread-metric", not(feature = "tm-cooperative")))]
    {
        let measuring = pin!(thread_metric_task());
        lilos::exec::run_tasks(&mut [measuring], lilos::exec::ALL_TASKS)
    }
    #[cfg(not(any(feature = "sem-shuffle", feature = "msg", feature = "thread-metric")))]
    let closing = closing_task();
    #[cfg(not(feature = "thread-metric"))]
    {
        let closing = pin!(closing);
        let measuring = pin!(measuring_task());
        lilos::exec::run_tasks(&mut [closing, measuring], lilos::exec::ALL_TASKS)
    }
}
