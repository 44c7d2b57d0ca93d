//! One launch: upload, zero the results and sync counters, dispatch,
//! wait at most the watchdog's time, read back, in one command buffer.

use super::device::Device;
use super::error::launch_error;
use super::pipeline::Kernel;
use crate::abi;
use crate::backend::{Launch, LaunchError, LaunchOutput};
use ash::vk;
use std::time::Duration;

/// A barrier making `src` accesses of `src_stage` visible to `dst`
/// accesses of `dst_stage` (all buffers: a global memory barrier).
fn barrier(
    dev: &Device,
    src_stage: vk::PipelineStageFlags,
    src: vk::AccessFlags,
    dst_stage: vk::PipelineStageFlags,
    dst: vk::AccessFlags,
) {
    let b = [vk::MemoryBarrier::default()
        .src_access_mask(src)
        .dst_access_mask(dst)];
    // SAFETY: recording into the command buffer begun by `record`.
    unsafe {
        dev.device.cmd_pipeline_barrier(
            dev.cmd,
            src_stage,
            dst_stage,
            vk::DependencyFlags::empty(),
            &b,
            &[],
            &[],
        )
    };
}

/// The bindings the host writes before and reads after a launch.
const UPLOADED: [u32; 4] = [
    abi::BIND_MEM,
    abi::BIND_TABLE,
    abi::BIND_PARAMS,
    abi::BIND_SHARED_IO,
];
const DOWNLOADED: [u32; 3] = [abi::BIND_MEM, abi::BIND_RESULTS, abi::BIND_SHARED_IO];

impl Device {
    pub fn launch(
        &mut self,
        kernel: &Kernel,
        l: &Launch<'_>,
        watchdog: Duration,
        max_workgroups: u32,
        timestamp: Option<(f64, u32)>,
    ) -> Result<LaunchOutput, LaunchError> {
        l.check_shape(
            &kernel.cfg,
            kernel.row_words,
            kernel.uses_shared,
            max_workgroups,
        )?;
        let sizes = [
            (abi::BIND_MEM, l.mem.len()),
            (abi::BIND_TABLE, l.table.len()),
            (abi::BIND_RESULTS, l.results_words),
            (abi::BIND_SYNC, l.sync_words),
            (abi::BIND_STRESS, l.stress_words),
            (abi::BIND_PARAMS, abi::PARAM_WORDS),
            (abi::BIND_SHARED_IO, l.shared_io.len()),
        ];
        for (b, words) in sizes {
            self.ensure(b, words).map_err(LaunchError::Failed)?;
        }
        let data: [(u32, &[u32]); 4] = [
            (abi::BIND_MEM, l.mem),
            (abi::BIND_TABLE, l.table),
            (abi::BIND_PARAMS, l.params),
            (abi::BIND_SHARED_IO, l.shared_io),
        ];
        for (b, words) in data {
            self.buffers.bindings[b as usize].write(words);
        }
        let words = |b: u32| sizes[b as usize].1;
        self.record(kernel, l, &words)
            .map_err(|(call, r)| launch_error(call, r, watchdog))?;
        self.submit_and_wait(watchdog)?;

        let device_time = timestamp.and_then(|t| self.device_time(t));
        let mut out = LaunchOutput {
            device_time,
            ..LaunchOutput::default()
        };
        out.mem = self.buffers.bindings[abi::BIND_MEM as usize].read(l.mem.len());
        out.results = self.buffers.bindings[abi::BIND_RESULTS as usize].read(l.results_words);
        if kernel.uses_shared {
            out.shared_io =
                self.buffers.bindings[abi::BIND_SHARED_IO as usize].read(l.shared_io.len());
        }
        Ok(out)
    }

    fn record(
        &self,
        kernel: &Kernel,
        l: &Launch<'_>,
        words: &dyn Fn(u32) -> usize,
    ) -> Result<(), (&'static str, vk::Result)> {
        let d = &self.device;
        let cmd = self.cmd;
        let begin = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY (whole function): the command buffer is not pending (the
        // previous launch was waited for); every handle is live.
        unsafe { d.begin_command_buffer(cmd, &begin) }.map_err(|r| ("vkBeginCommandBuffer", r))?;
        if let Some(q) = self.queries {
            unsafe { d.cmd_reset_query_pool(cmd, q, 0, 2) };
        }
        let transfer = vk::PipelineStageFlags::TRANSFER;
        let compute = vk::PipelineStageFlags::COMPUTE_SHADER;
        let host = vk::PipelineStageFlags::HOST;
        for b in UPLOADED {
            let binding = &self.buffers.bindings[b as usize];
            if let (Some(staging), n) = (&binding.staging, words(b)) {
                if n > 0 {
                    let region = [vk::BufferCopy::default().size((n * 4) as u64)];
                    unsafe {
                        d.cmd_copy_buffer(cmd, staging.buffer, binding.device.buffer, &region)
                    };
                }
            }
        }
        for b in [abi::BIND_RESULTS, abi::BIND_SYNC] {
            let n = words(b);
            if n > 0 {
                let buffer = self.buffers.bindings[b as usize].device.buffer;
                unsafe { d.cmd_fill_buffer(cmd, buffer, 0, (n * 4) as u64, 0) };
            }
        }
        barrier(
            self,
            transfer | host,
            vk::AccessFlags::TRANSFER_WRITE | vk::AccessFlags::HOST_WRITE,
            compute,
            vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE,
        );
        unsafe {
            d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, kernel.pipeline);
            d.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::COMPUTE,
                self.pipeline_layout,
                0,
                &[self.set],
                &[],
            );
        }
        if let Some(q) = self.queries {
            unsafe { d.cmd_write_timestamp(cmd, vk::PipelineStageFlags::TOP_OF_PIPE, q, 0) };
        }
        unsafe { d.cmd_dispatch(cmd, l.workgroups, 1, 1) };
        if let Some(q) = self.queries {
            unsafe { d.cmd_write_timestamp(cmd, vk::PipelineStageFlags::BOTTOM_OF_PIPE, q, 1) };
        }
        let staged = DOWNLOADED
            .iter()
            .any(|&b| self.buffers.bindings[b as usize].staging.is_some());
        if staged {
            barrier(
                self,
                compute,
                vk::AccessFlags::SHADER_WRITE,
                transfer,
                vk::AccessFlags::TRANSFER_READ,
            );
            for b in DOWNLOADED {
                let binding = &self.buffers.bindings[b as usize];
                if let (Some(staging), n) = (&binding.staging, words(b)) {
                    if n > 0 {
                        let region = [vk::BufferCopy::default().size((n * 4) as u64)];
                        unsafe {
                            d.cmd_copy_buffer(cmd, binding.device.buffer, staging.buffer, &region)
                        };
                    }
                }
            }
        }
        barrier(
            self,
            compute | transfer,
            vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::TRANSFER_WRITE,
            host,
            vk::AccessFlags::HOST_READ,
        );
        unsafe { d.end_command_buffer(cmd) }.map_err(|r| ("vkEndCommandBuffer", r))
    }

    fn submit_and_wait(&self, watchdog: Duration) -> Result<(), LaunchError> {
        let d = &self.device;
        let cmds = [self.cmd];
        let submit = [vk::SubmitInfo::default().command_buffers(&cmds)];
        // SAFETY: the fence is unsignalled (reset after every wait) and the
        // command buffer fully recorded.
        unsafe { d.queue_submit(self.queue, &submit, self.fence) }
            .map_err(|r| launch_error("vkQueueSubmit", r, watchdog))?;
        let nanos = u64::try_from(watchdog.as_nanos()).unwrap_or(u64::MAX);
        unsafe { d.wait_for_fences(&[self.fence], true, nanos) }
            .map_err(|r| launch_error("vkWaitForFences", r, watchdog))?;
        unsafe { d.reset_fences(&[self.fence]) }
            .map_err(|r| launch_error("vkResetFences", r, watchdog))
    }

    /// The time between the two timestamps, when both were written.
    fn device_time(&self, (period_ns, valid_bits): (f64, u32)) -> Option<Duration> {
        let q = self.queries?;
        let mut stamps = [0u64; 2];
        // SAFETY: both queries were written by the finished submission.
        unsafe {
            self.device.get_query_pool_results(
                q,
                0,
                &mut stamps,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
            )
        }
        .ok()?;
        let mask = if valid_bits >= 64 {
            u64::MAX
        } else {
            (1u64 << valid_bits) - 1
        };
        let ticks = (stamps[1] & mask).wrapping_sub(stamps[0] & mask) & mask;
        Some(Duration::from_nanos((ticks as f64 * period_ns) as u64))
    }
}
