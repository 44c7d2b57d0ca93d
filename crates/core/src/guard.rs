//! Resource guards: a wall-clock deadline and a memory budget for one
//! check (`--timeout`, `--max-memory`).
//!
//! The driver enters a [`Guard`] for the duration of a check; the engines'
//! loops call [`check`] (deadline, and the process's resident size where
//! the process checks one test at a time) and, before building something
//! large, [`check_estimate`] with the bytes it would need. A tripped guard
//! is an [`ErrorKind::Limit`] error: the driver reports verdict `UNKNOWN`
//! with the reason (and `--engine auto` tries the other engine first).
//!
//! The guard lives in a thread-local so that deep loops reach it without
//! threading it through every signature; the engines are single-threaded.
//! With no guard entered (the library API by default) every check passes.

use crate::diag::{Error, ErrorKind, Result};
use std::cell::RefCell;
use std::marker::PhantomData;
use std::time::{Duration, Instant};

/// Default `--timeout` of the CLI, seconds per test.
pub const DEFAULT_TIMEOUT_S: f64 = 300.0;
/// Default `--max-memory` of the CLI, MiB per test.
pub const DEFAULT_MAX_MEMORY_MB: u64 = 4096;

/// How often, at most, the resident size is read (it costs a small file
/// read from `/proc`).
const RESIDENT_PERIOD: Duration = Duration::from_millis(10);

const MIB: u64 = 1 << 20;

/// The limits of one check.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Limits {
    /// Wall-clock seconds for the whole check (both engines under `auto`).
    pub timeout_s: Option<f64>,
    /// Memory budget, MiB.
    pub max_memory_mb: Option<u64>,
    /// Also compare the process's resident size with the budget. Only
    /// meaningful where the process runs one check at a time (the isolated
    /// worker, `gpumc::isolate`); in a shared process the budget is checked
    /// against the estimates of what each engine builds.
    pub resident: bool,
}

impl Limits {
    /// No limits (the library's default).
    pub fn none() -> Limits {
        Limits::default()
    }
}

/// `start` plus `secs` seconds; `None` for no positive time, and for a
/// time too long to represent (`--timeout 1e20`: in effect no limit),
/// which `Duration::from_secs_f64` and `Instant + Duration` would panic on.
pub fn after(start: Instant, secs: f64) -> Option<Instant> {
    if !(secs.is_finite() && secs > 0.0) {
        return None;
    }
    start.checked_add(Duration::try_from_secs_f64(secs).ok()?)
}

/// The deadline and budget of one running check (or of one engine's share
/// of it).
#[derive(Clone, Debug)]
pub struct Guard {
    start: Instant,
    deadline: Option<Instant>,
    /// Bytes.
    budget: Option<u64>,
    /// The budget is what the process's `ulimit -v` leaves, below
    /// `--max-memory`.
    by_ulimit: bool,
    resident: bool,
}

impl Guard {
    /// A guard for a check that started at `start`. The budget is lowered
    /// to what the process's own address-space limit (`ulimit -v`) leaves,
    /// so that an estimate trips before an allocation fails.
    pub fn new(limits: &Limits, start: Instant) -> Guard {
        let asked = limits.max_memory_mb.map(|m| m.saturating_mul(MIB));
        let headroom = address_space_headroom();
        let by_ulimit = headroom.is_some_and(|h| asked.is_none_or(|b| h < b));
        let budget = if by_ulimit { headroom } else { asked };
        Guard {
            start,
            deadline: limits.timeout_s.and_then(|t| after(start, t)),
            budget,
            by_ulimit,
            resident: limits.resident,
        }
    }

    /// No deadline, no budget.
    pub fn unlimited() -> Guard {
        Guard {
            start: Instant::now(),
            deadline: None,
            budget: None,
            by_ulimit: false,
            resident: false,
        }
    }

    /// This guard with its deadline moved to `share` of the time left from
    /// now (the first engine's share under `--engine auto`).
    pub fn share(&self, share: f64) -> Guard {
        let now = Instant::now();
        let mut g = self.clone();
        g.start = now;
        g.deadline = self
            .deadline
            .map(|d| now + d.saturating_duration_since(now).mul_f64(share));
        g
    }

    /// The same guard, its clock restarted now (the deadline is kept).
    pub fn restarted(&self) -> Guard {
        let mut g = self.clone();
        g.start = Instant::now();
        g
    }

    pub fn budget_mb(&self) -> Option<u64> {
        self.budget.map(|b| b / MIB)
    }

    fn timeout_error(&self, now: Instant) -> Error {
        let limit = self
            .deadline
            .map_or(0.0, |d| d.duration_since(self.start).as_secs_f64());
        Error::new(
            ErrorKind::Limit,
            format!(
                "timeout: stopped after {:.1} s (limit {:.1} s)",
                now.duration_since(self.start).as_secs_f64(),
                limit
            ),
        )
    }

    /// `what` says how much, e.g. "the formula needs about 900 MiB".
    fn memory_error(&self, what: String) -> Error {
        Error::new(
            ErrorKind::Limit,
            format!(
                "out of memory: {what}, over the budget of {} MiB ({})",
                self.budget_mb().unwrap_or(0),
                match self.by_ulimit {
                    true => "what the process's ulimit -v leaves",
                    false => "--max-memory",
                }
            ),
        )
    }
}

struct Active {
    guard: Guard,
    next_resident: Instant,
}

thread_local! {
    static ACTIVE: RefCell<Option<Active>> = const { RefCell::new(None) };
}

/// While alive, `guard` is the current thread's guard; dropping it
/// restores the previous one.
pub struct Scope {
    prev: Option<Active>,
    // Tied to the thread whose guard it replaced.
    _not_send: PhantomData<*const ()>,
}

/// Makes `guard` the current thread's guard until the scope is dropped.
pub fn enter(guard: Guard) -> Scope {
    let now = Instant::now();
    let prev = ACTIVE.with(|a| {
        a.borrow_mut().replace(Active {
            guard,
            next_resident: now,
        })
    });
    Scope {
        prev,
        _not_send: PhantomData,
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        let prev = self.prev.take();
        ACTIVE.with(|a| *a.borrow_mut() = prev);
    }
}

/// The current thread's guard (or none) with its deadline moved to
/// `share` of the time left from now — but to `floor` from now where that
/// is more and within a quarter of the time left — and to no later than
/// `cap` from now: the budget of an attempt that may give way to another
/// way of checking. (The floor keeps an attempt made within another short
/// attempt worth making.)
pub fn share_current(share: f64, floor: Duration, cap: Duration) -> Guard {
    let g = ACTIVE
        .with(|a| a.borrow().as_ref().map(|a| a.guard.clone()))
        .unwrap_or_else(Guard::unlimited);
    let now = Instant::now();
    let share = match g.deadline {
        Some(d) => {
            let left = d.saturating_duration_since(now).as_secs_f64();
            let floor = floor.as_secs_f64().min(left / 4.0);
            if left > 0.0 {
                share.max(floor / left)
            } else {
                share
            }
        }
        None => share,
    };
    let mut g = g.share(share);
    let latest = g.start + cap;
    g.deadline = Some(g.deadline.map_or(latest, |d| d.min(latest)));
    g
}

/// Whether `e` is a guard's deadline passing (not its memory budget).
pub fn is_timeout(e: &Error) -> bool {
    e.kind == ErrorKind::Limit && e.message.starts_with("timeout:")
}

/// Whether a guard with some limit is in force on this thread.
pub fn active() -> bool {
    ACTIVE.with(|a| {
        a.borrow()
            .as_ref()
            .is_some_and(|a| a.guard.deadline.is_some() || a.guard.budget.is_some())
    })
}

/// Fails once the deadline has passed or (in a worker) the resident size
/// exceeds the budget. Cheap enough for every iteration of an outer loop.
pub fn check() -> Result<()> {
    ACTIVE.with(|a| {
        let mut a = a.borrow_mut();
        let Some(a) = a.as_mut() else {
            return Ok(());
        };
        if a.guard.deadline.is_none() && !a.guard.resident {
            return Ok(());
        }
        let now = Instant::now();
        if a.guard.deadline.is_some_and(|d| now >= d) {
            return Err(a.guard.timeout_error(now));
        }
        if let (true, Some(budget)) = (a.guard.resident, a.guard.budget) {
            if now >= a.next_resident {
                a.next_resident = now + RESIDENT_PERIOD;
                if let Some(rss) = resident_bytes() {
                    if rss > budget {
                        let held = format!("the check holds {} MiB", rss.div_ceil(MIB));
                        return Err(a.guard.memory_error(held));
                    }
                }
            }
        }
        Ok(())
    })
}

/// Fails when building something estimated at `bytes` (on top of what is
/// already resident, where that is measured) would exceed the budget;
/// `what` names it in the message. Also does [`check`].
pub fn check_estimate(bytes: u64, what: &str) -> Result<()> {
    check()?;
    ACTIVE.with(|a| {
        let a = a.borrow();
        let Some(a) = a.as_ref() else {
            return Ok(());
        };
        match a.guard.budget {
            Some(budget) if bytes > budget => {
                let need = format!("{what} needs about {} MiB", bytes.div_ceil(MIB));
                Err(a.guard.memory_error(need))
            }
            _ => Ok(()),
        }
    })
}

/// Bytes resident in this process (Linux), if known.
pub fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * page_size())
}

/// Bytes of address space this process has mapped (Linux), if known.
pub fn mapped_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().next()?.parse().ok()?;
    Some(pages * page_size())
}

fn page_size() -> u64 {
    #[cfg(unix)]
    {
        // SAFETY: sysconf has no preconditions.
        let s = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        if s > 0 {
            return s as u64;
        }
    }
    4096
}

/// What the process's address-space limit leaves above what is mapped
/// now; `None` without a limit.
fn address_space_headroom() -> Option<u64> {
    let limit = address_space_limit()?;
    Some(limit.saturating_sub(mapped_bytes().unwrap_or(0)))
}

/// The soft `RLIMIT_AS` of this process, if finite.
pub fn address_space_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        let mut r = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: `r` is a valid rlimit to write to.
        if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut r) } == 0
            && r.rlim_cur != libc::RLIM_INFINITY
        {
            // `rlim_t` is not `u64` on every Unix.
            #[allow(clippy::unnecessary_cast)]
            return Some(r.rlim_cur as u64);
        }
    }
    None
}

/// Returns freed heap memory to the system (glibc keeps it otherwise), so
/// that the resident size measures the next check, not the last one. Only
/// above [`TRIM_ABOVE`]: trimming after every small check costs more in
/// page faults than the check itself.
pub fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if resident_bytes().is_some_and(|r| r > TRIM_ABOVE) {
        // SAFETY: malloc_trim only walks the allocator's own free lists.
        unsafe {
            libc::malloc_trim(0);
        }
    }
}

/// Resident size above which [`release_freed_memory`] trims the heap.
const TRIM_ABOVE: u64 = 256 * MIB;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_guard_passes() {
        assert!(!active());
        assert!(check().is_ok());
        assert!(check_estimate(u64::MAX, "anything").is_ok());
    }

    #[test]
    fn deadline_trips_and_scope_restores() {
        let limits = Limits {
            timeout_s: Some(0.001),
            ..Limits::none()
        };
        {
            let _s = enter(Guard::new(&limits, Instant::now()));
            assert!(active());
            std::thread::sleep(Duration::from_millis(5));
            let e = check().unwrap_err();
            assert_eq!(e.kind, ErrorKind::Limit);
            assert!(e.message.starts_with("timeout:"), "{e}");
        }
        assert!(!active());
        assert!(check().is_ok());
    }

    #[test]
    fn estimate_over_budget_trips() {
        let limits = Limits {
            max_memory_mb: Some(10),
            ..Limits::none()
        };
        let _s = enter(Guard::new(&limits, Instant::now()));
        assert!(check_estimate(5 * MIB, "small").is_ok());
        let e = check_estimate(20 * MIB, "the formula").unwrap_err();
        assert_eq!(e.kind, ErrorKind::Limit);
        assert!(e.message.contains("the formula needs about 20 MiB"), "{e}");
    }

    #[test]
    fn share_moves_the_deadline_earlier() {
        let start = Instant::now();
        let limits = Limits {
            timeout_s: Some(100.0),
            ..Limits::none()
        };
        let g = Guard::new(&limits, start);
        let half = g.share(0.5);
        let d = half.deadline.unwrap().duration_since(start).as_secs_f64();
        assert!((49.0..=51.0).contains(&d), "{d}");
    }

    #[test]
    fn a_timeout_too_long_to_represent_is_no_deadline() {
        let start = Instant::now();
        for t in [1e20, 1.8e19, f64::MAX] {
            let limits = Limits {
                timeout_s: Some(t),
                ..Limits::none()
            };
            assert!(Guard::new(&limits, start).deadline.is_none(), "{t}");
        }
        assert!(after(start, 2.0).is_some());
        assert!(after(start, 0.0).is_none());
    }
}
