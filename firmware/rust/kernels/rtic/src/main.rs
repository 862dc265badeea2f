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
//! - yield and rotate have no RTIC idiom: tasks of one priority run until they
//!   await an event, and priorities are fixed when the application is built;
//!   deadlock-break cannot happen: under the Stack Resource Policy a task that
//!   could ask for a resource a lower one holds does not start until it is
//!   free (the host says n/a).
#![no_std]
#![no_main]

const SCENARIO: &str =
    switchscope_target::scenario_name!("resume", "signal", "isr", "ruler", "sem-shuffle", "msg");

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

#[rtic::app(device = lm3s6965, dispatchers = [SSI0, QEI0])]
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
        harness::begin();
        for seq in 0..harness::samples() {
            harness::next_window(seq);
            let tag = window(seq, cx.local.sender);
            harness::record(seq, tag);
        }
        harness::end(harness::samples())
    }

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

    /// isr: the task bound to the interrupt idle pends.
    #[task(binds = GPIOA, priority = 1)]
    fn gpioa(_: gpioa::Context) {
        probe::close();
    }
}
