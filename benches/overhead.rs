//! Per-call host overhead of a GEMM (argument checks + selection + enqueue, the queue not
//! finished) on the default device, over a stream of small varied shapes. The queue is drained
//! outside the timed region every batch.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use fewfit::{gemm, DefaultDevice, Engine, GemmSpec, Precision};
use opencl3::memory::{Buffer, CL_MEM_READ_WRITE};

const BATCH: usize = 64;

fn bench(c: &mut Criterion) {
    let device = DefaultDevice::get().expect("an OpenCL device");
    Engine::for_queue(device.queue.get()).unwrap().warm_up(Precision::F32).unwrap();
    let make = |len: usize| unsafe {
        Buffer::<f32>::create(&device.context, CL_MEM_READ_WRITE, len, std::ptr::null_mut()).unwrap()
    };
    let (a, b, mut out) = (make(64 * 64), make(64 * 64), make(64 * 64));
    let specs: Vec<GemmSpec> =
        (0..BATCH).map(|i| GemmSpec::row_major(1 + i % 17, 1 + (i * 7) % 61, 1 + (i * 5) % 63)).collect();
    c.bench_function(&format!("overhead/{}", device.info.name), |bench| {
        bench.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            let mut done = 0;
            while done < iters {
                let t = Instant::now();
                for spec in specs.iter().take((iters - done).min(BATCH as u64) as usize) {
                    black_box(gemm(&device.queue, spec, 1.0, &a, &b, 0.0, &mut out, &[]).unwrap());
                }
                total += t.elapsed();
                done += (iters - done).min(BATCH as u64);
                device.queue.finish().unwrap();
            }
            total
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
