//! The sweep: compile each variant of a space once on a device, check it against an f64 reference,
//! then time it on every shape, appending one record per (variant, shape) as it goes. A sweep that
//! is stopped (Ctrl-C, crash, time budget) resumes where it stopped: what is in the output file is
//! never measured again, and a half-written last line is cut off before appending. A `.gz` output
//! gets one gzip member per record while the sweep runs (of a member cut short at the end, what
//! decodes is kept) and is rewritten as a single member when the sweep ends.

use std::collections::{BTreeMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use opencl3::command_queue::CommandQueue;
use opencl3::memory::{Buffer, CL_MEM_READ_WRITE};
use opencl3::types::CL_BLOCKING;
use rand::{Rng, SeedableRng};
use sha2::{Digest, Sha256};

use super::dataset::{
    gzip_cut_short, is_gzip, write_atomically, Config, Dataset, DeviceRecord, Record, RecordKey, Shape, Times,
};
use super::error::{Error, Result};
use fewfit::tuning::CompiledVariant;
use fewfit::{Compute, DefaultDevice, Element, Engine, GemmSpec, Layout, Precision, Transpose};
use fewfit_codegen::Variant;

/// Reads a shapes file: one `M N K` per line (row-major C = A·B with C m×n), `#` starts a comment.
pub fn read_shapes(path: &Path) -> Result<Vec<Shape>> {
    let mut shapes = Vec::new();
    for (shape, _) in read_shape_lines(path, false)? {
        if !shapes.contains(&shape) {
            shapes.push(shape);
        }
    }
    Ok(shapes)
}

/// Reads a shape-weights file: one `M N K WEIGHT` per line (a finite weight >= 0), `#` starts a
/// comment; a shape given twice is an error.
pub fn read_shape_weights(path: &Path) -> Result<BTreeMap<Shape, f64>> {
    let mut weights = BTreeMap::new();
    for (shape, weight) in read_shape_lines(path, true)? {
        if weights.insert(shape, weight).is_some() {
            return Err(Error::Parse { path: path.into(), reason: format!("{shape} is weighted twice") });
        }
    }
    Ok(weights)
}

/// The lines of a text file that hold something, `#` comments removed and trimmed, each with its
/// line number (from 1).
pub(crate) fn content_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, line)| (i + 1, line.split('#').next().unwrap_or("").trim()))
        .filter(|(_, line)| !line.is_empty())
}

/// The `M N K` (and, `weighted`, `WEIGHT`) lines of a file, at least one.
fn read_shape_lines(path: &Path, weighted: bool) -> Result<Vec<(Shape, f64)>> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.into(), source })?;
    let expected = if weighted {
        "`M N K WEIGHT`: three positive integers and a weight >= 0"
    } else {
        "three positive integers `M N K`"
    };
    let mut lines = Vec::new();
    for (number, line) in content_lines(&text) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let dims: Vec<u64> = words.iter().take(3).filter_map(|w| w.parse().ok()).collect();
        let weight = if weighted { words.get(3).and_then(|w| w.parse::<f64>().ok()) } else { Some(1.0) };
        match (&dims[..], weight) {
            (&[m, n, k], Some(w))
                if m > 0 && n > 0 && k > 0 && w.is_finite() && w >= 0.0 && words.len() == 3 + usize::from(weighted) =>
            {
                lines.push((Shape { m, n, k }, w))
            }
            _ => {
                return Err(Error::Parse {
                    path: path.into(),
                    reason: format!("line {number}: expected {expected}, got `{line}`"),
                })
            }
        }
    }
    if lines.is_empty() {
        return Err(Error::Parse { path: path.into(), reason: "no shapes".into() });
    }
    Ok(lines)
}

/// Which part of the work one machine takes: shard `index` of `count` (0-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This shard, below `count`.
    pub index: u64,
    /// The number of shards.
    pub count: u64,
}

impl Shard {
    /// The whole sweep.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// Parses `I/N` (e.g. `0/4`).
    pub fn parse(text: &str) -> Result<Shard> {
        let bad = || Error::Invalid(format!("shard `{text}`: expected I/N with 0 <= I < N"));
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count) = (i.trim().parse::<u64>().map_err(|_| bad())?, n.trim().parse::<u64>().map_err(|_| bad())?);
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// Whether a variant's (variant, shape) pairs belong to this shard. Pairs are split by variant,
    /// so no two shards compile the same variant; the split depends only on the variant's id.
    pub fn owns(&self, variant: &Variant) -> bool {
        let digest = Sha256::digest(variant.id().as_bytes());
        let h = u64::from_le_bytes(digest[..8].try_into().expect("8 bytes"));
        h % self.count == self.index
    }
}

/// How a sweep times each pair.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Untimed runs before timing.
    pub warmup: u32,
    /// Timed runs per pair, at most.
    pub repeats: u32,
    /// Stop repeating a pair once its timed runs add up to this much (but run at least 3).
    pub pair_budget: Duration,
    /// A pair whose first two timed runs are both over this many times the best time seen for its
    /// shape is recorded after those two runs (a variant far off the best is not worth more
    /// repeats; one slow run alone, a hiccup of the device, does not decide it).
    pub abandon_factor: f64,
    /// Stop the sweep (cleanly, resumable) after this long.
    pub budget: Option<Duration>,
    /// Variants compiled at once (the device compiler runs on the host's cores).
    pub build_threads: usize,
    /// Show a progress bar.
    pub progress: bool,
    /// Pairs measured in other datasets: not measured again (a sweep that fills the gaps of a
    /// matrix adds no record that would conflict with theirs).
    pub measured_elsewhere: HashSet<RecordKey>,
    /// The machine label written into every record ([`DeviceRecord::machine`]).
    pub machine: Option<String>,
    /// Time calls with A stored K x M (row-major TN, or TT with `transpose_b`) instead of M x K
    /// ([`DeviceRecord::layout`]).
    pub transpose_a: bool,
    /// Time calls with B stored N x K (row-major NT, or TT with `transpose_a`) instead of K x N.
    pub transpose_b: bool,
    /// Time each shape's variants in rounds, one run of each per round, instead of each pair's runs
    /// back to back: a slow phase of the device (another tenant of a VM) then slows every variant
    /// of the shape alike instead of one pair. Every variant is built before the first shape.
    pub interleave: bool,
    /// How an f32 sweep computes: [`Compute::FastTf32`] builds the variants for TF32 and records
    /// `"tf32"` ([`sweep_precision`]); other element types ignore it.
    pub compute: Compute,
}

impl Default for Plan {
    fn default() -> Plan {
        Plan {
            warmup: 2,
            repeats: 20,
            pair_budget: Duration::from_millis(250),
            abandon_factor: 4.0,
            budget: None,
            build_threads: std::thread::available_parallelism().map_or(2, |n| n.get()).min(16),
            progress: true,
            measured_elsewhere: HashSet::new(),
            machine: None,
            transpose_a: false,
            transpose_b: false,
            interleave: false,
            compute: Compute::Default,
        }
    }
}

/// What a sweep did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Pairs already in the output file or measured elsewhere ([`Plan::measured_elsewhere`]), not
    /// measured again.
    pub resumed: usize,
    /// Pairs measured now.
    pub measured: usize,
    /// Of those, pairs recorded invalid (build, reference check or launch failed).
    pub invalid: usize,
    /// Pairs left unmeasured because the time budget ran out.
    pub left: usize,
    /// Shapes skipped because an operand is larger than the device's largest buffer
    /// ([`DeviceInfo::max_alloc_bytes`](fewfit::DeviceInfo::max_alloc_bytes)); nothing is recorded for them.
    pub too_large: usize,
}

/// The conversions a sweep needs between an element type (and its scalar, alpha and beta's type)
/// and f64.
pub trait SweepElement: Element {
    /// From f64, rounding.
    fn from_f64(x: f64) -> Self;
    /// To f64, exactly.
    fn to_f64(self) -> f64;
    /// A scalar (alpha, beta) from f64.
    fn scalar(x: f64) -> Self::Scalar;
}

impl SweepElement for f32 {
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn scalar(x: f64) -> f32 {
        x as f32
    }
}

impl SweepElement for f64 {
    fn from_f64(x: f64) -> Self {
        x
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn scalar(x: f64) -> f64 {
        x
    }
}

impl SweepElement for fewfit::half::f16 {
    fn from_f64(x: f64) -> Self {
        Self::from_f64(x)
    }
    fn to_f64(self) -> f64 {
        Self::to_f64(self)
    }
    fn scalar(x: f64) -> f32 {
        x as f32
    }
}

impl SweepElement for fewfit::half::bf16 {
    fn from_f64(x: f64) -> Self {
        Self::from_f64(x)
    }
    fn to_f64(self) -> f64 {
        Self::to_f64(self)
    }
    fn scalar(x: f64) -> f32 {
        x as f32
    }
}

/// The precision a sweep of `T` builds, times and records: TF32 for an f32 sweep with
/// [`Compute::FastTf32`], else `T`'s.
pub fn sweep_precision<T: Element>(plan: &Plan) -> Precision {
    match (T::PRECISION, plan.compute) {
        (Precision::F32, Compute::FastTf32) => Precision::Tf32,
        (precision, _) => precision,
    }
}

/// The relative error of a precision's least precise step, which the reference check scales: the
/// rounding of f16 and bf16 results to storage (f32 accumulates them), TF32's rounding of the
/// products' inputs (10 bits of mantissa), else the type's own machine epsilon.
fn epsilon(precision: Precision) -> f64 {
    match precision {
        Precision::F64 => f64::EPSILON,
        Precision::F32 => f64::from(f32::EPSILON),
        Precision::F16 | Precision::Tf32 => 2f64.powi(-10),
        Precision::Bf16 => 2f64.powi(-7),
    }
}

/// The record of a device, with the plan's machine label if it has one and its layout (absent for
/// row-major NN; `"NT"`, `"TN"` or `"TT"` naming the operands stored transposed).
pub fn device_record(device: &DefaultDevice, plan: &Plan) -> DeviceRecord {
    let layout = match (plan.transpose_a, plan.transpose_b) {
        (false, false) => None,
        (false, true) => Some("NT"),
        (true, false) => Some("TN"),
        (true, true) => Some("TT"),
    };
    DeviceRecord {
        name: device.info.name.clone(),
        vendor: device.info.vendor.clone(),
        driver: device.info.driver.clone(),
        class: device.info.class.name().to_string(),
        machine: plan.machine.clone(),
        layout: layout.map(String::from),
        compute_units: u32::try_from(device.info.compute_units).ok(),
    }
}

/// The row-major GEMM a sweep times for a shape, with A stored K x M and B stored N x K where the
/// plan says so.
fn sweep_spec(m: usize, n: usize, k: usize, plan: &Plan) -> GemmSpec {
    let flag = |yes: bool| if yes { Transpose::Yes } else { Transpose::No };
    GemmSpec::new(Layout::RowMajor, flag(plan.transpose_a), flag(plan.transpose_b), m, n, k).with_compute(plan.compute)
}

/// Sweeps `variants` × `shapes` of one precision on a device, appending to `out` (a `.gz` output is
/// compressed again as one gzip member at the end, [`compact_gzip`]).
pub fn sweep<T: SweepElement>(
    device: &DefaultDevice,
    variants: &[Variant],
    shapes: &[Shape],
    out: &Path,
    shard: Shard,
    plan: &Plan,
) -> Result<Summary> {
    let start = Instant::now();
    let (shapes, too_large) = fitting_shapes(shapes, std::mem::size_of::<T>() as u64, device.info.max_alloc_bytes);
    let shapes = &shapes[..];
    let built_as = sweep_precision::<T>(plan);
    let precision = built_as.name();
    let dev = device_record(device, plan);
    let existing = load_existing(out)?;
    let mut done: HashSet<RecordKey> = existing.records.iter().map(Record::key).collect();
    done.extend(plan.measured_elsewhere.iter().cloned());
    let mut best: Vec<f64> = shapes
        .iter()
        .map(|s| {
            existing
                .records
                .iter()
                .filter(|r| r.device == dev && r.shape() == *s && r.precision == precision)
                .filter_map(Record::median_ms)
                .fold(f64::INFINITY, f64::min)
        })
        .collect();
    let key = |v: &Variant, s: &Shape| RecordKey {
        device: dev.clone(),
        shape: *s,
        precision: precision.to_string(),
        variant: Config::of(v),
    };
    let mine: Vec<&Variant> = variants.iter().filter(|v| shard.owns(v)).collect();
    let mut summary = Summary { too_large, ..Summary::default() };
    let mut todo: Vec<(&Variant, Vec<usize>)> = Vec::new();
    for v in mine {
        let left: Vec<usize> = (0..shapes.len()).filter(|&i| !done.contains(&key(v, &shapes[i]))).collect();
        summary.resumed += shapes.len() - left.len();
        if !left.is_empty() {
            todo.push((v, left));
        }
    }
    let total: usize = todo.iter().map(|(_, s)| s.len()).sum();
    let bar = super::progress_bar(plan.progress, total as u64, "pairs");
    bar.set_message(format!("{} on {}", precision, dev.name));

    let engine = Engine::for_queue(device.profiling_queue.get())?;
    let mut recorder = Recorder { device: dev, precision, writer: Appender::open(out)?, bar: &bar };
    let mut buffers = Operands::<T>::new(device, shapes)?;
    let step = plan.build_threads.max(1);
    if plan.interleave {
        // Every variant built and checked first: each shape's rounds run them all.
        let built: Vec<Result<CompiledVariant>> = todo
            .chunks(step)
            .flat_map(|chunk| build_all(&engine, built_as, chunk.iter().map(|c| c.0)))
            .map(|build| build.and_then(|compiled| check::<T>(device, &compiled, plan).map(|_| compiled)))
            .collect();
        for (s, shape) in shapes.iter().enumerate() {
            let here: Vec<usize> = (0..todo.len()).filter(|&i| todo[i].1.contains(&s)).collect();
            if here.is_empty() {
                continue;
            }
            if plan.budget.is_some_and(|b| start.elapsed() >= b) {
                summary.left = todo.iter().map(|t| t.1.iter().filter(|&&x| x >= s).count()).sum();
                break;
            }
            let variants: Vec<_> = here.iter().map(|&i| built[i].as_ref().map_err(|e| e.to_string())).collect();
            let timed = time_interleaved(device, &variants, &mut buffers, shape, plan, best[s]);
            for (&i, times) in here.iter().zip(timed) {
                recorder.record(todo[i].0, shape, times, &mut best[s], &mut summary)?;
            }
        }
    } else {
        for (c, chunk) in todo.chunks(step).enumerate() {
            if plan.budget.is_some_and(|b| start.elapsed() >= b) {
                summary.left = todo[c * step..].iter().map(|t| t.1.len()).sum();
                break;
            }
            let built = build_all(&engine, built_as, chunk.iter().map(|c| c.0));
            for ((variant, left), build) in chunk.iter().zip(built) {
                let checked = build.and_then(|compiled| check::<T>(device, &compiled, plan).map(|_| compiled));
                for &s in left {
                    let times = match &checked {
                        Err(e) => Err(e.to_string()),
                        Ok(compiled) => time_pair(device, compiled, &mut buffers, &shapes[s], plan, best[s])
                            .map_err(|e| e.to_string()),
                    };
                    recorder.record(variant, &shapes[s], times, &mut best[s], &mut summary)?;
                }
            }
        }
    }
    bar.finish_and_clear();
    drop(recorder);
    if is_gzip(out) && summary.measured > 0 {
        compact_gzip(out)?;
    }
    Ok(summary)
}

/// Appends a sweep's records to its output as they are measured, counting them.
struct Recorder<'b> {
    device: DeviceRecord,
    precision: &'static str,
    writer: Appender,
    bar: &'b indicatif::ProgressBar,
}

impl Recorder<'_> {
    /// Appends the record of one pair: its times, or the error that made it invalid; `best` (the
    /// shape's best median so far) takes its median.
    fn record(
        &mut self,
        variant: &Variant,
        shape: &Shape,
        times: std::result::Result<Times, String>,
        best: &mut f64,
        summary: &mut Summary,
    ) -> Result<()> {
        let (times, error) = match times {
            Ok(t) => {
                *best = best.min(t.median_ms);
                (Some(t), None)
            }
            Err(e) => {
                summary.invalid += 1;
                (None, Some(e))
            }
        };
        self.writer.append(&Record {
            device: self.device.clone(),
            m: shape.m,
            n: shape.n,
            k: shape.k,
            precision: self.precision.to_string(),
            variant: Config::of(variant),
            valid: times.is_some(),
            times,
            error,
        })?;
        summary.measured += 1;
        self.bar.inc(1);
        Ok(())
    }
}

/// The shapes whose operands A, B and C (of `element_bytes` each) each fit in a buffer of
/// `max_alloc_bytes`, and how many did not.
fn fitting_shapes(shapes: &[Shape], element_bytes: u64, max_alloc_bytes: u64) -> (Vec<Shape>, usize) {
    let fits = |s: &&Shape| {
        [s.m.saturating_mul(s.k), s.k.saturating_mul(s.n), s.m.saturating_mul(s.n)]
            .iter()
            .all(|&elements| fewfit::tuning::fits_in_buffer(elements, element_bytes, max_alloc_bytes))
    };
    let kept: Vec<Shape> = shapes.iter().filter(fits).copied().collect();
    let skipped = shapes.len() - kept.len();
    (kept, skipped)
}

/// The records already in a sweep's output, after cutting off what a killed sweep left half
/// written.
fn load_existing(out: &Path) -> Result<Dataset> {
    if !out.exists() {
        return Ok(Dataset::default());
    }
    if is_gzip(out) {
        mend_gzip(out)?;
    } else {
        truncate_partial_line(out)?;
    }
    Ok(Dataset::load(&[out.to_path_buf()])?.0)
}

/// Cuts a half-written last line (no final newline) left by a killed sweep.
fn truncate_partial_line(path: &Path) -> Result<()> {
    let io = |source| Error::Io { path: path.into(), source };
    let mut file = OpenOptions::new().read(true).write(true).open(path).map_err(io)?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(io)?;
    if bytes.last().is_some_and(|&b| b != b'\n') {
        let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        file.set_len(keep as u64).map_err(io)?;
    }
    Ok(())
}

/// Mends a gzip dataset that ends in a member cut short (a sweep killed while appending a record's
/// member, a crash while saving one member of many lines): its complete lines, those of the member
/// cut short included, are written again as one member, atomically ([`gzip_cut_short`]). Other
/// damage is an error that changes nothing: appending after it would lose the records behind it.
fn mend_gzip(path: &Path) -> Result<()> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io { path: path.into(), source })?;
    match gzip_cut_short(&bytes) {
        Ok(None) => Ok(()),
        Ok(Some(lines)) => write_atomically(path, |out| out.write_all(&lines)),
        Err(damage) => Err(Error::Parse {
            path: path.into(),
            reason: format!("{damage}; a sweep does not append to it (move it aside)"),
        }),
    }
}

/// Rewrites a gzip dataset that a sweep appended to (one member per record) as a single member,
/// compressed as [`Dataset::save`] compresses, atomically: the same lines in a fraction of the bytes.
fn compact_gzip(path: &Path) -> Result<()> {
    let file = File::open(path).map_err(|source| Error::Io { path: path.into(), source })?;
    let mut lines = flate2::read::MultiGzDecoder::new(std::io::BufReader::new(file));
    write_atomically(path, |out| std::io::copy(&mut lines, out).map(drop))
}

/// Appends records to a dataset as they are measured, each flushed whole before the next is
/// measured: a JSON line, or for a `.gz` file a gzip member holding the line, so a killed sweep
/// leaves at most one incomplete line or member at the end.
struct Appender {
    path: PathBuf,
    file: File,
    gzip: bool,
}

impl Appender {
    fn open(path: &Path) -> Result<Appender> {
        let io = |source| Error::Io { path: path.into(), source };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let mut file = OpenOptions::new().create(true).append(true).open(path).map_err(io)?;
        file.seek(SeekFrom::End(0)).map_err(io)?;
        Ok(Appender { path: path.into(), file, gzip: is_gzip(path) })
    }

    fn append(&mut self, record: &Record) -> Result<()> {
        let io = |source| Error::Io { path: self.path.clone(), source };
        let mut line = serde_json::to_vec(record).expect("records serialise");
        line.push(b'\n');
        let bytes = if self.gzip {
            let mut member = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            member.write_all(&line).and_then(|_| member.finish()).map_err(io)?
        } else {
            line
        };
        self.file.write_all(&bytes).and_then(|_| self.file.flush()).map_err(io)
    }
}

/// Builds variants for `precision` in parallel threads (the OpenCL compiler is the slow part).
fn build_all<'v>(
    engine: &Arc<Engine>,
    precision: Precision,
    variants: impl Iterator<Item = &'v Variant>,
) -> Vec<Result<CompiledVariant>> {
    let variants: Vec<&Variant> = variants.collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = variants
            .iter()
            .map(|v| s.spawn(move || CompiledVariant::build(engine, v, precision).map_err(Error::from)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(Error::Invalid("build thread panicked".into()))))
            .collect()
    })
}

fn random<T: SweepElement>(len: usize, seed: u64) -> Vec<T> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..len).map(|_| T::from_f64(rng.gen_range(-1.0..1.0))).collect()
}

fn device_buffer<T: Element>(device: &DefaultDevice, data: &[T]) -> Result<Buffer<T>> {
    let cl = |e: opencl3::error_codes::ClError| Error::Runtime(fewfit::Error::OpenCl { call: "buffer", code: e.0 });
    // SAFETY: a fresh buffer of `data.len()` elements, written before use.
    let mut buf =
        unsafe { Buffer::<T>::create(&device.context, CL_MEM_READ_WRITE, data.len().max(1), std::ptr::null_mut()) }
            .map_err(cl)?;
    // SAFETY: a blocking write of exactly the buffer's length.
    unsafe { device.profiling_queue.enqueue_write_buffer(&mut buf, CL_BLOCKING, 0, data, &[]) }.map_err(cl)?;
    Ok(buf)
}

fn read_buffer<T: Element>(queue: &CommandQueue, buf: &Buffer<T>, len: usize) -> Result<Vec<T>> {
    let mut out = vec![T::default(); len];
    // SAFETY: a blocking read of `len` elements from a buffer at least that long.
    unsafe { queue.enqueue_read_buffer(buf, CL_BLOCKING, 0, &mut out, &[]) }
        .map_err(|e| Error::Runtime(fewfit::Error::OpenCl { call: "clEnqueueReadBuffer", code: e.0 }))?;
    Ok(out)
}

/// Device buffers large enough for every shape (random A and B, C overwritten with beta = 0).
struct Operands<T: Element> {
    a: Buffer<T>,
    b: Buffer<T>,
    c: Buffer<T>,
}

impl<T: SweepElement> Operands<T> {
    fn new(device: &DefaultDevice, shapes: &[Shape]) -> Result<Operands<T>> {
        let max = |f: fn(&Shape) -> u64| shapes.iter().map(f).max().unwrap_or(1) as usize;
        Ok(Operands {
            a: device_buffer(device, &random::<T>(max(|s| s.m * s.k), 1))?,
            b: device_buffer(device, &random::<T>(max(|s| s.k * s.n), 2))?,
            c: device_buffer(device, &vec![T::ZERO; max(|s| s.m * s.n)])?,
        })
    }
}

/// The shapes every variant must compute right before it is timed: edges of every tile size, and a
/// deep K that KSPLIT = 0 splits.
const CHECK_SHAPES: [(usize, usize, usize); 4] = [(67, 45, 33), (1, 131, 70), (130, 3, 257), (35, 21, 1000)];

/// Runs a variant on small row-major problems in the plan's layout with NaN-poisoned C and compares
/// with an f64 reference.
fn check<T: SweepElement>(device: &DefaultDevice, variant: &CompiledVariant, plan: &Plan) -> Result<()> {
    let eps = epsilon(sweep_precision::<T>(plan));
    for (m, n, k) in CHECK_SHAPES {
        let a = random::<T>(m * k, 11);
        let b = random::<T>(k * n, 12);
        let (da, db) = (device_buffer(device, &a)?, device_buffer(device, &b)?);
        let mut dc = device_buffer(device, &vec![T::from_f64(f64::NAN); m * n])?;
        let spec = sweep_spec(m, n, k, plan);
        variant
            .enqueue_gemm(&device.profiling_queue, &spec, T::scalar(1.0), &da, &db, T::scalar(0.0), &mut dc, &[])?
            .wait()
            .ok();
        let c = read_buffer(&device.profiling_queue, &dc, m * n)?;
        for i in 0..m {
            for j in 0..n {
                let (mut sum, mut mag) = (0.0, 0.0);
                for p in 0..k {
                    let a_ip = if plan.transpose_a { a[p * m + i] } else { a[i * k + p] };
                    let b_pj = if plan.transpose_b { b[j * k + p] } else { b[p * n + j] };
                    let prod = a_ip.to_f64() * b_pj.to_f64();
                    sum += prod;
                    mag += prod.abs();
                }
                let got = c[i * n + j].to_f64();
                let within = (got - sum).abs() <= 4.0 * (k as f64 + 2.0) * eps * mag; // false for NaN
                if !within {
                    return Err(Error::Invalid(format!(
                        "wrong result: C[{i}][{j}] = {got}, expected {sum} on {m}x{n}x{k}"
                    )));
                }
            }
        }
    }
    Ok(())
}

/// One timed run: device (profiling event) time, in ms, from the launch's first command (the
/// `scale_c` of a launch that splits K) to the kernel's end.
fn run_once<T: SweepElement>(
    device: &DefaultDevice,
    variant: &CompiledVariant,
    ops: &mut Operands<T>,
    spec: &GemmSpec,
) -> Result<f64> {
    let (event, scale) = variant.enqueue_gemm_timed(
        &device.profiling_queue,
        spec,
        T::scalar(1.0),
        &ops.a,
        &ops.b,
        T::scalar(0.0),
        &mut ops.c,
        &[],
    )?;
    let cl = |e: opencl3::error_codes::ClError| Error::Runtime(fewfit::Error::OpenCl { call: "event", code: e.0 });
    event.wait().map_err(cl)?;
    let start = scale.as_ref().unwrap_or(&event).profiling_command_start().map_err(cl)?;
    let end = event.profiling_command_end().map_err(cl)?;
    Ok(end.saturating_sub(start) as f64 / 1e6)
}

/// The minimum and median of a pair's timed runs.
fn times_of(mut samples: Vec<f64>) -> Times {
    samples.sort_by(f64::total_cmp);
    let min_ms = samples[0].max(1e-6);
    let median_ms = samples[samples.len() / 2].max(1e-6);
    Times { min_ms, median_ms, repeats: samples.len() as u32 }
}

/// Times one pair: warm-up, then its timed runs back to back ([`wants_another_run`]).
fn time_pair<T: SweepElement>(
    device: &DefaultDevice,
    variant: &CompiledVariant,
    ops: &mut Operands<T>,
    shape: &Shape,
    plan: &Plan,
    best_ms: f64,
) -> Result<Times> {
    let spec = sweep_spec(shape.m as usize, shape.n as usize, shape.k as usize, plan);
    for _ in 0..plan.warmup {
        run_once(device, variant, ops, &spec)?;
    }
    let mut samples = vec![run_once(device, variant, ops, &spec)?];
    while wants_another_run(&samples, plan, best_ms) {
        samples.push(run_once(device, variant, ops, &spec)?);
    }
    Ok(times_of(samples))
}

/// Times several variants on one shape in rounds ([`Plan::interleave`]): each variant's warm-up,
/// then round after round one run of every variant that wants another ([`wants_another_run`], the
/// best time being the shape's fastest run so far), each round starting one variant later. One
/// result per variant, in order: a variant that failed to build or check keeps its error, and one
/// whose run fails is left out of the later rounds with that error.
fn time_interleaved<T: SweepElement>(
    device: &DefaultDevice,
    variants: &[std::result::Result<&CompiledVariant, String>],
    ops: &mut Operands<T>,
    shape: &Shape,
    plan: &Plan,
    best_ms: f64,
) -> Vec<std::result::Result<Times, String>> {
    let spec = sweep_spec(shape.m as usize, shape.n as usize, shape.k as usize, plan);
    let mut warm = |v: &CompiledVariant| (0..plan.warmup).try_for_each(|_| run_once(device, v, ops, &spec).map(drop));
    let mut samples: Vec<std::result::Result<Vec<f64>, String>> = variants
        .iter()
        .map(|v| v.clone().and_then(|v| warm(v).map(|_| Vec::new()).map_err(|e| e.to_string())))
        .collect();
    for round in 0.. {
        let best = samples.iter().flatten().flatten().fold(best_ms, |b, &t| b.min(t));
        let mut ran = false;
        for j in 0..variants.len() {
            let i = (j + round) % variants.len();
            let (Ok(runs), Ok(variant)) = (&mut samples[i], &variants[i]) else { continue };
            if !wants_another_run(runs, plan, best) {
                continue;
            }
            ran = true;
            match run_once(device, variant, ops, &spec) {
                Ok(t) => runs.push(t),
                Err(e) => samples[i] = Err(e.to_string()),
            }
        }
        if !ran {
            break;
        }
    }
    samples.into_iter().map(|s| s.map(times_of)).collect()
}

/// Whether a pair timed `samples` (ms, in run order) so far gets another run: up to `plan.repeats`,
/// at least 3 and then while the runs add up to less than the pair budget, unless its first two
/// runs are both over `plan.abandon_factor` times `best_ms`, the best time seen for the shape.
fn wants_another_run(samples: &[f64], plan: &Plan, best_ms: f64) -> bool {
    let far = |t: &f64| *t > plan.abandon_factor * best_ms;
    if samples.len() >= 2 && samples[..2].iter().all(far) {
        return false;
    }
    let spent_ms: f64 = samples.iter().sum();
    samples.len() < plan.repeats as usize && (samples.len() < 3 || spent_ms < plan.pair_budget.as_secs_f64() * 1e3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_slow_run_does_not_abandon_a_pair() {
        let plan =
            Plan { repeats: 20, pair_budget: Duration::from_millis(250), abandon_factor: 4.0, ..Plan::default() };
        // Best 1 ms: a first run of 10 ms (a hiccup) gets a second; a fast second run keeps the pair going.
        assert!(wants_another_run(&[10.0], &plan, 1.0));
        assert!(wants_another_run(&[10.0, 1.5], &plan, 1.0));
        assert!(wants_another_run(&[10.0, 1.5, 1.4], &plan, 1.0));
        // Two runs far off the best: recorded after those two.
        assert!(!wants_another_run(&[10.0, 9.0], &plan, 1.0));
        // At least 3 runs, then until the pair budget (250 ms) is spent or `repeats` are reached.
        assert!(wants_another_run(&[200.0, 200.0], &plan, 100.0));
        assert!(!wants_another_run(&[200.0, 200.0, 200.0], &plan, 100.0));
        assert!(!wants_another_run(&[0.1; 20], &plan, 0.1));
        assert!(wants_another_run(&[0.1; 19], &plan, 0.1));
        // The first pair of a shape sets the best: nothing is far off it.
        assert!(wants_another_run(&[5.0, 5.0], &plan, f64::INFINITY));
    }

    #[test]
    fn shards_partition_variants() {
        let variants: Vec<Variant> = (1..=64u32)
            .map(|w| {
                Variant::new(fewfit_codegen::Family::Direct, &[("WPTM", w), ("WPTN", 1), ("NDIMD", 8), ("KDIMD", 4)])
            })
            .collect();
        let shards: Vec<Shard> = (0..3).map(|i| Shard { index: i, count: 3 }).collect();
        for v in &variants {
            assert_eq!(shards.iter().filter(|s| s.owns(v)).count(), 1);
        }
        assert!(shards.iter().all(|s| variants.iter().any(|v| s.owns(v))));
        assert_eq!(Shard::parse("1/3").unwrap(), shards[1]);
        assert!(Shard::parse("3/3").is_err() && Shard::parse("x").is_err() && Shard::parse("0/0").is_err());
    }

    #[test]
    fn shapes_beyond_the_largest_buffer_are_skipped_and_counted() {
        let shape = |m, n, k| Shape { m, n, k };
        let shapes = [shape(4, 4, 4), shape(1, 300, 1), shape(2, 1, 200), shape(20, 20, 1), shape(16, 16, 16)];
        // 1 KiB buffers of f32 hold 256 elements: B of 1x300x1, A of 2x1x200 and C of 20x20x1 do not fit.
        let (kept, skipped) = fitting_shapes(&shapes, 4, 1024);
        assert_eq!(kept, vec![shape(4, 4, 4), shape(16, 16, 16)]);
        assert_eq!(skipped, 3);
        assert_eq!(fitting_shapes(&[shape(u64::MAX, 2, 2)], 8, 1 << 40).1, 1);
    }

    #[test]
    fn shapes_file_is_checked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.txt");
        std::fs::write(&path, "# comment\n1 4096 4096\n\n64 64 64 # square\n1 4096 4096\n").unwrap();
        let shapes = read_shapes(&path).unwrap();
        assert_eq!(shapes, vec![Shape { m: 1, n: 4096, k: 4096 }, Shape { m: 64, n: 64, k: 64 }]);
        std::fs::write(&path, "1 2\n").unwrap();
        assert!(read_shapes(&path).unwrap_err().to_string().contains("line 1"));
        std::fs::write(&path, "0 2 3\n").unwrap();
        assert!(read_shapes(&path).is_err());
        std::fs::write(&path, "1 2 3 4\n").unwrap();
        assert!(read_shapes(&path).is_err(), "a weight where none is expected");
    }

    #[test]
    fn shape_weights_file_is_checked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.txt");
        std::fs::write(&path, "# decode\n8 4096 4096 4 # llama\n1 4096 4096 0.5\n").unwrap();
        let weights = read_shape_weights(&path).unwrap();
        assert_eq!(weights[&Shape { m: 8, n: 4096, k: 4096 }], 4.0);
        assert_eq!(weights[&Shape { m: 1, n: 4096, k: 4096 }], 0.5);
        for bad in ["8 4096 4096\n", "8 4096 4096 -1\n", "8 4096 4096 inf\n", "8 4096 4096 1 2\n", "1 1 1 1\n1 1 1 2\n"]
        {
            std::fs::write(&path, bad).unwrap();
            assert!(read_shape_weights(&path).is_err(), "{bad:?}");
        }
    }

    /// A gzip member holding `text`.
    fn member(text: &str) -> Vec<u8> {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(text.as_bytes()).unwrap();
        gz.finish().unwrap()
    }

    fn gunzip(path: &Path) -> String {
        let mut text = String::new();
        flate2::read::MultiGzDecoder::new(File::open(path).unwrap()).read_to_string(&mut text).unwrap();
        text
    }

    #[test]
    fn a_gzip_member_cut_short_at_the_end_is_mended_and_other_damage_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.jsonl.gz");
        let whole = [member("{\"a\":1}\n"), member("{\"b\":2}\n")].concat();
        let last = member("{\"c\":3}\n");
        std::fs::write(&path, &whole).unwrap();
        mend_gzip(&path).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), whole, "a whole file was rewritten");
        for cut in 1..last.len() {
            std::fs::write(&path, [&whole[..], &last[..cut]].concat()).unwrap();
            mend_gzip(&path).unwrap();
            // The last line decodes whole where only (part of) its member's trailer is missing.
            let text = gunzip(&path);
            assert!(
                text == "{\"a\":1}\n{\"b\":2}\n" || text == "{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n",
                "cut at {cut}: {text}"
            );
        }
        // One member of many lines cut short (a crash while saving): the lines it held before the
        // cut are kept.
        let lines: Vec<String> = (0..2000).map(|i| format!("{{\"record\":{i},\"t\":{}}}\n", i * 7919 % 1000)).collect();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(lines.concat().as_bytes()).unwrap();
        let saved = gz.finish().unwrap();
        std::fs::write(&path, &saved[..saved.len() / 2]).unwrap();
        mend_gzip(&path).unwrap();
        let kept: Vec<String> = gunzip(&path).split_inclusive('\n').map(String::from).collect();
        assert!(kept.len() > lines.len() / 4 && kept.len() < lines.len(), "{} lines kept", kept.len());
        assert_eq!(kept[..], lines[..kept.len()]);
        // A corrupt member in the middle, bytes that are not gzip (plain lines appended, short or
        // long), a member whose header is damaged so that it reads on into the next: refused, the
        // file unchanged.
        let mut corrupt = [&whole[..], &last[..]].concat();
        corrupt[whole.len() / 4 + 12] ^= 0x55;
        let mut extra = [&whole[..], &last[..]].concat();
        extra[3] = 0x04; // FLG.FEXTRA: the next two bytes give the length of an extra field
        extra[10..12].copy_from_slice(&1000u16.to_le_bytes());
        let plain = |line: &[u8]| [&whole[..], line].concat();
        for bad in [corrupt, extra, plain(b"{}\n"), plain(b"{\"c\":3, \"d\": 4}\n")] {
            std::fs::write(&path, &bad).unwrap();
            let e = mend_gzip(&path).unwrap_err().to_string();
            assert!(e.contains("damaged gzip data at byte"), "{e}");
            assert_eq!(std::fs::read(&path).unwrap(), bad);
        }
    }

    #[test]
    fn compacting_keeps_the_lines_in_one_member() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.jsonl.gz");
        let lines: Vec<String> =
            (0..50).map(|i| format!("{{\"record\":{i},\"padding\":\"{}\"}}\n", "x".repeat(40))).collect();
        let members: Vec<u8> = lines.iter().flat_map(|l| member(l)).collect();
        std::fs::write(&path, &members).unwrap();
        compact_gzip(&path).unwrap();
        let compact = std::fs::read(&path).unwrap();
        assert_eq!(gunzip(&path), lines.concat());
        assert!(compact.len() * 10 < members.len(), "{} bytes of {}", compact.len(), members.len());
        let mut one = flate2::bufread::GzDecoder::new(&compact[..]);
        std::io::copy(&mut one, &mut std::io::sink()).unwrap();
        assert!(one.into_inner().is_empty(), "more than one member");
    }

    #[test]
    fn partial_last_line_is_cut() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.jsonl");
        std::fs::write(&path, "{\"a\":1}\n{\"b\":").unwrap();
        truncate_partial_line(&path).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"a\":1}\n");
    }
}
