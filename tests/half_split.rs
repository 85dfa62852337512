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
use fewfit::{gemm_with, DefaultDevice, DeviceClass, Element, GemmSpec, Layout, Selection, Transpose, VariantId};
use fewfit_codegen::{Family, Orientation};

/// A 16-bit storage type, with what the tolerance needs.
trait Half: Element<Scalar = f32> {
    /// Unit roundoff.
    const U: f64;
    /// Half the smallest positive subnormal.
    const TINY: f64;
    fn from_f64(x: f64) -> Self;
    fn to_f64(self) -> f64;
}

impl Half for f16 {
    const U: f64 = 1.0 / 2048.0;
    const TINY: f64 = 1.0 / 33_554_432.0;
    fn from_f64(x: f64) -> Self {
        f16::from_f64(x)
    }
    fn to_f64(self) -> f64 {
        f16::to_f64(self)
    }
}

impl Half for bf16 {
    const U: f64 = 1.0 / 256.0;
    const TINY: f64 = 4.591_774_807_899_561e-41;
    fn from_f64(x: f64) -> Self {
        bf16::from_f64(x)
    }
    fn to_f64(self) -> f64 {
        bf16::to_f64(self)
    }
}

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

/// Elements a buffer needs for every batch item of a stored matrix, plus 3 that nothing may write.
fn len_of((lines, len): (usize, usize), offset: usize, ld: usize, count: usize, stride: usize) -> usize {
    buffer_len((lines, len), offset + (count - 1) * stride, ld, 3)
}

/// Runs `spec` on random A, B and C (uniform in [-1, 1), rounded to T; C NaN where beta = 0)
/// through variant `id` and checks C against the f64 reference, and that nothing outside C changed.
fn check_case<T: Half>(
    device: &DefaultDevice,
    id: VariantId,
    spec: &GemmSpec,
    (alpha, beta): (f32, f32),
    seed: u64,
) -> Result<(), String> {
    let data = |len: usize, seed: u64| random::<f64>(len, seed).into_iter().map(T::from_f64).collect::<Vec<T>>();
    let count = spec.batch_count;
    let a = data(len_of(spec.a_dims(), spec.a_offset, spec.lda, count, spec.a_batch_stride), seed);
    let b = data(len_of(spec.b_dims(), spec.b_offset, spec.ldb, count, spec.b_batch_stride), seed + 1);
    let mut c0 = data(len_of(spec.c_dims(), spec.c_offset, spec.ldc, count, spec.c_batch_stride), seed + 2);
    let wide = |x: &[T], abs: bool| -> Vec<f64> {
        x.iter().map(|v| if abs { v.to_f64().abs() } else { v.to_f64() }).collect()
    };
    let values =
        batch_reference(spec, f64::from(alpha), &wide(&a, false), &wide(&b, false), f64::from(beta), &wide(&c0, false));
    let magnitudes = batch_reference(
        spec,
        f64::from(alpha.abs()),
        &wide(&a, true),
        &wide(&b, true),
        f64::from(beta.abs()),
        &wide(&c0, true),
    );
    if beta == 0.0 {
        for &(idx, _, _) in &values {
            c0[idx] = T::from_f64(f64::NAN);
        }
    }
    let (a_buf, b_buf) = (upload(device, &a), upload(device, &b));
    let mut c_buf = upload(device, &c0);
    let event = gemm_with(&device.queue, spec, alpha, &a_buf, &b_buf, beta, &mut c_buf, &[], Selection::Forced(id))
        .map_err(|e| e.to_string())?;
    event.wait().map_err(|e| e.to_string())?;
    let got = download(device, &c_buf, c0.len());
    let f32_bound = 4.0 * (spec.k as f64 + 2.0) * f64::from(f32::EPSILON) / 2.0;
    let mut inside = vec![false; got.len()];
    for ((idx, want, _), (_, magnitude, _)) in values.into_iter().zip(magnitudes) {
        inside[idx] = true;
        let bound = T::U * want.abs() + f32_bound * magnitude + T::TINY;
        let have = got[idx].to_f64();
        let right = (have - want).abs() <= bound; // false for NaN
        if !right {
            return Err(format!("C[{idx}] = {have}, expected {want} (bound {bound:e})"));
        }
    }
    for (idx, (g, b)) in got.iter().zip(&c0).enumerate() {
        if !inside[idx] && g.to_f64().to_bits() != b.to_f64().to_bits() {
            return Err(format!("element {idx} outside C changed from {b:?} to {g:?}"));
        }
    }
    Ok(())
}

const TRANSPOSES: [(Transpose, Transpose); 4] = [
    (Transpose::No, Transpose::No),
    (Transpose::No, Transpose::Yes),
    (Transpose::Yes, Transpose::No),
    (Transpose::Yes, Transpose::Yes),
];

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
