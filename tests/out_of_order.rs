//! GEMMs on an out-of-order queue (`CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE`), where the runtime may
//! run any two commands at once unless an event orders them: through `gemm_no_event` (no event
//! asked for), the commands of one call (C scaled by beta before a launch that splits K adds into
//! it) must still run in order, and `clFinish` must wait for all of them; through the wait list,
//! a GEMM that reads another's C must run after it. Results against the f64 reference, the whole C
//! buffer checked (elements outside C keep their poison). Skipped, saying so, where the device has
//! no out-of-order queue. The C ABI's counterpart (NULL event pointers) is `check_out_of_order` in
//! `tests/c/capi_test.c`; launches that copy an operand transposed first on such a queue are
//! `transposed_copy.rs`'s (their shapes are too large to repeat here).

mod common;

use common::{batch_reference, buffer_len, c_index, check, device, download, random, upload};
use fewfit::tuning::{AtomicAdd, LaunchPolicy};
use fewfit::{chosen_variant, gemm, gemm_no_event, DefaultDevice, DeviceClass, GemmSpec, Layout, Transpose};
use opencl3::command_queue::{CommandQueue, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE};
use opencl3::memory::Buffer;

/// An out-of-order queue on the default device's context, or None, saying why.
fn out_of_order_queue(device: &DefaultDevice) -> Option<CommandQueue> {
    match CommandQueue::create_default_with_properties(&device.context, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0) {
        Ok(queue) => Some(queue),
        Err(e) => {
            eprintln!("Skipping: {} makes no out-of-order queue ({e})", device.info.name);
            None
        }
    }
}

/// Whether the variant the device's tree picks for `spec` splits K (or runs stream-K), by its
/// launch policy, in either orientation of the kernel's problem.
fn splits_k(device: &DefaultDevice, spec: &GemmSpec) -> bool {
    let id = chosen_variant::<f32>(&device.queue, spec).unwrap();
    let g = id.variant().geometry();
    let f = spec.kernel_features();
    let (units, batch) = (device.info.compute_units, spec.batch_count);
    let adds =
        if device.info.class == DeviceClass::NvidiaGpu { AtomicAdd::Reduction } else { AtomicAdd::CompareAndSwap };
    let (m, n, k) = (f.m as usize, f.n as usize, f.k as usize);
    [(m, n), (n, m)].into_iter().any(|(m, n)| {
        g.splits_for(m, n, k, batch, units, adds) > 1 || g.stream_k_groups(m, n, k, batch, units).is_some()
    })
}

/// A quiet NaN whose payload is `i + 1`: bit-distinct per element.
fn poison(i: usize) -> f32 {
    f32::from_bits(0x7fc0_0000 | ((i as u32 + 1) & 0x3f_ffff))
}

/// One GEMM's data on device buffers: A and B random (3 elements past their ends), C's buffer
/// poisoned with C's own elements random where beta reads them (NaN where beta = 0).
struct Run {
    spec: GemmSpec,
    alpha: f32,
    beta: f32,
    a: Vec<f32>,
    b: Vec<f32>,
    c0: Vec<f32>,
    buffers: [Buffer<f32>; 3],
}

impl Run {
    fn new(device: &DefaultDevice, spec: GemmSpec, alpha: f32, beta: f32, seed: u64) -> Run {
        let last = |offset: usize, stride: usize| offset + stride * spec.batch_count.saturating_sub(1);
        let len = |dims, offset, ld, stride| buffer_len(dims, last(offset, stride), ld, 3);
        let a = random::<f32>(len(spec.a_dims(), spec.a_offset, spec.lda, spec.a_batch_stride), seed);
        let b = random::<f32>(len(spec.b_dims(), spec.b_offset, spec.ldb, spec.b_batch_stride), seed + 1);
        let c_len = len(spec.c_dims(), spec.c_offset, spec.ldc, spec.c_batch_stride);
        let mut c0: Vec<f32> = (0..c_len).map(poison).collect();
        let values = random::<f32>(c_len, seed + 2);
        for item in 0..spec.batch_count {
            let one = spec.with_offsets(0, 0, spec.c_offset + item * spec.c_batch_stride);
            for i in 0..spec.m {
                for j in 0..spec.n {
                    let idx = c_index(&one, i, j);
                    c0[idx] = if beta == 0.0 { f32::NAN } else { values[idx] };
                }
            }
        }
        let buffers = [upload(device, &a), upload(device, &b), upload(device, &c0)];
        Run { spec, alpha, beta, a, b, c0, buffers }
    }

    /// Enqueues the GEMM on `queue` after `wait`, asking for no event.
    fn enqueue_no_event(&mut self, queue: &CommandQueue, wait: &[opencl3::types::cl_event]) {
        let [a, b, c] = &mut self.buffers;
        gemm_no_event(queue, &self.spec, self.alpha, a, b, self.beta, c, wait)
            .unwrap_or_else(|e| panic!("{:?}: {e}", self.spec));
    }

    /// C read back (after the queue has finished) and checked against the reference, item by item,
    /// with A taken from `a` (the data A's buffer holds by then).
    fn check(&self, device: &DefaultDevice, a: &[f32], label: &str) {
        let got = download(device, &self.buffers[2], self.c0.len());
        let expected = batch_reference(&self.spec, self.alpha, a, &self.b, self.beta, &self.c0);
        check(&self.spec, &got, &self.c0, &expected).unwrap_or_else(|e| panic!("{label}: {e}"));
    }
}

/// Shapes that go down each path of a launch: a small product, one that splits K (C scaled first,
/// on devices that add by compare-and-swap), padded column-major with both transposes, alpha = 0
/// and K = 0 (C = beta * C alone), a strided batch, and an empty product.
fn specs() -> Vec<(GemmSpec, f32, f32)> {
    let tn = |m, n, k| GemmSpec::new(Layout::RowMajor, Transpose::No, Transpose::Yes, m, n, k);
    let cm = GemmSpec::new(Layout::ColumnMajor, Transpose::Yes, Transpose::Yes, 33, 70, 64);
    vec![
        (tn(17, 9, 13), 1.25, -0.5),
        (tn(64, 64, 4096).with_offsets(3, 4, 5).with_ld(4097, 4098, 66), 1.0, 0.5),
        (tn(64, 64, 4096), 1.5, 0.0),
        (cm.with_ld(cm.lda + 2, cm.ldb + 1, cm.ldc + 3).with_offsets(7, 8, 9), 1.5, 0.0),
        (tn(40, 3, 300), 0.0, 2.0),
        (tn(40, 3, 0), 1.0, -1.0),
        (GemmSpec::row_major(5, 300, 2048), -1.0, 1.0),
        (GemmSpec::row_major(7, 6, 5).with_batch(3, 40, 35, 45), 0.75, 1.5),
        (GemmSpec::row_major(0, 6, 5), 1.0, 0.0),
    ]
}

#[test]
fn gemms_without_events_on_an_out_of_order_queue() {
    let Some(device) = device() else { return };
    let Some(queue) = out_of_order_queue(device) else { return };
    let specs = specs();
    let split = specs.iter().filter(|(spec, alpha, _)| spec.k > 0 && *alpha != 0.0 && splits_k(device, spec)).count();
    if split == 0 {
        eprintln!("note: no shape here splits K on {}: the split path is not covered", device.info.name);
    }
    let mut runs: Vec<Run> = specs
        .into_iter()
        .enumerate()
        .map(|(i, (s, alpha, beta))| Run::new(device, s, alpha, beta, 10 * i as u64))
        .collect();
    for run in &mut runs {
        run.enqueue_no_event(&queue, &[]);
    }
    queue.finish().unwrap();
    for run in &runs {
        run.check(device, &run.a, "no event, out of order");
    }
    println!("{} GEMMs ({split} splitting K) on an out-of-order queue without events", runs.len());
}

/// A chain: C1 = A1 B1 (a launch that splits K), then C2 = C1 B2 and C3 = C1 B3, which read C1 as
/// their A, each after C1's event in its wait list (C2 asking for no event of its own), then
/// C4 = C2 B4 after a marker that waits for everything enqueued before it. C1 and C2 start as NaN
/// (beta = 0), so a GEMM that ran before its input was written would read NaN.
#[test]
fn an_out_of_order_queue_orders_gemms_by_their_wait_lists() {
    let Some(device) = device() else { return };
    let Some(queue) = out_of_order_queue(device) else { return };
    let (m, n, k) = (64, 64, 4096);
    let first = GemmSpec::new(Layout::RowMajor, Transpose::No, Transpose::Yes, m, n, k);
    if !splits_k(device, &first) {
        eprintln!("note: {m}x{n}x{k} does not split K on {}: the split path is not covered", device.info.name);
    }
    let mut c1 = Run::new(device, first, 1.0, 0.0, 1);
    // C1 (m x n, row-major, ldc = n) is the A of C2 and C3; C2 (m x 48) is the A of C4.
    let mut c2 = Run::new(device, GemmSpec::row_major(m, 48, n), 0.5, 0.0, 10);
    let mut c3 = Run::new(device, GemmSpec::row_major(m, 20, n), -1.5, 0.25, 20);
    let mut c4 = Run::new(device, GemmSpec::row_major(m, 9, 48), 2.0, -1.0, 30);

    let [a1, b1, c1_buf] = &mut c1.buffers;
    let e1 = gemm(&queue, &c1.spec, c1.alpha, a1, b1, c1.beta, c1_buf, &[]).unwrap();
    let [_, b2, c2_buf] = &mut c2.buffers;
    gemm_no_event(&queue, &c2.spec, c2.alpha, &c1.buffers[2], b2, c2.beta, c2_buf, &[e1.get()]).unwrap();
    let [_, b3, c3_buf] = &mut c3.buffers;
    let e3 = gemm(&queue, &c3.spec, c3.alpha, &c1.buffers[2], b3, c3.beta, c3_buf, &[e1.get()]).unwrap();
    // C2 has no event: a marker with an empty wait list waits for every command enqueued before it.
    // SAFETY: an empty wait list on a valid queue.
    let marker = unsafe { queue.enqueue_marker_with_wait_list(&[]) }.unwrap();
    let [_, b4, c4_buf] = &mut c4.buffers;
    gemm_no_event(&queue, &c4.spec, c4.alpha, &c2.buffers[2], b4, c4.beta, c4_buf, &[marker.get(), e3.get()]).unwrap();
    queue.finish().unwrap();

    let label = "chain on an out-of-order queue";
    c1.check(device, &c1.a, label);
    let c1_after = download(device, &c1.buffers[2], c1.c0.len());
    c2.check(device, &c1_after, label);
    c3.check(device, &c1_after, label);
    c4.check(device, &download(device, &c2.buffers[2], c2.c0.len()), label);
}
