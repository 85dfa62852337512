//! The per-tile flags of split-K launches on NVIDIA GPUs: split 0 of each tile stores C and sets
//! the tile's flag to the launch's epoch; the other splits wait for it before they add into C. This
//! replaces the `scale_c` kernel (and its launch gap) before every split launch.
//!
//! A flag buffer is never zeroed between launches: each launch on it gets a new epoch, so a flag
//! left by an earlier launch never matches. Two launches must not share a buffer while both can
//! run: a buffer is reused by the next launch on the same in-order queue (the queue runs them one
//! after another), or on any queue once its last launch has completed; otherwise a new one is made.
//! A launch on an in-order queue may go without an event (its caller wants none): its buffer is then
//! reused by that queue alone.

use std::ptr;
use std::sync::Mutex;

use opencl3::command_queue::{
    get_command_queue_info, CL_QUEUE_CONTEXT, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, CL_QUEUE_PROPERTIES,
};
use opencl3::event::{get_event_info, retain_event, CL_COMPLETE, CL_EVENT_COMMAND_EXECUTION_STATUS};
use opencl3::memory::{create_buffer, Buffer, ClMem, CL_MEM_COPY_HOST_PTR, CL_MEM_READ_WRITE};
use opencl3::types::{cl_command_queue, cl_context, cl_event, cl_mem};

use crate::engine::Event;
use crate::error::{cl, Result};

/// Flag buffers of one variant's split launches.
#[derive(Default)]
pub(crate) struct TileFlags {
    slots: Mutex<Vec<Slot>>,
}

/// One flag buffer and what last used it.
struct Slot {
    flags: Buffer<u32>,
    /// Number of flags.
    capacity: usize,
    /// The epoch of the last launch on these flags (0: none yet; the buffer starts zeroed).
    epoch: u32,
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

/// What a launch needs from its flags: the buffer and the epoch to pass to the kernel.
pub(crate) struct FlagsForLaunch<'a> {
    /// The buffer of at least the launch's tiles flags.
    pub(crate) flags: cl_mem,
    /// The epoch the launch's split 0 groups set.
    pub(crate) epoch: u32,
    /// Whether the queue is in order, so that the launch may go without an event.
    pub(crate) in_order: bool,
    slot: &'a mut Slot,
}

impl FlagsForLaunch<'_> {
    /// Records the launch's event, so that the buffer is reused only when that is safe.
    pub(crate) fn launched(self, queue: cl_command_queue, event: cl_event) -> Result<()> {
        // SAFETY: `event` is a valid event; the slot keeps one reference of its own.
        unsafe { retain_event(event) }.map_err(cl("clRetainEvent"))?;
        self.slot.queue = queue;
        self.slot.last = LastLaunch::Event(Event(event));
        Ok(())
    }

    /// Records a launch made without an event, which only an in-order queue may make.
    pub(crate) fn launched_unobserved(self, queue: cl_command_queue) {
        debug_assert!(self.in_order, "a launch on an out-of-order queue needs its event");
        self.slot.queue = queue;
        self.slot.last = LastLaunch::Unobserved;
    }
}

/// Whether a launch on `queue` may use a buffer that a launch on `last_queue` used last.
fn reusable(last_queue: cl_command_queue, queue: cl_command_queue, in_order: bool, last_done: bool) -> bool {
    last_done || (in_order && last_queue == queue)
}

impl TileFlags {
    /// Runs `launch` with flags for `tiles` tiles on `queue`, holding them until it has recorded
    /// its event with [`FlagsForLaunch::launched`].
    pub(crate) fn with_flags<R>(
        &self,
        queue: cl_command_queue,
        tiles: usize,
        launch: impl FnOnce(FlagsForLaunch<'_>) -> Result<R>,
    ) -> Result<R> {
        let mut slots = self.slots.lock().expect("tile flags lock");
        let props: u64 =
            get_command_queue_info(queue, CL_QUEUE_PROPERTIES).map_err(cl("clGetCommandQueueInfo"))?.into();
        let in_order = props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE == 0;
        let done = slots.iter().map(|s| last_done(&s.last)).collect::<Result<Vec<_>>>()?;
        let found = slots.iter().zip(&done).position(|(slot, &last_done)| {
            slot.capacity >= tiles && slot.epoch < u32::MAX && reusable(slot.queue, queue, in_order, last_done)
        });
        let index = match found {
            Some(i) => i,
            None => {
                // A slot that is free but too small (or worn out) is replaced; else one is added.
                let slot = Slot::new(queue, tiles.next_power_of_two().max(1024))?;
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
        let slot = &mut slots[index];
        slot.epoch += 1;
        launch(FlagsForLaunch { flags: slot.flags.get(), epoch: slot.epoch, in_order, slot })
    }
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
    /// A zeroed buffer of `capacity` flags in the queue's context.
    fn new(queue: cl_command_queue, capacity: usize) -> Result<Slot> {
        let context: isize =
            get_command_queue_info(queue, CL_QUEUE_CONTEXT).map_err(cl("clGetCommandQueueInfo"))?.into();
        let mut zeros = vec![0u32; capacity];
        // SAFETY: the context is the queue's; `zeros` is `capacity` flags long and copied at once.
        let mem = unsafe {
            create_buffer(
                context as cl_context,
                CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                capacity * std::mem::size_of::<u32>(),
                zeros.as_mut_ptr().cast(),
            )
        }
        .map_err(cl("clCreateBuffer"))?;
        Ok(Slot { flags: Buffer::new(mem), capacity, epoch: 0, queue: ptr::null_mut(), last: LastLaunch::Nothing })
    }
}

#[cfg(test)]
mod tests {
    use super::{last_done, reusable, LastLaunch};

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
