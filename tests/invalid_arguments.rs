//! CLBlast's "invalid" runs through the Rust API, as generated cross products: every layout, pair
//! of transposes and small shape, tight and padded (leading dimensions 2 past the least, offsets
//! 1, 2 and 3). Each operand in turn gets a buffer of 0 elements (host slices) or 1 (device
//! buffers), one element short of what it needs, an offset one too far, a leading dimension one
//! below the least, and an offset or leading dimension that overflows. Each call must return
//! `Error::InvalidArgument` naming that argument and leave C bit for bit as it was: C's buffer is
//! poisoned with NaNs whose payloads count its elements. The exact sizes run, and C must match the
//! f64 reference inside and keep its poison outside (padding and offset included); so must the
//! valid extremes: a huge leading dimension of a one-line matrix, huge strides of a batch of one,
//! alpha = 0 with A and B of any length, a batch of none. The strided batch gets the same through
//! its strides, and M, N, K and the batch count are tried at the largest value the kernels take and
//! one past it. The C ABI's counterpart is
//! `tests/c/invalid_args_test.c` (run by `tests/capi.rs`).

mod common;

use common::{batch_reference, check, download, random, upload};
use fewfit::{gemm, gemm_host, gemm_no_event, DefaultDevice, Error, GemmSpec, Layout, Transpose};

const LAYOUTS: [Layout; 2] = [Layout::RowMajor, Layout::ColumnMajor];
const TRANSPOSES: [Transpose; 2] = [Transpose::No, Transpose::Yes];
/// (m, n, k): all ones (every leading dimension at its floor of 1), then two shapes whose
/// dimensions all differ, so that a swapped dimension shows.
const SHAPES: [(usize, usize, usize); 3] = [(1, 1, 1), (3, 5, 2), (6, 2, 7)];
/// The largest M, N or K the kernels take: 2^31 - 1 less 2^16 (`MAX_DIM` in src/spec.rs).
const MAX_DIM: usize = i32::MAX as usize - (1 << 16);
/// Each matrix's buffer and leading-dimension argument names, as `Error::InvalidArgument` gives them.
const NAMES: [(&str, &str); 3] = [("a buffer", "lda"), ("b buffer", "ldb"), ("c buffer", "ldc")];
/// alpha of the runs that multiply (beta alternates between 0 and -0.5).
const ALPHA: f32 = 1.5;

/// (lines, line length) of a stored `rows` x `cols` matrix used as op(X) with `trans`: computed
/// here, apart from the library's `GemmSpec::a_dims`, which the cases check.
fn stored(layout: Layout, trans: Transpose, rows: usize, cols: usize) -> (usize, usize) {
    let (r, c) = if trans == Transpose::Yes { (cols, rows) } else { (rows, cols) };
    match layout {
        Layout::RowMajor => (r, c),
        Layout::ColumnMajor => (c, r),
    }
}

/// Matrix `x` (0, 1, 2: A, B, C) of `spec`: its stored (lines, line length), offset, leading
/// dimension and batch stride.
fn matrix(spec: &GemmSpec, x: usize) -> ((usize, usize), usize, usize, usize) {
    match x {
        0 => (stored(spec.layout, spec.trans_a, spec.m, spec.k), spec.a_offset, spec.lda, spec.a_batch_stride),
        1 => (stored(spec.layout, spec.trans_b, spec.k, spec.n), spec.b_offset, spec.ldb, spec.b_batch_stride),
        _ => (stored(spec.layout, Transpose::No, spec.m, spec.n), spec.c_offset, spec.ldc, spec.c_batch_stride),
    }
}

/// The elements matrix `x`'s buffer needs: its last batch item's offset plus its span (saturating
/// where that overflows).
fn needed(spec: &GemmSpec, x: usize) -> usize {
    let ((lines, len), offset, ld, stride) = matrix(spec, x);
    let last = stride.saturating_mul(spec.batch_count.saturating_sub(1)).saturating_add(offset);
    match (lines, len) {
        (0, _) | (_, 0) => last,
        _ => (lines - 1).saturating_mul(ld).saturating_add(len).saturating_add(last),
    }
}

/// `spec` with matrix `x`'s offset, leading dimension or batch stride set.
fn set(mut spec: GemmSpec, x: usize, field: Field, value: usize) -> GemmSpec {
    let slot = match (field, x) {
        (Field::Offset, 0) => &mut spec.a_offset,
        (Field::Offset, 1) => &mut spec.b_offset,
        (Field::Offset, _) => &mut spec.c_offset,
        (Field::Ld, 0) => &mut spec.lda,
        (Field::Ld, 1) => &mut spec.ldb,
        (Field::Ld, _) => &mut spec.ldc,
        (Field::Stride, 0) => &mut spec.a_batch_stride,
        (Field::Stride, 1) => &mut spec.b_batch_stride,
        (Field::Stride, _) => &mut spec.c_batch_stride,
    };
    *slot = value;
    spec
}

#[derive(Clone, Copy)]
enum Field {
    Offset,
    Ld,
    Stride,
}

/// Which API a case goes through: host slices (lengths may be 0) or device buffers (at least 1).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Through {
    Host,
    Device,
    Both,
}

/// One generated call: the spec, alpha and beta, the buffers' lengths in elements, and the
/// argument `Error::InvalidArgument` must name (None: the call must succeed).
struct Case {
    what: String,
    spec: GemmSpec,
    alpha: f32,
    beta: f32,
    lengths: [usize; 3],
    expect: Option<&'static str>,
    through: Through,
}

/// A quiet NaN whose payload is `i + 1` (below 2^22): bit-distinct per element, so that a stray
/// write, even of a NaN, or a shifted copy shows.
fn poison(i: usize) -> f32 {
    f32::from_bits(0x7fc0_0000 | ((i as u32 + 1) & 0x3f_ffff))
}

/// C's buffer before a call: all poison, with C's own elements (every batch item's) random where
/// beta reads them; where beta = 0 they stay NaN, which the result must overwrite.
fn poisoned_c(spec: &GemmSpec, len: usize, beta: f32, seed: u64) -> Vec<f32> {
    let mut c: Vec<f32> = (0..len).map(poison).collect();
    if beta != 0.0 && len >= needed(spec, 2) {
        let values = random::<f32>(len, seed);
        for item in 0..spec.batch_count {
            let shifted = spec.with_offsets(0, 0, spec.c_offset + item * spec.c_batch_stride);
            for i in 0..spec.m {
                for j in 0..spec.n {
                    let idx = common::c_index(&shifted, i, j);
                    c[idx] = values[idx];
                }
            }
        }
    }
    c
}

fn same_bits(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// Checks a call's result: the named `InvalidArgument` and C unchanged, or success and C right
/// (every batch item against the reference, everything else still poison).
fn verify(case: &Case, result: fewfit::Result<()>, [a, b, c0]: &[Vec<f32>; 3], got: &[f32], how: &str) {
    let what = format!(
        "{how}, {}: {:?} alpha {} beta {} lengths {:?}",
        case.what, case.spec, case.alpha, case.beta, case.lengths
    );
    match (case.expect, result) {
        (Some(name), Err(Error::InvalidArgument { name: got_name, .. })) => {
            assert_eq!(got_name, name, "{what}: the wrong argument named");
            assert!(same_bits(got, c0), "{what}: C changed by a call that failed");
        }
        (Some(name), other) => panic!("{what}: expected InvalidArgument({name}), got {other:?}"),
        (None, Err(e)) => panic!("{what}: failed: {e}"),
        (None, Ok(())) => {
            let expected = batch_reference(&case.spec, case.alpha, a, b, case.beta, c0);
            check(&case.spec, got, c0, &expected).unwrap_or_else(|e| panic!("{what}: {e}"));
        }
    }
}

/// Runs a case through the APIs it names: `gemm` and `gemm_no_event` on device buffers, and
/// `gemm_host` on slices. Returns the calls made.
fn run(device: &DefaultDevice, case: &Case, seed: u64) -> usize {
    let [la, lb, lc] = case.lengths;
    let data = [random::<f32>(la, seed), random::<f32>(lb, seed + 1), poisoned_c(&case.spec, lc, case.beta, seed + 2)];
    let mut calls = 0;
    if case.through != Through::Host {
        assert!(case.lengths.iter().all(|&l| l > 0), "{}: a device buffer holds at least 1 element", case.what);
        let (a_buf, b_buf) = (upload(device, &data[0]), upload(device, &data[1]));
        let mut c_buf = upload(device, &data[2]);
        let (spec, alpha, beta) = (&case.spec, case.alpha, case.beta);
        let result = gemm(&device.queue, spec, alpha, &a_buf, &b_buf, beta, &mut c_buf, &[]).map(|e| e.wait().unwrap());
        verify(case, result, &data, &download(device, &c_buf, lc), "gemm");
        calls += 1;
        if case.expect.is_some() {
            let result = gemm_no_event(&device.queue, spec, alpha, &a_buf, &b_buf, beta, &mut c_buf, &[]);
            device.queue.finish().unwrap();
            verify(case, result, &data, &download(device, &c_buf, lc), "gemm_no_event");
            calls += 1;
        }
    }
    if case.through != Through::Device {
        let mut c = data[2].clone();
        let result = gemm_host(&case.spec, case.alpha, &data[0], &data[1], case.beta, &mut c);
        verify(case, result, &data, &c, "gemm_host");
        calls += 1;
    }
    calls
}

/// The cases of one valid spec (plain or strided batch): the exact lengths (success), then each
/// matrix's faults one at a time, each with the argument it must name.
fn cases_of(spec: GemmSpec, beta: f32) -> Vec<Case> {
    let exact = [0, 1, 2].map(|x| needed(&spec, x));
    let required = spec.required_lengths(false).expect("a valid spec");
    assert_eq!(required, exact, "the library's required lengths differ from the test's: {spec:?}");
    let case = |what: String, spec, alpha, lengths, expect, through| Case {
        what,
        spec,
        alpha,
        beta,
        lengths,
        expect,
        through,
    };
    let mut cases = vec![case("exact".into(), spec, ALPHA, exact, None, Through::Both)];
    // alpha = 0 reads neither A nor B (BLAS), so theirs may be of any length: C = beta * C.
    let (mut tiny_ab, mut empty_ab) = (exact, exact);
    (tiny_ab[0], tiny_ab[1], empty_ab[0], empty_ab[1]) = (1, 1, 0, 0);
    cases.push(case("alpha 0, A and B of 1".into(), spec, 0.0, tiny_ab, None, Through::Device));
    cases.push(case("alpha 0, A and B of 0".into(), spec, 0.0, empty_ab, None, Through::Host));
    let batched = spec.batch_count > 1;
    for (x, (buffer, ld_name)) in NAMES.into_iter().enumerate() {
        let ((lines, len), offset, ld, stride) = matrix(&spec, x);
        let with_length = |l: usize| {
            let mut lengths = exact;
            lengths[x] = l;
            lengths
        };
        cases.push(case(format!("{buffer} of 0"), spec, ALPHA, with_length(0), Some(buffer), Through::Host));
        if exact[x] > 1 {
            cases.push(case(format!("{buffer} of 1"), spec, ALPHA, with_length(1), Some(buffer), Through::Both));
        }
        if exact[x] > 2 {
            let short = with_length(exact[x] - 1);
            cases.push(case(format!("{buffer} one short"), spec, ALPHA, short, Some(buffer), Through::Both));
        }
        let past = set(spec, x, Field::Offset, offset + 1);
        cases.push(case(format!("{buffer}: offset one too far"), past, ALPHA, exact, Some(buffer), Through::Both));
        let over = set(spec, x, Field::Offset, usize::MAX - 1);
        cases.push(case(format!("{buffer}: offset overflows"), over, ALPHA, exact, Some(buffer), Through::Both));
        let below = set(spec, x, Field::Ld, len.max(1) - 1);
        cases.push(case(format!("{ld_name} one below the least"), below, ALPHA, exact, Some(ld_name), Through::Both));
        if lines > 1 {
            // A batch's items move apart as much, so that C's items stay apart.
            let wide = set(spec, x, Field::Ld, ld + 1);
            let wide = if batched { set(wide, x, Field::Stride, stride + lines - 1) } else { wide };
            cases.push(case(format!("{ld_name} one past the buffer"), wide, ALPHA, exact, Some(buffer), Through::Both));
            let huge = set(spec, x, Field::Ld, usize::MAX / 2);
            cases.push(case(format!("{ld_name} overflows"), huge, ALPHA, exact, Some(buffer), Through::Both));
        } else {
            // The leading dimension of a matrix of one line steps to no element: any value at least
            // the line's length is valid, and the kernels' 32-bit ints must not see it.
            let huge = set(spec, x, Field::Ld, usize::MAX / 2);
            cases.push(case(format!("{ld_name} huge on one line"), huge, ALPHA, exact, None, Through::Both));
        }
        if batched {
            let wider = set(spec, x, Field::Stride, stride + 1);
            cases.push(case(
                format!("{buffer}: stride one too long"),
                wider,
                ALPHA,
                exact,
                Some(buffer),
                Through::Both,
            ));
            let huge = set(spec, x, Field::Stride, usize::MAX / 2);
            cases.push(case(format!("{buffer}: stride overflows"), huge, ALPHA, exact, Some(buffer), Through::Both));
        }
    }
    if !batched {
        // A batch of one item steps by no stride: any stride is valid.
        let one = spec.with_batch(1, usize::MAX, usize::MAX / 2, usize::MAX);
        cases.push(case("batch of 1 with huge strides".into(), one, ALPHA, exact, None, Through::Both));
    }
    if batched {
        // C's items one element closer than its span: items 0 and 1 share an element.
        let ((lines, len), _, ldc, _) = matrix(&spec, 2);
        let span = (lines - 1) * ldc + len;
        let overlap = set(spec, 2, Field::Stride, span - 1);
        cases.push(case("C items overlap".into(), overlap, ALPHA, exact, Some("c_batch_stride"), Through::Both));
        let same = set(spec, 2, Field::Stride, 0);
        cases.push(case("C items coincide".into(), same, ALPHA, exact, Some("c_batch_stride"), Through::Both));
        // A batch of none touches nothing, whatever the buffers hold.
        let none = spec.with_batch(0, spec.a_batch_stride, spec.b_batch_stride, spec.c_batch_stride);
        cases.push(case("batch of 0".into(), none, ALPHA, [1, 1, 1], None, Through::Both));
    }
    cases
}

/// Every layout, pair of transposes and shape: a tight spec, and one with leading dimensions 2
/// past the least and offsets 1, 2 and 3.
fn specs() -> Vec<GemmSpec> {
    let mut specs = Vec::new();
    for layout in LAYOUTS {
        for trans_a in TRANSPOSES {
            for trans_b in TRANSPOSES {
                for (m, n, k) in SHAPES {
                    let tight = GemmSpec::new(layout, trans_a, trans_b, m, n, k);
                    specs.push(tight);
                    specs.push(tight.with_ld(tight.lda + 2, tight.ldb + 2, tight.ldc + 2).with_offsets(1, 2, 3));
                }
            }
        }
    }
    specs
}

/// Runs every case, each with its own seed; returns (cases, calls).
fn run_all(device: &DefaultDevice, cases: &[Case]) -> (usize, usize) {
    let calls = cases.iter().enumerate().map(|(i, case)| run(device, case, 10 * i as u64)).sum();
    (cases.len(), calls)
}

#[test]
fn invalid_arguments_cross_product() {
    let Some(device) = common::device() else { return };
    let started = std::time::Instant::now();
    let cases: Vec<Case> = specs()
        .into_iter()
        .enumerate()
        .flat_map(|(i, spec)| cases_of(spec, if i % 2 == 0 { 0.0 } else { -0.5 }))
        .collect();
    let (count, calls) = run_all(device, &cases);
    println!("{count} generated cases, {calls} calls, in {:.2?}", started.elapsed());
}

#[test]
fn strided_batch_invalid_arguments_cross_product() {
    let Some(device) = common::device() else { return };
    let started = std::time::Instant::now();
    // Three items, each matrix's items a gap of 1, 2 or 3 elements past the previous one's span.
    let batched = specs().into_iter().map(|spec| {
        let stride = |x: usize| needed(&spec, x) - matrix(&spec, x).1 + 1 + x;
        spec.with_batch(3, stride(0), stride(1), stride(2))
    });
    let cases: Vec<Case> =
        batched.enumerate().flat_map(|(i, spec)| cases_of(spec, if i % 2 == 0 { -0.5 } else { 0.0 })).collect();
    let (count, calls) = run_all(device, &cases);
    println!("{count} generated cases, {calls} calls, in {:.2?}", started.elapsed());
}

/// M, N and K at the largest value the kernels index (the buffers are then too small) and one past
/// it; the batch count at 2^31 - 1 (C's buffer then too small) and one past it.
#[test]
fn dimensions_and_batch_count_at_the_kernels_limits() {
    let Some(device) = common::device() else { return };
    let case = |what: String, spec, expect| Case {
        what,
        spec,
        alpha: ALPHA,
        beta: 0.0,
        lengths: [1, 1, 1],
        expect: Some(expect),
        through: Through::Both,
    };
    let mut cases = Vec::new();
    for layout in LAYOUTS {
        let dims = |m, n, k| GemmSpec::new(layout, Transpose::No, Transpose::No, m, n, k);
        // At the limit, the first matrix that spans the dimension is too small for it; one past,
        // the dimension is named, before any leading dimension or buffer.
        for (spec, at_limit, past, name) in [
            (dims(MAX_DIM, 1, 1), "a buffer", dims(MAX_DIM + 1, 1, 1), "m"),
            (dims(1, MAX_DIM, 1), "b buffer", dims(1, MAX_DIM + 1, 1), "n"),
            (dims(1, 1, MAX_DIM), "a buffer", dims(1, 1, MAX_DIM + 1), "k"),
        ] {
            cases.push(case(format!("{name} at the limit"), spec, at_limit));
            cases.push(case(format!("{name} one past the limit"), past, name));
        }
    }
    let limit = i32::MAX as usize;
    for (count, expect) in [(limit, "c buffer"), (limit + 1, "batch_count")] {
        let spec = GemmSpec::row_major(1, 1, 1).with_batch(count, 0, 0, 1);
        cases.push(case(format!("batch of {count}"), spec, expect));
    }
    let (count, calls) = run_all(device, &cases);
    println!("{count} generated cases, {calls} calls");
}
