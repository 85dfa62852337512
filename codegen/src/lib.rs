//! fewfit's code generation, shared by its build script, its runtime and its tuner: the variant
//! parameter space and constraints, the OpenCL kernel renderer, selector trees (parse, interpret,
//! emit) and the emitter of the generated Rust tables. No OpenCL.

pub mod error;
pub mod features;
pub mod graft;
pub mod params;
pub mod render;
pub mod srcgen;
pub mod tree;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use error::{Error, Result};
pub use features::ShapeFeatures;
pub use params::{vw_cap, Family, Geometry, Orientation, PackA, Variant};
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

/// One variant of the shipped set as written in `variants/selected.json`: its short
/// [`name`](Variant::name) (derived, checked when read), its id, family and parameters (coded
/// values by their names, [`params::named_values`]), and the shapes it won.
#[derive(Clone, Debug, PartialEq)]
pub struct SelectedVariant {
    /// The id; it must equal the id derived from family and parameters.
    pub id: String,
    /// The variant itself.
    pub variant: Variant,
    /// Training shapes (over all devices) on which this variant was the best of the set, if known.
    pub shapes_won: Option<u64>,
}

impl SelectedVariant {
    /// A member of a set: the variant with its id.
    pub fn new(variant: Variant, shapes_won: Option<u64>) -> SelectedVariant {
        SelectedVariant { id: variant.id(), variant, shapes_won }
    }

    /// The short name ([`Variant::name`]): the generated `VariantId`'s, the trees' leaves', the
    /// logs' and `explain`'s.
    pub fn name(&self) -> String {
        self.variant.name()
    }
}

/// The parameters as `variants/selected.json` writes them: coded values by name.
struct NamedParams<'a>(&'a Variant);

impl Serialize for NamedParams<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.0.params.len()))?;
        for (name, &value) in &self.0.params {
            match params::value_name(name, value) {
                Some(text) => map.serialize_entry(name, text)?,
                None => map.serialize_entry(name, &value)?,
            }
        }
        map.end()
    }
}

impl Serialize for SelectedVariant {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut v = s.serialize_struct("SelectedVariant", 5)?;
        v.serialize_field("name", &self.name())?;
        v.serialize_field("id", &self.id)?;
        v.serialize_field("family", &self.variant.family)?;
        v.serialize_field("params", &NamedParams(&self.variant))?;
        if let Some(won) = self.shapes_won {
            v.serialize_field("shapes_won", &won)?;
        }
        v.end()
    }
}

/// A parameter's value as read: a number, or the name of a coded value.
#[derive(Deserialize)]
#[serde(untagged)]
enum ValueText {
    Number(u32),
    Name(String),
}

/// [`SelectedVariant`] as read (the name is checked by [`SelectedSet::parse`]).
#[derive(Deserialize)]
struct SelectedVariantText {
    #[serde(default)]
    name: Option<String>,
    id: String,
    family: Family,
    params: std::collections::BTreeMap<String, ValueText>,
    #[serde(default)]
    shapes_won: Option<u64>,
}

impl<'de> Deserialize<'de> for SelectedVariant {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let text = SelectedVariantText::deserialize(d)?;
        let mut params = std::collections::BTreeMap::new();
        for (name, value) in text.params {
            let value = match value {
                ValueText::Number(v) => v,
                ValueText::Name(word) => {
                    parse_param_value(text.family, &name, &word).map_err(serde::de::Error::custom)?
                }
            };
            params.insert(name, value);
        }
        let variant = Variant { family: text.family, params };
        if let Some(name) = text.name {
            let derived = variant.name();
            if name != derived {
                return Err(serde::de::Error::custom(format!(
                    "name `{name}` does not match the parameters; expected `{derived}`"
                )));
            }
        }
        Ok(SelectedVariant { id: text.id, variant, shapes_won: text.shapes_won })
    }
}

/// The value a parameter's text stands for: the name of one of its coded values, or a number.
fn parse_param_value(family: Family, param: &str, text: &str) -> std::result::Result<u32, String> {
    let spec = family.params().iter().find(|s| s.name == param);
    match spec.and_then(|s| s.parse_value(text)) {
        Some(v) => Ok(v),
        None => {
            let names: Vec<String> = params::named_values(param).iter().map(|(v, n)| format!("{n} ({v})")).collect();
            Err(if names.is_empty() {
                format!("`{text}` is not a value of {param}: expected a number")
            } else {
                format!("`{text}` is not a value of {param}: expected a number or one of {}", names.join(", "))
            })
        }
    }
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
    /// Parses and checks the set: ids and names match parameters (coded values given by name or
    /// number), no two variants share an id or a name, every constraint holds.
    pub fn parse(path: &Path, text: &str) -> Result<SelectedSet> {
        let invalid = |field: String, reason: String| Error::Invalid { path: path.into(), field, reason };
        let mut value: Value =
            serde_json::from_str(text).map_err(|source| Error::Json { path: path.into(), source })?;
        if let Some(obj) = value.as_object() {
            if let Some(k) = obj.keys().find(|k| !["comment", "variants"].contains(&k.as_str())) {
                return Err(invalid(k.clone(), "unknown field; expected `comment` or `variants`".into()));
            }
        }
        // Named values become numbers here, so that a bad one is reported with its field; the
        // names are checked after the parameters.
        let mut names = Vec::new();
        if let Some(variants) = value.get_mut("variants").and_then(Value::as_array_mut) {
            for (i, v) in variants.iter_mut().enumerate() {
                let family = v.get("family").cloned().and_then(|f| serde_json::from_value::<Family>(f).ok());
                names.push(v.as_object_mut().and_then(|o| o.remove("name")));
                let (Some(family), Some(params)) = (family, v.get_mut("params").and_then(Value::as_object_mut)) else {
                    continue;
                };
                for (param, value) in params.iter_mut() {
                    if let Some(word) = value.as_str() {
                        let number = parse_param_value(family, param, word)
                            .map_err(|reason| invalid(format!("variants[{i}].params.{param}"), reason))?;
                        *value = Value::from(number);
                    }
                }
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
            let name = v.name();
            match names.get(i).cloned().flatten() {
                Some(Value::String(given)) if given == name => {}
                Some(Value::String(given)) => {
                    return Err(invalid(
                        format!("variants[{i}].name"),
                        format!("`{given}` does not match its parameters; expected `{name}`"),
                    ))
                }
                Some(_) => return Err(invalid(format!("variants[{i}].name"), "expected a string".into())),
                None => {}
            }
            if let Some(j) = set.variants[..i].iter().position(|w| w.name() == name) {
                return Err(invalid(
                    format!("variants[{i}].name"),
                    format!(
                        "`{name}` is also the name of variants[{j}]: names must be unique in a set, and `{}` and \
                         `{}` differ only in parameters the name leaves out (ship one of them)",
                        set.variants[j].id, v.id
                    ),
                ));
            }
        }
        Ok(set)
    }

    /// The ids in order.
    pub fn ids(&self) -> Vec<String> {
        self.variants.iter().map(|v| v.id.clone()).collect()
    }

    /// The short names in order.
    pub fn names(&self) -> Vec<String> {
        self.variants.iter().map(SelectedVariant::name).collect()
    }

    /// The member a tree's leaf names, by its name or its id.
    pub fn find(&self, name_or_id: &str) -> Option<&SelectedVariant> {
        self.variants
            .iter()
            .find(|v| v.id == name_or_id)
            .or_else(|| self.variants.iter().find(|v| v.name() == name_or_id))
    }

    /// The set as `variants/selected.json` holds it (what `fewfit regenerate` writes).
    pub fn to_json_text(&self) -> String {
        serde_json::to_string_pretty(self).expect("a set serialises") + "\n"
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
    let mut files = Vec::new();
    for class in CLASSES {
        let rel = PathBuf::from(format!("selector/{class}.json"));
        let tree_text = read(root, &rel.to_string_lossy())?;
        files.push((rel, tree_text));
    }
    let trees = parse_tree_files(&files, &selected)?;
    for (tree, (rel, _)) in trees.iter().zip(&files) {
        if rel != &PathBuf::from(format!("selector/{}.json", tree.class)) {
            return Err(Error::Invalid {
                path: rel.clone(),
                field: "class".into(),
                reason: format!("`{}` does not match the file name", tree.class),
            });
        }
    }
    let trees = trees.into_iter().zip(files).map(|(tree, (_, text))| (tree, text)).collect();
    Ok(Inputs { selected_sha: render::sha256_hex(&text), selected, trees })
}

/// A selector file that names another class's tree: `{"class": ..., "same_as": ...}`, with a
/// comment of its own where it differs from that tree's.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SameAs {
    class: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    comment: Option<String>,
    same_as: String,
}

/// Parses selector files (path, text) against the set, in order: each a tree whose leaves name
/// the set's variants (by name or id), or a reference to an earlier or later file's tree
/// (`same_as`, see [`tree`]), which becomes that tree under the file's class (and comment, if it
/// has one). The trees' leaves hold ids.
pub fn parse_tree_files(files: &[(PathBuf, String)], set: &SelectedSet) -> Result<Vec<Tree>> {
    let mut parsed: Vec<std::result::Result<Tree, SameAs>> = Vec::new();
    for (path, text) in files {
        let value: Value = serde_json::from_str(text).map_err(|source| Error::Json { path: path.clone(), source })?;
        if value.get("same_as").is_some() {
            let same: SameAs =
                serde_json::from_value(value).map_err(|source| Error::Json { path: path.clone(), source })?;
            parsed.push(Err(same));
        } else {
            parsed.push(Ok(Tree::parse_in_set(path, text, set)?));
        }
    }
    let mut trees = Vec::new();
    for (i, entry) in parsed.iter().enumerate() {
        match entry {
            Ok(tree) => trees.push(tree.clone()),
            Err(same) => {
                let target = parsed.iter().find_map(|p| p.as_ref().ok().filter(|t| t.class == same.same_as));
                let Some(target) = target else {
                    let named = parsed.iter().any(|p| matches!(p, Err(s) if s.class == same.same_as));
                    return Err(Error::Invalid {
                        path: files[i].0.clone(),
                        field: "same_as".into(),
                        reason: if named {
                            format!("`{}` names another class's tree itself: name that class", same.same_as)
                        } else {
                            format!("no selector file holds the tree of class `{}`", same.same_as)
                        },
                    });
                };
                trees.push(Tree {
                    class: same.class.clone(),
                    comment: same.comment.clone().unwrap_or_else(|| target.comment.clone()),
                    root: target.root.clone(),
                });
            }
        }
    }
    Ok(trees)
}

/// The selector files of `trees` (leaves holding ids of `set`'s variants), in order: each
/// `selector/<class>.json` with its text, leaves by short name; a tree whose root equals an
/// earlier tree's is written as a reference to that class's tree (`same_as`), with its own
/// comment only where that differs. What `fewfit regenerate` writes; [`parse_tree_files`] reads
/// them back to the same trees.
pub fn tree_files(trees: &[Tree], set: &SelectedSet) -> Result<Vec<(PathBuf, String)>> {
    let mut files = Vec::new();
    for (i, tree) in trees.iter().enumerate() {
        let path = PathBuf::from(format!("selector/{}.json", tree.class));
        let text = match trees[..i].iter().find(|t| t.root == tree.root) {
            Some(first) => {
                let comment = (tree.comment != first.comment).then(|| tree.comment.clone());
                let same = SameAs { class: tree.class.clone(), comment, same_as: first.class.clone() };
                serde_json::to_string_pretty(&same).expect("a reference serialises") + "\n"
            }
            None => tree.to_json_text(set)?,
        };
        files.push((path, text));
    }
    Ok(files)
}

/// Everything a release ships, as `fewfit regenerate` writes it under the crate root:
/// `variants/selected.json` ([`SelectedSet::to_json_text`]), then the classes' selector files
/// ([`tree_files`]); [`read_inputs`] reads them back.
pub fn shipped_files(set: &SelectedSet, trees: &[Tree]) -> Result<Vec<(PathBuf, String)>> {
    let mut files = vec![(PathBuf::from("variants/selected.json"), set.to_json_text())];
    files.extend(tree_files(trees, set)?);
    Ok(files)
}

/// The Rust name of a variant's `VariantId` constant: its short name (or any `_`-separated name)
/// in UpperCamelCase, e.g. `Xgemm128x128x16DbregSk2Rpnotambk`.
pub fn variant_ident(name: &str) -> String {
    name.split('_')
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
        let params: Vec<String> = v
            .variant
            .params
            .iter()
            .map(|(k, &value)| match params::value_name(k, value) {
                Some(name) => format!("{k}={name}"),
                None => format!("{k}={value}"),
            })
            .collect();
        f.doc(format!("`{}`: {}.", v.name(), params.join(" ")));
        if let Some(won) = v.shapes_won {
            f.doc(format!("Best of the set on {won} training shapes."));
        }
        f.line(format!("{},", variant_ident(&v.name())));
    }
    f.close("}");
    f.line("");
    f.open("impl VariantId {");
    f.doc("Every variant, in table order.");
    f.open(format!("pub const ALL: [VariantId; {}] = [", set.variants.len()));
    for v in &set.variants {
        f.line(format!("VariantId::{},", variant_ident(&v.name())));
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
        f.line(format!("name: {:?},", v.name()));
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

/// The distinct trees of `trees`, each with the classes that share it (trees with equal roots,
/// in order of first use).
pub fn distinct_trees(trees: &[Tree]) -> Vec<(&Tree, Vec<&str>)> {
    let mut distinct: Vec<(&Tree, Vec<&str>)> = Vec::new();
    for tree in trees {
        match distinct.iter_mut().find(|(t, _)| t.root == tree.root) {
            Some((_, classes)) => classes.push(&tree.class),
            None => distinct.push((tree, vec![&tree.class])),
        }
    }
    distinct
}

/// The name of the generated static table of the tree that a class's selector file holds.
fn tree_table(class: &str) -> String {
    format!("TREE_{}", class.replace('-', "_").to_uppercase())
}

/// The name of the generated list of the variants a class's tree can pick.
fn reachable_list(class: &str) -> String {
    format!("REACHABLE_{}", class.replace('-', "_").to_uppercase())
}

/// `selector.rs`, all static, nothing to parse at run time: per distinct tree (trees with equal
/// roots are one), a `select_<class>` function of nested `if`s named for its first class (the other
/// classes that share it get an alias) and a static node table `TREE_<CLASS>` for `explain`;
/// per class, `REACHABLE_<CLASS>` (the variants its tree can pick); and `CLASS_SELECTIONS`, each
/// class's tree and reachable variants in the order of [`CLASSES`].
pub fn emit_selectors(inputs: &Inputs) -> String {
    let mut f = Formatter::new();
    let sources: Vec<String> = inputs
        .trees
        .iter()
        .map(|(t, text)| format!("selector/{}.json (sha256 {})", t.class, render::sha256_hex(text)))
        .collect();
    f.comment(format!("@generated by fewfit codegen from {}; do not edit", sources.join(", ")));
    f.line("");
    f.doc("A node of a selector tree as static data (for `explain`), in an array whose node 0 is the root.");
    f.line("#[derive(Clone, Copy, Debug, PartialEq, Eq)]");
    f.open("pub enum TreeNode {");
    f.doc("A split: a shape whose `feature` is at most `threshold` goes to node `le`, else to node `gt`.");
    f.open("Split {");
    for (field, ty, doc) in [
        ("feature", "&'static str", "The feature, a name of `ShapeFeatures::NAMES`."),
        ("threshold", "u64", "The threshold."),
        ("le", "usize", "The node of the shapes at or below the threshold."),
        ("gt", "usize", "The node of the shapes above it."),
    ] {
        f.doc(doc);
        f.line(format!("{field}: {ty},"));
    }
    f.close("},");
    f.doc("A leaf: the variant, and the leaf's number (leaves counted depth-first, `le` before `gt`).");
    f.open("Leaf {");
    f.doc("The variant.");
    f.line("variant: VariantId,");
    f.doc("The leaf's number.");
    f.line("leaf: usize,");
    f.close("},");
    f.close("}");
    f.line("");
    f.doc("A device class's tree as data and the variants it can pick (its selector is `select_<class>`).");
    f.line("#[derive(Clone, Copy, Debug)]");
    f.open("pub struct ClassSelection {");
    for (field, ty, doc) in [
        ("class", "&'static str", "The class's name (`selector/<class>.json`)."),
        ("tree", "&'static [TreeNode]", "The tree as static data, for `explain`."),
        (
            "reachable",
            "&'static [VariantId]",
            "The variants the tree's leaves name, each once, in set order: what a device's first call builds.",
        ),
    ] {
        f.doc(doc);
        f.line(format!("pub {field}: {ty},"));
    }
    f.close("}");
    let set = &inputs.selected;
    let name_of = |id: &str| set.find(id).map_or_else(|| id.to_string(), SelectedVariant::name);
    let variant_path = |name: &str| format!("VariantId::{}", variant_ident(name));
    let trees: Vec<Tree> = inputs.trees.iter().map(|(t, _)| t.clone()).collect();
    // The table of each class's tree: the first class's of those that share it.
    let mut table_of = std::collections::BTreeMap::new();
    for (tree, classes) in distinct_trees(&trees) {
        f.line("");
        let named = tree.map_leaves(&name_of);
        let select = selector_fn(classes[0]);
        named.emit_for(&classes, &select, &variant_path, &mut f);
        for class in &classes[1..] {
            f.doc(format!("The selector of device class `{class}`: the tree of `{}`.", classes[0]));
            f.line(format!("pub use self::{select} as {};", selector_fn(class)));
        }
        f.line("");
        let table = tree_table(classes[0]);
        let which: Vec<String> = classes.iter().map(|c| format!("`{c}`")).collect();
        f.doc(format!("The tree of {} as static data: node 0 is the root.", which.join(", ")));
        named.emit_table(&table, &variant_path, &mut f);
        for class in &classes {
            table_of.insert(class.to_string(), table.clone());
        }
    }
    for tree in &trees {
        f.line("");
        let leaves = tree.leaf_variants();
        f.doc(format!("The variants the tree of `{}` can pick, in set order.", tree.class));
        f.open(format!("pub const {}: &[VariantId] = &[", reachable_list(&tree.class)));
        for v in set.variants.iter().filter(|v| leaves.contains(&v.id.as_str())) {
            f.line(format!("{},", variant_path(&v.name())));
        }
        f.close("];");
    }
    f.line("");
    f.doc("Every class's selection, in the order of `fewfit_codegen::CLASSES`.");
    f.open(format!("pub static CLASS_SELECTIONS: [ClassSelection; {}] = [", trees.len()));
    for tree in &trees {
        f.open("ClassSelection {");
        f.line(format!("class: {:?},", tree.class));
        f.line(format!("tree: &{},", table_of[&tree.class]));
        f.line(format!("reachable: {},", reachable_list(&tree.class)));
        f.close("},");
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
    fn kernels_md_documents_every_parameter_and_named_value() {
        let doc = read(&root(), "docs/KERNELS.md").unwrap();
        for family in Family::ALL {
            let start = doc.find(&format!("\n## {}\n", family.name())).unwrap_or_else(|| panic!("no section {family}"));
            let rest = &doc[start + 4..];
            let section = &rest[..rest.find("\n## ").unwrap_or(rest.len())];
            for spec in family.params() {
                assert!(section.contains(&format!("`{}`", spec.name)), "docs/KERNELS.md, {family}: no `{}`", spec.name);
                for (_, value) in params::named_values(spec.name) {
                    assert!(
                        doc.contains(&format!("`{value}`")),
                        "docs/KERNELS.md: {}'s `{value}` is not named",
                        spec.name
                    );
                }
            }
        }
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
        assert_eq!(variant_ident("xgemm_128x128x16_dbreg_sk2_rpnotambk"), "Xgemm128x128x16DbregSk2Rpnotambk");
    }

    /// The committed files, by path relative to the crate root.
    fn committed_tree_files() -> Vec<(PathBuf, String)> {
        CLASSES
            .iter()
            .map(|c| {
                let rel = format!("selector/{c}.json");
                (PathBuf::from(&rel), read(&root(), &rel).unwrap())
            })
            .collect()
    }

    #[test]
    fn shipped_files_read_and_written_again_are_byte_identical() {
        // What `fewfit regenerate` writes goes through `to_json_text` and `tree_files`: the
        // committed files must be exactly what they write for the set and trees they hold.
        let text = read(&root(), "variants/selected.json").unwrap();
        let set = SelectedSet::parse(Path::new("variants/selected.json"), &text).unwrap();
        assert_eq!(set.to_json_text(), text);
        let files = committed_tree_files();
        let trees = parse_tree_files(&files, &set).unwrap();
        assert_eq!(trees.iter().map(|t| t.class.as_str()).collect::<Vec<_>>(), CLASSES);
        assert_eq!(tree_files(&trees, &set).unwrap(), files);
        let shipped = shipped_files(&set, &trees).unwrap();
        assert_eq!((shipped[0].0.to_str(), &shipped[0].1), (Some("variants/selected.json"), &text));
        assert_eq!(shipped[1..], files[..]);
        // In memory the leaves hold ids; on disk, names.
        let ids = set.ids();
        assert!(trees.iter().all(|t| t.leaf_variants().iter().all(|l| ids.iter().any(|id| id == l))));
        assert!(files.iter().all(|(_, text)| !text.contains("\"variant\": \"xgemm_db")));
    }

    #[test]
    fn shipped_names_are_short_unique_and_derived_from_the_parameters() {
        let inputs = read_inputs(&root()).unwrap();
        let names = inputs.selected.names();
        for (name, v) in names.iter().zip(&inputs.selected.variants) {
            assert!(name.len() <= 40, "{name}");
            assert_eq!(Variant::from_id(&v.id).unwrap().name(), *name, "the same parameters, the same name");
            assert!(name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'), "{name}");
        }
        let mut unique = names.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "{names:?}");
        // Every class's tree ships; `gpu` is `nvidia-gpu`'s.
        let text = read(&root(), "selector/gpu.json").unwrap();
        assert!(text.contains("\"same_as\": \"nvidia-gpu\""), "{text}");
        let (gpu, nvidia) = (&inputs.trees[2].0, &inputs.trees[1].0);
        assert_eq!((gpu.class.as_str(), &gpu.root), ("gpu", &nvidia.root));
    }

    fn set_value() -> Value {
        serde_json::from_str(&read(&root(), "variants/selected.json").unwrap()).unwrap()
    }

    fn invalid_field(value: &Value) -> (String, String) {
        match SelectedSet::parse(Path::new("variants/selected.json"), &value.to_string()).unwrap_err() {
            Error::Invalid { field, reason, .. } => (field, reason),
            e => panic!("{e}"),
        }
    }

    #[test]
    fn coded_values_are_read_by_name_or_number() {
        let shipped = SelectedSet::parse(Path::new("s.json"), &set_value().to_string()).unwrap();
        let i = shipped.variants.iter().position(|v| v.variant.family == Family::Xgemm).unwrap();
        let mut value = set_value();
        assert!(value["variants"][i]["params"]["DB"].is_string(), "written by name");
        value["variants"][i]["params"]["DB"] = Value::from(shipped.variants[i].variant.get("DB"));
        value["variants"][i]["params"]["KSPLIT"] = Value::from(shipped.variants[i].variant.get("KSPLIT"));
        value["variants"][i].as_object_mut().unwrap().remove("name");
        let read_back = SelectedSet::parse(Path::new("s.json"), &value.to_string()).unwrap();
        assert_eq!(read_back, shipped, "numbers and names read alike; the name may be left out");
        assert_eq!(read_back.to_json_text(), shipped.to_json_text());

        let mut value = set_value();
        value["variants"][i]["params"]["DB"] = Value::from("triple");
        let (field, reason) = invalid_field(&value);
        assert_eq!(field, format!("variants[{i}].params.DB"));
        assert!(reason.contains("single (0)") && reason.contains("dbmix (5)"), "{reason}");
        let mut value = set_value();
        value["variants"][i]["params"]["MWG"] = Value::from("big");
        let (field, reason) = invalid_field(&value);
        assert_eq!(field, format!("variants[{i}].params.MWG"));
        assert!(reason.contains("expected a number"), "{reason}");
        let mut value = set_value();
        value["variants"][i]["name"] = Value::from("xgemm_fast");
        let (field, reason) = invalid_field(&value);
        assert_eq!(field, format!("variants[{i}].name"));
        assert!(reason.contains(&format!("expected `{}`", shipped.variants[i].name())), "{reason}");
    }

    #[test]
    fn a_set_with_two_variants_of_one_name_is_refused() {
        // Two xgemm variants that differ in KWI alone share a name.
        let shipped = SelectedSet::parse(Path::new("s.json"), &set_value().to_string()).unwrap();
        let i = shipped.variants.iter().position(|v| v.variant.family == Family::Xgemm).unwrap();
        let mut twin = shipped.variants[i].variant.clone();
        twin.params.insert("KWI".into(), if twin.get("KWI") == 2 { 4 } else { 2 });
        assert_eq!(twin.validate(), Ok(()));
        let mut set = shipped.clone();
        set.variants.pop();
        set.variants.push(SelectedVariant::new(twin.clone(), None));
        let (field, reason) = invalid_field(&serde_json::from_str(&set.to_json_text()).unwrap());
        assert_eq!(field, format!("variants[{}].name", set.variants.len() - 1));
        assert!(reason.contains(&format!("is also the name of variants[{i}]")), "{reason}");
        assert!(reason.contains(&twin.id()) && reason.contains(&shipped.variants[i].id), "{reason}");
    }

    #[test]
    fn a_class_may_name_another_classs_tree() {
        let set = SelectedSet::parse(Path::new("s.json"), &set_value().to_string()).unwrap();
        let mut files = committed_tree_files();
        let with_comment =
            "{\n  \"class\": \"gpu\",\n  \"comment\": \"other GPUs\",\n  \"same_as\": \"nvidia-gpu\"\n}\n";
        files[2].1 = with_comment.into();
        let trees = parse_tree_files(&files, &set).unwrap();
        assert_eq!((trees[2].comment.as_str(), &trees[2].root), ("other GPUs", &trees[1].root));
        assert_eq!(tree_files(&trees, &set).unwrap()[2].1, with_comment, "its own comment is kept");
        let bad = |gpu: &str| {
            let mut files = committed_tree_files();
            files[2].1 = gpu.into();
            match parse_tree_files(&files, &set).unwrap_err() {
                Error::Invalid { field, reason, .. } => format!("{field}: {reason}"),
                Error::Json { source, .. } => format!("json: {source}"),
                e => panic!("{e}"),
            }
        };
        assert!(bad(r#"{"class": "gpu", "same_as": "tpu"}"#).starts_with("same_as: no selector file"));
        let mut chained = committed_tree_files();
        chained[1].1 = r#"{"class": "nvidia-gpu", "same_as": "cpu"}"#.into();
        let e = parse_tree_files(&chained, &set).unwrap_err().to_string();
        assert!(e.contains("names another class's tree itself"), "{e}");
        assert!(bad(r#"{"class": "gpu", "same_as": "cpu", "root": {}}"#).starts_with("json: unknown field `root`"));
        // A tree file that names a variant outside the set, by name or id, is refused.
        let leaf = r#"{"class": "gpu", "root": {"variant": "xgemm_1x1x1_single"}}"#;
        assert!(bad(leaf).starts_with("root.variant: `xgemm_1x1x1_single` is not in"), "{}", bad(leaf));
    }

    #[test]
    fn generated_selectors_have_one_function_per_distinct_tree() {
        let inputs = read_inputs(&root()).unwrap();
        let code = emit_selectors(&inputs);
        assert_eq!(code.matches("pub fn select_").count(), 3, "cpu, nvidia-gpu (and gpu), default");
        assert!(code.contains("pub use self::select_nvidia_gpu as select_gpu;"));
        assert!(code.contains("/// The selector of device classes `nvidia-gpu`, `gpu`:"));
        assert_eq!(code.matches("pub static TREE_").count(), 3);
        assert!(code.contains("tree: &TREE_NVIDIA_GPU,\n        reachable: REACHABLE_GPU,"), "gpu's own list");
        assert!(!code.contains("TREE_GPU") && !code.contains("\"root\""), "no JSON is embedded");
        // Each class's reachable list is its tree's leaves.
        for (tree, _) in &inputs.trees {
            let list = reachable_list(&tree.class);
            let at = code.find(&format!("pub const {list}: &[VariantId] = &[")).unwrap();
            let body = &code[at..at + code[at..].find("];").unwrap()];
            for v in &inputs.selected.variants {
                let listed = body.contains(&format!("VariantId::{},", variant_ident(&v.name())));
                assert_eq!(listed, tree.leaf_variants().contains(&v.id.as_str()), "{list}: {}", v.name());
            }
        }
        for name in inputs.selected.names() {
            assert!(code.contains(&format!("VariantId::{}", variant_ident(&name))) || !code.contains(&name), "{name}");
        }
    }
}
