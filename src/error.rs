//! The public error type of the runtime.

/// Why a GEMM call, a device choice or a build failed. Argument errors are found before any
/// device work, so C is left untouched.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An argument is wrong: a leading dimension too small, a buffer too small, a size that overflows.
    #[error("invalid argument `{name}` = {value}: {reason}")]
    InvalidArgument {
        /// The argument's name, as in BLAS (`lda`, `c buffer`, `m`).
        name: &'static str,
        /// Its value, printed.
        value: String,
        /// What rule it breaks.
        reason: String,
    },
    /// The device cannot do what was asked (f64 without fp64, a variant beyond its limits).
    #[error("unavailable: {what}: {reason}")]
    Unavailable {
        /// What was asked for.
        what: String,
        /// Why the device cannot do it.
        reason: String,
    },
    /// No OpenCL device could be found or chosen.
    #[error("no OpenCL device: {0}")]
    NoDevice(String),
    /// The OpenCL library (`libOpenCL.so.1`, the ICD loader; `OpenCL.dll` on Windows) could not be
    /// loaded: fewfit loads it at run time, at the first OpenCL call, so a program built with it
    /// starts without one and gets this error.
    #[error(
        "no OpenCL library: {0}; install an OpenCL ICD loader and a runtime (Debian: ocl-icd-libopencl1, \
         and pocl-opencl-icd or a GPU driver's)"
    )]
    NoOpenClLibrary(String),
    /// An OpenCL call failed.
    #[error("OpenCL call {call} failed with {code} ({name})", name = opencl3::error_codes::error_text(*code))]
    OpenCl {
        /// The OpenCL function.
        call: &'static str,
        /// Its status code.
        code: i32,
    },
    /// A kernel variant failed to build on the device.
    #[error("variant {variant} failed to build: {log}")]
    Build {
        /// The variant id.
        variant: String,
        /// The compiler's log.
        log: String,
    },
    /// The generated code failed to render (only from calls that render variants at run time).
    #[error(transparent)]
    Codegen(#[from] crate::codegen::Error),
}

impl Error {
    /// Whether the failure may pass by itself, so that building again later may succeed: an
    /// OpenCL error (out of resources or memory, a compiler that crashed without a log). A compile
    /// error of the kernel source, a device that lacks what is asked, a bad argument or generated
    /// code that does not render will repeat.
    pub(crate) fn is_transient(&self) -> bool {
        matches!(self, Error::OpenCl { .. } | Error::NoOpenClLibrary(_))
    }

    /// The same error once more, for a failure that is kept and reported to every later call (a set
    /// that did not build). A code-generation error, which holds an I/O or JSON error that cannot
    /// be copied, comes back as [`Error::Unavailable`] with its message.
    pub(crate) fn again(&self) -> Error {
        match self {
            Error::InvalidArgument { name, value, reason } => {
                Error::InvalidArgument { name, value: value.clone(), reason: reason.clone() }
            }
            Error::Unavailable { what, reason } => Error::Unavailable { what: what.clone(), reason: reason.clone() },
            Error::NoDevice(why) => Error::NoDevice(why.clone()),
            Error::NoOpenClLibrary(why) => Error::NoOpenClLibrary(why.clone()),
            Error::OpenCl { call, code } => Error::OpenCl { call, code: *code },
            Error::Build { variant, log } => Error::Build { variant: variant.clone(), log: log.clone() },
            Error::Codegen(e) => Error::Unavailable { what: "generated code".into(), reason: e.to_string() },
        }
    }
}

/// The result type of the runtime.
pub type Result<T> = std::result::Result<T, Error>;

/// Maps an OpenCL status code from `call` into [`Error::OpenCl`], or [`Error::NoOpenClLibrary`]
/// where the OpenCL library could not be loaded.
pub(crate) fn cl(call: &'static str) -> impl Fn(i32) -> Error {
    move |code| match code {
        opencl3::error_codes::DLOPEN_RUNTIME_LOAD_FAILED => no_opencl_library(),
        _ => Error::OpenCl { call, code },
    }
}

/// [`Error::NoOpenClLibrary`], with why the library did not load.
pub(crate) fn no_opencl_library() -> Error {
    let why = match cl3::load_library() {
        Err(e) => e.to_string(),
        Ok(_) => "it was loaded, but an OpenCL call reported that it was not".to_string(),
    };
    Error::NoOpenClLibrary(why)
}
