//! `fewfit._native`: the Rust half of the Python package. It takes raw handles and numbers (the
//! pyopencl queue's and buffers' `int_ptr`, NumPy arrays' addresses), so that it needs neither
//! pyopencl nor NumPy headers; `fewfit/__init__.py` checks the Python objects, converts them and
//! gives the pyclblast calling convention. Every fewfit error becomes the exception class of
//! `fewfit/_errors.py` for its kind, with the Rust message and the error's fields as attributes.
//!
//! Device work runs with the interpreter released (`Python::detach`): a process's first call on a
//! device builds the variant set, which takes seconds.

use std::ffi::c_void;

use fewfit::half::f16;
use fewfit::{Compute, DefaultDevice, Element, Engine, Error, GemmSpec, Layout, Precision, Selection, Transpose};
use fewfit_codegen::ShapeFeatures;
use opencl3::memory::{get_mem_object_info, CL_MEM_SIZE};
use opencl3::types::{cl_command_queue, cl_event, cl_mem};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyType};

type Result<T> = std::result::Result<T, Error>;

/// The Python exception for a fewfit error: the class of `fewfit._errors` for its kind, carrying
/// the error's message and fields as attributes.
fn to_py(py: Python<'_>, error: Error) -> PyErr {
    let class = match &error {
        Error::InvalidArgument { .. } => "InvalidArgumentError",
        Error::Unavailable { .. } => "UnavailableError",
        Error::NoDevice(_) | Error::NoOpenClLibrary(_) => "NoDeviceError",
        Error::OpenCl { .. } => "OpenCLError",
        Error::Build { .. } => "BuildError",
        #[allow(unreachable_patterns)]
        _ => "FewfitError",
    };
    let class = py.import("fewfit._errors").and_then(|m| m.getattr(class)).and_then(|c| Ok(c.cast_into::<PyType>()?));
    let Ok(class) = class else {
        return PyRuntimeError::new_err(error.to_string());
    };
    let err = PyErr::from_type(class, error.to_string());
    let value = err.value(py);
    let _ = match error {
        Error::InvalidArgument { name, value: v, reason } => {
            value.setattr("name", name).and(value.setattr("value", v)).and(value.setattr("reason", reason))
        }
        Error::Unavailable { what, reason } => value.setattr("what", what).and(value.setattr("reason", reason)),
        Error::OpenCl { call, code } => value.setattr("call", call).and(value.setattr("code", code)),
        Error::Build { variant, log } => value.setattr("variant", variant).and(value.setattr("log", log)),
        _ => Ok(()),
    };
    err
}

/// Runs `body` with the interpreter released and turns its error into the Python exception.
fn run<T: Send>(py: Python<'_>, body: impl FnOnce() -> Result<T> + Send) -> PyResult<T> {
    py.detach(body).map_err(|e| to_py(py, e))
}

/// [`Error::InvalidArgument`].
fn invalid(name: &'static str, value: impl ToString, reason: &str) -> Error {
    Error::InvalidArgument { name, value: value.to_string(), reason: reason.to_string() }
}

/// A size or index from Python: negative values are an argument error, not an overflow.
fn size(name: &'static str, v: i64) -> Result<usize> {
    usize::try_from(v).map_err(|_| invalid(name, v, "must not be negative"))
}

/// The element type of a NumPy dtype name.
#[derive(Clone, Copy)]
enum Dtype {
    F32,
    F64,
    /// IEEE binary16 (NumPy's float16): computed in f32, with f32 alpha and beta.
    F16,
}

impl Dtype {
    fn parse(name: &str) -> Result<Dtype> {
        match name {
            "float32" => Ok(Dtype::F32),
            "float64" => Ok(Dtype::F64),
            "float16" => Ok(Dtype::F16),
            other => Err(Error::Unavailable {
                what: format!("a {other} GEMM"),
                reason: "fewfit's kernels take float16, float32 and float64".into(),
            }),
        }
    }

    fn precision(self) -> Precision {
        match self {
            Dtype::F32 => Precision::F32,
            Dtype::F64 => Precision::F64,
            Dtype::F16 => Precision::F16,
        }
    }
}

/// The compute mode the wrapper passes: whether float32 may run on TF32 tensor cores (`compute="tf32"`).
fn compute(fast_tf32: bool) -> Compute {
    if fast_tf32 {
        Compute::FastTf32
    } else {
        Compute::Default
    }
}

/// A queue from its `int_ptr`; null is an argument error.
fn queue_of(queue: usize) -> Result<cl_command_queue> {
    if queue == 0 {
        return Err(invalid("queue", "null", "is null"));
    }
    Ok(queue as cl_command_queue)
}

fn transpose(t: bool) -> Transpose {
    if t {
        Transpose::Yes
    } else {
        Transpose::No
    }
}

fn layout(row_major: bool) -> Layout {
    if row_major {
        Layout::RowMajor
    } else {
        Layout::ColumnMajor
    }
}

/// The shape of a call: layout, transposes and (m, n, k), checked to be sizes.
#[derive(Clone, Copy)]
struct Shape {
    layout: Layout,
    trans_a: Transpose,
    trans_b: Transpose,
    m: usize,
    n: usize,
    k: usize,
}

impl Shape {
    fn new(row_major: bool, a_transp: bool, b_transp: bool, (m, n, k): (i64, i64, i64)) -> Result<Shape> {
        Ok(Shape {
            layout: layout(row_major),
            trans_a: transpose(a_transp),
            trans_b: transpose(b_transp),
            m: size("m", m)?,
            n: size("n", n)?,
            k: size("k", k)?,
        })
    }

    fn spec(&self) -> GemmSpec {
        GemmSpec::new(self.layout, self.trans_a, self.trans_b, self.m, self.n, self.k)
    }
}

/// One operand as the wrapper passes it: buffer handle, offset and leading dimension (elements).
type Operand = (usize, i64, i64);

/// Enqueues one (strided-batch) GEMM on raw handles; returns its event's handle.
///
/// # Safety
/// The queue and buffers must be valid OpenCL objects (the wrapper takes them from pyopencl).
#[allow(clippy::too_many_arguments)]
unsafe fn enqueue<T: Element>(
    queue: usize,
    spec: &GemmSpec,
    alpha: T::Scalar,
    [a, b, c]: [usize; 3],
    beta: T::Scalar,
    wait: &[usize],
) -> Result<usize> {
    let wait: Vec<cl_event> = wait.iter().map(|&e| e as cl_event).collect();
    let event = fewfit::enqueue_raw::<T>(
        queue_of(queue)?,
        spec,
        alpha,
        a as cl_mem,
        b as cl_mem,
        beta,
        c as cl_mem,
        &wait,
        Selection::Auto,
    )?;
    Ok(event as usize)
}

/// C = alpha·op(A)·op(B) + beta·C on buffers, as a strided batch of `batch_count` items (1 for a
/// plain GEMM), the arguments of CLBlast's `XgemmStridedBatched`; `fast_tf32` lets float32 run on
/// TF32 tensor cores. Returns the event's handle, which the caller owns.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (dtype, row_major, a_transp, b_transp, m, n, k, alpha, a, b, beta, c, batch_count, a_stride, b_stride, c_stride, queue, fast_tf32))]
fn gemm(
    py: Python<'_>,
    dtype: &str,
    row_major: bool,
    a_transp: bool,
    b_transp: bool,
    m: i64,
    n: i64,
    k: i64,
    alpha: f64,
    a: Operand,
    b: Operand,
    beta: f64,
    c: Operand,
    batch_count: i64,
    a_stride: i64,
    b_stride: i64,
    c_stride: i64,
    queue: usize,
    fast_tf32: bool,
) -> PyResult<usize> {
    let dtype = Dtype::parse(dtype).map_err(|e| to_py(py, e))?;
    run(py, move || {
        let shape = Shape::new(row_major, a_transp, b_transp, (m, n, k))?;
        let spec = shape
            .spec()
            .with_compute(compute(fast_tf32))
            .with_ld(size("a_ld", a.2)?, size("b_ld", b.2)?, size("c_ld", c.2)?)
            .with_offsets(size("a_offset", a.1)?, size("b_offset", b.1)?, size("c_offset", c.1)?)
            .with_batch(
                size("batch_count", batch_count)?,
                size("a_stride", a_stride)?,
                size("b_stride", b_stride)?,
                size("c_stride", c_stride)?,
            );
        let mems = [a.0, b.0, c.0];
        // SAFETY: the wrapper passes the int_ptr of a pyopencl queue and of buffers it checked.
        unsafe {
            match dtype {
                Dtype::F32 => enqueue::<f32>(queue, &spec, alpha as f32, mems, beta as f32, &[]),
                Dtype::F64 => enqueue::<f64>(queue, &spec, alpha, mems, beta, &[]),
                Dtype::F16 => enqueue::<f16>(queue, &spec, alpha as f32, mems, beta as f32, &[]),
            }
        }
    })
}

/// The length of a buffer in elements of `bytes` each.
fn mem_len(mem: usize, bytes: usize) -> Result<usize> {
    let size: usize = get_mem_object_info(mem as cl_mem, CL_MEM_SIZE)
        .map_err(|code| Error::OpenCl { call: "clGetMemObjectInfo", code })?
        .into();
    Ok(size / bytes)
}

/// A batch with per-item alphas, betas and offsets, the arguments of CLBlast's `XgemmBatched`.
/// Equal alphas and betas with offsets of a constant stride (and C items that do not overlap) run
/// as one strided launch; otherwise each item is launched after the previous one. Every item is
/// checked before the first launch; `fast_tf32` as in [`gemm`]. Returns the last launch's event
/// handle.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (dtype, row_major, a_transp, b_transp, m, n, k, alphas, a, a_offsets, a_ld, b, b_offsets, b_ld, betas, c, c_offsets, c_ld, queue, fast_tf32))]
fn gemm_batched(
    py: Python<'_>,
    dtype: &str,
    row_major: bool,
    a_transp: bool,
    b_transp: bool,
    m: i64,
    n: i64,
    k: i64,
    alphas: Vec<f64>,
    a: usize,
    a_offsets: Vec<i64>,
    a_ld: i64,
    b: usize,
    b_offsets: Vec<i64>,
    b_ld: i64,
    betas: Vec<f64>,
    c: usize,
    c_offsets: Vec<i64>,
    c_ld: i64,
    queue: usize,
    fast_tf32: bool,
) -> PyResult<usize> {
    let dtype = Dtype::parse(dtype).map_err(|e| to_py(py, e))?;
    run(py, move || {
        let shape = Shape::new(row_major, a_transp, b_transp, (m, n, k))?;
        let base = shape.spec().with_ld(size("a_ld", a_ld)?, size("b_ld", b_ld)?, size("c_ld", c_ld)?);
        let base = base.with_compute(compute(fast_tf32));
        let count = alphas.len();
        for (name, len) in [
            ("betas", betas.len()),
            ("a_offsets", a_offsets.len()),
            ("b_offsets", b_offsets.len()),
            ("c_offsets", c_offsets.len()),
        ] {
            if len != count {
                return Err(invalid(
                    name,
                    format!("{len} items"),
                    &format!("must have as many items as alphas ({count})"),
                ));
            }
        }
        let offsets = |name, v: &[i64]| v.iter().map(|&o| size(name, o)).collect::<Result<Vec<usize>>>();
        let offsets =
            [offsets("a_offsets", &a_offsets)?, offsets("b_offsets", &b_offsets)?, offsets("c_offsets", &c_offsets)?];
        let single = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<f32>>();
        // SAFETY: as in `gemm`.
        unsafe {
            match dtype {
                Dtype::F32 => batched::<f32>(queue, &base, &single(&alphas), [a, b, c], &offsets, &single(&betas)),
                Dtype::F64 => batched::<f64>(queue, &base, &alphas, [a, b, c], &offsets, &betas),
                Dtype::F16 => batched::<f16>(queue, &base, &single(&alphas), [a, b, c], &offsets, &single(&betas)),
            }
        }
    })
}

/// [`gemm_batched`] in one precision.
///
/// # Safety
/// As [`enqueue`].
unsafe fn batched<T: Element>(
    queue: usize,
    base: &GemmSpec,
    alphas: &[T::Scalar],
    mems: [usize; 3],
    offsets: &[Vec<usize>; 3],
    betas: &[T::Scalar],
) -> Result<usize> {
    let count = alphas.len();
    if count == 0 {
        return enqueue::<T>(queue, &base.with_batch(0, 0, 0, 0), T::SCALAR_ZERO, mems, T::SCALAR_ZERO, &[]);
    }
    // Overlapping C items (say, all offsets equal) go one by one below, in order.
    let item_offsets = [offsets[0].as_slice(), offsets[1].as_slice(), offsets[2].as_slice()];
    if let Some(spec) = base.as_strided_batch(alphas, betas, item_offsets) {
        return enqueue::<T>(queue, &spec, alphas[0], mems, betas[0], &[]);
    }
    // Every item is checked before the first launch: the largest offsets need the longest buffers.
    let max = [0, 1, 2].map(|i| offsets[i].iter().copied().max().unwrap_or(0));
    let need = base.with_offsets(max[0], max[1], max[2]).required_lengths(false)?;
    for (i, name) in ["a buffer", "b buffer", "c buffer"].into_iter().enumerate() {
        if need[i] > 0 && mems[i] != 0 {
            let have = mem_len(mems[i], std::mem::size_of::<T>())?;
            if need[i] > have {
                let reason =
                    format!("holds {have} elements; the offsets, leading dimension and shape need {}", need[i]);
                return Err(invalid(name, have, &reason));
            }
        }
    }
    let mut previous: Option<usize> = None;
    for i in 0..count {
        let spec = base.with_offsets(offsets[0][i], offsets[1][i], offsets[2][i]);
        let wait: Vec<usize> = previous.into_iter().collect();
        let launched = enqueue::<T>(queue, &spec, alphas[i], mems, betas[i], &wait);
        if let Some(p) = previous.take() {
            // The next launch holds its own dependency on it.
            let _ = opencl3::event::release_event(p as cl_event);
        }
        previous = Some(launched?);
    }
    Ok(previous.expect("count > 0"))
}

/// C = alpha·op(A)·op(B) + beta·C on host memory through the default device (`fewfit.matmul`).
/// Addresses and lengths (elements) come from NumPy arrays the wrapper keeps alive and made
/// contiguous and aligned; `dtype` is theirs; `fast_tf32` as in [`gemm`].
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (dtype, row_major, a_transp, b_transp, m, n, k, alpha, a, a_len, a_ld, b, b_len, b_ld, beta, c, c_len, c_ld, fast_tf32))]
fn gemm_host(
    py: Python<'_>,
    dtype: &str,
    row_major: bool,
    a_transp: bool,
    b_transp: bool,
    m: i64,
    n: i64,
    k: i64,
    alpha: f64,
    a: usize,
    a_len: usize,
    a_ld: i64,
    b: usize,
    b_len: usize,
    b_ld: i64,
    beta: f64,
    c: usize,
    c_len: usize,
    c_ld: i64,
    fast_tf32: bool,
) -> PyResult<()> {
    let dtype = Dtype::parse(dtype).map_err(|e| to_py(py, e))?;
    run(py, move || {
        let shape = Shape::new(row_major, a_transp, b_transp, (m, n, k))?;
        let spec = shape.spec().with_ld(size("a_ld", a_ld)?, size("b_ld", b_ld)?, size("c_ld", c_ld)?);
        let spec = spec.with_compute(compute(fast_tf32));
        // SAFETY: the wrapper passes the data of live, contiguous, aligned arrays of these lengths
        // and this dtype (NumPy's float16 is IEEE binary16, as `half::f16`); C is not shared with A
        // or B (it is a fresh array).
        unsafe fn host<T: Element>(
            spec: &GemmSpec,
            alpha: T::Scalar,
            [a, b, c]: [(usize, usize); 3],
            beta: T::Scalar,
        ) -> Result<()> {
            let slice = |(p, len): (usize, usize)| {
                if len == 0 {
                    &[][..]
                } else {
                    std::slice::from_raw_parts(p as *const T, len)
                }
            };
            let c = if c.1 == 0 { &mut [][..] } else { std::slice::from_raw_parts_mut(c.0 as *mut T, c.1) };
            fewfit::gemm_host::<T>(spec, alpha, slice(a), slice(b), beta, c)
        }
        let parts = [(a, a_len), (b, b_len), (c, c_len)];
        unsafe {
            match dtype {
                Dtype::F32 => host::<f32>(&spec, alpha as f32, parts, beta as f32),
                Dtype::F64 => host::<f64>(&spec, alpha, parts, beta),
                Dtype::F16 => host::<f16>(&spec, alpha as f32, parts, beta as f32),
            }
        }
    })
}

/// The engine of a queue (`int_ptr`), or of the default device where `queue` is None.
fn engine(queue: Option<usize>) -> Result<std::sync::Arc<Engine>> {
    let queue = match queue {
        Some(q) => queue_of(q)?,
        None => DefaultDevice::get()?.queue.get(),
    };
    Engine::for_queue(queue)
}

/// The precision a call of `dtype` with `fast_tf32` runs in on the engine's device (TF32 only
/// where it has tensor cores; an error for float64 without fp64).
fn runs_as(engine: &Engine, dtype: Dtype, fast_tf32: bool) -> Result<Precision> {
    let spec = GemmSpec::row_major(1, 1, 1).with_compute(compute(fast_tf32));
    engine.runs_as(spec.precision(dtype.precision()))
}

/// Builds the variants the device's tree can pick for `dtype` (with `fast_tf32`, the TF32 set where
/// the device has tensor cores), so that no later call compiles.
#[pyfunction]
#[pyo3(signature = (dtype, queue=None, fast_tf32=false))]
fn warm_up(py: Python<'_>, dtype: &str, queue: Option<usize>, fast_tf32: bool) -> PyResult<()> {
    let dtype = Dtype::parse(dtype).map_err(|e| to_py(py, e))?;
    run(py, move || {
        let engine = engine(queue)?;
        engine.warm_up(runs_as(&engine, dtype, fast_tf32)?)
    })
}

/// Drops fewfit's engines (programs, kernels, scratch buffers, context references); returns how many.
#[pyfunction]
fn clear_cache(py: Python<'_>) -> usize {
    py.detach(fewfit::release_engines)
}

/// The programs built so far in this process: (compiled, loaded from the binary cache).
#[pyfunction]
fn build_stats() -> (u64, u64) {
    let stats = fewfit::build_stats();
    (stats.compiled, stats.from_cache)
}

/// The device of a queue, or the default device: its facts as a dict.
#[pyfunction]
#[pyo3(signature = (queue=None))]
fn device<'py>(py: Python<'py>, queue: Option<usize>) -> PyResult<Bound<'py, PyDict>> {
    let info = run(py, move || Ok(engine(queue)?.info.clone()))?;
    let d = PyDict::new(py);
    d.set_item("name", info.name)?;
    d.set_item("vendor", info.vendor)?;
    d.set_item("driver", info.driver)?;
    d.set_item("platform_version", info.platform_version)?;
    d.set_item("device_class", info.class.name())?;
    d.set_item("compute_units", info.compute_units)?;
    d.set_item("max_work_group_size", info.max_work_group_size)?;
    d.set_item("local_mem_bytes", info.local_mem_bytes)?;
    d.set_item("max_alloc_bytes", info.max_alloc_bytes)?;
    d.set_item("fp64", info.fp64)?;
    d.set_item("tensor_cores", info.tensor_cores)?;
    Ok(d)
}

/// The variant the device's tree for `dtype` (with `fast_tf32`: the precision such a call runs in)
/// picks for a GEMM and its path through the tree: (class, variant name, variant id, leaf,
/// [(feature, value, threshold, went_le)], features dict, text).
#[pyfunction]
#[pyo3(signature = (m, n, k, row_major, a_transp, b_transp, queue=None, dtype="float32", fast_tf32=false))]
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
fn explain<'py>(
    py: Python<'py>,
    m: i64,
    n: i64,
    k: i64,
    row_major: bool,
    a_transp: bool,
    b_transp: bool,
    queue: Option<usize>,
    dtype: &str,
    fast_tf32: bool,
) -> PyResult<(String, String, String, usize, Vec<(String, u64, u64, bool)>, Bound<'py, PyDict>, String)> {
    let dtype = Dtype::parse(dtype).map_err(|e| to_py(py, e))?;
    let (e, text) = run(py, move || {
        let shape = Shape::new(row_major, a_transp, b_transp, (m, n, k))?;
        let engine = engine(queue)?;
        let features = shape.spec().kernel_features().with_compute_units(engine.info.compute_units as u64);
        let e = fewfit::explain(engine.info.class, runs_as(&engine, dtype, fast_tf32)?, features);
        let text = e.to_string();
        Ok((e, text))
    })?;
    let features = PyDict::new(py);
    for (name, value) in ShapeFeatures::NAMES.iter().zip(e.features.values()) {
        features.set_item(name, value)?;
    }
    let path = e.path.iter().map(|s| (s.feature.clone(), s.value, s.threshold, s.went_le)).collect();
    let info = e.variant.info();
    Ok((e.class.name().to_string(), info.name.to_string(), info.id.to_string(), e.leaf, path, features, text))
}

/// The pointer width check the wrapper's handle conversions rely on.
const _: () = assert!(std::mem::size_of::<usize>() == std::mem::size_of::<*mut c_void>());

/// The native module of the `fewfit` package.
#[pymodule]
#[pyo3(name = "_native")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(gemm, m)?)?;
    m.add_function(wrap_pyfunction!(gemm_batched, m)?)?;
    m.add_function(wrap_pyfunction!(gemm_host, m)?)?;
    m.add_function(wrap_pyfunction!(warm_up, m)?)?;
    m.add_function(wrap_pyfunction!(clear_cache, m)?)?;
    m.add_function(wrap_pyfunction!(build_stats, m)?)?;
    m.add_function(wrap_pyfunction!(device, m)?)?;
    m.add_function(wrap_pyfunction!(explain, m)?)?;
    m.add("__fewfit_version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
