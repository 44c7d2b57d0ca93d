//! The seven device buffers of `abi`, kept across launches and grown (never
//! shrunk) when a launch needs more.

use super::error::{check, DriverError};
use super::ffi::{CuDevicePtr, Driver};
use crate::abi::BUFFERS;

#[derive(Clone, Copy, Debug, Default)]
struct Allocation {
    ptr: CuDevicePtr,
    bytes: usize,
}

#[derive(Debug, Default)]
pub struct Buffers {
    slots: [Allocation; BUFFERS as usize],
}

impl Buffers {
    /// The device address of buffer `binding`, holding at least `words`
    /// words (at least one, so every kernel parameter is a valid
    /// pointer). Growing loses the old contents: every launch uploads
    /// what it needs.
    pub fn ensure(
        &mut self,
        driver: &Driver,
        binding: u32,
        words: usize,
    ) -> Result<CuDevicePtr, DriverError> {
        let Some(slot) = self.slots.get_mut(binding as usize) else {
            return Err(DriverError::new(None, "buffer binding", 1));
        };
        let need = words.max(1).saturating_mul(4);
        if slot.bytes >= need {
            return Ok(slot.ptr);
        }
        if slot.bytes != 0 {
            // SAFETY: `ptr` came from cuMemAlloc and is freed once.
            check(driver, "cuMemFree", unsafe {
                (driver.cu_mem_free)(slot.ptr)
            })?;
            *slot = Allocation::default();
        }
        // Doubling keeps a growing series of launches from reallocating
        // every time.
        let bytes = need.max(slot.bytes.saturating_mul(2));
        let mut ptr: CuDevicePtr = 0;
        // SAFETY: valid out-pointer.
        check(driver, "cuMemAlloc", unsafe {
            (driver.cu_mem_alloc)(&mut ptr, bytes)
        })?;
        *slot = Allocation { ptr, bytes };
        Ok(ptr)
    }

    /// Frees every buffer, ignoring errors (the context may be lost).
    pub fn free_all(&mut self, driver: &Driver) {
        for slot in &mut self.slots {
            if slot.bytes != 0 {
                // SAFETY: as in `ensure`.
                unsafe { (driver.cu_mem_free)(slot.ptr) };
            }
            *slot = Allocation::default();
        }
    }
}
