//! Per-call host overhead through the C ABI: `FewfitSgemm` against `CLBlastSgemm` on the same
//! device and queue (argument checks + kernel choice + enqueue, the queue not finished), over a
//! stream of small varied row-major shapes. CLBlast is loaded at run time from libclblast.so.1
//! (Debian's libclblast-dev / libclblast1); where it is absent the bench says so and times fewfit
//! alone. Both are warmed up first (CLBlast compiles its kernels on first use). The queue is
//! drained outside the timed region every batch.

use std::ffi::c_int;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use fewfit::capi::{FewfitSgemm, SgemmFn};
use fewfit::{DefaultDevice, Engine, GemmSpec, Precision};
use opencl3::memory::{Buffer, ClMem, CL_MEM_READ_WRITE};

/// Calls timed between queue drains.
const BATCH: usize = 64;
/// `CLBlastLayoutRowMajor` (the same value in fewfit.h).
const ROW_MAJOR: c_int = 101;
/// `CLBlastTransposeNo`.
const NO_TRANSPOSE: c_int = 111;

fn bench(c: &mut Criterion) {
    let device = DefaultDevice::get().expect("an OpenCL device");
    Engine::for_queue(device.queue.get()).unwrap().warm_up(Precision::F32).unwrap();
    let make = |len: usize| unsafe {
        Buffer::<f32>::create(&device.context, CL_MEM_READ_WRITE, len, std::ptr::null_mut()).unwrap()
    };
    let (a, b, out) = (make(64 * 64), make(64 * 64), make(64 * 64));
    let specs: Vec<GemmSpec> =
        (0..BATCH).map(|i| GemmSpec::row_major(1 + i % 17, 1 + (i * 7) % 61, 1 + (i * 5) % 63)).collect();
    // SAFETY: loading CLBlast runs its initialisers only; the symbol has CLBlastSgemm's C signature.
    let clblast = unsafe { libloading::Library::new("libclblast.so.1") };
    let clblast_sgemm = match &clblast {
        Ok(lib) => Some(*unsafe { lib.get::<SgemmFn>(b"CLBlastSgemm\0") }.expect("CLBlastSgemm in libclblast.so.1")),
        Err(e) => {
            eprintln!("CLBlast not found ({e}): timing fewfit only; install libclblast-dev (scripts/ensure-opencl.sh)");
            None
        }
    };
    let mut queue = device.queue.get();
    let mut calls: Vec<(&str, SgemmFn)> = vec![("fewfit", FewfitSgemm)];
    calls.extend(clblast_sgemm.map(|f| ("clblast", f)));
    for (name, sgemm) in calls {
        // One call per spec: the queue's device `sgemm`s over the stream, each status checked.
        let mut run = |spec: &GemmSpec| {
            // SAFETY: valid queue and buffers of one context, large enough for every spec.
            let status = unsafe {
                sgemm(
                    ROW_MAJOR,
                    NO_TRANSPOSE,
                    NO_TRANSPOSE,
                    spec.m,
                    spec.n,
                    spec.k,
                    1.0,
                    a.get(),
                    0,
                    spec.lda,
                    b.get(),
                    0,
                    spec.ldb,
                    0.0,
                    out.get(),
                    0,
                    spec.ldc,
                    &mut queue,
                    std::ptr::null_mut(),
                )
            };
            assert_eq!(status, 0, "{name}: status {status} for {spec:?}");
        };
        let warm = Instant::now();
        specs.iter().for_each(&mut run);
        device.queue.finish().unwrap();
        eprintln!("{name}: first pass over the shapes (warm-up) {:.2} s", warm.elapsed().as_secs_f64());
        c.bench_function(&format!("capi_overhead/{name}/{}", device.info.name), |bench| {
            bench.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                let mut done = 0;
                while done < iters {
                    let n = (iters - done).min(BATCH as u64) as usize;
                    let t = Instant::now();
                    specs.iter().take(n).for_each(|s| run(black_box(s)));
                    total += t.elapsed();
                    done += n as u64;
                    device.queue.finish().unwrap();
                }
                total
            })
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(50).measurement_time(Duration::from_secs(4));
    targets = bench
}
criterion_main!(benches);
