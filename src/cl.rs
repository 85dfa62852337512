//! The OpenCL helpers under the rest of the crate: events and programs held and released on
//! drop, kernel arguments set in order, kernel launches with or without an event, and buffer and
//! queue queries. The bottom of the crate with `spec`: it uses nothing of it but the error type.

use std::ffi::CString;
use std::ptr;

use opencl3::command_queue::{get_command_queue_info, CL_QUEUE_CONTEXT};
use opencl3::error_codes::{CL_SUCCESS, DLOPEN_FUNCTION_NOT_AVAILABLE, DLOPEN_RUNTIME_LOAD_FAILED};
use opencl3::kernel::{create_kernel, set_kernel_arg, Kernel};
use opencl3::memory::{get_mem_object_info, CL_MEM_CONTEXT, CL_MEM_SIZE};
use opencl3::program::{get_program_info, release_program, CL_PROGRAM_BINARIES, CL_PROGRAM_DEVICES};
use opencl3::types::{cl_command_queue, cl_context, cl_device_id, cl_event, cl_mem, cl_program};

use crate::error::{cl, Error, Result};
use crate::fault::{self, FaultPoint};

/// An event this code enqueued and still holds, released on drop.
pub(crate) struct Event(pub(crate) cl_event);

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: we own one reference to the event.
        unsafe {
            let _ = opencl3::event::release_event(self.0);
        }
    }
}

/// An OpenCL program handle, released on drop.
pub(crate) struct Program(pub(crate) cl_program);

// SAFETY: OpenCL program objects may be used from any thread.
unsafe impl Send for Program {}
unsafe impl Sync for Program {}

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: we own one reference to the program.
        unsafe {
            let _ = release_program(self.0);
        }
    }
}

impl Program {
    /// The program's binary for `device`, if the driver gives one.
    pub(crate) fn binary_for(&self, device: cl_device_id) -> Option<Vec<u8>> {
        let devices: Vec<isize> = get_program_info(self.0, CL_PROGRAM_DEVICES).ok()?.into();
        let index = devices.iter().position(|&d| d as cl_device_id == device)?;
        let binaries: Vec<Vec<u8>> = get_program_info(self.0, CL_PROGRAM_BINARIES).ok()?.into();
        binaries.into_iter().nth(index).filter(|b| !b.is_empty())
    }

    /// A kernel of the program.
    pub(crate) fn kernel(&self, name: &str) -> Result<Kernel> {
        let name = CString::new(name).expect("kernel names hold no NUL");
        Ok(Kernel::new(create_kernel(self.0, &name).map_err(cl("clCreateKernel"))?))
    }
}

/// Sets a kernel's arguments in order.
pub(crate) struct KernelArgs<'k> {
    kernel: &'k Kernel,
    index: u32,
}

impl<'k> KernelArgs<'k> {
    /// Arguments of `kernel`, from the first.
    pub(crate) fn new(kernel: &'k Kernel) -> Self {
        KernelArgs { kernel, index: 0 }
    }

    /// Sets the next argument to `v`, by value.
    pub(crate) fn value<V>(&mut self, v: V) -> Result<&mut Self> {
        // SAFETY: the argument types follow the kernel signatures in kernels/*.cl.
        unsafe { set_kernel_arg(self.kernel.get(), self.index, std::mem::size_of::<V>(), &v as *const V as *const _) }
            .map_err(cl("clSetKernelArg"))?;
        self.index += 1;
        Ok(self)
    }

    /// Sets the next argument to `v` as a 32-bit `int`, or fails where it does not fit (a checked
    /// problem's numbers always do: `GemmSpec::validate` bounds them).
    pub(crate) fn int(&mut self, v: usize) -> Result<&mut Self> {
        let index = self.index;
        let v = i32::try_from(v).map_err(|_| Error::InvalidArgument {
            name: "kernel argument",
            value: format!("{v} (argument {index})"),
            reason: "exceeds 2^31 - 1, the kernels' int range".into(),
        })?;
        self.value(v)
    }

    /// Sets the next argument to a buffer.
    pub(crate) fn mem(&mut self, m: cl_mem) -> Result<&mut Self> {
        self.value(m)
    }
}

/// Enqueues a kernel and returns its event, or null without `want_event`: then the runtime makes
/// none, which saves NVIDIA's OpenCL 1.7-2.9 µs an enqueue (examples/launch_cost.rs). opencl3
/// always asks for an event, so this calls `clEnqueueNDRangeKernel` itself, through the OpenCL
/// library that opencl3's cl3 loaded at run time.
pub(crate) fn launch(
    queue: cl_command_queue,
    kernel: &Kernel,
    global: [usize; 3],
    local: Option<[usize; 3]>,
    wait: &[cl_event],
    want_event: bool,
) -> Result<cl_event> {
    let local_ptr = local.as_ref().map_or(ptr::null(), |l| l.as_ptr());
    let wait_ptr = if wait.is_empty() { ptr::null() } else { wait.as_ptr() };
    let mut event: cl_event = ptr::null_mut();
    let event_ptr = if want_event { &mut event as *mut cl_event } else { ptr::null_mut() };
    // The queue, kernel and events are valid; the sizes and `event` outlive the call.
    let status = if let Some(code) = fault::injected(FaultPoint::Enqueue) {
        code
    } else {
        match cl3::load_library() {
            Ok(library) => library
                .clEnqueueNDRangeKernel(
                    queue,
                    kernel.get(),
                    3,
                    ptr::null(),
                    global.as_ptr(),
                    local_ptr,
                    wait.len() as u32,
                    wait_ptr,
                    event_ptr,
                )
                .unwrap_or(DLOPEN_FUNCTION_NOT_AVAILABLE),
            Err(_) => DLOPEN_RUNTIME_LOAD_FAILED,
        }
    };
    if status != CL_SUCCESS {
        return Err(cl("clEnqueueNDRangeKernel")(status));
    }
    Ok(event)
}

/// Length in elements of T of a buffer.
pub(crate) fn mem_len<T>(mem: cl_mem) -> Result<usize> {
    let bytes: usize = get_mem_object_info(mem, CL_MEM_SIZE).map_err(cl("clGetMemObjectInfo"))?.into();
    Ok(bytes / std::mem::size_of::<T>())
}

/// The context of a buffer.
pub(crate) fn mem_context(mem: cl_mem) -> Result<cl_context> {
    let context: isize = get_mem_object_info(mem, CL_MEM_CONTEXT).map_err(cl("clGetMemObjectInfo"))?.into();
    Ok(context as cl_context)
}

/// The context of a command queue.
pub(crate) fn queue_context(queue: cl_command_queue) -> Result<cl_context> {
    let context: isize = get_command_queue_info(queue, CL_QUEUE_CONTEXT).map_err(cl("clGetCommandQueueInfo"))?.into();
    Ok(context as cl_context)
}
