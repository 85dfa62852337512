//! Fuzzes the parsers of the JSON that build.rs reads ([`checks/codegen_json.rs`](../checks/codegen_json.rs)).
#![no_main]

#[path = "../checks/codegen_json.rs"]
mod codegen_json;

libfuzzer_sys::fuzz_target!(|data: &[u8]| codegen_json::check(data));
