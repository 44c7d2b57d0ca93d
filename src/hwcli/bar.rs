//! A progress bar on stderr for long hardware runs: tests done, the test
//! running and its launches. Drawn only when stderr is a terminal and the
//! output is not JSON; output lines are printed above it.

use std::cell::RefCell;
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

pub struct Bar {
    enabled: bool,
    state: RefCell<State>,
}

struct State {
    total: u64,
    done: u64,
    message: String,
    sub: Option<(u64, u64)>,
    drawn: bool,
    last: Option<Instant>,
}

impl Bar {
    pub fn new(total: u64, wanted: bool) -> Bar {
        Bar {
            enabled: wanted && std::io::stderr().is_terminal(),
            state: RefCell::new(State {
                total,
                done: 0,
                message: String::new(),
                sub: None,
                drawn: false,
                last: None,
            }),
        }
    }

    /// The line as drawn (without control characters).
    fn line(s: &State) -> String {
        let width = 24;
        let filled = (width as u64 * s.done / s.total.max(1)) as usize;
        let sub = s
            .sub
            .map(|(n, t)| format!(" launch {n}/{t}"))
            .unwrap_or_default();
        format!(
            "[{}{}] {}/{} {}{}",
            "#".repeat(filled),
            " ".repeat(width - filled),
            s.done,
            s.total,
            s.message,
            sub
        )
    }

    fn draw(&self, force: bool) {
        if !self.enabled {
            return;
        }
        let mut s = self.state.borrow_mut();
        // Redraw at most every 50 ms unless something big changed.
        if !force
            && s.last
                .is_some_and(|t| t.elapsed() < Duration::from_millis(50))
        {
            return;
        }
        let line: String = Self::line(&s).chars().take(100).collect();
        eprint!("\r\x1b[2K{line}");
        let _ = std::io::stderr().flush();
        s.drawn = true;
        s.last = Some(Instant::now());
    }

    fn clear(&self) {
        let mut s = self.state.borrow_mut();
        if self.enabled && s.drawn {
            eprint!("\r\x1b[2K");
            let _ = std::io::stderr().flush();
            s.drawn = false;
        }
    }

    pub fn set_message(&self, m: &str) {
        {
            let mut s = self.state.borrow_mut();
            s.message = m.to_string();
            s.sub = None;
        }
        self.draw(true);
    }

    pub fn set_sub(&self, n: u64, total: u64) {
        self.state.borrow_mut().sub = Some((n, total));
        self.draw(n == total);
    }

    pub fn inc(&self) {
        self.state.borrow_mut().done += 1;
        self.draw(true);
    }

    /// Runs `f` (which prints) with the bar cleared, then redraws it.
    pub fn suspend(&self, f: impl FnOnce()) {
        self.clear();
        f();
        self.draw(true);
    }

    pub fn finish(&self) {
        self.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_shows_progress_and_the_launch() {
        let s = State {
            total: 4,
            done: 2,
            message: "2/4 MP.litmus".into(),
            sub: Some((30, 100)),
            drawn: false,
            last: None,
        };
        let l = Bar::line(&s);
        assert!(
            l.starts_with("[############            ] 2/4 2/4 MP.litmus launch 30/100"),
            "{l}"
        );
    }

    #[test]
    fn a_bar_not_on_a_terminal_stays_silent() {
        let b = Bar::new(3, false);
        b.inc();
        b.set_sub(1, 2);
        assert!(!b.enabled);
    }
}
