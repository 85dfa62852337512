//! The failure paths, reached by fault injection (`fewfit::faults`, cargo feature
//! `fault-injection`): a build that fails with an OpenCL error is built again on a later call, and
//! meanwhile the call fails at once with C untouched (or falls back to another variant); a failed
//! enqueue leaves C untouched, except after a split-K launch has scaled C first, where C holds
//! beta * C as documented; a scratch buffer refused at its allocation or at its first use leaves
//! the launch without the copy, right, and the buffer out of the pool. Each test checks C against
//! the f64 reference or against its old contents, bit for bit.
//!
//! Faults are process-wide, so the tests take turns ([`FAULTS`]).

mod common;

use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use common::{buffer_len, c_index, check, device, download, random, reference, reference_at, upload, xgemm};
use fewfit::faults::{disarm, inject, is_armed, FaultPoint};
use fewfit::tuning::{CompiledVariant, TRANSPOSE_MIN_MADDS, TRANSPOSE_MIN_OTHER};
use fewfit::{
    build_stats, gemm, gemm_with, release_engines, DefaultDevice, Engine, Error, GemmSpec, Layout, Precision,
    Selection, Transpose, VariantId,
};
use fewfit_codegen::{Family, Variant};
use opencl3::error_codes::{CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_OUT_OF_RESOURCES};

/// Held by each test: an armed fault would hit whichever GEMM comes next.
static FAULTS: Mutex<()> = Mutex::new(());

/// How long a transient build failure is kept (the runtime's `RETRY_AFTER`), with a margin.
const PAST_RETRY: Duration = Duration::from_millis(1100);

/// Takes the test's turn, with no fault armed.
fn turn() -> MutexGuard<'static, ()> {
    let guard = FAULTS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    disarm();
    guard
}

/// A small GEMM's operands on the device: the spec, host copies of A, B and C, and C's buffer.
struct Small {
    spec: GemmSpec,
    host: [Vec<f32>; 3],
}

impl Small {
    fn new(spec: GemmSpec, seed: u64) -> Small {
        let host = [
            random::<f32>(buffer_len(spec.a_dims(), spec.a_offset, spec.lda, 2), seed),
            random::<f32>(buffer_len(spec.b_dims(), spec.b_offset, spec.ldb, 2), seed + 1),
            random::<f32>(buffer_len(spec.c_dims(), spec.c_offset, spec.ldc, 2), seed + 2),
        ];
        Small { spec, host }
    }

    /// Runs `call` on fresh device buffers and returns its result and C afterwards.
    fn run<R>(
        &self,
        device: &DefaultDevice,
        call: impl FnOnce(
            &opencl3::memory::Buffer<f32>,
            &opencl3::memory::Buffer<f32>,
            &mut opencl3::memory::Buffer<f32>,
        ) -> R,
    ) -> (R, Vec<f32>) {
        let [a, b, c] = &self.host;
        let (a_buf, b_buf, mut c_buf) = (upload(device, a), upload(device, b), upload(device, c));
        let result = call(&a_buf, &b_buf, &mut c_buf);
        device.queue.finish().unwrap();
        (result, download(device, &c_buf, c.len()))
    }

    /// Checks C after C = alpha op(A) op(B) + beta C against the f64 reference.
    fn check(&self, got: &[f32], (alpha, beta): (f32, f32)) -> Result<(), String> {
        let [a, b, c] = &self.host;
        check(&self.spec, got, c, &reference(&self.spec, alpha, a, b, beta, c))
    }

    /// Checks that C holds exactly what it held before.
    fn unchanged(&self, got: &[f32]) -> bool {
        got.iter().zip(&self.host[2]).all(|(g, c)| g.to_bits() == c.to_bits())
    }
}

const ALPHA_BETA: (f32, f32) = (1.5, -0.75);

/// A GEMM through the tree's choice, as a user calls it.
fn auto(device: &DefaultDevice, small: &Small) -> (fewfit::Result<()>, Vec<f32>) {
    let (alpha, beta) = ALPHA_BETA;
    small.run(device, |a, b, c| {
        gemm(&device.queue, &small.spec, alpha, a, b, beta, c, &[]).map(|event| event.wait().unwrap())
    })
}

#[test]
fn a_build_that_fails_with_an_opencl_error_is_kept_a_while_then_built_again() {
    let _turn = turn();
    let Some(device) = device() else { return };
    let small = Small::new(GemmSpec::row_major(37, 29, 41), 1);
    release_engines();
    // The first build of a new engine is the helpers' program, before any variant.
    inject(FaultPoint::Build, 1, CL_OUT_OF_RESOURCES);
    let (first, c) = auto(device, &small);
    assert!(matches!(first, Err(Error::OpenCl { code: CL_OUT_OF_RESOURCES, .. })), "{first:?}");
    assert!(small.unchanged(&c), "a failed build must leave C untouched");
    let builds = build_stats();
    let (kept, c) = auto(device, &small);
    assert!(matches!(kept, Err(Error::OpenCl { code: CL_OUT_OF_RESOURCES, .. })), "{kept:?}");
    assert_eq!(build_stats(), builds, "within the retry delay the failure is reported without building");
    assert!(small.unchanged(&c));
    std::thread::sleep(PAST_RETRY);
    let (later, c) = auto(device, &small);
    later.unwrap();
    small.check(&c, ALPHA_BETA).unwrap();
}

#[test]
fn a_variant_whose_build_failed_falls_back_then_is_built_again() {
    let _turn = turn();
    let Some(device) = device() else { return };
    release_engines();
    let engine = Engine::for_queue(device.queue.get()).unwrap();
    let reachable = fewfit::tuning::reachable(engine.info.class, Precision::F32);
    // Build 1 is the helpers'; build 2 is one of the variants the tree can pick.
    inject(FaultPoint::Build, 2, CL_OUT_OF_RESOURCES);
    engine.warm_up(Precision::F32).unwrap();
    assert!(!is_armed(FaultPoint::Build), "the fault was not reached");
    let replaced =
        |engine: &Engine| reachable.iter().filter(|&&id| engine.resolve(id, Precision::F32).unwrap() != id).count();
    assert_eq!(replaced(&engine), 1, "the variant that failed runs its fallback meanwhile");
    let small = Small::new(GemmSpec::row_major(33, 65, 17), 2);
    let (result, c) = auto(device, &small);
    result.unwrap();
    small.check(&c, ALPHA_BETA).unwrap();
    std::thread::sleep(PAST_RETRY);
    assert_eq!(replaced(&engine), 0, "once the delay has passed, the variant is built again");
}

#[test]
fn a_failed_enqueue_leaves_c_untouched() {
    let _turn = turn();
    let Some(device) = device() else { return };
    for spec in [
        GemmSpec::row_major(64, 48, 40),
        GemmSpec::new(Layout::ColumnMajor, Transpose::Yes, Transpose::No, 5, 300, 7).with_offsets(3, 1, 4),
    ] {
        let small = Small::new(spec, 3);
        // Built first, so that the fault hits the GEMM's enqueue.
        Engine::for_queue(device.queue.get()).unwrap().warm_up(Precision::F32).unwrap();
        inject(FaultPoint::Enqueue, 1, CL_OUT_OF_RESOURCES);
        let (result, c) = auto(device, &small);
        assert!(matches!(result, Err(Error::OpenCl { code: CL_OUT_OF_RESOURCES, .. })), "{result:?}");
        assert!(small.unchanged(&c), "{spec:?}: a failed enqueue must leave C untouched");
        let (result, c) = auto(device, &small);
        result.unwrap();
        small.check(&c, ALPHA_BETA).unwrap();
    }
}

/// A 32 x 32 tiled variant that splits K in two (KSPLIT = 2).
fn split_k_variant() -> Variant {
    xgemm(&[("KSPLIT", 2)]).with_neutral_defaults()
}

#[test]
fn a_split_k_launch_fails_before_c_is_scaled_or_leaves_it_scaled_by_beta() {
    let _turn = turn();
    let Some(device) = device() else { return };
    let engine = Engine::for_queue(device.queue.get()).unwrap();
    let variant = CompiledVariant::build(&engine, &split_k_variant(), Precision::F32).unwrap();
    let small = Small::new(GemmSpec::row_major(40, 56, 300), 4);
    let (alpha, beta) = ALPHA_BETA;
    let launch = |small: &Small| {
        small.run(device, |a, b, c| {
            variant.enqueue_gemm(&device.queue, &small.spec, alpha, a, b, beta, c, &[]).map(|event| {
                event.wait().unwrap();
            })
        })
    };
    // Where the device's atomic add needs C scaled first, that is the launch's first enqueue.
    inject(FaultPoint::Enqueue, 2, CL_OUT_OF_RESOURCES);
    let (result, c) = launch(&small);
    if is_armed(FaultPoint::Enqueue) {
        disarm();
        result.unwrap();
        eprintln!("Skipping: {} adds split-K parts without scaling C first", device.info.name);
        return;
    }
    assert!(matches!(result, Err(Error::OpenCl { code: CL_OUT_OF_RESOURCES, .. })), "{result:?}");
    // The documented exception: the kernel's enqueue failed after C = beta * C was enqueued.
    let spec = &small.spec;
    let c0 = &small.host[2];
    let mut scaled = c0.clone();
    for i in 0..spec.m {
        for j in 0..spec.n {
            let idx = c_index(spec, i, j);
            scaled[idx] = beta * c0[idx];
        }
    }
    assert!(c.iter().zip(&scaled).all(|(g, s)| g.to_bits() == s.to_bits()), "C must hold beta * C");
    // A failure of the scaling itself leaves C untouched.
    inject(FaultPoint::Enqueue, 1, CL_OUT_OF_RESOURCES);
    let (result, c) = launch(&small);
    assert!(result.is_err() && small.unchanged(&c));
    let (result, c) = launch(&small);
    result.unwrap();
    small.check(&c, ALPHA_BETA).unwrap();
}

/// A variant of the set that copies B transposed first in large launches, and the smallest shape
/// where it does, column-major with B contiguous along K (so that A is not copied).
fn copying_case() -> Option<(VariantId, GemmSpec)> {
    let id = VariantId::ALL
        .into_iter()
        .find(|id| id.info().family == Family::Xgemm && id.variant().geometry().transposing_stores[1])?;
    let mn = TRANSPOSE_MIN_OTHER + 17;
    let k = TRANSPOSE_MIN_MADDS.div_ceil(mn * mn) + 35;
    Some((id, GemmSpec::new(Layout::ColumnMajor, Transpose::No, Transpose::No, mn, mn + 6, k)))
}

/// Checks C on its edges and 500 random elements against the reference (the whole reference of a
/// product this large is too slow), and that nothing past C changed.
fn check_sampled(small: &Small, got: &[f32]) -> Result<(), String> {
    let (spec, [a, b, c0]) = (&small.spec, &small.host);
    let (alpha, beta) = ALPHA_BETA;
    let mut elements: Vec<(usize, usize)> = (0..spec.n).flat_map(|j| [(0, j), (spec.m - 1, j)]).collect();
    elements.extend((0..500).map(|t| ((t * 7919) % spec.m, (t * 104_729) % spec.n)));
    let expected: Vec<_> = elements.iter().map(|&(i, j)| reference_at(spec, alpha, a, b, beta, c0, i, j)).collect();
    let sampled: Vec<usize> = expected.iter().map(|e| e.0).collect();
    // Elements of C not sampled are compared with the reference's bound only where sampled.
    let mut masked = got.to_vec();
    for i in 0..spec.m {
        for j in 0..spec.n {
            let idx = c_index(spec, i, j);
            if !sampled.contains(&idx) {
                masked[idx] = c0[idx];
            }
        }
    }
    check(spec, &masked, c0, &expected)
}

#[test]
fn a_scratch_buffer_refused_at_allocation_or_first_use_leaves_the_launch_without_the_copy() {
    let _turn = turn();
    let Some(device) = device() else { return };
    let engine = Engine::for_queue(device.queue.get()).unwrap();
    if engine.info.max_work_group_size < 256 {
        eprintln!("Skipping: {} runs no 32 x 8 work-groups, so nothing is copied first", device.info.name);
        return;
    }
    let Some((id, spec)) = copying_case() else {
        eprintln!("Skipping: no variant of the set copies B transposed");
        return;
    };
    let small = Small::new(spec, 5);
    let (alpha, beta) = ALPHA_BETA;
    let forced = |small: &Small| {
        small.run(device, |a, b, c| {
            gemm_with(&device.queue, &small.spec, alpha, a, b, beta, c, &[], Selection::Forced(id))
                .map(|event| event.wait().unwrap())
        })
    };
    engine.warm_up(Precision::F32).unwrap();
    engine.resolve(id, Precision::F32).unwrap();
    // Without a fault the launch copies B into a scratch buffer that the engine keeps.
    engine.release_scratch().unwrap();
    let (result, c) = forced(&small);
    result.unwrap();
    check_sampled(&small, &c).unwrap();
    assert!(engine.release_scratch().unwrap() > 0, "{id} should have copied B at {spec:?}");
    for (point, code) in
        [(FaultPoint::Allocation, CL_OUT_OF_RESOURCES), (FaultPoint::Enqueue, CL_MEM_OBJECT_ALLOCATION_FAILURE)]
    {
        inject(point, 1, code);
        let (result, c) = forced(&small);
        assert!(!is_armed(point), "{point:?}: the fault was not reached");
        result.unwrap_or_else(|e| panic!("{point:?}: {e}"));
        check_sampled(&small, &c).unwrap_or_else(|e| panic!("{point:?}: {e}"));
        assert_eq!(engine.release_scratch().unwrap(), 0, "{point:?}: the refused buffer must leave the pool");
    }
}

#[test]
fn a_failed_item_of_an_array_batch_leaves_the_earlier_items_done_and_the_rest_untouched() {
    let _turn = turn();
    let Some(device) = device() else { return };
    Engine::for_queue(device.queue.get()).unwrap().warm_up(Precision::F32).unwrap();
    // Four 9 x 7 x 5 items, row-major; different alphas make CLBlast's array form launch per item.
    let spec = GemmSpec::row_major(9, 7, 5);
    let (a_len, b_len, c_len) = (9 * 5, 5 * 7, 9 * 7);
    let small = Small {
        spec,
        host: [random::<f32>(4 * a_len, 6), random::<f32>(4 * b_len, 7), random::<f32>(4 * c_len + 3, 8)],
    };
    let alphas = [1.0f32, 2.0, 3.0, 4.0];
    let betas = [0.5f32; 4];
    let offsets = |len: usize| [0, len, 2 * len, 3 * len];
    let (a_offsets, b_offsets, c_offsets) = (offsets(a_len), offsets(b_len), offsets(c_len));
    // The third item's enqueue fails.
    inject(FaultPoint::Enqueue, 3, CL_OUT_OF_RESOURCES);
    let (status, c) = small.run(device, |a, b, c| {
        use opencl3::memory::ClMem;
        let mut queue = device.queue.get();
        // SAFETY: the buffers and queue are valid, the arrays hold 4 items each.
        unsafe {
            fewfit::capi::FewfitSgemmBatched(
                101, // row-major
                111, // no transpose
                111,
                9,
                7,
                5,
                alphas.as_ptr(),
                a.get(),
                a_offsets.as_ptr(),
                5,
                b.get(),
                b_offsets.as_ptr(),
                7,
                betas.as_ptr(),
                c.get(),
                c_offsets.as_ptr(),
                7,
                4,
                &mut queue,
                std::ptr::null_mut(),
            )
        }
    });
    assert_eq!(status, CL_OUT_OF_RESOURCES, "the failed enqueue's status");
    let [a, b, c0] = &small.host;
    for item in 0..4 {
        let shifted = spec.with_offsets(a_offsets[item], b_offsets[item], c_offsets[item]);
        let range = c_offsets[item]..c_offsets[item] + c_len;
        if item < 2 {
            let expected = reference(&shifted, alphas[item], a, b, betas[item], c0);
            for (idx, want, bound) in expected {
                assert!((c[idx] as f64 - want).abs() <= bound, "item {item} ran before the failure: C[{idx}]");
            }
        } else {
            let same = c[range.clone()].iter().zip(&c0[range]).all(|(g, o)| g.to_bits() == o.to_bits());
            assert!(same, "item {item}, from the failed one on, must be untouched");
        }
    }
    assert!(c[4 * c_len..].iter().zip(&c0[4 * c_len..]).all(|(g, o)| g.to_bits() == o.to_bits()));
}
