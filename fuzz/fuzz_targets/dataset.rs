//! Fuzzes the tuner's dataset reader ([`checks/dataset.rs`](../checks/dataset.rs)).
#![no_main]

#[path = "../checks/dataset.rs"]
mod dataset;

libfuzzer_sys::fuzz_target!(|data: &[u8]| dataset::check(data));
