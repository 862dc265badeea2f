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
//! - yield and rotate have no RTIC idiom: tasks of one priority run until they
//!   await an event, and priorities are fixed when the application is built
//!   (the host says n/a).
#![no_std]
#![no_main]

const SCENARIO: &str = switchscope_target::scenario_name!("resume", "signal", "isr", "ruler");

const KERNEL: &[(&str, &str)] = &[
    ("kernel", "rtic"),
    ("kernel_version", "rtic 2.4.0"),
    ("config.backend", "thumbv7 (BASEPRI)"),
    ("config.signal", "rtic-sync channel"),
];

#[rtic::app(device = lm3s6965, dispatchers = [SSI0, QEI0])]
mod app {
    use super::{KERNEL, SCENARIO};
    use rtic_sync::channel::{Receiver, Sender};
    use switchscope_target::{board, harness, probe};

    const CAPACITY: usize = 1;

    #[shared]
    struct Shared {}

    #[local]
    struct Local {
        sender: Option<Sender<'static, (), CAPACITY>>,
    }

    #[init]
    fn init(_: init::Context) -> (Shared, Local) {
        harness::start(SCENARIO, KERNEL);
        #[cfg(feature = "signal")]
        {
            let (sender, receiver) = rtic_sync::make_channel!((), CAPACITY);
            waiting::spawn(receiver).ok();
            (Shared {}, Local { sender: Some(sender) })
        }
        #[cfg(not(feature = "signal"))]
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
    fn window(seq: u32, sender: &mut Option<Sender<'static, (), CAPACITY>>) -> u16 {
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

    /// signal: waits on the channel.
    #[task(priority = 1)]
    async fn waiting(_: waiting::Context, mut receiver: Receiver<'static, (), CAPACITY>) {
        while receiver.recv().await.is_ok() {
            probe::close();
        }
    }

    /// isr: the task bound to the interrupt idle pends.
    #[task(binds = GPIOA, priority = 1)]
    fn gpioa(_: gpioa::Context) {
        probe::close();
    }
}
