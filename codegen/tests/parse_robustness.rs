//! The parsers of the JSON that build.rs reads, on damaged input, on stable Rust: what the fuzz
//! target `codegen_json` checks on each input (`fuzz/checks/codegen_json.rs`), run over its seeds
//! (`fuzz/seeds/codegen_json`: a set, a NUL byte, a selector file) and deterministic mutations of
//! them: every truncation and every byte changed. Each must return, and a watchdog fails the test
//! where one does not within seconds.
//!
//! Run: `cargo test -p fewfit-codegen --test parse_robustness`; the fuzzer itself: docs/TUNING.md.

#[path = "../../fuzz/checks/codegen_json.rs"]
mod codegen_json;

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

/// The fuzz target's seeds, by file name.
fn seeds() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../fuzz/seeds/codegen_json"));
    let mut seeds: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| {
            let path = entry.unwrap().path();
            (path.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&path).unwrap())
        })
        .collect();
    seeds.sort();
    assert!(seeds.len() >= 3, "{seeds:?}");
    seeds
}

/// Each seed, each of its truncations and each seed with one byte changed (three ways in turn),
/// each with a name that says how it was made.
fn mutations() -> Vec<(String, Vec<u8>)> {
    let mut cases = Vec::new();
    for (name, bytes) in seeds() {
        for cut in 0..bytes.len() {
            cases.push((format!("{name} cut at {cut}"), bytes[..cut].to_vec()));
        }
        for at in 0..bytes.len() {
            let mut changed = bytes.clone();
            changed[at] ^= [0x01, 0x20, 0x0f][at % 3];
            cases.push((format!("{name} byte {at} changed"), changed));
        }
        cases.push((name, bytes));
    }
    cases
}

#[test]
fn the_parsers_return_on_every_truncation_and_changed_byte_of_their_seeds() {
    let cases = mutations();
    let names: Vec<String> = cases.iter().map(|(name, _)| name.clone()).collect();
    let (done, progress) = mpsc::channel();
    std::thread::spawn(move || {
        for (i, (_, bytes)) in cases.iter().enumerate() {
            codegen_json::check(bytes);
            done.send(i).unwrap();
        }
    });
    for (i, name) in names.iter().enumerate() {
        match progress.recv_timeout(Duration::from_secs(10)) {
            Ok(finished) => assert_eq!(finished, i),
            Err(mpsc::RecvTimeoutError::Timeout) => panic!("no answer after 10 s on {name}"),
            Err(mpsc::RecvTimeoutError::Disconnected) => panic!("the check panicked on {name}"),
        }
    }
}
