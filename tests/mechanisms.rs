//! Kernel mechanisms that the shipped set may not exercise everywhere, on variants built at run time
//! (`CompiledVariant::build`): double buffering (DB, including copies straight into local memory,
//! of both operands or only those contiguous along M / N),
//! vector loads along K (VWK), register prefetch of the next step's fragments (RP), split-K with
//! atomic adds (KSPLIT, fixed or chosen per launch), stream-K (SK), vector
//! loads in the direct kernel (VWD), its runs of k along K (UKK) and its splits of K (KSPLIT), and the CPU register-blocked kernel (panel, with A's slices
//! copied into local memory or not). Each is checked against the f64
//! reference over both layouts, all four transpose pairs, edge shapes, tight and padded leading
//! dimensions with offsets, beta = 0 over NaN-poisoned C and beta != 0, strided batches, f32 and f64.

mod common;

use common::*;
use fewfit::tuning::CompiledVariant;
use fewfit::{DefaultDevice, GemmSpec, Precision, Transpose};
use fewfit_codegen::{Family, Variant};

/// Edge shapes: 1, primes, non-multiples of every tile, one slice of K, and K much larger than M*N
/// (6 x 10 x 40000: one work-group of most panel variants, split in K on a device of 2 or more cores).
const SHAPES: [(usize, usize, usize); 13] = [
    (1, 1, 1),
    (7, 1, 13),
    (1, 9, 33),
    (17, 13, 11),
    (31, 37, 29),
    (65, 67, 71),
    (6, 10, 40000),
    (3, 2, 1031),
    (16, 200, 19),
    (5, 7, 3001),
    (33, 17, 517),
    // One tile of 10-19 steps of K: stream-K launches fewer work-groups than SK per compute unit.
    (17, 13, 300),
    // Five 32 x 32 tiles of 10 steps: on 2 compute units stream-K's 4 work-groups share more than
    // one tile each.
    (32, 150, 300),
];

fn direct(wptm: u32, wptn: u32, ndimd: u32, kdimd: u32, vwd: u32, ukd: u32) -> Variant {
    Variant::new(
        Family::Direct,
        &[
            ("WPTM", wptm),
            ("WPTN", wptn),
            ("NDIMD", ndimd),
            ("KDIMD", kdimd),
            ("VWD", vwd),
            ("UKD", ukd),
            ("RBR", 0),
            ("UKK", 0),
            ("KSPLIT", 1),
        ],
    )
}

/// A direct variant that reduces its partial sums one row of C at a time (RBR = 1).
fn direct_by_rows(wptm: u32, wptn: u32, ndimd: u32, kdimd: u32, vwd: u32, ukd: u32) -> Variant {
    let mut v = direct(wptm, wptn, ndimd, kdimd, vwd, ukd);
    v.params.insert("RBR".into(), 1);
    v
}

/// A direct variant loading `ukk` runs of k's at once where B is contiguous along K (UKK).
fn direct_with_runs(mut v: Variant, ukk: u32) -> Variant {
    v.params.insert("UKK".into(), ukk);
    v
}

/// A direct variant that splits K `splits` ways (KSPLIT; 0: chosen per launch).
fn direct_split(mut v: Variant, splits: u32) -> Variant {
    v.params.insert("KSPLIT".into(), splits);
    v
}

/// The variants under test: every new mechanism alone and combined.
fn variants() -> Vec<Variant> {
    vec![
        xgemm(&[("DB", 1)]),
        xgemm(&[("DB", 1), ("VWK", 4), ("STRM", 1), ("STRN", 1)]),
        xgemm(&[("DB", 1), ("SA", 0), ("VWK", 2)]),
        xgemm(&[("DB", 1), ("SB", 0), ("VWK", 8), ("VWM", 4), ("VWN", 1)]),
        // Operands staged in turn (DB = 2): the halfway store after 4 KWI steps, or after 2 with SWZ.
        xgemm(&[("DB", 2), ("VWK", 4), ("STRM", 1), ("STRN", 1)]),
        xgemm(&[("DB", 2), ("KWG", 32), ("KWI", 8), ("VWK", 2), ("SWZ", 1)]),
        // Copies straight into two / three local buffers (cp.async on NVIDIA), with split-K too.
        xgemm(&[("DB", 3), ("VWK", 4), ("STRM", 1), ("STRN", 1)]),
        xgemm(&[("DB", 4), ("VWM", 4), ("VWN", 4), ("SWZ", 1), ("VWK", 2)]),
        xgemm(&[("DB", 3), ("KSPLIT", 0), ("VWM", 1), ("VWN", 1)]),
        xgemm(&[("DB", 4), ("KWI", 8), ("KWG", 32), ("VWK", 4)]),
        // Copies for operands contiguous along M / N, staging for those along K (DB = 5), with
        // stream-K and swizzled K-contiguous slices too.
        xgemm(&[("DB", 5), ("VWK", 4), ("STRM", 1), ("STRN", 1)]),
        xgemm(&[("DB", 5), ("VWM", 4), ("VWN", 1), ("SWZ", 1), ("VWK", 2)]),
        xgemm(&[("DB", 5), ("SK", 2), ("KWG", 32), ("KWI", 8), ("VWK", 4)]),
        xgemm(&[("DB", 5), ("MWG", 64), ("NWG", 64), ("MDIMC", 16), ("NDIMC", 16), ("MDIMA", 16), ("NDIMB", 16)]),
        // 64-wide slices with 4-wide vectors: the swizzled transposing store of a K-contiguous operand.
        xgemm(&[("MWG", 64), ("NWG", 64), ("KWG", 32), ("VWK", 4), ("VWM", 4), ("VWN", 4), ("DB", 1), ("SWZ", 1)]),
        xgemm(&[("VWK", 1), ("SWZ", 1), ("STRN", 1)]),
        xgemm(&[("KSPLIT", 4)]),
        xgemm(&[("KSPLIT", 8), ("DB", 1), ("VWK", 4)]),
        xgemm(&[("KSPLIT", 2), ("SA", 0), ("SB", 0)]),
        // Chosen per launch: the deep-K shapes split, the others store C directly.
        xgemm(&[("KSPLIT", 0)]),
        xgemm(&[("KSPLIT", 0), ("DB", 1), ("VWK", 4)]),
        // Stream-K: one or four work-groups per compute unit share the tiles' steps of K, a tile
        // split between them added into C.
        xgemm(&[("SK", 1), ("DB", 1), ("VWK", 4)]),
        xgemm(&[("SK", 4), ("DB", 3), ("VWM", 1)]),
        // Register prefetch of the next step's fragments: single buffered, with the halfway store
        // of DB = 2 and swizzled slices, (RP = 2) only in the entry point whose operands are both
        // contiguous along K, in a stream-K program, and (RP = 3) in every entry point but NN's.
        xgemm(&[("RP", 1)]),
        xgemm(&[("RP", 1), ("DB", 2), ("KWG", 32), ("KWI", 8), ("VWK", 2), ("SWZ", 1)]),
        xgemm(&[("RP", 2), ("SK", 1), ("DB", 1), ("VWK", 4), ("STRM", 1), ("STRN", 1)]),
        xgemm(&[("RP", 3), ("DB", 1), ("VWK", 2), ("SWZ", 1)]),
        direct(1, 1, 4, 16, 4, 1),
        direct(2, 2, 8, 8, 2, 1),
        direct(4, 1, 2, 32, 8, 1),
        direct(8, 1, 4, 16, 4, 4),
        direct(2, 2, 4, 8, 1, 8),
        direct_by_rows(8, 1, 4, 16, 4, 4),
        direct_by_rows(4, 2, 2, 8, 2, 2),
        // Runs of B along K set apart from UKD (UKK): one run beside 8 adjacent k's along N, and
        // 4 runs beside one k.
        direct_with_runs(direct(2, 1, 8, 32, 4, 8), 1),
        direct_with_runs(direct(4, 1, 4, 16, 2, 1), 4),
        // Splits of K added into C (split 0 stores, then releases the others on NVIDIA), some of
        // them empty where K is short; with runs along K, and reduced row by row.
        direct_split(direct(2, 1, 8, 32, 4, 8), 4),
        direct_split(direct_with_runs(direct(4, 1, 4, 16, 2, 1), 2), 16),
        direct_split(direct_by_rows(4, 2, 2, 8, 2, 2), 2),
        direct_split(direct(1, 1, 4, 16, 4, 1), 0),
        panel(16, 2, 8, 1, 4, 32, 0),
        panel(8, 3, 6, 2, 2, 4096, 0),
        panel(4, 1, 1, 1, 1, 64, 0),
        panel(16, 1, 12, 4, 1, 256, 0),
        // A's slices copied into local memory first (PA), by one and by several work-items along M.
        panel(16, 2, 8, 1, 4, 32, 1),
        panel(8, 3, 6, 2, 2, 64, 1),
        panel(4, 1, 1, 1, 1, 64, 1),
        panel(16, 1, 12, 4, 1, 128, 1),
    ]
}

fn panel(vw: u32, mv: u32, nr: u32, lm: u32, ln: u32, kc: u32, pa: u32) -> Variant {
    Variant::new(Family::Panel, &[("VW", vw), ("MV", mv), ("NR", nr), ("LM", lm), ("LN", ln), ("KC", kc), ("PA", pa)])
}

/// Runs one GEMM on a built variant and checks it ([`check_call`]).
fn run_case<T: TestElement>(
    device: &DefaultDevice,
    variant: &CompiledVariant,
    spec: &GemmSpec,
    alpha: T,
    beta: T,
    seed: u64,
) -> Result<(), String> {
    check_call(device, spec, (alpha, beta), seed, variant.id(), |a, b, c| {
        variant.enqueue_gemm(&device.queue, spec, alpha, a, b, beta, c, &[])
    })
}

fn all_cases<T: TestElement>(shapes: &[(usize, usize, usize)]) {
    let Some(device) = device_for::<T>() else { return };
    let mut failures = Vec::new();
    let mut runs = 0;
    for v in variants() {
        let Some(compiled) = build_variant(device, &v, T::PRECISION) else { continue };
        for layout in LAYOUTS {
            for (ta, tb) in TRANSPOSES {
                for (s, &(m, n, k)) in shapes.iter().enumerate() {
                    let mut spec = GemmSpec::new(layout, ta, tb, m, n, k);
                    if s % 2 == 1 {
                        spec = spec.with_ld(spec.lda + 3, spec.ldb + 3, spec.ldc + 3).with_offsets(5, 7, 11);
                    }
                    let (alpha, beta) =
                        if s % 3 == 0 { (T::from_f64(1.0), T::ZERO) } else { (T::from_f64(2.3), T::from_f64(-0.7)) };
                    runs += 1;
                    if let Err(e) = run_case(device, &compiled, &spec, alpha, beta, runs) {
                        failures.push(e);
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {runs} cases failed; first ones:\n{}",
        failures.len(),
        failures[..failures.len().min(8)].join("\n")
    );
}

#[test]
fn new_mechanisms_match_the_reference_f32() {
    all_cases::<f32>(&SHAPES);
}

#[test]
fn new_mechanisms_match_the_reference_f64() {
    all_cases::<f64>(&SHAPES[..7]);
}

#[test]
fn new_mechanisms_run_strided_batches() {
    let Some(device) = device() else { return };
    let (m, n, k, count) = (19, 23, 290, 5);
    for v in variants() {
        let Some(compiled) = build_variant(device, &v, Precision::F32) else { continue };
        // C's items apart (a stride past one item's span), or interleaved in the gaps between
        // each other's lines, as the heads of a row-major attention output ([tokens, heads x dim]).
        for (layout, interleaved) in LAYOUTS.into_iter().flat_map(|l| [(l, false), (l, true)]) {
            let mut one = GemmSpec::new(layout, Transpose::No, Transpose::Yes, m, n, k);
            let (lines, len) = one.c_dims();
            if interleaved {
                one = one.with_ld(one.lda, one.ldb, count * len + 2);
            }
            let c_stride = if interleaved { len } else { m * n + 7 };
            let strides = (m * k + 3, k * n + 5, c_stride);
            let spec = one.with_batch(count, strides.0, strides.1, strides.2);
            let c_len = if interleaved { lines * one.ldc } else { strides.2 * count };
            for beta in [0.5f32, 0.0] {
                let a = random::<f32>(strides.0 * count, 1);
                let b = random::<f32>(strides.1 * count, 2);
                let mut c0 = random::<f32>(c_len, 3);
                let mut expected = Vec::new();
                for item in 0..count {
                    let shifted = one.with_offsets(item * strides.0, item * strides.1, item * strides.2);
                    if beta == 0.0 {
                        for i in 0..m {
                            for j in 0..n {
                                c0[c_index(&shifted, i, j)] = f32::NAN;
                            }
                        }
                    }
                    expected.extend(reference(&shifted, 1.25f32, &a, &b, beta, &c0));
                }
                let (a_buf, b_buf) = (upload(device, &a), upload(device, &b));
                let mut c_buf = upload(device, &c0);
                let event =
                    compiled.enqueue_gemm(&device.queue, &spec, 1.25, &a_buf, &b_buf, beta, &mut c_buf, &[]).unwrap();
                event.wait().unwrap();
                let got = download(device, &c_buf, c0.len());
                check(&spec, &got, &c0, &expected).unwrap_or_else(|e| panic!("{} batched: {e}", compiled.id()));
            }
        }
    }
}

#[test]
fn split_k_waits_for_the_callers_events_and_its_event_covers_the_scale() {
    // An out-of-order wait list: the GEMM must run after a user event is completed, and its event
    // must complete only after both the scale and the split kernel ran.
    let Some(device) = device() else { return };
    // K = 1700: KSPLIT = 0 splits it in 4 (each split at least 384 deep); the panel variant, one
    // work-group at 9 x 11, splits K = 30000 in 2 on a device of 2 or more cores.
    let cases = [
        ("KSPLIT = 8", xgemm(&[("KSPLIT", 8)]), 1700),
        ("KSPLIT = 0", xgemm(&[("KSPLIT", 0)]), 1700),
        ("direct KSPLIT = 4", direct_split(direct(2, 1, 8, 32, 4, 8), 4), 1700),
        ("panel", panel(16, 1, 12, 4, 1, 256, 0), 30000),
    ];
    for (name, variant, k) in cases {
        let Some(compiled) = build_variant(device, &variant, Precision::F32) else { return };
        let spec = GemmSpec::row_major(9, 11, k);
        let a = random::<f32>(9 * k, 1);
        let b = random::<f32>(k * 11, 2);
        let c0 = vec![f32::NAN; 9 * 11];
        let expected = reference(&spec, 1.0f32, &a, &b, 0.0, &c0);
        let (a_buf, b_buf) = (upload(device, &a), upload(device, &b));
        let mut c_buf = upload(device, &c0);
        let gate =
            opencl3::event::Event::new(opencl3::event::create_user_event(device.context.get()).expect("user event"));
        let event =
            compiled.enqueue_gemm(&device.queue, &spec, 1.0, &a_buf, &b_buf, 0.0, &mut c_buf, &[gate.get()]).unwrap();
        opencl3::event::set_user_event_status(gate.get(), opencl3::event::CL_COMPLETE).unwrap();
        event.wait().unwrap();
        let got = download(device, &c_buf, c0.len());
        check(&spec, &got, &c0, &expected).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}
