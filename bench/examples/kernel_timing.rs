//! Times chosen kernel variants (shipped or not) on the shapes each kernel mechanism targets, on the
//! default device (FEWFIT_DEVICE): tiled GEMM with and without double buffering and K-vector loads,
//! split-K on small C with a huge K, and the direct kernel on decode shapes. Each run is checked
//! against an f64 reference on 64 elements. Parameters a variant below leaves out take their family's
//! first allowed value (the neutral one), so the same list runs before and after a parameter is added.
//!
//! `cargo run --release --example kernel_timing [PREFIX...]` runs the cases whose label starts with
//! one of the prefixes, or every case (the `gpu` cases are too large for a CPU device; `tile` and
//! `direct` are the PoCL sets).

use std::time::Instant;

use fewfit::tuning::CompiledVariant;
use fewfit::{DefaultDevice, Engine, GemmSpec, Layout, Precision, Transpose};
use fewfit_codegen::{Family, Variant};
use opencl3::memory::{Buffer, CL_MEM_READ_WRITE};
use opencl3::types::CL_BLOCKING;
use rand::{rngs::StdRng, Rng, SeedableRng};

/// A 64x64 tile of 8x8 work-items with 8x8 register blocks (the shipped CPU tile).
const TILE64: &[(&str, u32)] = &[
    ("MWG", 64),
    ("NWG", 64),
    ("KWG", 32),
    ("MDIMC", 8),
    ("NDIMC", 8),
    ("MDIMA", 8),
    ("NDIMB", 8),
    ("KWI", 4),
    ("VWM", 4),
    ("VWN", 4),
    ("STRM", 0),
    ("STRN", 0),
    ("SA", 1),
    ("SB", 1),
];

/// A 32x32 tile of 8x8 work-items (the shipped small tile), for small C.
const TILE32: &[(&str, u32)] = &[
    ("MWG", 32),
    ("NWG", 32),
    ("KWG", 16),
    ("MDIMC", 8),
    ("NDIMC", 8),
    ("MDIMA", 8),
    ("NDIMB", 8),
    ("KWI", 2),
    ("VWM", 1),
    ("VWN", 1),
    ("STRM", 0),
    ("STRN", 0),
    ("SA", 1),
    ("SB", 1),
];

/// The shipped 128x128 GPU tile: 16x16 work-items with 8x8 register blocks, strided.
const TILE128: &[(&str, u32)] = &[
    ("MWG", 128),
    ("NWG", 128),
    ("KWG", 16),
    ("MDIMC", 16),
    ("NDIMC", 16),
    ("MDIMA", 32),
    ("NDIMB", 32),
    ("KWI", 2),
    ("VWM", 4),
    ("VWN", 4),
    ("STRM", 1),
    ("STRN", 1),
    ("SA", 1),
    ("SB", 1),
];

/// The fastest variant of the 2026-11-23 H200 sweeps at 4096³, as changes to TILE128: scalar
/// register operands along M, pairs along N, a 16-deep K slice in 8-step unrolls, double buffered.
const BEST128: &[(&str, u32)] = &[("DB", 1), ("VWK", 4), ("KWI", 8), ("NDIMB", 16), ("VWM", 1), ("VWN", 2)];

/// The set's 128x128 tile (its SK = 0 twin): 16x16 work-items, 8x8 register blocks, double buffered.
const SET128: &[(&str, u32)] = &[
    ("MWG", 128),
    ("NWG", 128),
    ("KWG", 16),
    ("MDIMC", 16),
    ("NDIMC", 16),
    ("MDIMA", 16),
    ("NDIMB", 32),
    ("KWI", 2),
    ("VWM", 2),
    ("VWN", 4),
    ("VWK", 4),
    ("STRM", 1),
    ("STRN", 1),
    ("SA", 1),
    ("SB", 1),
    ("DB", 1),
];

/// The fastest 256x128 tile of the 2026-11-25 H200 sweep at 4096³ (h200-v15-wide-f32, in variants/data at 04d1d03;
/// docs/decisions/020-wide-tiles.md): 32x8
/// work-items, 8x16 register blocks of 4-wide vectors, double buffered.
const WIDE256: &[(&str, u32)] = &[
    ("MWG", 256),
    ("NWG", 128),
    ("KWG", 16),
    ("MDIMC", 32),
    ("NDIMC", 8),
    ("MDIMA", 16),
    ("NDIMB", 16),
    ("KWI", 2),
    ("VWM", 4),
    ("VWN", 4),
    ("VWK", 4),
    ("STRM", 1),
    ("STRN", 1),
    ("SA", 1),
    ("SB", 1),
    ("DB", 1),
    ("KSPLIT", 1),
];

/// [`BEST128`] with swizzled local slices of the K-contiguous operand (A of a row-major NN call).
const BEST128_SWZ: &[(&str, u32)] =
    &[("DB", 1), ("VWK", 4), ("KWI", 8), ("NDIMB", 16), ("VWM", 1), ("VWN", 2), ("SWZ", 1)];

/// Which row-major operands are stored transposed: NN neither, NT B (N x K), TN A (K x M).
#[derive(Clone, Copy, PartialEq)]
enum Op {
    NN,
    NT,
    TN,
}
use Op::{NN, NT, TN};

/// (label, family, base parameters, extra parameters, row-major M N K, operands transposed).
type Case = (&'static str, Family, &'static [(&'static str, u32)], &'static [(&'static str, u32)], [usize; 3], Op);

const CASES: &[Case] = &[
    ("cpu panel NN 1024", Family::Panel, PANEL, &[], [1024, 1024, 1024], NN),
    ("cpu panel NT 1024", Family::Panel, PANEL, &[], [1024, 1024, 1024], NT),
    ("cpu panel NN 2048", Family::Panel, PANEL, &[], [2048, 2048, 2048], NN),
    ("cpu panel NN 2048 KC256", Family::Panel, PANEL, &[("KC", 256)], [2048, 2048, 2048], NN),
    ("cpu panel NN 2048 KC256 LN16", Family::Panel, PANEL, &[("KC", 256), ("LN", 16)], [2048, 2048, 2048], NN),
    ("cpu panel NN 1024 KC256", Family::Panel, PANEL, &[("KC", 256)], [1024, 1024, 1024], NN),
    ("cpu panel NN 1000x1023x999", Family::Panel, PANEL, &[], [1000, 1023, 999], NN),
    ("cpu panel NN 49x512x4608", Family::Panel, PANEL, &[], [49, 512, 4608], NN),
    ("cpu set panel NN 1024", Family::Panel, PANEL_SET, &[], [1024, 1024, 1024], NN),
    ("cpu set panel NN 2048", Family::Panel, PANEL_SET, &[], [2048, 2048, 2048], NN),
    ("cpu set panel NN 4096", Family::Panel, PANEL_SET, &[], [4096, 4096, 4096], NN),
    ("cpu set panel LN32 NN 2048", Family::Panel, PANEL_SET, &[("LN", 32)], [2048, 2048, 2048], NN),
    ("cpu set panel LN32 NN 4096", Family::Panel, PANEL_SET, &[("LN", 32)], [4096, 4096, 4096], NN),
    ("cpu set panel LM2 NN 2048", Family::Panel, PANEL_SET, &[("LM", 2)], [2048, 2048, 2048], NN),
    ("cpu set panel LM2 NN 4096", Family::Panel, PANEL_SET, &[("LM", 2)], [4096, 4096, 4096], NN),
    ("cpu set panel KC128 NN 2048", Family::Panel, PANEL_SET, &[("KC", 128)], [2048, 2048, 2048], NN),
    ("cpu set panel KC128 NN 4096", Family::Panel, PANEL_SET, &[("KC", 128)], [4096, 4096, 4096], NN),
    ("gpu tile128 NN 4096", Family::Xgemm, TILE128, &[], [4096, 4096, 4096], NN),
    ("gpu tile128 NN 4096 DB", Family::Xgemm, TILE128, &[("DB", 1)], [4096, 4096, 4096], NN),
    ("gpu tile128 NN 4096 VWK4", Family::Xgemm, TILE128, &[("VWK", 4)], [4096, 4096, 4096], NN),
    ("gpu tile128 NN 4096 DB VWK4", Family::Xgemm, TILE128, &[("DB", 1), ("VWK", 4)], [4096, 4096, 4096], NN),
    ("gpu tile128 NN 4096 best", Family::Xgemm, TILE128, BEST128, [4096, 4096, 4096], NN),
    ("gpu tile128 NN 4096 best SWZ", Family::Xgemm, TILE128, BEST128_SWZ, [4096, 4096, 4096], NN),
    ("gpu tile128 NN 8192 best", Family::Xgemm, TILE128, BEST128, [8192, 8192, 8192], NN),
    ("gpu tile128 NN 8192 best SWZ", Family::Xgemm, TILE128, BEST128_SWZ, [8192, 8192, 8192], NN),
    ("gpu tile128 NN 8192 DB VWK4", Family::Xgemm, TILE128, &[("DB", 1), ("VWK", 4)], [8192, 8192, 8192], NN),
    (
        "gpu tile128 NN 4096 DB VWK4 KWI8",
        Family::Xgemm,
        TILE128,
        &[("DB", 1), ("VWK", 4), ("KWI", 8)],
        [4096, 4096, 4096],
        NN,
    ),
    (
        "gpu tile128 NN 4096 DB VWK4 VWM2",
        Family::Xgemm,
        TILE128,
        &[("DB", 1), ("VWK", 4), ("VWM", 2)],
        [4096, 4096, 4096],
        NN,
    ),
    (
        "gpu tile128 NN 4096 DB VWK4 VWM2 SWZ",
        Family::Xgemm,
        TILE128,
        &[("DB", 1), ("VWK", 4), ("VWM", 2), ("SWZ", 1)],
        [4096, 4096, 4096],
        NN,
    ),
    ("gpu tile128 NT 4096", Family::Xgemm, TILE128, &[], [4096, 4096, 4096], NT),
    ("gpu tile128 NT 4096 DB VWK4", Family::Xgemm, TILE128, &[("DB", 1), ("VWK", 4)], [4096, 4096, 4096], NT),
    ("gpu tile32 splitk 64x64x65536", Family::Xgemm, TILE32, &[], [64, 64, 65536], NN),
    ("gpu tile32 splitk 64x64x65536 KSPLIT32", Family::Xgemm, TILE32, &[("KSPLIT", 32)], [64, 64, 65536], NN),
    ("gpu tile32 splitk 16x16x100000", Family::Xgemm, TILE32, &[], [16, 16, 100000], NN),
    ("gpu tile32 splitk 16x16x100000 KSPLIT32", Family::Xgemm, TILE32, &[("KSPLIT", 32)], [16, 16, 100000], NN),
    ("tile64 NN 512", Family::Xgemm, TILE64, &[], [512, 512, 512], NN),
    ("tile64 NN 512 DB", Family::Xgemm, TILE64, &[("DB", 1)], [512, 512, 512], NN),
    ("tile64 NN 512 VWK4", Family::Xgemm, TILE64, &[("VWK", 4)], [512, 512, 512], NN),
    ("tile64 NN 512 DB VWK4", Family::Xgemm, TILE64, &[("DB", 1), ("VWK", 4)], [512, 512, 512], NN),
    ("tile64 NN 512 DB VWK4 SWZ", Family::Xgemm, TILE64, &[("DB", 1), ("VWK", 4), ("SWZ", 1)], [512, 512, 512], NN),
    ("tile64 NT 512", Family::Xgemm, TILE64, &[], [512, 512, 512], NT),
    ("tile64 NT 512 DB VWK4", Family::Xgemm, TILE64, &[("DB", 1), ("VWK", 4)], [512, 512, 512], NT),
    ("tile32 splitk 64x64x65536", Family::Xgemm, TILE32, &[], [64, 64, 65536], NN),
    ("tile32 splitk 64x64x65536 KSPLIT16", Family::Xgemm, TILE32, &[("KSPLIT", 16)], [64, 64, 65536], NN),
    ("tile32 splitk 16x16x100000", Family::Xgemm, TILE32, &[], [16, 16, 100000], NN),
    ("tile32 splitk 16x16x100000 KSPLIT32", Family::Xgemm, TILE32, &[("KSPLIT", 32)], [16, 16, 100000], NN),
    ("direct decode NN 1x4096x4096", Family::Direct, DIRECT, &[], [1, 4096, 4096], NN),
    ("direct decode NN 1x4096x4096 VWD4", Family::Direct, DIRECT_NARROW, &[("VWD", 4)], [1, 4096, 4096], NN),
    ("direct decode NT 1x4096x4096", Family::Direct, DIRECT, &[], [1, 4096, 4096], NT),
    ("direct decode NT 1x4096x4096 VWD4", Family::Direct, DIRECT_NARROW, &[("VWD", 4)], [1, 4096, 4096], NT),
    ("direct decode NN 8x4096x4096", Family::Direct, DIRECT8, &[], [8, 4096, 4096], NN),
    ("direct decode NN 8x4096x4096 VWD4", Family::Direct, DIRECT8_NARROW, &[("VWD", 4)], [8, 4096, 4096], NN),
    (
        "direct decode NN 8x4096x4096 VWD4 UKD2",
        Family::Direct,
        DIRECT8_NARROW,
        &[("VWD", 4), ("UKD", 2)],
        [8, 4096, 4096],
        NN,
    ),
    (
        "direct decode NN 8x4096x4096 VWD4 UKD4",
        Family::Direct,
        DIRECT8_NARROW,
        &[("VWD", 4), ("UKD", 4)],
        [8, 4096, 4096],
        NN,
    ),
    (
        "direct decode NN 1x4096x4096 VWD4 UKD4",
        Family::Direct,
        DIRECT_NARROW,
        &[("VWD", 4), ("UKD", 4)],
        [1, 4096, 4096],
        NN,
    ),
    ("gpu large NN 4096 set DB1", Family::Xgemm, SET128, &[], [4096, 4096, 4096], NN),
    ("gpu wide NN 4096 256x128 RP0", Family::Xgemm, WIDE256, &[("RP", 0)], [4096, 4096, 4096], NN),
    ("gpu wide NN 4096 256x128 RP1", Family::Xgemm, WIDE256, &[("RP", 1)], [4096, 4096, 4096], NN),
    ("gpu wide NN 8192 256x128 RP0", Family::Xgemm, WIDE256, &[("RP", 0)], [8192, 8192, 8192], NN),
    ("gpu wide NN 8192 256x128 RP1", Family::Xgemm, WIDE256, &[("RP", 1)], [8192, 8192, 8192], NN),
    ("gpu wide NT 4096 256x128 RP0", Family::Xgemm, WIDE256, &[("RP", 0)], [4096, 4096, 4096], NT),
    ("gpu wide NT 4096 256x128 RP1", Family::Xgemm, WIDE256, &[("RP", 1)], [4096, 4096, 4096], NT),
    ("gpu wide NT 8192 256x128 RP0", Family::Xgemm, WIDE256, &[("RP", 0)], [8192, 8192, 8192], NT),
    ("gpu wide NT 8192 256x128 RP1", Family::Xgemm, WIDE256, &[("RP", 1)], [8192, 8192, 8192], NT),
    ("gpu rp NN 4096 set RP0", Family::Xgemm, SET128, &[("KSPLIT", 1), ("RP", 0)], [4096, 4096, 4096], NN),
    ("gpu rp NN 4096 set RP1", Family::Xgemm, SET128, &[("KSPLIT", 1), ("RP", 1)], [4096, 4096, 4096], NN),
    ("gpu rp NN 4096 set RP2", Family::Xgemm, SET128, &[("KSPLIT", 1), ("RP", 2)], [4096, 4096, 4096], NN),
    ("gpu rp NT 4096 set RP0", Family::Xgemm, SET128, &[("KSPLIT", 1), ("RP", 0)], [4096, 4096, 4096], NT),
    ("gpu rp NT 4096 set RP1", Family::Xgemm, SET128, &[("KSPLIT", 1), ("RP", 1)], [4096, 4096, 4096], NT),
    ("gpu rp NT 4096 set RP2", Family::Xgemm, SET128, &[("KSPLIT", 1), ("RP", 2)], [4096, 4096, 4096], NT),
    ("gpu rp TN 4096 set RP0", Family::Xgemm, SET128, &[("KSPLIT", 1), ("RP", 0)], [4096, 4096, 4096], TN),
    ("gpu rp TN 4096 set RP1", Family::Xgemm, SET128, &[("KSPLIT", 1), ("RP", 1)], [4096, 4096, 4096], TN),
    ("gpu rp TN 4096 set RP2", Family::Xgemm, SET128, &[("KSPLIT", 1), ("RP", 2)], [4096, 4096, 4096], TN),
    ("gpu large TN 4096 set DB1", Family::Xgemm, SET128, &[], [4096, 4096, 4096], TN),
    ("gpu large TN 4096 set DB3", Family::Xgemm, SET128, &[("DB", 3)], [4096, 4096, 4096], TN),
    (
        "gpu large TN 4096 set DB4 KWG8 MDIMA32",
        Family::Xgemm,
        SET128,
        &[("DB", 4), ("KWG", 8), ("MDIMA", 32)],
        [4096, 4096, 4096],
        TN,
    ),
    ("gpu large TN 4096 set DB3 KWI8", Family::Xgemm, SET128, &[("DB", 3), ("KWI", 8)], [4096, 4096, 4096], TN),
    ("gpu large NN 4096 set DB3", Family::Xgemm, SET128, &[("DB", 3)], [4096, 4096, 4096], NN),
    ("gpu large NN 8192 set DB1", Family::Xgemm, SET128, &[], [8192, 8192, 8192], NN),
    ("gpu large TN 8192 set DB1", Family::Xgemm, SET128, &[], [8192, 8192, 8192], TN),
    ("gpu large TN 8192 set DB3", Family::Xgemm, SET128, &[("DB", 3)], [8192, 8192, 8192], TN),
    ("gpu large TN 8192 set DB3 KWI8", Family::Xgemm, SET128, &[("DB", 3), ("KWI", 8)], [8192, 8192, 8192], TN),
];

/// The CPU kernel: 32 x 8 blocks of C in 16 vectors of 16 lanes, 8 blocks per work-group.
const PANEL: &[(&str, u32)] = &[("VW", 16), ("MV", 2), ("NR", 8), ("LM", 1), ("LN", 8), ("KC", 4096)];
/// The set's CPU block for the large squares: 64 x 4 blocks of C in 16 vectors of 16 lanes, 16 blocks
/// per work-group, A's slices of 256 packed.
const PANEL_SET: &[(&str, u32)] = &[("VW", 16), ("MV", 4), ("NR", 4), ("LM", 1), ("LN", 16), ("KC", 256), ("PA", 1)];
/// The shipped direct kernel for M = 1.
const DIRECT: &[(&str, u32)] = &[("WPTM", 1), ("WPTN", 2), ("NDIMD", 64), ("KDIMD", 4)];
/// Decode with vectors: 16 columns per work-group (256 work-groups for N = 4096), K over 64 work-items.
const DIRECT_NARROW: &[(&str, u32)] = &[("WPTM", 1), ("WPTN", 1), ("NDIMD", 4), ("KDIMD", 64)];
/// The shipped direct kernel for M up to 16.
const DIRECT8: &[(&str, u32)] = &[("WPTM", 4), ("WPTN", 1), ("NDIMD", 32), ("KDIMD", 8)];
/// Decode of 8 tokens with vectors: all 8 rows per work-group, so B is read once.
const DIRECT8_NARROW: &[(&str, u32)] = &[("WPTM", 8), ("WPTN", 1), ("NDIMD", 4), ("KDIMD", 64)];

fn variant(family: Family, base: &[(&str, u32)], extra: &[(&str, u32)]) -> Option<Variant> {
    let mut v = Variant::new(family, base);
    for &(name, value) in extra {
        if !family.params().iter().any(|s| s.name == name) {
            return None; // a parameter this build does not have yet
        }
        v.params.insert(name.to_string(), value);
    }
    for spec in family.params() {
        v.params.entry(spec.name.to_string()).or_insert(spec.allowed[0]);
    }
    Some(v)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let prefixes: Vec<String> = std::env::args().skip(1).collect();
    let device = DefaultDevice::get()?;
    let engine = Engine::for_queue(device.queue.get())?;
    println!("device: {} ({})", device.info.name, device.info.platform_version);
    println!("{:<40} {:>10} {:>9} {:>9}  check", "case", "median ms", "GFLOP/s", "GB/s");
    let mut rng = StdRng::seed_from_u64(42);
    let mut failures = 0;
    for &(label, family, base, extra, [m, n, k], op) in CASES {
        if !prefixes.is_empty() && !prefixes.iter().any(|p| label.starts_with(p.as_str())) {
            continue;
        }
        let Some(v) = variant(family, base, extra) else {
            println!("{label:<40} (parameter not in this build)");
            continue;
        };
        if let Err(e) = v.validate() {
            println!("{label:<40} (invalid: {} {})", e.field, e.reason);
            continue;
        }
        let compiled = CompiledVariant::build(&engine, &v, Precision::F32)?;
        let flag = |yes: bool| if yes { Transpose::Yes } else { Transpose::No };
        let spec = GemmSpec::new(Layout::RowMajor, flag(op == TN), flag(op == NT), m, n, k);
        let a: Vec<f32> = (0..m * k).map(|_| rng.gen_range(-1.0..1.0)).collect();
        let b: Vec<f32> = (0..k * n).map(|_| rng.gen_range(-1.0..1.0)).collect();
        let upload = |data: &[f32]| -> Result<Buffer<f32>, Box<dyn std::error::Error>> {
            let mut buf =
                unsafe { Buffer::<f32>::create(&device.context, CL_MEM_READ_WRITE, data.len(), std::ptr::null_mut())? };
            unsafe { device.queue.enqueue_write_buffer(&mut buf, CL_BLOCKING, 0, data, &[])? };
            Ok(buf)
        };
        let (a_buf, b_buf) = (upload(&a)?, upload(&b)?);
        let mut c_buf = upload(&vec![f32::NAN; m * n])?;
        compiled.enqueue_gemm(&device.queue, &spec, 1.0, &a_buf, &b_buf, 0.0, &mut c_buf, &[])?.wait()?;
        let mut times = Vec::new();
        for _ in 0..7 {
            let t = Instant::now();
            compiled.enqueue_gemm(&device.queue, &spec, 1.0, &a_buf, &b_buf, 0.0, &mut c_buf, &[])?.wait()?;
            times.push(t.elapsed().as_secs_f64());
        }
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
        let mut c = vec![0.0f32; m * n];
        unsafe { device.queue.enqueue_read_buffer(&c_buf, CL_BLOCKING, 0, &mut c, &[])? };
        let mut worst = 0.0f64;
        for _ in 0..64 {
            let (i, j) = (rng.gen_range(0..m), rng.gen_range(0..n));
            let (mut sum, mut mag) = (0.0f64, 0.0f64);
            for p in 0..k {
                let av = if op == TN { a[p * m + i] } else { a[i * k + p] };
                let bv = if op == NT { b[j * k + p] } else { b[p * n + j] };
                let prod = av as f64 * bv as f64;
                sum += prod;
                mag += prod.abs();
            }
            worst = worst.max((c[i * n + j] as f64 - sum).abs() / (mag * (k as f64 + 2.0) * f32::EPSILON as f64));
        }
        let ok = worst <= 4.0;
        failures += usize::from(!ok);
        let bytes = 4.0 * (m * k + k * n + m * n) as f64;
        println!(
            "{label:<40} {:>10.3} {:>9.2} {:>9.2}  {}",
            median * 1e3,
            2.0 * (m * n * k) as f64 / median / 1e9,
            bytes / median / 1e9,
            if ok { "ok" } else { "FAIL" }
        );
    }
    if failures > 0 {
        return Err(format!("{failures} cases failed the check").into());
    }
    Ok(())
}
