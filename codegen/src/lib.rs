//! fewfit's code generation, shared by its build script, its runtime and its tuner: the variant
//! parameter space and constraints, the OpenCL kernel renderer, selector trees (parse, interpret,
//! emit) and the emitter of the generated Rust tables. No OpenCL.

pub mod error;
pub mod features;
pub mod params;
pub mod render;
pub mod srcgen;
pub mod tree;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use error::{Error, Result};
pub use features::ShapeFeatures;
pub use params::{vw_cap, AtomicAdd, Family, Geometry, Orientation, PackA, Variant};
pub use render::Renderer;
pub use tree::Tree;

use srcgen::Formatter;

/// The device classes that ship a selector tree, each in `selector/<class>.json`.
pub const CLASSES: [&str; 4] = ["cpu", "nvidia-gpu", "gpu", "default"];

/// Whether the data of devices of class `data_class` trains the tree of class `tree_class`: a
/// class's own data trains its tree; every GPU class's (`nvidia-gpu`, `gpu`) trains `gpu`, the tree
/// of GPUs without a class of their own; every class's trains `default`.
pub fn trains(tree_class: &str, data_class: &str) -> bool {
    match tree_class {
        "default" => true,
        "gpu" => data_class == "gpu" || data_class == "nvidia-gpu",
        _ => tree_class == data_class,
    }
}

/// Whether the tree of class `tree_class` sees the device's compute units: all but `default`, which
/// serves devices of any kind and size, so that a split on its training devices' sizes (a 2-core
/// CPU's, an H200's) would send an unknown device by its size to another kind's picks.
pub fn sees_compute_units(tree_class: &str) -> bool {
    tree_class != "default"
}

/// The largest number of variants a shipped set may hold.
pub const MAX_SELECTED: usize = 12;

/// One variant of the shipped set as written in `variants/selected.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SelectedVariant {
    /// The id; it must equal the id derived from family and parameters.
    pub id: String,
    /// The variant itself.
    #[serde(flatten)]
    pub variant: Variant,
    /// Training shapes (over all devices) on which this variant was the best of the set, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shapes_won: Option<u64>,
}

/// `variants/selected.json`: the shipped set, shared by every device class.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SelectedSet {
    /// Where the set came from.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub comment: String,
    /// The variants, in the order of the generated `VariantId` enum.
    pub variants: Vec<SelectedVariant>,
}

impl SelectedSet {
    /// Parses and checks the set: ids match parameters, no duplicates, every constraint holds.
    pub fn parse(path: &Path, text: &str) -> Result<SelectedSet> {
        let invalid = |field: String, reason: String| Error::Invalid { path: path.into(), field, reason };
        let value: Value = serde_json::from_str(text).map_err(|source| Error::Json { path: path.into(), source })?;
        if let Some(obj) = value.as_object() {
            if let Some(k) = obj.keys().find(|k| !["comment", "variants"].contains(&k.as_str())) {
                return Err(invalid(k.clone(), "unknown field; expected `comment` or `variants`".into()));
            }
        }
        let set: SelectedSet =
            serde_json::from_value(value).map_err(|source| Error::Json { path: path.into(), source })?;
        if set.variants.is_empty() || set.variants.len() > MAX_SELECTED {
            return Err(invalid(
                "variants".into(),
                format!("must hold 1 to {MAX_SELECTED} variants, holds {}", set.variants.len()),
            ));
        }
        for (i, v) in set.variants.iter().enumerate() {
            if let Err(e) = v.variant.validate() {
                return Err(invalid(format!("variants[{i}].params.{}", e.field), e.reason));
            }
            let derived = v.variant.id();
            if v.id != derived {
                return Err(invalid(
                    format!("variants[{i}].id"),
                    format!("`{}` does not match its parameters; expected `{derived}`", v.id),
                ));
            }
            if set.variants[..i].iter().any(|w| w.id == v.id) {
                return Err(invalid(format!("variants[{i}].id"), format!("`{}` appears twice", v.id)));
            }
        }
        Ok(set)
    }

    /// The ids in order.
    pub fn ids(&self) -> Vec<String> {
        self.variants.iter().map(|v| v.id.clone()).collect()
    }
}

/// The inputs of generation, read from a source tree.
pub struct Inputs {
    /// The shipped set.
    pub selected: SelectedSet,
    /// `variants/selected.json`'s text hash.
    pub selected_sha: String,
    /// One tree per class in [`CLASSES`], with its JSON text.
    pub trees: Vec<(Tree, String)>,
}

/// The files generation reads, relative to the crate root (for `rerun-if-changed`).
pub fn input_files() -> Vec<PathBuf> {
    let mut files = vec![PathBuf::from("variants/selected.json")];
    files.extend(CLASSES.iter().map(|c| PathBuf::from(format!("selector/{c}.json"))));
    files.extend(render::TEMPLATE_FILES.iter().map(|name| PathBuf::from(format!("kernels/{name}"))));
    files
}

fn read(root: &Path, rel: &str) -> Result<String> {
    std::fs::read_to_string(root.join(rel)).map_err(|source| Error::Io { path: rel.into(), source })
}

/// Reads and validates the set and every class's tree under `root` (the crate directory).
pub fn read_inputs(root: &Path) -> Result<Inputs> {
    let text = read(root, "variants/selected.json")?;
    let selected = SelectedSet::parse(Path::new("variants/selected.json"), &text)?;
    let ids = selected.ids();
    let mut trees = Vec::new();
    for class in CLASSES {
        let rel = format!("selector/{class}.json");
        let text = read(root, &rel)?;
        let tree = Tree::parse(Path::new(&rel), &text, &ids)?;
        if tree.class != class {
            return Err(Error::Invalid {
                path: rel.into(),
                field: "class".into(),
                reason: format!("`{}` does not match the file name", tree.class),
            });
        }
        trees.push((tree, text));
    }
    Ok(Inputs { selected_sha: render::sha256_hex(&text), selected, trees })
}

/// The Rust name of a variant's `VariantId` constant: its id in UpperCamelCase.
pub fn variant_ident(id: &str) -> String {
    id.split('_')
        .map(|part| {
            let mut c = part.chars();
            c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
        })
        .collect()
}

/// The name of a class's generated selector function.
pub fn selector_fn(class: &str) -> String {
    format!("select_{}", class.replace('-', "_"))
}

fn raw_string(s: &str) -> String {
    let mut hashes = String::from("#");
    while s.contains(&format!("\"{hashes}")) {
        hashes.push('#');
    }
    format!("r{hashes}\"{s}\"{hashes}")
}

/// `variants.rs`: the `VariantId` enum and the static table of variants (id, parameters, source,
/// launch geometry), plus the helper program's source.
pub fn emit_variants(inputs: &Inputs, renderer: &Renderer) -> Result<String> {
    let set = &inputs.selected;
    let mut f = Formatter::new();
    f.comment(format!(
        "@generated by fewfit codegen from variants/selected.json (sha256 {}); do not edit",
        inputs.selected_sha
    ));
    f.line("");
    f.doc("A variant of the shipped set.");
    f.line("#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]");
    f.open("pub enum VariantId {");
    for v in &set.variants {
        let params: Vec<String> = v.variant.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
        f.doc(format!("`{}`: {}.", v.id, params.join(" ")));
        if let Some(won) = v.shapes_won {
            f.doc(format!("Best of the set on {won} training shapes."));
        }
        f.line(format!("{},", variant_ident(&v.id)));
    }
    f.close("}");
    f.line("");
    f.open("impl VariantId {");
    f.doc("Every variant, in table order.");
    f.open(format!("pub const ALL: [VariantId; {}] = [", set.variants.len()));
    for v in &set.variants {
        f.line(format!("VariantId::{},", variant_ident(&v.id)));
    }
    f.close("];");
    f.close("}");
    f.line("");
    f.doc("The shipped variants, indexed by `VariantId as usize`.");
    f.open(format!("pub static VARIANTS: [VariantInfo; {}] = [", set.variants.len()));
    for v in &set.variants {
        let g = v.variant.geometry();
        let sources = renderer.render_sources(&v.variant)?;
        f.open("VariantInfo {");
        f.line(format!("id: {:?},", v.id));
        f.line(format!("family: Family::{:?},", v.variant.family));
        let params: Vec<String> = v.variant.params.iter().map(|(k, v)| format!("({k:?}, {v})")).collect();
        f.line(format!("params: &[{}],", params.join(", ")));
        f.line(format!("local: {:?},", g.local));
        f.line(format!("tile: {:?},", g.tile));
        f.line(format!("orientation: Orientation::{:?},", g.orientation));
        f.line(format!("source_sha256: {:?},", render::sha256_hex(&sources.main)));
        f.line(format!("source: {},", raw_string(&sources.main)));
        match &sources.split {
            Some(split) => f.line(format!("split_source: Some({}),", raw_string(split))),
            None => f.line("split_source: None,"),
        }
        match &sources.unpacked {
            Some(unpacked) => f.line(format!("unpacked_source: Some({}),", raw_string(unpacked))),
            None => f.line("unpacked_source: None,"),
        }
        f.close("},");
    }
    f.close("];");
    f.line("");
    f.doc("The helper program: `scale_c` (C = beta * C).");
    f.line(format!("pub const HELPERS_SOURCE: &str = {};", raw_string(&renderer.render_helpers()?)));
    Ok(f.finish())
}

/// `selector.rs`: one `select_<class>` function per class as nested `if`s, and each tree's JSON
/// (for the interpreter behind `explain`).
pub fn emit_selectors(inputs: &Inputs) -> String {
    let mut f = Formatter::new();
    let sources: Vec<String> = inputs
        .trees
        .iter()
        .map(|(t, text)| format!("selector/{}.json (sha256 {})", t.class, render::sha256_hex(text)))
        .collect();
    f.comment(format!("@generated by fewfit codegen from {}; do not edit", sources.join(", ")));
    for (tree, _) in &inputs.trees {
        f.line("");
        tree.emit(&selector_fn(&tree.class), &|id| format!("VariantId::{}", variant_ident(id)), &mut f);
    }
    f.line("");
    f.doc("Each class's tree as JSON, by class name.");
    f.open(format!("pub const TREES: [(&str, &str); {}] = [", inputs.trees.len()));
    for (tree, text) in &inputs.trees {
        f.line(format!("({:?}, {}),", tree.class, raw_string(text)));
    }
    f.close("];");
    f.finish()
}

/// Reads the inputs under `root`, writes `variants.rs` and `selector.rs` into `out_dir`, and
/// returns the input files read (relative to `root`) for `rerun-if-changed`.
pub fn generate(root: &Path, out_dir: &Path) -> Result<Vec<PathBuf>> {
    let inputs = read_inputs(root)?;
    let renderer = Renderer::from_dir(&root.join("kernels"))?;
    let write = |name: &str, text: String| {
        let path = out_dir.join(name);
        std::fs::write(&path, text).map_err(|source| Error::Io { path, source })
    };
    write("variants.rs", emit_variants(&inputs, &renderer)?)?;
    write("selector.rs", emit_selectors(&inputs))?;
    Ok(input_files())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The root crate's directory, which holds the shipped set, trees and templates.
    fn root() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    #[test]
    fn each_tree_trains_on_its_classes_data() {
        assert!(trains("cpu", "cpu") && !trains("cpu", "nvidia-gpu"));
        assert!(trains("nvidia-gpu", "nvidia-gpu") && !trains("nvidia-gpu", "gpu"));
        // Other GPUs learn from every GPU, never from a CPU; `default` learns from every device.
        assert!(trains("gpu", "nvidia-gpu") && trains("gpu", "gpu") && !trains("gpu", "cpu"));
        assert!(CLASSES.iter().all(|c| trains("default", c)));
    }

    #[test]
    fn only_the_default_tree_is_blind_to_device_size() {
        assert!(!sees_compute_units("default"));
        assert!(CLASSES.iter().filter(|&&c| c != "default").all(|c| sees_compute_units(c)));
    }

    #[test]
    fn generation_is_byte_identical_for_identical_inputs() {
        let a = read_inputs(&root()).unwrap();
        let b = read_inputs(&root()).unwrap();
        let renderer = Renderer::from_dir(&root().join("kernels")).unwrap();
        assert_eq!(emit_variants(&a, &renderer).unwrap(), emit_variants(&b, &renderer).unwrap());
        assert_eq!(emit_selectors(&a), emit_selectors(&b));
    }

    #[test]
    fn shipped_trees_only_name_shipped_variants() {
        let inputs = read_inputs(&root()).unwrap();
        let ids = inputs.selected.ids();
        for (tree, _) in &inputs.trees {
            for leaf in tree.leaf_variants() {
                assert!(ids.iter().any(|id| id == leaf), "{leaf}");
            }
        }
    }

    #[test]
    fn bad_sets_name_the_field() {
        let text = read(&root(), "variants/selected.json").unwrap();
        let path = Path::new("variants/selected.json");
        let mut value: Value = serde_json::from_str(&text).unwrap();
        value["variants"][0]["params"]["KWI"] = Value::from(3);
        match SelectedSet::parse(path, &value.to_string()).unwrap_err() {
            Error::Invalid { field, .. } => assert_eq!(field, "variants[0].params.KWI"),
            e => panic!("{e}"),
        }
        let mut value: Value = serde_json::from_str(&text).unwrap();
        value["variants"][0]["id"] = Value::from("xgemm_wrong");
        match SelectedSet::parse(path, &value.to_string()).unwrap_err() {
            Error::Invalid { field, .. } => assert_eq!(field, "variants[0].id"),
            e => panic!("{e}"),
        }
        assert!(matches!(SelectedSet::parse(path, "[1,").unwrap_err(), Error::Json { .. }));
    }

    #[test]
    fn raw_strings_survive_quotes_and_hashes() {
        assert_eq!(raw_string("a\"#b"), "r##\"a\"#b\"##");
        assert_eq!(variant_ident("direct_kdimd8_wptm4"), "DirectKdimd8Wptm4");
    }
}
