//! The types of a GEMM and their checks: layout, transposes, precision and element type, the
//! BLAS-style [`GemmSpec`] and its validation, and the checked [`Problem`] in the kernels' form
//! (column-major C, each operand contiguous along its outer dimension or along K). The bottom of
//! the crate: it uses nothing of it but the error type.

use opencl3::types::cl_mem;

use crate::codegen::{Family, ShapeFeatures};
use crate::error::{Error, Result};

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

/// The arithmetic of a GEMM: the element type stored in A, B and C, and how products are computed.
/// Each precision has its own built set and its own tree per device class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Precision {
    /// f32 storage and arithmetic.
    F32 = 0,
    /// f64 storage and arithmetic (needs a device with fp64).
    F64 = 1,
    /// IEEE binary16 storage, f32 arithmetic and accumulation (no extension needed: the kernels
    /// convert with OpenCL's core `vload_half` / `vstore_half_rte`).
    F16 = 2,
    /// bfloat16 storage, f32 arithmetic and accumulation (conversions by bit operations).
    Bf16 = 3,
    /// f32 storage with products on TF32 tensor cores (10-bit mantissa inputs, f32 accumulation):
    /// what an f32 call with [`Compute::FastTf32`] runs where the device has tensor cores.
    Tf32 = 4,
}

impl Precision {
    /// Every precision, in index order.
    pub const ALL: [Precision; 5] = [Precision::F32, Precision::F64, Precision::F16, Precision::Bf16, Precision::Tf32];

    /// The name used in datasets, tree files and logs: `f32`, `f64`, `f16`, `bf16`, `tf32`.
    pub fn name(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::F64 => "f64",
            Precision::F16 => "f16",
            Precision::Bf16 => "bf16",
            Precision::Tf32 => "tf32",
        }
    }

    /// The precision with this [`Precision::name`].
    pub fn from_name(name: &str) -> Option<Precision> {
        Precision::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Bytes per stored element.
    pub fn bytes(self) -> usize {
        match self {
            Precision::F32 | Precision::Tf32 => 4,
            Precision::F64 => 8,
            Precision::F16 | Precision::Bf16 => 2,
        }
    }

    /// Bytes of the arithmetic type: what the kernels hold in registers and local memory
    /// (the tensor-core family excepted, which stages operands as stored).
    pub fn compute_bytes(self) -> usize {
        match self {
            Precision::F64 => 8,
            _ => 4,
        }
    }

    /// Whether A, B and C hold 16-bit elements (f16 or bf16).
    pub fn is_half(self) -> bool {
        matches!(self, Precision::F16 | Precision::Bf16)
    }

    /// Whether a kernel family computes in this precision: the tensor-core family rounds its inputs
    /// to 16 bits (f16, bf16) or to TF32, so an f32 or f64 call, which asked for no such rounding,
    /// never runs it; every other family computes in every precision.
    pub fn computed_by(self, family: Family) -> bool {
        family != Family::Mma || !matches!(self, Precision::F32 | Precision::F64)
    }

    /// The bytes of one element of a family's local memory in this precision: the arithmetic
    /// type's, or the storage type's for the tensor-core family, which stages operands as stored.
    pub fn local_element_bytes(self, family: Family) -> usize {
        match family {
            Family::Mma => self.bytes(),
            _ => self.compute_bytes(),
        }
    }

    /// The OpenCL build options that select it in the kernels.
    pub fn build_options(self) -> &'static str {
        match self {
            Precision::F32 => "-DPRECISION=32",
            Precision::F64 => "-DPRECISION=64",
            Precision::F16 => "-DPRECISION=32 -DSTORAGE_F16",
            Precision::Bf16 => "-DPRECISION=32 -DSTORAGE_BF16",
            Precision::Tf32 => "-DPRECISION=32 -DCOMPUTE_TF32",
        }
    }
}

impl std::fmt::Display for Precision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How an f32 GEMM may compute its products (cuBLAS's compute types).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Compute {
    /// In the storage precision (the default; f16 and bf16 always accumulate in f32).
    #[default]
    Default,
    /// Opt-in for f32 calls: products on TF32 tensor cores where the device has them
    /// (`CUBLAS_COMPUTE_32F_FAST_TF32`), plain f32 elsewhere. Ignored by other precisions.
    FastTf32,
}

/// An element type the kernels store: f32, f64, `half::f16` or `half::bf16`. Sealed: the kernels
/// and the buffer-length checks count in these types' sizes, so no other type may stand for them.
pub trait Element: sealed::Sealed + Copy + Default + PartialEq + Send + Sync + std::fmt::Debug + 'static {
    /// The precision of this type.
    const PRECISION: Precision;
    /// Zero.
    const ZERO: Self;
    /// The type of alpha and beta, and of the arithmetic: f32 for the 16-bit types (as cuBLAS's
    /// default for half), else the type itself.
    type Scalar: Copy + PartialEq + Send + Sync + std::fmt::Debug + 'static;
    /// Zero as a scalar.
    const SCALAR_ZERO: Self::Scalar;
}

impl Element for f32 {
    const PRECISION: Precision = Precision::F32;
    const ZERO: Self = 0.0;
    type Scalar = f32;
    const SCALAR_ZERO: f32 = 0.0;
}

impl Element for f64 {
    const PRECISION: Precision = Precision::F64;
    const ZERO: Self = 0.0;
    type Scalar = f64;
    const SCALAR_ZERO: f64 = 0.0;
}

impl Element for half::f16 {
    const PRECISION: Precision = Precision::F16;
    const ZERO: Self = half::f16::ZERO;
    type Scalar = f32;
    const SCALAR_ZERO: f32 = 0.0;
}

impl Element for half::bf16 {
    const PRECISION: Precision = Precision::Bf16;
    const ZERO: Self = half::bf16::ZERO;
    type Scalar = f32;
    const SCALAR_ZERO: f32 = 0.0;
}

mod sealed {
    /// Implemented for the element types only, so that [`super::Element`] cannot be implemented elsewhere.
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for half::f16 {}
    impl Sealed for half::bf16 {}
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
    /// How an f32 GEMM may compute its products (TF32 is opt-in; ignored by other precisions).
    pub compute: Compute,
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
            compute: Compute::Default,
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

    /// Sets how an f32 GEMM may compute its products ([`Compute::FastTf32`] opts in to TF32).
    pub fn with_compute(mut self, compute: Compute) -> GemmSpec {
        self.compute = compute;
        self
    }

    /// The precision a call on elements of `storage` runs in: [`Precision::Tf32`] for an f32 call
    /// with [`Compute::FastTf32`], else the storage's own.
    pub fn precision(&self, storage: Precision) -> Precision {
        match (storage, self.compute) {
            (Precision::F32, Compute::FastTf32) => Precision::Tf32,
            _ => storage,
        }
    }

    /// An array batch (CLBlast's `XgemmBatched`: `count` items of this spec at per-item offsets,
    /// with per-item alphas and betas) as one strided batch: where the alphas are all equal, the
    /// betas too, the offsets of each matrix step by a constant stride, and C's items do not
    /// overlap. None otherwise: then the items run one after another.
    pub fn as_strided_batch<T: PartialEq>(
        &self,
        alphas: &[T],
        betas: &[T],
        offsets: [&[usize]; 3],
    ) -> Option<GemmSpec> {
        let count = alphas.len();
        let uniform = |v: &[T]| v.len() == count && v.iter().all(|x| *x == v[0]);
        if count == 0 || !uniform(alphas) || !uniform(betas) || offsets.iter().any(|o| o.len() != count) {
            return None;
        }
        let [sa, sb, sc] = offsets.map(constant_stride);
        let spec = self.with_offsets(offsets[0][0], offsets[1][0], offsets[2][0]).with_batch(count, sa?, sb?, sc?);
        spec.required_lengths(false).is_ok().then_some(spec)
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
        Ok(self.problem(mems, required))
    }

    /// The kernels' form: column-major C; a row-major call is solved as Cᵀ = op(B)ᵀ op(A)ᵀ.
    /// `required` are [`GemmSpec::required_lengths`]. What no index uses is reset (the offset,
    /// leading dimension and batch stride of a matrix that is not read or written, the leading
    /// dimension of a matrix of one line, the batch strides of one item), so that every number the
    /// kernels take fits their 32-bit `int` whenever the indices they form do.
    fn problem(&self, [a, b, c]: [cl_mem; 3], required: [usize; 3]) -> Problem {
        let a_outer = self.trans_a == Transpose::No; // column-major A: contiguous along M
        let b_outer = self.trans_b == Transpose::Yes; // column-major Bᵀ: contiguous along N
        let used = |matrix: usize, (offset, ld, stride): (usize, usize, usize), (lines, len): (usize, usize)| {
            if required[matrix] == 0 {
                return (0, len.max(1), 0);
            }
            let ld = if lines > 1 { ld } else { len.max(1) };
            (offset, ld, if self.batch_count > 1 { stride } else { 0 })
        };
        let (c_offset, ldc, c_stride) = used(2, (self.c_offset, self.ldc, self.c_batch_stride), self.c_dims());
        let (a_offset, lda, a_stride) = used(0, (self.a_offset, self.lda, self.a_batch_stride), self.a_dims());
        let (b_offset, ldb, b_stride) = used(1, (self.b_offset, self.ldb, self.b_batch_stride), self.b_dims());
        let c = MatrixC { mem: c, offset: c_offset, row_stride: 1, col_stride: ldc, batch_stride: c_stride };
        let a = Operand { mem: a, offset: a_offset, ld: lda, along_outer: a_outer, batch_stride: a_stride };
        let b = Operand { mem: b, offset: b_offset, ld: ldb, along_outer: b_outer, batch_stride: b_stride };
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

/// The constant step of `offsets` (≥ 0), if they have one.
fn constant_stride(offsets: &[usize]) -> Option<usize> {
    let step = offsets.get(1).map_or(Some(0), |second| second.checked_sub(offsets[0]))?;
    offsets.windows(2).all(|w| w[0].checked_add(step) == Some(w[1])).then_some(step)
}

/// An [`Error::InvalidArgument`] for argument `name` of `value`.
pub(crate) fn invalid(name: &'static str, value: impl ToString, reason: &str) -> Error {
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

#[cfg(test)]
mod tests {
    use std::ptr;

    use proptest::prelude::*;

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
                    assert_eq!(spec.kernel_features(), spec.problem(null, [1; 3]).features(), "{spec:?}");
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

    /// Numbers near the edges of the kernels' 32-bit range and of `usize`.
    fn edge_number() -> impl Strategy<Value = usize> {
        let int_max = i32::MAX as usize;
        prop_oneof![
            0usize..=3,
            Just(MAX_DIM),
            (int_max - 2..=int_max + 2),
            Just(1 << 32),
            Just((1 << 32) + 1),
            (usize::MAX - 2..=usize::MAX),
            1usize..70,
        ]
    }

    /// The last element a stored `lines x len` matrix of a batch uses, counted as the kernels index
    /// it (in u128, so that nothing wraps here).
    fn last_index(offset: usize, ld: usize, stride: usize, batch: usize, (lines, len): (usize, usize)) -> u128 {
        let [offset, ld, stride, batch, lines, len] = [offset, ld, stride, batch, lines, len].map(|x| x as u128);
        offset + (batch - 1) * stride + (lines - 1) * ld + len - 1
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 20_000, ..ProptestConfig::default() })]

        /// Every spec that passes validation gives the kernels numbers that fit their `int`, and
        /// indices below the buffers' lengths (the launch converts them with a checked conversion,
        /// so one that did not fit would fail the call, never wrap).
        #[test]
        fn validated_problems_fit_the_kernels_int_and_their_buffers(
            layout in prop_oneof![Just(Layout::RowMajor), Just(Layout::ColumnMajor)],
            trans in (any::<bool>(), any::<bool>()),
            mnk in (edge_number(), edge_number(), edge_number()),
            offsets in (edge_number(), edge_number(), edge_number()),
            lds in (edge_number(), edge_number(), edge_number()),
            batch in (prop_oneof![0usize..=3, edge_number()], edge_number(), edge_number(), edge_number()),
            lengths in (edge_number(), edge_number(), edge_number()),
            alpha_is_zero in any::<bool>(),
        ) {
            let transpose = |t: bool| if t { Transpose::Yes } else { Transpose::No };
            let spec = GemmSpec::new(layout, transpose(trans.0), transpose(trans.1), mnk.0, mnk.1, mnk.2)
                .with_offsets(offsets.0, offsets.1, offsets.2)
                .with_ld(lds.0, lds.1, lds.2)
                .with_batch(batch.0, batch.1, batch.2, batch.3);
            let lengths = [lengths.0, lengths.1, lengths.2];
            let Ok(p) = spec.validate(alpha_is_zero, lengths, [std::ptr::null_mut(); 3]) else { return Ok(()) };
            let ints = [
                p.m, p.n, p.k, p.batch,
                p.a.offset, p.a.ld, p.a.batch_stride,
                p.b.offset, p.b.ld, p.b.batch_stride,
                p.c.offset, p.c.row_stride, p.c.col_stride, p.c.batch_stride,
            ];
            prop_assert!(ints.iter().all(|&x| x <= i32::MAX as usize), "{spec:?} gives {ints:?}");
            prop_assert!(p.m.max(p.n).max(p.k) <= MAX_DIM, "a tile past the edge of C must fit too");
            if p.m == 0 || p.n == 0 || p.batch == 0 {
                return Ok(());
            }
            // C in the kernels' form: element (i, j) at offset + i * row_stride + j * col_stride.
            let c = p.c;
            let last_c = c.offset as u128
                + (p.batch as u128 - 1) * c.batch_stride as u128
                + (p.m as u128 - 1) * c.row_stride as u128
                + (p.n as u128 - 1) * c.col_stride as u128;
            prop_assert!(last_c < lengths[2] as u128 && last_c <= i32::MAX as u128, "{spec:?}");
            if p.k == 0 || alpha_is_zero {
                return Ok(());
            }
            // A is M x K, B is K x N; each stored along its outer dimension or along K.
            let buffers = match layout {
                Layout::ColumnMajor => [lengths[0], lengths[1]],
                Layout::RowMajor => [lengths[1], lengths[0]],
            };
            for (operand, outer, length) in [(p.a, p.m, buffers[0]), (p.b, p.n, buffers[1])] {
                let dims = if operand.along_outer { (p.k, outer) } else { (outer, p.k) };
                let last = last_index(operand.offset, operand.ld, operand.batch_stride, p.batch, dims);
                prop_assert!(last < length as u128 && last <= i32::MAX as u128, "{spec:?}");
                prop_assert!(operand.ld >= dims.1, "{spec:?}: ld below the line length");
            }
        }
    }

    #[test]
    fn array_batches_become_strided_ones_only_where_nothing_differs_but_the_offsets() {
        assert_eq!(constant_stride(&[5]), Some(0));
        assert_eq!(constant_stride(&[3, 7, 11]), Some(4));
        assert_eq!(constant_stride(&[3, 3, 3]), Some(0));
        assert_eq!(constant_stride(&[3, 7, 12]), None);
        assert_eq!(constant_stride(&[7, 3]), None);
        let spec = GemmSpec::row_major(2, 3, 4);
        let offsets = |step: usize| [0, step, 2 * step];
        let (a, b, c) = (offsets(8), offsets(12), offsets(6));
        let strided = spec.as_strided_batch(&[1.0; 3], &[0.5; 3], [&a, &b, &c]).unwrap();
        assert_eq!(strided, spec.with_batch(3, 8, 12, 6));
        assert_eq!(spec.as_strided_batch(&[1.0, 2.0, 1.0], &[0.5; 3], [&a, &b, &c]), None, "alphas differ");
        assert_eq!(spec.as_strided_batch(&[1.0; 3], &[0.5; 3], [&a, &b, &[0, 6, 13]]), None, "no constant stride");
        assert_eq!(spec.as_strided_batch(&[1.0; 3], &[0.5; 3], [&a, &b, &[0, 0, 0]]), None, "C items overlap");
        assert_eq!(spec.as_strided_batch::<f32>(&[], &[], [&[], &[], &[]]), None, "no items");
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
