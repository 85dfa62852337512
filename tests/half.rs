//! f16 and bf16 storage (A, B and C hold 16-bit values, the kernels load them into f32 and compute
//! in f32) against an f64 reference: every shipped variant forced, variants outside the set, the
//! automatic selection, the host form and device buffers; edge shapes, both layouts, all four
//! transposes, offsets, padded leading dimensions, strided batches, alpha = 0 and K = 0; poisoned
//! outputs, NaN and infinities, overflow, subnormals and rounding. Launches that split K or stream it
//! (through an f32 workspace) are tests/half_split.rs's.
//!
//! **Tolerance** (`common::half_reference`): the inputs are 16-bit values, so the f64 reference on
//! them is exact: ref = alpha · Σ_p a_ip b_pj + beta · c_ij. A result c passes where
//!
//! |c − ref| ≤ u · |ref| + 4 · (K + 2) · 2⁻²⁴ · (|alpha| · Σ_p |a_ip b_pj| + |beta · c_ij|) + s,
//!
//! u the unit roundoff of the storage type (2⁻¹¹ for f16, 2⁻⁸ for bf16): the one rounding, to
//! nearest even, of the f32 result as it is stored; the second term bounds the f32 arithmetic, and
//! grows with K (as the f32 tests' bound); s is half the storage type's smallest subnormal (2⁻²⁵,
//! 2⁻¹³⁴), the absolute error of rounding near zero. Where the reference rounded to the storage type
//! is not finite (an overflow, or NaN and infinities in the inputs), c must be that same infinity,
//! or a quiet NaN. A store that truncated, or a sum kept in 16 bits, would fail the bound; the
//! rounding tests below check ties exactly, bit for bit.

mod common;

use common::*;
use fewfit::half::{bf16, f16};
use fewfit::tuning::{reachable, CompiledVariant};
use fewfit::{
    gemm_host, gemm_with, DefaultDevice, Engine, GemmSpec, Layout, Precision, Selection, Transpose, VariantId,
};
use fewfit_codegen::{Family, Variant};
use opencl3::event::Event;
use opencl3::memory::Buffer;

/// Fewer shapes for the sweeps over variants: one element, edges in every dimension, a long K (below
/// where the launch policy splits K or streams it on this repo's 2-core CI device: tests/half_split.rs
/// covers those launches).
const SWEEP_SHAPES: [(usize, usize, usize); 4] = [(1, 1, 1), (17, 13, 11), (65, 67, 71), (3, 2, 1031)];

/// How a case runs: the host form (automatic selection), device buffers with the variant chosen
/// or forced, or a variant built outside the set.
#[derive(Clone, Copy)]
enum Via<'a> {
    Host,
    Device(Selection),
    Built(&'a CompiledVariant),
}

impl std::fmt::Display for Via<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Via::Host => write!(f, "gemm_host"),
            Via::Device(selection) => write!(f, "{selection:?}"),
            Via::Built(v) => write!(f, "{}", v.id()),
        }
    }
}

/// The index of op(X)[r][c] in a stored matrix.
fn op_index(layout: Layout, t: Transpose, offset: usize, ld: usize, r: usize, c: usize) -> usize {
    let (r, c) = if t == Transpose::Yes { (c, r) } else { (r, c) };
    match layout {
        Layout::RowMajor => offset + r * ld + c,
        Layout::ColumnMajor => offset + r + c * ld,
    }
}

/// Runs C = alpha op(A) op(B) + beta C on device buffers holding `a`, `b` and `c`, by `enqueue`,
/// and reads C back into `c`.
fn on_device<T: Half>(
    device: &DefaultDevice,
    (a, b, c): (&[T], &[T], &mut [T]),
    enqueue: impl FnOnce(&Buffer<T>, &Buffer<T>, &mut Buffer<T>) -> fewfit::Result<Event>,
) -> Result<(), String> {
    let (a_buf, b_buf) = (upload(device, a), upload(device, b));
    let mut c_buf = upload(device, c);
    let event = enqueue(&a_buf, &b_buf, &mut c_buf).map_err(|e| e.to_string())?;
    event.wait().map_err(|e| e.to_string())?;
    c.copy_from_slice(&download(device, &c_buf, c.len()));
    Ok(())
}

/// Runs `spec` on the given A, B and C through `via` and returns C.
fn run<T: Half>(
    device: &DefaultDevice,
    via: Via<'_>,
    spec: &GemmSpec,
    (alpha, beta): (f32, f32),
    (a, b, c0): (&[T], &[T], &[T]),
) -> Result<Vec<T>, String> {
    let mut c = c0.to_vec();
    match via {
        Via::Host => gemm_host(spec, alpha, a, b, beta, &mut c).map_err(|e| e.to_string())?,
        Via::Device(selection) => on_device(device, (a, b, &mut c), |a, b, c| {
            gemm_with(&device.queue, spec, alpha, a, b, beta, c, &[], selection)
        })?,
        Via::Built(v) => {
            on_device(device, (a, b, &mut c), |a, b, c| v.enqueue_gemm(&device.queue, spec, alpha, a, b, beta, c, &[]))?
        }
    }
    Ok(c)
}

/// Runs `spec` on the given A, B and C through `via` and checks the result.
fn check_case<T: Half>(
    device: &DefaultDevice,
    via: Via<'_>,
    spec: &GemmSpec,
    scalars: (f32, f32),
    (a, b, c0): (&[T], &[T], &[T]),
) -> Result<(), String> {
    let expected = half_reference(spec, scalars.0, a, b, scalars.1, c0);
    let got = run(device, via, spec, scalars, (a, b, c0))?;
    half_check(&got, c0, &expected)
}

/// Runs `spec` on random data through `via` and checks it; errors name the precision, the way and
/// the problem.
fn random_case<T: Half>(
    device: &DefaultDevice,
    via: Via<'_>,
    spec: &GemmSpec,
    scalars: (f32, f32),
    seed: u64,
) -> Result<(), String> {
    let (a, b, c) = half_inputs::<T>(spec, scalars.1, seed);
    check_case(device, via, spec, scalars, (&a, &b, &c))
        .map_err(|e| format!("{:?} {via} {spec:?} alpha, beta = {scalars:?}: {e}", T::PRECISION))
}

/// `shape` in a layout and transpose pair; padded (leading dimensions + 3, offsets 5, 7, 11) or not.
fn spec(layout: Layout, (ta, tb): (Transpose, Transpose), (m, n, k): (usize, usize, usize), padded: bool) -> GemmSpec {
    let spec = GemmSpec::new(layout, ta, tb, m, n, k);
    if padded {
        with_padding(spec)
    } else {
        spec
    }
}

/// Both layouts, all four transpose pairs and every shape, the s-th through `via(s)`; every other
/// shape padded, every third with alpha = 1, beta = 0 (C poisoned). Returns the failures.
fn sweep<'a, T: Half>(
    device: &DefaultDevice,
    shapes: &[(usize, usize, usize)],
    via: impl Fn(usize) -> Via<'a>,
) -> Vec<String> {
    let mut failures = Vec::new();
    let mut seed = 0;
    for layout in LAYOUTS {
        for trans in TRANSPOSES {
            for (s, &shape) in shapes.iter().enumerate() {
                seed += 3;
                let scalars = if s % 3 == 0 { (1.0, 0.0) } else { (2.3, -0.7) };
                if let Err(e) = random_case::<T>(device, via(s), &spec(layout, trans, shape, s % 2 == 1), scalars, seed)
                {
                    failures.push(e);
                }
            }
        }
    }
    failures
}

fn assert_none_failed(failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} cases failed; first ones:\n{}",
        failures.len(),
        failures[..failures.len().min(8)].join("\n")
    );
}

/// Every variant of the set that builds in f32 builds in f16 and bf16 (local memory and registers
/// hold f32 in all three; the splitting ones add into an f32 workspace), and no tree picks one that
/// the device cannot build.
#[test]
fn every_variant_builds_in_f16_and_bf16() {
    let Some(device) = device() else { return };
    let engine = Engine::for_queue(device.queue.get()).unwrap();
    let in_f32: Vec<VariantId> = engine.unavailable(Precision::F32).unwrap().into_iter().map(|(id, _)| id).collect();
    for precision in [Precision::F16, Precision::Bf16] {
        let failures = engine.build_failures(precision).unwrap();
        assert!(failures.is_empty(), "{precision:?} on {}: {failures:?}", device.info.name);
        let picked_by_tree = reachable(engine.info.class, precision);
        for (id, why) in engine.unavailable(precision).unwrap() {
            assert!(in_f32.contains(&id), "{precision:?} on {}: {why}", device.info.name);
            assert!(!picked_by_tree.contains(&id), "the {precision:?} tree picks {id}, which this device cannot build");
        }
    }
}

fn every_shipped_variant<T: Half>() {
    let Some(device) = device() else { return };
    let mut failures = Vec::new();
    for id in VariantId::ALL {
        failures.extend(sweep::<T>(device, &SWEEP_SHAPES, |_| Via::Device(Selection::Forced(id))));
    }
    assert_none_failed(&failures);
}

#[test]
fn every_shipped_variant_matches_the_reference_f16() {
    every_shipped_variant::<f16>();
}

#[test]
fn every_shipped_variant_matches_the_reference_bf16() {
    every_shipped_variant::<bf16>();
}

/// The edge shapes chosen by the tree, through the host form and device buffers in turn.
fn edge_shapes<T: Half>() {
    let Some(device) = device() else { return };
    let failures =
        sweep::<T>(device, &EDGE_SHAPES, |s| if s % 2 == 0 { Via::Host } else { Via::Device(Selection::Auto) });
    assert_none_failed(&failures);
}

#[test]
fn edge_shapes_match_the_reference_f16() {
    edge_shapes::<f16>();
}

#[test]
fn edge_shapes_match_the_reference_bf16() {
    edge_shapes::<bf16>();
}

/// Small xgemm, direct and panel variants outside the set, covering what the set may not: every DB,
/// operands read from global memory (SA, SB = 0), swizzled slices, register prefetch (RP 1 to 3),
/// vector widths 1 to 8 along M, N and K, stream-K and split-K chosen per launch, the direct
/// family's vector widths, runs along K, row-by-row reduction and KSPLIT = 0, and the panel family's
/// both forms with A packed always and where large. Each is built in one of the two precisions
/// (each a PoCL compile of a few seconds): their storage access is the same macros in both, and
/// each precision gets the widest vectors, aligned and not.
fn outside_the_set(precision: Precision) -> Vec<Variant> {
    let direct = |wptm: u32, ndimd: u32, kdimd: u32, vwd: u32, ukd: u32, extra: &[(&str, u32)]| {
        let mut v = Variant::new(
            Family::Direct,
            &[
                ("WPTM", wptm),
                ("WPTN", 1),
                ("NDIMD", ndimd),
                ("KDIMD", kdimd),
                ("VWD", vwd),
                ("UKD", ukd),
                ("RBR", 0),
                ("UKK", 0),
                ("KSPLIT", 1),
            ],
        );
        v.params.extend(extra.iter().map(|&(k, x)| (k.to_string(), x)));
        v
    };
    let panel = |vw: u32, mv: u32, nr: u32, lm: u32, ln: u32, kc: u32, pa: u32| {
        Variant::new(
            Family::Panel,
            &[("VW", vw), ("MV", mv), ("NR", nr), ("LM", lm), ("LN", ln), ("KC", kc), ("PA", pa)],
        )
    };
    match precision {
        Precision::F16 => vec![
            xgemm(&[("VWM", 1), ("VWN", 1), ("STRM", 1)]),
            xgemm(&[("DB", 1), ("SA", 0), ("VWK", 2)]),
            xgemm(&[("DB", 3), ("VWK", 4), ("STRM", 1), ("STRN", 1)]),
            xgemm(&[("DB", 5), ("VWM", 4), ("VWN", 1), ("SWZ", 1), ("VWK", 2), ("KSPLIT", 0)]),
            xgemm(&[
                ("MWG", 64),
                ("NWG", 64),
                ("KWG", 32),
                ("VWK", 8),
                ("VWM", 8),
                ("VWN", 8),
                ("DB", 1),
                ("SWZ", 1),
                ("RP", 3),
            ]),
            direct(8, 4, 16, 8, 4, &[("RBR", 1)]),
            panel(8, 3, 6, 2, 2, 64, 1),
        ],
        _ => vec![
            xgemm(&[("SA", 0), ("SB", 0), ("MWG", 64), ("VWM", 8), ("VWN", 1)]),
            xgemm(&[("DB", 1), ("SB", 0), ("VWK", 8), ("VWM", 4), ("VWN", 1)]),
            xgemm(&[("DB", 2), ("KWG", 32), ("KWI", 8), ("VWK", 2), ("SWZ", 1), ("RP", 1)]),
            xgemm(&[("DB", 4), ("VWM", 4), ("VWN", 4), ("SWZ", 1), ("VWK", 2)]),
            xgemm(&[("SK", 2), ("DB", 1), ("VWK", 4), ("RP", 2), ("STRM", 1), ("STRN", 1)]),
            direct(2, 8, 32, 2, 8, &[("KSPLIT", 0), ("UKK", 2)]),
            panel(4, 1, 1, 1, 1, 64, 2),
        ],
    }
}

fn outside_the_set_cases<T: Half>() {
    let Some(device) = device() else { return };
    let mut failures = Vec::new();
    for v in outside_the_set(T::PRECISION) {
        let Some(built) = build_variant(device, &v, T::PRECISION) else { continue };
        failures.extend(sweep::<T>(device, &SWEEP_SHAPES, |_| Via::Built(&built)));
    }
    assert_none_failed(&failures);
}

#[test]
fn variants_outside_the_set_match_the_reference_f16() {
    outside_the_set_cases::<f16>();
}

#[test]
fn variants_outside_the_set_match_the_reference_bf16() {
    outside_the_set_cases::<bf16>();
}

/// A long K on a C of one panel work-group, which f32 splits across the cores of a device of 2 or
/// more (tests/small_shapes.rs).
#[test]
fn panel_variants_on_a_long_k() {
    let Some(device) = device() else { return };
    let panels = VariantId::ALL.into_iter().filter(|id| id.info().family == Family::Panel);
    for id in panels {
        let s = GemmSpec::new(Layout::RowMajor, Transpose::No, Transpose::No, 6, 10, 36000);
        random_case::<f16>(device, Via::Device(Selection::Forced(id)), &s, (1.0, 0.0), 1).unwrap();
        random_case::<bf16>(device, Via::Device(Selection::Forced(id)), &s, (0.5, 1.5), 2).unwrap();
    }
}

/// Decode steps (M <= 16, row-major NN) whose B rows lie 4,096 elements apart, where the panel
/// family's outer-product form prefetches B's rows ahead on CPUs (kernels/panel.cl, STREAM_A),
/// through every panel variant; K ends short of the prefetch distance and off a slice.
#[test]
fn panel_variants_on_decode_steps_with_a_wide_b() {
    let Some(device) = device() else { return };
    let panels = VariantId::ALL.into_iter().filter(|id| id.info().family == Family::Panel);
    for id in panels {
        for (m, k) in [(1, 300), (5, 9)] {
            let s = GemmSpec::new(Layout::RowMajor, Transpose::No, Transpose::No, m, 70, k).with_ld(k, 4096, 70);
            random_case::<f16>(device, Via::Device(Selection::Forced(id)), &s, (1.0, 0.0), 3).unwrap();
            random_case::<bf16>(device, Via::Device(Selection::Forced(id)), &s, (0.5, 1.5), 4).unwrap();
        }
    }
}

/// A strided batch of 3 products, A's items apart by more than their span, B's all one (stride 0),
/// C's interleaved (a stride below one item's span, ldc wide enough), through every variant and the
/// host form.
fn strided_batches<T: Half>() {
    let Some(device) = device() else { return };
    let one = GemmSpec::new(Layout::ColumnMajor, Transpose::No, Transpose::Yes, 9, 7, 13).with_ld(9, 7, 30);
    let spec = one.with_batch(3, 9 * 13 + 4, 0, 10).with_offsets(2, 1, 0);
    let mut failures = Vec::new();
    let vias = VariantId::ALL.into_iter().map(|id| Via::Device(Selection::Forced(id))).chain([Via::Host]);
    for (v, via) in vias.enumerate() {
        let scalars = if v % 2 == 0 { (1.5, 0.0) } else { (-0.5, 2.0) };
        if let Err(e) = random_case::<T>(device, via, &spec, scalars, v as u64) {
            failures.push(e);
        }
    }
    assert_none_failed(&failures);
}

#[test]
fn strided_batches_match_the_reference_f16() {
    strided_batches::<f16>();
}

#[test]
fn strided_batches_match_the_reference_bf16() {
    strided_batches::<bf16>();
}

/// alpha = 0 (A holding NaN, never read) and K = 0 scale C by beta in storage type: beta = 0 writes
/// zeros over NaN, beta = 1 keeps C, others round beta * C once; through the host form and device
/// buffers, padded and batched.
fn scaling_only<T: Half>() {
    let Some(device) = device() else { return };
    let mut failures = Vec::new();
    let shapes = [(5, 3, 0), (33, 17, 0), (5, 3, 4), (33, 17, 7)];
    for (s, &shape) in shapes.iter().enumerate() {
        for beta in [0.0, 1.0, -2.5, 0.3] {
            let alpha = if shape.2 == 0 { 1.0 } else { 0.0 };
            let spec = spec(Layout::RowMajor, TRANSPOSES[s], shape, s % 2 == 1).with_batch(2, 400, 400, 700);
            let (mut a, b, c) = half_inputs::<T>(&spec, beta, s as u64);
            a.fill(T::from_f64(f64::NAN));
            for via in [Via::Host, Via::Device(Selection::Auto)] {
                if let Err(e) = check_case(device, via, &spec, (alpha, beta), (&a, &b, &c)) {
                    failures.push(format!("{:?} {via} {spec:?} beta = {beta}: {e}", T::PRECISION));
                }
            }
        }
    }
    assert_none_failed(&failures);
}

#[test]
fn alpha_zero_and_k_zero_scale_c_f16() {
    scaling_only::<f16>();
}

#[test]
fn alpha_zero_and_k_zero_scale_c_bf16() {
    scaling_only::<bf16>();
}

/// NaN and infinities in A and B reach exactly the elements of C whose sums take them (a NaN, or
/// the infinity of the product's sign, or NaN where it meets zero or the other infinity), through
/// every variant and the host form, in every layout and transpose pair.
fn non_finite_inputs<T: Half>() {
    let Some(device) = device() else { return };
    let mut failures = Vec::new();
    let vias = VariantId::ALL.into_iter().map(|id| Via::Device(Selection::Forced(id))).chain([Via::Host]);
    for (v, via) in vias.enumerate() {
        for layout in LAYOUTS {
            for trans in TRANSPOSES {
                let spec = spec(layout, trans, (17, 13, 11), v % 2 == 0);
                let scalars = (1.25, if v % 2 == 0 { 0.0 } else { 0.5 });
                let (mut a, mut b, c) = half_inputs::<T>(&spec, scalars.1, v as u64);
                let at_a = |i, p| op_index(layout, trans.0, spec.a_offset, spec.lda, i, p);
                let at_b = |p, j| op_index(layout, trans.1, spec.b_offset, spec.ldb, p, j);
                a[at_a(3, 5)] = T::from_f64(f64::NAN);
                a[at_a(16, 0)] = T::from_f64(f64::NEG_INFINITY);
                b[at_b(2, 7)] = T::from_f64(f64::INFINITY);
                b[at_b(10, 12)] = T::from_f64(f64::INFINITY);
                b[at_b(0, 12)] = T::from_f64(f64::NEG_INFINITY);
                if let Err(e) = check_case(device, via, &spec, scalars, (&a, &b, &c)) {
                    failures.push(format!("{:?} {via} {spec:?}: {e}", T::PRECISION));
                }
            }
        }
    }
    assert_none_failed(&failures);
}

#[test]
fn nan_and_infinities_propagate_f16() {
    non_finite_inputs::<f16>();
}

#[test]
fn nan_and_infinities_propagate_bf16() {
    non_finite_inputs::<bf16>();
}

/// C (m x n, beta = 0, poisoned) of op(A) all `a` and op(B)[p][j] = b(p), K = b's length, alpha:
/// every element must be `want` exactly, bit for bit, through every variant and the host form, in
/// both layouts (each an edge and interior tiles).
fn uniform_products<T: Half>(device: &DefaultDevice, a: f64, b: &[f64], alpha: f32, want: T) -> Vec<String> {
    let mut failures = Vec::new();
    let vias = VariantId::ALL.into_iter().map(|id| Via::Device(Selection::Forced(id))).chain([Via::Host]);
    for via in vias {
        for layout in LAYOUTS {
            let spec = GemmSpec::new(layout, Transpose::No, Transpose::No, 33, 35, b.len());
            let (mut a_data, mut b_data, c) = half_inputs::<T>(&spec, 0.0, 5);
            for i in 0..spec.m {
                for (p, &bp) in b.iter().enumerate() {
                    a_data[op_index(layout, Transpose::No, 0, spec.lda, i, p)] = T::from_f64(a);
                    for j in 0..spec.n {
                        b_data[op_index(layout, Transpose::No, 0, spec.ldb, p, j)] = T::from_f64(bp);
                    }
                }
            }
            let label = format!("{:?} {via} {layout:?}: {a} x {b:?} x alpha {alpha}", T::PRECISION);
            match run(device, via, &spec, (alpha, 0.0), (&a_data, &b_data, &c)) {
                Ok(got) => {
                    let wrong = c_indices(&spec).into_iter().find(|&idx| got[idx].to_bits() != want.to_bits());
                    if let Some(idx) = wrong {
                        failures.push(format!("{label}: C[{idx}] = {:?}, expected {want:?}", got[idx]));
                    }
                }
                Err(e) => failures.push(format!("{label}: {e}")),
            }
        }
    }
    failures
}

/// Results are rounded to the storage type once, to nearest even: f32 results exactly halfway
/// between two 16-bit values go to the even one, those just above halfway go up (p = 11 significant
/// bits in f16, 8 in bf16; alpha carries the bits below them).
fn rounding<T: Half>(p: i32) {
    let Some(device) = device() else { return };
    let half_ulp = 2f64.powi(-p);
    let cases = [
        (1.0 + half_ulp, 1.0),                                   // a tie: down to the even 1
        (1.0 + 3.0 * half_ulp, 1.0 + 4.0 * half_ulp),            // a tie: up to the even neighbour
        (1.0 + half_ulp + 2f64.powi(-22), 1.0 + 2.0 * half_ulp), // just above halfway: up
        (-(1.0 + 3.0 * half_ulp), -(1.0 + 4.0 * half_ulp)),      // ties are symmetric
        (1.0 + half_ulp - 2f64.powi(-22), 1.0),                  // just below halfway: down
    ];
    let mut failures = Vec::new();
    for (alpha, want) in cases {
        failures.extend(uniform_products(device, 1.0, &[1.0], alpha as f32, T::from_f64(want)));
    }
    assert_none_failed(&failures);
}

#[test]
fn stores_round_to_nearest_even_f16() {
    rounding::<f16>(11);
}

#[test]
fn stores_round_to_nearest_even_bf16() {
    rounding::<bf16>(8);
}

/// f16's largest finite value is 65504, the next would be 65536: results from 65520 (halfway) up
/// round to infinity, those below to 65504, as IEEE 754 rounds; sums beyond 65504 on the way stay
/// in f32.
#[test]
fn f16_overflows_to_infinity_as_ieee_rounds() {
    let Some(device) = device() else { return };
    let inf = f16::INFINITY;
    let mut failures = Vec::new();
    failures.extend(uniform_products(device, 256.0, &[256.0], 1.0, inf));
    failures.extend(uniform_products(device, -256.0, &[256.0], 1.0, f16::NEG_INFINITY));
    failures.extend(uniform_products(device, 255.875, &[256.0], 1.0, f16::MAX));
    failures.extend(uniform_products(device, 1.0, &[1.0], 65519.0, f16::MAX));
    failures.extend(uniform_products(device, 1.0, &[1.0], 65520.0, inf));
    failures.extend(uniform_products(device, 1.0, &[1.0], -65520.0, f16::NEG_INFINITY));
    failures.extend(uniform_products(device, 200.0, &[200.0, 200.0, -200.0], 1.0, f16::from_f64(40000.0)));
    failures.extend(uniform_products(device, 200.0, &[200.0, 200.0], 1.0, inf));
    assert_none_failed(&failures);
}

/// bfloat16 has f32's exponent range: products far beyond f16's stay finite, and only results
/// beyond f32's range are infinite.
#[test]
fn bf16_keeps_the_f32_range() {
    let Some(device) = device() else { return };
    let p = |e: i32| 2f64.powi(e);
    let mut failures = Vec::new();
    failures.extend(uniform_products(device, p(100), &[p(20)], 1.0, bf16::from_f64(p(120))));
    failures.extend(uniform_products(device, -p(60), &[p(60)], 1.0, bf16::from_f64(-p(120))));
    failures.extend(uniform_products(device, p(-60), &[p(-60)], 1.0, bf16::from_f64(p(-120))));
    failures.extend(uniform_products(device, p(100), &[p(26), p(26)], 1.0, bf16::from_f64(p(127))));
    failures.extend(uniform_products(device, p(100), &[p(100)], 1.0, bf16::INFINITY));
    assert_none_failed(&failures);
}

/// f16 subnormals (below 2^-14) load and store exactly, and a product halfway between 0 and the
/// smallest one rounds to the even 0; every device runs them as normal f32 values.
#[test]
fn f16_subnormals_load_and_store_exactly() {
    let Some(device) = device() else { return };
    let p = |e: i32| 2f64.powi(e);
    let mut failures = Vec::new();
    failures.extend(uniform_products(device, p(-24), &[1.0], 1.0, f16::from_bits(0x0001)));
    failures.extend(uniform_products(device, -3.0 * p(-20), &[1.0], 1.0, f16::from_bits(0x8030)));
    failures.extend(uniform_products(device, p(-12), &[p(-12)], 1.0, f16::from_bits(0x0001)));
    failures.extend(uniform_products(device, p(-13), &[p(-12)], 1.0, f16::from_bits(0x0000)));
    failures.extend(uniform_products(device, p(-13), &[p(-12)], 3.0, f16::from_bits(0x0002)));
    failures.extend(uniform_products(device, 1023.0 * p(-24), &[1.0], 2.0, f16::from_bits(0x07FE)));
    assert_none_failed(&failures);
}
