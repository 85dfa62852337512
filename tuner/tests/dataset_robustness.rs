//! The dataset reader on damaged input, on stable Rust: what the fuzz target `dataset` checks on
//! each input (`fuzz/checks/dataset.rs`), run over its seeds (`fuzz/seeds/dataset`) and
//! deterministic mutations of them: every truncation, every byte changed, every seed joined to
//! another. Each must return, and a watchdog fails the test where one does not within seconds.
//!
//! Run: `cargo test -p fewfit-tuner --test dataset_robustness`; the fuzzer itself: docs/TUNING.md.

#[path = "../../fuzz/checks/dataset.rs"]
mod dataset;

#[path = "../../fuzz/checks/replay.rs"]
mod replay;

/// Each seed, each of its truncations, each seed with one byte changed (three ways each), and
/// each pair of seeds joined, each with a name that says how it was made.
fn mutations() -> Vec<(String, Vec<u8>)> {
    let seeds = replay::seeds("dataset", 4);
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
    replay::run_with_watchdog(mutations(), dataset::check);
}
