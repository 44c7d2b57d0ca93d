//! Backends by name, created when a test first needs one; a backend that
//! cannot start (no Vulkan loader, no NVIDIA driver) fails each of its
//! tests with the reason, and the other tests go on.

use gpumc::ir::{Arch, Program};
use gpumc_campaign::report::Status;
use gpumc_hw::backend::{Backend, DeviceInfo};
use std::collections::HashMap;
use std::path::Path;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum BackendChoice {
    Vulkan,
    Cuda,
    Interp,
}

impl BackendChoice {
    pub fn name(self) -> &'static str {
        match self {
            BackendChoice::Vulkan => "vulkan",
            BackendChoice::Cuda => "cuda",
            BackendChoice::Interp => "interp",
        }
    }

    /// The backend a test of this dialect runs on by default (`None`: a
    /// C test, which runs only once compiled).
    fn for_arch(arch: Arch) -> Option<BackendChoice> {
        match arch {
            Arch::Vulkan => Some(BackendChoice::Vulkan),
            Arch::Ptx => Some(BackendChoice::Cuda),
            Arch::C => None,
        }
    }

    /// Whether this backend runs tests of `arch`.
    fn runs(self, arch: Arch) -> bool {
        match self {
            BackendChoice::Interp => true,
            b => Some(b) == BackendChoice::for_arch(arch),
        }
    }

    fn create(self, device: Option<usize>) -> Result<Box<dyn Backend>, String> {
        match self {
            BackendChoice::Vulkan => gpumc_hw::vulkan::VulkanBackend::new(device)
                .map(|b| Box::new(b) as Box<dyn Backend>),
            BackendChoice::Cuda => {
                gpumc_hw::cuda::CudaBackend::new(device).map(|b| Box::new(b) as Box<dyn Backend>)
            }
            BackendChoice::Interp => {
                if device.is_some_and(|d| d > 0) {
                    return Err("the interpreter has one device (0)".into());
                }
                Ok(Box::new(gpumc_hw::interp::Interp::new(0)))
            }
        }
    }
}

/// The backends of a run.
pub struct Backends {
    forced: Option<BackendChoice>,
    device: Option<usize>,
    made: HashMap<BackendChoice, Result<Box<dyn Backend>, String>>,
}

impl Backends {
    pub fn new(forced: Option<BackendChoice>, device: Option<usize>) -> Backends {
        Backends {
            forced,
            device,
            made: HashMap::new(),
        }
    }

    /// The driver of the backend named `name` (`vulkan`, `cuda`,
    /// `interp`) this run made, if it made one.
    pub fn driver_of(&self, name: &str) -> Option<String> {
        self.made.iter().find_map(|(c, b)| match b {
            Ok(b) if c.name() == name || b.info().backend == name => Some(b.info().driver.clone()),
            _ => None,
        })
    }

    /// The backend for the test `p` in `path`, or why there is none.
    pub fn for_test(
        &mut self,
        path: &Path,
        p: &Program,
    ) -> Result<&mut dyn Backend, (Status, String)> {
        let arch = p.arch;
        if arch == Arch::C {
            return Err((
                Status::Unsupported,
                gpumc_hw::lower::refuse_c(p).in_file(path).to_string(),
            ));
        }
        let Some(choice) = self.forced.or(BackendChoice::for_arch(arch)) else {
            return Err((
                Status::Unsupported,
                format!("{}: no backend", path.display()),
            ));
        };
        if !choice.runs(arch) {
            let dialect = match arch {
                Arch::Vulkan => "Vulkan",
                Arch::Ptx => "PTX",
                Arch::C => "C",
            };
            return Err((
                Status::Unsupported,
                format!(
                    "{}: unsupported: the {} backend does not run {dialect} tests",
                    path.display(),
                    choice.name()
                ),
            ));
        }
        let device = self.device;
        match self
            .made
            .entry(choice)
            .or_insert_with(|| choice.create(device))
        {
            Ok(b) => Ok(b.as_mut()),
            Err(e) => Err((
                Status::Error,
                format!("{}: {} backend: {e}", path.display(), choice.name()),
            )),
        }
    }
}

/// The devices of each backend (or why it has none).
pub fn list(only: Option<BackendChoice>) -> Vec<(BackendChoice, Result<Vec<DeviceInfo>, String>)> {
    let all = [
        BackendChoice::Vulkan,
        BackendChoice::Cuda,
        BackendChoice::Interp,
    ];
    all.into_iter()
        .filter(|b| only.is_none_or(|o| o == *b))
        .map(|b| {
            let devs = match b {
                BackendChoice::Vulkan => gpumc_hw::vulkan::devices(),
                BackendChoice::Cuda => gpumc_hw::cuda::devices(),
                BackendChoice::Interp => Ok(vec![gpumc_hw::interp::Interp::new(0).info().clone()]),
            };
            (b, devs)
        })
        .collect()
}
