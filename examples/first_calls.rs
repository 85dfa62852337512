//! How fast a process's first GEMMs run: fewfit's call on one square problem, timed in rounds from
//! the process's start (3 warm-up calls, then the median of 20 wall times per round, the queue
//! finished after each), then on a second set of buffers, then on the first again. Separates a slow
//! start of the device (the first rounds slow, later rounds of the same buffers fast) from slow
//! buffers (the first buffers slow throughout). On PoCL on a 2-core Zen 4 VM the first round ran at
//! about 0.7x in 5 of 14 runs, every later round at full speed: the VM's scheduler had put PoCL's two
//! worker threads on one vCPU. With `POCL_AFFINITY=1` none was slow (docs/PERFORMANCE.md, "A PoCL
//! process's slow first rounds").
//!
//! `cargo run --release --example first_calls [N, 1024] [ROUNDS, 4]` on the default device
//! (FEWFIT_DEVICE).

use std::time::Instant;

use fewfit::{gemm, DefaultDevice, GemmSpec};
use opencl3::memory::{Buffer, CL_MEM_READ_WRITE};
use opencl3::types::CL_BLOCKING;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// A, B and C of an n x n x n problem, A and B filled.
struct Operands {
    a: Buffer<f32>,
    b: Buffer<f32>,
    c: Buffer<f32>,
}

fn operands(device: &DefaultDevice, n: usize) -> Res<Operands> {
    let data: Vec<f32> = (0..n * n).map(|i| ((i * 7919) % 1000) as f32 / 1000.0).collect();
    let upload = || -> Res<Buffer<f32>> {
        // SAFETY: a fresh buffer of n * n floats, written in full before use.
        let mut buf =
            unsafe { Buffer::<f32>::create(&device.context, CL_MEM_READ_WRITE, n * n, std::ptr::null_mut())? };
        // SAFETY: a blocking write of exactly the buffer's length.
        unsafe { device.queue.enqueue_write_buffer(&mut buf, CL_BLOCKING, 0, &data, &[])? };
        Ok(buf)
    };
    Ok(Operands { a: upload()?, b: upload()?, c: upload()? })
}

/// GFLOP/s of the median of 20 calls after 3 warm-up calls.
fn round(device: &DefaultDevice, ops: &mut Operands, n: usize) -> Res<f64> {
    let spec = GemmSpec::row_major(n, n, n);
    let call = |ops: &mut Operands| -> Res<f64> {
        let start = Instant::now();
        gemm(&device.queue, &spec, 1.0f32, &ops.a, &ops.b, 0.0, &mut ops.c, &[])?;
        device.queue.finish()?;
        Ok(start.elapsed().as_secs_f64())
    };
    for _ in 0..3 {
        call(ops)?;
    }
    let mut times = (0..20).map(|_| call(ops)).collect::<Res<Vec<f64>>>()?;
    times.sort_by(f64::total_cmp);
    Ok(2.0 * (n as f64).powi(3) / times[times.len() / 2] / 1e9)
}

fn main() -> Res<()> {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<usize>());
    let n = args.next().transpose()?.unwrap_or(1024);
    let rounds = args.next().transpose()?.unwrap_or(4);
    let device = DefaultDevice::get()?;
    println!(
        "{} ({}), {n}x{n}x{n}, GFLOP/s by wall time, median of 20 per round",
        device.info.name, device.info.platform_version
    );
    let started = Instant::now();
    let mut first = operands(device, n)?;
    for r in 0..rounds {
        let gflops = round(device, &mut first, n)?;
        println!("first buffers, round {r} (ends {:.2} s after start): {gflops:.1}", started.elapsed().as_secs_f64());
    }
    let mut second = operands(device, n)?;
    println!("second buffers: {:.1}", round(device, &mut second, n)?);
    println!("first buffers again: {:.1}", round(device, &mut first, n)?);
    Ok(())
}
