//! What the C ABI served in this process, and `FEWFIT_STATS`: set to anything but empty or `0`, it
//! makes the process print one line to stderr at exit,
//!
//! ```text
//! fewfit stats: 1208 GEMM calls served (single 604, double 604; 520 returned an error status), 14 programs built
//! ```
//!
//! so that a program switched to fewfit without a rebuild (`LD_PRELOAD`, the `libclblast.so.1`
//! shim) shows that its calls went to fewfit. Every call through an entry point counts, whatever
//! its status; `programs built` is [`crate::engine::build_stats`] (compiled or loaded from the
//! binary cache). The line is printed from the library's `.fini_array` entry, which runs at exit
//! and, for a library loaded with `dlopen`, at `dlclose`.

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::engine::build_stats;
use crate::spec::{Element, Precision};

use super::Code;

/// GEMM calls per precision (f32, f64), and how many of them returned an error status.
static CALLS: [AtomicU64; 2] = [AtomicU64::new(0), AtomicU64::new(0)];
static FAILED: AtomicU64 = AtomicU64::new(0);

/// Counts one call of an entry point in precision `T` that returned `result`.
pub(super) fn record<T: Element>(result: &Result<(), Code>) {
    let index = match T::PRECISION {
        Precision::F64 => 1,
        _ => 0,
    };
    CALLS[index].fetch_add(1, Ordering::Relaxed);
    if result.is_err() {
        FAILED.fetch_add(1, Ordering::Relaxed);
    }
}

/// The GEMM calls served so far: (single, double, of those with an error status).
fn calls_served() -> (u64, u64, u64) {
    (CALLS[0].load(Ordering::Relaxed), CALLS[1].load(Ordering::Relaxed), FAILED.load(Ordering::Relaxed))
}

/// The line `FEWFIT_STATS` prints.
fn line() -> String {
    let (single, double, failed) = calls_served();
    let stats = build_stats();
    format!(
        "fewfit stats: {} GEMM calls served (single {single}, double {double}; {failed} returned an error status), \
         {} programs built",
        single + double,
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
    fn the_line_names_both_precisions_and_the_builds() {
        let line = line();
        assert!(line.starts_with("fewfit stats: "), "{line}");
        assert!(line.contains("(single ") && line.contains(", double ") && line.ends_with(" programs built"), "{line}");
    }
}
