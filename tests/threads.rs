//! Eight threads sharing one context and queue call GEMM at once and all get correct results.

mod common;

use common::*;
use fewfit::{gemm, GemmSpec};

#[test]
fn eight_threads_share_one_context() {
    let Some(device) = device() else { return };
    std::thread::scope(|s| {
        for t in 0..8u64 {
            s.spawn(move || {
                for round in 0..6u64 {
                    let (m, n, k) = (
                        1 + (t * 7 + round * 13) as usize % 90,
                        1 + (t * 11 + round * 5) as usize % 70,
                        1 + (t * 3 + round * 17) as usize % 80,
                    );
                    let spec = GemmSpec::row_major(m, n, k);
                    let a = random::<f32>(m * k, t * 100 + round);
                    let b = random::<f32>(k * n, t * 100 + round + 50);
                    let c = random::<f32>(m * n, t * 100 + round + 70);
                    let expected = reference(&spec, 1.5f32, &a, &b, 0.25, &c);
                    let (a_buf, b_buf) = (upload(device, &a), upload(device, &b));
                    let mut c_buf = upload(device, &c);
                    gemm(&device.queue, &spec, 1.5, &a_buf, &b_buf, 0.25, &mut c_buf, &[]).unwrap().wait().unwrap();
                    let got = download(device, &c_buf, c.len());
                    check(&spec, &got, &c, &expected).unwrap();
                }
            });
        }
    });
}
