//! Shared test helpers: an f64 reference GEMM that honours layout, transposes, offsets and leading
//! dimensions; seeded random data; per-precision tolerances; device buffers on the default device.
#![allow(dead_code)]

use fewfit::tuning::CompiledVariant;
use fewfit::{gemm_with, DefaultDevice, Element, Engine, GemmSpec, Layout, Precision, Selection, Transpose, VariantId};
use fewfit_codegen::{Family, Variant};
use opencl3::event::Event;
use opencl3::memory::{Buffer, CL_MEM_READ_WRITE};
use opencl3::types::CL_BLOCKING;
use rand::{rngs::StdRng, RngExt, SeedableRng};

/// The default device, or None when FEWFIT_TEST_DEVICE=skip and there is none (the default,
/// `require`, fails the test instead, so CI cannot pass without running kernels).
pub fn device() -> Option<&'static DefaultDevice> {
    match DefaultDevice::get() {
        Ok(d) => Some(d),
        Err(e) if std::env::var("FEWFIT_TEST_DEVICE").as_deref() == Ok("skip") => {
            eprintln!("Skipping: {e}");
            None
        }
        Err(e) => {
            panic!("no OpenCL device ({e}); set FEWFIT_TEST_DEVICE=skip to skip device tests")
        }
    }
}

/// The default device where it computes in `T`'s precision; None, saying so, on a device without
/// fp64 for f64 (and as [`device`] where there is none).
pub fn device_for<T: Element>() -> Option<&'static DefaultDevice> {
    let device = device()?;
    if T::PRECISION == Precision::F64 && !device.info.fp64 {
        eprintln!("Skipping: {} has no fp64", device.info.name);
        return None;
    }
    Some(device)
}

/// Conversions the tests need between f64 and the element type.
/// (f32 and f64, whose alpha and beta are of their own type; tests/half.rs covers the 16-bit types.)
pub trait TestElement: Element<Scalar = Self> {
    fn from_f64(x: f64) -> Self;
    fn to_f64(self) -> f64;
    const EPSILON: f64;
}

impl TestElement for f32 {
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    const EPSILON: f64 = f32::EPSILON as f64;
}

impl TestElement for f64 {
    fn from_f64(x: f64) -> Self {
        x
    }
    fn to_f64(self) -> f64 {
        self
    }
    const EPSILON: f64 = f64::EPSILON;
}

/// Both storage orders.
pub const LAYOUTS: [Layout; 2] = [Layout::RowMajor, Layout::ColumnMajor];

/// The four (op(A), op(B)) combinations.
pub const TRANSPOSES: [(Transpose, Transpose); 4] = [
    (Transpose::No, Transpose::No),
    (Transpose::No, Transpose::Yes),
    (Transpose::Yes, Transpose::No),
    (Transpose::Yes, Transpose::Yes),
];

/// Edge shapes: 1, primes, non-multiples of every tile size, M = 1, N = 1, K = 1, and large K with
/// small M * N.
pub const EDGE_SHAPES: [(usize, usize, usize); 14] = [
    (1, 1, 1),
    (1, 1, 37),
    (7, 1, 13),
    (1, 9, 33),
    (17, 13, 11),
    (31, 37, 29),
    (64, 64, 64),
    (65, 67, 71),
    (127, 129, 33),
    (3, 2, 1031),
    (16, 200, 19),
    (200, 16, 19),
    (129, 1, 64),
    (1, 130, 65),
];

/// `len` values uniform in [-1, 1), never all zero, from a fixed seed.
pub fn random<T: TestElement>(len: usize, seed: u64) -> Vec<T> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..len).map(|_| T::from_f64(rng.random_range(-1.0..1.0))).collect()
}

/// Index of element (r, c) of a stored matrix.
fn index(layout: Layout, offset: usize, ld: usize, r: usize, c: usize) -> usize {
    match layout {
        Layout::RowMajor => offset + r * ld + c,
        Layout::ColumnMajor => offset + r + c * ld,
    }
}

/// op(X)[r][c] of a stored matrix.
fn op_at<T: TestElement>(x: &[T], layout: Layout, t: Transpose, offset: usize, ld: usize, r: usize, c: usize) -> f64 {
    let (r, c) = if t == Transpose::Yes { (c, r) } else { (r, c) };
    x[index(layout, offset, ld, r, c)].to_f64()
}

/// The index of C[i][j] in its buffer.
pub fn c_index(spec: &GemmSpec, i: usize, j: usize) -> usize {
    index(spec.layout, spec.c_offset, spec.ldc, i, j)
}

/// The f64 reference of C = alpha op(A) op(B) + beta C, with the error bound of each element:
/// (K + 2) * eps * (|alpha| sum |a b| + |beta c|) * 4, which grows with K.
pub fn reference<T: TestElement>(
    spec: &GemmSpec,
    alpha: T,
    a: &[T],
    b: &[T],
    beta: T,
    c: &[T],
) -> Vec<(usize, f64, f64)> {
    let mut out = Vec::with_capacity(spec.m * spec.n);
    for i in 0..spec.m {
        for j in 0..spec.n {
            out.push(reference_at(spec, alpha, a, b, beta, c, i, j));
        }
    }
    out
}

/// [`reference`] of every item of a strided batch (`spec.batch_count` items, each shifted by the
/// batch strides), items in order.
pub fn batch_reference<T: TestElement>(
    spec: &GemmSpec,
    alpha: T,
    a: &[T],
    b: &[T],
    beta: T,
    c: &[T],
) -> Vec<(usize, f64, f64)> {
    let mut out = Vec::new();
    for item in 0..spec.batch_count {
        let one = spec
            .with_offsets(
                spec.a_offset + item * spec.a_batch_stride,
                spec.b_offset + item * spec.b_batch_stride,
                spec.c_offset + item * spec.c_batch_stride,
            )
            .with_batch(1, 0, 0, 0);
        out.extend(reference(&one, alpha, a, b, beta, c));
    }
    out
}

/// [`reference`] of the one element C[i][j]: its index, expected value and error bound.
#[allow(clippy::too_many_arguments)]
pub fn reference_at<T: TestElement>(
    spec: &GemmSpec,
    alpha: T,
    a: &[T],
    b: &[T],
    beta: T,
    c: &[T],
    i: usize,
    j: usize,
) -> (usize, f64, f64) {
    let (alpha, beta) = (alpha.to_f64(), beta.to_f64());
    let (mut sum, mut mag) = (0.0, 0.0);
    if alpha != 0.0 {
        for p in 0..spec.k {
            let prod = op_at(a, spec.layout, spec.trans_a, spec.a_offset, spec.lda, i, p)
                * op_at(b, spec.layout, spec.trans_b, spec.b_offset, spec.ldb, p, j);
            sum += prod;
            mag += prod.abs();
        }
    }
    let idx = c_index(spec, i, j);
    let c0 = if beta == 0.0 { 0.0 } else { c[idx].to_f64() };
    let expected = alpha * sum + beta * c0;
    let bound = 4.0 * (spec.k as f64 + 2.0) * T::EPSILON * (alpha.abs() * mag + (beta * c0).abs()) + f64::MIN_POSITIVE;
    (idx, expected, bound)
}

/// Elements a buffer needs for a stored matrix of (lines, line length) with offset and ld, plus
/// `slack` more so writes past the end would be seen.
pub fn buffer_len((lines, len): (usize, usize), offset: usize, ld: usize, slack: usize) -> usize {
    if lines == 0 || len == 0 {
        offset + slack
    } else {
        offset + (lines - 1) * ld + len + slack
    }
}

/// A device buffer holding `data`.
pub fn upload<T: Element>(device: &DefaultDevice, data: &[T]) -> Buffer<T> {
    let mut buf =
        unsafe { Buffer::<T>::create(&device.context, CL_MEM_READ_WRITE, data.len().max(1), std::ptr::null_mut()) }
            .unwrap();
    if !data.is_empty() {
        unsafe { device.queue.enqueue_write_buffer(&mut buf, CL_BLOCKING, 0, data, &[]) }.unwrap();
    }
    buf
}

/// The contents of a device buffer.
pub fn download<T: Element>(device: &DefaultDevice, buf: &Buffer<T>, len: usize) -> Vec<T> {
    let mut out = vec![T::default(); len];
    if len > 0 {
        unsafe { device.queue.enqueue_read_buffer(buf, CL_BLOCKING, 0, &mut out, &[]) }.unwrap();
    }
    out
}

/// Checks C against the reference and that nothing outside C's elements changed. Returns a
/// description of the first mismatch.
pub fn check<T: TestElement>(
    spec: &GemmSpec,
    got: &[T],
    before: &[T],
    expected: &[(usize, f64, f64)],
) -> Result<(), String> {
    let mut inside = vec![false; got.len()];
    for &(idx, want, bound) in expected {
        inside[idx] = true;
        let have = got[idx].to_f64();
        let within = (have - want).abs() <= bound; // false for NaN
        if !within {
            return Err(format!("C[{idx}] = {have}, expected {want} (bound {bound:e}) for {spec:?}"));
        }
    }
    for (idx, (g, b)) in got.iter().zip(before).enumerate() {
        if !inside[idx] && g.to_f64().to_bits() != b.to_f64().to_bits() {
            return Err(format!("element {idx} outside C changed from {b:?} to {g:?} for {spec:?}"));
        }
    }
    Ok(())
}

/// `spec` with 3 added to every leading dimension and offsets of 5, 7 and 11 elements.
pub fn with_padding(spec: GemmSpec) -> GemmSpec {
    spec.with_ld(spec.lda + 3, spec.ldb + 3, spec.ldc + 3).with_offsets(5, 7, 11)
}

/// A problem no list in this repo names: M and N log-uniform from 1 to `most_mn`, K from 1 to
/// `most_k`; a random layout and transpose pair; half padded ([`with_padding`]); half with
/// alpha = 1 and beta = 0, half with random scalars.
pub fn random_problem(rng: &mut StdRng, most_mn: f64, most_k: f64) -> (GemmSpec, f32, f32) {
    let mut dim = |most: f64| 2f64.powf(rng.random_range(0.0..most.log2())).round() as usize;
    let (m, n, k) = (dim(most_mn), dim(most_mn), dim(most_k));
    let layout = if rng.random_bool(0.5) { Layout::RowMajor } else { Layout::ColumnMajor };
    let transpose = |yes: bool| if yes { Transpose::Yes } else { Transpose::No };
    let spec = GemmSpec::new(layout, transpose(rng.random_bool(0.5)), transpose(rng.random_bool(0.5)), m, n, k);
    let spec = if rng.random_bool(0.5) { with_padding(spec) } else { spec };
    let (alpha, beta) =
        if rng.random_bool(0.5) { (1.0, 0.0) } else { (rng.random_range(-2.0..2.0), rng.random_range(-2.0..2.0)) };
    (spec, alpha, beta)
}

/// Runs one GEMM through `call` on random A, B and C (C poisoned with NaN where beta = 0, so that a
/// kernel that reads C then, or leaves an element unwritten, fails) and checks C, and that nothing
/// outside it changed, against the reference; `label` names the call in errors.
pub fn check_call<T: TestElement>(
    device: &DefaultDevice,
    spec: &GemmSpec,
    (alpha, beta): (T, T),
    seed: u64,
    label: &str,
    call: impl FnOnce(&Buffer<T>, &Buffer<T>, &mut Buffer<T>) -> fewfit::Result<Event>,
) -> Result<(), String> {
    let a = random::<T>(buffer_len(spec.a_dims(), spec.a_offset, spec.lda, 3), seed);
    let b = random::<T>(buffer_len(spec.b_dims(), spec.b_offset, spec.ldb, 3), seed + 1);
    let mut c0 = random::<T>(buffer_len(spec.c_dims(), spec.c_offset, spec.ldc, 3), seed + 2);
    if beta == T::ZERO {
        for i in 0..spec.m {
            for j in 0..spec.n {
                c0[c_index(spec, i, j)] = T::from_f64(f64::NAN);
            }
        }
    }
    let expected = reference(spec, alpha, &a, &b, beta, &c0);
    let (a_buf, b_buf) = (upload(device, &a), upload(device, &b));
    let mut c_buf = upload(device, &c0);
    let event = call(&a_buf, &b_buf, &mut c_buf).map_err(|e| format!("{label} {spec:?}: {e}"))?;
    event.wait().map_err(|e| e.to_string())?;
    let got = download(device, &c_buf, c0.len());
    check(spec, &got, &c0, &expected).map_err(|e| format!("{label} {spec:?}: {e}"))
}

/// Runs one GEMM, its variant forced or chosen by the tree, and checks it ([`check_call`]).
pub fn run_case<T: TestElement>(
    device: &DefaultDevice,
    selection: Selection,
    spec: GemmSpec,
    alpha: T,
    beta: T,
    seed: u64,
) -> Result<(), String> {
    check_call(device, &spec, (alpha, beta), seed, &format!("{selection:?}"), |a, b, c| {
        gemm_with(&device.queue, &spec, alpha, a, b, beta, c, &[], selection)
    })
}

/// Runs variant `id` on a strided batch of `count` products `one`, items `strides` elements apart in
/// A, B and C, in one call; checks every item against the reference, and that nothing between the
/// items changed. C's items may interleave (a stride below one item's span, `one.ldc` wide enough);
/// A's and B's may coincide (stride 0).
pub fn check_strided_batch(
    device: &DefaultDevice,
    id: VariantId,
    one: GemmSpec,
    count: usize,
    strides: (usize, usize, usize),
    (alpha, beta): (f32, f32),
) -> Result<(), String> {
    let spec = one.with_batch(count, strides.0, strides.1, strides.2);
    let len = |dims, stride: usize, ld| buffer_len(dims, (count - 1) * stride, ld, 0).max(stride * count);
    let a = random::<f32>(len(one.a_dims(), strides.0, one.lda), 1);
    let b = random::<f32>(len(one.b_dims(), strides.1, one.ldb), 2);
    let c0 = random::<f32>(len(one.c_dims(), strides.2, one.ldc), 3);
    let expected = batch_reference(&spec, alpha, &a, &b, beta, &c0);
    let (a_buf, b_buf) = (upload(device, &a), upload(device, &b));
    let mut c_buf = upload(device, &c0);
    let event = gemm_with(&device.queue, &spec, alpha, &a_buf, &b_buf, beta, &mut c_buf, &[], Selection::Forced(id))
        .map_err(|e| format!("{id} batched: {e}"))?;
    event.wait().map_err(|e| e.to_string())?;
    let got = download(device, &c_buf, c0.len());
    check(&spec, &got, &c0, &expected).map_err(|e| format!("{id} batched: {e}"))
}

/// Builds any variant (shipped or not) for the test device, after checking that it is valid; None,
/// with a line on stderr, where it is beyond the device's limits (`Error::Unavailable`); any other
/// build error fails the test.
pub fn build_variant(device: &DefaultDevice, v: &Variant, precision: Precision) -> Option<CompiledVariant> {
    assert_eq!(v.validate(), Ok(()), "{}", v.id());
    let engine = Engine::for_queue(device.queue.get()).unwrap();
    match CompiledVariant::build(&engine, v, precision) {
        Ok(c) => Some(c),
        Err(e @ fewfit::Error::Unavailable { .. }) => {
            eprintln!("Skipping {}: {e}", v.id());
            None
        }
        Err(e) => panic!("{}: {e}", v.id()),
    }
}

/// Small xgemm tiles (32 x 32, 8 x 8 work-items) with the given extra parameters.
pub fn xgemm(extra: &[(&str, u32)]) -> Variant {
    let mut v = Variant::new(
        Family::Xgemm,
        &[
            ("MWG", 32),
            ("NWG", 32),
            ("KWG", 16),
            ("MDIMC", 8),
            ("NDIMC", 8),
            ("MDIMA", 8),
            ("NDIMB", 8),
            ("KWI", 2),
            ("VWM", 2),
            ("VWN", 2),
            ("STRM", 0),
            ("STRN", 0),
            ("SA", 1),
            ("SB", 1),
            ("VWK", 1),
            ("DB", 0),
            ("KSPLIT", 1),
            ("SWZ", 0),
            ("SK", 0),
            ("RP", 0),
        ],
    );
    v.params.extend(extra.iter().map(|&(k, x)| (k.to_string(), x)));
    v
}

/// A 16-bit storage type (f16, bf16: the kernels load it into f32 and compute in f32), with what
/// [`half_reference`]'s tolerance needs.
pub trait Half: Element<Scalar = f32> {
    /// Unit roundoff: the largest relative error of rounding to nearest even.
    const U: f64;
    /// Half the smallest positive subnormal: the largest absolute error of rounding near zero.
    const TINY: f64;
    /// The quiet bit of a NaN.
    const QUIET: u16;
    fn from_f64(x: f64) -> Self;
    fn to_f64(self) -> f64;
    fn to_bits(self) -> u16;
}

impl Half for fewfit::half::f16 {
    const U: f64 = 1.0 / 2048.0;
    const TINY: f64 = 1.0 / 33_554_432.0;
    const QUIET: u16 = 0x0200;
    fn from_f64(x: f64) -> Self {
        fewfit::half::f16::from_f64(x)
    }
    fn to_f64(self) -> f64 {
        fewfit::half::f16::to_f64(self)
    }
    fn to_bits(self) -> u16 {
        fewfit::half::f16::to_bits(self)
    }
}

impl Half for fewfit::half::bf16 {
    const U: f64 = 1.0 / 256.0;
    const TINY: f64 = 4.591_774_807_899_561e-41;
    const QUIET: u16 = 0x0040;
    fn from_f64(x: f64) -> Self {
        fewfit::half::bf16::from_f64(x)
    }
    fn to_f64(self) -> f64 {
        fewfit::half::bf16::to_f64(self)
    }
    fn to_bits(self) -> u16 {
        fewfit::half::bf16::to_bits(self)
    }
}

/// The index of every element of C, over all batch items.
pub fn c_indices(spec: &GemmSpec) -> Vec<usize> {
    let mut out = Vec::with_capacity(spec.batch_count * spec.m * spec.n);
    for item in 0..spec.batch_count {
        let one = spec.with_offsets(spec.a_offset, spec.b_offset, spec.c_offset + item * spec.c_batch_stride);
        for i in 0..spec.m {
            for j in 0..spec.n {
                out.push(c_index(&one, i, j));
            }
        }
    }
    out
}

/// Random A, B and C for `spec`, every batch item, and 3 elements more each that nothing may write:
/// values uniform in [-1, 1) rounded to T, C set to NaN where the product writes it when beta = 0
/// (so that a kernel that reads C then, or leaves an element unwritten, fails).
pub fn half_inputs<T: Half>(spec: &GemmSpec, beta: f32, seed: u64) -> (Vec<T>, Vec<T>, Vec<T>) {
    let len =
        |dims, offset: usize, ld, stride: usize| buffer_len(dims, offset + (spec.batch_count - 1) * stride, ld, 3);
    let data = |len: usize, seed: u64| random::<f64>(len, seed).into_iter().map(T::from_f64).collect::<Vec<T>>();
    let a = data(len(spec.a_dims(), spec.a_offset, spec.lda, spec.a_batch_stride), seed);
    let b = data(len(spec.b_dims(), spec.b_offset, spec.ldb, spec.b_batch_stride), seed + 1);
    let mut c = data(len(spec.c_dims(), spec.c_offset, spec.ldc, spec.c_batch_stride), seed + 2);
    if beta == 0.0 {
        for idx in c_indices(spec) {
            c[idx] = T::from_f64(f64::NAN);
        }
    }
    (a, b, c)
}

/// The reference of every element of C (all batch items) in 16-bit storage: its index, the exact
/// value and the error bound. The inputs are 16-bit values, so the f64 reference on them is exact:
/// ref = alpha · Σ_p a_ip b_pj + beta · c_ij, and a result c passes ([`half_check`]) where
///
/// |c − ref| ≤ u · |ref| + 4 · (K + 2) · 2⁻²⁴ · (|alpha| · Σ_p |a_ip b_pj| + |beta · c_ij|) + s,
///
/// u the unit roundoff of the storage type (2⁻¹¹ for f16, 2⁻⁸ for bf16): the one rounding, to
/// nearest even, of the f32 result as it is stored; the second term bounds the f32 arithmetic, and
/// grows with K (as the f32 tests' bound); s is half the storage type's smallest subnormal (2⁻²⁵,
/// 2⁻¹³⁴), the absolute error of rounding near zero. A store that truncated, or a sum kept in 16
/// bits, fails it.
pub fn half_reference<T: Half>(
    spec: &GemmSpec,
    alpha: f32,
    a: &[T],
    b: &[T],
    beta: f32,
    c: &[T],
) -> Vec<(usize, f64, f64)> {
    let wide = |x: &[T], abs: bool| -> Vec<f64> {
        x.iter().map(|v| if abs { v.to_f64().abs() } else { v.to_f64() }).collect()
    };
    let (alpha, beta) = (f64::from(alpha), f64::from(beta));
    let values = batch_reference(spec, alpha, &wide(a, false), &wide(b, false), beta, &wide(c, false));
    // The same products of absolute values: |alpha| sum |a b| + |beta c|.
    let magnitudes = batch_reference(spec, alpha.abs(), &wide(a, true), &wide(b, true), beta.abs(), &wide(c, true));
    let f32_bound = 4.0 * (spec.k as f64 + 2.0) * f64::from(f32::EPSILON) / 2.0;
    values
        .into_iter()
        .zip(magnitudes)
        .map(|((idx, value, _), (_, magnitude, _))| (idx, value, T::U * value.abs() + f32_bound * magnitude + T::TINY))
        .collect()
}

/// Checks 16-bit C against [`half_reference`] and that nothing outside C's elements changed, bit
/// for bit. Where the reference rounded to T is not finite (an overflow, or NaN and infinities in
/// the inputs), the element must be that same infinity, or a quiet NaN.
pub fn half_check<T: Half>(got: &[T], before: &[T], expected: &[(usize, f64, f64)]) -> Result<(), String> {
    let mut inside = vec![false; got.len()];
    for &(idx, want, bound) in expected {
        inside[idx] = true;
        let have = got[idx].to_f64();
        let stored = T::from_f64(want).to_f64();
        let right = if stored.is_nan() {
            have.is_nan() && got[idx].to_bits() & T::QUIET != 0
        } else if stored.is_infinite() {
            have == stored
        } else {
            (have - want).abs() <= bound // false for NaN
        };
        if !right {
            return Err(format!("C[{idx}] = {have}, expected {want} (stored {stored}, bound {bound:e})"));
        }
    }
    for (idx, (g, b)) in got.iter().zip(before).enumerate() {
        if !inside[idx] && g.to_bits() != b.to_bits() {
            return Err(format!("element {idx} outside C changed from {b:?} to {g:?}"));
        }
    }
    Ok(())
}
