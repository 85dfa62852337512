//! Split-K and stream-K in f16 and bf16: the shipped variants that split K per launch (KSPLIT = 0),
//! stream it (SK > 0) or always split it (KSPLIT > 1), forced on shapes where the launch policy
//! splits on the test device (checked first, so that no case passes by not splitting). Their
//! kernels add the splits' parts into an f32 workspace, and `combine_c` adds that into the 16-bit
//! C. Both layouts, all four transposes, offsets and padded leading dimensions, a strided batch,
//! beta = 0 over a C of NaN and beta != 0.
//!
//! **Tolerance** (as tests/half.rs states it): the inputs are 16-bit values, so the f64 reference on
//! them is exact; a result c passes where
//!
//! |c − ref| ≤ u · |ref| + 4 · (K + 2) · 2⁻²⁴ · (|alpha| · Σ_p |a_ip b_pj| + |beta · c_ij|) + s,
//!
//! u the storage type's unit roundoff (2⁻¹¹ for f16, 2⁻⁸ for bf16), for the one rounding as C is
//! stored; the second term bounds the f32 arithmetic, splits and workspace included, and grows with
//! K; s is half the storage type's smallest subnormal.

mod common;

use common::*;
use fewfit::half::{bf16, f16};
use fewfit::tuning::{AtomicAdd, LaunchPolicy};
use fewfit::{gemm_with, DefaultDevice, DeviceClass, GemmSpec, Layout, Selection, Transpose, VariantId};
use fewfit_codegen::{Family, Orientation};

/// Whether a launch of variant `id` on `spec` splits K or runs stream-K on the test device, by
/// the launch policy, in whichever orientation the host gives the kernel: a variant that wants
/// M <= N gets that; the others may get M and N either way, and must split in both.
fn splits(device: &DefaultDevice, id: VariantId, spec: &GemmSpec) -> bool {
    let g = id.variant().geometry();
    let units = device.info.compute_units;
    let add = match device.info.class {
        DeviceClass::NvidiaGpu => AtomicAdd::Reduction,
        _ => AtomicAdd::CompareAndSwap,
    };
    let (m, n) = (spec.m, spec.n);
    let orientations = match g.orientation {
        Orientation::SmallM => vec![(m.min(n), m.max(n))],
        _ => vec![(m, n), (n, m)],
    };
    orientations.into_iter().all(|(m, n)| {
        g.splits_for(m, n, spec.k, spec.batch_count, units, add) > 1
            || g.stream_k_groups(m, n, spec.k, spec.batch_count, units).is_some()
    })
}

/// Runs `spec` on random A, B and C ([`half_inputs`]) through variant `id` and checks C against
/// the f64 reference, and that nothing outside C changed ([`half_check`]).
fn check_case<T: Half>(
    device: &DefaultDevice,
    id: VariantId,
    spec: &GemmSpec,
    (alpha, beta): (f32, f32),
    seed: u64,
) -> Result<(), String> {
    let (a, b, c0) = half_inputs::<T>(spec, beta, seed);
    let expected = half_reference(spec, alpha, &a, &b, beta, &c0);
    let (a_buf, b_buf) = (upload(device, &a), upload(device, &b));
    let mut c_buf = upload(device, &c0);
    let event = gemm_with(&device.queue, spec, alpha, &a_buf, &b_buf, beta, &mut c_buf, &[], Selection::Forced(id))
        .map_err(|e| e.to_string())?;
    event.wait().map_err(|e| e.to_string())?;
    half_check(&download(device, &c_buf, c0.len()), &c0, &expected)
}

/// The shipped variants that may split K or stream it in 16-bit storage (not the panel family's,
/// whose one program would then go through the workspace in every launch).
fn splitting_variants() -> Vec<VariantId> {
    VariantId::ALL
        .into_iter()
        .filter(|id| {
            let g = id.variant().geometry();
            id.info().family != Family::Panel && (g.k_splits != 1 || g.stream_k > 0)
        })
        .collect()
}

/// The cases of one variant: shapes with a deep K on which it splits, in both layouts and all
/// four transposes, every other pair padded with offsets, every third with beta = 0 (C poisoned
/// with NaN); for the tiles also a strided batch of 3 (B shared, C's items apart by more than
/// their span). The direct family splits one work-group of a few rows on few compute units (its
/// ranges of K at least 2,048 deep, a batch item a work-group); the tiles split a C of one or two
/// tiles.
fn cases(id: VariantId) -> Vec<(GemmSpec, (f32, f32))> {
    let direct = id.info().family == Family::Direct;
    let shapes: &[(usize, usize, usize)] = if direct {
        &[(2, 29, 8192), (31, 2, 4099), (1, 17, 8191)]
    } else {
        &[(8, 16, 4099), (64, 48, 8191), (13, 7, 5000)]
    };
    let mut out = Vec::new();
    for (c, (layout, trans)) in [Layout::RowMajor, Layout::ColumnMajor]
        .into_iter()
        .flat_map(|layout| TRANSPOSES.map(|trans| (layout, trans)))
        .enumerate()
    {
        let (m, n, k) = shapes[c % shapes.len()];
        let spec = GemmSpec::new(layout, trans.0, trans.1, m, n, k);
        let spec = if c / 2 % 2 == 1 { with_padding(spec) } else { spec };
        out.push((spec, if c % 3 == 0 { (1.0, 0.0) } else { (2.3, -0.7) }));
    }
    if !direct {
        let batch = GemmSpec::new(Layout::ColumnMajor, Transpose::No, Transpose::Yes, 8, 16, 4099)
            .with_batch(3, 8 * 4099 + 5, 0, 8 * 16 + 3)
            .with_offsets(1, 2, 3);
        out.extend([(batch, (1.5, 0.0)), (batch, (-0.5, 2.0))]);
    }
    out
}

/// Every case of every splitting variant, in f16 and bf16 by turns; the failures.
fn failures(device: &DefaultDevice) -> Vec<String> {
    let mut failures = Vec::new();
    let mut seed = 0;
    for id in splitting_variants() {
        for (c, (spec, scalars)) in cases(id).into_iter().enumerate() {
            assert!(splits(device, id, &spec), "{id} does not split {spec:?} on {}", device.info.name);
            seed += 3;
            let result = match c % 2 {
                0 => check_case::<f16>(device, id, &spec, scalars, seed),
                _ => check_case::<bf16>(device, id, &spec, scalars, seed),
            };
            if let Err(e) = result {
                failures.push(format!("{id} {spec:?} alpha, beta = {scalars:?}: {e}"));
            }
        }
    }
    failures
}

#[test]
fn split_launches_match_the_reference() {
    let Some(device) = device() else { return };
    let families: Vec<Family> = splitting_variants().iter().map(|id| id.info().family).collect();
    assert!(families.contains(&Family::Direct) && families.contains(&Family::Xgemm), "the set splits in both families");
    let failures = failures(device);
    assert!(failures.is_empty(), "{} cases failed:\n{}", failures.len(), failures.join("\n"));
}
