//! What one GEMM call costs beyond its kernel's run, on the default device (FEWFIT_DEVICE): an
//! empty kernel of one work-item enqueued on a queue with and without profiling, with and without
//! an event, fewfit's own calls (`fewfit::gemm`, which returns an event) on both queues,
//! `fewfit::gemm_no_event` on the plain queue, and the C API's `FewfitSgemm` with an event and with
//! `event = NULL` (then none is made). For
//! each: the median time for the enqueue to return and for enqueue + finish (wall), over 200 calls
//! after 20 warm-up calls.
//!
//! `cargo run --release --example launch_cost`

use std::ptr;
use std::time::Instant;

use fewfit::capi::FewfitSgemm;
use fewfit::{gemm, gemm_no_event, DefaultDevice, GemmSpec};
use opencl3::command_queue::CommandQueue;
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem, CL_MEM_READ_WRITE};
use opencl3::program::Program;
use opencl3::types::{cl_event, CL_BLOCKING};

const WARMUP: usize = 20;
const CALLS: usize = 200;

/// Medians (µs) of the time for `call` to return and of call + finish.
fn time(queue: &CommandQueue, mut call: impl FnMut()) -> Result<(f64, f64), Box<dyn std::error::Error>> {
    for _ in 0..WARMUP {
        call();
        queue.finish()?;
    }
    let (mut enqueue, mut wall) = (Vec::new(), Vec::new());
    for _ in 0..CALLS {
        let start = Instant::now();
        call();
        enqueue.push(start.elapsed().as_secs_f64() * 1e6);
        queue.finish()?;
        wall.push(start.elapsed().as_secs_f64() * 1e6);
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    Ok((median(enqueue), median(wall)))
}

/// Runs `enqueue` with somewhere to put an event (null without `with_event`), then releases the
/// event it got, if any.
fn with_optional_event(with_event: bool, enqueue: impl FnOnce(*mut cl_event)) {
    let mut event: cl_event = ptr::null_mut();
    enqueue(if with_event { &mut event } else { ptr::null_mut() });
    if !event.is_null() {
        // SAFETY: the call handed us this event.
        unsafe { opencl3::event::release_event(event) }.expect("clReleaseEvent");
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let device = DefaultDevice::get()?;
    // The OpenCL library that opencl3 loaded at run time (its cl3), whose clEnqueueNDRangeKernel is
    // called directly below to pass a null event pointer.
    let opencl = cl3::load_library().as_ref().map_err(|e| format!("no OpenCL library: {e}"))?;
    println!("device: {} ({}, driver {})", device.info.name, device.info.platform_version, device.info.driver);
    println!("medians of {CALLS} calls after {WARMUP} warm-up calls, µs");
    let queues = [("profiling", &device.profiling_queue), ("plain", &device.queue)];
    let program = Program::create_and_build_from_source(&device.context, "__kernel void empty(void) {}", "")
        .map_err(|log| format!("the empty kernel did not build: {log}"))?;
    let kernel = Kernel::create(&program, "empty")?;
    println!("{:<44} {:>10} {:>10}", "call", "returns", "wall");
    for (name, queue) in queues {
        println!("{:<44} {:>10.1} {:>10.1}", format!("{name} queue: finish alone"), 0.0, time(queue, || {})?.1);
        for with_event in [true, false] {
            let (enqueue, wall) = time(queue, || {
                with_optional_event(with_event, |event_ptr| {
                    let global = [1usize];
                    // Valid queue and kernel; the sizes outlive the call.
                    let status = opencl
                        .clEnqueueNDRangeKernel(
                            queue.get(),
                            kernel.get(),
                            1,
                            ptr::null(),
                            global.as_ptr(),
                            ptr::null(),
                            0,
                            ptr::null(),
                            event_ptr,
                        )
                        .expect("the OpenCL library has clEnqueueNDRangeKernel");
                    assert_eq!(status, 0, "clEnqueueNDRangeKernel");
                })
            })?;
            let label = format!("{name} queue: empty kernel, {} event", if with_event { "with" } else { "no" });
            println!("{label:<44} {enqueue:>10.1} {wall:>10.1}");
        }
    }
    for (m, n, k) in [(1, 4096, 4096), (8, 4096, 4096), (128, 768, 768)] {
        let spec = GemmSpec::row_major(m, n, k);
        let buffer = |len: usize| -> Result<Buffer<f32>, Box<dyn std::error::Error>> {
            let mut buf = unsafe { Buffer::<f32>::create(&device.context, CL_MEM_READ_WRITE, len, ptr::null_mut())? };
            unsafe { device.queue.enqueue_write_buffer(&mut buf, CL_BLOCKING, 0, &vec![0.5f32; len], &[])? };
            Ok(buf)
        };
        let (a, b, mut c) = (buffer(m * k)?, buffer(k * n)?, buffer(m * n)?);
        for (name, queue) in queues {
            let (enqueue, wall) = time(queue, || {
                gemm(queue, &spec, 1.0f32, &a, &b, 0.0, &mut c, &[]).expect("gemm");
            })?;
            println!("{:<44} {enqueue:>10.1} {wall:>10.1}", format!("{name} queue: fewfit::gemm {m}x{n}x{k}"));
        }
        let (enqueue, wall) = time(&device.queue, || {
            gemm_no_event(&device.queue, &spec, 1.0f32, &a, &b, 0.0, &mut c, &[]).expect("gemm_no_event");
        })?;
        println!("{:<44} {enqueue:>10.1} {wall:>10.1}", format!("plain queue: gemm_no_event {m}x{n}x{k}"));
        // The C API on the plain queue, with an event and without (event = NULL).
        for with_event in [true, false] {
            let (enqueue, wall) = time(&device.queue, || {
                with_optional_event(with_event, |event_ptr| {
                    let mut q = device.queue.get();
                    // SAFETY: the buffers hold m*k, k*n and m*n floats; row-major NN, tight leading dimensions.
                    let status = unsafe {
                        FewfitSgemm(
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
                            &mut q,
                            event_ptr,
                        )
                    };
                    assert_eq!(status, 0, "FewfitSgemm");
                })
            })?;
            let label = format!("plain queue: FewfitSgemm {m}x{n}x{k}, {}", if with_event { "event" } else { "NULL" });
            println!("{label:<44} {enqueue:>10.1} {wall:>10.1}");
        }
    }
    Ok(())
}
