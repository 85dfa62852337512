//! The parsers of the JSON that build.rs reads, on damaged input, on stable Rust: what the fuzz
//! target `codegen_json` checks on each input (`fuzz/checks/codegen_json.rs`), run over its seeds
//! (`fuzz/seeds/codegen_json`: a set, a NUL byte, a selector file) and deterministic mutations of
//! them: every truncation and every byte changed. Each must return, and a watchdog fails the test
//! where one does not within seconds.
//!
//! Run: `cargo test -p fewfit-codegen --test parse_robustness`; the fuzzer itself: docs/TUNING.md.

#[path = "../../fuzz/checks/codegen_json.rs"]
mod codegen_json;

#[path = "../../fuzz/checks/replay.rs"]
mod replay;

/// Each seed, each of its truncations and each seed with one byte changed (three ways in turn),
/// each with a name that says how it was made.
fn mutations() -> Vec<(String, Vec<u8>)> {
    let mut cases = Vec::new();
    for (name, bytes) in replay::seeds("codegen_json", 3) {
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
    replay::run_with_watchdog(mutations(), codegen_json::check);
}
