//! The stable tests' replay of a fuzz target (tuner/tests/dataset_robustness.rs,
//! codegen/tests/parse_robustness.rs): the target's seeds, and a run of its check over inputs made
//! from them under a watchdog that fails the test where the check does not return within seconds
//! or panics. Mounted with `#[path]` from a crate one folder below the repository's root.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

/// The seeds of fuzz target `target` (`fuzz/seeds/<target>`), by file name; at least `at_least`.
pub fn seeds(target: &str, at_least: usize) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/seeds").join(target);
    let mut seeds: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| {
            let path = entry.unwrap().path();
            (path.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&path).unwrap())
        })
        .collect();
    seeds.sort();
    assert!(seeds.len() >= at_least, "{seeds:?}");
    seeds
}

/// Runs `check` on every case in turn on another thread; panics naming the case where one takes
/// more than 10 s or panics.
pub fn run_with_watchdog(cases: Vec<(String, Vec<u8>)>, check: fn(&[u8])) {
    let names: Vec<String> = cases.iter().map(|(name, _)| name.clone()).collect();
    let (done, progress) = mpsc::channel();
    std::thread::spawn(move || {
        for (i, (_, bytes)) in cases.iter().enumerate() {
            check(bytes);
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
