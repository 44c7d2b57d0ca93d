//! Loading PTX through the driver's JIT, with its error and info logs so a
//! ptxas failure is reported verbatim.

use super::error::DriverError;
use super::ffi::{func_attr, jit, CuFunction, CuModule, Driver};
use std::ffi::{c_int, c_void, CString};

const LOG_BYTES: usize = 64 * 1024;

/// `cuModuleLoadDataEx` on `ptx`, compiled so that blocks of
/// `threads_per_block` fit (the JIT limits registers accordingly). The
/// error names the call, the CUDA error and carries the JIT's error log as
/// it wrote it.
pub fn load_module(
    driver: &Driver,
    ptx: &str,
    threads_per_block: u32,
) -> Result<(CuModule, String), String> {
    let image = CString::new(ptx).map_err(|_| "the PTX text contains a NUL byte".to_string())?;
    let mut info = vec![0u8; LOG_BYTES];
    let mut error = vec![0u8; LOG_BYTES];
    let mut options: [c_int; 5] = [
        jit::THREADS_PER_BLOCK,
        jit::INFO_LOG_BUFFER,
        jit::INFO_LOG_BUFFER_SIZE_BYTES,
        jit::ERROR_LOG_BUFFER,
        jit::ERROR_LOG_BUFFER_SIZE_BYTES,
    ];
    // Numbers are passed in the pointer-sized option values themselves, as
    // the driver API specifies for these options.
    let mut values: [*mut c_void; 5] = [
        threads_per_block as usize as *mut c_void,
        info.as_mut_ptr().cast(),
        LOG_BYTES as *mut c_void,
        error.as_mut_ptr().cast(),
        LOG_BYTES as *mut c_void,
    ];
    let mut module: CuModule = std::ptr::null_mut();
    // SAFETY: the image is NUL-terminated; the option arrays have 5
    // entries each; the log buffers outlive the call and their sizes are
    // the ones given.
    let code = unsafe {
        (driver.cu_module_load_data_ex)(
            &mut module,
            image.as_ptr().cast(),
            options.len() as u32,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
        )
    };
    let info = log_text(&info);
    if code != 0 {
        let e = DriverError::new(Some(driver), "cuModuleLoadDataEx", code);
        let log = log_text(&error);
        let mut message = e.to_string();
        if !log.is_empty() {
            message.push_str("\nJIT error log:\n");
            message.push_str(&log);
        }
        if !info.is_empty() {
            message.push_str("\nJIT info log:\n");
            message.push_str(&info);
        }
        return Err(message);
    }
    Ok((module, info))
}

/// The kernel `name` of `module`.
pub fn function(driver: &Driver, module: CuModule, name: &str) -> Result<CuFunction, String> {
    let cname = CString::new(name).map_err(|_| format!("kernel name {name:?} contains NUL"))?;
    let mut f: CuFunction = std::ptr::null_mut();
    // SAFETY: valid module handle, NUL-terminated name, valid out-pointer.
    let code = unsafe { (driver.cu_module_get_function)(&mut f, module, cname.as_ptr()) };
    if code != 0 {
        return Err(format!(
            "{} (kernel {name})",
            DriverError::new(Some(driver), "cuModuleGetFunction", code)
        ));
    }
    Ok(f)
}

/// How many threads per block `f` can run with (its registers decide), and
/// its registers per thread.
pub fn limits(driver: &Driver, f: CuFunction) -> Result<(u32, u32), String> {
    let get = |attribute: c_int, what: &'static str| {
        let mut v: c_int = 0;
        // SAFETY: valid function handle and out-pointer.
        let code = unsafe { (driver.cu_func_get_attribute)(&mut v, attribute, f) };
        if code != 0 {
            return Err(DriverError::new(Some(driver), what, code).to_string());
        }
        Ok(v.max(0) as u32)
    };
    Ok((
        get(
            func_attr::MAX_THREADS_PER_BLOCK,
            "cuFuncGetAttribute(MAX_THREADS_PER_BLOCK)",
        )?,
        get(func_attr::NUM_REGS, "cuFuncGetAttribute(NUM_REGS)")?,
    ))
}

/// The text of a NUL-terminated log buffer, trimmed.
fn log_text(buf: &[u8]) -> String {
    let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).trim().to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn logs_end_at_their_nul() {
        let mut buf = b"ptxas error   : line 3\n".to_vec();
        buf.extend([0, b'x', b'y']);
        assert_eq!(super::log_text(&buf), "ptxas error   : line 3");
        assert_eq!(super::log_text(&[0; 4]), "");
    }
}
