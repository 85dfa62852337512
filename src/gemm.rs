//! The GEMM call: C = alpha * op(A) * op(B) + beta * C with BLAS semantics. Arguments are checked
//! before any device work; then the problem is put in the kernels' form (column-major C, each
//! operand contiguous along its outer dimension or along K), a variant is selected, and enqueued.

use std::ptr;

use opencl3::command_queue::{enqueue_marker_with_wait_list, get_command_queue_info, CommandQueue, CL_QUEUE_CONTEXT};
use opencl3::event::Event;
use opencl3::memory::{get_mem_object_info, Buffer, ClMem, CL_MEM_CONTEXT, CL_MEM_SIZE};
use opencl3::types::{cl_command_queue, cl_context, cl_event, cl_mem};

use crate::codegen::ShapeFeatures;
use crate::engine::Engine;
use crate::error::{cl, Error, Result};
use crate::selection::VariantId;

/// Storage order of the matrices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// Rows are contiguous (C and NumPy order).
    RowMajor,
    /// Columns are contiguous (Fortran and BLAS order).
    ColumnMajor,
}

/// Whether an operand is used as stored or transposed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Transpose {
    /// op(X) = X.
    No,
    /// op(X) = Xᵀ.
    Yes,
}

/// Floating-point precision of a GEMM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Precision {
    /// f32.
    F32 = 0,
    /// f64 (needs a device with fp64).
    F64 = 1,
}

impl Precision {
    /// Bytes per element.
    pub fn bytes(self) -> usize {
        match self {
            Precision::F32 => 4,
            Precision::F64 => 8,
        }
    }

    /// The OpenCL build options that select it in the kernels.
    pub fn build_options(self) -> &'static str {
        match self {
            Precision::F32 => "-DPRECISION=32",
            Precision::F64 => "-DPRECISION=64",
        }
    }
}

/// An element type the kernels compute in: f32 or f64. Sealed: the kernels and the buffer-length
/// checks count in these types' sizes, so no other type may stand for them.
pub trait Element: sealed::Sealed + Copy + Default + PartialEq + Send + Sync + std::fmt::Debug + 'static {
    /// The precision of this type.
    const PRECISION: Precision;
    /// Zero.
    const ZERO: Self;
}

impl Element for f32 {
    const PRECISION: Precision = Precision::F32;
    const ZERO: Self = 0.0;
}

impl Element for f64 {
    const PRECISION: Precision = Precision::F64;
    const ZERO: Self = 0.0;
}

mod sealed {
    /// Implemented for f32 and f64 only, so that [`super::Element`] cannot be implemented elsewhere.
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// Shape, layout, transposes, offsets and leading dimensions of a GEMM, as in BLAS (offsets and
/// leading dimensions in elements).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GemmSpec {
    /// Storage order of A, B and C.
    pub layout: Layout,
    /// op(A).
    pub trans_a: Transpose,
    /// op(B).
    pub trans_b: Transpose,
    /// Rows of op(A) and C.
    pub m: usize,
    /// Columns of op(B) and C.
    pub n: usize,
    /// Columns of op(A), rows of op(B).
    pub k: usize,
    /// First element of A in its buffer.
    pub a_offset: usize,
    /// Leading dimension of A.
    pub lda: usize,
    /// First element of B in its buffer.
    pub b_offset: usize,
    /// Leading dimension of B.
    pub ldb: usize,
    /// First element of C in its buffer.
    pub c_offset: usize,
    /// Leading dimension of C.
    pub ldc: usize,
    /// Number of matrices in a strided batch (1 for a plain GEMM; 0 does nothing).
    pub batch_count: usize,
    /// Elements between consecutive A matrices of a batch.
    pub a_batch_stride: usize,
    /// Elements between consecutive B matrices of a batch.
    pub b_batch_stride: usize,
    /// Elements between consecutive C matrices of a batch (at least C's span, so they do not overlap).
    pub c_batch_stride: usize,
}

impl GemmSpec {
    /// A spec with zero offsets and tight leading dimensions.
    pub fn new(layout: Layout, trans_a: Transpose, trans_b: Transpose, m: usize, n: usize, k: usize) -> GemmSpec {
        let mut spec = GemmSpec {
            layout,
            trans_a,
            trans_b,
            m,
            n,
            k,
            a_offset: 0,
            lda: 0,
            b_offset: 0,
            ldb: 0,
            c_offset: 0,
            ldc: 0,
            batch_count: 1,
            a_batch_stride: 0,
            b_batch_stride: 0,
            c_batch_stride: 0,
        };
        spec.lda = spec.a_dims().1.max(1);
        spec.ldb = spec.b_dims().1.max(1);
        spec.ldc = spec.c_dims().1.max(1);
        spec
    }

    /// Row-major, no transposes, tight: the common ML case.
    pub fn row_major(m: usize, n: usize, k: usize) -> GemmSpec {
        GemmSpec::new(Layout::RowMajor, Transpose::No, Transpose::No, m, n, k)
    }

    /// Sets the leading dimensions.
    pub fn with_ld(mut self, lda: usize, ldb: usize, ldc: usize) -> GemmSpec {
        (self.lda, self.ldb, self.ldc) = (lda, ldb, ldc);
        self
    }

    /// Sets the buffer offsets.
    pub fn with_offsets(mut self, a: usize, b: usize, c: usize) -> GemmSpec {
        (self.a_offset, self.b_offset, self.c_offset) = (a, b, c);
        self
    }

    /// Makes a strided batch of `count` GEMMs, item `i` using A, B and C shifted by `i` times the strides.
    pub fn with_batch(mut self, count: usize, a_stride: usize, b_stride: usize, c_stride: usize) -> GemmSpec {
        (self.batch_count, self.a_batch_stride, self.b_batch_stride, self.c_batch_stride) =
            (count, a_stride, b_stride, c_stride);
        self
    }

    /// (lines, line length) of a stored `rows x cols` matrix: lines are rows in row-major order.
    fn stored(&self, rows: usize, cols: usize, trans: Transpose) -> (usize, usize) {
        let (r, c) = if trans == Transpose::Yes { (cols, rows) } else { (rows, cols) };
        match self.layout {
            Layout::RowMajor => (r, c),
            Layout::ColumnMajor => (c, r),
        }
    }

    /// A as stored: (number of lines, elements per line); `lda` must be at least the latter.
    pub fn a_dims(&self) -> (usize, usize) {
        self.stored(self.m, self.k, self.trans_a)
    }

    /// B as stored: (number of lines, elements per line).
    pub fn b_dims(&self) -> (usize, usize) {
        self.stored(self.k, self.n, self.trans_b)
    }

    /// C as stored: (number of lines, elements per line).
    pub fn c_dims(&self) -> (usize, usize) {
        self.stored(self.m, self.n, Transpose::No)
    }

    /// The features of the kernel's view of this problem (what the selector trees see, less the
    /// device's compute units: [`ShapeFeatures::with_compute_units`]).
    pub fn kernel_features(&self) -> ShapeFeatures {
        let (m, n) =
            crate::codegen::features::kernel_dims(self.layout == Layout::RowMajor, self.m as u64, self.n as u64);
        ShapeFeatures::new(m, n, self.k as u64).with_operands_along_k(self.operands_along_k())
    }

    /// How many of A and B are stored contiguous along K: op(A) is M x K, op(B) K x N.
    fn operands_along_k(&self) -> u64 {
        let a_along_k = (self.layout == Layout::RowMajor) == (self.trans_a == Transpose::No);
        let b_along_k = (self.layout == Layout::ColumnMajor) == (self.trans_b == Transpose::No);
        u64::from(a_along_k) + u64::from(b_along_k)
    }

    /// Checks sizes and leading dimensions, then returns the elements the buffers must hold for A,
    /// B and C (0 where the matrix is not read or written).
    pub fn required_lengths(&self, alpha_is_zero: bool) -> Result<[usize; 3]> {
        self.check_sizes()?;
        for matrix in 0..3 {
            self.check_ld(matrix)?;
        }
        Ok([
            self.required_length(0, alpha_is_zero)?,
            self.required_length(1, alpha_is_zero)?,
            self.required_length(2, alpha_is_zero)?,
        ])
    }

    /// Checks M, N, K and the batch count against the kernels' index range.
    pub(crate) fn check_sizes(&self) -> Result<()> {
        for (name, v) in [("m", self.m), ("n", self.n), ("k", self.k)] {
            if v > MAX_DIM {
                return Err(invalid(name, v, "exceeds 2^31 - 65537, the kernels' index range less a tile"));
            }
        }
        if self.batch_count > i32::MAX as usize {
            return Err(invalid("batch_count", self.batch_count, "exceeds 2^31 - 1, the kernels' index range"));
        }
        Ok(())
    }

    /// Checks the leading dimension of matrix `matrix` (0, 1, 2: A, B, C).
    pub(crate) fn check_ld(&self, matrix: usize) -> Result<()> {
        let (name, ld, (_, len)) =
            [("lda", self.lda, self.a_dims()), ("ldb", self.ldb, self.b_dims()), ("ldc", self.ldc, self.c_dims())]
                [matrix];
        if ld < len.max(1) {
            return Err(invalid(name, ld, &format!("must be at least max(1, {len}), the stored line length")));
        }
        Ok(())
    }

    /// The elements the buffer of matrix `matrix` (0, 1, 2: A, B, C) must hold, batch items
    /// included (0 where it is not read or written); for C, also whether its batch items overlap.
    /// Assumes [`GemmSpec::check_sizes`] and that matrix's [`GemmSpec::check_ld`] passed.
    pub(crate) fn required_length(&self, matrix: usize, alpha_is_zero: bool) -> Result<usize> {
        let touches_c = self.m > 0 && self.n > 0 && self.batch_count > 0;
        let reads_ab = touches_c && self.k > 0 && !alpha_is_zero;
        let last = self.batch_count.saturating_sub(1);
        let (name, offset, dims, ld, stride, used) = match matrix {
            0 => ("a buffer", self.a_offset, self.a_dims(), self.lda, self.a_batch_stride, reads_ab),
            1 => ("b buffer", self.b_offset, self.b_dims(), self.ldb, self.b_batch_stride, reads_ab),
            _ => ("c buffer", self.c_offset, self.c_dims(), self.ldc, self.c_batch_stride, touches_c),
        };
        if !used {
            return Ok(0);
        }
        if matrix == 2 && last > 0 && items_overlap(stride, dims, ld, self.batch_count) {
            let reason = "batch items of C would share elements (items may interleave, as the heads of an \
                          attention output do, but not overlap)";
            return Err(invalid("c_batch_stride", stride, reason));
        }
        let last_offset = stride.checked_mul(last).and_then(|s| s.checked_add(offset));
        extent(name, last_offset.ok_or_else(|| invalid(name, stride, "batch stride x count overflows"))?, dims, ld)
    }

    /// Checks every argument against buffer lengths (in elements) and returns the kernels' form.
    pub(crate) fn validate(&self, alpha_is_zero: bool, lengths: [usize; 3], mems: [cl_mem; 3]) -> Result<Problem> {
        let required = self.required_lengths(alpha_is_zero)?;
        for ((name, need), have) in ["a buffer", "b buffer", "c buffer"].into_iter().zip(required).zip(lengths) {
            if need > have {
                return Err(invalid(
                    name,
                    have,
                    &format!("holds {have} elements; offset, leading dimension and shape need {need}"),
                ));
            }
        }
        Ok(self.problem(mems))
    }

    /// The kernels' form: column-major C; a row-major call is solved as Cᵀ = op(B)ᵀ op(A)ᵀ.
    fn problem(&self, [a, b, c]: [cl_mem; 3]) -> Problem {
        let a_outer = self.trans_a == Transpose::No; // column-major A: contiguous along M
        let b_outer = self.trans_b == Transpose::Yes; // column-major Bᵀ: contiguous along N
        let c = MatrixC {
            mem: c,
            offset: self.c_offset,
            row_stride: 1,
            col_stride: self.ldc,
            batch_stride: self.c_batch_stride,
        };
        let a = Operand {
            mem: a,
            offset: self.a_offset,
            ld: self.lda,
            along_outer: a_outer,
            batch_stride: self.a_batch_stride,
        };
        let b = Operand {
            mem: b,
            offset: self.b_offset,
            ld: self.ldb,
            along_outer: b_outer,
            batch_stride: self.b_batch_stride,
        };
        match self.layout {
            Layout::ColumnMajor => Problem { m: self.m, n: self.n, k: self.k, batch: self.batch_count, a, b, c },
            Layout::RowMajor => Problem {
                m: self.n,
                n: self.m,
                k: self.k,
                batch: self.batch_count,
                a: Operand { along_outer: !b.along_outer, ..b },
                b: Operand { along_outer: !a.along_outer, ..a },
                c,
            },
        }
    }
}

/// The largest M, N or K: the kernels index in 32-bit integers, and the rows of a tile past the edge
/// of C (far fewer than 2^16) must not overflow them.
const MAX_DIM: usize = i32::MAX as usize - (1 << 16);

fn invalid(name: &'static str, value: impl ToString, reason: &str) -> Error {
    Error::InvalidArgument { name, value: value.to_string(), reason: reason.to_string() }
}

/// Elements from the buffer start to one past the last element of a stored matrix.
fn extent(name: &'static str, offset: usize, (lines, len): (usize, usize), ld: usize) -> Result<usize> {
    if lines == 0 || len == 0 {
        return Ok(offset);
    }
    let span = (lines - 1).checked_mul(ld).and_then(|x| x.checked_add(len)).and_then(|x| x.checked_add(offset));
    match span {
        Some(s) if s <= i32::MAX as usize => Ok(s),
        Some(s) => Err(invalid(name, s, "the matrix spans more than 2^31 - 1 elements, the kernels' index range")),
        None => Err(invalid(name, offset, "offset + leading dimension x lines overflows")),
    }
}

/// Whether any two of `count` stored matrices of `lines` lines of `len` elements, `ld` apart, that
/// start `stride` elements apart share an element. Items may interleave: with `stride` below one
/// item's span, each can sit in the gaps between the lines of the others (`ld >= len`).
fn items_overlap(stride: usize, (lines, len): (usize, usize), ld: usize, count: usize) -> bool {
    // An item whose span overflows cannot be in a buffer: `extent` reports that.
    let Some(span) = (lines.saturating_sub(1)).checked_mul(ld).and_then(|x| x.checked_add(len)) else { return false };
    if lines == 0 || len == 0 || count < 2 {
        return false;
    }
    // Items t apart start d = t * stride apart; they overlap where d = dl * ld + de with |dl| < lines
    // and |de| < len. As ld >= len, only dl = d / ld (de = d % ld) and dl + 1 (de = d % ld - ld) can.
    (1..count).map_while(|t| t.checked_mul(stride)).take_while(|&d| d < span).any(|d| {
        let (dl, de) = (d / ld, d % ld);
        (dl < lines && de < len) || (dl + 1 < lines && ld - de < len)
    })
}

/// One operand in the kernels' form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Operand {
    pub mem: cl_mem,
    pub offset: usize,
    pub ld: usize,
    /// Contiguous along M (for A) or N (for B); otherwise along K.
    pub along_outer: bool,
    pub batch_stride: usize,
}

/// C in the kernels' form: element (i, j) at offset + i * row_stride + j * col_stride.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MatrixC {
    pub mem: cl_mem,
    pub offset: usize,
    pub row_stride: usize,
    pub col_stride: usize,
    pub batch_stride: usize,
}

/// A checked problem in the kernels' form: C (M x N) = op(A) (M x K) op(B) (K x N).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Problem {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub batch: usize,
    pub a: Operand,
    pub b: Operand,
    pub c: MatrixC,
}

impl Problem {
    /// The same product transposed: Cᵀ = op(B)ᵀ op(A)ᵀ.
    pub fn transposed(&self) -> Problem {
        Problem {
            m: self.n,
            n: self.m,
            k: self.k,
            batch: self.batch,
            a: self.b,
            b: self.a,
            c: MatrixC { row_stride: self.c.col_stride, col_stride: self.c.row_stride, ..self.c },
        }
    }

    /// The problem's features.
    pub fn features(&self) -> ShapeFeatures {
        let along_k = u64::from(!self.a.along_outer) + u64::from(!self.b.along_outer);
        ShapeFeatures::new(self.m as u64, self.n as u64, self.k as u64).with_operands_along_k(along_k)
    }
}

/// How to choose the variant of a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Selection {
    /// The device class's tree chooses (what production code uses).
    #[default]
    Auto,
    /// Run this variant of the shipped set (tests, benches, the tuner).
    Forced(VariantId),
}

/// Length in elements of T of a buffer.
pub(crate) fn mem_len<T: Element>(mem: cl_mem) -> Result<usize> {
    let bytes: usize = get_mem_object_info(mem, CL_MEM_SIZE).map_err(cl("clGetMemObjectInfo"))?.into();
    Ok(bytes / std::mem::size_of::<T>())
}

/// The context of a buffer.
pub(crate) fn mem_context(mem: cl_mem) -> Result<cl_context> {
    let context: isize = get_mem_object_info(mem, CL_MEM_CONTEXT).map_err(cl("clGetMemObjectInfo"))?.into();
    Ok(context as cl_context)
}

/// The context of a command queue.
pub(crate) fn queue_context(queue: cl_command_queue) -> Result<cl_context> {
    let context: isize = get_command_queue_info(queue, CL_QUEUE_CONTEXT).map_err(cl("clGetCommandQueueInfo"))?.into();
    Ok(context as cl_context)
}

/// Enqueues a GEMM on raw OpenCL handles and returns its event (the caller releases it). The queue
/// may belong to any context and device; the shipped set is built for it on first use.
///
/// # Safety
/// `queue`, the buffers and the events in `wait` must be valid OpenCL objects of one context.
#[allow(clippy::too_many_arguments)]
pub unsafe fn enqueue_raw<T: Element>(
    queue: cl_command_queue,
    spec: &GemmSpec,
    alpha: T,
    a: cl_mem,
    b: cl_mem,
    beta: T,
    c: cl_mem,
    wait: &[cl_event],
    selection: Selection,
) -> Result<cl_event> {
    enqueue_buffers(queue, spec, alpha, [a, b, c], beta, wait, selection, true)
}

/// [`enqueue_raw`] with the choice of an event: reads the buffers' lengths, then checks and
/// enqueues through [`enqueue_checked`].
///
/// # Safety
/// As [`enqueue_raw`].
#[allow(clippy::too_many_arguments)]
unsafe fn enqueue_buffers<T: Element>(
    queue: cl_command_queue,
    spec: &GemmSpec,
    alpha: T,
    [a, b, c]: [cl_mem; 3],
    beta: T,
    wait: &[cl_event],
    selection: Selection,
    want_event: bool,
) -> Result<cl_event> {
    let alpha_is_zero = alpha == T::ZERO;
    let needed = spec.required_lengths(alpha_is_zero)?;
    let mut lengths = [0; 3];
    let mut context = None;
    for (i, mem) in [a, b, c].into_iter().enumerate() {
        if needed[i] > 0 {
            let name = ["a buffer", "b buffer", "c buffer"][i];
            if mem.is_null() {
                return Err(invalid(name, "null", "is null"));
            }
            lengths[i] = mem_len::<T>(mem)?;
            let queue_context = match context {
                Some(c) => c,
                None => *context.insert(queue_context(queue)?),
            };
            if mem_context(mem)? != queue_context {
                return Err(invalid(
                    name,
                    "a buffer of another context",
                    "belongs to another OpenCL context than the queue",
                ));
            }
        }
    }
    enqueue_checked(queue, spec, alpha, [a, b, c], lengths, beta, wait, selection, want_event)
}

/// [`enqueue_raw`] once the buffers' lengths (in elements) are known: checks the spec against
/// them, then selects and enqueues (the C ABI queries the lengths itself, to report which buffer is bad).
/// Without `want_event` nothing is enqueued for an empty product and the kernels are enqueued
/// without an event where nothing needs one; the returned event is then null (any event fewfit
/// needs itself is released inside).
///
/// # Safety
/// As [`enqueue_raw`]; `lengths` must not exceed the buffers' real lengths.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn enqueue_checked<T: Element>(
    queue: cl_command_queue,
    spec: &GemmSpec,
    alpha: T,
    [a, b, c]: [cl_mem; 3],
    lengths: [usize; 3],
    beta: T,
    wait: &[cl_event],
    selection: Selection,
    want_event: bool,
) -> Result<cl_event> {
    let alpha_is_zero = alpha == T::ZERO;
    let problem = spec.validate(alpha_is_zero, lengths, [a, b, c])?;
    let engine = Engine::for_queue(queue)?;
    if T::PRECISION == Precision::F64 && !engine.info.fp64 {
        return Err(Error::Unavailable {
            what: "f64 GEMM".into(),
            reason: format!("{} has no fp64", engine.info.name),
        });
    }
    if problem.m == 0 || problem.n == 0 || problem.batch == 0 {
        if !want_event {
            return Ok(ptr::null_mut());
        }
        let wait_ptr = if wait.is_empty() { ptr::null() } else { wait.as_ptr() };
        return enqueue_marker_with_wait_list(queue, wait.len() as u32, wait_ptr)
            .map_err(cl("clEnqueueMarkerWithWaitList"));
    }
    if problem.k == 0 || alpha_is_zero {
        return engine.enqueue_scale(queue, &problem, beta, wait, want_event);
    }
    let id = match selection {
        Selection::Auto => engine.select(problem.features()),
        Selection::Forced(id) => id,
    };
    engine.enqueue_variant(queue, id, &problem, alpha, beta, wait, want_event)
}

/// Enqueues C = alpha * op(A) * op(B) + beta * C on device buffers, after the events in `wait`,
/// and returns the GEMM's event. Many threads may call at once on one context.
#[allow(clippy::too_many_arguments)]
pub fn gemm<T: Element>(
    queue: &CommandQueue,
    spec: &GemmSpec,
    alpha: T,
    a: &Buffer<T>,
    b: &Buffer<T>,
    beta: T,
    c: &mut Buffer<T>,
    wait: &[cl_event],
) -> Result<Event> {
    gemm_with(queue, spec, alpha, a, b, beta, c, wait, Selection::Auto)
}

/// [`gemm`] for a caller that orders its work by an in-order queue and needs no event back: the
/// kernels are enqueued without asking the runtime for an event where fewfit itself needs none,
/// which saves NVIDIA's OpenCL about 2 µs a call (docs/PERFORMANCE.md, "Where a small call's wall
/// time goes"). On an out-of-order queue, later work is not ordered after this GEMM.
#[allow(clippy::too_many_arguments)]
pub fn gemm_no_event<T: Element>(
    queue: &CommandQueue,
    spec: &GemmSpec,
    alpha: T,
    a: &Buffer<T>,
    b: &Buffer<T>,
    beta: T,
    c: &mut Buffer<T>,
    wait: &[cl_event],
) -> Result<()> {
    // SAFETY: the opencl3 objects are valid for the call; the caller's events come from the same context.
    let event = unsafe {
        enqueue_buffers(queue.get(), spec, alpha, [a.get(), b.get(), c.get()], beta, wait, Selection::Auto, false)?
    };
    debug_assert!(event.is_null(), "a launch asked for no event returned one");
    Ok(())
}

/// [`gemm`] with an explicit [`Selection`].
#[allow(clippy::too_many_arguments)]
pub fn gemm_with<T: Element>(
    queue: &CommandQueue,
    spec: &GemmSpec,
    alpha: T,
    a: &Buffer<T>,
    b: &Buffer<T>,
    beta: T,
    c: &mut Buffer<T>,
    wait: &[cl_event],
    selection: Selection,
) -> Result<Event> {
    // SAFETY: the opencl3 objects are valid for the call; the caller's events come from the same context.
    let event = unsafe { enqueue_raw(queue.get(), spec, alpha, a.get(), b.get(), beta, c.get(), wait, selection)? };
    Ok(Event::new(event))
}

/// The variant a call would run on a queue's device (after fallback), without running it.
pub fn chosen_variant<T: Element>(queue: &CommandQueue, spec: &GemmSpec) -> Result<VariantId> {
    let engine = Engine::for_queue(queue.get())?;
    let id = engine.select(spec.kernel_features());
    engine.resolve(id, T::PRECISION)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The selector sees the same features whether it reads a spec (`chosen_variant`) or the
    /// problem the spec becomes (a launch), in every layout.
    #[test]
    fn spec_and_problem_features_agree() {
        let null = [ptr::null_mut(); 3];
        for layout in [Layout::RowMajor, Layout::ColumnMajor] {
            for trans_a in [Transpose::No, Transpose::Yes] {
                for trans_b in [Transpose::No, Transpose::Yes] {
                    let spec = GemmSpec::new(layout, trans_a, trans_b, 7, 300, 64);
                    assert_eq!(spec.kernel_features(), spec.problem(null).features(), "{spec:?}");
                }
            }
        }
        let along_k = |layout, a, b| GemmSpec::new(layout, a, b, 7, 300, 64).kernel_features().operands_along_k;
        assert_eq!(along_k(Layout::RowMajor, Transpose::No, Transpose::No), 1);
        assert_eq!(along_k(Layout::ColumnMajor, Transpose::No, Transpose::No), 1);
        assert_eq!(along_k(Layout::RowMajor, Transpose::No, Transpose::Yes), 2); // PyTorch's Linear
        assert_eq!(along_k(Layout::RowMajor, Transpose::Yes, Transpose::No), 0);
        assert_eq!(along_k(Layout::ColumnMajor, Transpose::Yes, Transpose::No), 2);
        let f = GemmSpec::row_major(7, 300, 64).kernel_features();
        assert_eq!((f.m, f.n, f.k), (300, 7, 64));
    }

    /// Batch items of C may interleave in the gaps between each other's lines, never share an element.
    #[test]
    fn batch_items_overlap_only_where_they_share_an_element() {
        // Brute force: every element of every item.
        let brute = |stride: usize, (lines, len): (usize, usize), ld: usize, count: usize| {
            let mut seen = std::collections::HashSet::new();
            (0..count).any(|t| (0..lines).any(|l| (0..len).any(|e| !seen.insert(t * stride + l * ld + e))))
        };
        for lines in 1..5 {
            for len in 1..5 {
                for ld in len..len + 9 {
                    for count in 1..6 {
                        for stride in 0..(lines * ld + 3) {
                            let dims = (lines, len);
                            assert_eq!(
                                items_overlap(stride, dims, ld, count),
                                brute(stride, dims, ld, count),
                                "stride {stride}, {lines} x {len}, ld {ld}, {count} items"
                            );
                        }
                    }
                }
            }
        }
        // Eight attention heads of 64 side by side in a row-major [tokens, 512] output.
        assert!(!items_overlap(64, (100, 64), 512, 8));
        assert!(items_overlap(64, (100, 64), 512, 9));
        assert!(!items_overlap(usize::MAX, (2, 2), 2, 3));
        assert!(!items_overlap(1, (3, 2), usize::MAX / 2, 3)); // the span overflows: extent's error
    }
}
