//! CLBlast's own names for what fewfit serves (feature `clblast-compat`), so that a program built
//! against libclblast 1.5.x switches to fewfit without a rebuild (`LD_PRELOAD`, or the
//! `libclblast.so.1` shim that `scripts/install.sh` lays out):
//!
//! - the C names `CLBlast[SDH]gemm`, `..Batched`, `..StridedBatched` (defined with fewfit's own, in
//!   `capi.rs`), `CLBlast[SDH]gemmWithTempBuffer`, `CLBlastClearCache` and `CLBlastFillCache`;
//! - the C++ API, `clblast::Gemm<T>`, `GemmBatched<T>` and `GemmStridedBatched<T>` for float,
//!   double and half (CLBlast's `half` is `cl_half`, an `unsigned short` holding IEEE binary16
//!   bits: Itanium's `t`), `clblast::ClearCache()` and `clblast::FillCache(cl_device_id)`, under the
//!   exact Itanium-mangled names of libclblast 1.5.x (tests/capi.rs checks them against Debian's
//!   libclblast.so.1). CLBlast's enums (`Layout`, `Transpose`, `StatusCode`) are int-sized enum
//!   classes, and on x86-64 SysV a free C++ function with these argument types is called exactly as
//!   the C one, so each is an `extern "C"` function under the mangled name. CLBlast's C wrappers
//!   call these through the PLT, so under `LD_PRELOAD` they reach fewfit too.
//!
//! Half precision runs fewfit's f16 kernels (f16 storage, f32 arithmetic and accumulation, alpha
//! and beta converted to f32) on every device, with or without `cl_khr_fp16`, where CLBlast
//! returns `kNoHalfPrecision` without it. Complex precisions are not exported: they keep resolving
//! to CLBlast. The temporary buffer of `Gemm<T>` and `CLBlast[SDH]gemmWithTempBuffer` goes unused
//! (fewfit's transposed copies live in its own scratch buffers), so fewfit never returns
//! `kInsufficientMemoryTemp`.
//!
//! The cache calls act on fewfit's engines and then on the same name in the next object loaded after
//! fewfit (libclblast behind `LD_PRELOAD` or the shim), whose routines other than GEMM stay CLBlast's.

use std::collections::HashSet;
use std::ffi::{c_int, CStr};
use std::sync::Mutex;

use once_cell::sync::Lazy;
use opencl3::types::{cl_command_queue, cl_device_id, cl_event, cl_mem};

use crate::engine::{release_engines, Engine};
use crate::error::Error;
use crate::spec::Precision;

use super::{error_code, guard, Code, Status};

/// Generates the C++ GEMM entry points of one precision (`$t`, C++'s `$cpp`): each calls the fewfit
/// entry point of the same arguments (the temporary buffer dropped).
macro_rules! cpp_gemm {
    ($t:ty as $cpp:literal, $gemm:literal => $fewfit:ident, $batched:literal => $fewfit_batched:ident,
     $strided:literal => $fewfit_strided:ident, $with_temp:ident) => {
        #[doc = concat!("`", stringify!($with_temp), "`: [`super::", stringify!($fewfit), "`], the temporary buffer unused.")]
        ///
        /// # Safety
        /// As for CLBlast: valid OpenCL objects of one context; null pointers are reported.
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "C" fn $with_temp(
            layout: c_int, a_transpose: c_int, b_transpose: c_int, m: usize, n: usize, k: usize,
            alpha: $t, a_buffer: cl_mem, a_offset: usize, a_ld: usize,
            b_buffer: cl_mem, b_offset: usize, b_ld: usize,
            beta: $t, c_buffer: cl_mem, c_offset: usize, c_ld: usize,
            queue: *mut cl_command_queue, event: *mut cl_event, _temp_buffer: cl_mem,
        ) -> c_int {
            super::$fewfit(layout, a_transpose, b_transpose, m, n, k, alpha, a_buffer, a_offset, a_ld,
                b_buffer, b_offset, b_ld, beta, c_buffer, c_offset, c_ld, queue, event)
        }

        const _: () = {
            #[doc = concat!("`clblast::Gemm<", $cpp, ">`: [`", stringify!($with_temp), "`] (the same arguments).")]
            ///
            /// # Safety
            #[doc = concat!("As [`super::", stringify!($fewfit), "`].")]
            #[export_name = $gemm]
            #[allow(clippy::too_many_arguments)]
            unsafe extern "C" fn gemm(
                layout: c_int, a_transpose: c_int, b_transpose: c_int, m: usize, n: usize, k: usize,
                alpha: $t, a_buffer: cl_mem, a_offset: usize, a_ld: usize,
                b_buffer: cl_mem, b_offset: usize, b_ld: usize,
                beta: $t, c_buffer: cl_mem, c_offset: usize, c_ld: usize,
                queue: *mut cl_command_queue, event: *mut cl_event, temp_buffer: cl_mem,
            ) -> c_int {
                $with_temp(layout, a_transpose, b_transpose, m, n, k, alpha, a_buffer, a_offset, a_ld,
                    b_buffer, b_offset, b_ld, beta, c_buffer, c_offset, c_ld, queue, event, temp_buffer)
            }

            #[doc = concat!("`clblast::GemmBatched<", $cpp, ">`: [`super::", stringify!($fewfit_batched), "`].")]
            ///
            /// # Safety
            #[doc = concat!("As [`super::", stringify!($fewfit_batched), "`].")]
            #[export_name = $batched]
            #[allow(clippy::too_many_arguments)]
            unsafe extern "C" fn batched(
                layout: c_int, a_transpose: c_int, b_transpose: c_int, m: usize, n: usize, k: usize,
                alphas: *const $t, a_buffer: cl_mem, a_offsets: *const usize, a_ld: usize,
                b_buffer: cl_mem, b_offsets: *const usize, b_ld: usize,
                betas: *const $t, c_buffer: cl_mem, c_offsets: *const usize, c_ld: usize,
                batch_count: usize, queue: *mut cl_command_queue, event: *mut cl_event,
            ) -> c_int {
                super::$fewfit_batched(layout, a_transpose, b_transpose, m, n, k, alphas, a_buffer, a_offsets,
                    a_ld, b_buffer, b_offsets, b_ld, betas, c_buffer, c_offsets, c_ld, batch_count, queue, event)
            }

            #[doc = concat!("`clblast::GemmStridedBatched<", $cpp, ">`: [`super::", stringify!($fewfit_strided), "`].")]
            ///
            /// # Safety
            #[doc = concat!("As [`super::", stringify!($fewfit_strided), "`].")]
            #[export_name = $strided]
            #[allow(clippy::too_many_arguments)]
            unsafe extern "C" fn strided(
                layout: c_int, a_transpose: c_int, b_transpose: c_int, m: usize, n: usize, k: usize,
                alpha: $t, a_buffer: cl_mem, a_offset: usize, a_ld: usize, a_stride: usize,
                b_buffer: cl_mem, b_offset: usize, b_ld: usize, b_stride: usize,
                beta: $t, c_buffer: cl_mem, c_offset: usize, c_ld: usize, c_stride: usize,
                batch_count: usize, queue: *mut cl_command_queue, event: *mut cl_event,
            ) -> c_int {
                super::$fewfit_strided(layout, a_transpose, b_transpose, m, n, k, alpha, a_buffer, a_offset,
                    a_ld, a_stride, b_buffer, b_offset, b_ld, b_stride, beta, c_buffer, c_offset, c_ld, c_stride,
                    batch_count, queue, event)
            }
        };
    };
}

cpp_gemm!(
    f32 as "float",
    "_ZN7clblast4GemmIfEENS_10StatusCodeENS_6LayoutENS_9TransposeES3_mmmT_P7_cl_memmmS6_mmS4_S6_mmPP17_cl_command_queuePP9_cl_eventS6_"
        => FewfitSgemm,
    "_ZN7clblast11GemmBatchedIfEENS_10StatusCodeENS_6LayoutENS_9TransposeES3_mmmPKT_P7_cl_memPKmmS8_SA_mS6_S8_SA_mmPP17_cl_command_queuePP9_cl_event"
        => FewfitSgemmBatched,
    "_ZN7clblast18GemmStridedBatchedIfEENS_10StatusCodeENS_6LayoutENS_9TransposeES3_mmmT_P7_cl_memmmmS6_mmmS4_S6_mmmmPP17_cl_command_queuePP9_cl_event"
        => FewfitSgemmStridedBatched,
    CLBlastSgemmWithTempBuffer
);
cpp_gemm!(
    f64 as "double",
    "_ZN7clblast4GemmIdEENS_10StatusCodeENS_6LayoutENS_9TransposeES3_mmmT_P7_cl_memmmS6_mmS4_S6_mmPP17_cl_command_queuePP9_cl_eventS6_"
        => FewfitDgemm,
    "_ZN7clblast11GemmBatchedIdEENS_10StatusCodeENS_6LayoutENS_9TransposeES3_mmmPKT_P7_cl_memPKmmS8_SA_mS6_S8_SA_mmPP17_cl_command_queuePP9_cl_event"
        => FewfitDgemmBatched,
    "_ZN7clblast18GemmStridedBatchedIdEENS_10StatusCodeENS_6LayoutENS_9TransposeES3_mmmT_P7_cl_memmmmS6_mmmS4_S6_mmmmPP17_cl_command_queuePP9_cl_event"
        => FewfitDgemmStridedBatched,
    CLBlastDgemmWithTempBuffer
);
cpp_gemm!(
    u16 as "half",
    "_ZN7clblast4GemmItEENS_10StatusCodeENS_6LayoutENS_9TransposeES3_mmmT_P7_cl_memmmS6_mmS4_S6_mmPP17_cl_command_queuePP9_cl_eventS6_"
        => FewfitHgemm,
    "_ZN7clblast11GemmBatchedItEENS_10StatusCodeENS_6LayoutENS_9TransposeES3_mmmPKT_P7_cl_memPKmmS8_SA_mS6_S8_SA_mmPP17_cl_command_queuePP9_cl_event"
        => FewfitHgemmBatched,
    "_ZN7clblast18GemmStridedBatchedItEENS_10StatusCodeENS_6LayoutENS_9TransposeES3_mmmT_P7_cl_memmmmS6_mmmS4_S6_mmmmPP17_cl_command_queuePP9_cl_event"
        => FewfitHgemmStridedBatched,
    CLBlastHgemmWithTempBuffer
);

/// The mangled name of `clblast::ClearCache()`.
const CPP_CLEAR_CACHE: &CStr = c"_ZN7clblast10ClearCacheEv";
/// The mangled name of `clblast::FillCache(cl_device_id)`.
const CPP_FILL_CACHE: &CStr = c"_ZN7clblast9FillCacheEP13_cl_device_id";

/// `name` in the objects loaded after this library (libclblast under `LD_PRELOAD` or behind the
/// shim), as a function of type `F`.
///
/// # Safety
/// `F` must be the type of the function of that name.
unsafe fn next<F: Copy>(name: &CStr) -> Option<F> {
    assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<*mut libc::c_void>());
    // dlsym with RTLD_NEXT only looks a name up; a null result means no later object has it.
    let symbol = libc::dlsym(libc::RTLD_NEXT, name.as_ptr());
    // SAFETY: the caller vouches for `F`; a function pointer is pointer-sized.
    (!symbol.is_null()).then(|| std::mem::transmute_copy::<*mut libc::c_void, F>(&symbol))
}

/// Devices whose set [`fill_cache`] built, each in a context of its own that its engine holds until
/// the engines are dropped, as CLBlast's program cache holds the context of its `FillCache`.
static FILLED: Lazy<Mutex<HashSet<usize>>> = Lazy::new(|| Mutex::new(HashSet::new()));

/// Forgets the devices [`fill_cache`] filled: their engines were dropped.
pub(super) fn forget_filled() {
    FILLED.lock().unwrap_or_else(|e| e.into_inner()).clear();
}

/// Builds fewfit's set on `device` in a context of its own, for f32 and (where the device has fp64)
/// f64, as CLBlast's `FillCache` builds its kernels in a temporary context (libclblast 1.5.x fills
/// no half precision, nor does this: `FewfitWarmUp` builds the 16-bit sets of a queue's device). That fills the
/// on-disk binary cache (`FEWFIT_CACHE_DIR`; on PoCL, PoCL's own kernel cache), so that the first
/// call in a later context of this device loads its programs instead of compiling them. The
/// context and its programs stay with the engine until the engines are dropped (`ClearCache`); a
/// second call for the same device builds nothing.
fn fill_cache(device: cl_device_id) -> Code {
    guard(|| {
        let mut filled = FILLED.lock().unwrap_or_else(|e| e.into_inner());
        if filled.contains(&(device as usize)) {
            return Ok(());
        }
        // A null or invalid device is OpenCL's error, as in CLBlast (CL_INVALID_DEVICE).
        let context = cl3::context::create_context(&[device], std::ptr::null(), None, std::ptr::null_mut())?;
        let engine = Engine::get(context, device);
        // SAFETY: the context was created above; the engine (if made) holds its own reference.
        let _ = unsafe { cl3::context::release_context(context) };
        let code = |precision, e: Error| error_code(&e, precision, std::ptr::null_mut());
        let engine = engine.map_err(|e| code(Precision::F32, e))?;
        engine.warm_up(Precision::F32).map_err(|e| code(Precision::F32, e))?;
        if engine.info.fp64 {
            engine.warm_up(Precision::F64).map_err(|e| code(Precision::F64, e))?;
        }
        filled.insert(device as usize);
        Ok(())
    })
}

/// Drops fewfit's engines ([`super::FewfitClearCache`]), then calls `name` (a `StatusCode (void)`)
/// in the next object, returning its status where fewfit's was a success.
fn clear_cache_then(name: &CStr) -> Code {
    let status = guard(|| {
        release_engines();
        forget_filled();
        Ok(())
    });
    // SAFETY: both names are CLBlast's `StatusCode ClearCache(void)`, C and C++.
    match unsafe { next::<unsafe extern "C" fn() -> c_int>(name) } {
        Some(clblast) if status == Status::Success as c_int => unsafe { clblast() },
        _ => status,
    }
}

/// [`fill_cache`], then `name` (a `StatusCode (cl_device_id)`) in the next object, returning its
/// status where fewfit's was a success.
fn fill_cache_then(device: cl_device_id, name: &CStr) -> Code {
    let status = fill_cache(device);
    // SAFETY: both names are CLBlast's `StatusCode FillCache(cl_device_id)`, C and C++.
    match unsafe { next::<unsafe extern "C" fn(cl_device_id) -> c_int>(name) } {
        Some(clblast) if status == Status::Success as c_int => unsafe { clblast(device) },
        _ => status,
    }
}

/// `CLBlastClearCache`: fewfit's engines dropped ([`super::FewfitClearCache`]), then CLBlast's own
/// caches where libclblast is loaded behind fewfit, returning CLBlast's status.
#[no_mangle]
pub extern "C" fn CLBlastClearCache() -> c_int {
    clear_cache_then(c"CLBlastClearCache")
}

/// `clblast::ClearCache()`: as [`CLBlastClearCache`].
#[export_name = "_ZN7clblast10ClearCacheEv"]
pub extern "C" fn clblast_clear_cache() -> c_int {
    clear_cache_then(CPP_CLEAR_CACHE)
}

/// `CLBlastFillCache`: builds fewfit's set for the device ([`fill_cache`]: its binary cache
/// warmed), then CLBlast's `FillCache` where libclblast is loaded behind fewfit (its other
/// routines), returning CLBlast's status.
///
/// # Safety
/// `device` is null or a valid device id.
#[no_mangle]
pub unsafe extern "C" fn CLBlastFillCache(device: cl_device_id) -> c_int {
    fill_cache_then(device, c"CLBlastFillCache")
}

/// `clblast::FillCache(cl_device_id)`: as [`CLBlastFillCache`].
///
/// # Safety
/// `device` is null or a valid device id.
#[export_name = "_ZN7clblast9FillCacheEP13_cl_device_id"]
pub unsafe extern "C" fn clblast_fill_cache(device: cl_device_id) -> c_int {
    fill_cache_then(device, CPP_FILL_CACHE)
}
