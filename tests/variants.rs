//! Every shipped variant, forced, against the f64 reference: both layouts, all four transpose
//! pairs, tight and padded leading dimensions, offsets, edge shapes, f32 and f64.

mod common;

use common::*;
use fewfit::tuning::{reachable, LaunchPolicy};
use fewfit::{gemm_no_event, Engine, GemmSpec, Layout, Precision, Selection, Transpose, VariantId};
use fewfit_codegen::PackA;
use rand::{rngs::StdRng, SeedableRng};

/// `padded`: see [`with_padding`].
fn spec(layout: Layout, (ta, tb): (Transpose, Transpose), (m, n, k): (usize, usize, usize), padded: bool) -> GemmSpec {
    let spec = GemmSpec::new(layout, ta, tb, m, n, k);
    if padded {
        with_padding(spec)
    } else {
        spec
    }
}

fn all_cases<T: TestElement>(shapes: &[(usize, usize, usize)]) {
    let Some(device) = device_for::<T>() else { return };
    let mut failures = Vec::new();
    let mut runs = 0;
    for id in VariantId::ALL {
        for layout in LAYOUTS {
            for trans in TRANSPOSES {
                for (s, &shape) in shapes.iter().enumerate() {
                    let padded = s % 2 == 1;
                    let (alpha, beta) =
                        if s % 3 == 0 { (T::from_f64(1.0), T::ZERO) } else { (T::from_f64(2.3), T::from_f64(-0.7)) };
                    runs += 1;
                    let case = spec(layout, trans, shape, padded);
                    if let Err(e) = run_case(device, Selection::Forced(id), case, alpha, beta, runs) {
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

/// The tests below force each variant; one that failed to build would run its fallback in its
/// place and pass unseen. On every device the tests run on, every variant builds but those beyond
/// the device's declared limits (local memory, work-group size), which are not built and whose
/// fallback serves their shapes by design; and no f32 variant that the device's own tree can pick
/// is among those.
#[test]
fn every_variant_builds_on_the_test_device() {
    let Some(device) = device() else { return };
    let engine = Engine::for_queue(device.queue.get()).unwrap();
    let precisions: &[Precision] = if device.info.fp64 { &[Precision::F32, Precision::F64] } else { &[Precision::F32] };
    for &precision in precisions {
        let picked_by_tree = reachable(engine.info.class, precision);
        let failures = engine.build_failures(precision).unwrap();
        assert!(failures.is_empty(), "{precision:?} on {}: {failures:?}", device.info.name);
        let unavailable = engine.unavailable(precision).unwrap();
        for (id, why) in &unavailable {
            eprintln!("{precision:?} on {}: {why}", device.info.name);
            let picked = picked_by_tree.contains(id);
            assert!(
                precision != Precision::F32 || !picked,
                "the {:?} tree picks {id:?}, which this device cannot build",
                engine.info.class
            );
        }
    }
}

#[test]
fn every_variant_matches_the_reference_f32() {
    all_cases::<f32>(&EDGE_SHAPES);
}

#[test]
fn every_variant_matches_the_reference_f64() {
    all_cases::<f64>(&EDGE_SHAPES[..8]);
}

#[test]
fn every_variant_handles_both_paddings_on_large_shapes() {
    let Some(device) = device() else { return };
    // The second shape gives every panel variant more than one band of group rows, the last one
    // partial (kernels/panel.cl); the third is one work-group of every panel variant, split in K on
    // a device of 2 or more cores. The fourth has 169 tiles of 128 x 128, more than one wave of a
    // large GPU's compute units.
    for id in VariantId::ALL {
        for shape in [(257, 263, 130), (517, 1031, 33), (6, 10, 40000), (1537, 1543, 17)] {
            for padded in [false, true] {
                let s = spec(Layout::RowMajor, (Transpose::No, Transpose::No), shape, padded);
                run_case::<f32>(device, Selection::Forced(id), s, 1.5, 0.5, 99).unwrap();
            }
        }
    }
}

/// A PA = 2 variant packs A from 2²⁹ multiply-adds per launch on and runs its PA = 0 program below:
/// the set's such variants on both sides of the threshold, in both layouts (A along M, and the
/// problem transposed), with ragged edges in M and N.
#[test]
fn variants_that_pack_only_large_launches_match_the_reference_on_both_sides() {
    let Some(device) = device() else { return };
    let packing = VariantId::ALL.into_iter().filter(|id| id.variant().geometry().pack_a == PackA::WhereLarge);
    for id in packing {
        for (m, n, k) in [(1021, 1031, 510), (1021, 1031, 511)] {
            assert_eq!(id.variant().geometry().packs_a(m, n, k), k == 511);
            for layout in LAYOUTS {
                let s = spec(layout, (Transpose::No, Transpose::No), (m, n, k), false);
                run_case::<f32>(device, Selection::Forced(id), s, 1.0, 0.5, 7).unwrap();
            }
        }
    }
}

#[test]
fn automatic_selection_matches_the_reference() {
    let Some(device) = device() else { return };
    for (m, n, k) in [(1, 512, 256), (8, 300, 128), (300, 8, 128), (96, 96, 96), (513, 257, 64)] {
        run_case::<f32>(device, Selection::Auto, GemmSpec::row_major(m, n, k), 1.0, 0.0, 7).unwrap();
    }
}

/// Problems no list in this repo names ([`random_problem`]), each through the tree and the launch
/// it makes for that shape (splits of K, stream-K), against the reference.
#[test]
fn automatic_selection_matches_the_reference_on_random_problems() {
    let Some(device) = device() else { return };
    let mut rng = StdRng::seed_from_u64(20261129);
    let cases = 64;
    let failures: Vec<String> = (0..cases)
        .filter_map(|case| {
            let (spec, alpha, beta) = random_problem(&mut rng, 300.0, 2000.0);
            run_case::<f32>(device, Selection::Auto, spec, alpha, beta, case).err()
        })
        .collect();
    assert!(failures.is_empty(), "{} of {cases} cases failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn calls_without_an_event_are_ordered_by_the_queue() {
    let Some(device) = device() else { return };
    // Decode, a tiny C with a huge K (split on GPUs, so fewfit makes an event of its own), a
    // tile edge, K = 0 (C scaled by beta) and an empty product (nothing enqueued).
    for (m, n, k) in [(1, 512, 256), (5, 7, 3001), (129, 65, 200), (9, 11, 0), (0, 4, 8)] {
        let spec = GemmSpec::row_major(m, n, k);
        let a = random::<f32>(m * k, 31);
        let b = random::<f32>(k * n, 32);
        let c0 = random::<f32>(m * n, 33);
        // Two calls in a row: the second reads the first's C (split-K launches on NVIDIA reuse their
        // tile flags on the same in-order queue without an event).
        let mut c1 = c0.clone();
        for (idx, want, _) in reference(&spec, 1.5, &a, &b, 0.25, &c0) {
            c1[idx] = want as f32;
        }
        let expected = reference(&spec, 1.5, &a, &b, 0.25, &c1);
        let (a_buf, b_buf) = (upload(device, &a), upload(device, &b));
        let mut c_buf = upload(device, &c0);
        for _ in 0..2 {
            gemm_no_event(&device.queue, &spec, 1.5, &a_buf, &b_buf, 0.25, &mut c_buf, &[]).unwrap();
        }
        // The in-order queue runs the read after the GEMMs.
        let got = download(device, &c_buf, c0.len());
        check(&spec, &got, &c0, &expected).unwrap();
    }
}

#[test]
fn every_variant_runs_a_strided_batch_in_one_launch() {
    let Some(device) = device() else { return };
    let (m, n, k, count) = (19, 23, 29, 5);
    for id in VariantId::ALL {
        for layout in LAYOUTS {
            let one = GemmSpec::new(layout, Transpose::No, Transpose::Yes, m, n, k);
            let strides = (m * k + 3, k * n + 5, m * n + 7);
            check_strided_batch(device, id, one, count, strides, (1.25, 0.5)).unwrap();
            // C's items side by side in each line, as the heads of a row-major attention output.
            let len = one.c_dims().1;
            let interleaved = one.with_ld(one.lda, one.ldb, count * len + 1);
            check_strided_batch(device, id, interleaved, count, (m * k + 3, k * n + 5, len), (1.25, 0.5)).unwrap();
        }
    }
}

/// Launch grids past 65,535 work-groups along dimensions 1 and 2 (CUDA's limit there, under
/// NVIDIA's OpenCL): a C of 1.1 million lines (the kernels' N, tiles along dimension 1; also through
/// `scale_c` where alpha = 0) and of 1.1 million columns, and strided batches of 70,000 items
/// (dimension 2, with splits of K in the second), through the tree and through every variant.
#[test]
fn every_variant_runs_wide_grids_and_large_batches() {
    let Some(device) = device() else { return };
    let wide = [GemmSpec::row_major(1_100_000, 4, 16), GemmSpec::row_major(4, 1_100_000, 16)];
    let selections = std::iter::once(Selection::Auto).chain(VariantId::ALL.map(Selection::Forced));
    let mut failures = Vec::new();
    for selection in selections {
        for (case, spec) in wide.iter().enumerate() {
            for alpha in [1.0f32, 0.0] {
                if let Err(e) = run_case::<f32>(device, selection, *spec, alpha, 0.5, case as u64) {
                    failures.push(format!("{selection:?}, alpha {alpha}: {e}"));
                }
            }
        }
        // The second batch, deep enough to split K, goes through the tree alone (a forced 128 x 128
        // tile would pad each item 2,700-fold, hours on a CPU); it shares its A and B (stride 0).
        let deep = (GemmSpec::row_major(2, 3, 3000), true);
        let batches = if selection == Selection::Auto {
            vec![(GemmSpec::row_major(3, 5, 7), false), deep]
        } else {
            vec![(GemmSpec::row_major(3, 5, 7), false)]
        };
        for (one, shared) in batches {
            let (m, n, k, count) = (one.m, one.n, one.k, 70_000);
            let id = match selection {
                Selection::Forced(id) => id,
                Selection::Auto => fewfit::chosen_variant::<f32>(&device.queue, &one).unwrap(),
            };
            let strides = if shared { (0, 0, m * n) } else { (m * k, k * n, m * n) };
            if let Err(e) = check_strided_batch(device, id, one, count, strides, (1.0, 0.5)) {
                failures.push(format!("{selection:?}, {count} x {m}x{n}x{k}: {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{} cases failed:\n{}", failures.len(), failures.join("\n"));
}
