//! A value built on first need whose failure is kept only as long as its cause may last: a
//! failure that will repeat (the kernel source does not compile, the device lacks a feature) is
//! kept for good, so later calls fail at once; any other (an OpenCL error while building: out of
//! resources, a compiler that crashed) is kept for [`RETRY_AFTER`], after which a call builds
//! again.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use once_cell::sync::OnceCell;

use crate::error::{Error, Result};

/// How long a transient failure is reported before a later call builds again: calls in a loop
/// then fail fast instead of rebuilding at every call.
pub(crate) const RETRY_AFTER: Duration = Duration::from_secs(1);

/// A value built once it is first needed, or the failure of the last attempt.
pub(crate) struct Retrying<T> {
    value: OnceCell<T>,
    /// The last attempt's failure and when it happened; its lock is held while building, so one
    /// thread builds and the others wait for it.
    failure: Mutex<Option<(Error, Instant)>>,
}

impl<T> Retrying<T> {
    /// Nothing built yet.
    pub(crate) fn new() -> Retrying<T> {
        Retrying { value: OnceCell::new(), failure: Mutex::new(None) }
    }

    /// The value, built by `build` where none is and no kept failure stands in the way.
    pub(crate) fn get_or_build(&self, build: impl FnOnce() -> Result<T>) -> Result<&T> {
        if let Some(value) = self.value.get() {
            return Ok(value);
        }
        let mut failure = self.failure.lock().expect("build lock");
        if let Some(value) = self.value.get() {
            return Ok(value);
        }
        if let Some((error, at)) = &*failure {
            if !error.is_transient() || at.elapsed() < RETRY_AFTER {
                return Err(error.again());
            }
        }
        match build() {
            Ok(value) => {
                *failure = None;
                Ok(self.value.get_or_init(|| value))
            }
            Err(error) => {
                let again = error.again();
                *failure = Some((error, Instant::now()));
                Err(again)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transient() -> Error {
        Error::OpenCl { call: "clBuildProgram", code: opencl3::error_codes::CL_OUT_OF_RESOURCES }
    }

    #[test]
    fn a_transient_failure_is_retried_after_a_while_and_a_permanent_one_never() {
        let cell = Retrying::<u32>::new();
        let mut attempts = 0;
        assert!(cell
            .get_or_build(|| {
                attempts += 1;
                Err(transient())
            })
            .is_err());
        assert!(
            cell.get_or_build(|| {
                attempts += 1;
                Ok(1)
            })
            .is_err(),
            "kept at first"
        );
        assert_eq!(attempts, 1);
        std::thread::sleep(RETRY_AFTER);
        assert_eq!(
            *cell
                .get_or_build(|| {
                    attempts += 1;
                    Ok(2)
                })
                .unwrap(),
            2,
            "built again later"
        );
        assert_eq!(*cell.get_or_build(|| unreachable!()).unwrap(), 2, "then kept");

        let cell = Retrying::<u32>::new();
        let log = "error: expected ';'".to_string();
        assert!(cell.get_or_build(|| Err(Error::Build { variant: "v".into(), log })).is_err());
        std::thread::sleep(RETRY_AFTER);
        let again = cell.get_or_build(|| Ok(3));
        assert!(matches!(again, Err(Error::Build { .. })), "a compile error stays: {again:?}");
    }
}
