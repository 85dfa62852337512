//! Bad input gets its typed error before any device work and leaves C byte-identical; the BLAS
//! quick returns (m = 0, n = 0, k = 0, alpha = 0) behave as BLAS says.

mod common;

use common::*;
use fewfit::{gemm, gemm_host, DefaultDevice, Error, GemmSpec, Layout, Transpose};
use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::device::Device;

fn assert_invalid(result: fewfit::Result<()>, name: &str) {
    match result {
        Err(Error::InvalidArgument { name: got, .. }) => assert_eq!(got, name),
        other => panic!("expected InvalidArgument({name}), got {other:?}"),
    }
}

/// Runs a GEMM on device buffers holding a, b and c, returning the result and C afterwards.
fn run_device(
    device: &DefaultDevice,
    spec: &GemmSpec,
    alpha: f32,
    a: &[f32],
    b: &[f32],
    beta: f32,
    c: &[f32],
) -> (fewfit::Result<()>, Vec<f32>) {
    let (a_buf, b_buf) = (upload(device, a), upload(device, b));
    let mut c_buf = upload(device, c);
    let result = gemm(&device.queue, spec, alpha, &a_buf, &b_buf, beta, &mut c_buf, &[]).map(|e| e.wait().unwrap());
    (result, download(device, &c_buf, c.len()))
}

#[test]
fn bad_arguments_return_typed_errors_and_leave_c_untouched() {
    let Some(device) = device() else { return };
    let good = GemmSpec::row_major(8, 9, 10);
    let a = random::<f32>(80, 1);
    let b = random::<f32>(90, 2);
    let c = random::<f32>(72, 3);
    let cases: Vec<(GemmSpec, usize, usize, usize, &str)> = vec![
        (good.with_ld(9, 9, 9), 80, 90, 72, "lda"),
        (good.with_ld(10, 8, 9), 80, 90, 72, "ldb"),
        (good.with_ld(10, 9, 8), 80, 90, 72, "ldc"),
        (good, 79, 90, 72, "a buffer"),
        (good, 80, 89, 72, "b buffer"),
        (good, 80, 90, 71, "c buffer"),
        (good.with_offsets(0, 0, 1), 80, 90, 72, "c buffer"),
        (good.with_offsets(usize::MAX - 3, 0, 0), 80, 90, 72, "a buffer"),
        (good.with_ld(usize::MAX / 2, 9, 9), 80, 90, 72, "a buffer"),
        (GemmSpec::row_major(1 << 31, 1, 1), 80, 90, 72, "m"),
        // Within 2^16 of 2^31 a tile's rows past the edge of C would overflow the kernels' ints.
        (GemmSpec::row_major(8, (1 << 31) - 100, 10), 80, 90, 72, "n"),
        (
            GemmSpec::new(Layout::ColumnMajor, Transpose::Yes, Transpose::No, 8, 9, 10).with_ld(9, 10, 8),
            80,
            90,
            72,
            "lda",
        ),
    ];
    for (spec, la, lb, lc, name) in cases {
        let (result, after) = run_device(device, &spec, 1.0, &a[..la], &b[..lb], 0.5, &c[..lc]);
        assert_invalid(result, name);
        assert_eq!(after, &c[..lc], "C changed after a rejected call: {spec:?}");
        let mut host_c = c[..lc].to_vec();
        assert_invalid(gemm_host(&spec, 1.0, &a[..la], &b[..lb], 0.5, &mut host_c), name);
        assert_eq!(host_c, &c[..lc]);
    }
}

#[test]
fn f64_without_fp64_is_unavailable_and_with_fp64_works() {
    let Some(device) = device() else { return };
    let spec = GemmSpec::row_major(3, 4, 5);
    let (a, b) = (random::<f64>(15, 1), random::<f64>(20, 2));
    let mut c = vec![0.0f64; 12];
    let result = gemm_host(&spec, 1.0, &a, &b, 0.0, &mut c);
    if device.info.fp64 {
        result.unwrap();
    } else {
        assert!(matches!(result, Err(Error::Unavailable { .. })), "{result:?}");
    }
}

#[test]
fn quick_returns_follow_blas() {
    let Some(device) = device() else { return };
    let c = random::<f32>(12, 3);
    // m = 0 or n = 0: nothing happens, whatever the buffers hold.
    for spec in [GemmSpec::row_major(0, 4, 5), GemmSpec::row_major(3, 0, 5)] {
        let (r, after) = run_device(device, &spec, 1.0, &[1.0], &[1.0], 0.0, &c);
        r.unwrap();
        assert_eq!(after, c);
    }
    // k = 0 and alpha = 0: C = beta * C, and A and B are not read (NaN there changes nothing).
    let nan = vec![f32::NAN; 20];
    for (spec, alpha) in [(GemmSpec::row_major(3, 4, 0), 1.0), (GemmSpec::row_major(3, 4, 5), 0.0)] {
        let (r, after) = run_device(device, &spec, alpha, &nan, &nan, 2.0, &c);
        r.unwrap();
        let want: Vec<f32> = c.iter().map(|x| 2.0 * x).collect();
        assert_eq!(after, want);
    }
    // beta = 0 overwrites C even where it holds NaN.
    let (r, after) = run_device(device, &GemmSpec::row_major(3, 4, 0), 1.0, &[], &[], 0.0, &[f32::NAN; 12]);
    r.unwrap();
    assert_eq!(after, vec![0.0; 12]);
}

#[test]
fn overlapping_batch_items_are_rejected() {
    let Some(device) = device() else { return };
    let spec = GemmSpec::row_major(4, 5, 6).with_batch(3, 24, 30, 19);
    let (a, b, c) = (random::<f32>(72, 1), random::<f32>(90, 2), random::<f32>(60, 3));
    let (result, after) = run_device(device, &spec, 1.0, &a, &b, 0.0, &c);
    assert_invalid(result, "c_batch_stride");
    assert_eq!(after, c);
    let too_short = GemmSpec::row_major(4, 5, 6).with_batch(3, 24, 30, 20);
    let (result, after) = run_device(device, &too_short, 1.0, &a[..71], &b, 0.0, &c);
    assert_invalid(result, "a buffer");
    assert_eq!(after, c);
}

#[test]
fn buffers_of_another_context_are_rejected() {
    let Some(device) = device() else { return };
    // A queue of a second context on the same device; the buffers belong to the first.
    let other = Context::from_device(&Device::new(device.context.devices()[0])).unwrap();
    #[allow(deprecated)]
    let queue = CommandQueue::create_default(&other, 0).unwrap();
    let spec = GemmSpec::row_major(8, 9, 10);
    let (a, b, c) = (random::<f32>(80, 1), random::<f32>(90, 2), random::<f32>(72, 3));
    let (a_buf, b_buf) = (upload(device, &a), upload(device, &b));
    let mut c_buf = upload(device, &c);
    // alpha = 0 reads neither A nor B: C is the first buffer checked.
    for (alpha, name) in [(1.0, "a buffer"), (0.0, "c buffer")] {
        let result = gemm(&queue, &spec, alpha, &a_buf, &b_buf, 0.5, &mut c_buf, &[]).map(|e| e.wait().unwrap());
        assert_invalid(result, name);
        assert_eq!(download(device, &c_buf, c.len()), c);
    }
}
