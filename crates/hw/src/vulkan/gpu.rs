//! The Vulkan loader, instance and physical device: opening the loader at
//! run time, choosing a device that has what the generated kernels need
//! (the Vulkan memory model with device scope, SPIR-V 1.5 through Vulkan
//! 1.2) and describing it.

use super::error::call;
use crate::backend::DeviceInfo;
use ash::vk;
use std::ffi::CStr;

/// What a chosen device offers beyond `DeviceInfo`.
#[derive(Clone, Debug)]
pub struct Caps {
    pub api_version: u32,
    pub queue_family: u32,
    /// Nanoseconds per timestamp tick and the valid bits, when compute
    /// queues can write timestamps.
    pub timestamps: Option<(f64, u32)>,
    /// Pipelines can require the reported subgroup size (Vulkan 1.3
    /// `subgroupSizeControl` covering compute) and full subgroups.
    pub subgroup_size_control: bool,
    pub full_subgroups: bool,
    /// `maxComputeWorkgroupSubgroups` (bounds a required-size pipeline).
    pub max_workgroup_subgroups: u32,
    pub memory: vk::PhysicalDeviceMemoryProperties,
}

/// The instance and the chosen physical device.
pub struct Gpu {
    /// Keeps the loader library loaded while the instance lives.
    _entry: ash::Entry,
    pub instance: ash::Instance,
    pub physical: vk::PhysicalDevice,
    pub info: DeviceInfo,
    pub caps: Caps,
}

impl Drop for Gpu {
    fn drop(&mut self) {
        // SAFETY: every object made from this instance (the device) is
        // dropped before the `Gpu` (field order in `VulkanBackend`).
        unsafe { self.instance.destroy_instance(None) };
    }
}

const MISSING_LOADER: &str = "cannot load the Vulkan loader (libvulkan.so.1): install \
     libvulkan1 and a Vulkan driver, e.g. `apt-get install libvulkan1 mesa-vulkan-drivers`";

fn open_instance() -> Result<(ash::Entry, ash::Instance), String> {
    // SAFETY: loading the system's Vulkan loader runs its initialisers;
    // that is what every Vulkan program does.
    let entry = unsafe { ash::Entry::load() }.map_err(|e| format!("{MISSING_LOADER} ({e})"))?;
    // SAFETY: plain queries and instance creation with valid structures.
    let version = unsafe { entry.try_enumerate_instance_version() }
        .map_err(call("vkEnumerateInstanceVersion"))?
        .unwrap_or(vk::API_VERSION_1_0);
    if version < vk::API_VERSION_1_2 {
        return Err(format!(
            "the Vulkan loader supports Vulkan {}.{}, gpumc needs 1.2 or later",
            vk::api_version_major(version),
            vk::api_version_minor(version)
        ));
    }
    let app = vk::ApplicationInfo::default()
        .application_name(c"gpumc")
        .api_version(vk::API_VERSION_1_3.min(version));
    let create = vk::InstanceCreateInfo::default().application_info(&app);
    let instance = unsafe { entry.create_instance(&create, None) }.map_err(|e| {
        if e == vk::Result::ERROR_INCOMPATIBLE_DRIVER {
            format!(
                "vkCreateInstance: no Vulkan driver (ICD) found: install one, e.g. \
                 `apt-get install mesa-vulkan-drivers` ({e})"
            )
        } else {
            call("vkCreateInstance")(e)
        }
    })?;
    Ok((entry, instance))
}

/// One physical device, described, with what keeps it from running
/// gpumc kernels (empty: usable).
struct Candidate {
    physical: vk::PhysicalDevice,
    kind: vk::PhysicalDeviceType,
    info: DeviceInfo,
    caps: Caps,
    problems: Vec<String>,
}

fn cstr(bytes: Result<&CStr, std::ffi::FromBytesUntilNulError>) -> String {
    bytes
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The device's compute units (NVIDIA SMs, AMD CUs, Arm shader cores),
/// where a vendor extension reports them; core Vulkan does not. The
/// harness scales its stress workgroups to them, as the CUDA backend does
/// with the SM count: on an H200, 16 stress workgroups left most
/// weakenings of the thesis's tests unseen (docs/HARDWARE.md).
fn compute_units(instance: &ash::Instance, physical: vk::PhysicalDevice) -> Option<u32> {
    // SAFETY: queries on a handle the instance enumerated; a structure is
    // chained only when its extension is listed, as the spec requires.
    let extensions =
        unsafe { instance.enumerate_device_extension_properties(physical) }.unwrap_or_default();
    let has = |name: &CStr| {
        extensions
            .iter()
            .any(|e| e.extension_name_as_c_str() == Ok(name))
    };
    let mut nv = vk::PhysicalDeviceShaderSMBuiltinsPropertiesNV::default();
    let mut amd = vk::PhysicalDeviceShaderCorePropertiesAMD::default();
    let mut arm = vk::PhysicalDeviceShaderCoreBuiltinsPropertiesARM::default();
    let (has_nv, has_amd, has_arm) = (
        has(vk::NV_SHADER_SM_BUILTINS_NAME),
        has(vk::AMD_SHADER_CORE_PROPERTIES_NAME),
        has(vk::ARM_SHADER_CORE_BUILTINS_NAME),
    );
    let mut props = vk::PhysicalDeviceProperties2::default();
    if has_nv {
        props = props.push_next(&mut nv);
    }
    if has_amd {
        props = props.push_next(&mut amd);
    }
    if has_arm {
        props = props.push_next(&mut arm);
    }
    unsafe { instance.get_physical_device_properties2(physical, &mut props) };
    let amd_units = amd
        .shader_engine_count
        .saturating_mul(amd.shader_arrays_per_engine_count)
        .saturating_mul(amd.compute_units_per_shader_array);
    [
        (has_nv, nv.shader_sm_count),
        (has_amd, amd_units),
        (has_arm, arm.shader_core_count),
    ]
    .into_iter()
    .find(|&(present, n)| present && n > 0)
    .map(|(_, n)| n)
}

fn describe(instance: &ash::Instance, physical: vk::PhysicalDevice) -> Candidate {
    let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
    let mut driver = vk::PhysicalDeviceDriverProperties::default();
    let mut size_control = vk::PhysicalDeviceSubgroupSizeControlProperties::default();
    let mut model = vk::PhysicalDeviceVulkanMemoryModelFeatures::default();
    let mut v13 = vk::PhysicalDeviceVulkan13Features::default();
    // SAFETY: queries on a handle the instance enumerated; the chained
    // structures live until the calls return.
    let base = unsafe { instance.get_physical_device_properties(physical) };
    let api = base.api_version;
    let is_13 = api >= vk::API_VERSION_1_3;
    let mut props = vk::PhysicalDeviceProperties2::default()
        .push_next(&mut subgroup)
        .push_next(&mut driver);
    if is_13 {
        props = props.push_next(&mut size_control);
    }
    unsafe { instance.get_physical_device_properties2(physical, &mut props) };
    let mut features = vk::PhysicalDeviceFeatures2::default().push_next(&mut model);
    if is_13 {
        features = features.push_next(&mut v13);
    }
    unsafe { instance.get_physical_device_features2(physical, &mut features) };
    let families = unsafe { instance.get_physical_device_queue_family_properties(physical) };
    let memory = unsafe { instance.get_physical_device_memory_properties(physical) };
    let limits = base.limits;

    let mut problems = Vec::new();
    if api < vk::API_VERSION_1_2 {
        problems.push(format!(
            "supports Vulkan {}.{} only (SPIR-V 1.5 needs 1.2)",
            vk::api_version_major(api),
            vk::api_version_minor(api)
        ));
    }
    if model.vulkan_memory_model == 0 {
        problems.push("lacks the vulkanMemoryModel feature".into());
    }
    if model.vulkan_memory_model_device_scope == 0 {
        problems.push("lacks the vulkanMemoryModelDeviceScope feature".into());
    }
    if !subgroup
        .supported_stages
        .contains(vk::ShaderStageFlags::COMPUTE)
    {
        problems.push("has no subgroup operations in compute shaders".into());
    }
    let queue_family = families
        .iter()
        .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE));
    if queue_family.is_none() {
        problems.push("has no compute queue".into());
    }
    let queue_family = queue_family.unwrap_or(0);
    let valid_bits = families
        .get(queue_family)
        .map_or(0, |f| f.timestamp_valid_bits);
    let timestamps = (limits.timestamp_compute_and_graphics != 0 && valid_bits > 0)
        .then_some((f64::from(limits.timestamp_period), valid_bits));
    let subgroup_size_control = is_13
        && v13.subgroup_size_control != 0
        && size_control
            .required_subgroup_size_stages
            .contains(vk::ShaderStageFlags::COMPUTE);

    let name = cstr(base.device_name_as_c_str());
    let driver_name = cstr(driver.driver_name_as_c_str());
    let driver_info = cstr(driver.driver_info_as_c_str());
    // Mesa's llvmpipe runs shaders through gallivm, whose loop limiter
    // cuts every loop of a shader after 65535 iterations in all.
    let loop_limit = driver_name.contains("llvmpipe").then_some(65_535);
    let driver = match (driver_name.is_empty(), driver_info.is_empty()) {
        (false, false) => format!("{driver_name} {driver_info}"),
        (false, true) => driver_name,
        _ => format!("driver version {:#x}", base.driver_version),
    };
    Candidate {
        physical,
        kind: base.device_type,
        info: DeviceInfo {
            backend: "vulkan".into(),
            name,
            driver,
            subgroup_size: subgroup.subgroup_size,
            max_workgroup_size: limits.max_compute_work_group_size[0]
                .min(limits.max_compute_work_group_invocations),
            max_workgroups: limits.max_compute_work_group_count[0],
            compute_units: compute_units(instance, physical),
            max_shared_words: limits.max_compute_shared_memory_size / 4,
            loop_limit,
        },
        caps: Caps {
            api_version: api,
            queue_family: queue_family as u32,
            timestamps,
            subgroup_size_control,
            full_subgroups: is_13 && v13.compute_full_subgroups != 0,
            max_workgroup_subgroups: size_control.max_compute_workgroup_subgroups,
            memory,
        },
        problems,
    }
}

fn candidates(instance: &ash::Instance) -> Result<Vec<Candidate>, String> {
    // SAFETY: a valid instance.
    let physical = unsafe { instance.enumerate_physical_devices() }
        .map_err(call("vkEnumeratePhysicalDevices"))?;
    Ok(physical
        .into_iter()
        .map(|p| describe(instance, p))
        .collect())
}

/// Every Vulkan device, in the loader's order (the index
/// [`super::VulkanBackend::new`] takes).
pub fn devices() -> Result<Vec<DeviceInfo>, String> {
    let (_entry, instance) = open_instance()?;
    let list = candidates(&instance);
    // SAFETY: nothing made from the instance outlives this function.
    unsafe { instance.destroy_instance(None) };
    Ok(list?.into_iter().map(|c| c.info).collect())
}

/// Preference among usable devices when none is named: real GPUs first.
fn rank(kind: vk::PhysicalDeviceType) -> u32 {
    match kind {
        vk::PhysicalDeviceType::DISCRETE_GPU => 0,
        vk::PhysicalDeviceType::INTEGRATED_GPU => 1,
        vk::PhysicalDeviceType::VIRTUAL_GPU => 2,
        vk::PhysicalDeviceType::CPU => 3,
        _ => 4,
    }
}

/// Opens device `index` (of [`devices`]), or the best usable one.
pub fn open(index: Option<usize>) -> Result<Gpu, String> {
    let (entry, instance) = open_instance()?;
    let chosen = candidates(&instance).and_then(|list| choose(list, index));
    match chosen {
        Ok(c) => Ok(Gpu {
            _entry: entry,
            instance,
            physical: c.physical,
            info: c.info,
            caps: c.caps,
        }),
        Err(e) => {
            // SAFETY: nothing else was made from the instance.
            unsafe { instance.destroy_instance(None) };
            Err(e)
        }
    }
}

fn choose(list: Vec<Candidate>, index: Option<usize>) -> Result<Candidate, String> {
    let n = list.len();
    if n == 0 {
        return Err("the Vulkan loader found no device: install a driver, e.g. \
                    `apt-get install mesa-vulkan-drivers`"
            .into());
    }
    match index {
        Some(i) => {
            let c = list
                .into_iter()
                .nth(i)
                .ok_or_else(|| format!("no Vulkan device {i}: there are {n} (0..{})", n - 1))?;
            if c.problems.is_empty() {
                Ok(c)
            } else {
                Err(format!(
                    "Vulkan device {i} ({}) cannot run gpumc kernels: it {}",
                    c.info.name,
                    c.problems.join("; it ")
                ))
            }
        }
        None => {
            let why: Vec<String> = list
                .iter()
                .map(|c| format!("{}: {}", c.info.name, c.problems.join("; ")))
                .collect();
            list.into_iter()
                .filter(|c| c.problems.is_empty())
                .min_by_key(|c| rank(c.kind))
                .ok_or_else(|| {
                    format!(
                        "no Vulkan device can run gpumc kernels ({})",
                        why.join(" | ")
                    )
                })
        }
    }
}
