//! The Vulkan backend: runs [`crate::spirv`] kernels through the Vulkan
//! loader, opened at run time (so the crate builds and runs without
//! Vulkan installed; [`VulkanBackend::new`] then says what to install).
//!
//! [`gpu`] opens the loader and picks the device, [`device`] holds the
//! logical device and its reusable objects, [`memory`] the seven storage
//! buffers, [`pipeline`] builds a pipeline per kernel, [`launch`] runs
//! one launch, [`error`] turns Vulkan results into messages.

mod device;
mod error;
mod gpu;
mod launch;
mod memory;
mod pipeline;

use crate::abi::KernelConfig;
use crate::backend::{Backend, DeviceInfo, KernelId, Launch, LaunchError, LaunchOutput};
use crate::spec::KernelSpec;
use gpumc_core::diag::{Error, ErrorKind, Result};
use std::collections::HashMap;
use std::time::Duration;

pub use gpu::devices;

/// A Vulkan device running generated kernels.
pub struct VulkanBackend {
    // Field order is drop order: kernels and the device before the
    // instance they were made from.
    kernels: HashMap<u64, pipeline::Kernel>,
    device: Option<device::Device>,
    gpu: gpu::Gpu,
    next_id: u64,
}

impl VulkanBackend {
    /// Opens device `device` (an index into [`devices`]), or the best one
    /// that can run the kernels (real GPUs before CPU drivers).
    pub fn new(device: Option<usize>) -> std::result::Result<Self, String> {
        let gpu = gpu::open(device)?;
        let dev = device::Device::new(&gpu)?;
        Ok(VulkanBackend {
            kernels: HashMap::new(),
            device: Some(dev),
            gpu,
            next_id: 0,
        })
    }

    fn device(&self) -> std::result::Result<&device::Device, String> {
        self.device
            .as_ref()
            .ok_or_else(|| "the Vulkan device is gone after a failed reset".to_string())
    }

    fn destroy_kernels(&mut self) {
        if let Some(dev) = &self.device {
            for (_, k) in self.kernels.drain() {
                // SAFETY: the device is idle between launches.
                unsafe { dev.device.destroy_pipeline(k.pipeline, None) };
            }
        }
        self.kernels.clear();
    }
}

impl Drop for VulkanBackend {
    fn drop(&mut self) {
        self.destroy_kernels();
    }
}

fn unsupported(message: String) -> Error {
    Error::new(ErrorKind::Unsupported, format!("unsupported: {message}"))
}

impl Backend for VulkanBackend {
    fn info(&self) -> &DeviceInfo {
        &self.gpu.info
    }

    fn compile(&mut self, spec: &KernelSpec, cfg: &KernelConfig) -> Result<KernelId> {
        let info = &self.gpu.info;
        if cfg.workgroup_size > info.max_workgroup_size {
            return Err(unsupported(format!(
                "workgroups of {} invocations: {} takes at most {}",
                cfg.workgroup_size, info.name, info.max_workgroup_size
            )));
        }
        if info.subgroup_size > 0 && !cfg.workgroup_size.is_multiple_of(info.subgroup_size) {
            return Err(Error::new(
                ErrorKind::Usage,
                format!(
                    "workgroups of {} invocations are not whole subgroups of {}",
                    cfg.workgroup_size, info.subgroup_size
                ),
            ));
        }
        if cfg.shared_words > info.max_shared_words {
            return Err(unsupported(format!(
                "{} words of workgroup memory: {} has {}",
                cfg.shared_words, info.name, info.max_shared_words
            )));
        }
        let words = crate::spirv::emit(spec, cfg)?;
        let dev = self.device().map_err(|m| Error::new(ErrorKind::Io, m))?;
        let pipeline = pipeline::create(&self.gpu, dev, &words, cfg)
            .map_err(|m| Error::new(ErrorKind::Io, format!("{}: {m}", spec.name)))?;
        let id = self.next_id;
        self.next_id += 1;
        self.kernels.insert(
            id,
            pipeline::Kernel {
                pipeline,
                cfg: *cfg,
                uses_shared: spec.uses_shared(),
                row_words: spec.row_words(),
            },
        );
        Ok(KernelId(id))
    }

    fn launch(
        &mut self,
        kernel: KernelId,
        launch: &Launch<'_>,
        watchdog: Duration,
    ) -> std::result::Result<LaunchOutput, LaunchError> {
        let k = self.kernels.get(&kernel.0).ok_or_else(|| {
            LaunchError::Failed(format!(
                "kernel {} is not compiled on this device",
                kernel.0
            ))
        })?;
        let max = self.gpu.info.max_workgroups;
        let stamps = self.gpu.caps.timestamps;
        let dev = self
            .device
            .as_mut()
            .ok_or_else(|| LaunchError::Failed("the Vulkan device is gone".into()))?;
        dev.launch(k, launch, watchdog, max, stamps)
    }

    fn release(&mut self, kernel: KernelId) {
        if let (Some(k), Some(dev)) = (self.kernels.remove(&kernel.0), &self.device) {
            // SAFETY: launches are synchronous, so the pipeline is idle.
            unsafe { dev.device.destroy_pipeline(k.pipeline, None) };
        }
    }

    fn reset(&mut self) -> std::result::Result<(), String> {
        self.destroy_kernels();
        // Dropping the device waits for it to go idle, then destroys it.
        self.device = None;
        self.device = Some(device::Device::new(&self.gpu)?);
        Ok(())
    }
}
