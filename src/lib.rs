//! fewfit: OpenCL GEMM from a small set of kernel variants chosen offline and built into the crate.
//!
//! Each call goes through a decision tree compiled into nested `if`s (per device class) to one of
//! the prebuilt variants. A process's first call on a device builds the variants that device's tree
//! can pick (others only when a call names one), and the binaries are cached on disk, so there is
//! no tuning and no compiling per shape. See README.md.

use fewfit_codegen as codegen;

mod cache;
pub mod capi;
mod device;
mod engine;
mod error;
mod gemm;
mod host;
mod reused_buffers;
pub mod selection;

/// Compiling and launching variants outside the shipped set, for fewfit's tuner and bench (cargo
/// feature `tuning`); not part of the API users call.
#[cfg(feature = "tuning")]
pub mod tuning {
    pub use crate::device::fits_in_buffer;
    pub use crate::engine::{variant_build_options, CompiledVariant};
    pub use crate::KERNEL_TEMPLATES;
}

/// The kernel templates (`kernels/*.cl`), embedded: what renders variants outside the shipped set.
#[cfg(feature = "tuning")]
pub const KERNEL_TEMPLATES: [(&str, &str); 6] = [
    ("common.cl", include_str!("../kernels/common.cl")),
    ("macros.cl", include_str!("../kernels/macros.cl")),
    ("xgemm.cl", include_str!("../kernels/xgemm.cl")),
    ("direct.cl", include_str!("../kernels/direct.cl")),
    ("panel.cl", include_str!("../kernels/panel.cl")),
    ("scale.cl", include_str!("../kernels/scale.cl")),
];

pub use device::{choose_device, list_devices, DefaultDevice, DeviceClass, DeviceInfo};
pub use engine::{build_stats, release_engines, BuildStats, Engine};
pub use error::{Error, Result};
pub use gemm::{
    chosen_variant, enqueue_raw, gemm, gemm_no_event, gemm_with, Element, GemmSpec, Layout, Precision, Selection,
    Transpose,
};
pub use host::gemm_host;
#[cfg(feature = "ndarray")]
pub use host::gemm_ndarray;
pub use selection::{explain, Explanation, VariantId};
