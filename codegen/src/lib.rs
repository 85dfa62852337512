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

/// The device classes that ship selector trees, each in `selector/<class>.json` (f32) and
/// `selector/<class>.<precision>.json` (the other precisions, [`tree_path`]).
pub const CLASSES: [&str; 4] = ["cpu", "nvidia-gpu", "gpu", "default"];

/// The precisions, each with a tree per device class, in the order of `fewfit::Precision`'s
/// indices: f32 and f64 storage and arithmetic, f16 and bf16 storage with f32 arithmetic, and
/// f32 storage with TF32 tensor-core products.
pub const PRECISIONS: [&str; 5] = ["f32", "f64", "f16", "bf16", "tf32"];

/// The precision whose tree of a class serves `precision` where that class has no selector file
/// for it: f32's for f64 (f64 ran the f32 trees before precisions had trees of their own, and no
/// f64 datasets exist); `None` for the others, whose every (class, precision) pair needs a file of
/// its own, a tree or a reference to another file's (`same_as`).
pub fn implied_precision(precision: &str) -> Option<&'static str> {
    (precision == "f64").then_some("f32")
}

/// The name of the tree of (class, precision), as a `same_as` names it: the class for f32
/// (`cpu`), else the class and the precision (`cpu.f16`); its file is `selector/<name>.json`.
pub fn tree_name(class: &str, precision: &str) -> String {
    if precision == "f32" {
        class.to_string()
    } else {
        format!("{class}.{precision}")
    }
}

/// The selector file of (class, precision), relative to the crate root: `selector/cpu.json`,
/// `selector/cpu.f16.json` ([`tree_name`]).
pub fn tree_path(class: &str, precision: &str) -> PathBuf {
    PathBuf::from(format!("selector/{}.json", tree_name(class, precision)))
}

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

/// The largest number of variants a shipped set may hold for one precision (the set is the union of
/// each precision's selection).
pub const MAX_SELECTED: usize = 12;

/// One variant of the shipped set as written in `variants/selected.json`: its short
/// [`name`](Variant::name) (derived, checked when read), its id, family and parameters (coded
/// values by their names, [`params::named_values`]), the precisions that selected it, and the
/// shapes it won.
#[derive(Clone, Debug, PartialEq)]
pub struct SelectedVariant {
    /// The id; it must equal the id derived from family and parameters.
    pub id: String,
    /// The variant itself.
    pub variant: Variant,
    /// The precisions whose selection chose it, in the order of [`PRECISIONS`] (empty: not
    /// recorded). Metadata: a tree of any precision may pick any member.
    pub precisions: Vec<String>,
    /// Training shapes (over all devices, summed over the precisions that selected it) on which
    /// this variant was the best of its precision's selection, if known.
    pub shapes_won: Option<u64>,
}

impl SelectedVariant {
    /// A member of a set: the variant with its id, no precisions recorded.
    pub fn new(variant: Variant, shapes_won: Option<u64>) -> SelectedVariant {
        SelectedVariant { id: variant.id(), variant, precisions: Vec::new(), shapes_won }
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
        let mut v = s.serialize_struct("SelectedVariant", 6)?;
        v.serialize_field("name", &self.name())?;
        v.serialize_field("id", &self.id)?;
        v.serialize_field("family", &self.variant.family)?;
        v.serialize_field("params", &NamedParams(&self.variant))?;
        if !self.precisions.is_empty() {
            v.serialize_field("precisions", &self.precisions)?;
        }
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
    precisions: Vec<String>,
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
        Ok(SelectedVariant { id: text.id, variant, precisions: text.precisions, shapes_won: text.shapes_won })
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
    /// number), no two variants share an id or a name, every constraint holds, the precisions
    /// recorded are known, in order, and no precision selected more than [`MAX_SELECTED`].
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
        let most = MAX_SELECTED * PRECISIONS.len();
        if set.variants.is_empty() || set.variants.len() > most {
            return Err(invalid(
                "variants".into(),
                format!(
                    "must hold 1 to {most} variants ({MAX_SELECTED} for each of {} precisions), holds {}",
                    PRECISIONS.len(),
                    set.variants.len()
                ),
            ));
        }
        for precision in PRECISIONS {
            let chosen = set.variants.iter().filter(|v| v.precisions.iter().any(|p| p == precision)).count();
            if chosen > MAX_SELECTED {
                return Err(invalid(
                    "variants".into(),
                    format!("{chosen} variants selected for {precision}: at most {MAX_SELECTED} per precision"),
                ));
            }
        }
        for (i, v) in set.variants.iter().enumerate() {
            let order: Vec<Option<usize>> =
                v.precisions.iter().map(|p| PRECISIONS.iter().position(|q| q == p)).collect();
            if order.iter().any(Option::is_none) || !order.windows(2).all(|w| w[0] < w[1]) {
                return Err(invalid(
                    format!("variants[{i}].precisions"),
                    format!("{:?}: expected distinct names of {PRECISIONS:?}, in that order", v.precisions),
                ));
            }
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
    /// The tree of each selector file, with the file's text, in the order of [`tree_files`]
    /// (precisions in the order of [`PRECISIONS`], each with its classes in the order of
    /// [`CLASSES`]); a pair without a file of its own takes its [`implied_precision`]'s tree.
    pub trees: Vec<(Tree, String)>,
}

impl Inputs {
    /// The tree that serves (class, precision) ([`tree_of`]).
    pub fn tree(&self, class: &str, precision: &str) -> Result<&Tree> {
        let trees: Vec<&Tree> = self.trees.iter().map(|(t, _)| t).collect();
        tree_of(&trees, class, precision)
    }
}

/// The tree among `trees` that serves (class, precision): its own, else the tree of its class in
/// its [`implied_precision`]; an error naming the missing file where neither exists.
pub fn tree_of<'t>(trees: &[&'t Tree], class: &str, precision: &str) -> Result<&'t Tree> {
    let find = |p: &str| trees.iter().copied().find(|t| t.class == class && t.precision == p);
    find(precision)
        .or_else(|| implied_precision(precision).and_then(find))
        .ok_or_else(|| missing_tree(class, precision))
}

/// The error of a (class, precision) pair that no tree serves.
fn missing_tree(class: &str, precision: &str) -> Error {
    let reason = format!(
        "no tree for device class `{class}` in {precision}: every (class, precision) pair needs a selector file, a \
         tree or a reference to another pair's (`{{\"class\": \"{class}\", \"precision\": \"{precision}\", \
         \"same_as\": \"{class}\"}}` for the class's f32 tree); only f64 falls back to f32's by itself"
    );
    Error::Io { path: tree_path(class, precision), source: std::io::Error::new(std::io::ErrorKind::NotFound, reason) }
}

/// Checks that every (class, precision) pair of [`CLASSES`] and [`PRECISIONS`] has a tree among
/// `trees` ([`tree_of`]).
pub fn check_pairs(trees: &[Tree]) -> Result<()> {
    let trees: Vec<&Tree> = trees.iter().collect();
    for class in CLASSES {
        for precision in PRECISIONS {
            tree_of(&trees, class, precision)?;
        }
    }
    Ok(())
}

/// The files generation reads, relative to the crate root (for `rerun-if-changed`): the set, the
/// folder `selector` (a folder is watched whole, so a tree file added or removed counts) and the
/// kernel templates.
pub fn input_files() -> Vec<PathBuf> {
    let mut files = vec![PathBuf::from("variants/selected.json"), PathBuf::from("selector")];
    files.extend(render::TEMPLATE_FILES.iter().map(|name| PathBuf::from(format!("kernels/{name}"))));
    files
}

fn read(root: &Path, rel: &str) -> Result<String> {
    std::fs::read_to_string(root.join(rel)).map_err(|source| Error::Io { path: rel.into(), source })
}

/// Reads and validates the set and the selector files under `root` (the crate directory): each
/// (class, precision) pair's file where it has one, checked against its file name; a file in
/// `selector/` that is no pair's is refused (a misspelt name would be ignored otherwise), and so is
/// a pair that no tree serves ([`check_pairs`]).
pub fn read_inputs(root: &Path) -> Result<Inputs> {
    let text = read(root, "variants/selected.json")?;
    let selected = SelectedSet::parse(Path::new("variants/selected.json"), &text)?;
    let pairs: Vec<(&str, &str)> = PRECISIONS.iter().flat_map(|&p| CLASSES.iter().map(move |&c| (c, p))).collect();
    let dir = root.join("selector");
    let listing = std::fs::read_dir(&dir).map_err(|source| Error::Io { path: "selector".into(), source })?;
    for entry in listing {
        let name = entry.map_err(|source| Error::Io { path: "selector".into(), source })?.file_name();
        let rel = Path::new("selector").join(&name);
        if rel.extension().is_some_and(|e| e == "json") && !pairs.iter().any(|&(c, p)| tree_path(c, p) == rel) {
            let reason = format!(
                "not the selector file of a device class and precision: expected selector/CLASS.json (f32) or \
                 selector/CLASS.PRECISION.json, CLASS one of {CLASSES:?}, PRECISION one of {:?}",
                &PRECISIONS[1..]
            );
            return Err(Error::Io { path: rel, source: std::io::Error::new(std::io::ErrorKind::InvalidInput, reason) });
        }
    }
    let (mut files, mut read_pairs) = (Vec::new(), Vec::new());
    for (class, precision) in pairs {
        let rel = tree_path(class, precision);
        match std::fs::read_to_string(root.join(&rel)) {
            Ok(tree_text) => {
                files.push((rel, tree_text));
                read_pairs.push((class, precision));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => return Err(Error::Io { path: rel, source }),
        }
    }
    let trees = parse_tree_files(&files, &selected)?;
    for ((tree, (rel, _)), (class, precision)) in trees.iter().zip(&files).zip(read_pairs) {
        let (field, given, expected) =
            if tree.class != class { ("class", &tree.class, class) } else { ("precision", &tree.precision, precision) };
        if given != expected {
            return Err(Error::Invalid {
                path: rel.clone(),
                field: field.into(),
                reason: format!("`{given}` does not match the file name, which says `{expected}`"),
            });
        }
    }
    check_pairs(&trees)?;
    let trees = trees.into_iter().zip(files).map(|(tree, (_, text))| (tree, text)).collect();
    Ok(Inputs { selected_sha: render::sha256_hex(&text), selected, trees })
}

/// A selector file that names another pair's tree: `{"class": ..., "precision": ..., "same_as":
/// ...}` (`same_as` a [`tree_name`]), with a comment of its own where it differs from that tree's.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SameAs {
    class: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    precision: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    comment: Option<String>,
    same_as: String,
}

/// Parses selector files (path, text) against the set, in order: each a tree whose leaves name
/// the set's variants (by name or id), or a reference to an earlier or later file's tree by its
/// [`tree_name`] (`same_as`, see [`tree`]), which becomes that tree under the file's class and
/// precision (and comment, if it has one). The trees' leaves hold ids.
pub fn parse_tree_files(files: &[(PathBuf, String)], set: &SelectedSet) -> Result<Vec<Tree>> {
    let mut parsed: Vec<std::result::Result<Tree, SameAs>> = Vec::new();
    for (path, text) in files {
        let value: Value = serde_json::from_str(text).map_err(|source| Error::Json { path: path.clone(), source })?;
        if value.get("same_as").is_some() {
            let same: SameAs =
                serde_json::from_value(value).map_err(|source| Error::Json { path: path.clone(), source })?;
            if let Some(p) = &same.precision {
                tree::parse_precision(&Value::from(p.as_str())).map_err(|reason| Error::Invalid {
                    path: path.clone(),
                    field: "precision".into(),
                    reason,
                })?;
            }
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
                let target = parsed.iter().find_map(|p| p.as_ref().ok().filter(|t| t.name() == same.same_as));
                let Some(target) = target else {
                    let named = parsed.iter().any(|p| {
                        matches!(p, Err(s) if tree_name(&s.class, s.precision.as_deref().unwrap_or("f32")) == same.same_as)
                    });
                    return Err(Error::Invalid {
                        path: files[i].0.clone(),
                        field: "same_as".into(),
                        reason: if named {
                            format!("`{}` names another tree itself: name that tree", same.same_as)
                        } else {
                            format!("no selector file holds the tree `{}` (selector/{0}.json)", same.same_as)
                        },
                    });
                };
                trees.push(Tree {
                    class: same.class.clone(),
                    precision: same.precision.clone().unwrap_or_else(|| "f32".into()),
                    comment: same.comment.clone().unwrap_or_else(|| target.comment.clone()),
                    root: target.root.clone(),
                });
            }
        }
    }
    Ok(trees)
}

/// The selector files of `trees` (leaves holding ids of `set`'s variants), in order: each
/// [`Tree::path`] with its text, leaves by short name; a tree whose root equals an earlier tree's
/// is written as a reference to that tree (`same_as` its [`tree_name`]), with its own comment only
/// where that differs. What `fewfit regenerate` writes; [`parse_tree_files`] reads them back to
/// the same trees. A pair left out has no file: only f64 may be ([`implied_precision`]).
pub fn tree_files(trees: &[Tree], set: &SelectedSet) -> Result<Vec<(PathBuf, String)>> {
    let mut files = Vec::new();
    for (i, tree) in trees.iter().enumerate() {
        let text = match trees[..i].iter().find(|t| t.root == tree.root) {
            Some(first) => {
                let same = SameAs {
                    class: tree.class.clone(),
                    precision: (tree.precision != "f32").then(|| tree.precision.clone()),
                    comment: (tree.comment != first.comment).then(|| tree.comment.clone()),
                    same_as: first.name(),
                };
                serde_json::to_string_pretty(&same).expect("a reference serialises") + "\n"
            }
            None => tree.to_json_text(set)?,
        };
        files.push((tree.path(), text));
    }
    Ok(files)
}

/// Everything a release ships, as `fewfit regenerate` writes it under the crate root:
/// `variants/selected.json` ([`SelectedSet::to_json_text`]), then the selector files
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

/// A (device class, precision) pair, by their names.
pub type Pair = (&'static str, &'static str);

/// Every (class, precision) pair of [`CLASSES`] and [`PRECISIONS`] with the tree among `trees` that
/// serves it ([`tree_of`]), classes in order, each with its precisions in order.
pub fn pair_trees(trees: &[Tree]) -> Result<Vec<(&'static str, &'static str, &Tree)>> {
    let refs: Vec<&Tree> = trees.iter().collect();
    let mut pairs = Vec::new();
    for class in CLASSES {
        for precision in PRECISIONS {
            pairs.push((class, precision, tree_of(&refs, class, precision)?));
        }
    }
    Ok(pairs)
}

/// The distinct trees of `trees` (trees with equal roots are one, the first of them standing for
/// it), each with the (class, precision) pairs it serves ([`pair_trees`]), in order of `trees`.
pub fn distinct_trees(trees: &[Tree]) -> Result<Vec<(&Tree, Vec<Pair>)>> {
    let mut distinct: Vec<(&Tree, Vec<Pair>)> = Vec::new();
    for tree in trees {
        if !distinct.iter().any(|(t, _)| t.root == tree.root) {
            distinct.push((tree, Vec::new()));
        }
    }
    for (class, precision, tree) in pair_trees(trees)? {
        let (_, pairs) = distinct.iter_mut().find(|(t, _)| t.root == tree.root).expect("every tree is listed");
        pairs.push((class, precision));
    }
    Ok(distinct)
}

/// A tree's name ([`tree_name`]) as a Rust identifier's suffix: `cpu.f16` -> `cpu_f16`.
fn ident_suffix(name: &str) -> String {
    name.replace(['-', '.'], "_")
}

/// The name of the generated selector function of the tree named `name` ([`tree_name`]):
/// `select_cpu`, `select_nvidia_gpu_f16`.
pub fn selector_fn(name: &str) -> String {
    format!("select_{}", ident_suffix(name))
}

/// The name of the generated static table of the tree named `name`.
fn tree_table(name: &str) -> String {
    format!("TREE_{}", ident_suffix(name).to_uppercase())
}

/// The name of the generated list of the variants the tree named `name` can pick.
fn reachable_list(name: &str) -> String {
    format!("REACHABLE_{}", ident_suffix(name).to_uppercase())
}

/// `selector.rs`, all static, nothing to parse at run time: per distinct tree (trees with equal
/// roots are one, named for the first file that holds it), a `select_<name>` function of nested
/// `if`s, a static node table `TREE_<NAME>` for `explain` and `REACHABLE_<NAME>` (the variants it
/// can pick); and `CLASS_SELECTIONS[class][precision]`, each (class, precision) pair's selector,
/// tree and reachable variants, classes in the order of [`CLASSES`] and precisions in that of
/// [`PRECISIONS`]. An error where a pair has no tree ([`check_pairs`]).
pub fn emit_selectors(inputs: &Inputs) -> Result<String> {
    let trees: Vec<Tree> = inputs.trees.iter().map(|(t, _)| t.clone()).collect();
    let distinct = distinct_trees(&trees)?;
    let mut f = Formatter::new();
    let sources: Vec<String> = inputs
        .trees
        .iter()
        .map(|(t, text)| format!("{} (sha256 {})", t.path().display(), render::sha256_hex(text)))
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
    f.doc("A (device class, precision) pair's selection: its selector, its tree as data and the variants it can pick.");
    f.line("#[derive(Clone, Copy, Debug)]");
    f.open("pub struct ClassSelection {");
    for (field, ty, doc) in [
        ("class", "&'static str", "The class's name (`fewfit_codegen::CLASSES`)."),
        ("precision", "&'static str", "The precision's name (`fewfit_codegen::PRECISIONS`)."),
        ("select", "fn(&ShapeFeatures) -> VariantId", "The selector: the tree compiled to nested `if`s."),
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
    // The generated names of each pair's tree: those of the first tree of its root.
    let mut name_of_pair = std::collections::BTreeMap::new();
    for (tree, pairs) in &distinct {
        f.line("");
        let named = tree.map_leaves(&name_of);
        let name = tree.name();
        named.emit_for(pairs, &selector_fn(&name), &variant_path, &mut f);
        f.line("");
        let which: Vec<String> = pairs.iter().map(|(c, p)| format!("`{c}` in {p}")).collect();
        f.doc(format!("The tree of {} as static data: node 0 is the root.", which.join(", ")));
        named.emit_table(&tree_table(&name), &variant_path, &mut f);
        f.line("");
        let leaves = tree.leaf_variants();
        f.doc(format!("The variants the tree of {} can pick, in set order.", which.join(", ")));
        f.open(format!("pub const {}: &[VariantId] = &[", reachable_list(&name)));
        for v in set.variants.iter().filter(|v| leaves.contains(&v.id.as_str())) {
            f.line(format!("{},", variant_path(&v.name())));
        }
        f.close("];");
        for &pair in pairs {
            name_of_pair.insert(pair, name.clone());
        }
    }
    f.line("");
    f.doc(
        "Every (device class, precision) pair's selection, `CLASS_SELECTIONS[class][precision]`: classes in the order \
         of `fewfit_codegen::CLASSES`, precisions in that of `fewfit_codegen::PRECISIONS`.",
    );
    f.open(format!("pub static CLASS_SELECTIONS: [[ClassSelection; {}]; {}] = [", PRECISIONS.len(), CLASSES.len()));
    for class in CLASSES {
        f.open("[");
        for precision in PRECISIONS {
            let name = &name_of_pair[&(class, precision)];
            f.open("ClassSelection {");
            f.line(format!("class: {class:?},"));
            f.line(format!("precision: {precision:?},"));
            f.line(format!("select: {},", selector_fn(name)));
            f.line(format!("tree: &{},", tree_table(name)));
            f.line(format!("reachable: {},", reachable_list(name)));
            f.close("},");
        }
        f.close("],");
    }
    f.close("];");
    Ok(f.finish())
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
    write("selector.rs", emit_selectors(&inputs)?)?;
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
        assert_eq!(emit_selectors(&a).unwrap(), emit_selectors(&b).unwrap());
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

    /// The committed selector files, by path relative to the crate root, in the order that
    /// `read_inputs` reads them (the f32 trees of `CLASSES` first).
    fn committed_tree_files() -> Vec<(PathBuf, String)> {
        read_inputs(&root()).unwrap().trees.into_iter().map(|(tree, text)| (tree.path(), text)).collect()
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
        assert_eq!(
            trees[..4].iter().map(|t| (t.class.as_str(), t.precision.as_str())).collect::<Vec<_>>(),
            [("cpu", "f32"), ("nvidia-gpu", "f32"), ("gpu", "f32"), ("default", "f32")]
        );
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
        assert!(e.contains("names another tree itself"), "{e}");
        assert!(bad(r#"{"class": "gpu", "same_as": "cpu", "root": {}}"#).starts_with("json: unknown field `root`"));
        // A tree file that names a variant outside the set, by name or id, is refused.
        let leaf = r#"{"class": "gpu", "root": {"variant": "xgemm_1x1x1_single"}}"#;
        assert!(bad(leaf).starts_with("root.variant: `xgemm_1x1x1_single` is not in"), "{}", bad(leaf));
    }

    #[test]
    fn generated_selectors_have_one_function_per_distinct_tree() {
        let inputs = read_inputs(&root()).unwrap();
        let code = emit_selectors(&inputs).unwrap();
        let trees: Vec<Tree> = inputs.trees.iter().map(|(t, _)| t.clone()).collect();
        let distinct = distinct_trees(&trees).unwrap();
        assert_eq!(code.matches("pub fn select_").count(), distinct.len());
        assert_eq!(code.matches("pub static TREE_").count(), distinct.len());
        assert_eq!(code.matches("pub const REACHABLE_").count(), distinct.len());
        assert!(code.contains("/// The selector of device class `nvidia-gpu` in f32, `nvidia-gpu` in f64, "));
        assert!(code.contains("pub static CLASS_SELECTIONS: [[ClassSelection; 5]; 4] = [\n"));
        assert!(!code.contains("\"root\""), "no JSON is embedded");
        // Each pair's entry names its tree's items, and each tree's reachable list is its leaves.
        let mut entries = code.split("ClassSelection {\n").skip(2);
        for (class, precision, tree) in pair_trees(&trees).unwrap() {
            let entry = entries.next().unwrap();
            let first = distinct.iter().find(|(t, _)| t.root == tree.root).unwrap().0.name();
            let expected = format!(
                "class: {class:?},\n            precision: {precision:?},\n            select: {},\n            tree: \
                 &{},\n            reachable: {},\n",
                selector_fn(&first),
                tree_table(&first),
                reachable_list(&first)
            );
            assert!(entry.trim_start().starts_with(expected.trim_start()), "{class} {precision}: {entry}");
            let list = reachable_list(&first);
            let at = code.find(&format!("pub const {list}: &[VariantId] = &[")).unwrap();
            let body = &code[at..at + code[at..].find("];").unwrap()];
            for v in &inputs.selected.variants {
                let listed = body.contains(&format!("VariantId::{},", variant_ident(&v.name())));
                assert_eq!(listed, tree.leaf_variants().contains(&v.id.as_str()), "{list}: {}", v.name());
            }
        }
        assert!(entries.next().is_none());
    }

    /// A small set and a tree over it, with the files of every pair: each a reference to `cpu`'s
    /// f32 tree, but f64, which has none.
    fn small_release() -> (SelectedSet, Vec<(PathBuf, String)>) {
        let set = SelectedSet::parse(Path::new("s.json"), &set_value().to_string()).unwrap();
        let names = set.names();
        let tree = format!(
            r#"{{"class": "cpu", "root": {{"feature": "m", "threshold": 64, "le": {{"variant": "{}"}}, "gt": {{"variant": "{}"}}}}}}"#,
            names[0], names[1]
        );
        let mut files = vec![(tree_path("cpu", "f32"), tree)];
        for class in &CLASSES[1..] {
            files.push((tree_path(class, "f32"), format!(r#"{{"class": "{class}", "same_as": "cpu"}}"#)));
        }
        for precision in ["f16", "bf16", "tf32"] {
            for class in CLASSES {
                let same = format!(r#"{{"class": "{class}", "precision": "{precision}", "same_as": "cpu"}}"#);
                files.push((tree_path(class, precision), same));
            }
        }
        (set, files)
    }

    /// The error of reading `files` into a crate root that holds the shipped set.
    fn read_error(files: &[(PathBuf, String)]) -> String {
        let dir = std::env::temp_dir().join(format!(
            "fewfit-codegen-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("selector")).unwrap();
        std::fs::create_dir_all(dir.join("variants")).unwrap();
        std::fs::write(dir.join("variants/selected.json"), read(&root(), "variants/selected.json").unwrap()).unwrap();
        for (rel, text) in files {
            std::fs::write(dir.join(rel), text).unwrap();
        }
        let e = match read_inputs(&dir) {
            Ok(_) => String::new(),
            Err(e) => e.to_string(),
        };
        std::fs::remove_dir_all(&dir).unwrap();
        e
    }

    #[test]
    fn every_class_and_precision_resolves_to_a_tree() {
        let (set, files) = small_release();
        assert_eq!(read_error(&files), "", "a complete release reads");
        let trees = parse_tree_files(&files, &set).unwrap();
        let pairs = pair_trees(&trees).unwrap();
        assert_eq!(pairs.len(), CLASSES.len() * PRECISIONS.len());
        // References resolve to their tree under their own class and precision; f64 takes f32's.
        for (class, precision, tree) in &pairs {
            assert_eq!(tree.root, trees[0].root, "{class} {precision}");
            let expected = if *precision == "f64" { "f32" } else { precision };
            assert_eq!((tree.class.as_str(), tree.precision.as_str()), (*class, expected));
        }
        // One tree: one selector for all 20 pairs.
        let distinct = distinct_trees(&trees).unwrap();
        assert_eq!(distinct.len(), 1);
        assert_eq!(distinct[0].1.len(), 20);
        let inputs = Inputs {
            selected: set.clone(),
            selected_sha: String::new(),
            trees: trees.iter().cloned().zip(files.iter().map(|(_, t)| t.clone())).collect(),
        };
        let code = emit_selectors(&inputs).unwrap();
        assert_eq!(code.matches("pub fn select_").count(), 1);
        assert_eq!(code.matches("select: select_cpu,").count(), 20);

        // A tree of its own for bf16 on nvidia-gpu, shared by gpu's bf16 file: a second selector,
        // named for its file, serving those two pairs.
        let names = set.names();
        let mut own = files.clone();
        let bf16 = own.iter().position(|(p, _)| p == Path::new("selector/nvidia-gpu.bf16.json")).unwrap();
        own[bf16].1 =
            format!(r#"{{"class": "nvidia-gpu", "precision": "bf16", "root": {{"variant": "{}"}}}}"#, names[2]);
        let gpu = own.iter().position(|(p, _)| p == Path::new("selector/gpu.bf16.json")).unwrap();
        own[gpu].1 = r#"{"class": "gpu", "precision": "bf16", "same_as": "nvidia-gpu.bf16"}"#.into();
        assert_eq!(read_error(&own), "");
        let trees = parse_tree_files(&own, &set).unwrap();
        let distinct = distinct_trees(&trees).unwrap();
        assert_eq!(distinct.len(), 2);
        assert_eq!(distinct[1].0.name(), "nvidia-gpu.bf16");
        assert_eq!(distinct[1].1, [("nvidia-gpu", "bf16"), ("gpu", "bf16")]);
        let inputs =
            Inputs { trees: trees.iter().cloned().zip(own.iter().map(|(_, t)| t.clone())).collect(), ..inputs };
        let code = emit_selectors(&inputs).unwrap();
        assert!(code.contains("pub fn select_nvidia_gpu_bf16(f: &ShapeFeatures) -> VariantId {"), "{code}");
        assert_eq!(code.matches("select: select_nvidia_gpu_bf16,").count(), 2);
        assert_eq!(code.matches("select: select_cpu,").count(), 18);
        // Written again: the reference stays one (to the first file with that root).
        let written = tree_files(&trees, &set).unwrap();
        assert_eq!(
            written[gpu].1,
            "{\n  \"class\": \"gpu\",\n  \"precision\": \"bf16\",\n  \"same_as\": \"nvidia-gpu.bf16\"\n}\n"
        );
        assert_eq!(parse_tree_files(&written, &set).unwrap(), trees);

        // An f64 file of its own serves f64 instead of f32's tree.
        let mut f64_own = files.clone();
        f64_own.push((
            tree_path("cpu", "f64"),
            format!(r#"{{"class": "cpu", "precision": "f64", "root": {{"variant": "{}"}}}}"#, names[3]),
        ));
        assert_eq!(read_error(&f64_own), "");
        let trees = parse_tree_files(&f64_own, &set).unwrap();
        let refs: Vec<&Tree> = trees.iter().collect();
        assert_eq!(tree_of(&refs, "cpu", "f64").unwrap().leaf_variants(), [set.variants[3].id.as_str()]);
        assert_eq!(tree_of(&refs, "gpu", "f64").unwrap().root, trees[0].root);
    }

    #[test]
    fn a_pair_without_a_tree_or_a_misnamed_file_is_refused() {
        let (set, files) = small_release();
        // A half precision needs a file of its own: no f32 fallback as f64 has.
        let without: Vec<_> = files.iter().filter(|(p, _)| p != Path::new("selector/gpu.f16.json")).cloned().collect();
        let e = read_error(&without);
        assert!(e.starts_with("selector/gpu.f16.json: no tree for device class `gpu` in f16"), "{e}");
        assert!(e.contains(r#""same_as": "gpu"}"#), "{e}");
        let trees = parse_tree_files(&without, &set).unwrap();
        assert!(check_pairs(&trees).is_err() && pair_trees(&trees).is_err());
        let inputs = Inputs {
            selected: set.clone(),
            selected_sha: String::new(),
            trees: trees.into_iter().zip(without.iter().map(|(_, t)| t.clone())).collect(),
        };
        assert!(emit_selectors(&inputs).unwrap_err().to_string().contains("gpu.f16.json"));
        // Nor does the f32 tree of a class fall back to anything.
        let without: Vec<_> = files.iter().filter(|(p, _)| p != Path::new("selector/default.json")).cloned().collect();
        assert!(read_error(&without).starts_with("selector/default.json: no tree for device class `default` in f32"));
        // A file under another pair's name, an unknown precision, a name that is no pair's.
        let mut swapped = files.clone();
        swapped[5].1 = swapped[5].1.replace("\"f16\"", "\"bf16\"");
        let e = read_error(&swapped);
        assert!(e.contains("nvidia-gpu.f16.json: field `precision`: `bf16` does not match the file name"), "{e}");
        let mut unknown = files.clone();
        unknown[5].1 = unknown[5].1.replace("\"f16\"", "\"fp16\"");
        assert!(read_error(&unknown).contains("field `precision`: `fp16` is not one of"), "{}", read_error(&unknown));
        let mut stray = files.clone();
        stray.push(("selector/cpu.fp16.json".into(), files[4].1.clone()));
        let e = read_error(&stray);
        assert!(e.starts_with("selector/cpu.fp16.json: not the selector file of a device class and precision"), "{e}");
        // A reference to a tree that is itself a reference, or to no file.
        let mut chained = files.clone();
        chained[4].1 = r#"{"class": "cpu", "precision": "f16", "same_as": "gpu"}"#.into();
        assert!(read_error(&chained).contains("`gpu` names another tree itself"), "{}", read_error(&chained));
        chained[4].1 = r#"{"class": "cpu", "precision": "f16", "same_as": "cpu.f64"}"#.into();
        assert!(read_error(&chained).contains("no selector file holds the tree `cpu.f64`"), "{}", read_error(&chained));
    }

    #[test]
    fn precisions_are_recorded_per_member_and_limit_the_set_per_precision() {
        let shipped = SelectedSet::parse(Path::new("s.json"), &set_value().to_string()).unwrap();
        assert!(shipped.variants.iter().all(|v| !v.precisions.is_empty()), "each member records its precisions");
        let of_f32 = shipped.variants.iter().filter(|v| v.precisions.iter().any(|p| p == "f32")).count();
        assert_eq!(of_f32, MAX_SELECTED, "the release selects the most it may for f32");
        let mut value = set_value();
        value["variants"][0]["precisions"] = serde_json::json!(["f16", "f32"]);
        let (field, reason) = invalid_field(&value);
        assert_eq!(field, "variants[0].precisions");
        assert!(reason.contains("in that order"), "{reason}");
        value["variants"][0]["precisions"] = serde_json::json!(["f32", "int8"]);
        assert_eq!(invalid_field(&value).0, "variants[0].precisions");
        // More than MAX_SELECTED members of one precision is refused; across precisions, more is fine.
        let mut set = shipped.clone();
        let extra = set
            .variants
            .iter()
            .map(|v| v.variant.clone())
            .find_map(|v| {
                let mut twin = v.clone();
                twin.params.insert("WPTN".into(), 2);
                (twin.validate().is_ok() && set.find(&twin.id()).is_none() && set.find(&twin.name()).is_none())
                    .then_some(twin)
            })
            .unwrap();
        // f64 takes f32's trees: no member records it.
        set.variants.push(SelectedVariant { precisions: vec!["f64".into()], ..SelectedVariant::new(extra, None) });
        let read_back = SelectedSet::parse(Path::new("s.json"), &set.to_json_text()).unwrap();
        assert_eq!(read_back, set);
        set.variants.last_mut().unwrap().precisions = vec!["f32".into()];
        let (field, reason) = invalid_field(&serde_json::from_str(&set.to_json_text()).unwrap());
        assert_eq!(field, "variants");
        assert!(reason.contains("13 variants selected for f32: at most 12 per precision"), "{reason}");
    }
}
