//! The error type of the code-generation layer: every failure names the file and the field.

use std::path::PathBuf;

/// A failure while reading, validating or rendering the variant set and the selector trees.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// A file is not valid JSON for its schema (serde_json gives line and column).
    #[error("{path}: invalid JSON: {source}")]
    Json {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        source: serde_json::Error,
    },
    /// A file parses but a field breaks a rule.
    #[error("{path}: field `{field}`: {reason}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The JSON path of the offending field, e.g. `variants[2].params.MWG`.
        field: String,
        /// Which rule it breaks.
        reason: String,
    },
    /// A kernel template failed to render.
    #[error("template `{name}`: {message}")]
    Template {
        /// The template's name.
        name: String,
        /// Tera's message, with its causes.
        message: String,
    },
}

/// The result type of the code-generation layer.
pub type Result<T> = std::result::Result<T, Error>;
