//! The C ABI (header `include/fewfit.h`): GEMM entry points with CLBlast's arguments, order,
//! meaning and status codes (`FewfitSgemm` is called exactly like `CLBlastSgemm`, `FewfitHgemm` like
//! `CLBlastHgemm`), built into the cdylib and staticlib. Beyond CLBlast: bfloat16 GEMMs
//! (`FewfitBf16gemm*`, alpha and beta as `float`) and the opt-in to TF32 tensor cores for single
//! precision (`FewfitSgemm*Ex`, a trailing compute argument). With the `clblast-compat` feature the same functions are also exported
//! under CLBlast's own names, and CLBlast's C++ GEMM and cache entry points under their mangled
//! names (`capi/clblast.rs`), so a program built against libclblast switches to fewfit through
//! `LD_PRELOAD` or the `libclblast.so.1` shim. `FEWFIT_STATS=1` prints what fewfit served at exit
//! (`capi/stats.rs`).
//!
//! Every call works on the caller's context and queue, whatever the device: the engine is found
//! from the queue. Arguments are checked before any device work (C is untouched on error), a null
//! pointer gives an error code, and no panic crosses the boundary (it becomes
//! [`Status::UnexpectedError`]).

use std::ffi::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};

use opencl3::event::release_event;
use opencl3::types::{cl_command_queue, cl_event, cl_mem};

use crate::cl::{mem_context, mem_len, queue_context};
use crate::engine::{build_stats, release_engines, Engine};
use crate::error::Error;
use crate::gemm::{enqueue_checked, Selection};
use crate::spec::{Compute, Element, GemmSpec, Layout, Precision, Transpose};

#[cfg(feature = "clblast-compat")]
mod clblast;
mod stats;

/// The status codes the C ABI returns: the values of CLBlast's `CLBlastStatusCode` for the cases
/// that apply. OpenCL errors of the calls made for the GEMM are passed through as their own
/// (negative) OpenCL codes.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Success (`CLBlastSuccess`).
    Success = 0,
    /// A kernel failed to build on the device (`CLBlastOpenCLBuildProgramFailure`, CL_BUILD_PROGRAM_FAILURE).
    BuildProgramFailure = -11,
    /// A layout or transpose value out of its enum, or a null array in a batched call
    /// (`CLBlastInvalidValue`, CL_INVALID_VALUE); also a strided batch whose C items overlap.
    InvalidValue = -30,
    /// The `cl_command_queue*` or the queue it points to is null (`CLBlastInvalidCommandQueue`).
    InvalidCommandQueue = -36,
    /// What fewfit's kernels cannot do: a matrix spanning more than 2³¹ − 1 elements
    /// (`CLBlastNotImplemented`).
    NotImplemented = -1024,
    /// A is null or not a buffer (`CLBlastInvalidMatrixA`).
    InvalidMatrixA = -1022,
    /// B is null or not a buffer (`CLBlastInvalidMatrixB`).
    InvalidMatrixB = -1021,
    /// C is null or not a buffer (`CLBlastInvalidMatrixC`).
    InvalidMatrixC = -1020,
    /// M, N or K is zero or beyond 2³¹ − 1 (`CLBlastInvalidDimension`).
    InvalidDimension = -1017,
    /// `a_ld` is below A's stored line length (`CLBlastInvalidLeadDimA`).
    InvalidLeadDimA = -1016,
    /// `b_ld` is below B's stored line length (`CLBlastInvalidLeadDimB`).
    InvalidLeadDimB = -1015,
    /// `c_ld` is below C's stored line length (`CLBlastInvalidLeadDimC`).
    InvalidLeadDimC = -1014,
    /// A's buffer is too small for shape, offset and leading dimension (`CLBlastInsufficientMemoryA`).
    InsufficientMemoryA = -1011,
    /// B's buffer is too small (`CLBlastInsufficientMemoryB`).
    InsufficientMemoryB = -1010,
    /// C's buffer is too small (`CLBlastInsufficientMemoryC`).
    InsufficientMemoryC = -1009,
    /// The batch count is zero or beyond 2³¹ − 1 (`CLBlastInvalidBatchCount`).
    InvalidBatchCount = -2049,
    /// A double-precision call on a device without fp64 (`CLBlastNoDoublePrecision`).
    NoDoublePrecision = -2044,
    /// A half or bfloat16 call on a device where none of fewfit's 16-bit kernels can run
    /// (`CLBlastNoHalfPrecision`). fewfit's 16-bit kernels compute in f32 and need no
    /// `cl_khr_fp16`, so this arises only where no variant of the set is available to the device.
    NoHalfPrecision = -2045,
    /// An unexpected failure, a caught panic included (`CLBlastUnexpectedError`).
    UnexpectedError = -2039,
}

/// A status code as returned to C: a [`Status`] or an OpenCL error code.
type Code = c_int;

/// One of the three matrices, for choosing its status codes.
#[derive(Clone, Copy)]
enum Matrix {
    A,
    B,
    C,
}

impl Matrix {
    const ALL: [Matrix; 3] = [Matrix::A, Matrix::B, Matrix::C];

    /// Its "not a valid buffer" status.
    fn invalid(self) -> Status {
        [Status::InvalidMatrixA, Status::InvalidMatrixB, Status::InvalidMatrixC][self as usize]
    }

    /// Its "buffer too small" status.
    fn insufficient(self) -> Status {
        [Status::InsufficientMemoryA, Status::InsufficientMemoryB, Status::InsufficientMemoryC][self as usize]
    }

    /// The matrix that a [`GemmSpec`] argument name (`"a buffer"`, `"ldb"`) refers to.
    fn named(name: &str) -> Option<Matrix> {
        match name {
            "a buffer" | "lda" => Some(Matrix::A),
            "b buffer" | "ldb" => Some(Matrix::B),
            "c buffer" | "ldc" | "c_batch_stride" => Some(Matrix::C),
            _ => None,
        }
    }
}

/// The CLBlast status of a failed argument check of a [`GemmSpec`] (names as in `gemm.rs`).
fn spec_status(name: &str) -> Status {
    match (name, Matrix::named(name)) {
        ("m" | "n" | "k", _) => Status::InvalidDimension,
        ("batch_count", _) => Status::InvalidBatchCount,
        ("c_batch_stride", _) => Status::InvalidValue,
        ("lda", _) => Status::InvalidLeadDimA,
        ("ldb", _) => Status::InvalidLeadDimB,
        ("ldc", _) => Status::InvalidLeadDimC,
        (_, Some(matrix)) => matrix.insufficient(),
        _ => Status::UnexpectedError,
    }
}

/// The code of an error of the runtime, for a call in `precision` (of its elements) on `queue`.
fn error_code(error: &Error, precision: Precision, queue: cl_command_queue) -> Code {
    let status = match error {
        Error::OpenCl { code, .. } => return *code,
        Error::InvalidArgument { name, .. } => spec_status(name),
        Error::Unavailable { .. } if precision == Precision::F64 && !has_fp64(queue) => Status::NoDoublePrecision,
        Error::Unavailable { .. } if precision.is_half() => Status::NoHalfPrecision,
        Error::Unavailable { .. } | Error::Build { .. } => Status::BuildProgramFailure,
        Error::NoDevice(_) | Error::NoOpenClLibrary(_) | Error::Codegen(_) => Status::UnexpectedError,
    };
    status as Code
}

/// Whether the queue's device does f64 (false if the queue cannot be asked).
fn has_fp64(queue: cl_command_queue) -> bool {
    Engine::for_queue(queue).map(|e| e.info.fp64).unwrap_or(false)
}

/// Runs an entry point's body: its status, or [`Status::UnexpectedError`] if it panicked.
fn guard(body: impl FnOnce() -> Result<(), Code>) -> Code {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => Status::Success as Code,
        Ok(Err(code)) => code,
        Err(_) => Status::UnexpectedError as Code,
    }
}

/// `CLBlastLayoutRowMajor`.
const LAYOUT_ROW_MAJOR: c_int = 101;
/// `CLBlastLayoutColMajor`.
const LAYOUT_COL_MAJOR: c_int = 102;
/// `CLBlastTransposeNo`.
const TRANSPOSE_NO: c_int = 111;
/// `CLBlastTransposeYes`.
const TRANSPOSE_YES: c_int = 112;
/// `CLBlastTransposeConjugate`: plain transposition for real types.
const TRANSPOSE_CONJUGATE: c_int = 113;
/// `FewfitComputeDefault`: products in the storage precision.
const COMPUTE_DEFAULT: c_int = 0;
/// `FewfitComputeFastTf32`: single precision may run on TF32 tensor cores ([`Compute::FastTf32`]).
const COMPUTE_FAST_TF32: c_int = 1;

/// The enums of a call as C gives them: layout, A's and B's transposes, and the compute mode (a
/// `FewfitCompute`; [`COMPUTE_DEFAULT`] for the entry points without one).
type Enums = [c_int; 4];

/// The call's shape and operands as CLBlast gives them (offsets of item 0, batch strides).
struct Call {
    spec: GemmSpec,
    mems: [cl_mem; 3],
    queue: cl_command_queue,
}

/// The queue a C caller's `cl_command_queue*` points to; [`Status::InvalidCommandQueue`] where the
/// pointer or the queue is null.
///
/// # Safety
/// `queue` is null or points to a readable `cl_command_queue`.
unsafe fn queue_of(queue: *const cl_command_queue) -> Result<cl_command_queue, Code> {
    if queue.is_null() || (*queue).is_null() {
        return Err(Status::InvalidCommandQueue as Code);
    }
    Ok(*queue)
}

impl Call {
    /// Checks the enums (the compute mode among them), the dimensions, the batch count and the
    /// queue; returns the spec (offsets 0, batch 1) and the queue.
    unsafe fn new(
        [layout, a_transpose, b_transpose, compute]: Enums,
        (m, n, k): (usize, usize, usize),
        (a_ld, b_ld, c_ld): (usize, usize, usize),
        mems: [cl_mem; 3],
        batch_count: usize,
        queue: *mut cl_command_queue,
    ) -> Result<Call, Code> {
        let layout = match layout {
            LAYOUT_ROW_MAJOR => Layout::RowMajor,
            LAYOUT_COL_MAJOR => Layout::ColumnMajor,
            _ => return Err(Status::InvalidValue as Code),
        };
        let transpose = |t| match t {
            TRANSPOSE_NO => Ok(Transpose::No),
            TRANSPOSE_YES | TRANSPOSE_CONJUGATE => Ok(Transpose::Yes),
            _ => Err(Status::InvalidValue as Code),
        };
        let (trans_a, trans_b) = (transpose(a_transpose)?, transpose(b_transpose)?);
        let compute = match compute {
            COMPUTE_DEFAULT => Compute::Default,
            COMPUTE_FAST_TF32 => Compute::FastTf32,
            _ => return Err(Status::InvalidValue as Code),
        };
        if m == 0 || n == 0 || k == 0 {
            return Err(Status::InvalidDimension as Code);
        }
        // Beyond 2³¹ − 1 the kernels cannot index it (and batched arrays are not sliced).
        if batch_count == 0 || batch_count > i32::MAX as usize {
            return Err(Status::InvalidBatchCount as Code);
        }
        let queue = queue_of(queue)?;
        let spec = GemmSpec::new(layout, trans_a, trans_b, m, n, k).with_ld(a_ld, b_ld, c_ld).with_compute(compute);
        Ok(Call { spec, mems, queue })
    }

    /// Checks `spec` (this call's shape with offsets and batch set) against the buffers, as
    /// CLBlast does (A and B are checked even where alpha = 0), and returns their lengths.
    fn check<T: Element>(&self, spec: &GemmSpec) -> Result<[usize; 3], Code> {
        let status = |e: Error| match e {
            Error::InvalidArgument { name, .. } => spec_status(name) as Code,
            other => error_code(&other, T::PRECISION, self.queue),
        };
        spec.check_sizes().map_err(status)?;
        // Then matrix by matrix, as CLBlast: A's leading dimension, buffer and size, then B's, then C's.
        // A buffer of another context than the queue's is not a valid buffer for this call.
        let context = queue_context(self.queue).map_err(status)?;
        let mut lengths = [0; 3];
        for (i, matrix) in Matrix::ALL.into_iter().enumerate() {
            spec.check_ld(i).map_err(status)?;
            if self.mems[i].is_null() || mem_context(self.mems[i]).ok() != Some(context) {
                return Err(matrix.invalid() as Code);
            }
            lengths[i] = mem_len::<T>(self.mems[i]).map_err(|_| matrix.invalid() as Code)?;
            let need = spec.required_length(i, false).map_err(|e| match e {
                // A span beyond the kernels' index range: too big for the buffer, or else for fewfit.
                Error::InvalidArgument { name, .. } if name.ends_with("buffer") && lengths[i] > i32::MAX as usize => {
                    Status::NotImplemented as Code
                }
                other => status(other),
            })?;
            if need > lengths[i] {
                return Err(matrix.insufficient() as Code);
            }
        }
        Ok(lengths)
    }

    /// Enqueues `spec` after `wait` and returns its event; without `want_event` none (null).
    fn enqueue<T: Element>(
        &self,
        spec: &GemmSpec,
        alpha: T::Scalar,
        beta: T::Scalar,
        lengths: [usize; 3],
        wait: &[cl_event],
        want_event: bool,
    ) -> Result<cl_event, Code> {
        // SAFETY: the caller of the entry point vouches for the queue and buffers; `lengths` were
        // queried from the buffers by `check`.
        unsafe {
            enqueue_checked::<T>(self.queue, spec, alpha, self.mems, lengths, beta, wait, Selection::Auto, want_event)
        }
        .map_err(|e| error_code(&e, T::PRECISION, self.queue))
    }
}

/// Hands `done` to the caller through `event` (CLBlast's contract). Where `event` is null the
/// launch was asked for no event, so `done` is null too.
unsafe fn hand_over(done: cl_event, event: *mut cl_event) {
    if event.is_null() {
        debug_assert!(done.is_null(), "a launch asked for no event returned one");
    } else {
        *event = done;
    }
}

/// A GEMM or strided batch of GEMMs, CLBlast's `Xgemm` / `XgemmStridedBatched`.
#[allow(clippy::too_many_arguments)]
unsafe fn strided<T: Element>(
    enums: Enums,
    (m, n, k): (usize, usize, usize),
    alpha: T::Scalar,
    (a, a_offset, a_ld, a_stride): (cl_mem, usize, usize, usize),
    (b, b_offset, b_ld, b_stride): (cl_mem, usize, usize, usize),
    beta: T::Scalar,
    (c, c_offset, c_ld, c_stride): (cl_mem, usize, usize, usize),
    batch_count: usize,
    queue: *mut cl_command_queue,
    event: *mut cl_event,
) -> Result<(), Code> {
    let result = (|| {
        let call = Call::new(enums, (m, n, k), (a_ld, b_ld, c_ld), [a, b, c], batch_count, queue)?;
        let spec =
            call.spec.with_offsets(a_offset, b_offset, c_offset).with_batch(batch_count, a_stride, b_stride, c_stride);
        let lengths = call.check::<T>(&spec)?;
        hand_over(call.enqueue::<T>(&spec, alpha, beta, lengths, &[], !event.is_null())?, event);
        Ok(())
    })();
    stats::record::<T>(&result);
    result
}

/// CLBlast's `XgemmBatched`: per-item alphas, betas and offsets, the alphas and betas in the C
/// type `S`, which `convert` turns into `T`'s scalar. Equal alphas and betas with offsets of
/// constant stride (and C items that do not overlap) run as one strided launch; otherwise one
/// launch per item, each after the previous one.
#[allow(clippy::too_many_arguments)]
unsafe fn batched<T: Element, S: Copy>(
    enums: Enums,
    (m, n, k): (usize, usize, usize),
    alphas: *const S,
    a: (cl_mem, *const usize, usize),
    b: (cl_mem, *const usize, usize),
    betas: *const S,
    c: (cl_mem, *const usize, usize),
    batch_count: usize,
    queue: *mut cl_command_queue,
    event: *mut cl_event,
    convert: fn(S) -> T::Scalar,
) -> Result<(), Code> {
    let result = batched_items::<T, S>(enums, (m, n, k), alphas, a, b, betas, c, batch_count, queue, event, convert);
    stats::record::<T>(&result);
    result
}

/// [`batched`]'s work.
#[allow(clippy::too_many_arguments)]
unsafe fn batched_items<T: Element, S: Copy>(
    enums: Enums,
    (m, n, k): (usize, usize, usize),
    alphas: *const S,
    (a, a_offsets, a_ld): (cl_mem, *const usize, usize),
    (b, b_offsets, b_ld): (cl_mem, *const usize, usize),
    betas: *const S,
    (c, c_offsets, c_ld): (cl_mem, *const usize, usize),
    batch_count: usize,
    queue: *mut cl_command_queue,
    event: *mut cl_event,
    convert: fn(S) -> T::Scalar,
) -> Result<(), Code> {
    let call = Call::new(enums, (m, n, k), (a_ld, b_ld, c_ld), [a, b, c], batch_count, queue)?;
    if [alphas.is_null(), a_offsets.is_null(), b_offsets.is_null(), betas.is_null(), c_offsets.is_null()]
        .contains(&true)
    {
        return Err(Status::InvalidValue as Code);
    }
    let slice = |p| std::slice::from_raw_parts(p, batch_count);
    let scalars = |p: *const S| -> Vec<T::Scalar> {
        std::slice::from_raw_parts(p, batch_count).iter().map(|&x| convert(x)).collect()
    };
    let (alphas, betas) = (scalars(alphas), scalars(betas));
    let offsets = [slice(a_offsets), slice(b_offsets), slice(c_offsets)];
    // Overlapping C items (say, all offsets equal) go one by one below, in order.
    if let Some(spec) = call.spec.as_strided_batch(&alphas, &betas, offsets) {
        let lengths = call.check::<T>(&spec)?;
        hand_over(call.enqueue::<T>(&spec, alphas[0], betas[0], lengths, &[], !event.is_null())?, event);
        return Ok(());
    }
    // Every item is checked before the first launch: the largest offsets need the longest buffers.
    let max = offsets.map(|o| o.iter().copied().max().unwrap_or(0));
    let lengths = call.check::<T>(&call.spec.with_offsets(max[0], max[1], max[2]))?;
    let mut previous: Option<cl_event> = None;
    for i in 0..batch_count {
        let spec = call.spec.with_offsets(offsets[0][i], offsets[1][i], offsets[2][i]);
        let wait: &[cl_event] = previous.as_slice();
        // Every item but the last is waited on by the next; the last only by the caller, if at all.
        let want_event = i + 1 < batch_count || !event.is_null();
        let launched = call.enqueue::<T>(&spec, alphas[i], betas[i], lengths, wait, want_event);
        if let Some(p) = previous.take() {
            // The next launch (if any) holds its own dependency on it.
            let _ = release_event(p);
        }
        previous = Some(launched?);
    }
    if let Some(done) = previous {
        hand_over(done, event);
    }
    Ok(())
}

/// Defines an entry point `$fewfit` and, given `/ $clblast` and with the `clblast-compat` feature,
/// the same function under CLBlast's name `$clblast`.
macro_rules! entry_points {
    ($(#[$doc:meta])* $fewfit:ident ($($arg:ident: $ty:ty),* $(,)?) => $body:expr) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// The queue, buffers and arrays must be valid OpenCL objects of one context and readable
        /// arrays of `batch_count` elements, as for CLBlast; null pointers are reported, not read.
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "C" fn $fewfit($($arg: $ty),*) -> c_int {
            guard(|| $body)
        }
    };
    ($(#[$doc:meta])* $fewfit:ident / $clblast:ident ($($arg:ident: $ty:ty),* $(,)?) => $body:expr) => {
        entry_points! { $(#[$doc])* $fewfit($($arg: $ty),*) => $body }

        #[cfg(feature = "clblast-compat")]
        #[doc = concat!("[`", stringify!($fewfit), "`] under CLBlast's name (feature `clblast-compat`).")]
        ///
        /// # Safety
        #[doc = concat!("As [`", stringify!($fewfit), "`].")]
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "C" fn $clblast($($arg: $ty),*) -> c_int {
            $fewfit($($arg),*)
        }
    };
}

/// Defines the plain, array-batched and strided-batched entry points of element type `$t`, whose
/// alpha and beta C passes as `$c` and `$convert` turns into `$t`'s scalar, each with its CLBlast
/// name where one is given.
macro_rules! precision_entry_points {
    ($t:ty, $c:ty => $convert:path, $gemm:ident $(/ $cl_gemm:ident)?, $batched:ident $(/ $cl_batched:ident)?,
     $strided:ident $(/ $cl_strided:ident)?) => {
        entry_points! {
            #[doc = concat!("C = alpha·op(A)·op(B) + beta·C on ", stringify!($t), " elements, with the arguments of CLBlast's `Xgemm` (alpha and beta as `", stringify!($c), "`).")]
            $gemm $(/ $cl_gemm)?(
                layout: c_int, a_transpose: c_int, b_transpose: c_int, m: usize, n: usize, k: usize,
                alpha: $c, a_buffer: cl_mem, a_offset: usize, a_ld: usize,
                b_buffer: cl_mem, b_offset: usize, b_ld: usize,
                beta: $c, c_buffer: cl_mem, c_offset: usize, c_ld: usize,
                queue: *mut cl_command_queue, event: *mut cl_event,
            ) => strided::<$t>([layout, a_transpose, b_transpose, COMPUTE_DEFAULT], (m, n, k), $convert(alpha),
                (a_buffer, a_offset, a_ld, 0), (b_buffer, b_offset, b_ld, 0), $convert(beta),
                (c_buffer, c_offset, c_ld, 0), 1, queue, event)
        }
        entry_points! {
            #[doc = concat!("A batch of GEMMs on ", stringify!($t), " elements with per-item alphas, betas and offsets, with the arguments of CLBlast's `XgemmBatched`",
                ": one strided launch when alphas and betas are equal and the offsets have a constant stride, else one launch per item.")]
            $batched $(/ $cl_batched)?(
                layout: c_int, a_transpose: c_int, b_transpose: c_int, m: usize, n: usize, k: usize,
                alphas: *const $c, a_buffer: cl_mem, a_offsets: *const usize, a_ld: usize,
                b_buffer: cl_mem, b_offsets: *const usize, b_ld: usize,
                betas: *const $c, c_buffer: cl_mem, c_offsets: *const usize, c_ld: usize,
                batch_count: usize, queue: *mut cl_command_queue, event: *mut cl_event,
            ) => batched::<$t, $c>([layout, a_transpose, b_transpose, COMPUTE_DEFAULT], (m, n, k), alphas,
                (a_buffer, a_offsets, a_ld), (b_buffer, b_offsets, b_ld), betas,
                (c_buffer, c_offsets, c_ld), batch_count, queue, event, $convert)
        }
        entry_points! {
            #[doc = concat!("A strided batch of GEMMs on ", stringify!($t), " elements in one launch, with the arguments of CLBlast's `XgemmStridedBatched`.")]
            $strided $(/ $cl_strided)?(
                layout: c_int, a_transpose: c_int, b_transpose: c_int, m: usize, n: usize, k: usize,
                alpha: $c, a_buffer: cl_mem, a_offset: usize, a_ld: usize, a_stride: usize,
                b_buffer: cl_mem, b_offset: usize, b_ld: usize, b_stride: usize,
                beta: $c, c_buffer: cl_mem, c_offset: usize, c_ld: usize, c_stride: usize,
                batch_count: usize, queue: *mut cl_command_queue, event: *mut cl_event,
            ) => strided::<$t>([layout, a_transpose, b_transpose, COMPUTE_DEFAULT], (m, n, k), $convert(alpha),
                (a_buffer, a_offset, a_ld, a_stride), (b_buffer, b_offset, b_ld, b_stride), $convert(beta),
                (c_buffer, c_offset, c_ld, c_stride), batch_count, queue, event)
        }
    };
}

/// The C signature of `FewfitSgemm`, and of `CLBlastSgemm` (clblast_c.h), for callers that load
/// either at run time; returns a [`Status`] value.
#[rustfmt::skip]
pub type SgemmFn = unsafe extern "C" fn(
    c_int, c_int, c_int,                   // layout, a_transpose, b_transpose
    usize, usize, usize, f32,              // m, n, k, alpha
    cl_mem, usize, usize,                  // A: buffer, offset, leading dimension
    cl_mem, usize, usize, f32,             // B, then beta
    cl_mem, usize, usize,                  // C
    *mut cl_command_queue, *mut cl_event,  // queue, event
) -> c_int;
// FewfitSgemm has that signature.
const _: SgemmFn = FewfitSgemm;

/// A `cl_half` (the bits of an IEEE binary16) as the f32 the half kernels compute with.
fn from_cl_half(bits: u16) -> f32 {
    half::f16::from_bits(bits).to_f32()
}

precision_entry_points!(
    f32, f32 => std::convert::identity,
    FewfitSgemm / CLBlastSgemm,
    FewfitSgemmBatched / CLBlastSgemmBatched,
    FewfitSgemmStridedBatched / CLBlastSgemmStridedBatched
);
precision_entry_points!(
    f64, f64 => std::convert::identity,
    FewfitDgemm / CLBlastDgemm,
    FewfitDgemmBatched / CLBlastDgemmBatched,
    FewfitDgemmStridedBatched / CLBlastDgemmStridedBatched
);
precision_entry_points!(
    half::f16, u16 => from_cl_half,
    FewfitHgemm / CLBlastHgemm,
    FewfitHgemmBatched / CLBlastHgemmBatched,
    FewfitHgemmStridedBatched / CLBlastHgemmStridedBatched
);
precision_entry_points!(
    half::bf16, f32 => std::convert::identity,
    FewfitBf16gemm,
    FewfitBf16gemmBatched,
    FewfitBf16gemmStridedBatched
);

entry_points! {
    /// [`FewfitSgemm`] with a compute mode (`FewfitCompute`): 0 computes in f32,
    /// 1 (`FewfitComputeFastTf32`) lets the products run on TF32 tensor cores where the device has
    /// them (plain f32 elsewhere); another value gives [`Status::InvalidValue`].
    FewfitSgemmEx(
        layout: c_int, a_transpose: c_int, b_transpose: c_int, m: usize, n: usize, k: usize,
        alpha: f32, a_buffer: cl_mem, a_offset: usize, a_ld: usize,
        b_buffer: cl_mem, b_offset: usize, b_ld: usize,
        beta: f32, c_buffer: cl_mem, c_offset: usize, c_ld: usize,
        queue: *mut cl_command_queue, event: *mut cl_event, compute: c_int,
    ) => strided::<f32>([layout, a_transpose, b_transpose, compute], (m, n, k), alpha,
        (a_buffer, a_offset, a_ld, 0), (b_buffer, b_offset, b_ld, 0), beta,
        (c_buffer, c_offset, c_ld, 0), 1, queue, event)
}
entry_points! {
    /// [`FewfitSgemmBatched`] with a compute mode, as [`FewfitSgemmEx`].
    FewfitSgemmBatchedEx(
        layout: c_int, a_transpose: c_int, b_transpose: c_int, m: usize, n: usize, k: usize,
        alphas: *const f32, a_buffer: cl_mem, a_offsets: *const usize, a_ld: usize,
        b_buffer: cl_mem, b_offsets: *const usize, b_ld: usize,
        betas: *const f32, c_buffer: cl_mem, c_offsets: *const usize, c_ld: usize,
        batch_count: usize, queue: *mut cl_command_queue, event: *mut cl_event, compute: c_int,
    ) => batched::<f32, f32>([layout, a_transpose, b_transpose, compute], (m, n, k), alphas,
        (a_buffer, a_offsets, a_ld), (b_buffer, b_offsets, b_ld), betas,
        (c_buffer, c_offsets, c_ld), batch_count, queue, event, std::convert::identity)
}
entry_points! {
    /// [`FewfitSgemmStridedBatched`] with a compute mode, as [`FewfitSgemmEx`].
    FewfitSgemmStridedBatchedEx(
        layout: c_int, a_transpose: c_int, b_transpose: c_int, m: usize, n: usize, k: usize,
        alpha: f32, a_buffer: cl_mem, a_offset: usize, a_ld: usize, a_stride: usize,
        b_buffer: cl_mem, b_offset: usize, b_ld: usize, b_stride: usize,
        beta: f32, c_buffer: cl_mem, c_offset: usize, c_ld: usize, c_stride: usize,
        batch_count: usize, queue: *mut cl_command_queue, event: *mut cl_event, compute: c_int,
    ) => strided::<f32>([layout, a_transpose, b_transpose, compute], (m, n, k), alpha,
        (a_buffer, a_offset, a_ld, a_stride), (b_buffer, b_offset, b_ld, b_stride), beta,
        (c_buffer, c_offset, c_ld, c_stride), batch_count, queue, event)
}

/// `CLBlastPrecision`'s value for half precision (`kHalf`).
const PRECISION_HALF: c_int = 16;
/// `CLBlastPrecision`'s value for single precision.
const PRECISION_SINGLE: c_int = 32;
/// `CLBlastPrecision`'s value for double precision.
const PRECISION_DOUBLE: c_int = 64;
/// fewfit's value for bfloat16 (`FewfitPrecisionBf16`; CLBlast has none).
const PRECISION_BF16: c_int = 1016;
/// fewfit's value for single precision with `FewfitComputeFastTf32` (`FewfitPrecisionTf32`).
const PRECISION_TF32: c_int = 1032;

/// Builds now what the queue's first GEMM in `precision` would build: the variants its device's
/// tree can pick ([`Engine::warm_up`]), so that no later call in that precision compiles, as
/// CLBlast's `CLBlastFillCache` does for a device. `precision` is a value of CLBlast's
/// `CLBlastPrecision` (16 half, 32 single, 64 double) or fewfit's 1016 (bfloat16) or 1032 (single
/// with `FewfitComputeFastTf32`: the TF32 set where the device has tensor cores, else single's).
/// Another value gives [`Status::InvalidValue`], 64 on a device without fp64
/// [`Status::NoDoublePrecision`].
///
/// # Safety
/// `queue` is null or points to a null or valid command queue.
#[no_mangle]
pub unsafe extern "C" fn FewfitWarmUp(queue: *const cl_command_queue, precision: c_int) -> c_int {
    guard(|| {
        let precision = match precision {
            PRECISION_HALF => Precision::F16,
            PRECISION_SINGLE => Precision::F32,
            PRECISION_DOUBLE => Precision::F64,
            PRECISION_BF16 => Precision::Bf16,
            PRECISION_TF32 => Precision::Tf32,
            _ => return Err(Status::InvalidValue as Code),
        };
        let queue = queue_of(queue)?;
        let code = |e: Error| error_code(&e, precision, queue);
        let engine = Engine::for_queue(queue).map_err(code)?;
        engine.warm_up(engine.runs_as(precision).map_err(code)?).map_err(code)
    })
}

/// Drops fewfit's engines ([`crate::release_engines`]): the programs, kernels and scratch buffers it
/// holds on every context, and its references to the contexts, as `CLBlastClearCache` does for
/// CLBlast's. Call it before releasing a context fewfit ran on. A later call builds its variants
/// again, from the on-disk binary cache where it holds them.
#[no_mangle]
pub extern "C" fn FewfitClearCache() -> c_int {
    guard(|| {
        release_engines();
        #[cfg(feature = "clblast-compat")]
        clblast::forget_filled();
        Ok(())
    })
}

/// Programs fewfit has built in this process (compiled or loaded from its binary cache): a
/// program can look this symbol up with `dlsym` to tell whether its GEMM calls went to fewfit.
#[no_mangle]
pub extern "C" fn FewfitProgramBuilds() -> u64 {
    let stats = build_stats();
    stats.compiled + stats.from_cache
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_names_map_to_clblast_codes() {
        assert_eq!(spec_status("k"), Status::InvalidDimension);
        assert_eq!(spec_status("ldb"), Status::InvalidLeadDimB);
        assert_eq!(spec_status("c buffer"), Status::InsufficientMemoryC);
        assert_eq!(spec_status("batch_count"), Status::InvalidBatchCount);
    }
}
