//! Initialising the driver and describing its devices.

use super::error::{check, DriverError};
use super::ffi::{attr, CuDevice, Driver, CUDA_ERROR_NO_DEVICE};
use crate::backend::DeviceInfo;
use crate::ptx::target::driver_version_text;
use std::ffi::{c_char, c_int, CStr};

/// One CUDA device as the backend needs it.
#[derive(Clone, Debug)]
pub struct Device {
    pub handle: CuDevice,
    pub info: DeviceInfo,
    /// `(major, minor)`: decides the PTX target.
    pub compute_capability: (u32, u32),
}

/// `cuInit` and `cuDriverGetVersion`. `Ok(None)`: the driver works but
/// sees no device.
pub fn init(driver: &Driver) -> Result<Option<i32>, DriverError> {
    // SAFETY: plain driver calls with valid out-pointers.
    unsafe {
        let code = (driver.cu_init)(0);
        if code == CUDA_ERROR_NO_DEVICE {
            return Ok(None);
        }
        check(driver, "cuInit", code)?;
        let mut version: c_int = 0;
        check(
            driver,
            "cuDriverGetVersion",
            (driver.cu_driver_get_version)(&mut version),
        )?;
        Ok(Some(version))
    }
}

/// Every device the driver sees (after [`init`]).
pub fn all(driver: &Driver, driver_version: i32) -> Result<Vec<Device>, DriverError> {
    let mut count: c_int = 0;
    // SAFETY: valid out-pointer.
    check(driver, "cuDeviceGetCount", unsafe {
        (driver.cu_device_get_count)(&mut count)
    })?;
    (0..count.max(0))
        .map(|ordinal| describe(driver, ordinal, driver_version))
        .collect()
}

fn describe(driver: &Driver, ordinal: c_int, driver_version: i32) -> Result<Device, DriverError> {
    let mut handle: CuDevice = 0;
    // SAFETY: valid out-pointer; the name buffer's length is passed.
    let name = unsafe {
        check(
            driver,
            "cuDeviceGet",
            (driver.cu_device_get)(&mut handle, ordinal),
        )?;
        let mut buf = [0 as c_char; 256];
        check(
            driver,
            "cuDeviceGetName",
            (driver.cu_device_get_name)(buf.as_mut_ptr(), buf.len() as c_int - 1, handle),
        )?;
        CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned()
    };
    let get = |attribute: c_int, what: &'static str| -> Result<u32, DriverError> {
        let mut value: c_int = 0;
        // SAFETY: valid out-pointer and device handle.
        let code = unsafe { (driver.cu_device_get_attribute)(&mut value, attribute, handle) };
        check(driver, what, code)?;
        Ok(value.max(0) as u32)
    };
    let major = get(
        attr::COMPUTE_CAPABILITY_MAJOR,
        "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MAJOR)",
    )?;
    let minor = get(
        attr::COMPUTE_CAPABILITY_MINOR,
        "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MINOR)",
    )?;
    let info = DeviceInfo {
        backend: "cuda".into(),
        name,
        driver: format!(
            "{} driver, compute capability {major}.{minor}",
            driver_version_text(driver_version)
        ),
        subgroup_size: get(attr::WARP_SIZE, "cuDeviceGetAttribute(WARP_SIZE)")?,
        max_workgroup_size: get(
            attr::MAX_THREADS_PER_BLOCK,
            "cuDeviceGetAttribute(MAX_THREADS_PER_BLOCK)",
        )?,
        max_workgroups: get(attr::MAX_GRID_DIM_X, "cuDeviceGetAttribute(MAX_GRID_DIM_X)")?,
        compute_units: Some(get(
            attr::MULTIPROCESSOR_COUNT,
            "cuDeviceGetAttribute(MULTIPROCESSOR_COUNT)",
        )?),
        // Bytes to words; the static `.shared` arrays the generator
        // declares are limited to this (48 KiB) too.
        max_shared_words: get(
            attr::MAX_SHARED_MEMORY_PER_BLOCK,
            "cuDeviceGetAttribute(MAX_SHARED_MEMORY_PER_BLOCK)",
        )? / 4,
        loop_limit: None,
    };
    Ok(Device {
        handle,
        info,
        compute_capability: (major, minor),
    })
}
