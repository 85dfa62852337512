//! The cost of a process's first GEMM: opens the device, uploads the operands, then times one
//! row-major SGEMM from the call to the end of `clFinish`, through fewfit (`fewfit::gemm`, the
//! device's tree choosing) or CLBlast (`CLBlastSgemm` from `libclblast.so.1`, loaded at run time),
//! and a second call of the same shape and one of another shape. Run each in a fresh process with
//! every cache off to see a cold start: `FEWFIT_CACHE_DIR` an empty folder, `CUDA_CACHE_DISABLE=1`
//! on NVIDIA, `POCL_KERNEL_CACHE=0` on PoCL (scripts/device/first-call.sh does).
//!
//! `fewfit-all` times fewfit as it was before its first call built only its own variant: the
//! tree's whole reachable set is built first (`Engine::warm_up`), inside the timed call.
//!
//! ```sh
//! cargo run --release -p fewfit-bench --example first_call -- fewfit|fewfit-all|clblast 1024 1024 1024
//! ```

use std::error::Error;
use std::time::Instant;

use fewfit::capi::SgemmFn;
use fewfit::{gemm, DefaultDevice, Engine, GemmSpec, Precision};
use opencl3::memory::{Buffer, ClMem, CL_MEM_READ_WRITE};
use opencl3::types::CL_BLOCKING;

type Res<T> = Result<T, Box<dyn Error>>;

/// The library that runs the GEMM.
enum Library {
    Fewfit,
    /// fewfit with the device's tree's whole reachable set built within the first call.
    FewfitAll,
    Clblast(libloading::Symbol<'static, SgemmFn>),
}

/// Runs one row-major M x N x K SGEMM (alpha 1, beta 0) on uploaded operands and returns the
/// seconds from the call to the end of `clFinish`.
fn run(device: &DefaultDevice, library: &Library, (m, n, k): (usize, usize, usize)) -> Res<f64> {
    let create = |len: usize| -> Res<Buffer<f32>> {
        // SAFETY: no host pointer; the buffer is written before it is read.
        let mut buf = unsafe { Buffer::<f32>::create(&device.context, CL_MEM_READ_WRITE, len, std::ptr::null_mut())? };
        let data: Vec<f32> = (0..len).map(|i| (i % 17) as f32 / 17.0 - 0.5).collect();
        // SAFETY: `data` outlives the blocking write.
        unsafe { device.queue.enqueue_write_buffer(&mut buf, CL_BLOCKING, 0, &data, &[])? };
        Ok(buf)
    };
    let (a, b, mut c) = (create(m * k)?, create(k * n)?, create(m * n)?);
    let start = Instant::now();
    match library {
        Library::Fewfit | Library::FewfitAll => {
            if matches!(library, Library::FewfitAll) {
                Engine::for_queue(device.queue.get())?.warm_up(Precision::F32)?;
            }
            gemm(&device.queue, &GemmSpec::row_major(m, n, k), 1.0f32, &a, &b, 0.0, &mut c, &[])?;
        }
        Library::Clblast(sgemm) => {
            let mut queue = device.queue.get();
            // SAFETY: the buffers and queue are valid; CLBlast's row-major NN with tight leading dimensions.
            let status = unsafe {
                sgemm(
                    101,
                    111,
                    111,
                    m,
                    n,
                    k,
                    1.0,
                    a.get(),
                    0,
                    k,
                    b.get(),
                    0,
                    n,
                    0.0,
                    c.get(),
                    0,
                    n,
                    &mut queue,
                    std::ptr::null_mut(),
                )
            };
            if status != 0 {
                return Err(format!("CLBlastSgemm returned {status}").into());
            }
        }
    }
    device.queue.finish()?;
    Ok(start.elapsed().as_secs_f64())
}

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: first_call fewfit|fewfit-all|clblast M N K";
    let dims: Vec<usize> = args.iter().skip(1).map(|a| a.parse()).collect::<Result<_, _>>().map_err(|_| usage)?;
    let (Some(which), &[m, n, k]) = (args.first(), &dims[..]) else { return Err(usage.into()) };
    let library = match which.as_str() {
        "fewfit" => Library::Fewfit,
        "fewfit-all" => Library::FewfitAll,
        "clblast" => {
            // SAFETY: loading CLBlast runs only its initialisers; the symbol's type matches clblast_c.h.
            let lib = Box::leak(Box::new(unsafe { libloading::Library::new("libclblast.so.1")? }));
            Library::Clblast(unsafe { lib.get::<SgemmFn>(b"CLBlastSgemm\0")? })
        }
        _ => return Err(usage.into()),
    };
    let device = DefaultDevice::get()?;
    println!("device: {} ({})", device.info.name, device.info.driver);
    for (label, shape) in [("first", (m, n, k)), ("second", (m, n, k)), ("new shape", (m / 2 + 1, n + 7, k / 3 + 5))] {
        let seconds = run(device, &library, shape)?;
        println!("{which} {label} call {}x{}x{}: {seconds:.3} s", shape.0, shape.1, shape.2);
    }
    Ok(())
}
