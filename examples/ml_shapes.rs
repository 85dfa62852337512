//! The main job: puts a set of ML GEMM shapes through fewfit on the default device (FEWFIT_DEVICE),
//! checks each against an f64 reference, and prints per shape the chosen variant, the time and
//! GFLOP/s. Run with `cargo run --release --example ml_shapes`.

use std::time::Instant;

use fewfit::{build_stats, chosen_variant, gemm, DefaultDevice, Engine, GemmSpec, Precision};
use opencl3::memory::{Buffer, CL_MEM_READ_WRITE};
use opencl3::types::CL_BLOCKING;
use rand::{rngs::StdRng, RngExt, SeedableRng};

/// (name, m, n, k) of row-major NN GEMMs from common networks.
const SHAPES: &[(&str, usize, usize, usize)] = &[
    ("llama decode q/k/v proj", 1, 4096, 4096),
    ("llama decode mlp up, 8 tokens", 8, 11008, 4096),
    ("bert attention out, 128 tokens", 128, 768, 768),
    ("bert mlp up, 384 tokens", 384, 3072, 768),
    ("gpt2 mlp down, 512 tokens", 512, 768, 3072),
    ("resnet50 conv3x3 (im2col), 14x14", 196, 256, 2304),
    ("resnet50 conv, 7x7 batch 1", 49, 512, 4608),
    ("lm head, 16 tokens", 16, 32000, 4096),
    ("odd sizes", 1000, 1023, 999),
    ("square 1024", 1024, 1024, 1024),
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let device = DefaultDevice::get()?;
    println!(
        "device: {} ({}; class {}; driver {})",
        device.info.name, device.info.platform_version, device.info.class, device.info.driver
    );
    let start = Instant::now();
    Engine::for_queue(device.queue.get())?.warm_up(Precision::F32)?;
    let stats = build_stats();
    println!(
        "variant set ready in {:.2} s ({} programs compiled, {} from the binary cache)\n",
        start.elapsed().as_secs_f64(),
        stats.compiled,
        stats.from_cache
    );
    println!(
        "{:<34} {:>6} {:>6} {:>6}  {:<40} {:>10} {:>9}  check",
        "shape", "M", "N", "K", "variant", "median ms", "GFLOP/s"
    );
    let mut rng = StdRng::seed_from_u64(42);
    let mut failures = 0;
    for &(name, m, n, k) in SHAPES {
        let spec = GemmSpec::row_major(m, n, k);
        let a: Vec<f32> = (0..m * k).map(|_| rng.random_range(-1.0..1.0)).collect();
        let b: Vec<f32> = (0..k * n).map(|_| rng.random_range(-1.0..1.0)).collect();
        let upload = |data: &[f32]| -> Result<Buffer<f32>, Box<dyn std::error::Error>> {
            let mut buf =
                unsafe { Buffer::<f32>::create(&device.context, CL_MEM_READ_WRITE, data.len(), std::ptr::null_mut())? };
            unsafe { device.queue.enqueue_write_buffer(&mut buf, CL_BLOCKING, 0, data, &[])? };
            Ok(buf)
        };
        let (a_buf, b_buf) = (upload(&a)?, upload(&b)?);
        let mut c_buf = upload(&vec![f32::NAN; m * n])?;
        let variant = chosen_variant::<f32>(&device.queue, &spec)?;
        gemm(&device.queue, &spec, 1.0, &a_buf, &b_buf, 0.0, &mut c_buf, &[])?.wait()?;
        let mut times = Vec::new();
        for _ in 0..10 {
            let t = Instant::now();
            gemm(&device.queue, &spec, 1.0, &a_buf, &b_buf, 0.0, &mut c_buf, &[])?.wait()?;
            times.push(t.elapsed().as_secs_f64());
        }
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
        let mut c = vec![0.0f32; m * n];
        unsafe { device.queue.enqueue_read_buffer(&c_buf, CL_BLOCKING, 0, &mut c, &[])? };
        // Check 256 random elements (every element for small C) against an f64 reference.
        let mut worst = 0.0f64;
        for s in 0..256.min(m * n) {
            let idx = if m * n <= 256 { s } else { rng.random_range(0..m * n) };
            let (i, j) = (idx / n, idx % n);
            let (mut sum, mut mag) = (0.0f64, 0.0f64);
            for p in 0..k {
                let prod = a[i * k + p] as f64 * b[p * n + j] as f64;
                sum += prod;
                mag += prod.abs();
            }
            worst = worst.max((c[idx] as f64 - sum).abs() / (mag * (k as f64 + 2.0) * f32::EPSILON as f64 * 4.0));
        }
        let ok = worst <= 1.0;
        failures += !ok as usize;
        println!(
            "{name:<34} {m:>6} {n:>6} {k:>6}  {:<40} {:>10.3} {:>9.1}  {}",
            variant.info().name,
            median * 1e3,
            2.0 * (m * n * k) as f64 / median / 1e9,
            if ok { "ok" } else { "FAILED" }
        );
    }
    let end = build_stats();
    println!(
        "\nprograms compiled: {}, loaded from cache: {} ({} after warm-up)",
        end.compiled,
        end.from_cache,
        end.compiled + end.from_cache - stats.compiled - stats.from_cache
    );
    if failures > 0 {
        return Err(format!("{failures} shapes failed the reference check").into());
    }
    Ok(())
}
