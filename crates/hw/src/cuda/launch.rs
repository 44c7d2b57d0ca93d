//! One launch: buffers sized and filled, the kernel queued between two
//! events, the watchdog's wait, the results copied back.

use super::buffers::Buffers;
use super::error::{check, DriverError};
use super::ffi::{
    CuDevicePtr, CuEvent, CuFunction, CuStream, Driver, CUDA_ERROR_NOT_READY, CUDA_SUCCESS,
};
use super::watchdog;
use crate::abi::*;
use crate::backend::{Launch, LaunchError, LaunchOutput};
use std::ffi::c_void;
use std::time::Duration;

/// What a compiled kernel expects of a launch.
pub struct Shape {
    pub function: CuFunction,
    pub cfg: KernelConfig,
    pub row_words: usize,
    pub uses_shared: bool,
}

/// The stream and the events around the kernel.
pub struct Queue {
    pub stream: CuStream,
    pub start: CuEvent,
    pub end: CuEvent,
}

impl Shape {
    /// Refuses a launch whose buffers do not match the kernel: the kernel
    /// would read or write outside them.
    pub fn check(&self, launch: &Launch<'_>, max_workgroups: u32) -> Result<(), LaunchError> {
        launch.check_shape(&self.cfg, self.row_words, self.uses_shared, max_workgroups)
    }
}

fn upload(driver: &Driver, dst: CuDevicePtr, words: &[u32]) -> Result<(), DriverError> {
    if words.is_empty() {
        return Ok(());
    }
    // SAFETY: `dst` holds at least `words.len()` words (Buffers::ensure).
    check(driver, "cuMemcpyHtoD", unsafe {
        (driver.cu_memcpy_htod)(dst, words.as_ptr().cast(), std::mem::size_of_val(words))
    })
}

fn download(driver: &Driver, src: CuDevicePtr, words: usize) -> Result<Vec<u32>, DriverError> {
    let mut out = vec![0u32; words];
    if words == 0 {
        return Ok(out);
    }
    // SAFETY: `src` holds at least `words` words; `out` has room for them.
    check(driver, "cuMemcpyDtoH", unsafe {
        (driver.cu_memcpy_dtoh)(out.as_mut_ptr().cast(), src, words * 4)
    })?;
    Ok(out)
}

fn zero(driver: &Driver, dst: CuDevicePtr, words: usize) -> Result<(), DriverError> {
    if words == 0 {
        return Ok(());
    }
    // SAFETY: `dst` holds at least `words` words.
    check(driver, "cuMemsetD32", unsafe {
        (driver.cu_memset_d32)(dst, 0, words)
    })
}

pub fn run(
    driver: &Driver,
    buffers: &mut Buffers,
    shape: &Shape,
    queue: Queue,
    launch: &Launch<'_>,
    watchdog_limit: Duration,
) -> Result<LaunchOutput, LaunchError> {
    let lost = DriverError::into_launch_error;
    let sizes: [(u32, usize); BUFFERS as usize] = [
        (BIND_MEM, launch.mem.len()),
        (BIND_TABLE, launch.table.len()),
        (BIND_RESULTS, launch.results_words),
        (BIND_SYNC, launch.sync_words),
        (BIND_STRESS, launch.stress_words),
        (BIND_PARAMS, PARAM_WORDS),
        (BIND_SHARED_IO, launch.shared_io.len()),
    ];
    let mut args: [CuDevicePtr; BUFFERS as usize] = [0; BUFFERS as usize];
    for (binding, words) in sizes {
        args[binding as usize] = buffers.ensure(driver, binding, words).map_err(lost)?;
    }
    upload(driver, args[BIND_MEM as usize], launch.mem).map_err(lost)?;
    upload(driver, args[BIND_TABLE as usize], launch.table).map_err(lost)?;
    upload(driver, args[BIND_PARAMS as usize], launch.params).map_err(lost)?;
    upload(driver, args[BIND_SHARED_IO as usize], launch.shared_io).map_err(lost)?;
    zero(driver, args[BIND_RESULTS as usize], launch.results_words).map_err(lost)?;
    zero(driver, args[BIND_SYNC as usize], launch.sync_words).map_err(lost)?;

    let mut arg_ptrs: [*mut c_void; BUFFERS as usize] = [std::ptr::null_mut(); BUFFERS as usize];
    for (p, a) in arg_ptrs.iter_mut().zip(args.iter_mut()) {
        *p = (a as *mut CuDevicePtr).cast();
    }
    // SAFETY: the function takes 7 `.u64` parameters, each pointed to by
    // `arg_ptrs` (alive until the launch is queued); stream and events
    // belong to the current context. The copies above ran on the legacy
    // default stream, which a blocking stream (flags 0) waits for.
    unsafe {
        check(
            driver,
            "cuEventRecord",
            (driver.cu_event_record)(queue.start, queue.stream),
        )
        .map_err(lost)?;
        check(
            driver,
            "cuLaunchKernel",
            (driver.cu_launch_kernel)(
                shape.function,
                launch.workgroups,
                1,
                1,
                shape.cfg.workgroup_size,
                1,
                1,
                0,
                queue.stream,
                arg_ptrs.as_mut_ptr(),
                std::ptr::null_mut(),
            ),
        )
        .map_err(lost)?;
        check(
            driver,
            "cuEventRecord",
            (driver.cu_event_record)(queue.end, queue.stream),
        )
        .map_err(lost)?;
    }
    watchdog::wait(
        || {
            // SAFETY: a stream of the current context.
            match unsafe { (driver.cu_stream_query)(queue.stream) } {
                CUDA_SUCCESS => Ok(true),
                CUDA_ERROR_NOT_READY => Ok(false),
                code => Err(DriverError::new(Some(driver), "cuStreamQuery", code)),
            }
        },
        watchdog_limit,
    )?;
    let mut ms: f32 = 0.0;
    // SAFETY: both events completed (the stream is idle).
    let device_time = unsafe {
        (driver.cu_event_elapsed_time)(&mut ms, queue.start, queue.end) == 0 && ms >= 0.0
    }
    .then(|| Duration::from_secs_f64(f64::from(ms) / 1000.0));
    Ok(LaunchOutput {
        mem: download(driver, args[BIND_MEM as usize], launch.mem.len()).map_err(lost)?,
        results: download(driver, args[BIND_RESULTS as usize], launch.results_words)
            .map_err(lost)?,
        shared_io: if shape.uses_shared {
            download(
                driver,
                args[BIND_SHARED_IO as usize],
                launch.shared_io.len(),
            )
            .map_err(lost)?
        } else {
            vec![]
        },
        device_time,
    })
}
