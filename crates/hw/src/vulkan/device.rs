//! The logical device and what every launch reuses: the compute queue,
//! one command buffer and fence, the descriptor set of the seven storage
//! buffers, the pipeline layout, the timestamp queries.

use super::error::call;
use super::gpu::Gpu;
use super::memory::Buffers;
use crate::abi;
use ash::vk;

pub struct Device {
    pub device: ash::Device,
    pub queue: vk::Queue,
    pool: vk::CommandPool,
    pub cmd: vk::CommandBuffer,
    pub fence: vk::Fence,
    set_layout: vk::DescriptorSetLayout,
    pub pipeline_layout: vk::PipelineLayout,
    descriptor_pool: vk::DescriptorPool,
    pub set: vk::DescriptorSet,
    /// Two timestamps (before and after the dispatch), when supported.
    pub queries: Option<vk::QueryPool>,
    pub buffers: Buffers,
    pub memory: vk::PhysicalDeviceMemoryProperties,
}

impl Device {
    pub fn new(gpu: &Gpu) -> Result<Device, String> {
        let priorities = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(gpu.caps.queue_family)
            .queue_priorities(&priorities)];
        let mut model = vk::PhysicalDeviceVulkanMemoryModelFeatures::default()
            .vulkan_memory_model(true)
            .vulkan_memory_model_device_scope(true);
        let mut v13 = vk::PhysicalDeviceVulkan13Features::default()
            .subgroup_size_control(gpu.caps.subgroup_size_control)
            .compute_full_subgroups(gpu.caps.full_subgroups);
        let mut info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .push_next(&mut model);
        if gpu.caps.api_version >= vk::API_VERSION_1_3 {
            info = info.push_next(&mut v13);
        }
        // SAFETY: a physical device of this instance, features it reported.
        let device = unsafe { gpu.instance.create_device(gpu.physical, &info, None) }
            .map_err(call("vkCreateDevice"))?;
        let mut d = Device {
            queue: unsafe { device.get_device_queue(gpu.caps.queue_family, 0) },
            device,
            pool: vk::CommandPool::null(),
            cmd: vk::CommandBuffer::null(),
            fence: vk::Fence::null(),
            set_layout: vk::DescriptorSetLayout::null(),
            pipeline_layout: vk::PipelineLayout::null(),
            descriptor_pool: vk::DescriptorPool::null(),
            set: vk::DescriptorSet::null(),
            queries: None,
            buffers: Buffers {
                bindings: Vec::new(),
            },
            memory: gpu.caps.memory,
        };
        // On failure `d` is dropped, which destroys what was made.
        d.make_objects(gpu)?;
        Ok(d)
    }

    fn make_objects(&mut self, gpu: &Gpu) -> Result<(), String> {
        let dev = &self.device;
        // SAFETY (whole function): valid create infos on a live device;
        // every handle is stored at once so `Drop` destroys it.
        let pool_info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(gpu.caps.queue_family)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        self.pool = unsafe { dev.create_command_pool(&pool_info, None) }
            .map_err(call("vkCreateCommandPool"))?;
        let alloc = vk::CommandBufferAllocateInfo::default()
            .command_pool(self.pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        self.cmd = unsafe { dev.allocate_command_buffers(&alloc) }
            .map_err(call("vkAllocateCommandBuffers"))?
            .first()
            .copied()
            .ok_or("vkAllocateCommandBuffers returned no command buffer")?;
        self.fence = unsafe { dev.create_fence(&vk::FenceCreateInfo::default(), None) }
            .map_err(call("vkCreateFence"))?;

        let bindings: Vec<_> = (0..abi::BUFFERS)
            .map(|b| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(b)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        let layout_info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
        self.set_layout = unsafe { dev.create_descriptor_set_layout(&layout_info, None) }
            .map_err(call("vkCreateDescriptorSetLayout"))?;
        let layouts = [self.set_layout];
        let pl_info = vk::PipelineLayoutCreateInfo::default().set_layouts(&layouts);
        self.pipeline_layout = unsafe { dev.create_pipeline_layout(&pl_info, None) }
            .map_err(call("vkCreatePipelineLayout"))?;
        let sizes = [vk::DescriptorPoolSize::default()
            .ty(vk::DescriptorType::STORAGE_BUFFER)
            .descriptor_count(abi::BUFFERS)];
        let dp_info = vk::DescriptorPoolCreateInfo::default()
            .max_sets(1)
            .pool_sizes(&sizes);
        self.descriptor_pool = unsafe { dev.create_descriptor_pool(&dp_info, None) }
            .map_err(call("vkCreateDescriptorPool"))?;
        let set_alloc = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(self.descriptor_pool)
            .set_layouts(&layouts);
        self.set = unsafe { dev.allocate_descriptor_sets(&set_alloc) }
            .map_err(call("vkAllocateDescriptorSets"))?
            .first()
            .copied()
            .ok_or("vkAllocateDescriptorSets returned no set")?;
        if gpu.caps.timestamps.is_some() {
            let q_info = vk::QueryPoolCreateInfo::default()
                .query_type(vk::QueryType::TIMESTAMP)
                .query_count(2);
            self.queries = Some(
                unsafe { dev.create_query_pool(&q_info, None) }
                    .map_err(call("vkCreateQueryPool"))?,
            );
        }
        self.buffers = Buffers::new(&self.device, &self.memory)?;
        for b in 0..abi::BUFFERS {
            self.bind(b);
        }
        Ok(())
    }

    /// Points descriptor `binding` at its (possibly new) buffer.
    pub fn bind(&self, binding: u32) {
        let Some(b) = self.buffers.bindings.get(binding as usize) else {
            return;
        };
        let info = [vk::DescriptorBufferInfo::default()
            .buffer(b.device.buffer)
            .offset(0)
            .range(vk::WHOLE_SIZE)];
        let write = [vk::WriteDescriptorSet::default()
            .dst_set(self.set)
            .dst_binding(binding)
            .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
            .buffer_info(&info)];
        // SAFETY: the set is not in use (launches are synchronous).
        unsafe { self.device.update_descriptor_sets(&write, &[]) };
    }

    /// Makes binding `index` hold `words` words, re-pointing its
    /// descriptor when the buffer was replaced.
    pub fn ensure(&mut self, index: u32, words: usize) -> Result<(), String> {
        if self
            .buffers
            .ensure(&self.device, &self.memory, index, words)?
        {
            self.bind(index);
        }
        Ok(())
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        let d = &self.device;
        // SAFETY: waiting for idle first, so nothing destroyed is in use;
        // null handles (objects never made) are ignored by Vulkan.
        unsafe {
            let _ = d.device_wait_idle();
            self.buffers.destroy(d);
            if let Some(q) = self.queries {
                d.destroy_query_pool(q, None);
            }
            d.destroy_descriptor_pool(self.descriptor_pool, None);
            d.destroy_pipeline_layout(self.pipeline_layout, None);
            d.destroy_descriptor_set_layout(self.set_layout, None);
            d.destroy_fence(self.fence, None);
            d.destroy_command_pool(self.pool, None);
            d.destroy_device(None);
        }
    }
}
