//! The seven storage buffers of [`crate::abi`], reused across launches
//! and grown on demand. Each lives in device-local memory; when that
//! memory is also host-visible and coherent (unified memory, lavapipe)
//! the host writes and reads it directly, otherwise through a host-visible
//! staging buffer and copies recorded around the dispatch, so a discrete
//! GPU never runs the test in host memory.

use super::error::call;
use crate::abi;
use ash::vk;

/// One buffer and its memory, mapped when host-visible.
pub struct Buffer {
    pub buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    /// Capacity in 32-bit words.
    pub words: usize,
    mapped: Option<*mut u32>,
}

// SAFETY: the mapping is process memory; Vulkan allows using it from any
// thread, and `Buffer` is only touched through `&mut` (no sharing).
unsafe impl Send for Buffer {}

/// Finds a memory type allowed by `bits` with all of `want`.
fn memory_type(
    props: &vk::PhysicalDeviceMemoryProperties,
    bits: u32,
    want: vk::MemoryPropertyFlags,
) -> Option<u32> {
    (0..props.memory_type_count).find(|&i| {
        bits & (1 << i) != 0
            && props
                .memory_types
                .get(i as usize)
                .is_some_and(|t| t.property_flags.contains(want))
    })
}

const HOST: vk::MemoryPropertyFlags = vk::MemoryPropertyFlags::from_raw(
    vk::MemoryPropertyFlags::HOST_VISIBLE.as_raw()
        | vk::MemoryPropertyFlags::HOST_COHERENT.as_raw(),
);

impl Buffer {
    /// A buffer of `words` words in memory with `want` (first choice) or
    /// `fallback` properties; mapped if the memory is host-coherent.
    fn new(
        device: &ash::Device,
        props: &vk::PhysicalDeviceMemoryProperties,
        words: usize,
        usage: vk::BufferUsageFlags,
        want: &[vk::MemoryPropertyFlags],
    ) -> Result<Buffer, String> {
        let info = vk::BufferCreateInfo::default()
            .size((words.max(1) * 4) as u64)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid create infos; on failure everything made so far is
        // destroyed before returning.
        let buffer =
            unsafe { device.create_buffer(&info, None) }.map_err(call("vkCreateBuffer"))?;
        let req = unsafe { device.get_buffer_memory_requirements(buffer) };
        let Some((ty, flags)) = want.iter().find_map(|&w| {
            memory_type(props, req.memory_type_bits, w)
                .map(|t| (t, props.memory_types[t as usize].property_flags))
        }) else {
            unsafe { device.destroy_buffer(buffer, None) };
            return Err(format!("no memory type with {want:?} for a storage buffer"));
        };
        let alloc = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(ty);
        let memory = match unsafe { device.allocate_memory(&alloc, None) } {
            Ok(m) => m,
            Err(e) => {
                unsafe { device.destroy_buffer(buffer, None) };
                return Err(call("vkAllocateMemory")(e));
            }
        };
        let mut b = Buffer {
            buffer,
            memory,
            words: words.max(1),
            mapped: None,
        };
        let result = unsafe { device.bind_buffer_memory(buffer, memory, 0) }
            .map_err(call("vkBindBufferMemory"))
            .and_then(|()| {
                if flags.contains(HOST) {
                    let p = unsafe {
                        device.map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                    }
                    .map_err(call("vkMapMemory"))?;
                    b.mapped = Some(p.cast::<u32>());
                }
                Ok(())
            });
        match result {
            Ok(()) => Ok(b),
            Err(e) => {
                b.destroy(device);
                Err(e)
            }
        }
    }

    pub fn destroy(&mut self, device: &ash::Device) {
        // SAFETY: the device is idle (launches wait for completion) and
        // the handles are not used again.
        unsafe {
            device.destroy_buffer(self.buffer, None);
            device.free_memory(self.memory, None);
        }
    }

    /// Copies `data` to the start of a mapped buffer.
    fn write(&mut self, data: &[u32]) {
        if let Some(p) = self.mapped {
            let n = data.len().min(self.words);
            // SAFETY: the mapping covers `words` words, `n` is within it,
            // and the device is not using the buffer (launches are
            // synchronous).
            unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), p, n) };
        }
    }

    /// The first `n` words of a mapped buffer.
    fn read(&self, n: usize) -> Vec<u32> {
        match self.mapped {
            Some(p) => {
                let n = n.min(self.words);
                let mut out = vec![0; n];
                // SAFETY: as in `write`; the launch's fence was waited for.
                unsafe { std::ptr::copy_nonoverlapping(p, out.as_mut_ptr(), n) };
                out
            }
            None => Vec::new(),
        }
    }
}

/// A binding's device buffer and, when that is not mappable, its staging
/// buffer.
pub struct Binding {
    pub device: Buffer,
    pub staging: Option<Buffer>,
}

impl Binding {
    fn new(
        device: &ash::Device,
        props: &vk::PhysicalDeviceMemoryProperties,
        words: usize,
    ) -> Result<Binding, String> {
        let usage = vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::TRANSFER_DST
            | vk::BufferUsageFlags::TRANSFER_SRC;
        let local = vk::MemoryPropertyFlags::DEVICE_LOCAL;
        let mut main = Buffer::new(device, props, words, usage, &[local | HOST, local, HOST])?;
        if main.mapped.is_some() {
            return Ok(Binding {
                device: main,
                staging: None,
            });
        }
        let transfer = vk::BufferUsageFlags::TRANSFER_DST | vk::BufferUsageFlags::TRANSFER_SRC;
        let cached = HOST | vk::MemoryPropertyFlags::HOST_CACHED;
        match Buffer::new(device, props, words, transfer, &[cached, HOST]) {
            Ok(staging) => Ok(Binding {
                device: main,
                staging: Some(staging),
            }),
            Err(e) => {
                main.destroy(device);
                Err(e)
            }
        }
    }

    fn destroy(&mut self, device: &ash::Device) {
        self.device.destroy(device);
        if let Some(s) = &mut self.staging {
            s.destroy(device);
        }
    }

    /// The host's view: the staging buffer, or the device buffer itself.
    fn host(&mut self) -> &mut Buffer {
        self.staging.as_mut().unwrap_or(&mut self.device)
    }

    pub fn write(&mut self, data: &[u32]) {
        self.host().write(data);
    }

    pub fn read(&mut self, n: usize) -> Vec<u32> {
        self.host().read(n)
    }
}

/// The seven bindings, indexed by `abi::BIND_*`.
pub struct Buffers {
    pub bindings: Vec<Binding>,
}

impl Buffers {
    pub fn new(
        device: &ash::Device,
        props: &vk::PhysicalDeviceMemoryProperties,
    ) -> Result<Buffers, String> {
        let mut b = Buffers {
            bindings: Vec::new(),
        };
        for _ in 0..abi::BUFFERS {
            match Binding::new(device, props, 1024) {
                Ok(x) => b.bindings.push(x),
                Err(e) => {
                    b.destroy(device);
                    return Err(e);
                }
            }
        }
        Ok(b)
    }

    /// Makes binding `index` hold at least `words` words (contents are
    /// lost when it grows); whether it was replaced.
    pub fn ensure(
        &mut self,
        device: &ash::Device,
        props: &vk::PhysicalDeviceMemoryProperties,
        index: u32,
        words: usize,
    ) -> Result<bool, String> {
        let i = index as usize;
        let Some(current) = self.bindings.get(i) else {
            return Err(format!("no buffer binding {index}"));
        };
        if current.device.words >= words {
            return Ok(false);
        }
        // Grow geometrically so a series of growing launches reallocates
        // rarely.
        let new = Binding::new(device, props, words.next_power_of_two())?;
        let mut old = std::mem::replace(&mut self.bindings[i], new);
        old.destroy(device);
        Ok(true)
    }

    pub fn destroy(&mut self, device: &ash::Device) {
        for b in &mut self.bindings {
            b.destroy(device);
        }
        self.bindings.clear();
    }
}
