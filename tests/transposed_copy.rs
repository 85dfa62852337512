//! Large launches of the set's xgemm variants that store an operand contiguous along K transposed
//! into local memory first copy that operand transposed (`LaunchPolicy::transposes_first`): checked
//! against the f64 reference on random data, at the smallest shapes where the copy happens, in the
//! layouts that copy one operand, both, or none. The products are too large for the whole
//! reference, so it is computed on C's edge rows and columns and on random elements.

mod common;

use common::{buffer_len, c_index, device, download, random, reference_at, upload, with_padding};
use fewfit::tuning::{
    LaunchPolicy, TRANSPOSE_LONG_ROWS, TRANSPOSE_MIN_MADDS, TRANSPOSE_MIN_OTHER, TRANSPOSE_MIN_OTHER_LONG,
};
use fewfit::{gemm_with, Engine, GemmSpec, Layout, Selection, Transpose, VariantId};
use fewfit_codegen::Family;
use opencl3::command_queue::{CommandQueue, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE};
use rand::{rngs::StdRng, RngExt, SeedableRng};
use std::sync::Mutex;

/// Held by each test that launches copies: the engine's scratch buffers are shared, and
/// `the_engine_releases_its_scratch_buffers_once_no_launch_uses_them` counts what it releases.
static SCRATCH: Mutex<()> = Mutex::new(());

/// The set's variants whose large launches copy an operand transposed.
fn copying_variants() -> Vec<VariantId> {
    VariantId::ALL
        .into_iter()
        .filter(|id| id.info().family == Family::Xgemm && id.variant().geometry().transposing_stores.contains(&true))
        .collect()
}

/// Odd sizes just past the thresholds: M = N above `TRANSPOSE_MIN_OTHER`, K so that M·N·K is
/// above `TRANSPOSE_MIN_MADDS`, none a multiple of a tile.
fn shape() -> (usize, usize, usize) {
    let mn = TRANSPOSE_MIN_OTHER + 17;
    (mn, mn + 6, TRANSPOSE_MIN_MADDS.div_ceil(mn * mn) + 35)
}

/// Random A, B and C for `spec` (with a few elements past each).
fn inputs(spec: &GemmSpec, seed: u64) -> [Vec<f32>; 3] {
    [
        random::<f32>(buffer_len(spec.a_dims(), spec.a_offset, spec.lda, 3), seed),
        random::<f32>(buffer_len(spec.b_dims(), spec.b_offset, spec.ldb, 3), seed + 1),
        random::<f32>(buffer_len(spec.c_dims(), spec.c_offset, spec.ldc, 3), seed + 2),
    ]
}

/// (alpha, beta) of the checks.
const ALPHA_BETA: (f32, f32) = (1.5, -0.5);

/// Checks `got`, C after `id` ran on `spec` with [`ALPHA_BETA`], on C's edges and 2,000 random
/// elements against the reference, and that nothing past C changed.
fn check_sampled(
    id: VariantId,
    spec: &GemmSpec,
    [a, b, c0]: &[Vec<f32>; 3],
    got: &[f32],
    seed: u64,
) -> Result<(), String> {
    let (m, n) = (spec.m, spec.n);
    let mut elements: Vec<(usize, usize)> = (0..n).flat_map(|j| [(0, j), (m - 1, j)]).collect();
    elements.extend((0..m).flat_map(|i| [(i, 0), (i, n - 1)]));
    let mut rng = StdRng::seed_from_u64(seed + 3);
    elements.extend((0..2000).map(|_| (rng.random_range(0..m), rng.random_range(0..n))));
    for (i, j) in elements {
        let (idx, want, bound) = reference_at(spec, ALPHA_BETA.0, a, b, ALPHA_BETA.1, c0, i, j);
        let have = got[idx] as f64;
        let within = (have - want).abs() <= bound; // false for NaN too
        if !within {
            return Err(format!("{id} {spec:?}: C[{i}][{j}] = {have}, expected {want} (bound {bound:e})"));
        }
    }
    // Past the last element of C nothing changed (the copy writes only its own buffer).
    let last = c_index(spec, m - 1, n - 1);
    if got[last + 1..] != c0[last + 1..] {
        return Err(format!("{id} {spec:?}: elements past C changed"));
    }
    Ok(())
}

/// Runs `id` on `spec` on the default queue and checks the result ([`check_sampled`]).
fn run_and_check(id: VariantId, spec: &GemmSpec, seed: u64) -> Result<(), String> {
    let device = device().expect("a device");
    let data = inputs(spec, seed);
    let (alpha, beta) = ALPHA_BETA;
    let (a_buf, b_buf) = (upload(device, &data[0]), upload(device, &data[1]));
    let mut c_buf = upload(device, &data[2]);
    let event = gemm_with(&device.queue, spec, alpha, &a_buf, &b_buf, beta, &mut c_buf, &[], Selection::Forced(id))
        .map_err(|e| format!("{id} {spec:?}: {e}"))?;
    event.wait().map_err(|e| e.to_string())?;
    check_sampled(id, spec, &data, &download(device, &c_buf, data[2].len()), seed)
}

#[test]
fn large_launches_copy_operands_contiguous_along_k_and_match_the_reference() {
    let Some(_) = device() else { return };
    let _scratch = SCRATCH.lock().unwrap_or_else(|e| e.into_inner());
    let (m, n, k) = shape();
    let ids = copying_variants();
    assert!(!ids.is_empty(), "the set has no xgemm variant that stores an operand transposed");
    let cases = [
        // Row-major NN: the kernel's B (the user's A) is contiguous along K.
        GemmSpec::row_major(m, n, k),
        // Row-major NT, PyTorch's `Linear`: both, with offsets and padded leading dimensions.
        with_padding(GemmSpec::new(Layout::RowMajor, Transpose::No, Transpose::Yes, m, n, k)),
        // Column-major NN: the kernel's A is contiguous along M, its B along K.
        GemmSpec::new(Layout::ColumnMajor, Transpose::No, Transpose::No, m, n, k),
        // Row-major TN: neither is copied.
        GemmSpec::new(Layout::RowMajor, Transpose::Yes, Transpose::No, m, n, k),
    ];
    for id in ids {
        let g = id.variant().geometry();
        assert!(g.transposes_first(0, m, n, k) || g.transposes_first(1, m, n, k), "{id} copies nothing at {m}x{n}x{k}");
        assert!(!g.transposes_first(0, m, TRANSPOSE_MIN_OTHER - 1, k), "{id}: N below the threshold");
        for (seed, spec) in cases.iter().enumerate() {
            run_and_check(id, spec, 10 * seed as u64).unwrap();
        }
    }
}

#[test]
fn a_batched_large_launch_copies_every_item() {
    let Some(device) = device() else { return };
    let _scratch = SCRATCH.lock().unwrap_or_else(|e| e.into_inner());
    let (m, n, k) = shape();
    let id = copying_variants()[0];
    let one = GemmSpec::new(Layout::RowMajor, Transpose::No, Transpose::Yes, m, n, k);
    // Two items of A and B side by side with a gap, C's items apart.
    let spec = one.with_batch(2, m * k + 64, n * k + 32, m * n + 16);
    let len = |dims, stride: usize, ld| buffer_len(dims, stride, ld, 0);
    let a = random::<f32>(len(one.a_dims(), m * k + 64, one.lda), 1);
    let b = random::<f32>(len(one.b_dims(), n * k + 32, one.ldb), 2);
    let c0 = random::<f32>(len(one.c_dims(), m * n + 16, one.ldc), 3);
    let (a_buf, b_buf) = (upload(device, &a), upload(device, &b));
    let mut c_buf = upload(device, &c0);
    gemm_with(&device.queue, &spec, 1.0f32, &a_buf, &b_buf, 0.0, &mut c_buf, &[], Selection::Forced(id))
        .unwrap()
        .wait()
        .unwrap();
    let got = download(device, &c_buf, c0.len());
    let mut rng = StdRng::seed_from_u64(4);
    for item in 0..2 {
        let shifted = one.with_offsets(item * (m * k + 64), item * (n * k + 32), item * (m * n + 16));
        for _ in 0..1000 {
            let (i, j) = (rng.random_range(0..m), rng.random_range(0..n));
            let (idx, want, bound) = reference_at(&shifted, 1.0, &a, &b, 0.0, &c0, i, j);
            assert!(
                (got[idx] as f64 - want).abs() <= bound,
                "{id} item {item}: C[{i}][{j}] = {}, expected {want}",
                got[idx]
            );
        }
    }
}

#[test]
fn launches_that_may_run_at_once_copy_into_different_buffers() {
    let Some(device) = device() else { return };
    let _scratch = SCRATCH.lock().unwrap_or_else(|e| e.into_inner());
    let (m, n, k) = shape();
    let id = copying_variants()[0];
    // An out-of-order queue may run the three launches at once: each needs its own scratch.
    let queue =
        CommandQueue::create_default_with_properties(&device.context, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0)
            .expect("an out-of-order queue");
    let spec = GemmSpec::new(Layout::RowMajor, Transpose::No, Transpose::Yes, m, n, k);
    let (alpha, beta) = ALPHA_BETA;
    let runs: Vec<_> = (0..3u64)
        .map(|seed| {
            let data = inputs(&spec, 100 * seed);
            let (a_buf, b_buf) = (upload(device, &data[0]), upload(device, &data[1]));
            let mut c_buf = upload(device, &data[2]);
            let event =
                gemm_with(&queue, &spec, alpha, &a_buf, &b_buf, beta, &mut c_buf, &[], Selection::Forced(id)).unwrap();
            (seed, data, c_buf, event, [a_buf, b_buf])
        })
        .collect();
    for (seed, data, c_buf, event, _inputs) in runs {
        event.wait().unwrap();
        check_sampled(id, &spec, &data, &download(device, &c_buf, data[2].len()), 100 * seed).unwrap();
    }
}

#[test]
fn an_a_of_many_rows_is_copied_from_a_smaller_other_dimension() {
    // K deep enough for an m x n launch to hold enough multiply-adds.
    let k = |m: usize, n: usize| TRANSPOSE_MIN_MADDS.div_ceil(m * n);
    let (long, low) = (TRANSPOSE_LONG_ROWS, TRANSPOSE_MIN_OTHER_LONG);
    let ids: Vec<_> =
        copying_variants().into_iter().filter(|id| id.variant().geometry().transposing_stores[0]).collect();
    assert!(!ids.is_empty(), "no variant of the set copies A");
    for id in ids {
        let g = id.variant().geometry();
        assert!(g.transposes_first(0, long, low, k(long, low)), "{id}: a long A from the lower bound");
        assert!(!g.transposes_first(0, long, low - 1, k(long, low - 1)), "{id}: below the lower bound");
        assert!(
            !g.transposes_first(0, long - 1, TRANSPOSE_MIN_OTHER - 1, k(long - 1, TRANSPOSE_MIN_OTHER - 1)),
            "{id}: a shorter A"
        );
        assert!(
            g.transposes_first(0, long - 1, TRANSPOSE_MIN_OTHER, k(long - 1, TRANSPOSE_MIN_OTHER)),
            "{id}: the usual bound"
        );
        // B gains less from its copy: its bound stays.
        assert!(!g.transposes_first(1, low, long, k(low, long)), "{id}: a long B from the lower bound");
    }
}

#[test]
fn the_engine_releases_its_scratch_buffers_once_no_launch_uses_them() {
    let Some(device) = device() else { return };
    let _scratch = SCRATCH.lock().unwrap_or_else(|e| e.into_inner());
    let engine = Engine::for_queue(device.queue.get()).unwrap();
    let (m, n, k) = shape();
    let id = copying_variants()[0];
    let spec = GemmSpec::new(Layout::RowMajor, Transpose::No, Transpose::Yes, m, n, k);
    run_and_check(id, &spec, 7).unwrap();
    // The launch has completed: both copies' buffers go, then nothing is left to release.
    let copy_bytes = |rows: usize| rows.next_multiple_of(32) * k * std::mem::size_of::<f32>();
    let released = engine.release_scratch().unwrap();
    assert!(released >= copy_bytes(m) + copy_bytes(n), "released {released} bytes");
    assert_eq!(engine.release_scratch().unwrap(), 0);
    // A later large launch makes new ones and is still right.
    run_and_check(id, &spec, 8).unwrap();
}
