//! Fault injection for tests (cargo feature `fault-injection`): makes the Nth allocation of a
//! scratch buffer, program build or kernel enqueue from now fail with a chosen OpenCL status code,
//! so that tests reach the failure paths a healthy device rarely takes. Without the feature
//! nothing can be armed and every check is a constant `None`. The bottom of the crate with
//! `error`: it uses nothing of it.

/// An operation where a fault can be injected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultPoint {
    /// `clCreateBuffer` of a scratch buffer (the operands copied transposed, split-K flags).
    Allocation = 0,
    /// `clBuildProgram` of a program, from source or from a cached binary.
    Build = 1,
    /// `clEnqueueNDRangeKernel` of any kernel fewfit launches.
    Enqueue = 2,
}

#[cfg(feature = "fault-injection")]
mod armed {
    use std::sync::Mutex;

    /// Per point: operations left before the fault (1: the next fails), and its status code.
    pub(super) static ARMED: Mutex<[Option<(u64, i32)>; 3]> = Mutex::new([None; 3]);
}

/// Arms `point`: its `nth` operation from now (1: the next) fails with OpenCL status `code`, once.
/// The faults are process-wide: a test that arms one must not run beside other GEMMs.
#[cfg(feature = "fault-injection")]
pub fn inject(point: FaultPoint, nth: u64, code: i32) {
    armed::ARMED.lock().expect("fault lock")[point as usize] = Some((nth.max(1), code));
}

/// Disarms every point.
#[cfg(feature = "fault-injection")]
pub fn disarm() {
    *armed::ARMED.lock().expect("fault lock") = [None; 3];
}

/// Whether a fault armed at `point` is still waiting for its operation.
#[cfg(feature = "fault-injection")]
pub fn is_armed(point: FaultPoint) -> bool {
    armed::ARMED.lock().expect("fault lock")[point as usize].is_some()
}

/// The status code the operation at `point` fails with now, where a fault was armed for it.
#[cfg(feature = "fault-injection")]
pub(crate) fn injected(point: FaultPoint) -> Option<i32> {
    let mut armed = armed::ARMED.lock().expect("fault lock");
    let (left, code) = armed[point as usize].as_mut()?;
    *left -= 1;
    if *left > 0 {
        return None;
    }
    let code = *code;
    armed[point as usize] = None;
    Some(code)
}

/// The status code the operation at `point` fails with now: never, without `fault-injection`.
#[cfg(not(feature = "fault-injection"))]
#[inline(always)]
pub(crate) fn injected(_point: FaultPoint) -> Option<i32> {
    None
}
