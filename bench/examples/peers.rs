//! The peer bench: on one list of shapes and with one timing method, times
//! - fewfit as shipped (the device class's tree, then a prebuilt variant) through `fewfit::gemm`;
//! - fewfit's oracle: the best variant of the whole space for the shape in a sweep dataset
//!   (`--data`; `--oracle-device` takes another device's records), built here with
//!   `CompiledVariant::build` and re-timed in this run;
//! - CLBlast (`libclblast.so.1`, loaded at run time) on the same queue and buffers: `CLBlastSgemm`
//!   for f32, `CLBlastHgemm` for f16 where the device has `cl_khr_fp16` (CLBlast has neither bf16
//!   nor TF32);
//! - for f32 on a CPU device, OpenBLAS `cblas_sgemm` (`libopenblas.so.0`, loaded at run time) on
//!   host memory.
//!
//! `--precision` picks the storage: f32 (default), f16 or bf16 (f32 accumulation, f32 alpha and
//! beta), or tf32 (f32 buffers with `Compute::FastTf32`: TF32 tensor cores where the device has
//! them, plain f32 elsewhere). Row-major, NN or with `--transpose-b` NT (B stored N x K, as
//! PyTorch's `Linear` holds its weights; the oracle then from NT records), alpha = 1, beta = 0,
//! random data in [-1, 1) rounded to the storage type. Each call is timed with the queue finished
//! after it (wall time) on a queue without profiling, as a framework's; device time is the median
//! of the event's START..END over as many calls on a profiling queue. Every result is checked on
//! 256 sampled elements against an f64 host reference from the rounded inputs, with a tolerance
//! per precision that grows with K; a wrong result is reported on stderr and makes the run exit
//! non-zero. cuBLAS is timed by `scripts/device/cublas.py` and merged into the same table by
//! `scripts/perf_table.py`.
//!
//! ```sh
//! cargo run --release -p fewfit-bench --example peers -- [--precision f32|f16|bf16|tf32] \
//!     [--shapes variants/shapes/bench.txt] [--data FILE...] [--max-flops 1e10] [--json OUT]
//! ```

use std::collections::HashMap;
use std::error::Error;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use clap::Parser;
use fewfit::half::{bf16, f16};
use fewfit::tuning::CompiledVariant;
use fewfit::{
    chosen_variant, gemm, Compute, DefaultDevice, DeviceClass, Element, Engine, GemmSpec, Layout, Precision, Transpose,
};
use fewfit_codegen::Variant;
use fewfit_tuner::dataset::Dataset;
use opencl3::command_queue::CommandQueue;
use opencl3::device::Device;
use opencl3::event::Event;
use opencl3::kernel::{ExecuteKernel, Kernel};
use opencl3::memory::{Buffer, ClMem, CL_MEM_READ_WRITE};
use opencl3::program::Program;
use opencl3::types::{cl_command_queue, cl_event, cl_mem, CL_BLOCKING};
use rand::{rngs::StdRng, Rng, SeedableRng};
use serde::Serialize;

type Res<T> = Result<T, Box<dyn Error>>;

/// Elements of C checked against the f64 reference per result.
const CHECKED_ELEMENTS: usize = 256;

#[derive(Parser)]
#[command(about = "Times fewfit, its oracle and peers (CLBlast, OpenBLAS) on one shape list")]
struct Args {
    /// Storage and arithmetic: f32, f16, bf16 (both with f32 accumulation) or tf32 (f32 buffers
    /// with `Compute::FastTf32`).
    #[arg(long, default_value = "f32", value_parser = parse_precision)]
    precision: Precision,
    /// Shapes, one "M N K" per line (# comments).
    #[arg(long, default_value = "variants/shapes/bench.txt")]
    shapes: PathBuf,
    /// Sweep datasets (JSON Lines, optionally .gz) giving the oracle variant per shape.
    #[arg(long, num_args = 1..)]
    data: Vec<PathBuf>,
    /// Take the oracle from this device's records (default: the device that runs), e.g. the
    /// sweeps of an H200 on an H100: that device's best variant per shape, re-timed here.
    #[arg(long)]
    oracle_device: Option<String>,
    /// Skip shapes of more than this many floating-point operations (2·M·N·K).
    #[arg(long)]
    max_flops: Option<f64>,
    /// Timed calls per implementation and shape (the median is reported).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(20..))]
    repeats: u32,
    /// Untimed calls before the timed ones.
    #[arg(long, default_value_t = 3)]
    warmup: u32,
    /// Writes the results as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// CLBlast library to load (default: libclblast.so.1, then libclblast.so).
    #[arg(long)]
    clblast: Option<String>,
    /// Row-major NT instead of NN: B is stored N x K (ldb = K) and used transposed, by every
    /// implementation; the oracle comes from the datasets' NT records (`sweep --transpose-b`).
    #[arg(long)]
    transpose_b: bool,
}

/// Times of one implementation on one shape, in ms.
#[derive(Clone, Debug, Serialize)]
struct Timing {
    /// Median wall time of a call with the queue finished after it.
    wall_ms: f64,
    /// Fastest wall time.
    wall_min_ms: f64,
    /// Median device time (event START..END); absent for host libraries and CLBlast.
    event_ms: Option<f64>,
    /// Median time for the call to return (argument checks, kernel choice, enqueue), before the
    /// finish; absent for host libraries.
    enqueue_ms: Option<f64>,
}

/// One implementation's result on one shape.
#[derive(Clone, Debug, Serialize)]
struct Outcome {
    /// The variant that ran (fewfit and its oracle).
    variant: Option<String>,
    /// Times, absent if it failed.
    timing: Option<Timing>,
    /// GFLOP/s from the median wall time.
    gflops: Option<f64>,
    /// GFLOP/s from the median device time.
    event_gflops: Option<f64>,
    /// Largest error over the checked elements, in units of the tolerance (ok when <= 1).
    max_error: Option<f64>,
    /// `ok`, `WRONG` or `failed`.
    check: &'static str,
    /// Why it failed to run.
    error: Option<String>,
}

/// One shape's row.
#[derive(Debug, Serialize)]
struct Row {
    m: usize,
    n: usize,
    k: usize,
    flops: f64,
    /// Why the shape was not run, if it was not.
    skipped: Option<String>,
    fewfit: Option<Outcome>,
    oracle: Option<Outcome>,
    /// The oracle's median device time recorded in the dataset, in ms.
    oracle_sweep_ms: Option<f64>,
    clblast: Option<Outcome>,
    openblas: Option<Outcome>,
}

/// The JSON file's content.
#[derive(Serialize)]
struct Report {
    tool: &'static str,
    date: String,
    command: String,
    device: DeviceJson,
    /// The bench's precision: "f32", "f16", "bf16" or "tf32".
    precision: &'static str,
    /// The precision the device runs it in ("f32" for tf32 on a device without tensor cores).
    runs_as: &'static str,
    repeats: u32,
    warmup: u32,
    clblast: Option<String>,
    openblas: Option<String>,
    data: Vec<PathBuf>,
    /// "NN" or "NT" (row-major).
    layout: &'static str,
    /// An empty kernel's enqueue + finish (one work-item), timed like every call: what no GEMM on
    /// this queue can go below in wall time.
    launch_floor: Timing,
    rows: Vec<Row>,
    wrong_results: usize,
}

#[derive(Serialize)]
struct DeviceJson {
    name: String,
    vendor: String,
    driver: String,
    platform_version: String,
    class: String,
}

/// `CLBlastSgemm` (`S` = f32) and `CLBlastHgemm` (`S` = u16, a `cl_half`'s bits) from clblast_c.h.
type ClblastGemm<S> = unsafe extern "C" fn(
    layout: i32,
    a_transpose: i32,
    b_transpose: i32,
    m: usize,
    n: usize,
    k: usize,
    alpha: S,
    a: cl_mem,
    a_offset: usize,
    a_ld: usize,
    b: cl_mem,
    b_offset: usize,
    b_ld: usize,
    beta: S,
    c: cl_mem,
    c_offset: usize,
    c_ld: usize,
    queue: *mut cl_command_queue,
    event: *mut cl_event,
) -> i32;

/// `cblas_sgemm` from cblas.h (32-bit `blasint`, as Debian's OpenBLAS builds it).
type CblasSgemm = unsafe extern "C" fn(
    order: i32,
    trans_a: i32,
    trans_b: i32,
    m: i32,
    n: i32,
    k: i32,
    alpha: f32,
    a: *const f32,
    lda: i32,
    b: *const f32,
    ldb: i32,
    beta: f32,
    c: *mut f32,
    ldc: i32,
);

/// A shared library and one function of it.
struct Peer<F: 'static> {
    /// The library name that loaded.
    name: String,
    func: libloading::Symbol<'static, F>,
}

/// Loads the first of `names` that opens and has `symbol`; the library stays loaded for the process.
fn load_peer<F>(names: &[&str], symbol: &[u8]) -> Result<Peer<F>, String> {
    let mut why = Vec::new();
    for name in names {
        // SAFETY: loading a BLAS library runs only its initialisers.
        match unsafe { libloading::Library::new(*name) } {
            Ok(lib) => {
                let lib: &'static libloading::Library = Box::leak(Box::new(lib));
                // SAFETY: the type matches the C declaration of the symbol.
                match unsafe { lib.get::<F>(symbol) } {
                    Ok(func) => return Ok(Peer { name: name.to_string(), func }),
                    Err(e) => why.push(format!("{name}: {e}")),
                }
            }
            Err(e) => why.push(format!("{name}: {e}")),
        }
    }
    Err(why.join("; "))
}

/// CLBlast's GEMM for the bench's storage type.
enum Clblast {
    /// `CLBlastSgemm` on f32 buffers.
    Single(Peer<ClblastGemm<f32>>),
    /// `CLBlastHgemm` on f16 buffers.
    Half(Peer<ClblastGemm<u16>>),
}

impl Clblast {
    /// Loads CLBlast's routine for `precision` from the first of `names`, or says why there is none.
    fn load(names: &[&str], precision: Precision, device: &DefaultDevice) -> Result<Clblast, String> {
        match precision {
            Precision::F32 => load_peer(names, b"CLBlastSgemm\0").map(Clblast::Single),
            Precision::F16 => {
                let extensions = Device::new(device.context.devices()[0]).extensions().map_err(|e| e.to_string())?;
                if !extensions.split_whitespace().any(|e| e == "cl_khr_fp16") {
                    return Err(format!("{} lacks cl_khr_fp16, which CLBlastHgemm needs", device.info.name));
                }
                load_peer(names, b"CLBlastHgemm\0").map(Clblast::Half)
            }
            other => Err(format!("CLBlast has no {other} GEMM")),
        }
    }

    /// The library and routine, for the log.
    fn describe(&self) -> String {
        let routine = match self {
            Clblast::Single(_) => "CLBlastSgemm",
            Clblast::Half(_) => "CLBlastHgemm",
        };
        format!("{} ({routine} on the same queue and buffers)", self.library())
    }

    /// The library that loaded.
    fn library(&self) -> &str {
        match self {
            Clblast::Single(p) => &p.name,
            Clblast::Half(p) => &p.name,
        }
    }

    /// Enqueues C = A · op(B) (alpha 1, beta 0), row-major with tight leading dimensions, on `queue`.
    ///
    /// # Safety
    /// The buffers hold m*k, k*n and m*n elements of the routine's type.
    #[allow(clippy::too_many_arguments)]
    unsafe fn enqueue(
        &self,
        queue: &CommandQueue,
        (m, n, k): (usize, usize, usize),
        b_trans: i32,
        ldb: usize,
        a: cl_mem,
        b: cl_mem,
        c: cl_mem,
    ) -> Res<Event> {
        let mut q = queue.get();
        let mut event: cl_event = std::ptr::null_mut();
        let status = match self {
            Clblast::Single(p) => {
                (p.func)(101, 111, b_trans, m, n, k, 1.0, a, 0, k, b, 0, ldb, 0.0, c, 0, n, &mut q, &mut event)
            }
            Clblast::Half(p) => {
                let (one, zero) = (f16::ONE.to_bits(), f16::ZERO.to_bits());
                (p.func)(101, 111, b_trans, m, n, k, one, a, 0, k, b, 0, ldb, zero, c, 0, n, &mut q, &mut event)
            }
        };
        if status != 0 || event.is_null() {
            return Err(format!("CLBlast returned status {status}").into());
        }
        Ok(Event::new(event))
    }
}

/// The core whose kernels the loaded OpenBLAS `library` runs (`openblas_get_corename`), where it has
/// that function.
fn openblas_core(library: &str) -> Option<String> {
    type CoreName = unsafe extern "C" fn() -> *const std::ffi::c_char;
    let peer = load_peer::<CoreName>(&[library], b"openblas_get_corename\0").ok()?;
    // SAFETY: OpenBLAS returns a pointer to a static NUL-terminated string (or null).
    let name = unsafe { (peer.func)() };
    (!name.is_null()).then(|| unsafe { std::ffi::CStr::from_ptr(name) }.to_string_lossy().trim().to_string())
}

/// The `--precision` values: the storage types and TF32.
fn parse_precision(name: &str) -> Result<Precision, String> {
    [Precision::F32, Precision::F16, Precision::Bf16, Precision::Tf32]
        .into_iter()
        .find(|p| p.name() == name)
        .ok_or_else(|| format!("expected f32, f16, bf16 or tf32, got {name:?}"))
}

/// A storage type the bench times (alpha and beta in f32), with its conversions from and to f64.
trait BenchElement: Element<Scalar = f32> {
    /// Rounds to the nearest value of the type.
    fn from_f64(x: f64) -> Self;
    /// Exactly.
    fn to_f64(self) -> f64;
    /// Not a number, to fill C before a call.
    const NAN: Self;
}

impl BenchElement for f32 {
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    const NAN: Self = f32::NAN;
}

impl BenchElement for f16 {
    fn from_f64(x: f64) -> Self {
        f16::from_f64(x)
    }
    fn to_f64(self) -> f64 {
        f16::to_f64(self)
    }
    const NAN: Self = f16::NAN;
}

impl BenchElement for bf16 {
    fn from_f64(x: f64) -> Self {
        bf16::from_f64(x)
    }
    fn to_f64(self) -> f64 {
        bf16::to_f64(self)
    }
    const NAN: Self = bf16::NAN;
}

/// How far an element of C computed in `precision` may be from the exact `want` (from the rounded
/// inputs), where `magnitude` is the sum of |a·b| of its K products: f32 accumulation,
/// (K + 2)·ε(f32)·4 of the magnitude; for f16 and bf16 plus the output's rounding to storage
/// (2^-11, 2^-8 of |want|); for TF32 (K + 2)·2^-11·4 of the magnitude, as its inputs keep 10
/// mantissa bits.
fn tolerance(precision: Precision, k: usize, want: f64, magnitude: f64) -> f64 {
    let accumulation = magnitude * (k as f64 + 2.0) * f32::EPSILON as f64 * 4.0;
    match precision {
        Precision::F16 => want.abs() * 2f64.powi(-11) + accumulation,
        Precision::Bf16 => want.abs() * 2f64.powi(-8) + accumulation,
        Precision::Tf32 => magnitude * (k as f64 + 2.0) * 2f64.powi(-11) * 4.0,
        _ => accumulation,
    }
}

/// Reads "M N K" lines; `#` starts a comment.
fn read_shapes(path: &Path) -> Res<Vec<(usize, usize, usize)>> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut shapes = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let v: Vec<usize> = line
            .split(|c: char| c.is_whitespace() || c == ',' || c == 'x')
            .filter(|s| !s.is_empty())
            .map(str::parse)
            .collect::<Result<_, _>>()
            .map_err(|e| format!("{}:{}: {e}", path.display(), i + 1))?;
        match v[..] {
            [m, n, k] if m > 0 && n > 0 && k > 0 => shapes.push((m, n, k)),
            _ => return Err(format!("{}:{}: expected three positive integers M N K", path.display(), i + 1).into()),
        }
    }
    Ok(shapes)
}

/// Per (M, N, K): the median ms of the fastest valid record and its variant.
type OracleTable = HashMap<(usize, usize, usize), (f64, Variant)>;

/// The best valid record per shape of one device in the datasets, among the records of the
/// bench's precision and layout (`layout`: the records' `device.layout`, None for NN).
fn oracle_table(paths: &[PathBuf], device: &str, precision: Precision, layout: Option<&str>) -> Res<OracleTable> {
    let mut best: OracleTable = HashMap::new();
    if paths.is_empty() {
        return Ok(best);
    }
    let (set, report) = Dataset::load(paths)?;
    let mut other_devices = std::collections::BTreeSet::new();
    for r in &set.records {
        if r.device.name != device {
            other_devices.insert(r.device.name.clone());
            continue;
        }
        let (Some(t), Some(v)) = (r.median_ms(), r.variant.variant()) else { continue };
        if r.precision != precision.name() || r.device.layout.as_deref() != layout {
            continue;
        }
        let shape = (r.m as usize, r.n as usize, r.k as usize);
        if best.get(&shape).is_none_or(|(b, _)| t < *b) {
            best.insert(shape, (t, v));
        }
    }
    println!("oracle data: {report}; {} shapes with a valid {precision} fewfit variant on {device}", best.len());
    if best.is_empty() && !other_devices.is_empty() {
        println!("  (the data is of other devices: {})", other_devices.into_iter().collect::<Vec<_>>().join(", "));
    }
    Ok(best)
}

/// Warm-up calls, then `repeats` timed calls, each followed by a finish: wall times on the device's
/// queue without profiling (as a framework's), then device times of as many calls on its profiling
/// queue (profiling slows every enqueue that returns an event, see examples/launch_cost.rs).
fn time_cl(device: &DefaultDevice, args: &Args, mut call: impl FnMut(&CommandQueue) -> Res<Event>) -> Res<Timing> {
    let (mut wall, mut device_ms, mut enqueue) = (Vec::new(), Vec::new(), Vec::new());
    for queue in [&device.queue, &device.profiling_queue] {
        for _ in 0..args.warmup {
            call(queue)?;
            queue.finish()?;
        }
        for _ in 0..args.repeats {
            let start = Instant::now();
            let event = call(queue)?;
            let returned = start.elapsed().as_secs_f64() * 1e3;
            queue.finish()?;
            if std::ptr::eq(queue, &device.queue) {
                enqueue.push(returned);
                wall.push(start.elapsed().as_secs_f64() * 1e3);
            } else {
                device_ms.push((event.profiling_command_end()? - event.profiling_command_start()?) as f64 * 1e-6);
            }
        }
    }
    Ok(Timing {
        wall_min_ms: min(&wall),
        wall_ms: median(wall),
        event_ms: Some(median(device_ms)),
        enqueue_ms: Some(median(enqueue)),
    })
}

/// An empty kernel of one work-item on the bench's queues, timed as [`time_cl`] times a GEMM.
fn time_empty_kernel(device: &DefaultDevice, args: &Args) -> Res<Timing> {
    let program = Program::create_and_build_from_source(&device.context, "__kernel void empty(void) {}", "")
        .map_err(|log| format!("the empty kernel did not build: {log}"))?;
    let kernel = Kernel::create(&program, "empty")?;
    time_cl(device, args, |queue| {
        Ok(unsafe { ExecuteKernel::new(&kernel).set_global_work_size(1).enqueue_nd_range(queue)? })
    })
}

/// Warm-up calls, then `repeats` timed calls of a host function.
fn time_host(args: &Args, mut call: impl FnMut()) -> Timing {
    for _ in 0..args.warmup {
        call();
    }
    let wall: Vec<f64> = (0..args.repeats)
        .map(|_| {
            let start = Instant::now();
            call();
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    Timing { wall_min_ms: min(&wall), wall_ms: median(wall), event_ms: None, enqueue_ms: None }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn min(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

/// The operands of one shape: host copies, device buffers, the sampled elements and their reference.
struct Problem<T> {
    m: usize,
    n: usize,
    k: usize,
    a: Vec<T>,
    /// B as stored: K x N, or N x K with `transpose_b`.
    b: Vec<T>,
    transpose_b: bool,
    a_buf: Buffer<T>,
    b_buf: Buffer<T>,
    c_buf: Buffer<T>,
    /// (index into C, f64 reference, tolerance).
    samples: Vec<(usize, f64, f64)>,
}

impl<T: BenchElement> Problem<T> {
    /// Random operands in [-1, 1) rounded to `T`, and the reference of sampled elements of C
    /// with their tolerance in `precision`.
    fn new(
        device: &DefaultDevice,
        (m, n, k): (usize, usize, usize),
        transpose_b: bool,
        precision: Precision,
        rng: &mut StdRng,
    ) -> Res<Problem<T>> {
        let a: Vec<T> = (0..m * k).map(|_| T::from_f64(rng.gen_range(-1.0..1.0))).collect();
        let b: Vec<T> = (0..k * n).map(|_| T::from_f64(rng.gen_range(-1.0..1.0))).collect();
        let b_at = |p: usize, j: usize| if transpose_b { b[j * k + p] } else { b[p * n + j] };
        let upload = |data: &[T]| -> Res<Buffer<T>> {
            // SAFETY: a fresh buffer of the data's length, written before use.
            let mut buf =
                unsafe { Buffer::<T>::create(&device.context, CL_MEM_READ_WRITE, data.len(), std::ptr::null_mut())? };
            unsafe { device.queue.enqueue_write_buffer(&mut buf, CL_BLOCKING, 0, data, &[])? };
            Ok(buf)
        };
        let (a_buf, b_buf) = (upload(&a)?, upload(&b)?);
        // SAFETY: C is filled with NaN before each implementation runs.
        let c_buf = unsafe { Buffer::<T>::create(&device.context, CL_MEM_READ_WRITE, m * n, std::ptr::null_mut())? };
        let samples = (0..CHECKED_ELEMENTS.min(m * n))
            .map(|s| {
                let idx = if m * n <= CHECKED_ELEMENTS { s } else { rng.gen_range(0..m * n) };
                let (i, j) = (idx / n, idx % n);
                let (mut sum, mut mag) = (0.0f64, 0.0f64);
                for p in 0..k {
                    let prod = a[i * k + p].to_f64() * b_at(p, j).to_f64();
                    sum += prod;
                    mag += prod.abs();
                }
                (idx, sum, tolerance(precision, k, sum, mag))
            })
            .collect();
        Ok(Problem { m, n, k, a, b, transpose_b, a_buf, b_buf, c_buf, samples })
    }

    /// The call's spec: TF32 arithmetic opted in for `Precision::Tf32`.
    fn spec(&self, precision: Precision) -> GemmSpec {
        let tb = if self.transpose_b { Transpose::Yes } else { Transpose::No };
        let compute = if precision == Precision::Tf32 { Compute::FastTf32 } else { Compute::Default };
        GemmSpec::new(Layout::RowMajor, Transpose::No, tb, self.m, self.n, self.k).with_compute(compute)
    }

    /// B's CBLAS / CLBlast transpose code (111 no, 112 yes) and leading dimension.
    fn b_transpose_and_ld(&self) -> (i32, usize) {
        if self.transpose_b {
            (112, self.k)
        } else {
            (111, self.n)
        }
    }

    fn flops(&self) -> f64 {
        2.0 * self.m as f64 * self.n as f64 * self.k as f64
    }

    /// Fills C with NaN, so that a result not written is caught.
    fn poison(&mut self, queue: &CommandQueue) -> Res<()> {
        let bytes = self.m * self.n * std::mem::size_of::<T>();
        // SAFETY: the pattern and range lie inside C.
        unsafe { queue.enqueue_fill_buffer(&mut self.c_buf, &[T::NAN], 0, bytes, &[])? };
        queue.finish()?;
        Ok(())
    }

    /// The largest error of the sampled elements of `c` (the result in any storage type), in units
    /// of the tolerance.
    fn error_of<E: BenchElement>(&self, c: &[E]) -> f64 {
        self.samples.iter().fold(0.0, |worst: f64, &(idx, want, tol)| {
            let e = (c[idx].to_f64() - want).abs() / tol.max(f64::MIN_POSITIVE);
            if e.is_nan() {
                f64::INFINITY
            } else {
                worst.max(e)
            }
        })
    }

    /// Reads C back and checks it.
    fn check_device(&self, queue: &CommandQueue) -> Res<f64> {
        let mut c = vec![T::ZERO; self.m * self.n];
        // SAFETY: `c` holds the whole buffer.
        unsafe { queue.enqueue_read_buffer(&self.c_buf, CL_BLOCKING, 0, &mut c, &[])? };
        Ok(self.error_of(&c))
    }
}

/// Runs and checks one OpenCL implementation: `call` enqueues one GEMM into the problem's C.
fn run_cl<T: BenchElement>(
    problem: &mut Problem<T>,
    device: &DefaultDevice,
    args: &Args,
    variant: Option<String>,
    mut call: impl FnMut(&CommandQueue, &mut Problem<T>) -> Res<Event>,
) -> Outcome {
    let result = (|| -> Res<(Timing, f64)> {
        problem.poison(&device.queue)?;
        let timing = time_cl(device, args, |queue| call(queue, problem))?;
        Ok((timing, problem.check_device(&device.queue)?))
    })();
    outcome(problem.flops(), variant, result)
}

fn outcome(flops: f64, variant: Option<String>, result: Res<(Timing, f64)>) -> Outcome {
    match result {
        Ok((timing, error)) => Outcome {
            variant,
            gflops: Some(flops / timing.wall_ms / 1e6),
            event_gflops: timing.event_ms.map(|t| flops / t / 1e6),
            timing: Some(timing),
            max_error: Some(error),
            check: if error <= 1.0 { "ok" } else { "WRONG" },
            error: None,
        },
        Err(e) => Outcome {
            variant,
            timing: None,
            gflops: None,
            event_gflops: None,
            max_error: None,
            check: "failed",
            error: Some(e.to_string()),
        },
    }
}

/// Today's date (UTC) as YYYY-MM-DD.
fn today() -> String {
    let days = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs() / 86_400).unwrap_or(0) as i64;
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + (month <= 2) as i64;
    format!("{year:04}-{month:02}-{day:02}")
}

/// What every shape's run shares.
struct Bench<'a> {
    args: &'a Args,
    device: &'static DefaultDevice,
    engine: Arc<Engine>,
    /// The precision the device runs the bench's in (variants of the oracle build for it).
    runs_as: Precision,
    oracle: OracleTable,
    clblast: Option<Clblast>,
    openblas: Option<Peer<CblasSgemm>>,
}

/// How `precision` stores and computes, for the log.
fn describe_precision(precision: Precision, runs_as: Precision, device: &str) -> String {
    match precision {
        Precision::F16 | Precision::Bf16 => format!("{precision} storage, f32 accumulation, f32 alpha and beta"),
        Precision::Tf32 if runs_as == Precision::Tf32 => {
            "tf32: f32 buffers, Compute::FastTf32 (products on TF32 tensor cores, f32 accumulation)".into()
        }
        Precision::Tf32 => {
            format!("tf32: f32 buffers, Compute::FastTf32, which runs as plain f32 ({device} has no tensor cores)")
        }
        _ => format!("{precision}"),
    }
}

fn main() -> Res<()> {
    let args = Args::parse();
    let precision = args.precision;
    let shapes = read_shapes(&args.shapes)?;
    let device = DefaultDevice::get()?;
    let info = &device.info;
    let engine = Engine::for_queue(device.queue.get())?;
    let runs_as = engine.runs_as(precision)?;
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    println!("fewfit peer bench, {} (UTC), precision {precision}", today());
    println!("device: {} ({}; class {}; driver {})", info.name, info.platform_version, info.class, info.driver);
    println!("command: {command}");
    println!("precision: {}", describe_precision(precision, runs_as, &info.name));
    println!(
        "timing: {} warm-up calls, then the median of {} calls with the queue finished after each (wall, on a \
         queue without profiling); device time: median of the events' START..END of as many calls on a profiling queue",
        args.warmup, args.repeats
    );

    let clblast_names: Vec<&str> = match &args.clblast {
        Some(name) => vec![name.as_str()],
        None => vec!["libclblast.so.1", "libclblast.so"],
    };
    let clblast = Clblast::load(&clblast_names, precision, device);
    match &clblast {
        Ok(c) => println!("CLBlast: {}", c.describe()),
        Err(why) => println!("CLBlast: NOT RUN, column left empty ({why})"),
    }
    let openblas = if info.class != DeviceClass::Cpu {
        println!("OpenBLAS: not run (the device is not the host CPU)");
        None
    } else if precision != Precision::F32 {
        println!("OpenBLAS: not run (the bench times its sgemm in f32 only)");
        None
    } else {
        let peer = load_peer::<CblasSgemm>(&["libopenblas.so.0", "libopenblas.so"], b"cblas_sgemm\0");
        match &peer {
            Ok(p) => {
                let core = openblas_core(&p.name).unwrap_or_else(|| "unknown".into());
                println!("OpenBLAS: {} (cblas_sgemm on host memory), kernels for core {core}", p.name);
                if core.eq_ignore_ascii_case("prescott") {
                    println!(
                        "OpenBLAS: WARNING: Prescott is its generic SSE3 fallback for a CPU model it does not know; \
                         set OPENBLAS_CORETYPE to the kernels this CPU runs (SkylakeX or Cooperlake for AVX-512, Haswell for AVX2) to time the peer at its best"
                    );
                }
            }
            Err(why) => println!("OpenBLAS: NOT LOADED, column left empty ({why})"),
        }
        peer.ok()
    };
    let layout = if args.transpose_b { "NT" } else { "NN" };
    println!("layout: row-major {layout}");
    let device_name = args.oracle_device.as_deref().unwrap_or(&info.name);
    let oracle = oracle_table(&args.data, device_name, precision, args.transpose_b.then_some("NT"))?;
    if args.data.is_empty() {
        println!("oracle: no --data, column left empty");
    }

    let launch_floor = time_empty_kernel(device, &args)?;
    println!(
        "launch floor (an empty kernel, enqueue + finish): wall {:.1} µs (fastest {:.1}), enqueue {:.1} µs, device {:.1} µs",
        launch_floor.wall_ms * 1e3,
        launch_floor.wall_min_ms * 1e3,
        launch_floor.enqueue_ms.unwrap_or(f64::NAN) * 1e3,
        launch_floor.event_ms.unwrap_or(f64::NAN) * 1e3
    );

    engine.warm_up(runs_as)?;
    let bench = Bench { args: &args, device, engine, runs_as, oracle, clblast: clblast.ok(), openblas };
    let rows = match precision {
        Precision::F16 => run_shapes::<f16>(&bench, &shapes)?,
        Precision::Bf16 => run_shapes::<bf16>(&bench, &shapes)?,
        _ => run_shapes::<f32>(&bench, &shapes)?,
    };

    let wrong = report(&rows, &args);
    if let Some(path) = &args.json {
        let report = Report {
            tool: "fewfit-peers",
            date: today(),
            command,
            device: DeviceJson {
                name: info.name.clone(),
                vendor: info.vendor.clone(),
                driver: info.driver.clone(),
                platform_version: info.platform_version.clone(),
                class: info.class.to_string(),
            },
            precision: precision.name(),
            runs_as: runs_as.name(),
            repeats: args.repeats,
            warmup: args.warmup,
            clblast: bench.clblast.as_ref().map(|c| c.library().to_string()),
            openblas: bench.openblas.as_ref().map(|p| p.name.clone()),
            data: args.data.clone(),
            layout,
            launch_floor,
            rows,
            wrong_results: wrong,
        };
        std::fs::write(path, serde_json::to_string_pretty(&report)? + "\n")
            .map_err(|e| format!("{}: {e}", path.display()))?;
        println!("\nwrote {}", path.display());
    }
    if wrong > 0 {
        return Err(format!("{wrong} results were WRONG or failed (see above)").into());
    }
    Ok(())
}

/// Times fewfit, its oracle and the peers on every shape, with operands of type `T`.
fn run_shapes<T: BenchElement>(bench: &Bench, shapes: &[(usize, usize, usize)]) -> Res<Vec<Row>> {
    let (args, device) = (bench.args, bench.device);
    let mut built: HashMap<String, Result<CompiledVariant, String>> = HashMap::new();
    let mut rng = StdRng::seed_from_u64(42);
    let mut rows = Vec::new();
    for &(m, n, k) in shapes {
        let flops = 2.0 * m as f64 * n as f64 * k as f64;
        let mut row = Row {
            m,
            n,
            k,
            flops,
            skipped: None,
            fewfit: None,
            oracle: None,
            oracle_sweep_ms: None,
            clblast: None,
            openblas: None,
        };
        if let Some(max) = args.max_flops.filter(|&max| flops > max) {
            row.skipped = Some(format!("{flops:.3e} flops > --max-flops {max:.3e}"));
            eprintln!("{m}x{n}x{k}: skipped ({})", row.skipped.as_deref().unwrap_or(""));
            rows.push(row);
            continue;
        }
        eprintln!("{m}x{n}x{k}: running");
        let mut p = Problem::<T>::new(device, (m, n, k), args.transpose_b, args.precision, &mut rng)?;
        let (b_trans, ldb) = p.b_transpose_and_ld();
        let spec = p.spec(args.precision);

        let chosen = chosen_variant::<T>(&device.queue, &spec)?.to_string();
        row.fewfit = Some(run_cl(&mut p, device, args, Some(chosen), |queue, p| {
            Ok(gemm(queue, &spec, 1.0, &p.a_buf, &p.b_buf, 0.0, &mut p.c_buf, &[])?)
        }));

        if let Some((sweep_ms, variant)) = bench.oracle.get(&(m, n, k)) {
            row.oracle_sweep_ms = Some(*sweep_ms);
            let id = variant.id();
            let compiled = built.entry(id.clone()).or_insert_with(|| {
                CompiledVariant::build(&bench.engine, variant, bench.runs_as).map_err(|e| e.to_string())
            });
            row.oracle = Some(match compiled {
                Ok(cv) => run_cl(&mut p, device, args, Some(id), |queue, p| {
                    Ok(cv.enqueue_gemm(queue, &spec, 1.0, &p.a_buf, &p.b_buf, 0.0, &mut p.c_buf, &[])?)
                }),
                Err(e) => outcome(flops, Some(id), Err(format!("build: {e}").into())),
            });
        }

        if let Some(cl) = &bench.clblast {
            row.clblast = Some(run_cl(&mut p, device, args, None, |queue, p| {
                // SAFETY: the routine is the one of T's storage; buffers of m*k, k*n and m*n elements.
                unsafe { cl.enqueue(queue, (m, n, k), b_trans, ldb, p.a_buf.get(), p.b_buf.get(), p.c_buf.get()) }
            }));
            // CLBlast returns the event of its last kernel only (on its indirect path a copy of C),
            // so its event time is not the GEMM's: only its wall time is compared.
            if let Some(o) = &mut row.clblast {
                o.event_gflops = None;
                if let Some(t) = &mut o.timing {
                    t.event_ms = None;
                }
            }
        }

        if let Some(ob) = &bench.openblas {
            // Loaded for f32 only: these copies are exact.
            let a: Vec<f32> = p.a.iter().map(|x| x.to_f64() as f32).collect();
            let b: Vec<f32> = p.b.iter().map(|x| x.to_f64() as f32).collect();
            let mut c = vec![f32::NAN; m * n];
            let timing = time_host(args, || {
                // SAFETY: slices of m*k, k*n and m*n floats; row-major, tight leading dimensions.
                unsafe {
                    (ob.func)(
                        101,
                        111,
                        b_trans,
                        m as i32,
                        n as i32,
                        k as i32,
                        1.0,
                        a.as_ptr(),
                        k as i32,
                        b.as_ptr(),
                        ldb as i32,
                        0.0,
                        c.as_mut_ptr(),
                        n as i32,
                    )
                }
            });
            row.openblas = Some(outcome(flops, None, Ok((timing, p.error_of(&c)))));
        }
        rows.push(row);
    }
    Ok(rows)
}

/// Prints the wall and device-time tables with ratios and geomeans; returns how many results were
/// wrong or failed (each is also reported on stderr).
fn report(rows: &[Row], args: &Args) -> usize {
    let cols = |r: &Row| [r.fewfit.clone(), r.oracle.clone(), r.clblast.clone(), r.openblas.clone()];
    let names = ["fewfit", "oracle", "CLBlast", "OpenBLAS"];
    let mut wrong = 0;
    for r in rows {
        for (name, o) in names.iter().zip(cols(r)) {
            if let Some(o) = o.filter(|o| o.check != "ok") {
                wrong += 1;
                eprintln!(
                    "!!! {} {}x{}x{}: {} result {} (max error {:?} x tolerance; {})",
                    name,
                    r.m,
                    r.n,
                    r.k,
                    o.variant.as_deref().unwrap_or(""),
                    o.check,
                    o.max_error,
                    o.error.as_deref().unwrap_or("")
                );
            }
        }
    }
    let fmt = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.1}"));
    let ratio = |a: Option<f64>, b: Option<f64>| a.zip(b).map(|(a, b)| a / b);
    for (title, pick) in [
        ("wall time, queue finished after each call", (|o: &Outcome| o.gflops) as fn(&Outcome) -> Option<f64>),
        ("device time (events; none for CLBlast, whose event covers its last kernel only)", |o: &Outcome| {
            o.event_gflops
        }),
    ] {
        println!("\nGFLOP/s ({}), {title}, median of {}:", args.precision, args.repeats);
        println!(
            "{:>18} {:>9} {:>9} {:>9} {:>9}  {:>8} {:>8} {:>8}  fewfit variant",
            "M x N x K", "fewfit", "oracle", "CLBlast", "OpenBLAS", "f/CLB", "f/orac", "f/OBLAS"
        );
        let mut logs = [Vec::new(), Vec::new(), Vec::new()];
        for r in rows {
            let shape = format!("{}x{}x{}", r.m, r.n, r.k);
            if let Some(why) = &r.skipped {
                println!("{shape:>18} skipped: {why}");
                continue;
            }
            let g: Vec<Option<f64>> =
                cols(r).iter().map(|o| o.as_ref().filter(|o| o.check == "ok").and_then(pick)).collect();
            let ratios = [ratio(g[0], g[2]), ratio(g[0], g[1]), ratio(g[0], g[3])];
            for (log, x) in logs.iter_mut().zip(ratios) {
                log.extend(x.map(f64::ln));
            }
            let fr = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.2}"));
            let variant = r.fewfit.as_ref().and_then(|o| o.variant.clone()).unwrap_or_default();
            println!(
                "{shape:>18} {:>9} {:>9} {:>9} {:>9}  {:>8} {:>8} {:>8}  {variant}",
                fmt(g[0]),
                fmt(g[1]),
                fmt(g[2]),
                fmt(g[3]),
                fr(ratios[0]),
                fr(ratios[1]),
                fr(ratios[2])
            );
        }
        let geo = |l: &Vec<f64>| {
            if l.is_empty() {
                "-".to_string()
            } else {
                format!("{:.2} ({})", (l.iter().sum::<f64>() / l.len() as f64).exp(), l.len())
            }
        };
        println!(
            "geomean ratio (shapes): fewfit/CLBlast {}, fewfit/oracle {}, fewfit/OpenBLAS {}",
            geo(&logs[0]),
            geo(&logs[1]),
            geo(&logs[2])
        );
    }
    println!(
        "\nratios > 1: fewfit is faster; fewfit/cuBLAS: scripts/perf_table.py with scripts/device/cublas.py's JSON"
    );
    wrong
}
