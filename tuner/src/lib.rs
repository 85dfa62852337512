//! The offline tuner: sweep variants over shapes on a device, merge and
//! import datasets, select a small set of variants, train selector trees, evaluate them, and regenerate what the
//! crate ships.

pub mod dataset;
pub mod error;
pub mod evaluate;
pub mod families;
pub mod import;
pub mod recipe;
pub mod regenerate;
pub mod select;
pub mod space;
pub mod sweep;
pub mod train;

pub use error::{Error, Result};

/// A progress bar on stderr counting `total` `unit`s, or a hidden one when not `show`n (indicatif
/// also hides it where stderr is not a terminal).
pub(crate) fn progress_bar(show: bool, total: u64, unit: &str) -> indicatif::ProgressBar {
    if !show {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(total);
    let template = format!("{{msg}} [{{elapsed_precise}}] {{bar:40}} {{pos}}/{{len}} {unit}, ETA {{eta}}");
    bar.set_style(indicatif::ProgressStyle::with_template(&template).expect("valid template"));
    bar
}
