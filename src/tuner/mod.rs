//! The offline tuner (cargo feature `tune`): sweep variants over shapes on a device, merge and
//! import datasets, select a small set of variants, train selector trees, evaluate them, and regenerate what the
//! crate ships.

pub mod dataset;
pub mod error;
pub mod evaluate;
pub mod import;
pub mod regenerate;
pub mod select;
pub mod space;
pub mod sweep;
pub mod train;

pub use error::{Error, Result};
