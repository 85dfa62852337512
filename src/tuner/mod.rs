//! The offline tuner (cargo feature `tune`): sweep variants over shapes on a device, merge and
//! import datasets, select a small set of variants, train selector trees, evaluate them.

pub mod dataset;
pub mod error;
pub mod evaluate;
pub mod import;
pub mod select;
pub mod space;
pub mod sweep;
pub mod train;

pub use error::{Error, Result};
