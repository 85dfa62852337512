//! A framework's view of fewfit: one transformer block run forward on the default device for ten
//! steps whose batch size and sequence length change every step, every matrix product a fewfit
//! GEMM on device buffers. Per step it prints the variants chosen and the time; after a warm-up
//! it asserts that no program is built (`fewfit::build_stats()` does not move), and it checks one
//! step's output against an f64 host reference. Run with `cargo run --release --example transformer`.
//!
//! The block (no layer norms, to stay small): QKV = X·Wqkv; per batch item, scores = Q·Kᵀ/√d_head
//! and O = P·V as strided batches over the heads; softmax and ReLU on the host;
//! X1 = X + Σ_h O_h·Wo_h (the output projection as one GEMM per head, accumulating);
//! Y = X1 + ReLU(X1·W1)·W2.

use std::time::Instant;

use fewfit::{build_stats, chosen_variant, gemm, DefaultDevice, Engine, GemmSpec, Layout, Precision, Transpose};
use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::memory::{Buffer, CL_MEM_READ_WRITE};
use opencl3::types::CL_BLOCKING;
use rand::{rngs::StdRng, RngExt, SeedableRng};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// Model width, heads, width per head, MLP width.
const D: usize = 64;
const HEADS: usize = 4;
const HD: usize = D / HEADS;
const FF: usize = 4 * D;

/// (batch, sequence length) of each step.
const STEPS: &[(usize, usize)] =
    &[(1, 7), (3, 16), (2, 5), (1, 33), (4, 12), (2, 29), (1, 64), (3, 19), (2, 9), (4, 24)];
/// The warm-up's steps: a small and a large one, so that every variant the block's shapes go to
/// has run once (PoCL compiles a kernel's work-group function on its first launch).
const WARM_UP: &[(usize, usize)] = &[(2, 8), (4, 32)];

/// Device buffers on one context and queue, with the variants the step's GEMMs go to.
struct Runner<'a> {
    context: &'a Context,
    queue: &'a CommandQueue,
    variants: Vec<usize>,
}

impl Runner<'_> {
    fn upload(&self, data: &[f32]) -> Res<Buffer<f32>> {
        // SAFETY: a fresh buffer, written in full by a blocking write.
        let mut buf = unsafe { Buffer::create(self.context, CL_MEM_READ_WRITE, data.len(), std::ptr::null_mut())? };
        unsafe { self.queue.enqueue_write_buffer(&mut buf, CL_BLOCKING, 0, data, &[])? };
        Ok(buf)
    }

    fn download(&self, buf: &Buffer<f32>, len: usize) -> Res<Vec<f32>> {
        let mut out = vec![0.0; len];
        // SAFETY: a blocking read of `len` elements of a buffer that holds at least that many.
        unsafe { self.queue.enqueue_read_buffer(buf, CL_BLOCKING, 0, &mut out, &[])? };
        Ok(out)
    }

    /// Enqueues one GEMM (the in-order queue orders it after the previous ones).
    fn gemm(
        &mut self,
        spec: GemmSpec,
        alpha: f32,
        a: &Buffer<f32>,
        b: &Buffer<f32>,
        beta: f32,
        c: &mut Buffer<f32>,
    ) -> Res<()> {
        self.variants.push(chosen_variant::<f32>(self.queue, &spec)?.index());
        gemm(self.queue, &spec, alpha, a, b, beta, c, &[])?;
        Ok(())
    }
}

/// The block's weights, row-major, on the host.
struct Weights {
    qkv: Vec<f32>,
    o: Vec<f32>,
    w1: Vec<f32>,
    w2: Vec<f32>,
}

fn softmax_rows(x: &mut [f32], len: usize) {
    for row in x.chunks_mut(len) {
        let max = row.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
        let sum: f32 = row
            .iter_mut()
            .map(|v| {
                *v = (*v - max).exp();
                *v
            })
            .sum();
        row.iter_mut().for_each(|v| *v /= sum);
    }
}

/// One forward step on the device: returns Y (tokens x D, row-major).
fn forward(r: &mut Runner, w: &[Buffer<f32>; 4], x: &[f32], batch: usize, seq: usize) -> Res<Vec<f32>> {
    let [wqkv, wo, w1, w2] = w;
    let t = batch * seq;
    let x_buf = r.upload(x)?;
    let mut qkv = r.upload(&vec![0.0; t * 3 * D])?;
    r.gemm(GemmSpec::row_major(t, 3 * D, D), 1.0, &x_buf, wqkv, 0.0, &mut qkv)?;

    // Scores per batch item, all heads in one strided launch: S[b,h] = Q_bh K_bhᵀ / √HD.
    let mut scores = r.upload(&vec![0.0; batch * HEADS * seq * seq])?;
    for b in 0..batch {
        let spec = GemmSpec::new(Layout::RowMajor, Transpose::No, Transpose::Yes, seq, seq, HD)
            .with_ld(3 * D, 3 * D, seq)
            .with_offsets(b * seq * 3 * D, b * seq * 3 * D + D, b * HEADS * seq * seq)
            .with_batch(HEADS, HD, HD, seq * seq);
        r.gemm(spec, 1.0 / (HD as f32).sqrt(), &qkv, &qkv, 0.0, &mut scores)?;
    }
    let mut p = r.download(&scores, batch * HEADS * seq * seq)?;
    softmax_rows(&mut p, seq);
    let p_buf = r.upload(&p)?;

    // O = P V, stored head-major [HEADS, t, HD], again one launch over the heads per batch item.
    let mut o = r.upload(&vec![0.0; HEADS * t * HD])?;
    for b in 0..batch {
        let spec = GemmSpec::row_major(seq, HD, seq)
            .with_ld(seq, 3 * D, HD)
            .with_offsets(b * HEADS * seq * seq, b * seq * 3 * D + 2 * D, b * seq * HD)
            .with_batch(HEADS, seq * seq, HD, t * HD);
        r.gemm(spec, 1.0, &p_buf, &qkv, 0.0, &mut o)?;
    }
    // X1 = X + Σ_h O_h Wo[h·HD.., :] (each head's slice of the output projection, accumulated).
    let mut x1 = r.upload(x)?;
    for h in 0..HEADS {
        let spec = GemmSpec::row_major(t, D, HD).with_ld(HD, D, D).with_offsets(h * t * HD, h * HD * D, 0);
        r.gemm(spec, 1.0, &o, wo, 1.0, &mut x1)?;
    }
    // Y = X1 + ReLU(X1 W1) W2.
    let mut hidden = r.upload(&vec![0.0; t * FF])?;
    r.gemm(GemmSpec::row_major(t, FF, D), 1.0, &x1, w1, 0.0, &mut hidden)?;
    let mut hid = r.download(&hidden, t * FF)?;
    hid.iter_mut().for_each(|v| *v = v.max(0.0));
    let hidden = r.upload(&hid)?;
    let mut y = r.upload(&r.download(&x1, t * D)?)?;
    r.gemm(GemmSpec::row_major(t, D, FF), 1.0, &hidden, w2, 1.0, &mut y)?;
    r.download(&y, t * D)
}

/// C (m x n) = A (m x k) B (k x n), row-major with leading dimensions, in f64.
#[allow(clippy::too_many_arguments)]
fn matmul(a: &[f64], lda: usize, b: &[f64], ldb: usize, m: usize, n: usize, k: usize, trans_b: bool) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = (0..k).map(|p| a[i * lda + p] * if trans_b { b[j * ldb + p] } else { b[p * ldb + j] }).sum();
        }
    }
    c
}

/// The same block on the host in f64.
fn reference(w: &Weights, x: &[f32], batch: usize, seq: usize) -> Vec<f64> {
    let f = |v: &[f32]| v.iter().map(|&x| x as f64).collect::<Vec<f64>>();
    let (x, wqkv, wo, w1, w2) = (f(x), f(&w.qkv), f(&w.o), f(&w.w1), f(&w.w2));
    let t = batch * seq;
    let qkv = matmul(&x, D, &wqkv, 3 * D, t, 3 * D, D, false);
    let mut attn = vec![0.0; t * D];
    for b in 0..batch {
        for h in 0..HEADS {
            let base = b * seq * 3 * D + h * HD;
            let mut s = matmul(&qkv[base..], 3 * D, &qkv[base + D..], 3 * D, seq, seq, HD, true);
            for row in s.chunks_mut(seq) {
                let max = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                row.iter_mut().for_each(|v| *v = (*v / (HD as f64).sqrt() - max / (HD as f64).sqrt()).exp());
                let sum: f64 = row.iter().sum();
                row.iter_mut().for_each(|v| *v /= sum);
            }
            let o = matmul(&s, seq, &qkv[base + 2 * D..], 3 * D, seq, HD, seq, false);
            for i in 0..seq {
                attn[(b * seq + i) * D + h * HD..][..HD].copy_from_slice(&o[i * HD..][..HD]);
            }
        }
    }
    let proj = matmul(&attn, D, &wo, D, t, D, D, false);
    let x1: Vec<f64> = x.iter().zip(&proj).map(|(a, b)| a + b).collect();
    let hidden: Vec<f64> = matmul(&x1, D, &w1, FF, t, FF, D, false).into_iter().map(|v| v.max(0.0)).collect();
    let mlp = matmul(&hidden, FF, &w2, D, t, D, FF, false);
    x1.iter().zip(&mlp).map(|(a, b)| a + b).collect()
}

fn main() -> Res<()> {
    let device = DefaultDevice::get()?;
    println!("device: {} (class {})", device.info.name, device.info.class);
    let mut rng = StdRng::seed_from_u64(7);
    let mut random =
        |len: usize, scale: f32| -> Vec<f32> { (0..len).map(|_| rng.random_range(-scale..scale)).collect() };
    let weights = Weights {
        qkv: random(D * 3 * D, 0.2),
        o: random(D * D, 0.2),
        w1: random(D * FF, 0.2),
        w2: random(FF * D, 0.1),
    };
    let inputs: Vec<Vec<f32>> = STEPS.iter().map(|&(b, s)| random(b * s * D, 1.0)).collect();
    let mut runner = Runner { context: &device.context, queue: &device.queue, variants: Vec::new() };
    let w = [
        runner.upload(&weights.qkv)?,
        runner.upload(&weights.o)?,
        runner.upload(&weights.w1)?,
        runner.upload(&weights.w2)?,
    ];

    // Warm-up: build (or load from the binary cache) the variant set, run the block twice.
    let start = Instant::now();
    Engine::for_queue(device.queue.get())?.warm_up(Precision::F32)?;
    for &(batch, seq) in WARM_UP {
        let x = random(batch * seq * D, 1.0);
        forward(&mut runner, &w, &x, batch, seq)?;
    }
    let warm = build_stats();
    println!(
        "warm-up {:.2} s ({} programs compiled, {} from the binary cache)",
        start.elapsed().as_secs_f64(),
        warm.compiled,
        warm.from_cache
    );
    println!(
        "{:>4} {:>5} {:>4} {:>6} {:>9}  variants (qkv | scores per item | P·V per item | out per head | mlp up, down)",
        "step", "batch", "seq", "tokens", "ms"
    );
    let check_step = 7;
    let mut used = std::collections::BTreeSet::new();
    for (step, (&(batch, seq), x)) in (1..).zip(STEPS.iter().zip(&inputs)) {
        runner.variants.clear();
        let start = Instant::now();
        let y = forward(&mut runner, &w, x, batch, seq)?;
        let ms = start.elapsed().as_secs_f64() * 1e3;
        used.extend(runner.variants.iter().copied());
        let v: Vec<String> = runner.variants.iter().map(|i| i.to_string()).collect();
        println!("{step:>4} {batch:>5} {seq:>4} {:>6} {ms:>9.2}  {}", batch * seq, v.join(" "));
        if step == check_step {
            let want = reference(&weights, x, batch, seq);
            let worst = y.iter().zip(&want).map(|(g, w)| (*g as f64 - w).abs() / (1.0 + w.abs())).fold(0.0, f64::max);
            println!("     step {step} against the f64 host reference: max relative error {worst:.2e}");
            assert!(worst < 1e-4, "step {step} differs from the reference by {worst}");
        }
    }
    for i in used {
        println!("variant {i}: {}", fewfit::VariantId::ALL[i]);
    }
    let after = build_stats();
    assert_eq!(after, warm, "programs were built after the warm-up");
    println!("no program built after the warm-up: {after:?}");
    Ok(())
}
