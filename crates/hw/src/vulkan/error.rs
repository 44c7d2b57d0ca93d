//! Vulkan results as messages naming the failing call, and as the
//! backend's `LaunchError`s.

use crate::backend::LaunchError;
use ash::vk;
use std::time::Duration;

/// `map_err` adapter: "vkCreateBuffer: ERROR_OUT_OF_DEVICE_MEMORY (A
/// device memory allocation has failed)": the code and its description.
pub fn call(name: &'static str) -> impl Fn(vk::Result) -> String {
    move |r| describe(name, r)
}

fn describe(name: &str, r: vk::Result) -> String {
    let code = format!("{r:?}");
    let text = r.to_string();
    if text == code {
        format!("{name}: {code}")
    } else {
        format!("{name}: {code} ({text})")
    }
}

/// What a failed call during a launch means for the caller: a lost
/// device and an expired wait need a reset, anything else is reported.
pub fn launch_error(name: &'static str, r: vk::Result, watchdog: Duration) -> LaunchError {
    match r {
        vk::Result::TIMEOUT => LaunchError::Timeout(watchdog),
        vk::Result::ERROR_DEVICE_LOST => LaunchError::DeviceLost(describe(name, r)),
        other => LaunchError::Failed(describe(name, other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_and_lost_devices_need_a_reset() {
        let w = Duration::from_millis(1500);
        assert_eq!(
            launch_error("vkWaitForFences", vk::Result::TIMEOUT, w),
            LaunchError::Timeout(w)
        );
        assert!(matches!(
            launch_error("vkQueueSubmit", vk::Result::ERROR_DEVICE_LOST, w),
            LaunchError::DeviceLost(m) if m.starts_with("vkQueueSubmit")
        ));
        assert!(matches!(
            launch_error("vkQueueSubmit", vk::Result::ERROR_OUT_OF_DEVICE_MEMORY, w),
            LaunchError::Failed(m) if m.contains("vkQueueSubmit") && m.contains("OUT_OF_DEVICE_MEMORY")
        ));
    }

    #[test]
    fn messages_name_the_call() {
        let m = call("vkCreateBuffer")(vk::Result::ERROR_OUT_OF_HOST_MEMORY);
        assert!(m.starts_with("vkCreateBuffer: "), "{m}");
    }
}
