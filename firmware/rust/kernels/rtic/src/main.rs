//! switchscope's scenarios on RTIC, on lm3s6965evb (RTIC needs a PAC). RTIC
//! tasks are interrupt handlers with static priorities; a software task runs
//! in a dispatcher interrupt at its priority, so a more urgent task preempts
//! the moment it is made ready. The measuring loop is `idle` (priority 0):
//!
//! - resume: idle spawns a higher-priority software task (RTIC's way to make a
//!   task run), which closes the window.
//! - signal: idle sends on an rtic-sync channel a higher-priority task awaits.
//! - isr: idle pends an interrupt bound to a higher-priority hardware task:
//!   the task is the interrupt handler.
//! - sem-shuffle: idle holds an rtic-sync `Arbiter` (an async mutex) and
//!   spawns a higher-priority task that asks for it and waits; the window is
//!   idle's release (the access dropped) to the task holding it.
//! - msg: idle sends a message (`message::SIZE` bytes) on an rtic-sync
//!   channel a higher-priority task awaits.
//! - Thread-Metric's tests (firmware/scenarios/tm-*.c) but tm-cooperative
//!   (no yield), with idle as the measuring task: tm-message on an rtic-sync
//!   channel of one slot, tm-synchronization and tm-interrupt on an rtic-sync
//!   `Signal` as the semaphore, tm-memory on a heapless object pool (RTIC
//!   has no pool of its own; its examples have used heapless's); in
//!   tm-preemptive and tm-interrupt-preemption a task is resumed as in
//!   resume, spawned at a higher priority, and suspends itself by returning.
//! - yield and rotate have no RTIC idiom: tasks of one priority run until they
//!   await an event, and priorities are fixed when the application is built;
//!   deadlock-break cannot happen: under the Stack Resource Policy a task that
//!   could ask for a resource a lower one holds does not start until it is
//!   free (the host says n/a).
#![no_std]
#![no_main]

const SCENARIO: &str = switchscope_target::scenario_name!(
    "resume", "signal", "isr", "ruler", "sem-shuffle", "msg",
    "tm-basic", "tm-preemptive", "tm-interrupt", "tm-interrupt-preemption", "tm-message", "tm-synchronization",
    "tm-memory"
);

const KERNEL: &[(&str, &str)] = &[
    ("kernel", "rtic"),
    ("kernel_version", "rtic 2.4.0"),
    ("config.backend", "thumbv7 (BASEPRI)"),
    ("config.signal", "rtic-sync channel"),
    ("config.lock", "rtic-sync Arbiter"),
    ("config.queue", "rtic-sync channel, one slot"),
];

/// sem-shuffle's lock.
#[cfg(feature = "sem-shuffle")]
static LOCK: rtic_sync::arbiter::Arbiter<()> = rtic_sync::arbiter::Arbiter::new(());
/// msg: the sum of the bytes the receiving task got.
#[cfg(feature = "msg")]
static RECEIVED: core::sync::atomic::AtomicU16 = core::sync::atomic::AtomicU16::new(0);

/// Thread-Metric's tests: how many loops a round counts, and the counters.
#[cfg(feature = "thread-metric")]
mod thread_metric {
    #[cfg(not(feature = "tm-basic"))]
    use switchscope_target::thread_metric::Loops;

    #[cfg(any(feature = "tm-basic", feature = "tm-message", feature = "tm-synchronization",
              feature = "tm-memory"))]
    pub const LOOPS_PER_ROUND: u32 = 1;
    #[cfg(feature = "tm-interrupt")]
    pub const LOOPS_PER_ROUND: u32 = 2;
    #[cfg(feature = "tm-interrupt-preemption")]
    pub const LOOPS_PER_ROUND: u32 = 3;
    #[cfg(feature = "tm-preemptive")]
    pub const LOOPS_PER_ROUND: u32 = 5;

    /// One counter per task (tm-preemptive: five, idle's the first), and the handler's.
    #[cfg(not(feature = "tm-basic"))]
    pub static LOOPS: [Loops; 5] = [const { Loops::new() }; 5];
    #[cfg(any(feature = "tm-interrupt", feature = "tm-interrupt-preemption"))]
    pub static HANDLER_LOOPS: Loops = Loops::new();

    /// tm-synchronization's and tm-interrupt's semaphore.
    #[cfg(any(feature = "tm-synchronization", feature = "tm-interrupt"))]
    pub static SEMAPHORE: rtic_sync::signal::Signal<()> = rtic_sync::signal::Signal::new();

    /// After a pend, where the round goes on only once the interrupt has run: the
    /// pend's store completes and the interrupt is taken before the next instruction.
    #[cfg(any(feature = "tm-preemptive", feature = "tm-interrupt-preemption"))]
    #[inline(always)]
    pub fn complete_switch() {
        cortex_m::asm::dsb();
        cortex_m::asm::isb();
    }
}

// a dispatcher per priority of a software task, in every build (RTIC counts the tasks a
// feature leaves out): tm-preemptive's chain takes four priorities above idle
#[rtic::app(device = lm3s6965, dispatchers = [SSI0, QEI0, UART1, I2C0])]
mod app {
    use super::{KERNEL, SCENARIO};
    use rtic_sync::channel::{Receiver, Sender};
    #[cfg(feature = "msg")]
    use switchscope_target::message;
    use switchscope_target::{board, harness, probe};

    const CAPACITY: usize = 1;
    /// What the channel carries: nothing (signal), or msg's message.
    #[cfg(not(feature = "msg"))]
    type Payload = ();
    #[cfg(feature = "msg")]
    type Payload = message::Message;

    #[shared]
    struct Shared {}

    #[local]
    struct Local {
        sender: Option<Sender<'static, Payload, CAPACITY>>,
    }

    #[init]
    fn init(_: init::Context) -> (Shared, Local) {
        harness::start(SCENARIO, KERNEL);
        #[cfg(any(feature = "signal", feature = "msg"))]
        {
            let (sender, receiver) = rtic_sync::make_channel!(Payload, CAPACITY);
            waiting::spawn(receiver).ok();
            (Shared {}, Local { sender: Some(sender) })
        }
        #[cfg(not(any(feature = "signal", feature = "msg")))]
        (Shared {}, Local { sender: None })
    }

    #[idle(local = [sender])]
    fn idle(cx: idle::Context) -> ! {
        #[cfg(feature = "thread-metric")]
        {
            let _ = cx;
            thread_metric_measure()
        }
        #[cfg(not(feature = "thread-metric"))]
        {
            harness::begin();
            for seq in 0..harness::samples() {
                harness::next_window(seq);
                let tag = window(seq, cx.local.sender);
                harness::record(seq, tag);
            }
            harness::end(harness::samples())
        }
    }

    /// Thread-Metric's tests: idle is the measuring task; the interval, then the windows.
    #[cfg(feature = "thread-metric")]
    fn thread_metric_measure() -> ! {
        use super::thread_metric::LOOPS_PER_ROUND;
        let mut round = thread_metric_round();
        switchscope_target::thread_metric_interval!(round(), LOOPS_PER_ROUND);
        harness::begin();
        for seq in 0..harness::samples() {
            harness::next_window(seq);
            let tag = switchscope_target::thread_metric_window!(round());
            harness::record(seq, tag);
        }
        harness::end(harness::samples())
    }

    /// tm-basic: the words' work, no kernel service.
    #[cfg(feature = "tm-basic")]
    fn thread_metric_round() -> impl FnMut() {
        switchscope_target::thread_metric::basic_round
    }

    /// tm-message: send 16 bytes to a channel of one slot and receive them back; neither waits.
    #[cfg(feature = "tm-message")]
    fn thread_metric_round() -> impl FnMut() {
        use switchscope_target::thread_metric::{message_check, message_of, Message};
        let (mut sender, mut receiver) = rtic_sync::make_channel!(Message, CAPACITY);
        let loops = &super::thread_metric::LOOPS[0];
        move || {
            let sent = message_of(loops.get());
            if sender.try_send(sent).is_err() {
                harness::fail("tm-message: the queue is full");
            }
            let received = receiver.try_recv().unwrap_or([!sent[0], 0, 0, 0]);
            message_check(&sent, &received);
            loops.set(sent[0].wrapping_add(1));
        }
    }

    /// tm-memory: allocate a 128-byte block from a pool of 16 and free it: heapless's object
    /// pool, whose blocks are handed out as they are (a box pool would copy a value in).
    #[cfg(feature = "tm-memory")]
    fn thread_metric_round() -> impl FnMut() {
        use heapless::pool::object::ObjectBlock;
        const BLOCK_BYTES: usize = 128;
        const BLOCKS: usize = 16;
        heapless::object_pool!(POOL: [u8; BLOCK_BYTES]);
        static mut STORAGE: [ObjectBlock<[u8; BLOCK_BYTES]>; BLOCKS] =
            [const { ObjectBlock::new([0; BLOCK_BYTES]) }; BLOCKS];
        // Safety: idle runs this once, and nothing else names STORAGE
        for block in unsafe { (*core::ptr::addr_of_mut!(STORAGE)).iter_mut() } {
            POOL.manage(block);
        }
        let loops = &super::thread_metric::LOOPS[0];
        move || {
            let Some(block) = POOL.request() else {
                harness::fail("tm-memory: the pool is empty");
            };
            drop(block); // back to the pool
            loops.count();
        }
    }

    /// tm-synchronization: give the semaphore and take it, given: no wait.
    #[cfg(feature = "tm-synchronization")]
    fn thread_metric_round() -> impl FnMut() {
        use super::thread_metric::{LOOPS, SEMAPHORE};
        let (mut writer, mut reader) = SEMAPHORE.split();
        move || {
            writer.write(());
            if reader.try_read().is_none() {
                harness::fail("tm-synchronization: the semaphore given is not there to take");
            }
            LOOPS[0].count();
        }
    }

    /// tm-interrupt: pend the interrupt whose handler gives the semaphore, and take it.
    #[cfg(feature = "tm-interrupt")]
    fn thread_metric_round() -> impl FnMut() {
        use super::thread_metric::{LOOPS, SEMAPHORE};
        let mut reader = SEMAPHORE.take_reader();
        move || {
            rtic::pend(lm3s6965::Interrupt::GPIOA);
            while reader.try_read().is_none() {} // idle cannot wait: the handler, more urgent, runs at once
            LOOPS[0].count();
        }
    }


    /// tm-interrupt-preemption: pend the interrupt whose handler resumes thread_1; back once thread_1 ran.
    #[cfg(feature = "tm-interrupt-preemption")]
    fn thread_metric_round() -> impl FnMut() {
        || {
            rtic::pend(lm3s6965::Interrupt::GPIOA);
            super::thread_metric::complete_switch();
            super::thread_metric::LOOPS[0].count();
        }
    }


    /// tm-preemptive: count and resume thread_1; back once the chain has run up and suspended itself down.
    #[cfg(feature = "tm-preemptive")]
    fn thread_metric_round() -> impl FnMut() {
        || {
            super::thread_metric::LOOPS[0].count();
            thread_1::spawn().ok();
            super::thread_metric::complete_switch();
        }
    }

    /// tm-preemptive: each counts a loop and resumes the next more urgent one, which
    /// preempts it at once; returning is suspending itself.
    #[cfg(any(feature = "tm-preemptive", feature = "tm-interrupt-preemption"))]
    #[task(priority = 1)]
    async fn thread_1(_: thread_1::Context) {
        super::thread_metric::LOOPS[1].count();
        #[cfg(feature = "tm-preemptive")]
        thread_2::spawn().ok();
    }

    #[cfg(feature = "tm-preemptive")]
    #[task(priority = 2)]
    async fn thread_2(_: thread_2::Context) {
        super::thread_metric::LOOPS[2].count();
        thread_3::spawn().ok();
    }

    #[cfg(feature = "tm-preemptive")]
    #[task(priority = 3)]
    async fn thread_3(_: thread_3::Context) {
        super::thread_metric::LOOPS[3].count();
        thread_4::spawn().ok();
    }

    #[cfg(feature = "tm-preemptive")]
    #[task(priority = 4)]
    async fn thread_4(_: thread_4::Context) {
        super::thread_metric::LOOPS[4].count();
    }

    #[cfg(not(feature = "thread-metric"))]
    #[allow(unused_variables)]
    fn window(seq: u32, sender: &mut Option<Sender<'static, Payload, CAPACITY>>) -> u16 {
        #[cfg(feature = "resume")]
        {
            probe::open();
            urgent::spawn().ok();
        }
        #[cfg(feature = "signal")]
        {
            let sender = sender.as_mut().unwrap();
            probe::open();
            sender.try_send(()).ok();
        }
        #[cfg(feature = "sem-shuffle")]
        {
            let held = super::LOCK.try_access(); // free: taken at once
            asking::spawn().ok(); // runs at once up to its request, and waits
            probe::open();
            drop(held);
        }
        #[cfg(feature = "msg")]
        {
            let sender = sender.as_mut().unwrap();
            let sent = message::of(seq);
            probe::open();
            sender.try_send(sent).ok();
            message::check(seq, super::RECEIVED.load(core::sync::atomic::Ordering::Relaxed));
        }
        #[cfg(feature = "isr")]
        {
            probe::open();
            rtic::pend(lm3s6965::Interrupt::GPIOA);
        }
        #[cfg(feature = "ruler")]
        return switchscope_target::ruler::run(seq);
        #[cfg(not(feature = "ruler"))]
        0
    }

    /// resume: made ready by idle's spawn, runs at once.
    #[task(priority = 1)]
    async fn urgent(_: urgent::Context) {
        probe::close();
    }

    /// signal and msg: waits on the channel (msg: hands back the sum of the message's bytes).
    #[task(priority = 1)]
    async fn waiting(_: waiting::Context, mut receiver: Receiver<'static, Payload, CAPACITY>) {
        #[allow(unused_variables)]
        while let Ok(received) = receiver.recv().await {
            probe::close();
            #[cfg(feature = "msg")]
            super::RECEIVED.store(message::sum(&received), core::sync::atomic::Ordering::Relaxed);
        }
    }

    /// sem-shuffle: asks for the lock idle holds, and closes the window once it has it.
    #[cfg(feature = "sem-shuffle")]
    #[task(priority = 1)]
    async fn asking(_: asking::Context) {
        let access = super::LOCK.access().await;
        probe::close();
        drop(access);
    }

    /// isr: the task bound to the interrupt idle pends. In tm-interrupt and
    /// tm-interrupt-preemption, the software interrupt's handler: counts a loop and
    /// gives the semaphore, or resumes thread_1, which runs as the handler returns
    /// (one priority: its dispatcher is tail-chained).
    #[task(binds = GPIOA, priority = 1)]
    fn gpioa(_: gpioa::Context) {
        #[cfg(not(any(feature = "tm-interrupt", feature = "tm-interrupt-preemption")))]
        probe::close();
        #[cfg(any(feature = "tm-interrupt", feature = "tm-interrupt-preemption"))]
        super::thread_metric::HANDLER_LOOPS.count();
        #[cfg(feature = "tm-interrupt")]
        super::thread_metric::SEMAPHORE.writer().write(());
        #[cfg(feature = "tm-interrupt-preemption")]
        thread_1::spawn().ok();
    }
}
