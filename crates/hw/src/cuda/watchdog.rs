//! Waiting for a launch with a time limit: the stream is polled rather than
//! synchronised, so a kernel that never finishes cannot hang the host.

use super::error::DriverError;
use crate::backend::LaunchError;
use std::time::{Duration, Instant};

/// Polls `done` (Ok(true): finished, Ok(false): still running) until it
/// finishes, fails, or `limit` has passed. The pause between polls grows
/// from 20 µs to 1 ms: short launches return quickly, long ones cost
/// little CPU.
pub fn wait(
    mut done: impl FnMut() -> Result<bool, DriverError>,
    limit: Duration,
) -> Result<(), LaunchError> {
    let start = Instant::now();
    let mut pause = Duration::from_micros(20);
    loop {
        match done() {
            Ok(true) => return Ok(()),
            Ok(false) => {}
            Err(e) => return Err(e.into_launch_error()),
        }
        if start.elapsed() >= limit {
            return Err(LaunchError::Timeout(limit));
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finished_launch_returns() {
        let mut polls = 0;
        let r = wait(
            || {
                polls += 1;
                Ok(polls == 3)
            },
            Duration::from_secs(5),
        );
        assert_eq!(r, Ok(()));
        assert_eq!(polls, 3);
    }

    #[test]
    fn a_launch_that_never_ends_times_out() {
        let start = Instant::now();
        let r = wait(|| Ok(false), Duration::from_millis(30));
        assert_eq!(r, Err(LaunchError::Timeout(Duration::from_millis(30))));
        assert!(start.elapsed() >= Duration::from_millis(30));
        assert!(start.elapsed() < Duration::from_secs(2));
    }

    #[test]
    fn a_fault_loses_the_device_and_other_errors_fail() {
        let r = wait(
            || Err(DriverError::new(None, "cuStreamQuery", 700)),
            Duration::from_secs(1),
        );
        assert!(
            matches!(r, Err(LaunchError::DeviceLost(m)) if m.contains("CUDA_ERROR_ILLEGAL_ADDRESS"))
        );
        let r = wait(
            || Err(DriverError::new(None, "cuStreamQuery", 201)),
            Duration::from_secs(1),
        );
        assert!(matches!(r, Err(LaunchError::Failed(_))));
    }
}
