//! fewfit: OpenCL GEMM from a small set of kernel variants chosen offline and built into the crate.
//!
//! Each call goes through a decision tree compiled into nested `if`s (per device class) to one of
//! the prebuilt variants. A process's first call on a device builds the variants that device's tree
//! can pick (others only when a call names one), and the binaries are cached on disk, so there is
//! no tuning and no compiling per shape. See README.md.

mod cache;
pub mod capi;
pub mod codegen;
mod device;
mod engine;
mod error;
mod gemm;
mod host;
mod reused_buffers;
pub mod selection;

#[cfg(feature = "tune")]
pub mod tuner;

pub use device::{choose_device, list_devices, DefaultDevice, DeviceClass, DeviceInfo};
pub use engine::{build_stats, release_engines, variant_build_options, BuildStats, CompiledVariant, Engine};
pub use error::{Error, Result};
pub use gemm::{
    chosen_variant, enqueue_raw, gemm, gemm_no_event, gemm_with, Element, GemmSpec, Layout, Precision, Selection,
    Transpose,
};
pub use host::gemm_host;
#[cfg(feature = "ndarray")]
pub use host::gemm_ndarray;
pub use selection::{explain, Explanation, VariantId};
