//! The error type of the offline tuner.

use std::path::PathBuf;

/// Why a tuner command failed. Bad input is reported before anything is written.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A dataset could not be read or decompressed from a line on (a truncated or corrupt `.gz`):
    /// nothing after that point can be trusted, so the file is not read further.
    #[error("{path}:{line}: cannot read the file from this line on (truncated or corrupt?): {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The line (from 1) being read when the error came.
        line: usize,
        /// The cause.
        source: std::io::Error,
    },
    /// A file's content is not what the command expects.
    #[error("{path}: {reason}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// What is wrong, naming the line or field.
        reason: String,
    },
    /// Two records measure the same thing with different results.
    #[error("conflicting records for {key}: {first} and {second} differ (merge only joins datasets that agree)")]
    Conflict {
        /// What both records measure.
        key: String,
        /// Where the first is (file:line).
        first: String,
        /// Where the second is.
        second: String,
    },
    /// An argument is out of range or inconsistent.
    #[error("invalid argument: {0}")]
    Invalid(String),
    /// The data cannot support the request (no valid measurement, too few shapes).
    #[error("not enough data: {0}")]
    Data(String),
    /// A plot could not be drawn or written.
    #[error("{path}: cannot draw the plot: {reason}")]
    Plot {
        /// The output file.
        path: PathBuf,
        /// The plotting backend's message.
        reason: String,
    },
    /// Fitting a model failed inside the learning library.
    #[error("fitting failed: {0}")]
    Fit(String),
    /// A runtime error (device, build, launch).
    #[error(transparent)]
    Runtime(#[from] fewfit::Error),
    /// A code-generation error (bad variant, template).
    #[error(transparent)]
    Codegen(#[from] fewfit_codegen::Error),
}

/// The result type of the tuner.
pub type Result<T> = std::result::Result<T, Error>;
