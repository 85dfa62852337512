//! What the C ABI served in this process, and `FEWFIT_STATS`: set to anything but empty or `0`, it
//! makes the process print one line to stderr at exit,
//!
//! ```text
//! fewfit stats: 1208 GEMM calls served (single 604, double 604, half 0, bf16 0; 520 returned an error status), 14 programs built
//! ```
//!
//! so that a program switched to fewfit without a rebuild (`LD_PRELOAD`, the `libclblast.so.1`
//! shim) shows that its calls went to fewfit. Every call through an entry point counts, whatever
//! its status, under the precision of its elements (an f32 call with TF32 allowed counts as
//! single); `programs built` is [`crate::engine::build_stats`] (compiled or loaded from the
//! binary cache). The line is printed from the library's `.fini_array` entry, which runs at exit
//! and, for a library loaded with `dlopen`, at `dlclose`.

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::engine::build_stats;
use crate::spec::{Element, Precision};

use super::Code;

/// The precisions the line counts, in its order, by the names it gives them.
const NAMES: [&str; 4] = ["single", "double", "half", "bf16"];

/// GEMM calls per element type (f32, f64, f16, bf16: [`NAMES`]), and how many of them returned an
/// error status.
static CALLS: [AtomicU64; 4] = [AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)];
static FAILED: AtomicU64 = AtomicU64::new(0);

/// Counts one call of an entry point on elements of `T` that returned `result`.
pub(super) fn record<T: Element>(result: &Result<(), Code>) {
    let index = match T::PRECISION {
        Precision::F32 | Precision::Tf32 => 0,
        Precision::F64 => 1,
        Precision::F16 => 2,
        Precision::Bf16 => 3,
    };
    CALLS[index].fetch_add(1, Ordering::Relaxed);
    if result.is_err() {
        FAILED.fetch_add(1, Ordering::Relaxed);
    }
}

/// The line `FEWFIT_STATS` prints.
fn line() -> String {
    let calls = CALLS.each_ref().map(|c| c.load(Ordering::Relaxed));
    let per_precision: Vec<String> = NAMES.iter().zip(calls).map(|(name, n)| format!("{name} {n}")).collect();
    let stats = build_stats();
    format!(
        "fewfit stats: {} GEMM calls served ({}; {} returned an error status), {} programs built",
        calls.iter().sum::<u64>(),
        per_precision.join(", "),
        FAILED.load(Ordering::Relaxed),
        stats.compiled + stats.from_cache
    )
}

/// Whether `FEWFIT_STATS` asks for the line.
fn enabled() -> bool {
    std::env::var_os("FEWFIT_STATS").is_some_and(|v| !v.is_empty() && v != "0")
}

/// Prints [`line`] to stderr where `FEWFIT_STATS` asks for it; nothing can unwind out of it.
extern "C" fn print_at_exit() {
    let _ = std::panic::catch_unwind(|| {
        if enabled() {
            let _ = writeln!(std::io::stderr(), "{}", line());
        }
    });
}

/// Runs [`print_at_exit`] when the library is unloaded: at exit, or at `dlclose`.
#[cfg(target_os = "linux")]
#[used]
#[link_section = ".fini_array"]
static PRINT_AT_EXIT: extern "C" fn() = print_at_exit;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_names_every_precision_and_the_builds() {
        let line = line();
        assert!(line.starts_with("fewfit stats: "), "{line}");
        for name in [" (single ", ", double ", ", half ", ", bf16 "] {
            assert!(line.contains(name), "{line}");
        }
        assert!(line.ends_with(" programs built"), "{line}");
    }
}
