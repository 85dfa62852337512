//! The 16-bit loads and stores of kernels/common.cl on the test device, for all 65,536 bit patterns
//! of f16 (-DSTORAGE_F16: OpenCL's vload_half and vstore_half_rte) and of bf16 (-DSTORAGE_BF16: bit
//! operations). The loads (GREAD, and GLOAD_VEC of 2 to 16 elements, aligned and not) against
//! `half`'s `to_f32`, bit for bit: zeros of both signs, subnormals, normals and infinities; a NaN
//! stays a NaN of the same sign and payload (quieted or not). The store (GWRITE) of what GREAD
//! loaded gives back every pattern but NaNs, which stay NaNs.

mod common;

use common::*;
use fewfit::half::{bf16, f16};
use fewfit::tuning::KERNEL_TEMPLATES;
use fewfit::Element;
use opencl3::kernel::{ExecuteKernel, Kernel};
use opencl3::memory::Buffer;
use opencl3::program::Program;

/// Test kernels over common.cl: `widen` (GREAD), `widen2` ... `widen16` (GLOAD_VEC, aligned where
/// `offset` is 0), each writing element i of `input + offset` as a float to `out[i]`; `round_trip`
/// (GREAD, then GWRITE).
const KERNELS: &str = r#"
__kernel void widen(const __global greal* input, const int offset, __global float* out) {
    const int i = get_global_id(0);
    out[i] = GREAD(input + offset, i);
}
#define WIDEN(n) \
    __kernel void widen##n(const __global greal* input, const int offset, __global float* out) { \
        const int i = get_global_id(0) * n; \
        vstore##n(GLOAD_VEC(n, input + offset + i, offset == 0), 0, out + i); \
    }
WIDEN(2)
WIDEN(4)
WIDEN(8)
WIDEN(16)
__kernel void round_trip(const __global greal* input, __global greal* out) {
    const int i = get_global_id(0);
    GWRITE(out, i, GREAD(input, i));
}
"#;

/// Every bit pattern once.
const PATTERNS: usize = 1 << 16;

/// A 16-bit storage type: its build option, its conversions, where its mantissa lies.
trait Storage: Element + Copy {
    const OPTION: &'static str;
    /// The mantissa bits.
    const MANTISSA: u16;
    fn from_bits(bits: u16) -> Self;
    fn to_bits(self) -> u16;
    fn to_f32(self) -> f32;
}

impl Storage for f16 {
    const OPTION: &'static str = "-DSTORAGE_F16";
    const MANTISSA: u16 = 0x3FF;
    fn from_bits(bits: u16) -> Self {
        f16::from_bits(bits)
    }
    fn to_bits(self) -> u16 {
        f16::to_bits(self)
    }
    fn to_f32(self) -> f32 {
        f16::to_f32(self)
    }
}

impl Storage for bf16 {
    const OPTION: &'static str = "-DSTORAGE_BF16";
    const MANTISSA: u16 = 0x7F;
    fn from_bits(bits: u16) -> Self {
        bf16::from_bits(bits)
    }
    fn to_bits(self) -> u16 {
        bf16::to_bits(self)
    }
    fn to_f32(self) -> f32 {
        bf16::to_f32(self)
    }
}

/// Whether `got` is what the load of `bits` must give.
fn widened_right<T: Storage>(bits: u16, got: f32) -> bool {
    let want = T::from_bits(bits).to_f32();
    if want.is_nan() {
        // The payload: the mantissa but its top (quiet) bit, at the top of the float's mantissa.
        let shift = 23 - T::MANTISSA.count_ones();
        let payload_mask = (u32::from(T::MANTISSA) >> 1) << shift;
        let payload = (u32::from(bits) << shift) & payload_mask;
        return got.is_nan()
            && got.is_sign_negative() == want.is_sign_negative()
            && got.to_bits() & payload_mask == payload;
    }
    got.to_bits() == want.to_bits()
}

fn every_bit_pattern<T: Storage>() {
    let Some(device) = device() else { return };
    let common = KERNEL_TEMPLATES.iter().find(|(name, _)| *name == "common.cl").unwrap().1;
    let source = format!("{common}\n{KERNELS}");
    let options = format!("-DPRECISION=32 {}", T::OPTION);
    let program =
        Program::create_and_build_from_source(&device.context, &source, &options).unwrap_or_else(|log| panic!("{log}"));
    // Every pattern, then 16 more so that a load from offset 1 stays inside.
    let patterns: Vec<u16> = (0..PATTERNS + 16).map(|i| (i % PATTERNS) as u16).collect();
    let input = upload(device, &patterns.iter().map(|&b| T::from_bits(b)).collect::<Vec<T>>());
    let out = upload(device, &vec![0f32; PATTERNS]);
    for (name, width) in [("widen", 1), ("widen2", 2), ("widen4", 4), ("widen8", 8), ("widen16", 16)] {
        let kernel = Kernel::create(&program, name).unwrap();
        for offset in [0i32, 1] {
            let event = unsafe {
                ExecuteKernel::new(&kernel)
                    .set_arg(&input)
                    .set_arg(&offset)
                    .set_arg(&out)
                    .set_global_work_size(PATTERNS / width)
                    .enqueue_nd_range(&device.queue)
            }
            .unwrap();
            event.wait().unwrap();
            let got = download(device, &out, PATTERNS);
            let wrong: Vec<String> = got
                .iter()
                .enumerate()
                .map(|(i, &g)| (patterns[i + offset as usize], g))
                .filter(|&(bits, g)| !widened_right::<T>(bits, g))
                .take(8)
                .map(|(bits, g)| format!("{bits:#06x} -> {g:e} ({:#010x})", g.to_bits()))
                .collect();
            assert!(wrong.is_empty(), "{} {name} at offset {offset}: {wrong:?}", T::OPTION);
        }
    }
    let kernel = Kernel::create(&program, "round_trip").unwrap();
    let stored: Buffer<T> = upload(device, &[T::from_bits(0); PATTERNS]);
    let event = unsafe {
        ExecuteKernel::new(&kernel)
            .set_arg(&input)
            .set_arg(&stored)
            .set_global_work_size(PATTERNS)
            .enqueue_nd_range(&device.queue)
    }
    .unwrap();
    event.wait().unwrap();
    for (&bits, back) in patterns.iter().zip(download(device, &stored, PATTERNS).into_iter().map(T::to_bits)) {
        let right = match T::from_bits(bits).to_f32().is_nan() {
            true => T::from_bits(back).to_f32().is_nan(),
            false => back == bits,
        };
        assert!(right, "{} {bits:#06x} stored back as {back:#06x}", T::OPTION);
    }
}

#[test]
fn f16_loads_widen_every_bit_pattern_exactly_and_stores_give_it_back() {
    every_bit_pattern::<f16>();
}

#[test]
fn bf16_loads_widen_every_bit_pattern_exactly_and_stores_give_it_back() {
    every_bit_pattern::<bf16>();
}
