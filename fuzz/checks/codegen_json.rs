//! What the fuzz target `codegen_json` checks on each input, shared with the stable test
//! `codegen/tests/parse_robustness.rs`: the JSON that build.rs reads, `variants/selected.json` and
//! the selector files, is parsed (and, where it parses, turned into `selector.rs`) without a panic
//! or a hang, whatever the text. An input is a set's text, a NUL byte, then a selector file's
//! text (the f32 tree of `cpu`, which every other (class, precision) pair's file names), read
//! against the shipped set and, where it parses, the input's set.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use fewfit_codegen::{
    check_pairs, emit_selectors, parse_tree_files, tree_path, Inputs, SelectedSet, CLASSES, PRECISIONS,
};

/// The shipped set's text.
const SHIPPED: &str = include_str!("../../variants/selected.json");

/// Parses `data` as build.rs parses its inputs; panics only where codegen does.
pub fn check(data: &[u8]) {
    // build.rs reads the files as UTF-8: other bytes never reach the parsers.
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (set_text, tree_text) = text.split_once('\0').unwrap_or((text, ""));
    static SHIPPED_SET: OnceLock<SelectedSet> = OnceLock::new();
    let shipped = SHIPPED_SET.get_or_init(|| {
        SelectedSet::parse(Path::new("variants/selected.json"), SHIPPED).expect("the shipped set parses")
    });
    let fuzzed = SelectedSet::parse(Path::new("variants/selected.json"), set_text).ok();
    // The input's tree, and every other pair's file naming it (`same_as`).
    let mut files = vec![(PathBuf::from("selector/cpu.json"), tree_text.to_string())];
    for precision in PRECISIONS {
        for class in CLASSES.into_iter().filter(|&c| (c, precision) != ("cpu", "f32")) {
            let same = format!(r#"{{"class": "{class}", "precision": "{precision}", "same_as": "cpu"}}"#);
            files.push((tree_path(class, precision), same));
        }
    }
    for set in [Some(shipped), fuzzed.as_ref()].into_iter().flatten() {
        if let Ok(trees) = parse_tree_files(&files, set) {
            if check_pairs(&trees).is_err() {
                continue;
            }
            let trees = trees.into_iter().zip(&files).map(|(tree, (_, text))| (tree, text.clone())).collect();
            emit_selectors(&Inputs { selected: set.clone(), selected_sha: String::new(), trees })
                .expect("a selector.rs for trees of every pair");
        }
    }
}
