//! Device classes, device facts that constrain variants, and the choice of the default device.

use std::fmt;

use once_cell::sync::OnceCell;
use opencl3::command_queue::{CommandQueue, CL_QUEUE_PROFILING_ENABLE};
use opencl3::context::Context;
use opencl3::device::{Device, CL_DEVICE_TYPE_ALL, CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU};
use opencl3::platform::get_platforms;
use opencl3::types::cl_device_id;

use crate::error::{cl, no_opencl_library, Error, Result};
use crate::spec::Precision;

/// A family of devices that shares one selector tree (`selector/<class>.json`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeviceClass {
    /// CPUs through OpenCL (PoCL, Intel's CPU runtime): no real local memory, wide SIMD, few cores.
    Cpu,
    /// NVIDIA GPUs through NVIDIA's OpenCL.
    NvidiaGpu,
    /// Any other GPU (AMD, Intel, ARM, Apple...): its tree is trained on every GPU's data, so it
    /// names no kernel that no GPU ran (no CPU kernel); built without NVIDIA's PTX.
    Gpu,
    /// Any other device (accelerators): the portable choice, trained on every device's data.
    Default,
}

impl DeviceClass {
    /// Every class, in the order of `codegen::CLASSES`.
    pub const ALL: [DeviceClass; 4] =
        [DeviceClass::Cpu, DeviceClass::NvidiaGpu, DeviceClass::Gpu, DeviceClass::Default];

    /// The class's name, as in `selector/<name>.json`.
    pub fn name(self) -> &'static str {
        match self {
            DeviceClass::Cpu => "cpu",
            DeviceClass::NvidiaGpu => "nvidia-gpu",
            DeviceClass::Gpu => "gpu",
            DeviceClass::Default => "default",
        }
    }

    /// The class of a name from [`DeviceClass::name`].
    pub fn from_name(name: &str) -> Option<DeviceClass> {
        DeviceClass::ALL.into_iter().find(|c| c.name() == name)
    }

    /// The class of a device from its OpenCL type and vendor (falls back to `Default`).
    pub fn of(device_type: u64, vendor: &str) -> DeviceClass {
        if device_type & CL_DEVICE_TYPE_CPU != 0 {
            DeviceClass::Cpu
        } else if device_type & CL_DEVICE_TYPE_GPU != 0 && vendor.to_ascii_lowercase().contains("nvidia") {
            DeviceClass::NvidiaGpu
        } else if device_type & CL_DEVICE_TYPE_GPU != 0 {
            DeviceClass::Gpu
        } else {
            DeviceClass::Default
        }
    }
}

impl fmt::Display for DeviceClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The facts about a device that select and constrain variants and key the binary cache.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// Device name (`NVIDIA H200`, `pthread-haswell-AMD EPYC ...`).
    pub name: String,
    /// Device vendor.
    pub vendor: String,
    /// Driver version.
    pub driver: String,
    /// Platform version (`OpenCL 3.0 CUDA ...`, `OpenCL 3.0 PoCL ...`).
    pub platform_version: String,
    /// The selector class.
    pub class: DeviceClass,
    /// Compute units (SMs, cores).
    pub compute_units: usize,
    /// Largest work-group size.
    pub max_work_group_size: usize,
    /// Local memory per work-group, in bytes.
    pub local_mem_bytes: usize,
    /// The largest buffer the device allocates, in bytes (CL_DEVICE_MAX_MEM_ALLOC_SIZE).
    pub max_alloc_bytes: u64,
    /// Whether the device computes in f64.
    pub fp64: bool,
    /// Whether the device has 64-bit global atomics (cl_khr_int64_base_atomics), which f64 split-K needs.
    pub int64_atomics: bool,
    /// Whether kernels may copy global to local memory asynchronously by PTX `cp.async`: an NVIDIA
    /// GPU of compute capability 8.0 or later (cl_nv_device_attribute_query).
    pub async_copies: bool,
    /// Whether the device has tensor cores that PTX `mma.sync` reaches for f16, bf16 and tf32
    /// (an NVIDIA GPU of compute capability 8.0 or later): the tensor-core family then runs them
    /// (`-DNVIDIA_MMA`), and [`crate::Compute::FastTf32`] takes effect.
    pub tensor_cores: bool,
    /// In the `cpu` class (every CPU, unless `FEWFIT_DEVICE_CLASS` names another class), the
    /// device's native vector widths for f32 and f64 (the elements one vector register holds),
    /// which cap the panel family's VW ([`DeviceInfo::vw_cap`]); None in the other classes, whose
    /// build options run VW as it is.
    pub cpu_vector_lanes: Option<[u32; 2]>,
}

impl DeviceInfo {
    /// Queries a device. Its class is [`DeviceClass::of`] its type and vendor, unless
    /// `FEWFIT_DEVICE_CLASS` names one (for a device the rule misjudges, e.g. an NVIDIA GPU through
    /// a runtime without NVIDIA's PTX).
    pub fn query(id: cl_device_id) -> Result<DeviceInfo> {
        let d = Device::new(id);
        let vendor = d.vendor().map_err(|e| cl("clGetDeviceInfo")(e.0))?;
        let device_type = d.dev_type().map_err(|e| cl("clGetDeviceInfo")(e.0))?;
        let platform = opencl3::platform::Platform::new(d.platform().map_err(|e| cl("clGetDeviceInfo")(e.0))?);
        let class = match std::env::var("FEWFIT_DEVICE_CLASS") {
            Ok(name) if !name.is_empty() => DeviceClass::from_name(&name).ok_or_else(|| Error::InvalidArgument {
                name: "FEWFIT_DEVICE_CLASS",
                value: name.clone(),
                reason: "not a device class: cpu, nvidia-gpu, gpu or default".into(),
            })?,
            _ => DeviceClass::of(device_type, &vendor),
        };
        let async_copies =
            class == DeviceClass::NvidiaGpu && d.compute_capability_major_nv().is_ok_and(|major| major >= 8);
        let cpu_vector_lanes = (class == DeviceClass::Cpu)
            .then(|| [d.native_vector_width_float().unwrap_or(4), d.native_vector_width_double().unwrap_or(2)]);
        Ok(DeviceInfo {
            name: d.name().map_err(|e| cl("clGetDeviceInfo")(e.0))?.trim().to_string(),
            class,
            vendor,
            driver: d.driver_version().map_err(|e| cl("clGetDeviceInfo")(e.0))?,
            platform_version: platform.version().map_err(|e| cl("clGetPlatformInfo")(e.0))?,
            compute_units: d.max_compute_units().map_err(|e| cl("clGetDeviceInfo")(e.0))? as usize,
            max_work_group_size: d.max_work_group_size().map_err(|e| cl("clGetDeviceInfo")(e.0))?,
            local_mem_bytes: d.local_mem_size().map_err(|e| cl("clGetDeviceInfo")(e.0))? as usize,
            max_alloc_bytes: d.max_mem_alloc_size().map_err(|e| cl("clGetDeviceInfo")(e.0))?,
            fp64: d.double_fp_config().map(|c| c != 0).unwrap_or(false),
            int64_atomics: d.extensions().map(|e| e.contains("cl_khr_int64_base_atomics")).unwrap_or(false),
            async_copies,
            tensor_cores: async_copies,
            cpu_vector_lanes,
        })
    }

    /// The width the panel family's VW is capped at on this device in a precision (the kernel's
    /// `-DVW_CAP`): in the `cpu` class, the widest VW the device's vector registers hold
    /// ([`codegen::vw_cap`](crate::codegen::vw_cap)); None elsewhere, where VW runs as it is.
    pub fn vw_cap(&self, precision: Precision) -> Option<u32> {
        self.cpu_vector_lanes.map(|lanes| crate::codegen::vw_cap(lanes[(precision.compute_bytes() == 8) as usize]))
    }

    /// A variant as this device runs it in `precision`: a CPU narrows the panel family's VW to its
    /// [`DeviceInfo::vw_cap`] (and such a block does not pack A); other variants are unchanged.
    pub fn runs(&self, variant: &crate::codegen::Variant, precision: Precision) -> crate::codegen::Variant {
        match self.vw_cap(precision) {
            Some(cap) => variant.with_vw_cap(cap),
            None => variant.clone(),
        }
    }
}

/// Whether `elements` values of `element_bytes` each fit in one buffer of at most `max_alloc_bytes`
/// ([`DeviceInfo::max_alloc_bytes`]); a size that overflows does not.
pub fn fits_in_buffer(elements: u64, element_bytes: u64, max_alloc_bytes: u64) -> bool {
    elements.saturating_mul(element_bytes) <= max_alloc_bytes
}

/// Every OpenCL device as (platform index, device index, id), in platform order.
pub fn list_devices() -> Result<Vec<(usize, usize, cl_device_id)>> {
    if cl3::load_library().is_err() {
        return Err(no_opencl_library());
    }
    let platforms = get_platforms().map_err(|e| {
        Error::NoDevice(format!("no OpenCL platform ({e}); install an OpenCL runtime such as Debian's pocl-opencl-icd"))
    })?;
    let mut out = Vec::new();
    for (p, platform) in platforms.iter().enumerate() {
        for (d, id) in platform.get_devices(CL_DEVICE_TYPE_ALL).unwrap_or_default().into_iter().enumerate() {
            out.push((p, d, id));
        }
    }
    Ok(out)
}

/// Chooses a device from a `FEWFIT_DEVICE`-style spec: `gpu`, `cpu`, `PLATFORM:DEVICE` indices, or
/// a part of the device name; with no spec, the first GPU, else the first CPU, else the first device.
pub fn choose_device(spec: Option<&str>) -> Result<cl_device_id> {
    let devices = list_devices()?;
    let of_type = |t: u64| {
        devices
            .iter()
            .find(|(_, _, id)| Device::new(*id).dev_type().map(|dt| dt & t != 0).unwrap_or(false))
            .map(|d| d.2)
    };
    let found = match spec.map(str::trim) {
        None | Some("") => {
            of_type(CL_DEVICE_TYPE_GPU).or_else(|| of_type(CL_DEVICE_TYPE_CPU)).or(devices.first().map(|d| d.2))
        }
        Some("gpu") => of_type(CL_DEVICE_TYPE_GPU),
        Some("cpu") => of_type(CL_DEVICE_TYPE_CPU),
        Some(s) => match s.split_once(':').map(|(p, d)| (p.parse::<usize>(), d.parse::<usize>())) {
            Some((Ok(p), Ok(d))) => devices.iter().find(|x| x.0 == p && x.1 == d).map(|x| x.2),
            _ => devices.iter().find(|x| Device::new(x.2).name().map(|n| n.contains(s)).unwrap_or(false)).map(|x| x.2),
        },
    };
    found.ok_or_else(|| {
        let names: Vec<String> = devices
            .iter()
            .map(|(p, d, id)| format!("{p}:{d} {}", Device::new(*id).name().unwrap_or_default()))
            .collect();
        Error::NoDevice(format!("no device matches {:?}; devices: [{}]", spec.unwrap_or("(default)"), names.join(", ")))
    })
}

/// A device with its own context and in-order queues: what the host-slice API, the examples and
/// the benches use. Frameworks bring their own context and queue instead.
pub struct DefaultDevice {
    /// The OpenCL context (one device).
    pub context: Context,
    /// An in-order queue without profiling (safe to share between threads). Profiling makes every
    /// enqueue that returns an event slower: on an H100 with NVIDIA's OpenCL, 19.5 µs against 13.3 µs
    /// for an empty kernel (`examples/launch_cost.rs`).
    pub queue: CommandQueue,
    /// An in-order queue with profiling enabled, for tools that time kernels by their events (the
    /// sweep, the peer bench).
    pub profiling_queue: CommandQueue,
    /// The device's facts.
    pub info: DeviceInfo,
}

impl DefaultDevice {
    /// Opens a device chosen by `spec` (see [`choose_device`]).
    pub fn open(spec: Option<&str>) -> Result<DefaultDevice> {
        let id = choose_device(spec)?;
        let info = DeviceInfo::query(id)?;
        let context = Context::from_device(&Device::new(id)).map_err(|e| cl("clCreateContext")(e.0))?;
        #[allow(deprecated)]
        let queue_with = |properties| {
            CommandQueue::create_default(&context, properties).map_err(|e| cl("clCreateCommandQueue")(e.0))
        };
        let (queue, profiling_queue) = (queue_with(0)?, queue_with(CL_QUEUE_PROFILING_ENABLE)?);
        Ok(DefaultDevice { context, queue, profiling_queue, info })
    }

    /// The process-wide default device, chosen once by `FEWFIT_DEVICE`.
    pub fn get() -> Result<&'static DefaultDevice> {
        static DEVICE: OnceCell<DefaultDevice> = OnceCell::new();
        DEVICE.get_or_try_init(|| DefaultDevice::open(std::env::var("FEWFIT_DEVICE").ok().as_deref()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use opencl3::device::{CL_DEVICE_TYPE_ACCELERATOR, CL_DEVICE_TYPE_GPU};

    #[test]
    fn devices_map_to_classes_by_type_and_vendor() {
        assert_eq!(DeviceClass::of(CL_DEVICE_TYPE_CPU, "AuthenticAMD"), DeviceClass::Cpu);
        assert_eq!(DeviceClass::of(CL_DEVICE_TYPE_GPU, "NVIDIA Corporation"), DeviceClass::NvidiaGpu);
        // A GPU of another vendor gets the GPU tree without NVIDIA's PTX, never a CPU kernel's tree.
        assert_eq!(DeviceClass::of(CL_DEVICE_TYPE_GPU, "Advanced Micro Devices, Inc."), DeviceClass::Gpu);
        assert_eq!(DeviceClass::of(CL_DEVICE_TYPE_GPU, "Intel(R) Corporation"), DeviceClass::Gpu);
        assert_eq!(DeviceClass::of(CL_DEVICE_TYPE_ACCELERATOR, "Xilinx"), DeviceClass::Default);
        for class in DeviceClass::ALL {
            assert_eq!(DeviceClass::from_name(class.name()), Some(class));
        }
    }
}
