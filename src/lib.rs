//! fewfit: OpenCL GEMM from a small set of kernel variants chosen offline and built into the crate.
//!
//! Each call goes through a decision tree compiled into nested `if`s (per device class) to one of
//! the prebuilt variants. A process's first call on a device builds the variants that device's tree
//! can pick (others only when a call names one), and the binaries are cached on disk, so there is
//! no tuning and no compiling per shape. See README.md.
//!
//! The modules, each using only those before it: `error` and `fault` (test-only fault injection),
//! `spec` (the GEMM's types and checks) and `cl`
//! (OpenCL helpers) at the bottom, then `device`, `dispatch` (the generated set and trees), `engine`
//! (programs, launches, launch policy, binary cache, scratch buffers and the registry), and on top
//! `gemm` (the API), `host` and `capi`.

#![warn(missing_docs)]

use fewfit_codegen as codegen;

mod cl;
mod device;
mod dispatch;
mod engine;
mod error;
mod fault;
mod gemm;
mod host;
mod spec;

pub mod capi;

/// The `half` crate, whose `f16` and `bf16` are fewfit's 16-bit element types.
pub use half;

/// Compiling and launching variants outside the shipped set, and the shipped trees as data, for
/// fewfit's tuner, bench and tests (cargo feature `tuning`); not part of the API users call.
#[cfg(feature = "tuning")]
pub mod tuning {
    pub use crate::device::fits_in_buffer;
    pub use crate::dispatch::{reachable, tree, VARIANTS};
    pub use crate::engine::launch_policy::{
        AtomicAdd, LaunchPolicy, PACK_A_MIN_MADDS, TRANSPOSE_LONG_ROWS, TRANSPOSE_MIN_MADDS, TRANSPOSE_MIN_OTHER,
        TRANSPOSE_MIN_OTHER_LONG,
    };
    pub use crate::engine::{variant_build_options, CompiledVariant, KERNEL_TEMPLATES};
}

/// Test-only fault injection (cargo feature `fault-injection`): makes the Nth scratch allocation,
/// program build or kernel enqueue fail, for the tests of the failure paths.
#[cfg(feature = "fault-injection")]
pub mod faults {
    pub use crate::fault::{disarm, inject, is_armed, FaultPoint};
}

pub use device::{choose_device, list_devices, DefaultDevice, DeviceClass, DeviceInfo};
pub use dispatch::{explain, Explanation, VariantId, VariantInfo};
pub use engine::{build_stats, release_engines, BuildStats, Engine};
pub use error::{Error, Result};
pub use gemm::{chosen_variant, enqueue_raw, gemm, gemm_no_event, gemm_with, Selection};
pub use host::gemm_host;
#[cfg(feature = "ndarray")]
pub use host::gemm_ndarray;
pub use spec::{Compute, Element, GemmSpec, Layout, Precision, Transpose};
