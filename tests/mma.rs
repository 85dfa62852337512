//! The tensor-core family (kernels/mma.cl), its variants built outside the shipped set
//! (`CompiledVariant::build`) in f16, bf16 and tf32 and checked against an f64 reference of the
//! inputs as the products see them. On a device without tensor cores (CI's PoCL) each `mma.sync` is
//! the kernel's emulation, which runs the same slices, fragment loads and stores of C: so this
//! checks the kernel's indexing, over shapes no tile divides (1, primes, partial tiles in M, N and
//! K), the four operand layouts, offsets with padded leading dimensions (element loads) and aligned
//! ones (16-byte loads), a strided batch, and NaN in C where beta = 0. The emulation is slow: the
//! shapes are small.

mod common;

use common::{buffer_len, build_variant, c_index, device, download, upload, with_padding};
use fewfit::tuning::CompiledVariant;
use fewfit::{DefaultDevice, Element, GemmSpec, Layout, Precision, Transpose};
use fewfit_codegen::{Family, Variant};
use half::{bf16, f16};
use rand::{rngs::StdRng, RngExt, SeedableRng};

/// An element type the family stores, and how its products see it.
trait Stored: Element<Scalar = f32> {
    /// The stored value nearest x.
    fn from_f64(x: f64) -> Self;
    /// The stored value.
    fn to_f64(self) -> f64;
    /// Half an ulp, relative: the rounding of C's store.
    const STORE_EPS: f64;
}

impl Stored for f16 {
    fn from_f64(x: f64) -> Self {
        f16::from_f64(x)
    }
    fn to_f64(self) -> f64 {
        f16::to_f64(self)
    }
    const STORE_EPS: f64 = 1.0 / 2048.0;
}

impl Stored for bf16 {
    fn from_f64(x: f64) -> Self {
        bf16::from_f64(x)
    }
    fn to_f64(self) -> f64 {
        bf16::to_f64(self)
    }
    const STORE_EPS: f64 = 1.0 / 256.0;
}

impl Stored for f32 {
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    const STORE_EPS: f64 = 0.0;
}

/// x rounded to tf32 as `cvt.rna.tf32.f32` rounds it: to 10 mantissa bits, to nearest, ties away
/// from zero; infinities and NaNs as they are.
fn tf32(x: f32) -> f32 {
    let bits = x.to_bits();
    if bits & 0x7F80_0000 == 0x7F80_0000 {
        return x;
    }
    f32::from_bits(bits.wrapping_add(0x1000) & 0xFFFF_E000)
}

/// A case: (layout, op(A), op(B), m, n, k, padded by [`with_padding`], batch items).
type Case = (Layout, Transpose, Transpose, usize, usize, usize, bool, usize);

const CASES: [Case; 9] = [
    (Layout::ColumnMajor, Transpose::No, Transpose::No, 1, 1, 1, false, 1),
    (Layout::ColumnMajor, Transpose::Yes, Transpose::Yes, 17, 33, 19, true, 1),
    (Layout::ColumnMajor, Transpose::Yes, Transpose::No, 1, 40, 37, false, 1),
    (Layout::ColumnMajor, Transpose::No, Transpose::Yes, 37, 1, 50, true, 1),
    (Layout::RowMajor, Transpose::No, Transpose::No, 31, 29, 23, false, 1),
    // Leading dimensions that are multiples of 8: 16-byte loads inside C, several slices of K.
    (Layout::ColumnMajor, Transpose::No, Transpose::No, 64, 48, 96, false, 1),
    (Layout::ColumnMajor, Transpose::Yes, Transpose::No, 64, 48, 96, false, 1),
    (Layout::ColumnMajor, Transpose::No, Transpose::Yes, 72, 40, 100, false, 1),
    (Layout::ColumnMajor, Transpose::Yes, Transpose::Yes, 19, 13, 41, true, 3),
];

/// The mma variant of an MWG x NWG x KWG tile of WM x WN warps.
fn mma(mwg: u32, nwg: u32, kwg: u32, wm: u32, wn: u32) -> Variant {
    Variant::new(Family::Mma, &[("MWG", mwg), ("NWG", nwg), ("KWG", kwg), ("WM", wm), ("WN", wn)])
}

/// `len` stored values of uniform [-1, 1) from a fixed seed.
fn random<T: Stored>(len: usize, seed: u64) -> Vec<T> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..len).map(|_| T::from_f64(rng.random_range(-1.0..1.0))).collect()
}

/// op(X)[r][c] of a stored matrix, as the products see it (tf32 rounded where `tf32_products`).
#[allow(clippy::too_many_arguments)]
fn op_at<T: Stored>(
    x: &[T],
    layout: Layout,
    t: Transpose,
    offset: usize,
    ld: usize,
    r: usize,
    c: usize,
    tf32_products: bool,
) -> f64 {
    let (r, c) = if t == Transpose::Yes { (c, r) } else { (r, c) };
    let v = x[match layout {
        Layout::RowMajor => offset + r * ld + c,
        Layout::ColumnMajor => offset + r + c * ld,
    }]
    .to_f64();
    if tf32_products {
        tf32(v as f32) as f64
    } else {
        v
    }
}

/// Runs `compiled` on one case with random A, B and C (C's elements NaN where beta = 0) and checks
/// every element of C of every batch item against the f64 reference, within f32 accumulation over K
/// and the rounding of C's store, and that nothing outside C changed.
fn check_case<T: Stored>(
    device: &DefaultDevice,
    compiled: &CompiledVariant,
    precision: Precision,
    spec: &GemmSpec,
    (alpha, beta): (f32, f32),
    seed: u64,
) -> Result<(), String> {
    let count = spec.batch_count;
    let len = |dims, offset: usize, ld, stride: usize| buffer_len(dims, offset + (count - 1) * stride, ld, 3);
    let a = random::<T>(len(spec.a_dims(), spec.a_offset, spec.lda, spec.a_batch_stride), seed);
    let b = random::<T>(len(spec.b_dims(), spec.b_offset, spec.ldb, spec.b_batch_stride), seed + 1);
    let mut c0 = random::<T>(len(spec.c_dims(), spec.c_offset, spec.ldc, spec.c_batch_stride), seed + 2);
    let items: Vec<GemmSpec> = (0..count)
        .map(|item| {
            spec.with_offsets(
                spec.a_offset + item * spec.a_batch_stride,
                spec.b_offset + item * spec.b_batch_stride,
                spec.c_offset + item * spec.c_batch_stride,
            )
        })
        .collect();
    if beta == 0.0 {
        for (item, i, j) in items.iter().flat_map(|s| (0..s.m).flat_map(move |i| (0..s.n).map(move |j| (s, i, j)))) {
            c0[c_index(item, i, j)] = T::from_f64(f64::NAN);
        }
    }
    let tf32_products = precision == Precision::Tf32;
    let (a_buf, b_buf) = (upload(device, &a), upload(device, &b));
    let mut c_buf = upload(device, &c0);
    let label = format!("{} in {precision} on {spec:?}", compiled.id());
    let event = compiled
        .enqueue_gemm(&device.queue, spec, alpha, &a_buf, &b_buf, beta, &mut c_buf, &[])
        .map_err(|e| format!("{label}: {e}"))?;
    event.wait().map_err(|e| format!("{label}: {e}"))?;
    let got = download(device, &c_buf, c0.len());
    let mut inside = vec![false; got.len()];
    for item in &items {
        for i in 0..item.m {
            for j in 0..item.n {
                let (mut sum, mut mag) = (0.0, 0.0);
                for p in 0..item.k {
                    let prod = op_at(&a, item.layout, item.trans_a, item.a_offset, item.lda, i, p, tf32_products)
                        * op_at(&b, item.layout, item.trans_b, item.b_offset, item.ldb, p, j, tf32_products);
                    sum += prod;
                    mag += prod.abs();
                }
                let idx = c_index(item, i, j);
                let c = if beta == 0.0 { 0.0 } else { c0[idx].to_f64() };
                let want = alpha as f64 * sum + beta as f64 * c;
                let accumulated = 8.0
                    * (item.k as f64 + 2.0)
                    * f32::EPSILON as f64
                    * (alpha.abs() as f64 * mag + (beta as f64 * c).abs());
                let bound = accumulated + T::STORE_EPS * (want.abs() + accumulated) + 1e-7;
                let have = got[idx].to_f64();
                let within = (have - want).abs() <= bound; // false for NaN
                if !within {
                    return Err(format!("{label}: C[{idx}] = {have}, expected {want} (bound {bound:e})"));
                }
                inside[idx] = true;
            }
        }
    }
    match (0..got.len()).find(|&i| !inside[i] && got[i].to_f64().to_bits() != c0[i].to_f64().to_bits()) {
        Some(i) => Err(format!("{label}: element {i} outside C changed from {:?} to {:?}", c0[i], got[i])),
        None => Ok(()),
    }
}

/// Every case on every variant in T's storage, computed in `precision`; fails with every failure.
fn check_variants<T: Stored>(precision: Precision, variants: &[Variant]) {
    let Some(device) = device() else { return };
    let mut failures = Vec::new();
    for v in variants {
        let Some(compiled) = build_variant(device, v, precision) else { continue };
        for (case, &(layout, ta, tb, m, n, k, padded, batch)) in CASES.iter().enumerate() {
            let spec = GemmSpec::new(layout, ta, tb, m, n, k);
            let spec = if padded { with_padding(spec) } else { spec };
            let spec = if batch > 1 {
                let span = |(lines, len): (usize, usize), ld: usize| lines * ld.max(len) + 5;
                spec.with_batch(
                    batch,
                    span(spec.a_dims(), spec.lda),
                    span(spec.b_dims(), spec.ldb),
                    span(spec.c_dims(), spec.ldc),
                )
            } else {
                spec
            };
            let scalars = if case % 2 == 0 { (1.0, 0.0) } else { (-1.5, 0.75) };
            if let Err(e) = check_case::<T>(device, &compiled, precision, &spec, scalars, case as u64) {
                failures.push(e);
            }
        }
    }
    assert!(failures.is_empty(), "{} cases failed:\n{}", failures.len(), failures.join("\n"));
}

// Three tiles in f16: one warp, two along M, two along N; bf16 (which differs only in its
// conversions) and tf32 (its own mma shape and rounding) two each, every program a compile of
// seconds on PoCL.
#[test]
fn f16_products_match_the_reference() {
    check_variants::<f16>(Precision::F16, &[mma(16, 16, 32, 1, 1), mma(64, 32, 32, 2, 1), mma(32, 64, 32, 1, 2)]);
}

#[test]
fn bf16_products_match_the_reference() {
    check_variants::<bf16>(Precision::Bf16, &[mma(16, 16, 32, 1, 1), mma(64, 32, 32, 2, 1)]);
}

#[test]
fn tf32_products_match_the_reference() {
    check_variants::<f32>(Precision::Tf32, &[mma(16, 16, 32, 1, 1), mma(32, 64, 32, 1, 2)]);
}
