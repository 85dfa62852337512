//! Every shipped variant, forced, on small problems that still reach each kernel's edge paths:
//! partial tiles in M, N and K, one element, padded leading dimensions with offsets, a strided
//! batch, and a tiny C with a long K (split K where the variant splits). Small enough to run under
//! Oclgrind, which `scripts/memcheck.sh` does: there an access outside a buffer, a race in local or
//! global memory or a missed barrier is an error even where the result comes out right (PoCL and
//! NVIDIA's OpenCL run such a kernel without a sign, other devices may not).

mod common;

use common::*;
use fewfit::{GemmSpec, Layout, Precision, Selection, Transpose, VariantId};
use fewfit_codegen::{Family, PackA};

/// (layout, op(A), op(B), m, n, k, padded by [`with_padding`]).
type Case = (Layout, Transpose, Transpose, usize, usize, usize, bool);

/// Shapes no tile divides, small enough for Oclgrind. On a device of 2 compute units (this repo's
/// CI, and `scripts/memcheck.sh`) the launches that add into C run too: stream-K by the SK variant
/// from 3 x 5 x 1100 on and K split across work-groups by the direct variants (KSPLIT = 0) at 4,100
/// of K; the xgemm variants with fixed KSPLIT split every shape, and their KSPLIT = 0 twins from
/// 1,100 of K.
const CASES: [Case; 8] = [
    (Layout::RowMajor, Transpose::No, Transpose::No, 1, 1, 1, false),
    (Layout::RowMajor, Transpose::No, Transpose::No, 35, 19, 21, true),
    (Layout::RowMajor, Transpose::No, Transpose::Yes, 3, 37, 70, false),
    (Layout::ColumnMajor, Transpose::Yes, Transpose::No, 17, 33, 9, true),
    (Layout::ColumnMajor, Transpose::Yes, Transpose::Yes, 9, 5, 44, false),
    (Layout::RowMajor, Transpose::No, Transpose::No, 3, 5, 1100, true),
    (Layout::RowMajor, Transpose::No, Transpose::Yes, 3, 5, 4100, false),
    (Layout::ColumnMajor, Transpose::No, Transpose::No, 60, 70, 40, true),
];

/// The panel variants split K across cores where C is one work-group and the product has at least
/// 2M multiply-adds; on Oclgrind, checking the other families at that size takes too much memory.
/// In the second case the kernel's M (the user's N, 70) ends in a block across M that computes the
/// rows that end at M, some of them the block before's, and adds only its own.
const PANEL_SPLIT_CASES: [Case; 3] = [
    (Layout::RowMajor, Transpose::No, Transpose::No, 6, 10, 36000, false),
    (Layout::RowMajor, Transpose::No, Transpose::No, 3, 70, 12000, true),
    (Layout::ColumnMajor, Transpose::Yes, Transpose::No, 11, 7, 30000, true),
];

/// Runs `run` on every case (its spec, alpha, beta and seed) and fails with every case that failed.
fn check_cases<T: TestElement>(cases: &[Case], mut run: impl FnMut(GemmSpec, T, T, u64) -> Result<(), String>) {
    let mut failures = Vec::new();
    for (case, &(layout, ta, tb, m, n, k, padded)) in cases.iter().enumerate() {
        let spec = GemmSpec::new(layout, ta, tb, m, n, k);
        let spec = if padded { with_padding(spec) } else { spec };
        let (alpha, beta) =
            if case % 2 == 0 { (T::from_f64(1.0), T::ZERO) } else { (T::from_f64(-1.5), T::from_f64(0.75)) };
        if let Err(e) = run(spec, alpha, beta, case as u64) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{} cases failed:\n{}", failures.len(), failures.join("\n"));
}

fn check_variants<T: TestElement>(ids: &[VariantId], cases: &[Case]) {
    let Some(device) = device_for::<T>() else { return };
    for &id in ids {
        check_cases::<T>(cases, |spec, alpha, beta, seed| {
            run_case::<T>(device, Selection::Forced(id), spec, alpha, beta, seed)
        });
    }
}

#[test]
fn every_variant_on_small_edge_shapes_f32() {
    check_variants::<f32>(&VariantId::ALL, &CASES);
}

/// A PA = 2 variant of the set runs its packing program only where a launch has at least 2²⁹
/// multiply-adds, too large for Oclgrind: here that program, its PA = 1 twin's, runs the small
/// cases and the panel split cases instead.
#[test]
fn packing_programs_on_small_edge_shapes() {
    let Some(device) = device() else { return };
    let packing = VariantId::ALL.into_iter().filter(|id| id.variant().geometry().pack_a == PackA::WhereLarge);
    for id in packing {
        let mut twin = id.variant();
        twin.params.insert("PA".into(), 1);
        let Some(compiled) = build_variant(device, &twin, Precision::F32) else { continue };
        check_cases::<f32>(&[&CASES[..], &PANEL_SPLIT_CASES[..]].concat(), |spec, alpha, beta, seed| {
            check_call(device, &spec, (alpha, beta), seed, compiled.id(), |a, b, c| {
                compiled.enqueue_gemm(&device.queue, &spec, alpha, a, b, beta, c, &[])
            })
        });
    }
}

#[test]
fn panel_variants_split_k_across_cores() {
    let panel: Vec<VariantId> = VariantId::ALL.into_iter().filter(|id| id.info().family == Family::Panel).collect();
    check_variants::<f32>(&panel, &PANEL_SPLIT_CASES);
}

#[test]
fn every_variant_on_small_edge_shapes_f64() {
    check_variants::<f64>(&VariantId::ALL, &CASES[..7]);
}

#[test]
fn every_variant_on_a_small_strided_batch() {
    let Some(device) = device() else { return };
    let (m, n, k, count) = (5, 7, 11, 3);
    let one = GemmSpec::new(Layout::RowMajor, Transpose::No, Transpose::Yes, m, n, k);
    for id in VariantId::ALL {
        check_strided_batch(device, id, one, count, (m * k + 1, k * n + 2, m * n + 3), (0.5, 2.0)).unwrap();
    }
}
