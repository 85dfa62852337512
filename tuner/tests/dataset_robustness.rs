//! The dataset reader on damaged input, on stable Rust: what the fuzz target `dataset` checks on
//! each input (`fuzz/checks/dataset.rs`), run over its seeds (`fuzz/seeds/dataset`) and
//! deterministic mutations of them: every truncation, every byte changed, every seed joined to
//! another. Each must return, and a watchdog fails the test where one does not within seconds.
//!
//! Run: `cargo test -p fewfit-tuner --test dataset_robustness`; the fuzzer itself: docs/TUNING.md.

#[path = "../../fuzz/checks/dataset.rs"]
mod dataset;

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

/// The fuzz target's seeds, by file name.
fn seeds() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../fuzz/seeds/dataset"));
    let mut seeds: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| {
            let path = entry.unwrap().path();
            (path.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&path).unwrap())
        })
        .collect();
    seeds.sort();
    assert!(seeds.len() >= 4, "{seeds:?}");
    seeds
}

/// Each seed, each of its truncations, each seed with one byte changed (three ways each), and
/// each pair of seeds joined, each with a name that says how it was made.
fn mutations() -> Vec<(String, Vec<u8>)> {
    let seeds = seeds();
    let mut cases = Vec::new();
    for (name, bytes) in &seeds {
        cases.push((name.clone(), bytes.clone()));
        for cut in 0..bytes.len() {
            cases.push((format!("{name} cut at {cut}"), bytes[..cut].to_vec()));
        }
        for at in 0..bytes.len() {
            for mask in [0x01, 0x80, 0xff] {
                let mut changed = bytes.clone();
                changed[at] ^= mask;
                cases.push((format!("{name} byte {at} xor {mask:#04x}"), changed));
            }
        }
        for (other, more) in &seeds {
            cases.push((format!("{name} + {other}"), [&bytes[..], &more[..]].concat()));
        }
    }
    cases
}

#[test]
fn the_reader_returns_on_every_truncation_and_changed_byte_of_its_seeds() {
    let cases = mutations();
    let names: Vec<String> = cases.iter().map(|(name, _)| name.clone()).collect();
    let (done, progress) = mpsc::channel();
    std::thread::spawn(move || {
        for (i, (_, bytes)) in cases.iter().enumerate() {
            dataset::check(bytes);
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
