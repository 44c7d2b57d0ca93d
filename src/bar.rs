//! The progress bar every long-running command draws on stderr (`check`
//! over several files, `suite`, `progress synth`, `run`, `tune`,
//! `mutants`), built on `indicatif`.
//!
//! A bar is drawn only when it is wanted (not `--json`) and stderr is a
//! terminal; otherwise it is hidden and every call is a no-op, so piped
//! output and scripts never see it. Output lines printed while a bar is
//! shown go through [`Bar::suspend`] (or [`Bar::println`]) so the bar is
//! redrawn below them instead of being torn.
//!
//! A bar is `Sync`: parallel checks tick the same bar.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Mutex;

/// A progress bar on stderr, or nothing (see the module documentation).
pub struct Bar {
    pb: ProgressBar,
    /// The message and the sub-step (`launch 3/100`) it is drawn with.
    message: Mutex<(String, Option<(u64, u64)>)>,
}

/// The bar's look: `[####    ] 12/40 00:03 eta 7s MP.litmus`; `eta ?`
/// until the first step is done (no rate to estimate from yet).
const TEMPLATE: &str = "[{bar:30}] {pos}/{len} {elapsed} {eta_known} {wide_msg}";

/// `eta 7s`, or `eta ?` before any step is done.
fn eta_known(state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write) {
    let _ = if state.pos() == 0 {
        write!(w, "eta ?")
    } else {
        write!(w, "eta {:#}", indicatif::HumanDuration(state.eta()))
    };
}

impl Bar {
    /// A bar over `total` steps, drawn when `wanted` and stderr is a
    /// terminal.
    pub fn new(total: u64, wanted: bool) -> Bar {
        Bar::with_target(total, wanted && std::io::stderr().is_terminal())
    }

    fn with_target(total: u64, drawn: bool) -> Bar {
        let pb = if drawn {
            let style = ProgressStyle::with_template(TEMPLATE)
                .expect("a valid template")
                .with_key("eta_known", eta_known)
                .progress_chars("## ");
            ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr_with_hz(10))
                .with_style(style)
        } else {
            ProgressBar::hidden()
        };
        Bar {
            pb,
            message: Mutex::new((String::new(), None)),
        }
    }

    /// Whether the bar is drawn at all.
    pub fn is_drawn(&self) -> bool {
        !self.pb.is_hidden()
    }

    /// One more step done.
    pub fn inc(&self) {
        self.pb.inc(1);
    }

    /// `n` more steps done.
    pub fn inc_by(&self, n: u64) {
        self.pb.inc(n);
    }

    /// The total number of steps (when it is learnt late).
    pub fn set_length(&self, total: u64) {
        self.pb.set_length(total);
    }

    /// What is being worked on (e.g. the file name); clears the sub-step.
    pub fn set_message(&self, m: &str) {
        let mut s = self.message.lock().unwrap();
        *s = (m.to_string(), None);
        self.pb.set_message(message_line(&s.0, s.1));
    }

    /// A step inside the current one: `launch n/total` of a hardware run.
    pub fn set_sub(&self, n: u64, total: u64) {
        let mut s = self.message.lock().unwrap();
        s.1 = Some((n, total));
        self.pb.set_message(message_line(&s.0, s.1));
    }

    /// Runs `f` (which prints) with the bar cleared, then redraws it.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.pb.suspend(f)
    }

    /// Removes the bar from the terminal.
    pub fn finish(&self) {
        self.pb.finish_and_clear();
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.pb.finish_and_clear();
    }
}

/// The message drawn after the counts: `message launch n/total`.
fn message_line(message: &str, sub: Option<(u64, u64)>) -> String {
    match sub {
        Some((n, t)) if message.is_empty() => format!("launch {n}/{t}"),
        Some((n, t)) => format!("{message} launch {n}/{t}"),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_shows_the_launch() {
        assert_eq!(
            message_line("2/4 MP.litmus", Some((30, 100))),
            "2/4 MP.litmus launch 30/100"
        );
        assert_eq!(message_line("MP.litmus", None), "MP.litmus");
        assert_eq!(message_line("", Some((1, 2))), "launch 1/2");
    }

    #[test]
    fn a_bar_not_wanted_or_not_on_a_terminal_stays_hidden() {
        let b = Bar::new(3, false);
        b.inc();
        b.set_message("x");
        b.set_sub(1, 2);
        assert!(!b.is_drawn());
        // The tests' stderr is captured, not a terminal.
        if !std::io::stderr().is_terminal() {
            assert!(!Bar::new(3, true).is_drawn());
        }
    }

    #[test]
    fn the_template_is_valid() {
        let b = Bar::with_target(5, true);
        assert!(b.is_drawn() || !std::io::stderr().is_terminal());
        b.inc_by(2);
        b.set_message("MP.litmus");
        assert_eq!(b.pb.position(), 2);
        assert_eq!(b.pb.message(), "MP.litmus");
        b.finish();
    }
}
