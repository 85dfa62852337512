//! Programs and the variants built from them: a program built for one device through the
//! on-disk binary cache, a variant's programs and entry points ([`CompiledVariant`]) with the
//! device's limits checked first, the build options, and the process's build counters.

use std::ffi::CString;
use std::ptr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use opencl3::error_codes::CL_BUILD_PROGRAM_FAILURE;
use opencl3::kernel::Kernel;
use opencl3::program::{
    build_program, create_program_with_binary, create_program_with_source, get_program_build_info, CL_PROGRAM_BUILD_LOG,
};
use opencl3::types::{cl_context, cl_device_id};

use super::binary_cache::BinaryCache;
use super::launch_policy::{atomic_add, AtomicAdd};
use super::scratch::BufferPool;
use crate::cl::Program;
use crate::codegen::render::kernel_name;
use crate::codegen::{Family, Geometry, PackA, Variant};
use crate::device::DeviceInfo;
use crate::error::{cl, Error, Result};
use crate::fault::{self, FaultPoint};
use crate::spec::Precision;

static PROGRAMS_COMPILED: AtomicU64 = AtomicU64::new(0);
static PROGRAMS_FROM_CACHE: AtomicU64 = AtomicU64::new(0);

/// Counters of program builds in this process, for checking that nothing compiles after warm-up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildStats {
    /// Programs built from source (on PoCL, its own kernel cache may serve them).
    pub compiled: u64,
    /// Programs loaded from the on-disk binary cache.
    pub from_cache: u64,
}

/// The program builds so far in this process.
pub fn build_stats() -> BuildStats {
    BuildStats {
        compiled: PROGRAMS_COMPILED.load(Ordering::Relaxed),
        from_cache: PROGRAMS_FROM_CACHE.load(Ordering::Relaxed),
    }
}

/// What building a program needs of an engine: its context and device, the device's facts, the
/// binary cache, the scratch buffers that the variants it builds share, and the helpers program of
/// the precision they are built for.
#[derive(Clone, Copy)]
pub(crate) struct Target<'a> {
    /// The engine's context.
    pub context: cl_context,
    /// The engine's device.
    pub device: cl_device_id,
    /// The device's facts.
    pub info: &'a DeviceInfo,
    /// The on-disk binary cache for the device.
    pub cache: &'a BinaryCache,
    /// The scratch buffers of operands A and B copied transposed first.
    pub transposed_copies: &'a Arc<[BufferPool; 2]>,
    /// The f32 workspaces of 16-bit launches that split K.
    pub workspaces: &'a Arc<BufferPool>,
    /// The helpers program of the variants' precision, whose `combine_c` finishes a 16-bit launch
    /// that splits K (none where the helpers themselves are built: a 16-bit variant built without
    /// them does not split K).
    pub helpers: Option<&'a Program>,
}

impl Program {
    /// Builds `source` for one device, through the binary cache: a cached binary that fails to
    /// load or build, or lacks one of the `kernels` the caller needs, is deleted and replaced by a
    /// fresh build from source.
    pub(crate) fn build(
        target: &Target<'_>,
        name: &str,
        source: &str,
        options: &str,
        kernels: &[&str],
    ) -> Result<Program> {
        if let Some(code) = fault::injected(FaultPoint::Build) {
            return Err(cl("clBuildProgram")(code));
        }
        let key = BinaryCache::key(target.info, source, options);
        let options_c = CString::new(options).expect("build options hold no NUL");
        if let Some(binary) = target.cache.load(&key) {
            // SAFETY: context and device are valid for the engine's lifetime.
            if let Ok(raw) = unsafe { create_program_with_binary(target.context, &[target.device], &[&binary]) } {
                let program = Program(raw);
                if build_program(raw, &[target.device], &options_c, None, ptr::null_mut()).is_ok()
                    && kernels.iter().all(|k| program.kernel(k).is_ok())
                {
                    PROGRAMS_FROM_CACHE.fetch_add(1, Ordering::Relaxed);
                    return Ok(program);
                }
            }
            target.cache.remove(&key);
        }
        let raw = create_program_with_source(target.context, &[source]).map_err(cl("clCreateProgramWithSource"))?;
        let program = Program(raw);
        PROGRAMS_COMPILED.fetch_add(1, Ordering::Relaxed);
        if let Err(code) = build_program(raw, &[target.device], &options_c, None, ptr::null_mut()) {
            let log: String =
                get_program_build_info(raw, target.device, CL_PROGRAM_BUILD_LOG).map(Into::into).unwrap_or_default();
            // A compile error comes with the compiler's log, and will repeat; any other failure
            // (out of resources, a compiler that stopped without a word) may pass, and is built
            // again later (`Error::is_transient`).
            if code == CL_BUILD_PROGRAM_FAILURE && !log.trim().is_empty() {
                return Err(Error::Build { variant: name.to_string(), log });
            }
            return Err(cl("clBuildProgram")(code));
        }
        if target.cache.is_enabled() {
            if let Some(binary) = program.binary_for(target.device) {
                target.cache.store(&key, &binary);
            }
        }
        Ok(program)
    }
}

/// A kernel variant built for one device and precision: four entry points, one per operand layout.
pub struct CompiledVariant {
    #[cfg_attr(not(feature = "tuning"), allow(dead_code))]
    pub(super) id: String,
    pub(super) family: Family,
    pub(super) geometry: Geometry,
    /// The program of the launches that do not split K (for KSPLIT > 1, of every launch).
    pub(super) main: EntryPoints,
    /// For KSPLIT = 0 or SK > 0, the program of the launches that split K (split-K or stream-K),
    /// where the device can split (f64 needs 64-bit atomics); in 16-bit storage, with C an f32
    /// workspace (`-DC_F32`).
    pub(super) split: Option<EntryPoints>,
    /// For PA = 2 (where the device does not narrow the block), the PA = 0 program of the launches
    /// too small to pack A (`LaunchPolicy::packs_a`).
    pub(super) unpacked: Option<EntryPoints>,
    /// The variant's own `scale_c` (C = beta * C, enqueued before a launch that splits K where
    /// the device's atomic add needs it; in 16-bit storage, of the f32 workspace).
    pub(super) scale: Option<Mutex<Kernel>>,
    /// In 16-bit storage, where a launch may split K: the helpers' `combine_c`, which adds the f32
    /// workspace that the launch's kernel added its splits into to C (C = W + beta * C).
    pub(super) combine: Option<Mutex<Kernel>>,
    /// The engine's f32 workspaces for `combine`.
    pub(super) workspaces: Arc<BufferPool>,
    /// Whether `scale` may run in 16 x 16 work-groups.
    pub(super) scale_local: bool,
    /// The device's compute units, for the splits of K that KSPLIT = 0 chooses per launch.
    pub(super) compute_units: usize,
    /// How split-K adds into C on the device, which sets how far KSPLIT = 0 splits.
    pub(super) atomic_add: AtomicAdd,
    /// The flags by which split 0 of a split-K launch releases a tile's other splits, where C is
    /// not scaled first: split 0 stores C and sets the tile's flag to the launch's epoch (its use
    /// number on the buffer), and the other splits wait for it before they add into C. The
    /// buffers start zeroed and are never zeroed again: each launch on one has a new epoch, so a
    /// flag left by an earlier launch never matches.
    pub(super) tile_flags: BufferPool,
    /// The variant's own `transpose_operand`, where its work-groups store an operand contiguous
    /// along K transposed into local memory and the device runs 32 x 8 work-groups: large launches
    /// copy that operand transposed first (`LaunchPolicy::transposes_first`).
    pub(super) transpose: Option<Mutex<Kernel>>,
    /// The engine's scratch buffers for the copies of A and B.
    pub(super) transposed_copies: Arc<[BufferPool; 2]>,
    /// The device's largest buffer, in bytes (a transposed copy must fit).
    pub(super) max_alloc_bytes: usize,
}

/// The least size of a flag buffer: 1024 flags.
const MIN_FLAG_BYTES: usize = 1024 * std::mem::size_of::<u32>();

/// A built program's four entry points, one per operand layout.
pub(super) struct EntryPoints {
    /// Kept alive for the kernels.
    pub(super) program: Program,
    /// Indexed by `a_along_m as usize * 2 + b_along_n as usize`; a mutex each, since setting
    /// arguments and enqueueing must not interleave between threads.
    pub(super) kernels: Vec<Mutex<Kernel>>,
}

/// The build options of a variant's program on a device: the precision, the atomic add's
/// (`-DINT64_ATOMICS` where f64 may add by 64-bit compare-and-swap), `-DNVIDIA_CP_ASYNC` where
/// DB = 3 - 5 may copy by `cp.async` (f32 and f64: the copies move elements as stored, and the
/// 16-bit precisions convert on the way into local memory), `-DNVIDIA_MMA` where the tensor-core
/// family runs `mma.sync` (f16, bf16 and tf32 on a device with tensor cores), and on CPUs
/// `-DVW_CAP`, the panel family's widest VW there.
pub fn variant_build_options(info: &DeviceInfo, precision: Precision) -> String {
    let copies = if info.async_copies && !precision.is_half() { "-DNVIDIA_CP_ASYNC" } else { "" };
    let mma =
        if info.tensor_cores && (precision.is_half() || precision == Precision::Tf32) { "-DNVIDIA_MMA" } else { "" };
    let int64_atomics = if precision == Precision::F64 && info.int64_atomics { "-DINT64_ATOMICS" } else { "" };
    let vw_cap = info.vw_cap(precision).map(|cap| format!("-DVW_CAP={cap}")).unwrap_or_default();
    [precision.build_options(), atomic_add(info).build_option(), int64_atomics, copies, mma, vw_cap.as_str()]
        .iter()
        .filter(|o| !o.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join(" ")
}

impl EntryPoints {
    /// Builds a variant's program and creates its entry points; `helpers` are the other kernels
    /// the variant takes from it. With `c_f32` (16-bit storage only) its C is an f32 workspace
    /// (`-DC_F32`, kernels/common.cl).
    fn build(
        target: &Target<'_>,
        id: &str,
        family: Family,
        source: &str,
        precision: Precision,
        c_f32: bool,
        helpers: &[&str],
    ) -> Result<EntryPoints> {
        let names =
            [(false, false), (false, true), (true, false), (true, true)].map(|(a, b)| kernel_name(family, a, b));
        let mut options = variant_build_options(target.info, precision);
        if c_f32 {
            options.push_str(" -DC_F32");
        }
        let expected: Vec<&str> = names.iter().map(String::as_str).chain(helpers.iter().copied()).collect();
        let program = Program::build(target, id, source, &options, &expected)?;
        let mut kernels = Vec::with_capacity(4);
        for name in &names {
            kernels.push(Mutex::new(program.kernel(name)?));
        }
        Ok(EntryPoints { program, kernels })
    }
}

impl CompiledVariant {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn from_source(
        target: &Target<'_>,
        id: &str,
        variant: &Variant,
        source: &str,
        split_source: Option<&str>,
        unpacked_source: Option<&str>,
        precision: Precision,
    ) -> Result<CompiledVariant> {
        let unavailable = |reason: String| Error::Unavailable { what: format!("variant {id}"), reason };
        let info = target.info;
        // The variant as the device runs it (a CPU narrows the panel family's VW).
        let variant = &info.runs(variant, precision);
        // Before the device's limits: a family that does not compute in the precision never runs.
        if !precision.computed_by(variant.family) {
            return Err(unavailable(format!("the tensor-core family does not compute in {precision}")));
        }
        if variant.work_group_size() > info.max_work_group_size {
            return Err(unavailable(format!(
                "work-group of {} exceeds the device's {}",
                variant.work_group_size(),
                info.max_work_group_size
            )));
        }
        let local = variant.local_mem_bytes(precision.local_element_bytes(variant.family));
        if local > info.local_mem_bytes {
            return Err(unavailable(format!(
                "needs {local} bytes of local memory, the device has {}",
                info.local_mem_bytes
            )));
        }
        if precision == Precision::F64 && !info.fp64 {
            return Err(unavailable("the device has no fp64".into()));
        }
        let geometry = variant.geometry();
        // Split-K adds into C atomically: f64 needs 64-bit atomics. 16-bit C has no atomic add
        // (and each split's part rounded to 16 bits would lose what f32 accumulation keeps): a
        // 16-bit program that splits K is built with C an f32 workspace (-DC_F32), which the
        // helpers' `combine_c` then adds into C. Its main program too where it always splits
        // (KSPLIT > 1).
        let half = precision.is_half();
        let combine = match (half && (geometry.k_splits > 1 || split_source.is_some()), target.helpers) {
            (true, Some(helpers)) => Some(Mutex::new(helpers.kernel("combine_c")?)),
            _ => None,
        };
        let may_split = match precision {
            Precision::F64 => info.int64_atomics,
            _ => !half || combine.is_some(),
        };
        if geometry.k_splits > 1 && !may_split {
            return Err(unavailable(format!("split-K in {precision} needs an atomic add the device lacks")));
        }
        let atomic_add = atomic_add(info);
        // The panel family's one program takes its splits as an argument; it splits only where C
        // is scaled first, and not in 16-bit storage (every launch of its one program would then
        // go through the workspace). `scale_c` comes from the program of the launches that split K.
        let panel_splits = variant.family == Family::Panel && may_split && !half && atomic_add.scales_c_first();
        let splits_in_main = geometry.k_splits > 1 || panel_splits;
        let split_program = split_source.filter(|_| may_split);
        let scale_in_main = atomic_add.scales_c_first() && splits_in_main;
        let scale_in_split = atomic_add.scales_c_first() && !splits_in_main && split_program.is_some();
        let transposes = geometry.transposing_stores.contains(&true) && info.max_work_group_size >= 256;
        // The helper kernels each program must hold besides its entry points (a cached binary
        // without them is rebuilt).
        let main_helpers: Vec<&str> = [("scale_c", scale_in_main), ("transpose_operand", transposes)]
            .iter()
            .filter(|h| h.1)
            .map(|h| h.0)
            .collect();
        let split_helpers: &[&str] = if scale_in_split { &["scale_c"] } else { &[] };
        let main_c_f32 = half && geometry.k_splits > 1;
        let main = EntryPoints::build(target, id, variant.family, source, precision, main_c_f32, &main_helpers)?;
        let split = match split_program {
            Some(split_source) => {
                Some(EntryPoints::build(target, id, variant.family, split_source, precision, half, split_helpers)?)
            }
            None => None,
        };
        // A narrowed block does not pack (its kernel reads PA as 0), so it needs no PA = 0 program.
        let unpacked = match unpacked_source {
            Some(unpacked) if geometry.pack_a == PackA::WhereLarge => {
                Some(EntryPoints::build(target, id, variant.family, unpacked, precision, false, &[])?)
            }
            _ => None,
        };
        let scale = match (scale_in_main, &split) {
            (true, _) => Some(Mutex::new(main.program.kernel("scale_c")?)),
            (false, Some(split)) if scale_in_split => Some(Mutex::new(split.program.kernel("scale_c")?)),
            _ => None,
        };
        let transpose = match transposes {
            true => Some(Mutex::new(main.program.kernel("transpose_operand")?)),
            false => None,
        };
        Ok(CompiledVariant {
            id: id.to_string(),
            family: variant.family,
            geometry,
            main,
            split,
            unpacked,
            scale,
            combine,
            workspaces: target.workspaces.clone(),
            scale_local: info.max_work_group_size >= 256,
            compute_units: info.compute_units,
            atomic_add,
            tile_flags: BufferPool::new(true, MIN_FLAG_BYTES),
            transpose,
            transposed_copies: target.transposed_copies.clone(),
            max_alloc_bytes: usize::try_from(info.max_alloc_bytes).unwrap_or(usize::MAX),
        })
    }

    /// The variant id.
    #[cfg(feature = "tuning")]
    pub fn id(&self) -> &str {
        &self.id
    }
}

/// The kernel templates (`kernels/*.cl`), embedded: what renders variants outside the shipped set.
#[cfg(feature = "tuning")]
pub const KERNEL_TEMPLATES: [(&str, &str); 7] = [
    ("common.cl", include_str!("../../kernels/common.cl")),
    ("macros.cl", include_str!("../../kernels/macros.cl")),
    ("xgemm.cl", include_str!("../../kernels/xgemm.cl")),
    ("direct.cl", include_str!("../../kernels/direct.cl")),
    ("panel.cl", include_str!("../../kernels/panel.cl")),
    ("mma.cl", include_str!("../../kernels/mma.cl")),
    ("scale.cl", include_str!("../../kernels/scale.cl")),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::DeviceClass;

    fn device(class: DeviceClass, cpu_vector_lanes: Option<[u32; 2]>) -> DeviceInfo {
        DeviceInfo {
            name: "test device".into(),
            vendor: "test vendor".into(),
            driver: "1".into(),
            platform_version: "OpenCL 3.0".into(),
            class,
            compute_units: 2,
            max_work_group_size: 4096,
            local_mem_bytes: 65536,
            max_alloc_bytes: 1 << 30,
            fp64: true,
            int64_atomics: true,
            async_copies: false,
            tensor_cores: false,
            cpu_vector_lanes,
        }
    }

    #[test]
    fn build_options_cap_the_panel_width_on_cpus_only() {
        let avx2 = device(DeviceClass::Cpu, Some([8, 4]));
        assert_eq!(variant_build_options(&avx2, Precision::F32), "-DPRECISION=32 -DVW_CAP=8");
        assert_eq!(variant_build_options(&avx2, Precision::F64), "-DPRECISION=64 -DINT64_ATOMICS -DVW_CAP=4");
        let gpu = device(DeviceClass::NvidiaGpu, None);
        assert_eq!(variant_build_options(&gpu, Precision::F32), "-DPRECISION=32 -DNVIDIA_PTX_RED");
    }

    #[test]
    fn half_precisions_convert_on_every_device_and_use_tensor_cores_where_present() {
        let mut gpu = device(DeviceClass::NvidiaGpu, None);
        (gpu.async_copies, gpu.tensor_cores) = (true, true);
        let f32 = variant_build_options(&gpu, Precision::F32);
        assert_eq!(f32, "-DPRECISION=32 -DNVIDIA_PTX_RED -DNVIDIA_CP_ASYNC");
        let f16 = variant_build_options(&gpu, Precision::F16);
        assert_eq!(f16, "-DPRECISION=32 -DSTORAGE_F16 -DNVIDIA_PTX_RED -DNVIDIA_MMA");
        let tf32 = variant_build_options(&gpu, Precision::Tf32);
        assert_eq!(tf32, "-DPRECISION=32 -DCOMPUTE_TF32 -DNVIDIA_PTX_RED -DNVIDIA_CP_ASYNC -DNVIDIA_MMA");
        let cpu = device(DeviceClass::Cpu, Some([8, 4]));
        assert_eq!(variant_build_options(&cpu, Precision::Bf16), "-DPRECISION=32 -DSTORAGE_BF16 -DVW_CAP=8");
    }
}
