//! Device buffers that launches reuse instead of creating their own: the per-tile flags of split-K
//! launches on NVIDIA GPUs, the scratch buffers of operands copied transposed first
//! (`LaunchPolicy::transposes_first`) and the f32 workspaces of 16-bit launches that split K.
//!
//! A launch leases a buffer of at least the bytes it needs and records the event of its last
//! command that uses it. Two launches must not share a buffer while both can run: a buffer is
//! reused by the next launch on the same in-order queue (the queue runs them one after another),
//! or on any queue once its last launch has completed; otherwise a new one is made. A launch on an
//! in-order queue may go without an event (its caller wants none): its buffer is then reused by
//! that queue alone. A lease holds its pool's lock until it is dropped, so a thread holds at most
//! one lease of a pool at a time.

use std::ptr;
use std::sync::{Mutex, MutexGuard};

use opencl3::command_queue::{
    get_command_queue_info, CL_QUEUE_CONTEXT, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, CL_QUEUE_PROPERTIES,
};
use opencl3::event::{get_event_info, retain_event, CL_COMPLETE, CL_EVENT_COMMAND_EXECUTION_STATUS};
use opencl3::memory::{create_buffer, Buffer, ClMem, CL_MEM_COPY_HOST_PTR, CL_MEM_READ_WRITE};
use opencl3::types::{cl_command_queue, cl_context, cl_event, cl_mem};

use crate::cl::Event;
use crate::error::{cl, Result};
use crate::fault::{self, FaultPoint};

/// Buffers of one kind, each reused by launch after launch.
pub(crate) struct BufferPool {
    /// Whether a new buffer starts zeroed (else its contents are undefined).
    zeroed: bool,
    /// The least size of a new buffer, in bytes.
    min_bytes: usize,
    slots: Mutex<Vec<Slot>>,
}

/// One buffer and what last used it.
struct Slot {
    mem: Buffer<u8>,
    bytes: usize,
    /// The launches made on this buffer so far.
    uses: u32,
    /// The queue of the last launch, and what is known of its end.
    queue: cl_command_queue,
    last: LastLaunch,
}

/// What a slot knows of its last launch.
enum LastLaunch {
    /// None yet.
    Nothing,
    /// Its event: the buffer is free once it completes.
    Event(Event),
    /// None: launched without an event on an in-order queue, so only that queue may reuse the buffer.
    Unobserved,
}

// SAFETY: the raw queue handle is only compared, never used; OpenCL objects are thread-safe.
unsafe impl Send for Slot {}

/// One launch's buffer, held (with its pool's lock) until the launch has been enqueued.
pub(crate) struct Lease<'a> {
    slots: MutexGuard<'a, Vec<Slot>>,
    index: usize,
    queue: cl_command_queue,
    in_order: bool,
    /// Whether the launch has recorded how its end is known.
    recorded: bool,
}

impl BufferPool {
    /// A pool whose new buffers are at least `min_bytes` long and start zeroed where `zeroed`.
    pub(crate) const fn new(zeroed: bool, min_bytes: usize) -> BufferPool {
        BufferPool { zeroed, min_bytes, slots: Mutex::new(Vec::new()) }
    }

    /// A buffer of at least `bytes` for a launch on `queue`: a free one of the pool, else a new
    /// one of [`new_buffer_bytes`], which replaces a free one too small (or worn out) or joins the
    /// pool.
    pub(crate) fn lease(&self, queue: cl_command_queue, bytes: usize, max_bytes: usize) -> Result<Lease<'_>> {
        let mut slots = self.slots.lock().expect("buffer pool lock");
        let props: u64 =
            get_command_queue_info(queue, CL_QUEUE_PROPERTIES).map_err(cl("clGetCommandQueueInfo"))?.into();
        let in_order = props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE == 0;
        let done = slots.iter().map(|s| last_done(&s.last)).collect::<Result<Vec<_>>>()?;
        let found = slots.iter().zip(&done).position(|(slot, &last_done)| {
            slot.bytes >= bytes && slot.uses < u32::MAX && reusable(slot.queue, queue, in_order, last_done)
        });
        let index = match found {
            Some(i) => i,
            None => {
                let slot = Slot::new(queue, new_buffer_bytes(bytes, self.min_bytes, max_bytes), self.zeroed)?;
                match done.iter().position(|&d| d) {
                    Some(i) => {
                        slots[i] = slot;
                        i
                    }
                    None => {
                        slots.push(slot);
                        slots.len() - 1
                    }
                }
            }
        };
        slots[index].uses += 1;
        Ok(Lease { slots, index, queue, in_order, recorded: false })
    }

    /// Releases the buffers that no launch can still use, and returns their bytes. A buffer whose
    /// last launch went without an event stays (its queue may still run it).
    pub(crate) fn release_free(&self) -> Result<usize> {
        let mut slots = self.slots.lock().expect("buffer pool lock");
        let done = slots.iter().map(|s| last_done(&s.last)).collect::<Result<Vec<_>>>()?;
        let released = slots.iter().zip(&done).filter(|(_, &d)| d).map(|(s, _)| s.bytes).sum();
        let mut done = done.into_iter();
        slots.retain(|_| !done.next().unwrap_or(false));
        Ok(released)
    }
}

impl Lease<'_> {
    /// The buffer.
    pub(crate) fn mem(&self) -> cl_mem {
        self.slots[self.index].mem.get()
    }

    /// This launch's number among the launches made on the buffer, from 1.
    pub(crate) fn use_number(&self) -> u32 {
        self.slots[self.index].uses
    }

    /// Whether the queue is in order, so that the launch may go without an event.
    pub(crate) fn in_order(&self) -> bool {
        self.in_order
    }

    /// Records the event of the launch's last command on the buffer, so that the buffer is reused
    /// only when that is safe.
    pub(crate) fn launched(mut self, event: cl_event) -> Result<()> {
        // SAFETY: `event` is a valid event; the slot keeps one reference of its own.
        unsafe { retain_event(event) }.map_err(cl("clRetainEvent"))?;
        let queue = self.queue;
        let slot = &mut self.slots[self.index];
        slot.queue = queue;
        slot.last = LastLaunch::Event(Event(event));
        self.recorded = true;
        Ok(())
    }

    /// Takes the buffer out of the pool (released once no enqueued command uses it): the device
    /// refused it at its first use.
    pub(crate) fn discard(mut self) {
        self.slots.swap_remove(self.index);
        self.recorded = true;
    }

    /// Records a launch made without an event, which only an in-order queue may make.
    pub(crate) fn launched_unobserved(self) {
        debug_assert!(self.in_order, "a launch on an out-of-order queue needs its event");
        // Dropping the lease unrecorded leaves the buffer to this queue.
    }
}

impl Drop for Lease<'_> {
    /// Without a recorded event (a launch without one, or an enqueue that failed part way and may
    /// have left commands on the buffer), only this queue, if in order, may reuse the buffer. A
    /// discarded buffer has left the pool already.
    fn drop(&mut self) {
        if !self.recorded {
            let queue = self.queue;
            let slot = &mut self.slots[self.index];
            slot.queue = queue;
            slot.last = LastLaunch::Unobserved;
        }
    }
}

/// The size of a new buffer for `bytes`: at least `min_bytes`, rounded up to a multiple of an
/// eighth of the power of two at or below it (at most 12.5 % more), so that growing shapes make few
/// buffers and waste little; `bytes` itself where the rounded size would pass `max_bytes`.
fn new_buffer_bytes(bytes: usize, min_bytes: usize, max_bytes: usize) -> usize {
    let bytes = bytes.max(min_bytes).max(1);
    let power_below = 1usize << (usize::BITS - 1 - bytes.leading_zeros());
    let step = (power_below / 8).max(1);
    let rounded = bytes.div_ceil(step).saturating_mul(step);
    if rounded <= max_bytes {
        rounded
    } else {
        bytes
    }
}

/// Whether a launch on `queue` may use a buffer that a launch on `last_queue` used last.
fn reusable(last_queue: cl_command_queue, queue: cl_command_queue, in_order: bool, last_done: bool) -> bool {
    last_done || (in_order && last_queue == queue)
}

/// Whether a slot's last launch is known to have completed (or failed, which ends it too).
fn last_done(last: &LastLaunch) -> Result<bool> {
    match last {
        LastLaunch::Nothing => Ok(true),
        LastLaunch::Unobserved => Ok(false),
        LastLaunch::Event(event) => {
            let status: i32 =
                get_event_info(event.0, CL_EVENT_COMMAND_EXECUTION_STATUS).map_err(cl("clGetEventInfo"))?.into();
            Ok(status <= CL_COMPLETE)
        }
    }
}

impl Slot {
    /// A buffer of `bytes` in the queue's context, zeroed where `zeroed`.
    fn new(queue: cl_command_queue, bytes: usize, zeroed: bool) -> Result<Slot> {
        let context: isize =
            get_command_queue_info(queue, CL_QUEUE_CONTEXT).map_err(cl("clGetCommandQueueInfo"))?.into();
        let mut zeros = if zeroed { vec![0u8; bytes] } else { Vec::new() };
        let (flags, host) = match zeroed {
            true => (CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, zeros.as_mut_ptr().cast()),
            false => (CL_MEM_READ_WRITE, ptr::null_mut()),
        };
        if let Some(code) = fault::injected(FaultPoint::Allocation) {
            return Err(cl("clCreateBuffer")(code));
        }
        // SAFETY: the context is the queue's; `zeros`, where passed, is `bytes` long and copied at once.
        let mem = unsafe { create_buffer(context as cl_context, flags, bytes, host) }.map_err(cl("clCreateBuffer"))?;
        Ok(Slot { mem: Buffer::new(mem), bytes, uses: 0, queue: ptr::null_mut(), last: LastLaunch::Nothing })
    }
}

#[cfg(test)]
mod tests {
    use super::{last_done, new_buffer_bytes, reusable, LastLaunch};

    #[test]
    fn new_buffers_round_up_by_at_most_an_eighth() {
        assert_eq!(new_buffer_bytes(100, 4096, usize::MAX), 4096, "at least the pool's least size");
        assert_eq!(new_buffer_bytes(1 << 28, 0, usize::MAX), 1 << 28, "a power of two stays");
        // 6144 x 6144 floats (144 MiB) take 144 MiB, not 256; one byte more takes 160.
        assert_eq!(new_buffer_bytes(6144 * 6144 * 4, 0, usize::MAX), 144 << 20);
        assert_eq!(new_buffer_bytes((144 << 20) + 1, 0, usize::MAX), 160 << 20);
        for bytes in [1, 7, 1000, 4097, 151 << 20, (1 << 30) + 1] {
            let new = new_buffer_bytes(bytes, 0, usize::MAX);
            assert!(new >= bytes && new as f64 <= bytes as f64 * 1.125 + 1.0, "{bytes} -> {new}");
        }
        assert_eq!(new_buffer_bytes(1000, 0, 1000), 1000, "never past the device's largest buffer");
        assert_eq!(new_buffer_bytes(0, 0, 10), 1, "an empty request still gets a buffer");
    }

    #[test]
    fn a_buffer_is_reused_only_when_no_launch_on_it_can_still_run() {
        let (q1, q2) = (std::ptr::dangling_mut::<u8>().cast(), std::ptr::dangling_mut::<u64>().cast());
        assert!(reusable(q1, q1, true, false), "the same in-order queue runs its launches in turn");
        assert!(!reusable(q1, q1, false, false), "an out-of-order queue may overlap them");
        assert!(!reusable(q1, q2, true, false), "another queue may run beside it");
        assert!(reusable(q1, q2, false, true), "a completed launch is over on any queue");
        assert!(last_done(&LastLaunch::Nothing).unwrap(), "an unused buffer is free");
        assert!(!last_done(&LastLaunch::Unobserved).unwrap(), "a launch without an event may still run");
    }
}
