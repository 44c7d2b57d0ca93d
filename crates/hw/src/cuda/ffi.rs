//! The CUDA driver API functions this backend calls, resolved from
//! `libcuda` at run time (no CUDA toolkit at build time). Signatures and
//! constants follow the driver API reference (`cuda.h`); only what the
//! backend uses is declared. The `_v2` symbols are the 64-bit-size variants
//! `cuda.h` maps the plain names to.

use libloading::Library;
use std::ffi::{c_char, c_int, c_uint, c_void};

pub type CuResult = c_int;
pub type CuDevice = c_int;
pub type CuDevicePtr = u64;
pub type CuContext = *mut c_void;
pub type CuModule = *mut c_void;
pub type CuFunction = *mut c_void;
pub type CuStream = *mut c_void;
pub type CuEvent = *mut c_void;

pub const CUDA_SUCCESS: CuResult = 0;
pub const CUDA_ERROR_NO_DEVICE: CuResult = 100;
pub const CUDA_ERROR_NOT_READY: CuResult = 600;

/// `CUdevice_attribute` values used.
pub mod attr {
    use std::ffi::c_int;
    pub const MAX_THREADS_PER_BLOCK: c_int = 1;
    pub const MAX_GRID_DIM_X: c_int = 5;
    pub const MAX_SHARED_MEMORY_PER_BLOCK: c_int = 8;
    pub const WARP_SIZE: c_int = 10;
    pub const MULTIPROCESSOR_COUNT: c_int = 16;
    pub const COMPUTE_CAPABILITY_MAJOR: c_int = 75;
    pub const COMPUTE_CAPABILITY_MINOR: c_int = 76;
}

/// `CUfunction_attribute` values used.
pub mod func_attr {
    use std::ffi::c_int;
    pub const MAX_THREADS_PER_BLOCK: c_int = 0;
    pub const NUM_REGS: c_int = 4;
}

/// `CUjit_option` values used.
pub mod jit {
    use std::ffi::c_int;
    pub const THREADS_PER_BLOCK: c_int = 1;
    pub const INFO_LOG_BUFFER: c_int = 3;
    pub const INFO_LOG_BUFFER_SIZE_BYTES: c_int = 4;
    pub const ERROR_LOG_BUFFER: c_int = 5;
    pub const ERROR_LOG_BUFFER_SIZE_BYTES: c_int = 6;
}

/// Declares the function table and its loader: each field is the driver
/// function of the same name, found under its symbol (`_v2` where
/// `cuda.h` maps the name to one) or, for drivers older than that symbol,
/// under the alternative given after `|`.
macro_rules! driver_api {
    ($( $field:ident = $symbol:literal $(| $alt:literal)? : fn($($arg:ty),*); )*) => {
        /// The loaded driver: the library and its functions. The pointers
        /// stay valid while `_library` is alive, which the struct ensures.
        pub struct Driver {
            $( pub $field: unsafe extern "C" fn($($arg),*) -> CuResult, )*
            _library: Library,
        }

        impl Driver {
            /// Resolves every function in `library`; a missing one is an
            /// error naming it (a library that is not a CUDA driver, or a
            /// driver too old).
            pub fn from_library(library: Library, path: &str) -> Result<Driver, String> {
                // SAFETY: each symbol is looked up with the signature the
                // driver API documents for it.
                unsafe {
                    Ok(Driver {
                        $( $field: {
                            type F = unsafe extern "C" fn($($arg),*) -> CuResult;
                            let first = library.get::<F>(concat!($symbol, "\0").as_bytes());
                            $( let first = first.or_else(|_| library.get::<F>(concat!($alt, "\0").as_bytes())); )?
                            *first.map_err(|e| format!(
                                "{path} is not a usable CUDA driver: no {} ({e})", $symbol
                            ))?
                        }, )*
                        _library: library,
                    })
                }
            }
        }
    };
}

driver_api! {
    cu_init = "cuInit": fn(c_uint);
    cu_driver_get_version = "cuDriverGetVersion": fn(*mut c_int);
    cu_device_get_count = "cuDeviceGetCount": fn(*mut c_int);
    cu_device_get = "cuDeviceGet": fn(*mut CuDevice, c_int);
    cu_device_get_name = "cuDeviceGetName": fn(*mut c_char, c_int, CuDevice);
    cu_device_get_attribute = "cuDeviceGetAttribute": fn(*mut c_int, c_int, CuDevice);
    cu_device_primary_ctx_retain = "cuDevicePrimaryCtxRetain": fn(*mut CuContext, CuDevice);
    cu_device_primary_ctx_release = "cuDevicePrimaryCtxRelease_v2" | "cuDevicePrimaryCtxRelease": fn(CuDevice);
    cu_device_primary_ctx_reset = "cuDevicePrimaryCtxReset_v2" | "cuDevicePrimaryCtxReset": fn(CuDevice);
    cu_ctx_set_current = "cuCtxSetCurrent": fn(CuContext);
    cu_module_load_data_ex = "cuModuleLoadDataEx":
        fn(*mut CuModule, *const c_void, c_uint, *mut c_int, *mut *mut c_void);
    cu_module_get_function = "cuModuleGetFunction": fn(*mut CuFunction, CuModule, *const c_char);
    cu_module_unload = "cuModuleUnload": fn(CuModule);
    cu_func_get_attribute = "cuFuncGetAttribute": fn(*mut c_int, c_int, CuFunction);
    cu_mem_alloc = "cuMemAlloc_v2": fn(*mut CuDevicePtr, usize);
    cu_mem_free = "cuMemFree_v2": fn(CuDevicePtr);
    cu_memcpy_htod = "cuMemcpyHtoD_v2": fn(CuDevicePtr, *const c_void, usize);
    cu_memcpy_dtoh = "cuMemcpyDtoH_v2": fn(*mut c_void, CuDevicePtr, usize);
    cu_memset_d32 = "cuMemsetD32_v2": fn(CuDevicePtr, c_uint, usize);
    cu_stream_create = "cuStreamCreate": fn(*mut CuStream, c_uint);
    cu_stream_destroy = "cuStreamDestroy_v2": fn(CuStream);
    cu_stream_query = "cuStreamQuery": fn(CuStream);
    cu_event_create = "cuEventCreate": fn(*mut CuEvent, c_uint);
    cu_event_destroy = "cuEventDestroy_v2": fn(CuEvent);
    cu_event_record = "cuEventRecord": fn(CuEvent, CuStream);
    cu_event_elapsed_time = "cuEventElapsedTime": fn(*mut f32, CuEvent, CuEvent);
    cu_launch_kernel = "cuLaunchKernel": fn(
        CuFunction, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint,
        CuStream, *mut *mut c_void, *mut *mut c_void
    );
    cu_get_error_name = "cuGetErrorName": fn(CuResult, *mut *const c_char);
    cu_get_error_string = "cuGetErrorString": fn(CuResult, *mut *const c_char);
}
