//! Per-device engines: the shipped variant set built once per (context, device) and precision,
//! with each variant's fallback, and the registry that finds a queue's engine. Below it: programs
//! and variants ([`program`]), their launch ([`launch`]) under the launch policy
//! ([`launch_policy`]), the on-disk binary cache ([`binary_cache`]) and the scratch buffers that
//! launches reuse ([`scratch`]).

mod binary_cache;
mod launch;
pub(crate) mod launch_policy;
mod program;
mod retry;
mod scratch;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use once_cell::sync::Lazy;
use opencl3::command_queue::{get_command_queue_info, CL_QUEUE_CONTEXT, CL_QUEUE_DEVICE};
use opencl3::kernel::Kernel;
use opencl3::types::{cl_command_queue, cl_context, cl_device_id, cl_event};

use self::binary_cache::BinaryCache;
use self::launch::enqueue_scale_c;
use self::program::Target;
pub use self::program::{build_stats, BuildStats, CompiledVariant};
#[cfg(feature = "tuning")]
pub use self::program::{variant_build_options, KERNEL_TEMPLATES};
use self::retry::Retrying;
use self::scratch::BufferPool;
use crate::cl::Program;
use crate::codegen::ShapeFeatures;
use crate::device::{DeviceClass, DeviceInfo};
use crate::dispatch::{self, VariantId, HELPERS_SOURCE};
use crate::error::{cl, Error, Result};
use crate::spec::{Element, Precision, Problem};

impl CompiledVariant {
    /// Renders and builds any variant (shipped or not) for an engine's device; refuses variants
    /// beyond the device's work-group or local-memory limits.
    #[cfg(feature = "tuning")]
    pub fn build(engine: &Engine, variant: &crate::codegen::Variant, precision: Precision) -> Result<CompiledVariant> {
        static RENDERER: once_cell::sync::OnceCell<crate::codegen::Renderer> = once_cell::sync::OnceCell::new();
        let renderer = RENDERER.get_or_try_init(|| crate::codegen::Renderer::new(&program::KERNEL_TEMPLATES))?;
        let sources = renderer.render_sources(variant)?;
        let (split, unpacked) = (sources.split.as_deref(), sources.unpacked.as_deref());
        // Only a 16-bit variant takes a kernel of the helpers program (`combine_c`): the others
        // build nothing but their own programs.
        let target = match precision.is_half() {
            true => engine.set(precision)?.target(engine),
            false => engine.target(),
        };
        CompiledVariant::from_source(&target, &variant.id(), variant, &sources.main, split, unpacked, precision)
    }
}

/// The shipped set for one precision on one device: each variant built when first needed.
struct CompiledSet {
    precision: Precision,
    /// One cell per `VariantId`, built on first need (a transient failure is retried later).
    variants: Vec<Retrying<CompiledVariant>>,
    /// `scale_c`, for alpha = 0 or K = 0.
    scale: Mutex<Kernel>,
    /// The helpers program: `scale_c`, and in 16-bit storage `combine_c`, which the variants take
    /// for their launches that split K.
    helpers: Program,
}

impl CompiledSet {
    /// Builds the helpers; each variant is built when a call first needs it, and the rest of the
    /// tree's in the background after a process's first call ([`Engine::build_ahead`]).
    fn build(engine: &Engine, precision: Precision) -> Result<CompiledSet> {
        let kernels: &[&str] = if precision.is_half() { &["scale_c", "combine_c"] } else { &["scale_c"] };
        let helpers = Program::build(&engine.target(), "helpers", HELPERS_SOURCE, precision.build_options(), kernels)?;
        let scale = Mutex::new(helpers.kernel("scale_c")?);
        let variants = VariantId::ALL.iter().map(|_| Retrying::new()).collect();
        Ok(CompiledSet { precision, variants, scale, helpers })
    }

    /// What building a variant of this set needs: the engine's, and the set's helpers.
    fn target<'a>(&'a self, engine: &'a Engine) -> Target<'a> {
        Target { helpers: Some(&self.helpers), ..engine.target() }
    }

    /// Builds the variants the device's tree can pick (in parallel where the driver allows); fails
    /// only if none of them, and then none of the whole set, builds.
    fn build_reachable(&self, engine: &Engine) -> Result<()> {
        let reachable = dispatch::reachable(engine.info.class, self.precision);
        self.build_all(engine, &reachable);
        if reachable.iter().all(|&id| self.variant(engine, id).is_err()) {
            self.build_all(engine, &VariantId::ALL);
            if VariantId::ALL.iter().all(|&id| self.variant(engine, id).is_err()) {
                // The first variant's failure stands for the set's (unless it just built after all).
                self.variant(engine, VariantId::ALL[0])?;
            }
        }
        Ok(())
    }

    /// Variant `id` as built on this device (building it on first need, or again once a transient
    /// failure may have passed), or why it did not build.
    fn variant(&self, engine: &Engine, id: VariantId) -> Result<&CompiledVariant> {
        self.variants[id.index()].get_or_build(|| {
            let info = id.info();
            let built = CompiledVariant::from_source(
                &self.target(engine),
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
                    info.name, engine.info.name
                );
            }
            built
        })
    }

    /// Builds the variants not built yet among `ids`: in parallel, or one after another where the
    /// driver's compiler must not be entered from two threads ([`Engine::parallel_builds`]). A
    /// failure is kept in the variant's cell (and warned of), for [`CompiledSet::variant`].
    fn build_all(&self, engine: &Engine, ids: &[VariantId]) {
        if !engine.parallel_builds() {
            for &id in ids {
                let _ = self.variant(engine, id);
            }
            return;
        }
        std::thread::scope(|s| {
            for &id in ids {
                s.spawn(move || {
                    let _ = self.variant(engine, id);
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
            .find_map(|v| self.variant(engine, v).ok().map(|built| (v, built)))
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
    /// Each precision's set, or why it did not build (kept, so that later calls fail at once,
    /// until a transient failure may have passed).
    sets: [Retrying<CompiledSet>; Precision::ALL.len()],
    /// Per precision: whether [`Engine::build_ahead`] has started.
    building_ahead: [AtomicBool; Precision::ALL.len()],
    /// The scratch buffers of operands A and B copied transposed first, which all the set's
    /// variants share: each holds the largest copy a launch has needed, for the engine's life.
    transposed_copies: Arc<[BufferPool; 2]>,
    /// The f32 workspaces of 16-bit launches that split K, which all variants share, likewise.
    workspaces: Arc<BufferPool>,
}

// SAFETY: OpenCL contexts and device ids may be used from any thread; the sets are built behind locks.
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
        let workspaces = Arc::new(BufferPool::new(false, 0));
        let sets = Precision::ALL.map(|_| Retrying::new());
        let building_ahead = Precision::ALL.map(|_| AtomicBool::new(false));
        Ok(Engine { context, device, info, cache, sets, building_ahead, transposed_copies, workspaces })
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

    /// What building a program for this engine needs (a variant's also needs its set's helpers:
    /// [`CompiledSet::target`]).
    fn target(&self) -> Target<'_> {
        Target {
            context: self.context,
            device: self.device,
            info: &self.info,
            cache: &self.cache,
            transposed_copies: &self.transposed_copies,
            workspaces: &self.workspaces,
            helpers: None,
        }
    }

    fn set(&self, precision: Precision) -> Result<&CompiledSet> {
        self.sets[precision as usize].get_or_build(|| CompiledSet::build(self, precision))
    }

    /// Releases the scratch buffers that large launches copy an operand transposed into
    /// (`LaunchPolicy::transposes_first`) and the f32 workspaces of 16-bit launches that split K,
    /// which the engine otherwise keeps for its life, and returns their bytes. Buffers that a
    /// launch may still use stay; a later launch makes a new one.
    pub fn release_scratch(&self) -> Result<usize> {
        let mut released = 0;
        for pool in self.transposed_copies.iter().chain([&*self.workspaces]) {
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
    /// returns it at once, without building again; an OpenCL error while building (out of
    /// resources, say) is kept for a second only, after which a call builds again.
    pub fn warm_up(&self, precision: Precision) -> Result<()> {
        self.set(precision)?.build_reachable(self)
    }

    /// After a call with automatic selection: starts building the rest of the variants the
    /// device's tree for `precision` can pick on a background thread, once per engine and
    /// precision, so that the first call waits only for its own variant and later calls find
    /// theirs built (a call that needs a variant still building waits for that one alone). Not on
    /// CPUs, whose compiles would take the cores the GEMMs run on (on PoCL, 2 cores: a second call
    /// of the first shape took 6.3 s instead of 0.02 while the rest built), not where builds must
    /// not run in parallel (Oclgrind), nor with `FEWFIT_BUILD_AHEAD=0`: there each call builds what
    /// it needs when it first needs it.
    pub(crate) fn build_ahead(self: &Arc<Engine>, precision: Precision) {
        static ENABLED: Lazy<bool> = Lazy::new(|| std::env::var("FEWFIT_BUILD_AHEAD").map_or(true, |v| v != "0"));
        let started = &self.building_ahead[precision as usize];
        if started.load(Ordering::Relaxed)
            || !*ENABLED
            || self.info.class == DeviceClass::Cpu
            || !self.parallel_builds()
            || started.swap(true, Ordering::Relaxed)
        {
            return;
        }
        let engine = Arc::clone(self);
        // Where no thread starts, the calls build what they need as they come.
        let _ = std::thread::Builder::new().name("fewfit-build-ahead".into()).spawn(move || {
            if let Ok(set) = engine.set(precision) {
                let _ = set.build_reachable(&engine);
            }
        });
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
            .filter_map(|id| set.variant(self, id).err().filter(&keep).map(|e| (id, e.to_string())))
            .collect())
    }

    /// The precision a call of `precision` runs in on this device: TF32 where the device has
    /// tensor cores, else f32 ([`crate::Compute::FastTf32`] allows, never requires, TF32); f64
    /// only where the device has fp64 ([`Error::Unavailable`] otherwise); the others as they are.
    pub fn runs_as(&self, precision: Precision) -> Result<Precision> {
        match precision {
            Precision::F64 if !self.info.fp64 => {
                Err(Error::Unavailable { what: "f64 GEMM".into(), reason: format!("{} has no fp64", self.info.name) })
            }
            Precision::Tf32 if !self.info.tensor_cores => Ok(Precision::F32),
            other => Ok(other),
        }
    }

    /// The variant the device's tree for `precision` picks for a problem of these features: the
    /// shape's, to which this adds the device's compute units.
    pub fn select(&self, precision: Precision, features: ShapeFeatures) -> VariantId {
        self.info.class.selector(precision)(&features.with_compute_units(self.info.compute_units as u64))
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
        precision: Precision,
        id: VariantId,
        problem: &Problem,
        alpha: T::Scalar,
        beta: T::Scalar,
        wait: &[cl_event],
        want_event: bool,
    ) -> Result<cl_event> {
        let (_, variant) = self.set(precision)?.runnable(self, id)?;
        variant.enqueue::<T>(queue, problem, alpha, beta, wait, want_event)
    }

    /// Enqueues C = beta * C on a checked problem (the whole GEMM when alpha = 0 or K = 0); without
    /// `want_event` the returned event is null.
    pub(crate) fn enqueue_scale<T: Element>(
        &self,
        queue: cl_command_queue,
        precision: Precision,
        problem: &Problem,
        beta: T::Scalar,
        wait: &[cl_event],
        want_event: bool,
    ) -> Result<cl_event> {
        let set = self.set(precision)?;
        let kernel = set.scale.lock().expect("kernel lock");
        enqueue_scale_c::<T>(queue, &kernel, problem, beta, self.info.max_work_group_size >= 256, wait, want_event)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::{Family, Variant};

    /// The local memory the tiled and direct kernels declare is what the host counts before it
    /// builds them (`Variant::local_mem_bytes`), DB = 3 / 4's padded slices included, in both
    /// precisions, and the tensor-core kernel's in its three, whose elements are as stored; on the
    /// default device (skipped without one where FEWFIT_TEST_DEVICE=skip).
    #[test]
    fn declared_local_memory_is_what_the_host_counts() {
        let device = match crate::device::DefaultDevice::get() {
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
        let mma = Variant::new(Family::Mma, &[("MWG", 64), ("NWG", 32), ("KWG", 32), ("WM", 2), ("WN", 1)]);
        for precision in [Precision::F16, Precision::Bf16, Precision::Tf32] {
            let counted = mma.local_mem_bytes(precision.local_element_bytes(Family::Mma));
            assert_eq!(counted, 2 * 96 * (32 * precision.bytes() + 16));
            for kernel in &CompiledVariant::build(&engine, &mma, precision).unwrap().main.kernels {
                let declared = kernel.lock().unwrap().get_local_mem_size(engine.device).unwrap() as usize;
                assert_eq!(declared, counted, "{} in {precision:?}", mma.id());
            }
        }
    }
}
