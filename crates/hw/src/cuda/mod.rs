//! The CUDA backend: kernels generated as PTX ([`crate::ptx`]), compiled by
//! the driver's JIT and launched through the driver API, which is loaded
//! from `libcuda` at run time ([`loader`]) so nothing CUDA is needed to
//! build. One primary context per backend, one stream, two events for
//! device time, the seven `abi` buffers reused across launches. `reset`
//! resets the device's primary context, so one backend per device and
//! process is the intended use.

mod buffers;
mod device;
mod error;
mod ffi;
mod jit;
mod launch;
pub mod loader;
mod watchdog;

pub use error::{error_name, is_sticky, DriverError};

use crate::abi::KernelConfig;
use crate::backend::{Backend, DeviceInfo, KernelId, Launch, LaunchError, LaunchOutput};
use crate::ptx::{self, PtxTarget};
use crate::spec::KernelSpec;
use buffers::Buffers;
use device::Device;
use error::check;
use ffi::{CuContext, CuEvent, CuFunction, CuModule, CuStream, Driver};
use gpumc_core::diag::{Error, ErrorKind};
use std::collections::HashMap;
use std::time::Duration;

/// Every CUDA device the driver sees. A missing driver is
/// [`loader::NO_DRIVER`]; a driver without devices is an empty list.
pub fn devices() -> Result<Vec<DeviceInfo>, String> {
    let driver = loader::load(&loader::candidates())?;
    let Some(version) = device::init(&driver).map_err(|e| e.to_string())? else {
        return Ok(vec![]);
    };
    let all = device::all(&driver, version).map_err(|e| e.to_string())?;
    Ok(all.into_iter().map(|d| d.info).collect())
}

/// A compiled kernel: its module, entry point and what a launch must match.
struct Kernel {
    module: CuModule,
    function: CuFunction,
    cfg: KernelConfig,
    row_words: usize,
    uses_shared: bool,
    target: PtxTarget,
}

/// The per-context objects, recreated by [`Backend::reset`].
struct Session {
    context: CuContext,
    stream: CuStream,
    start: CuEvent,
    end: CuEvent,
}

/// What a failed reset after a kernel fault adds to the driver's error.
pub const PROCESS_LOST: &str = "the driver keeps this kernel fault for the life of the process, \
     so nothing more runs on the device in it: run gpumc again (with --out DIR, \
     the journal resumes after the tests already run)";

/// [`CudaBackend::new`]'s error where the driver loads but sees no GPU.
pub const NO_DEVICE: &str = "the CUDA driver sees no device";

/// Whether [`CudaBackend::new`]'s error means this machine has no CUDA
/// driver or device (tests skip then) rather than a driver that failed.
pub fn is_unavailable(error: &str) -> bool {
    error.starts_with(loader::NO_DRIVER) || error == NO_DEVICE
}

pub struct CudaBackend {
    driver: Driver,
    driver_version: i32,
    device: Device,
    session: Option<Session>,
    /// Why there is no session after a failed reset (a fault the driver
    /// keeps for the life of the process).
    lost: Option<String>,
    buffers: Buffers,
    kernels: HashMap<u64, Kernel>,
    next_kernel: u64,
}

// SAFETY: the driver API is thread-safe, and every entry point makes the
// backend's context current on the calling thread first, so the handles
// may move between threads with the backend (never shared: `&mut self`).
unsafe impl Send for CudaBackend {}

impl CudaBackend {
    /// Opens device `device` (default 0).
    pub fn new(device: Option<usize>) -> Result<Self, String> {
        let driver = loader::load(&loader::candidates())?;
        let version = device::init(&driver)
            .map_err(|e| e.to_string())?
            .ok_or(NO_DEVICE)?;
        let mut all = device::all(&driver, version).map_err(|e| e.to_string())?;
        let index = device.unwrap_or(0);
        if index >= all.len() {
            return Err(format!(
                "there is no CUDA device {index} (the driver sees {})",
                all.len()
            ));
        }
        let device = all.swap_remove(index);
        let mut backend = CudaBackend {
            driver,
            driver_version: version,
            device,
            session: None,
            lost: None,
            buffers: Buffers::default(),
            kernels: HashMap::new(),
            next_kernel: 1,
        };
        backend.open_session().map_err(|e| e.to_string())?;
        Ok(backend)
    }

    /// The device's compute capability.
    pub fn compute_capability(&self) -> (u32, u32) {
        self.device.compute_capability
    }

    /// The `cuDriverGetVersion` value (1000 × major + 10 × minor).
    pub fn driver_version(&self) -> i32 {
        self.driver_version
    }

    /// The PTX target a compiled kernel was written for.
    pub fn kernel_target(&self, kernel: KernelId) -> Option<PtxTarget> {
        self.kernels.get(&kernel.0).map(|k| k.target)
    }

    /// Whether the driver's JIT accepts `ptx`: loads the module and
    /// unloads it again. The error names the call and carries the JIT's
    /// log verbatim (for checking generated PTX on a device without
    /// running it).
    pub fn jit_check(&mut self, ptx: &str) -> Result<(), String> {
        self.current().map_err(|e| e.to_string())?;
        let (module, _info) = jit::load_module(&self.driver, ptx, 32)?;
        // SAFETY: the module just loaded, unloaded once.
        unsafe { (self.driver.cu_module_unload)(module) };
        Ok(())
    }

    /// Retains the primary context, makes it current, creates the stream
    /// and the events.
    fn open_session(&mut self) -> Result<(), DriverError> {
        let d = &self.driver;
        let mut context: CuContext = std::ptr::null_mut();
        let mut stream: CuStream = std::ptr::null_mut();
        let mut start: CuEvent = std::ptr::null_mut();
        let mut end: CuEvent = std::ptr::null_mut();
        // SAFETY: valid out-pointers; the device handle came from the
        // driver. On failure the objects made so far are released below.
        unsafe {
            check(
                d,
                "cuDevicePrimaryCtxRetain",
                (d.cu_device_primary_ctx_retain)(&mut context, self.device.handle),
            )?;
            let made = check(d, "cuCtxSetCurrent", (d.cu_ctx_set_current)(context))
                .and_then(|_| check(d, "cuStreamCreate", (d.cu_stream_create)(&mut stream, 0)))
                .and_then(|_| check(d, "cuEventCreate", (d.cu_event_create)(&mut start, 0)))
                .and_then(|_| check(d, "cuEventCreate", (d.cu_event_create)(&mut end, 0)));
            if let Err(e) = made {
                if !start.is_null() {
                    (d.cu_event_destroy)(start);
                }
                if !stream.is_null() {
                    (d.cu_stream_destroy)(stream);
                }
                (d.cu_device_primary_ctx_release)(self.device.handle);
                return Err(e);
            }
        }
        self.session = Some(Session {
            context,
            stream,
            start,
            end,
        });
        Ok(())
    }

    /// Frees everything made in the context and releases it, ignoring
    /// errors (after a sticky error every call fails).
    fn close_session(&mut self) {
        let d = &self.driver;
        let Some(s) = self.session.take() else {
            return;
        };
        // SAFETY: handles made by `open_session`/`compile`, each released
        // once; the session is gone afterwards.
        unsafe {
            (d.cu_ctx_set_current)(s.context);
            for (_, k) in self.kernels.drain() {
                (d.cu_module_unload)(k.module);
            }
            self.buffers.free_all(d);
            (d.cu_event_destroy)(s.start);
            (d.cu_event_destroy)(s.end);
            (d.cu_stream_destroy)(s.stream);
            (d.cu_device_primary_ctx_release)(self.device.handle);
        }
    }

    /// The session, current on this thread.
    fn current(&self) -> Result<&Session, DriverError> {
        let Some(s) = &self.session else {
            // The context was lost and could not be recreated.
            let mut e = DriverError::new(None, "cuCtxSetCurrent (no context; reset failed)", 201);
            e.description = self.lost.clone().unwrap_or_default();
            return Err(e);
        };
        // SAFETY: a context retained by `open_session`.
        check(&self.driver, "cuCtxSetCurrent", unsafe {
            (self.driver.cu_ctx_set_current)(s.context)
        })?;
        Ok(s)
    }
}

/// A driver failure while compiling.
fn compile_error(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Io, format!("CUDA: {}", message.into()))
}

impl Backend for CudaBackend {
    fn info(&self) -> &DeviceInfo {
        &self.device.info
    }

    fn compile(
        &mut self,
        spec: &KernelSpec,
        cfg: &KernelConfig,
    ) -> gpumc_core::diag::Result<KernelId> {
        let info = &self.device.info;
        if cfg.workgroup_size > info.max_workgroup_size {
            return Err(ptx::unsupported(format!(
                "workgroups of {} invocations: {} allows at most {}",
                cfg.workgroup_size, info.name, info.max_workgroup_size
            )));
        }
        if spec.uses_shared() && cfg.shared_words > info.max_shared_words {
            return Err(ptx::unsupported(format!(
                "{} words of shared memory: {} allows at most {}",
                cfg.shared_words, info.name, info.max_shared_words
            )));
        }
        let target =
            PtxTarget::for_device(spec, self.device.compute_capability, self.driver_version)?;
        let text = ptx::emit(spec, cfg, &target)?;
        self.current().map_err(|e| compile_error(e.to_string()))?;
        let (module, _info_log) = jit::load_module(&self.driver, &text, cfg.workgroup_size)
            .map_err(|e| compile_error(format!("{}: {e}", spec.name)))?;
        let function = jit::function(&self.driver, module, &ptx::entry_name(spec))
            .map_err(compile_error)
            .and_then(|f| {
                let (max_threads, regs) =
                    jit::limits(&self.driver, f).map_err(compile_error)?;
                if cfg.workgroup_size > max_threads {
                    return Err(ptx::unsupported(format!(
                        "workgroups of {}: with {regs} registers per thread the kernel runs at most {max_threads} threads per block",
                        cfg.workgroup_size
                    )));
                }
                Ok(f)
            });
        let function = match function {
            Ok(f) => f,
            Err(e) => {
                // SAFETY: the module just loaded, unloaded once.
                unsafe { (self.driver.cu_module_unload)(module) };
                return Err(e);
            }
        };
        let id = self.next_kernel;
        self.next_kernel += 1;
        self.kernels.insert(
            id,
            Kernel {
                module,
                function,
                cfg: *cfg,
                row_words: spec.row_words(),
                uses_shared: spec.uses_shared(),
                target,
            },
        );
        Ok(KernelId(id))
    }

    fn launch(
        &mut self,
        kernel: KernelId,
        launch: &Launch<'_>,
        watchdog: Duration,
    ) -> Result<LaunchOutput, LaunchError> {
        let Some(k) = self.kernels.get(&kernel.0) else {
            return Err(LaunchError::Failed(format!(
                "kernel {} is not compiled on this backend (released, or lost in a reset)",
                kernel.0
            )));
        };
        let shape = launch::Shape {
            function: k.function,
            cfg: k.cfg,
            row_words: k.row_words,
            uses_shared: k.uses_shared,
        };
        shape.check(launch, self.device.info.max_workgroups)?;
        let session = self.current().map_err(DriverError::into_launch_error)?;
        let (stream, start, end) = (session.stream, session.start, session.end);
        launch::run(
            &self.driver,
            &mut self.buffers,
            &shape,
            launch::Queue { stream, start, end },
            launch,
            watchdog,
        )
    }

    fn release(&mut self, kernel: KernelId) {
        if let Some(k) = self.kernels.remove(&kernel.0) {
            if self.current().is_ok() {
                // SAFETY: a module loaded by `compile`, unloaded once.
                unsafe { (self.driver.cu_module_unload)(k.module) };
            }
        }
    }

    fn reset(&mut self) -> Result<(), String> {
        self.close_session();
        // Destroys the primary context's state, sticky errors included —
        // on some drivers. Others keep a kernel fault for the life of the
        // process (CUDA's documentation of these errors: "the process must
        // be terminated and relaunched"; driver 580 on an H200 did so):
        // then no context can be made again, and the error says what to do.
        // SAFETY: a device handle from the driver.
        let made = check(&self.driver, "cuDevicePrimaryCtxReset", unsafe {
            (self.driver.cu_device_primary_ctx_reset)(self.device.handle)
        })
        .and_then(|()| self.open_session());
        match made {
            Ok(()) => {
                self.lost = None;
                Ok(())
            }
            Err(e) => {
                let why = if e.is_sticky() {
                    format!("{e}; {PROCESS_LOST}")
                } else {
                    e.to_string()
                };
                self.lost = Some(why.clone());
                Err(why)
            }
        }
    }
}

impl Drop for CudaBackend {
    fn drop(&mut self) {
        self.close_session();
    }
}
