//! The runtime's modules import one another in one direction only: each module of `src/` uses
//! only modules of a lower layer, so there is no circle of imports. Read from the sources: every
//! `crate::<module>` path in code (comments are skipped), and inside `src/engine/` every
//! `super::` / `self::` path, is an edge that must point down.
//!
//! ```text
//! error, fault                  (fault: test-only fault injection, using nothing)
//! spec, cl                      (the bottom: only error and fault)
//! device
//! dispatch                      (the generated table and trees, explain)
//! engine/                       (launch_policy, binary_cache, scratch < program < launch < mod)
//! gemm
//! host, capi
//! ```

use std::collections::BTreeSet;
use std::path::Path;

/// The layers of the top-level modules, lowest first; modules of one layer use none of each other.
const LAYERS: &[&[&str]] =
    &[&["error", "fault"], &["spec", "cl"], &["device"], &["dispatch"], &["engine"], &["gemm"], &["host", "capi"]];

/// The layers inside `src/engine/`, lowest first (`mod` is `engine/mod.rs`, the registry).
const ENGINE_LAYERS: &[&[&str]] =
    &[&["launch_policy", "binary_cache", "scratch", "retry"], &["program"], &["launch"], &["mod"]];

/// The crate-root alias of an outside crate, which is no module of `src/`.
const OUTSIDE: &[&str] = &["codegen"];

fn layer(layers: &[&[&str]], module: &str) -> Option<usize> {
    layers.iter().position(|l| l.contains(&module))
}

/// The code of a source file, without comments (line comments and doc comments).
fn code(text: &str) -> String {
    text.lines().map(|line| line.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

/// The identifiers that follow each `prefix` in `code` (`crate::spec::X` gives `spec`).
fn paths_after(code: &str, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, _) in code.match_indices(prefix) {
        // `foo_crate::` or `my_super::` are not the keyword.
        let before = code[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &code[i + prefix.len()..];
        assert!(!rest.starts_with('{'), "write `{prefix}a::x` per module, not `{prefix}{{...}}`: {rest:.60}");
        let ident: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if !ident.is_empty() {
            out.insert(ident);
        }
    }
    out
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn modules_import_downward_only() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut edges = Vec::new();
    let mut modules = BTreeSet::new();
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        if name == "lib" {
            continue;
        }
        let files: Vec<_> = if path.is_dir() {
            std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()).collect()
        } else {
            vec![path.clone()]
        };
        modules.insert(name.clone());
        for file in files {
            for target in paths_after(&code(&read(&file)), "crate::") {
                edges.push((name.clone(), target, file.display().to_string()));
            }
        }
    }
    let all: Vec<&str> = LAYERS.iter().flat_map(|l| l.iter().copied()).collect();
    assert_eq!(
        modules.iter().map(String::as_str).collect::<BTreeSet<_>>(),
        all.iter().copied().collect(),
        "the modules of src/"
    );
    let mut wrong = Vec::new();
    for (from, to, file) in &edges {
        if OUTSIDE.contains(&to.as_str()) || from == to {
            continue;
        }
        match (layer(LAYERS, from), layer(LAYERS, to)) {
            (Some(a), Some(b)) if b < a => {}
            (_, None) => wrong.push(format!("{file}: crate::{to} (an item of the crate root: name its module)")),
            _ => wrong.push(format!("{file}: {from} uses {to}, which is not below it")),
        }
    }
    assert!(wrong.is_empty(), "imports against the layers:\n{}", wrong.join("\n"));
}

#[test]
fn engine_modules_import_downward_only() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/engine");
    let mut wrong = Vec::new();
    let mut seen = BTreeSet::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let from = path.file_stem().unwrap().to_string_lossy().to_string();
        seen.insert(from.clone());
        let text = code(&read(&path));
        // A file's own tests (`mod tests { use super::*; }`) use the file itself.
        let body = text.split("#[cfg(test)]").next().unwrap_or("");
        let prefix = if from == "mod" { "self::" } else { "super::" };
        for to in paths_after(body, prefix) {
            // `super::Engine`: an item of engine/mod.rs.
            let to = if layer(ENGINE_LAYERS, &to).is_some() { to } else { "mod".to_string() };
            match (layer(ENGINE_LAYERS, &from), layer(ENGINE_LAYERS, &to)) {
                (Some(a), Some(b)) if b < a || from == to => {}
                _ => wrong.push(format!("engine/{from}.rs uses {prefix}{to}, which is not below it")),
            }
        }
    }
    let all: BTreeSet<String> = ENGINE_LAYERS.iter().flat_map(|l| l.iter().map(|s| s.to_string())).collect();
    assert_eq!(seen, all, "the modules of src/engine/");
    assert!(wrong.is_empty(), "imports against the layers:\n{}", wrong.join("\n"));
}
