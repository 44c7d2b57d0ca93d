//! What a hardware backend provides: compile a [`KernelSpec`] for a device
//! and launch it on the buffers of [`crate::abi`]. Vulkan and CUDA
//! implement it; the host logic (`plan`, `run`) is shared.

use crate::abi::{KernelConfig, PARAM_WORDS};
use crate::spec::KernelSpec;
use std::time::Duration;

/// The device a backend runs on.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DeviceInfo {
    /// `vulkan` or `cuda`.
    pub backend: String,
    /// Device name as the driver reports it (`llvmpipe (LLVM 15.0.6, 256 bits)`).
    pub name: String,
    /// Driver name and version.
    pub driver: String,
    /// Invocations per subgroup (warp).
    pub subgroup_size: u32,
    /// Largest workgroup (CTA) size.
    pub max_workgroup_size: u32,
    /// Largest number of workgroups in one dispatch (x dimension).
    pub max_workgroups: u32,
    /// Compute units (SMs) when the API says.
    pub compute_units: Option<u32>,
    /// Largest workgroup-memory array, in 32-bit words.
    pub max_shared_words: u32,
    /// Most loop iterations, summed over every loop of a kernel, that one
    /// subgroup may run before the driver cuts its loops short — `None`
    /// when the driver has no such limit. Mesa's llvmpipe (lavapipe) has
    /// one (65535: its shader compiler's loop limiter, shared by all loops
    /// of a shader); a loop it cuts carries on as if it had exited, which
    /// would turn a spinning thread into a wrong final state, so
    /// `plan::Plan` keeps every kernel's loops below it.
    #[serde(default)]
    pub loop_limit: Option<u64>,
}

/// A compiled kernel, owned by the backend that compiled it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KernelId(pub u64);

/// One launch: the initial contents of the buffers.
#[derive(Clone, Debug)]
pub struct Launch<'a> {
    pub workgroups: u32,
    /// Initial test memory.
    pub mem: &'a [u32],
    /// `workgroups * workgroup_size` rows.
    pub table: &'a [u32],
    /// Size of `results` (zeroed before the launch).
    pub results_words: usize,
    /// Size of `sync` (zeroed before the launch).
    pub sync_words: usize,
    /// Size of `stress` (its contents are not observed; need not be reset).
    pub stress_words: usize,
    pub params: &'a [u32; PARAM_WORDS],
    /// `workgroups * shared_words` words (empty when the kernel uses no
    /// workgroup memory).
    pub shared_io: &'a [u32],
}

impl Launch<'_> {
    /// Refuses a launch whose buffers do not fit a kernel compiled for
    /// `cfg` with rows of `row_words` words: the kernel would read or
    /// write outside them. Every backend checks this before launching.
    pub fn check_shape(
        &self,
        cfg: &KernelConfig,
        row_words: usize,
        uses_shared: bool,
        max_workgroups: u32,
    ) -> Result<(), LaunchError> {
        let fail = |m: String| Err(LaunchError::Failed(m));
        if self.workgroups == 0 || self.workgroups > max_workgroups {
            return fail(format!(
                "{} workgroups: the device launches 1 to {max_workgroups}",
                self.workgroups
            ));
        }
        let rows = self.workgroups as usize * cfg.workgroup_size as usize;
        match rows.checked_mul(row_words) {
            Some(t) if t <= self.table.len() => {}
            t => {
                return fail(format!(
                    "the table has {} words; {rows} rows of {row_words} words need {}",
                    self.table.len(),
                    t.map_or("more than a machine word counts".to_string(), |t| t
                        .to_string())
                ))
            }
        }
        if uses_shared {
            let want = self.workgroups as usize * cfg.shared_words as usize;
            if self.shared_io.len() != want {
                return fail(format!(
                    "shared_io has {} words; {} workgroups of {} shared words need {want}",
                    self.shared_io.len(),
                    self.workgroups,
                    cfg.shared_words
                ));
            }
        }
        Ok(())
    }
}

/// What a launch leaves behind.
#[derive(Clone, Debug, Default)]
pub struct LaunchOutput {
    /// Final test memory.
    pub mem: Vec<u32>,
    pub results: Vec<u32>,
    /// Final workgroup memory (empty if none).
    pub shared_io: Vec<u32>,
    /// Time the device spent on the launch when the backend can measure
    /// it (Vulkan timestamps, CUDA events); `None` otherwise.
    pub device_time: Option<Duration>,
}

/// Why a launch gave no output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LaunchError {
    /// The launch did not finish within the watchdog's time. The backend
    /// must be [`Backend::reset`] before it is used again.
    Timeout(Duration),
    /// The device was lost (`VK_ERROR_DEVICE_LOST`, a sticky CUDA error).
    /// The backend must be [`Backend::reset`].
    DeviceLost(String),
    /// Any other failure (out of memory, a driver error): the message.
    Failed(String),
}

impl std::fmt::Display for LaunchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LaunchError::Timeout(d) => {
                write!(
                    f,
                    "the launch did not finish within {:.1} s (watchdog)",
                    d.as_secs_f64()
                )
            }
            LaunchError::DeviceLost(m) => write!(f, "device lost: {m}"),
            LaunchError::Failed(m) => f.write_str(m),
        }
    }
}

/// A device that runs generated kernels.
pub trait Backend {
    fn info(&self) -> &DeviceInfo;

    /// Generates and compiles a kernel. An error is a
    /// `gpumc_core::diag::Error`: `unsupported` (with the instruction's
    /// position where there is one) when the spec uses something this
    /// backend or device cannot run, otherwise a driver/compiler failure.
    fn compile(
        &mut self,
        spec: &KernelSpec,
        cfg: &KernelConfig,
    ) -> gpumc_core::diag::Result<KernelId>;

    /// Launches a compiled kernel and waits for it, at most `watchdog`.
    fn launch(
        &mut self,
        kernel: KernelId,
        launch: &Launch<'_>,
        watchdog: Duration,
    ) -> Result<LaunchOutput, LaunchError>;

    /// Frees a compiled kernel.
    fn release(&mut self, kernel: KernelId);

    /// Recreates the device after a [`LaunchError::Timeout`] or
    /// [`LaunchError::DeviceLost`]; every compiled kernel is gone.
    fn reset(&mut self) -> Result<(), String>;
}
