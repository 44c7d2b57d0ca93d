//! CUDA driver errors: their names, what they mean for the backend (a
//! sticky error loses the context), and the messages that name the call.

use super::ffi::{CuResult, Driver};
use crate::backend::LaunchError;
use std::ffi::{c_char, CStr};

/// A failed driver call: which call, the `CUresult`, and the driver's own
/// name and description of it when it could give them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DriverError {
    pub call: &'static str,
    pub code: CuResult,
    pub name: String,
    pub description: String,
}

impl std::fmt::Display for DriverError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} failed: {} ({})", self.call, self.name, self.code)?;
        if !self.description.is_empty() {
            write!(f, ": {}", self.description)?;
        }
        Ok(())
    }
}

impl DriverError {
    /// The error of `call` returning `code`, described by the driver when
    /// `driver` is given, else by this module's table of names.
    pub fn new(driver: Option<&Driver>, call: &'static str, code: CuResult) -> Self {
        let (mut name, mut description) = (String::new(), String::new());
        if let Some(d) = driver {
            name = driver_text(d.cu_get_error_name, code);
            description = driver_text(d.cu_get_error_string, code);
        }
        if name.is_empty() {
            name = error_name(code).to_string();
        }
        DriverError {
            call,
            code,
            name,
            description,
        }
    }

    /// Whether the context is unusable after this error and must be
    /// recreated ([`is_sticky`]).
    pub fn is_sticky(&self) -> bool {
        is_sticky(self.code)
    }

    /// The launch error this is: sticky errors lose the device.
    pub fn into_launch_error(self) -> LaunchError {
        if self.is_sticky() {
            LaunchError::DeviceLost(self.to_string())
        } else {
            LaunchError::Failed(self.to_string())
        }
    }
}

fn driver_text(
    f: unsafe extern "C" fn(CuResult, *mut *const c_char) -> CuResult,
    code: CuResult,
) -> String {
    let mut text: *const c_char = std::ptr::null();
    // SAFETY: the driver writes a pointer to a static NUL-terminated
    // string, or fails (an unknown code) and leaves it null.
    unsafe {
        if f(code, &mut text) != 0 || text.is_null() {
            return String::new();
        }
        CStr::from_ptr(text).to_string_lossy().into_owned()
    }
}

/// Errors after which the context cannot be used again (the driver API
/// reference: "the context cannot be used, so it must be destroyed" /
/// "the process is left in an inconsistent state"): faults and traps of a
/// kernel, a launch the driver killed, uncorrectable memory errors.
pub fn is_sticky(code: CuResult) -> bool {
    matches!(
        code,
        214 // ECC_UNCORRECTABLE
            | 220 // NVLINK_UNCORRECTABLE
            | 700 // ILLEGAL_ADDRESS
            | 702 // LAUNCH_TIMEOUT
            | 709 // CONTEXT_IS_DESTROYED
            | 710 // ASSERT
            | 714 // HARDWARE_STACK_ERROR
            | 715 // ILLEGAL_INSTRUCTION
            | 716 // MISALIGNED_ADDRESS
            | 717 // INVALID_ADDRESS_SPACE
            | 718 // INVALID_PC
            | 719 // LAUNCH_FAILED
            | 999 // UNKNOWN
    )
}

/// `CUresult` names (`cuda.h`), for messages when the driver cannot be
/// asked (it failed to load, or does not know the code).
pub fn error_name(code: CuResult) -> &'static str {
    match code {
        0 => "CUDA_SUCCESS",
        1 => "CUDA_ERROR_INVALID_VALUE",
        2 => "CUDA_ERROR_OUT_OF_MEMORY",
        3 => "CUDA_ERROR_NOT_INITIALIZED",
        4 => "CUDA_ERROR_DEINITIALIZED",
        34 => "CUDA_ERROR_STUB_LIBRARY",
        46 => "CUDA_ERROR_DEVICE_UNAVAILABLE",
        100 => "CUDA_ERROR_NO_DEVICE",
        101 => "CUDA_ERROR_INVALID_DEVICE",
        200 => "CUDA_ERROR_INVALID_IMAGE",
        201 => "CUDA_ERROR_INVALID_CONTEXT",
        209 => "CUDA_ERROR_NO_BINARY_FOR_GPU",
        214 => "CUDA_ERROR_ECC_UNCORRECTABLE",
        218 => "CUDA_ERROR_INVALID_PTX",
        220 => "CUDA_ERROR_NVLINK_UNCORRECTABLE",
        221 => "CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
        222 => "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
        223 => "CUDA_ERROR_JIT_COMPILATION_DISABLED",
        400 => "CUDA_ERROR_INVALID_HANDLE",
        500 => "CUDA_ERROR_NOT_FOUND",
        600 => "CUDA_ERROR_NOT_READY",
        700 => "CUDA_ERROR_ILLEGAL_ADDRESS",
        701 => "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
        702 => "CUDA_ERROR_LAUNCH_TIMEOUT",
        709 => "CUDA_ERROR_CONTEXT_IS_DESTROYED",
        710 => "CUDA_ERROR_ASSERT",
        714 => "CUDA_ERROR_HARDWARE_STACK_ERROR",
        715 => "CUDA_ERROR_ILLEGAL_INSTRUCTION",
        716 => "CUDA_ERROR_MISALIGNED_ADDRESS",
        717 => "CUDA_ERROR_INVALID_ADDRESS_SPACE",
        718 => "CUDA_ERROR_INVALID_PC",
        719 => "CUDA_ERROR_LAUNCH_FAILED",
        800 => "CUDA_ERROR_NOT_PERMITTED",
        801 => "CUDA_ERROR_NOT_SUPPORTED",
        803 => "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
        999 => "CUDA_ERROR_UNKNOWN",
        _ => "CUDA_ERROR (unknown code)",
    }
}

/// `Ok` for `CUDA_SUCCESS`, else the [`DriverError`] of `call`.
pub fn check(driver: &Driver, call: &'static str, code: CuResult) -> Result<(), DriverError> {
    if code == super::ffi::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(DriverError::new(Some(driver), call, code))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_call_and_the_cuda_error() {
        let e = DriverError::new(None, "cuMemAlloc", 2);
        assert_eq!(
            e.to_string(),
            "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (2)"
        );
        let e = DriverError::new(None, "cuFoo", 12345);
        assert!(e.to_string().contains("unknown code"), "{e}");
    }

    #[test]
    fn kernel_faults_lose_the_device_other_errors_do_not() {
        for code in [700, 702, 715, 716, 719] {
            let e = DriverError::new(None, "cuStreamQuery", code).into_launch_error();
            assert!(matches!(e, LaunchError::DeviceLost(_)), "{code}: {e:?}");
        }
        for code in [1, 2, 201, 218, 701] {
            let e = DriverError::new(None, "cuLaunchKernel", code).into_launch_error();
            assert!(matches!(e, LaunchError::Failed(_)), "{code}: {e:?}");
        }
        let lost = DriverError::new(None, "cuStreamQuery", 700).into_launch_error();
        assert_eq!(
            lost.to_string(),
            "device lost: cuStreamQuery failed: CUDA_ERROR_ILLEGAL_ADDRESS (700)"
        );
    }
}
