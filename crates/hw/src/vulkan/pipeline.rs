//! Compute pipelines from generated SPIR-V: one per compiled kernel,
//! pinned to the device's reported subgroup size (and full subgroups)
//! where Vulkan 1.3 lets us, so `subgroup_id * subgroup_size +
//! subgroup_local_id` numbers the workgroup's invocations as the host
//! planned.

use super::device::Device;
use super::error::call;
use super::gpu::Gpu;
use crate::abi::KernelConfig;
use ash::vk;

/// A compiled kernel.
pub struct Kernel {
    pub pipeline: vk::Pipeline,
    pub cfg: KernelConfig,
    pub uses_shared: bool,
    pub row_words: usize,
}

/// Builds the compute pipeline for `words` on `dev`.
pub fn create(
    gpu: &Gpu,
    dev: &Device,
    words: &[u32],
    cfg: &KernelConfig,
) -> Result<vk::Pipeline, String> {
    let d = &dev.device;
    let module_info = vk::ShaderModuleCreateInfo::default().code(words);
    // SAFETY: `words` is a whole SPIR-V module; the module is destroyed
    // once the pipeline holds what it needs.
    let module = unsafe { d.create_shader_module(&module_info, None) }
        .map_err(call("vkCreateShaderModule"))?;
    let sg = gpu.info.subgroup_size;
    let pin_size = gpu.caps.subgroup_size_control
        && sg > 0
        && cfg.workgroup_size <= gpu.caps.max_workgroup_subgroups.saturating_mul(sg);
    let mut required =
        vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo::default().required_subgroup_size(sg);
    let mut flags = vk::PipelineShaderStageCreateFlags::empty();
    if gpu.caps.full_subgroups && sg > 0 && cfg.workgroup_size.is_multiple_of(sg) && pin_size {
        flags |= vk::PipelineShaderStageCreateFlags::REQUIRE_FULL_SUBGROUPS;
    }
    let mut stage = vk::PipelineShaderStageCreateInfo::default()
        .stage(vk::ShaderStageFlags::COMPUTE)
        .module(module)
        .name(c"main")
        .flags(flags);
    if pin_size {
        stage = stage.push_next(&mut required);
    }
    let info = [vk::ComputePipelineCreateInfo::default()
        .stage(stage)
        .layout(dev.pipeline_layout)];
    let result = unsafe { d.create_compute_pipelines(vk::PipelineCache::null(), &info, None) };
    unsafe { d.destroy_shader_module(module, None) };
    match result {
        Ok(p) => p
            .first()
            .copied()
            .ok_or_else(|| "vkCreateComputePipelines returned no pipeline".to_string()),
        Err((made, e)) => {
            for p in made {
                unsafe { d.destroy_pipeline(p, None) };
            }
            Err(call("vkCreateComputePipelines")(e))
        }
    }
}
