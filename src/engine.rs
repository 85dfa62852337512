//! Per-device engines: the shipped variant set built once per (context, device) and cached on disk,
//! the kernels' launch, and the registry that finds a queue's engine.

use std::collections::HashMap;
use std::ffi::CString;
use std::ptr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use once_cell::sync::{Lazy, OnceCell};
use opencl3::command_queue::{get_command_queue_info, CL_QUEUE_CONTEXT, CL_QUEUE_DEVICE};
use opencl3::kernel::{create_kernel, set_kernel_arg, Kernel};
use opencl3::program::{
    build_program, create_program_with_binary, create_program_with_source, get_program_build_info, get_program_info,
    release_program, CL_PROGRAM_BINARIES, CL_PROGRAM_BUILD_LOG, CL_PROGRAM_DEVICES,
};
use opencl3::types::{cl_command_queue, cl_context, cl_device_id, cl_event, cl_mem, cl_program};
use opencl_sys::{clEnqueueNDRangeKernel, CL_SUCCESS};

use crate::cache::BinaryCache;
use crate::codegen::render::kernel_name;
use crate::codegen::{AtomicAdd, Family, Geometry, Orientation, PackA, ShapeFeatures, Variant};
use crate::device::{DeviceClass, DeviceInfo};
use crate::error::{cl, Error, Result};
use crate::gemm::{mem_len, Element, Precision, Problem};
use crate::reused_buffers::{BufferPool, Lease};
use crate::selection::{self, VariantId, HELPERS_SOURCE};

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

/// An OpenCL program handle, released on drop.
struct Program(cl_program);

// SAFETY: OpenCL program objects may be used from any thread.
unsafe impl Send for Program {}
unsafe impl Sync for Program {}

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: we own one reference to the program.
        unsafe {
            let _ = release_program(self.0);
        }
    }
}

impl Program {
    /// Builds `source` for one device, through the binary cache: a cached binary that fails to
    /// load or build is replaced by a fresh build from source.
    fn build(engine: &Engine, name: &str, source: &str, options: &str) -> Result<Program> {
        let key = BinaryCache::key(&engine.info, source, options);
        let options_c = CString::new(options).expect("build options hold no NUL");
        if let Some(binary) = engine.cache.load(&key) {
            // SAFETY: context and device are valid for the engine's lifetime.
            if let Ok(raw) = unsafe { create_program_with_binary(engine.context, &[engine.device], &[&binary]) } {
                let program = Program(raw);
                if build_program(raw, &[engine.device], &options_c, None, ptr::null_mut()).is_ok() {
                    PROGRAMS_FROM_CACHE.fetch_add(1, Ordering::Relaxed);
                    return Ok(program);
                }
            }
        }
        let raw = create_program_with_source(engine.context, &[source]).map_err(cl("clCreateProgramWithSource"))?;
        let program = Program(raw);
        PROGRAMS_COMPILED.fetch_add(1, Ordering::Relaxed);
        if build_program(raw, &[engine.device], &options_c, None, ptr::null_mut()).is_err() {
            let log: String =
                get_program_build_info(raw, engine.device, CL_PROGRAM_BUILD_LOG).map(Into::into).unwrap_or_default();
            return Err(Error::Build { variant: name.to_string(), log });
        }
        if engine.cache.is_enabled() {
            if let Some(binary) = program.binary_for(engine.device) {
                engine.cache.store(&key, &binary);
            }
        }
        Ok(program)
    }

    fn binary_for(&self, device: cl_device_id) -> Option<Vec<u8>> {
        let devices: Vec<isize> = get_program_info(self.0, CL_PROGRAM_DEVICES).ok()?.into();
        let index = devices.iter().position(|&d| d as cl_device_id == device)?;
        let binaries: Vec<Vec<u8>> = get_program_info(self.0, CL_PROGRAM_BINARIES).ok()?.into();
        binaries.into_iter().nth(index).filter(|b| !b.is_empty())
    }

    fn kernel(&self, name: &str) -> Result<Kernel> {
        let name = CString::new(name).expect("kernel names hold no NUL");
        Ok(Kernel::new(create_kernel(self.0, &name).map_err(cl("clCreateKernel"))?))
    }
}

/// A kernel variant built for one device and precision: four entry points, one per operand layout.
pub struct CompiledVariant {
    #[cfg_attr(not(feature = "tuning"), allow(dead_code))]
    id: String,
    family: Family,
    geometry: Geometry,
    /// The program of the launches that do not split K (for KSPLIT > 1, of every launch).
    main: EntryPoints,
    /// For KSPLIT = 0 or SK > 0, the program of the launches that split K (split-K or stream-K),
    /// where the device can split (f64 needs 64-bit atomics).
    split: Option<EntryPoints>,
    /// For PA = 2 (where the device does not narrow the block), the PA = 0 program of the launches
    /// too small to pack A ([`Geometry::packs_a`]).
    unpacked: Option<EntryPoints>,
    /// The variant's own `scale_c` (C = beta * C, enqueued before a launch that splits K where
    /// the device's atomic add needs it).
    scale: Option<Mutex<Kernel>>,
    /// Whether `scale` may run in 16 x 16 work-groups.
    scale_local: bool,
    /// The device's compute units, for the splits of K that KSPLIT = 0 chooses per launch.
    compute_units: usize,
    /// How split-K adds into C on the device, which sets how far KSPLIT = 0 splits.
    atomic_add: AtomicAdd,
    /// The flags by which split 0 of a split-K launch releases a tile's other splits, where C is
    /// not scaled first: split 0 stores C and sets the tile's flag to the launch's epoch (its use
    /// number on the buffer), and the other splits wait for it before they add into C. The
    /// buffers start zeroed and are never zeroed again: each launch on one has a new epoch, so a
    /// flag left by an earlier launch never matches.
    tile_flags: BufferPool,
    /// The variant's own `transpose_operand`, where its work-groups store an operand contiguous
    /// along K transposed into local memory and the device runs 32 x 8 work-groups: large launches
    /// copy that operand transposed first ([`Geometry::transposes_first`]).
    transpose: Option<Mutex<Kernel>>,
    /// The engine's scratch buffers for the copies of A and B.
    transposed_copies: Arc<[BufferPool; 2]>,
    /// The device's largest buffer, in bytes (a transposed copy must fit).
    max_alloc_bytes: usize,
}

/// The least size of a flag buffer: 1024 flags.
const MIN_FLAG_BYTES: usize = 1024 * std::mem::size_of::<u32>();

/// A built program's four entry points, one per operand layout.
struct EntryPoints {
    /// Kept alive for the kernels.
    program: Program,
    /// Indexed by `a_along_m as usize * 2 + b_along_n as usize`; a mutex each, since setting
    /// arguments and enqueueing must not interleave between threads.
    kernels: Vec<Mutex<Kernel>>,
}

/// How split-K adds into C on a device: PTX reductions on NVIDIA GPUs, else compare-and-swap.
fn atomic_add(info: &DeviceInfo) -> AtomicAdd {
    match info.class {
        DeviceClass::NvidiaGpu => AtomicAdd::Reduction,
        DeviceClass::Cpu | DeviceClass::Gpu | DeviceClass::Default => AtomicAdd::CompareAndSwap,
    }
}

/// The build options of a variant's program on a device: the precision, the atomic add's
/// (`-DINT64_ATOMICS` where f64 may add by 64-bit compare-and-swap), `-DNVIDIA_CP_ASYNC` where
/// DB = 3 - 5 may copy by `cp.async`, and on CPUs `-DVW_CAP`, the panel family's widest VW there.
pub fn variant_build_options(info: &DeviceInfo, precision: Precision) -> String {
    let copies = if info.async_copies { "-DNVIDIA_CP_ASYNC" } else { "" };
    let int64_atomics = if precision == Precision::F64 && info.int64_atomics { "-DINT64_ATOMICS" } else { "" };
    let vw_cap = info.vw_cap(precision).map(|cap| format!("-DVW_CAP={cap}")).unwrap_or_default();
    [precision.build_options(), atomic_add(info).build_option(), int64_atomics, copies, vw_cap.as_str()]
        .iter()
        .filter(|o| !o.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join(" ")
}

impl EntryPoints {
    fn build(engine: &Engine, id: &str, family: Family, source: &str, precision: Precision) -> Result<EntryPoints> {
        let program = Program::build(engine, id, source, &variant_build_options(&engine.info, precision))?;
        let mut kernels = Vec::with_capacity(4);
        for a_along_m in [false, true] {
            for b_along_n in [false, true] {
                kernels.push(Mutex::new(program.kernel(&kernel_name(family, a_along_m, b_along_n))?));
            }
        }
        Ok(EntryPoints { program, kernels })
    }
}

impl CompiledVariant {
    /// Renders and builds any variant (shipped or not) for an engine's device; refuses variants
    /// beyond the device's work-group or local-memory limits.
    #[cfg(feature = "tuning")]
    pub fn build(engine: &Engine, variant: &Variant, precision: Precision) -> Result<CompiledVariant> {
        static RENDERER: OnceCell<crate::codegen::Renderer> = OnceCell::new();
        let renderer = RENDERER.get_or_try_init(|| crate::codegen::Renderer::new(&crate::KERNEL_TEMPLATES))?;
        let sources = renderer.render_sources(variant)?;
        let (split, unpacked) = (sources.split.as_deref(), sources.unpacked.as_deref());
        CompiledVariant::from_source(engine, &variant.id(), variant, &sources.main, split, unpacked, precision)
    }

    #[allow(clippy::too_many_arguments)]
    fn from_source(
        engine: &Engine,
        id: &str,
        variant: &Variant,
        source: &str,
        split_source: Option<&str>,
        unpacked_source: Option<&str>,
        precision: Precision,
    ) -> Result<CompiledVariant> {
        let unavailable = |reason: String| Error::Unavailable { what: format!("variant {id}"), reason };
        let info = &engine.info;
        // The variant as the device runs it (a CPU narrows the panel family's VW).
        let variant = &info.runs(variant, precision);
        if variant.work_group_size() > info.max_work_group_size {
            return Err(unavailable(format!(
                "work-group of {} exceeds the device's {}",
                variant.work_group_size(),
                info.max_work_group_size
            )));
        }
        let local = variant.local_mem_bytes(precision.bytes());
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
        let may_split = precision != Precision::F64 || info.int64_atomics;
        if geometry.k_splits > 1 && !may_split {
            return Err(unavailable("split-K in f64 needs cl_khr_int64_base_atomics, which the device lacks".into()));
        }
        let main = EntryPoints::build(engine, id, variant.family, source, precision)?;
        let split = match split_source {
            Some(split_source) if may_split => {
                Some(EntryPoints::build(engine, id, variant.family, split_source, precision)?)
            }
            _ => None,
        };
        // A narrowed block does not pack (its kernel reads PA as 0), so it needs no PA = 0 program.
        let unpacked = match unpacked_source {
            Some(unpacked) if geometry.pack_a == PackA::WhereLarge => {
                Some(EntryPoints::build(engine, id, variant.family, unpacked, precision)?)
            }
            _ => None,
        };
        let atomic_add = atomic_add(info);
        // The panel family's one program takes its splits as an argument; it splits only where C
        // is scaled first.
        let panel_splits = variant.family == Family::Panel && may_split && atomic_add.scales_c_first();
        let with_scale = if geometry.k_splits > 1 || panel_splits { Some(&main) } else { split.as_ref() };
        let scale = match with_scale {
            Some(entries) if atomic_add.scales_c_first() => Some(Mutex::new(entries.program.kernel("scale_c")?)),
            _ => None,
        };
        let transpose = match geometry.transposing_stores.contains(&true) && info.max_work_group_size >= 256 {
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
            scale_local: info.max_work_group_size >= 256,
            compute_units: info.compute_units,
            atomic_add,
            tile_flags: BufferPool::new(true, MIN_FLAG_BYTES),
            transpose,
            transposed_copies: engine.transposed_copies.clone(),
            max_alloc_bytes: usize::try_from(info.max_alloc_bytes).unwrap_or(usize::MAX),
        })
    }

    /// The variant id.
    #[cfg(feature = "tuning")]
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Checks a GEMM's arguments and enqueues it on this variant (the tuner's way to time any
    /// variant of the space); the queue must belong to the engine's context and device. The event
    /// is the kernel's; see [`CompiledVariant::enqueue_gemm_timed`] for the whole launch.
    #[cfg(feature = "tuning")]
    #[allow(clippy::too_many_arguments)]
    pub fn enqueue_gemm<T: Element>(
        &self,
        queue: &opencl3::command_queue::CommandQueue,
        spec: &crate::GemmSpec,
        alpha: T,
        a: &opencl3::memory::Buffer<T>,
        b: &opencl3::memory::Buffer<T>,
        beta: T,
        c: &mut opencl3::memory::Buffer<T>,
        wait: &[cl_event],
    ) -> Result<opencl3::event::Event> {
        Ok(self.enqueue_gemm_timed(queue, spec, alpha, a, b, beta, c, wait)?.0)
    }

    /// As [`CompiledVariant::enqueue_gemm`], also returning the event of the launch's first kernel
    /// where it enqueues more than one (`None` otherwise): the copy of an operand transposed
    /// ([`Geometry::transposes_first`]), or the `scale_c` kernel that a launch splitting K enqueues
    /// first where the device's atomic add needs it (not on NVIDIA GPUs). The launch's device time
    /// runs from that event's start to the kernel's end.
    #[cfg(feature = "tuning")]
    #[allow(clippy::too_many_arguments)]
    pub fn enqueue_gemm_timed<T: Element>(
        &self,
        queue: &opencl3::command_queue::CommandQueue,
        spec: &crate::GemmSpec,
        alpha: T,
        a: &opencl3::memory::Buffer<T>,
        b: &opencl3::memory::Buffer<T>,
        beta: T,
        c: &mut opencl3::memory::Buffer<T>,
        wait: &[cl_event],
    ) -> Result<(opencl3::event::Event, Option<opencl3::event::Event>)> {
        use opencl3::memory::ClMem;
        let lengths = [mem_len::<T>(a.get())?, mem_len::<T>(b.get())?, mem_len::<T>(c.get())?];
        let problem = spec.validate(alpha == T::ZERO, lengths, [a.get(), b.get(), c.get()])?;
        if problem.m == 0 || problem.n == 0 || problem.batch == 0 || problem.k == 0 || alpha == T::ZERO {
            return Err(Error::InvalidArgument {
                name: "spec",
                value: format!("{spec:?}"),
                reason: "a variant runs only a non-empty product with alpha != 0".into(),
            });
        }
        let (kernel, first) = self.enqueue_with_first(queue.get(), &problem, alpha, beta, wait, true)?;
        let first = first.map(|e| {
            let raw = e.0;
            std::mem::forget(e); // the reference passes to opencl3's event
            opencl3::event::Event::new(raw)
        });
        Ok((opencl3::event::Event::new(kernel), first))
    }

    /// Launches the variant on a problem already checked by `gemm::validate`. A large launch may
    /// first copy an operand contiguous along K transposed into a scratch buffer
    /// ([`Geometry::transposes_first`]). A launch that splits K (or runs stream-K) with
    /// compare-and-swap adds first enqueues C = beta * C; with PTX reductions it is one kernel,
    /// whose split 0 (for stream-K, the part with the tile's first step of K) releases each tile's
    /// other parts. The kernel waits for what comes first, so the returned event completes after
    /// all (its profiling times are the kernel's alone). Without `want_event` the kernel is
    /// enqueued without an event where nothing here needs one, and the returned event is null.
    pub(crate) fn enqueue<T: Element>(
        &self,
        queue: cl_command_queue,
        problem: &Problem,
        alpha: T,
        beta: T,
        wait: &[cl_event],
        want_event: bool,
    ) -> Result<cl_event> {
        Ok(self.enqueue_with_first(queue, problem, alpha, beta, wait, want_event)?.0)
    }

    /// [`CompiledVariant::enqueue`], also returning the event of the launch's first kernel where it
    /// enqueues more than one (a transposed copy, else `scale_c`).
    fn enqueue_with_first<T: Element>(
        &self,
        queue: cl_command_queue,
        problem: &Problem,
        alpha: T,
        beta: T,
        wait: &[cl_event],
        want_event: bool,
    ) -> Result<(cl_event, Option<Event>)> {
        let mut p = match self.geometry.orientation {
            Orientation::SmallM if problem.m > problem.n => problem.transposed(),
            Orientation::AlongM if !problem.a.along_outer && problem.b.along_outer => problem.transposed(),
            _ => *problem,
        };
        // Their scratch buffers stay leased until the kernel that reads them records its event.
        let copies = self.copy_transposed::<T>(queue, &mut p, wait)?;
        let g = &self.geometry;
        let stream_k_groups =
            self.split.as_ref().and_then(|_| g.stream_k_groups(p.m, p.n, p.k, p.batch, self.compute_units));
        let (splits, entries) = match &self.split {
            Some(split) if stream_k_groups.is_some() => (1, split),
            Some(split) => match g.splits_for(p.m, p.n, p.k, p.batch, self.compute_units, self.atomic_add) {
                1 => (1, &self.main),
                splits => (splits, split),
            },
            None if g.k_splits > 1 => (g.k_splits, &self.main),
            // The panel program takes its splits as an argument; it has a `scale` only where it may split.
            None if self.family == Family::Panel && self.scale.is_some() => {
                (g.splits_for(p.m, p.n, p.k, p.batch, self.compute_units, self.atomic_add), &self.main)
            }
            None => (1, &self.main),
        };
        let entries = match &self.unpacked {
            Some(unpacked) if !g.packs_a(p.m, p.n, p.k) => unpacked,
            _ => entries,
        };
        let adds_into_c = splits > 1 || stream_k_groups.is_some();
        let released_by_first_part = adds_into_c && !self.atomic_add.scales_c_first();
        let scaled = match &self.scale {
            // Only where C is scaled first: there is no `scale` where split 0 releases the tile.
            Some(scale) if adds_into_c => {
                let kernel = scale.lock().expect("kernel lock");
                Some(Event(enqueue_scale_c(queue, &kernel, &p, beta, self.scale_local, wait, true)?))
            }
            _ => None,
        };
        let before: Vec<cl_event> = copies.iter().map(|c| c.event.0).chain(scaled.iter().map(|e| e.0)).collect();
        let wait = if before.is_empty() { wait } else { &before[..] };
        let entry =
            entries.kernels[p.a.along_outer as usize * 2 + p.b.along_outer as usize].lock().expect("kernel lock");
        let mut args = KernelArgs::new(&entry);
        args.int(p.m)?.int(p.n)?.int(p.k)?.value(alpha)?.value(beta)?;
        args.mem(p.a.mem)?.int(p.a.offset)?.int(p.a.ld)?;
        args.mem(p.b.mem)?.int(p.b.offset)?.int(p.b.ld)?;
        args.mem(p.c.mem)?.int(p.c.offset)?;
        match self.family {
            Family::Xgemm => args.int(p.c.col_stride)?,
            Family::Direct | Family::Panel => args.int(p.c.row_stride)?.int(p.c.col_stride)?,
        };
        args.int(p.a.batch_stride)?.int(p.b.batch_stride)?.int(p.c.batch_stride)?;
        match self.family {
            // Stream-K takes the batch items here, its launch has one along dimension 2.
            Family::Xgemm => {
                args.int(if stream_k_groups.is_some() { p.batch } else { splits })?;
            }
            Family::Panel | Family::Direct => {
                args.int(splits)?;
            }
        }
        let tiles = [p.m.div_ceil(g.tile[0]), p.n.div_ceil(g.tile[1])];
        let global = match stream_k_groups {
            Some(groups) => [groups * g.local[0], g.local[1], 1],
            None => [tiles[0] * g.local[0], tiles[1] * g.local[1], p.batch * splits],
        };
        let local = Some([g.local[0], g.local[1], 1]);
        let mut leases: Vec<Lease> = Vec::new();
        if released_by_first_part {
            let bytes = tiles[0] * tiles[1] * p.batch * std::mem::size_of::<u32>();
            let flags = self.tile_flags.lease(queue, bytes, self.max_alloc_bytes)?;
            args.mem(flags.mem())?.value(flags.use_number())?;
            leases.push(flags);
        }
        // The copies' events stay alive until the kernel that waits for them is enqueued.
        let (copy_leases, copy_events): (Vec<Lease>, Vec<Event>) =
            copies.into_iter().map(|c| (c.lease, c.event)).unzip();
        leases.extend(copy_leases);
        if leases.is_empty() {
            return Ok((launch(queue, &entry, global, local, wait, want_event)?, scaled));
        }
        // The leased buffers keep this launch's event, to know when they may be reused; on an
        // in-order queue the queue's order suffices where the caller wants no event, but a launch
        // that copied takes one anyway (a large launch, where it costs nothing), so that
        // `Engine::release_scratch` can tell when its buffers are free.
        if !want_event && leases[0].in_order() && copy_events.is_empty() {
            let none = launch(queue, &entry, global, local, wait, false)?;
            leases.into_iter().for_each(Lease::launched_unobserved);
            return Ok((none, None));
        }
        let event = launch(queue, &entry, global, local, wait, true)?;
        for lease in leases {
            lease.launched(event)?;
        }
        if !want_event {
            drop(Event(event)); // the leases hold their own references
            return Ok((ptr::null_mut(), None));
        }
        Ok((event, copy_events.into_iter().next().or(scaled)))
    }

    /// Copies each operand of `p` that [`Geometry::transposes_first`] names into a scratch buffer
    /// contiguous along M (A) or N (B), after the events in `wait`, and puts the copy in its place.
    /// An operand whose copy the device cannot hold (beyond its largest buffer, or refused by
    /// clCreateBuffer) stays as it is.
    fn copy_transposed<T: Element>(
        &self,
        queue: cl_command_queue,
        p: &mut Problem,
        wait: &[cl_event],
    ) -> Result<Vec<TransposedCopy<'_>>> {
        let Some(kernel) = &self.transpose else { return Ok(Vec::new()) };
        let (m, n, k, batch) = (p.m, p.n, p.k, p.batch);
        let mut copies = Vec::new();
        for (index, operand, rows) in [(0, &mut p.a, m), (1, &mut p.b, n)] {
            if operand.along_outer || !self.geometry.transposes_first(index, m, n, k) {
                continue;
            }
            // Columns of 32 elements keep the kernel's vector loads aligned and its rows coalesced.
            let ld = rows.next_multiple_of(32);
            let Some(elements) = ld.checked_mul(k).and_then(|e| e.checked_mul(batch)) else { continue };
            let bytes = elements.saturating_mul(std::mem::size_of::<T>());
            if elements > i32::MAX as usize || bytes > self.max_alloc_bytes {
                continue;
            }
            // A buffer the device refuses leaves the operand as it is.
            let Ok(lease) = self.transposed_copies[index].lease(queue, bytes, self.max_alloc_bytes) else { continue };
            let kernel = kernel.lock().expect("kernel lock");
            let mut args = KernelArgs::new(&kernel);
            args.int(rows)?
                .int(k)?
                .mem(operand.mem)?
                .int(operand.offset)?
                .int(operand.ld)?
                .int(operand.batch_stride)?;
            args.mem(lease.mem())?.int(ld)?.int(ld * k)?;
            let global = [k.div_ceil(32) * 32, rows.div_ceil(32) * 8, batch];
            let event = Event(launch(queue, &kernel, global, Some([32, 8, 1]), wait, true)?);
            *operand =
                crate::gemm::Operand { mem: lease.mem(), offset: 0, ld, along_outer: true, batch_stride: ld * k };
            copies.push(TransposedCopy { lease, event });
        }
        Ok(copies)
    }
}

/// An operand copied transposed for one launch: its leased scratch buffer and the copy's event.
struct TransposedCopy<'a> {
    lease: Lease<'a>,
    event: Event,
}

/// An event this code enqueued and still holds, released on drop.
pub(crate) struct Event(pub(crate) cl_event);

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: we own one reference to the event.
        unsafe {
            let _ = opencl3::event::release_event(self.0);
        }
    }
}

/// Enqueues a `scale_c` kernel: C = beta * C over a checked problem's C, in 16 x 16 work-groups
/// where `local_16x16` (else the runtime's choice).
fn enqueue_scale_c<T: Element>(
    queue: cl_command_queue,
    kernel: &Kernel,
    problem: &Problem,
    beta: T,
    local_16x16: bool,
    wait: &[cl_event],
    want_event: bool,
) -> Result<cl_event> {
    let mut args = KernelArgs::new(kernel);
    args.int(problem.m)?.int(problem.n)?.value(beta)?.mem(problem.c.mem)?;
    args.int(problem.c.offset)?.int(problem.c.row_stride)?.int(problem.c.col_stride)?.int(problem.c.batch_stride)?;
    let global = [problem.m.div_ceil(16) * 16, problem.n.div_ceil(16) * 16, problem.batch];
    launch(queue, kernel, global, Some([16, 16, 1]).filter(|_| local_16x16), wait, want_event)
}

/// Sets a kernel's arguments in order.
struct KernelArgs<'k> {
    kernel: &'k Kernel,
    index: u32,
}

impl<'k> KernelArgs<'k> {
    fn new(kernel: &'k Kernel) -> Self {
        KernelArgs { kernel, index: 0 }
    }

    fn value<V>(&mut self, v: V) -> Result<&mut Self> {
        // SAFETY: the argument types follow the kernel signatures in kernels/*.cl.
        unsafe { set_kernel_arg(self.kernel.get(), self.index, std::mem::size_of::<V>(), &v as *const V as *const _) }
            .map_err(cl("clSetKernelArg"))?;
        self.index += 1;
        Ok(self)
    }

    fn int(&mut self, v: usize) -> Result<&mut Self> {
        self.value(v as i32)
    }

    fn mem(&mut self, m: cl_mem) -> Result<&mut Self> {
        self.value(m)
    }
}

/// Enqueues a kernel and returns its event, or null without `want_event`: then the runtime makes
/// none, which saves NVIDIA's OpenCL 1.7-2.9 µs an enqueue (examples/launch_cost.rs).
fn launch(
    queue: cl_command_queue,
    kernel: &Kernel,
    global: [usize; 3],
    local: Option<[usize; 3]>,
    wait: &[cl_event],
    want_event: bool,
) -> Result<cl_event> {
    let local_ptr = local.as_ref().map_or(ptr::null(), |l| l.as_ptr());
    let wait_ptr = if wait.is_empty() { ptr::null() } else { wait.as_ptr() };
    let mut event: cl_event = ptr::null_mut();
    let event_ptr = if want_event { &mut event as *mut cl_event } else { ptr::null_mut() };
    // SAFETY: the queue, kernel and events are valid; the sizes and `event` outlive the call.
    let status = unsafe {
        clEnqueueNDRangeKernel(
            queue,
            kernel.get(),
            3,
            ptr::null(),
            global.as_ptr(),
            local_ptr,
            wait.len() as u32,
            wait_ptr,
            event_ptr,
        )
    };
    if status != CL_SUCCESS {
        return Err(cl("clEnqueueNDRangeKernel")(status));
    }
    Ok(event)
}

/// The shipped set for one precision on one device: each variant built when first needed.
struct CompiledSet {
    precision: Precision,
    /// One cell per `VariantId`, filled on first need: the build, or why it failed.
    variants: Vec<OnceCell<Result<CompiledVariant>>>,
    /// `scale_c`, for alpha = 0 or K = 0.
    scale: Mutex<Kernel>,
    _helpers: Program,
}

impl CompiledSet {
    /// Builds the helpers and, in parallel, the variants the device's tree can pick; the rest of
    /// the set waits until a call names one. Fails only if no variant of the set builds.
    fn build(engine: &Engine, precision: Precision) -> Result<CompiledSet> {
        let helpers = Program::build(engine, "helpers", HELPERS_SOURCE, precision.build_options())?;
        let scale = Mutex::new(helpers.kernel("scale_c")?);
        let variants = VariantId::ALL.iter().map(|_| OnceCell::new()).collect();
        let set = CompiledSet { precision, variants, scale, _helpers: helpers };
        let reachable = selection::reachable(engine.info.class);
        set.build_all(engine, &reachable);
        if reachable.iter().all(|&id| set.variant(engine, id).is_err()) {
            set.build_all(engine, &VariantId::ALL);
            if VariantId::ALL.iter().all(|&id| set.variant(engine, id).is_err()) {
                let first = set.variants.into_iter().next().and_then(OnceCell::into_inner).and_then(Result::err);
                return Err(first.unwrap_or_else(|| Error::NoDevice("no variant built".into())));
            }
        }
        Ok(set)
    }

    /// Variant `id` as built on this device (building it on first need), or why it did not build.
    fn variant(&self, engine: &Engine, id: VariantId) -> &Result<CompiledVariant> {
        self.variants[id.index()].get_or_init(|| {
            let info = id.info();
            let built = CompiledVariant::from_source(
                engine,
                info.id,
                &id.variant(),
                info.source,
                info.split_source,
                info.unpacked_source,
                self.precision,
            );
            if let Err(e) = &built {
                eprintln!(
                    "fewfit: warning: {} on {}: {e}; its shapes fall back to another variant",
                    info.id, engine.info.name
                );
            }
            built
        })
    }

    /// Builds the variants not built yet among `ids`: in parallel, or one after another where the
    /// driver's compiler must not be entered from two threads ([`Engine::parallel_builds`]).
    fn build_all(&self, engine: &Engine, ids: &[VariantId]) {
        if !engine.parallel_builds() {
            for &id in ids {
                self.variant(engine, id);
            }
            return;
        }
        std::thread::scope(|s| {
            for &id in ids {
                s.spawn(move || {
                    self.variant(engine, id);
                });
            }
        });
    }

    /// The variant that runs for `id`: itself, or where it failed to build, the first variant of
    /// the set that builds, of its own family if one does.
    fn runnable(&self, engine: &Engine, id: VariantId) -> Result<(VariantId, &CompiledVariant)> {
        let family = id.info().family;
        let same_family = VariantId::ALL.into_iter().filter(|&v| v != id && v.info().family == family);
        let others = VariantId::ALL.into_iter().filter(|v| v.info().family != family);
        std::iter::once(id)
            .chain(same_family)
            .chain(others)
            .find_map(|v| self.variant(engine, v).as_ref().ok().map(|built| (v, built)))
            .ok_or_else(|| Error::Unavailable {
                what: id.to_string(),
                reason: "no variant of the set builds here".into(),
            })
    }
}

/// The shipped set on one (context, device): built once per precision, on first use.
pub struct Engine {
    context: cl_context,
    device: cl_device_id,
    /// The device's facts.
    pub info: DeviceInfo,
    cache: BinaryCache,
    /// Each precision's set, or why it did not build (kept, so that later calls fail at once).
    sets: [OnceCell<Result<CompiledSet>>; 2],
    /// The scratch buffers of operands A and B copied transposed first, which all the set's
    /// variants share: each holds the largest copy a launch has needed, for the engine's life.
    transposed_copies: Arc<[BufferPool; 2]>,
}

// SAFETY: OpenCL contexts and device ids may be used from any thread; the sets are behind OnceCell.
unsafe impl Send for Engine {}
unsafe impl Sync for Engine {}

impl Drop for Engine {
    fn drop(&mut self) {
        // SAFETY: `new` retained the context once.
        unsafe {
            let _ = opencl3::context::context::release_context(self.context);
        }
    }
}

type Registry = RwLock<HashMap<(usize, usize), Arc<Engine>>>;
static ENGINES: Lazy<Registry> = Lazy::new(|| RwLock::new(HashMap::new()));

/// Drops every engine: the programs, kernels and scratch buffers fewfit holds for each (context,
/// device), and its reference to each context, as `CLBlastClearCache` does for CLBlast's. Call it
/// before releasing a context that fewfit has run on, or to give back device memory. Calls in
/// flight keep their engine until they return, and OpenCL keeps what enqueued work still uses; the
/// next call on a context makes its engine again, loading the variants from the on-disk binary
/// cache where it holds them. Returns the number of engines dropped.
pub fn release_engines() -> usize {
    // Taken out first, so that the OpenCL releases of the drop run outside the registry's lock.
    let engines = std::mem::take(&mut *ENGINES.write().expect("engine registry"));
    engines.len()
}

impl Engine {
    fn new(context: cl_context, device: cl_device_id) -> Result<Engine> {
        let info = DeviceInfo::query(device)?;
        // SAFETY: the context is valid; the engine keeps it alive until dropped.
        unsafe { opencl3::context::context::retain_context(context) }.map_err(cl("clRetainContext"))?;
        let cache = BinaryCache::for_device(&info);
        let transposed_copies = Arc::new([BufferPool::new(false, 0), BufferPool::new(false, 0)]);
        Ok(Engine { context, device, info, cache, sets: [OnceCell::new(), OnceCell::new()], transposed_copies })
    }

    /// The engine of a (context, device), created on first use and kept until [`release_engines`].
    pub fn get(context: cl_context, device: cl_device_id) -> Result<Arc<Engine>> {
        let key = (context as usize, device as usize);
        if let Some(e) = ENGINES.read().expect("engine registry").get(&key) {
            return Ok(e.clone());
        }
        let mut map = ENGINES.write().expect("engine registry");
        if let Some(e) = map.get(&key) {
            return Ok(e.clone());
        }
        let engine = Arc::new(Engine::new(context, device)?);
        map.insert(key, engine.clone());
        Ok(engine)
    }

    /// The engine of a command queue's context and device.
    pub fn for_queue(queue: cl_command_queue) -> Result<Arc<Engine>> {
        let context: isize =
            get_command_queue_info(queue, CL_QUEUE_CONTEXT).map_err(cl("clGetCommandQueueInfo"))?.into();
        let device: isize = get_command_queue_info(queue, CL_QUEUE_DEVICE).map_err(cl("clGetCommandQueueInfo"))?.into();
        Engine::get(context as cl_context, device as cl_device_id)
    }

    /// Whether programs may be built from several threads at once. OpenCL allows it, but
    /// Oclgrind 21.10 (the checking simulator `scripts/memcheck.sh` runs the kernels on) crashes
    /// in its compiler when two threads build at once.
    fn parallel_builds(&self) -> bool {
        !self.info.platform_version.contains("Oclgrind")
    }

    fn set(&self, precision: Precision) -> Result<&CompiledSet> {
        self.sets[precision as usize].get_or_init(|| CompiledSet::build(self, precision)).as_ref().map_err(Error::again)
    }

    /// Releases the scratch buffers that large launches copy an operand transposed into
    /// ([`crate::codegen::Geometry::transposes_first`]), which the engine otherwise keeps for its
    /// life, and returns their bytes. Buffers that a launch may still use stay; a later
    /// large launch makes a new one.
    pub fn release_scratch(&self) -> Result<usize> {
        let mut released = 0;
        for pool in self.transposed_copies.iter() {
            released += pool.release_free()?;
        }
        Ok(released)
    }

    /// Builds now what the first call of a precision would build: the variants the device's tree
    /// can pick, so that no call with automatic selection builds a program afterwards. Variants
    /// outside the tree are built when a call first names one ([`crate::Selection::Forced`]).
    /// PoCL still compiles each kernel for its work-group shape at the kernel's first launch
    /// (about 2 s a kernel on a 2-core VM), and keeps that in its own cache for later processes.
    /// Where no variant of the set builds, the error is kept: every later call of that precision
    /// returns it at once, without building again.
    pub fn warm_up(&self, precision: Precision) -> Result<()> {
        self.set(precision).map(|_| ())
    }

    /// Builds the whole shipped set for a precision (each variant once) and returns the variants
    /// that failed to build, with why. A variant beyond the device's declared limits (work-group
    /// size, local memory, fp64) is not built and is not a failure: that is [`Error::Unavailable`],
    /// and the variant's fallback serves its shapes by design ([`Engine::unavailable`] lists them).
    pub fn build_failures(&self, precision: Precision) -> Result<Vec<(VariantId, String)>> {
        self.failed_variants(precision, |e| !matches!(e, Error::Unavailable { .. }))
    }

    /// Builds the whole shipped set for a precision and returns the variants beyond the device's
    /// declared limits, with why: the ones that [`Engine::build_failures`] leaves out.
    pub fn unavailable(&self, precision: Precision) -> Result<Vec<(VariantId, String)>> {
        self.failed_variants(precision, |e| matches!(e, Error::Unavailable { .. }))
    }

    /// The variants of the whole set whose build for `precision` ended in an error that `keep` takes.
    fn failed_variants(&self, precision: Precision, keep: fn(&Error) -> bool) -> Result<Vec<(VariantId, String)>> {
        let set = self.set(precision)?;
        set.build_all(self, &VariantId::ALL);
        Ok(VariantId::ALL
            .into_iter()
            .filter_map(|id| set.variant(self, id).as_ref().err().filter(|e| keep(e)).map(|e| (id, e.to_string())))
            .collect())
    }

    /// The variant the device's tree picks for a problem of these features: the shape's, to which
    /// this adds the device's compute units.
    pub fn select(&self, features: ShapeFeatures) -> VariantId {
        self.info.class.selector()(&features.with_compute_units(self.info.compute_units as u64))
    }

    /// The variant that actually runs for `id` (itself, or the fallback if it failed to build).
    pub fn resolve(&self, id: VariantId, precision: Precision) -> Result<VariantId> {
        Ok(self.set(precision)?.runnable(self, id)?.0)
    }

    /// Enqueues variant `id` (or the fallback that runs for it) on a checked problem, as
    /// [`CompiledVariant::enqueue`]: without `want_event` the returned event is null.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn enqueue_variant<T: Element>(
        &self,
        queue: cl_command_queue,
        id: VariantId,
        problem: &Problem,
        alpha: T,
        beta: T,
        wait: &[cl_event],
        want_event: bool,
    ) -> Result<cl_event> {
        let (_, variant) = self.set(T::PRECISION)?.runnable(self, id)?;
        variant.enqueue(queue, problem, alpha, beta, wait, want_event)
    }

    /// Enqueues C = beta * C on a checked problem (the whole GEMM when alpha = 0 or K = 0); without
    /// `want_event` the returned event is null.
    pub(crate) fn enqueue_scale<T: Element>(
        &self,
        queue: cl_command_queue,
        problem: &Problem,
        beta: T,
        wait: &[cl_event],
        want_event: bool,
    ) -> Result<cl_event> {
        let set = self.set(T::PRECISION)?;
        let kernel = set.scale.lock().expect("kernel lock");
        enqueue_scale_c(queue, &kernel, problem, beta, self.info.max_work_group_size >= 256, wait, want_event)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            cpu_vector_lanes,
        }
    }

    /// The local memory the tiled and direct kernels declare is what the host counts before it
    /// builds them (`Variant::local_mem_bytes`), DB = 3 / 4's padded slices included, in both
    /// precisions, on the default device (skipped without one where FEWFIT_TEST_DEVICE=skip).
    #[test]
    fn declared_local_memory_is_what_the_host_counts() {
        let device = match crate::DefaultDevice::get() {
            Ok(device) => device,
            Err(_) if std::env::var("FEWFIT_TEST_DEVICE").as_deref() == Ok("skip") => return,
            Err(e) => panic!("no OpenCL device ({e}); set FEWFIT_TEST_DEVICE=skip to skip device tests"),
        };
        let engine = Engine::for_queue(device.queue.get()).unwrap();
        // A 32 x 64 tile of 8 x 8 work-items, `extra` replacing its parameters.
        let tile = |extra: &[(&str, u32)]| {
            let mut v = Variant::new(
                Family::Xgemm,
                &[("MWG", 32), ("NWG", 64), ("KWG", 16), ("MDIMC", 8), ("NDIMC", 8), ("MDIMA", 8), ("NDIMB", 8)],
            );
            let rest = [("SA", 1), ("SB", 1), ("KWI", 2), ("VWM", 2), ("VWN", 2), ("VWK", 2), ("STRM", 0), ("STRN", 0)];
            v.params.extend(rest.iter().chain(extra).map(|&(name, value)| (name.to_string(), value)));
            v.with_neutral_defaults()
        };
        let variants = [
            tile(&[]),
            tile(&[("DB", 1)]),
            tile(&[("DB", 2), ("SWZ", 1)]),
            tile(&[("DB", 3)]),
            tile(&[("DB", 3), ("KWI", 8), ("STRM", 1), ("STRN", 1), ("VWM", 4)]),
            tile(&[("DB", 4), ("STRN", 1)]),
            tile(&[("DB", 5)]),
            Variant::new(
                Family::Direct,
                &[("WPTM", 4), ("WPTN", 1), ("NDIMD", 8), ("KDIMD", 16), ("VWD", 2), ("RBR", 1)],
            )
            .with_neutral_defaults(),
        ];
        for precision in [Precision::F32, Precision::F64] {
            for v in &variants {
                assert_eq!(v.validate(), Ok(()), "{}", v.id());
                let built = CompiledVariant::build(&engine, v, precision).unwrap();
                for kernel in &built.main.kernels {
                    let declared = kernel.lock().unwrap().get_local_mem_size(engine.device).unwrap() as usize;
                    assert_eq!(declared, v.local_mem_bytes(precision.bytes()), "{} in {precision:?}", v.id());
                }
            }
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
}
