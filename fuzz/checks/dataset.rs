//! What the fuzz target `dataset` checks on each input, shared with the stable test
//! `tuner/tests/dataset_robustness.rs`: the dataset reader returns (a set or an error, never a
//! panic or a hang) on any bytes, read as a JSON Lines file and as a gzip one, and so does the
//! gzip reading of a sweep that resumes.

use std::path::Path;

use fewfit_tuner::dataset::{gzip_cut_short, Dataset};
use fewfit_tuner::Error;

/// Reads `data` every way a dataset is read; panics only where two readers disagree.
pub fn check(data: &[u8]) {
    // Ok or a typed error: either is an answer.
    let _ = Dataset::read(Path::new("fuzz.jsonl"), data);
    let whole = Dataset::read(Path::new("fuzz.jsonl.gz"), data);
    match gzip_cut_short(data) {
        // Every member whole: the loader decompresses all of it.
        Ok(None) => assert!(!matches!(whole, Err(Error::Read { .. })), "members whole, yet {:?}", whole.err()),
        // What a sweep keeps of a file cut short: complete lines, which read as a plain file.
        Ok(Some(lines)) => {
            assert!(lines.is_empty() || lines.ends_with(b"\n"), "an incomplete line kept");
            assert!(!matches!(Dataset::read(Path::new("kept.jsonl"), &lines[..]), Err(Error::Read { .. })));
        }
        Err(_) => {}
    }
}
