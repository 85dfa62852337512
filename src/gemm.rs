//! The GEMM call: C = alpha * op(A) * op(B) + beta * C with BLAS semantics. Arguments are checked
//! before any device work; then the problem is put in the kernels' form (column-major C, each
//! operand contiguous along its outer dimension or along K), a variant is selected, and enqueued.

use std::ptr;

use opencl3::command_queue::{enqueue_marker_with_wait_list, CommandQueue};
use opencl3::event::Event;
use opencl3::memory::{Buffer, ClMem};
use opencl3::types::{cl_command_queue, cl_event, cl_mem};

use crate::cl::{mem_context, mem_len, queue_context};
use crate::dispatch::VariantId;
use crate::engine::Engine;
use crate::error::{cl, Result};
use crate::spec::{invalid, Element, GemmSpec};

/// How to choose the variant of a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Selection {
    /// The device class's tree chooses (what production code uses).
    #[default]
    Auto,
    /// Run this variant of the shipped set (tests, benches, the tuner).
    Forced(VariantId),
}

/// Enqueues a GEMM on raw OpenCL handles and returns its event (the caller releases it). The queue
/// may belong to any context and device; the shipped set is built for it on first use. The buffers
/// hold elements of `T`, which the call names (`enqueue_raw::<half::f16>(...)`).
///
/// # Safety
/// `queue`, the buffers and the events in `wait` must be valid OpenCL objects of one context.
#[allow(clippy::too_many_arguments)]
pub unsafe fn enqueue_raw<T: Element>(
    queue: cl_command_queue,
    spec: &GemmSpec,
    alpha: T::Scalar,
    a: cl_mem,
    b: cl_mem,
    beta: T::Scalar,
    c: cl_mem,
    wait: &[cl_event],
    selection: Selection,
) -> Result<cl_event> {
    enqueue_buffers::<T>(queue, spec, alpha, [a, b, c], beta, wait, selection, true)
}

/// [`enqueue_raw`] with the choice of an event: reads the buffers' lengths, then checks and
/// enqueues through [`enqueue_checked`].
///
/// # Safety
/// As [`enqueue_raw`].
#[allow(clippy::too_many_arguments)]
unsafe fn enqueue_buffers<T: Element>(
    queue: cl_command_queue,
    spec: &GemmSpec,
    alpha: T::Scalar,
    [a, b, c]: [cl_mem; 3],
    beta: T::Scalar,
    wait: &[cl_event],
    selection: Selection,
    want_event: bool,
) -> Result<cl_event> {
    let alpha_is_zero = alpha == T::SCALAR_ZERO;
    let needed = spec.required_lengths(alpha_is_zero)?;
    let mut lengths = [0; 3];
    let mut context = None;
    for (i, mem) in [a, b, c].into_iter().enumerate() {
        if needed[i] > 0 {
            let name = ["a buffer", "b buffer", "c buffer"][i];
            if mem.is_null() {
                return Err(invalid(name, "null", "is null"));
            }
            lengths[i] = mem_len::<T>(mem)?;
            let queue_context = match context {
                Some(c) => c,
                None => *context.insert(queue_context(queue)?),
            };
            if mem_context(mem)? != queue_context {
                return Err(invalid(
                    name,
                    "a buffer of another context",
                    "belongs to another OpenCL context than the queue",
                ));
            }
        }
    }
    enqueue_checked::<T>(queue, spec, alpha, [a, b, c], lengths, beta, wait, selection, want_event)
}

/// [`enqueue_raw`] once the buffers' lengths (in elements) are known: checks the spec against
/// them, then selects and enqueues (the C ABI queries the lengths itself, to report which buffer is bad).
/// Without `want_event` nothing is enqueued for an empty product and the kernels are enqueued
/// without an event where nothing needs one; the returned event is then null (any event fewfit
/// needs itself is released inside).
///
/// # Safety
/// As [`enqueue_raw`]; `lengths` must not exceed the buffers' real lengths.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn enqueue_checked<T: Element>(
    queue: cl_command_queue,
    spec: &GemmSpec,
    alpha: T::Scalar,
    [a, b, c]: [cl_mem; 3],
    lengths: [usize; 3],
    beta: T::Scalar,
    wait: &[cl_event],
    selection: Selection,
    want_event: bool,
) -> Result<cl_event> {
    let alpha_is_zero = alpha == T::SCALAR_ZERO;
    let problem = spec.validate(alpha_is_zero, lengths, [a, b, c])?;
    let engine = Engine::for_queue(queue)?;
    let precision = engine.runs_as(spec.precision(T::PRECISION))?;
    if problem.m == 0 || problem.n == 0 || problem.batch == 0 {
        if !want_event {
            return Ok(ptr::null_mut());
        }
        let wait_ptr = if wait.is_empty() { ptr::null() } else { wait.as_ptr() };
        return enqueue_marker_with_wait_list(queue, wait.len() as u32, wait_ptr)
            .map_err(cl("clEnqueueMarkerWithWaitList"));
    }
    if problem.k == 0 || alpha_is_zero {
        return engine.enqueue_scale::<T>(queue, precision, &problem, beta, wait, want_event);
    }
    let id = match selection {
        Selection::Auto => engine.select(precision, problem.features()),
        Selection::Forced(id) => id,
    };
    let event = engine.enqueue_variant::<T>(queue, precision, id, &problem, alpha, beta, wait, want_event)?;
    if selection == Selection::Auto {
        engine.build_ahead(precision);
    }
    Ok(event)
}

/// Enqueues C = alpha * op(A) * op(B) + beta * C on device buffers, after the events in `wait`,
/// and returns the GEMM's event. Many threads may call at once on one context.
#[allow(clippy::too_many_arguments)]
pub fn gemm<T: Element>(
    queue: &CommandQueue,
    spec: &GemmSpec,
    alpha: T::Scalar,
    a: &Buffer<T>,
    b: &Buffer<T>,
    beta: T::Scalar,
    c: &mut Buffer<T>,
    wait: &[cl_event],
) -> Result<Event> {
    gemm_with(queue, spec, alpha, a, b, beta, c, wait, Selection::Auto)
}

/// [`gemm`] for a caller that orders its work by an in-order queue and needs no event back: the
/// kernels are enqueued without asking the runtime for an event where fewfit itself needs none,
/// which saves NVIDIA's OpenCL about 2 µs a call (docs/PERFORMANCE.md, "Where a small call's wall
/// time goes"). On an out-of-order queue, later work is not ordered after this GEMM.
#[allow(clippy::too_many_arguments)]
pub fn gemm_no_event<T: Element>(
    queue: &CommandQueue,
    spec: &GemmSpec,
    alpha: T::Scalar,
    a: &Buffer<T>,
    b: &Buffer<T>,
    beta: T::Scalar,
    c: &mut Buffer<T>,
    wait: &[cl_event],
) -> Result<()> {
    // SAFETY: the opencl3 objects are valid for the call; the caller's events come from the same context.
    let event = unsafe {
        enqueue_buffers::<T>(queue.get(), spec, alpha, [a.get(), b.get(), c.get()], beta, wait, Selection::Auto, false)?
    };
    debug_assert!(event.is_null(), "a launch asked for no event returned one");
    Ok(())
}

/// [`gemm`] with an explicit [`Selection`].
#[allow(clippy::too_many_arguments)]
pub fn gemm_with<T: Element>(
    queue: &CommandQueue,
    spec: &GemmSpec,
    alpha: T::Scalar,
    a: &Buffer<T>,
    b: &Buffer<T>,
    beta: T::Scalar,
    c: &mut Buffer<T>,
    wait: &[cl_event],
    selection: Selection,
) -> Result<Event> {
    // SAFETY: the opencl3 objects are valid for the call; the caller's events come from the same context.
    let event =
        unsafe { enqueue_raw::<T>(queue.get(), spec, alpha, a.get(), b.get(), beta, c.get(), wait, selection)? };
    Ok(Event::new(event))
}

/// The variant a call would run on a queue's device (after fallback), without running it.
pub fn chosen_variant<T: Element>(queue: &CommandQueue, spec: &GemmSpec) -> Result<VariantId> {
    let engine = Engine::for_queue(queue.get())?;
    let precision = engine.runs_as(spec.precision(T::PRECISION))?;
    let id = engine.select(precision, spec.kernel_features());
    engine.resolve(id, precision)
}
