//! Selector trees: their JSON form, a plain interpreter, and the emitter of nested `if` code.
//!
//! JSON form (`selector/<class>.json`):
//! ```json
//! { "class": "cpu", "comment": "...",
//!   "root": { "feature": "m", "threshold": 16, "shapes": 40,
//!             "le": { "variant": "direct_2x32_k32_ksplitauto", "shapes": 12, "geomean_slowdown": 1.02, "worst_slowdown": 1.1 },
//!             "gt": { "variant": "xgemm_64x64x32_async2_ksplitauto_swz" } } }
//! ```
//! A split sends a shape to `le` when `feature <= threshold`, else to `gt`. Thresholds are integers.
//! A leaf names a variant of `variants/selected.json` by its short name ([`crate::Variant::name`];
//! its id is also read); in memory, a [`Tree`] parsed against the set holds the ids, the tuner's and
//! the datasets' key, and [`Tree::to_json_text`] writes the names back.
//!
//! A tree serves one (device class, precision) pair: `"precision"` names it (`f32` where absent),
//! and the file's name holds both ([`crate::tree_path`]: `selector/cpu.json` is the f32 tree of
//! `cpu`, `selector/cpu.f16.json` its f16 tree).
//!
//! A pair whose tree is another pair's holds only a reference to that tree's file, by its name
//! ([`crate::tree_name`]: the file name without `.json`), and keeps its own device class (and
//! with it its own build options: cp.async and PTX reductions on `nvidia-gpu`, VW_CAP on `cpu`)
//! and precision:
//! ```json
//! { "class": "gpu", "same_as": "nvidia-gpu" }
//! { "class": "cpu", "precision": "f16", "same_as": "cpu" }
//! ```
//! ([`crate::tree_files`] writes a tree so where an earlier file holds the same root; `"comment"`
//! is written too where the pair's own differs from that tree's.)

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::error::{Error, Result};
use super::features::ShapeFeatures;
use super::srcgen::Formatter;
use super::{tree_name, tree_path, SelectedSet, PRECISIONS};

/// A selector tree for one device class and precision.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tree {
    /// The device class it serves (`cpu`, `nvidia-gpu`, `gpu`, `default`).
    pub class: String,
    /// The precision it serves, one of [`PRECISIONS`] (written only where it is not `f32`).
    #[serde(default = "f32_name", skip_serializing_if = "is_f32")]
    pub precision: String,
    /// Where the tree came from (hand-made, or the tuner's run).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub comment: String,
    /// The root node.
    pub root: Node,
}

fn f32_name() -> String {
    "f32".into()
}

fn is_f32(precision: &str) -> bool {
    precision == "f32"
}

/// A node of a selector tree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Node {
    /// An internal node: `feature <= threshold` goes to `le`, else to `gt`.
    Split {
        /// A name from [`ShapeFeatures::NAMES`].
        feature: String,
        /// The integer threshold.
        threshold: u64,
        /// Training shapes that reached this node, if known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        shapes: Option<u64>,
        /// Subtree for `feature <= threshold`.
        le: Box<Node>,
        /// Subtree for `feature > threshold`.
        gt: Box<Node>,
    },
    /// A leaf naming the variant to run.
    Leaf {
        /// The variant id.
        variant: String,
        /// Training shapes in this leaf, if known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        shapes: Option<u64>,
        /// Geometric-mean slowdown against the oracle of the training shapes here, if known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        geomean_slowdown: Option<f64>,
        /// Worst slowdown against the oracle of the training shapes here, if known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        worst_slowdown: Option<f64>,
    },
}

/// One step of a shape's path through a tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The feature tested.
    pub feature: String,
    /// The shape's value of it.
    pub value: u64,
    /// The split's threshold.
    pub threshold: u64,
    /// Whether the shape went to `le` (`value <= threshold`).
    pub went_le: bool,
}

/// Where a shape lands in a tree, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision<'t> {
    /// The leaf's number, counting leaves depth-first with `le` before `gt`.
    pub leaf: usize,
    /// The leaf node itself.
    pub node: &'t Node,
    /// The splits on the way there.
    pub path: Vec<Step>,
}

impl Decision<'_> {
    /// The variant id the shape goes to.
    pub fn variant(&self) -> &str {
        match self.node {
            Node::Leaf { variant, .. } => variant,
            Node::Split { .. } => unreachable!("a decision ends at a leaf"),
        }
    }
}

impl Tree {
    /// A tree of `class` in `precision` with no comment.
    pub fn new(class: &str, precision: &str, root: Node) -> Tree {
        Tree { class: class.into(), precision: precision.into(), comment: String::new(), root }
    }

    /// The name other files give this tree (`same_as`): [`tree_name`] of its class and precision.
    pub fn name(&self) -> String {
        tree_name(&self.class, &self.precision)
    }

    /// Its selector file, relative to the crate root ([`tree_path`]).
    pub fn path(&self) -> std::path::PathBuf {
        tree_path(&self.class, &self.precision)
    }

    /// Parses and checks a tree: every field named in an error, every leaf in `known_variants`.
    pub fn parse(path: &Path, text: &str, known_variants: &[String]) -> Result<Tree> {
        Tree::parse_with(path, text, &|leaf| known_variants.iter().any(|k| k == leaf).then(|| leaf.to_string()))
    }

    /// Parses a tree file of the shipped format, whose leaves name the set's variants by their
    /// short names (or their ids): the tree's leaves hold the ids. A file that names another
    /// pair's tree (`same_as`) is read by [`crate::parse_tree_files`].
    pub fn parse_in_set(path: &Path, text: &str, set: &SelectedSet) -> Result<Tree> {
        Tree::parse_with(path, text, &|leaf| set.find(leaf).map(|v| v.id.clone()))
    }

    /// Parses and checks a tree whose leaves `resolve` maps to what the tree holds (`None`: not
    /// a variant of the set).
    pub fn parse_with(path: &Path, text: &str, resolve: &dyn Fn(&str) -> Option<String>) -> Result<Tree> {
        let value: Value = serde_json::from_str(text).map_err(|source| Error::Json { path: path.into(), source })?;
        let invalid = |field: &str, reason: String| Error::Invalid { path: path.into(), field: field.into(), reason };
        let obj = value.as_object().ok_or_else(|| invalid("", "expected an object".into()))?;
        if obj.contains_key("same_as") {
            return Err(invalid("same_as", "names another tree: read the selector files together".into()));
        }
        check_keys(obj, &["class", "precision", "comment", "root"], "").map_err(|(f, r)| invalid(&f, r))?;
        let class = obj
            .get("class")
            .and_then(Value::as_str)
            .ok_or_else(|| invalid("class", "expected a string".into()))?
            .to_string();
        let precision = match obj.get("precision") {
            None => f32_name(),
            Some(v) => parse_precision(v).map_err(|reason| invalid("precision", reason))?,
        };
        let comment = match obj.get("comment") {
            None => String::new(),
            Some(v) => v.as_str().ok_or_else(|| invalid("comment", "expected a string".into()))?.into(),
        };
        let root = obj.get("root").ok_or_else(|| invalid("root", "missing".into()))?;
        let root = parse_node(root, "root", resolve).map_err(|(f, r)| invalid(&f, r))?;
        Ok(Tree { class, precision, comment, root })
    }

    /// The tree with each leaf's variant replaced by `rename`'s answer (e.g. ids by names).
    pub fn map_leaves(&self, rename: &dyn Fn(&str) -> String) -> Tree {
        fn map(node: &Node, rename: &dyn Fn(&str) -> String) -> Node {
            match node {
                Node::Leaf { variant, shapes, geomean_slowdown, worst_slowdown } => Node::Leaf {
                    variant: rename(variant),
                    shapes: *shapes,
                    geomean_slowdown: *geomean_slowdown,
                    worst_slowdown: *worst_slowdown,
                },
                Node::Split { feature, threshold, shapes, le, gt } => Node::Split {
                    feature: feature.clone(),
                    threshold: *threshold,
                    shapes: *shapes,
                    le: Box::new(map(le, rename)),
                    gt: Box::new(map(gt, rename)),
                },
            }
        }
        Tree { root: map(&self.root, rename), ..self.clone() }
    }

    /// The tree, whose leaves hold ids of `set`'s variants, as its selector file holds it: leaves
    /// by short name ([`crate::tree_files`] also writes one class's tree as another's).
    pub fn to_json_text(&self, set: &SelectedSet) -> Result<String> {
        if let Some(id) = self.leaf_variants().into_iter().find(|id| !set.variants.iter().any(|v| v.id == *id)) {
            return Err(Error::Invalid {
                path: self.path(),
                field: "root".into(),
                reason: format!("a leaf names `{id}`, which is not in the set"),
            });
        }
        let named = self.map_leaves(&|id| set.variants.iter().find(|v| v.id == id).expect("checked above").name());
        Ok(serde_json::to_string_pretty(&named).expect("a tree serialises") + "\n")
    }

    /// Interprets the tree for one shape (the reference the generated code is tested against).
    pub fn decide(&self, f: &ShapeFeatures) -> Decision<'_> {
        let mut node = &self.root;
        let mut path = Vec::new();
        let mut leaf = 0;
        loop {
            match node {
                Node::Leaf { .. } => return Decision { leaf, node, path },
                Node::Split { feature, threshold, le, gt, .. } => {
                    let value = f.get(feature).expect("features are checked when the tree is parsed");
                    let went_le = value <= *threshold;
                    path.push(Step { feature: feature.clone(), value, threshold: *threshold, went_le });
                    if went_le {
                        node = le;
                    } else {
                        leaf += le.leaves();
                        node = gt;
                    }
                }
            }
        }
    }

    /// The variant a shape goes to: the walk of [`Tree::decide`] without its record of the path
    /// and the leaf's number.
    pub fn variant(&self, f: &ShapeFeatures) -> &str {
        let mut node = &self.root;
        loop {
            match node {
                Node::Leaf { variant, .. } => return variant,
                Node::Split { feature, threshold, le, gt, .. } => {
                    let value = f.get(feature).expect("features are checked when the tree is parsed");
                    node = if value <= *threshold { le } else { gt };
                }
            }
        }
    }

    /// The variant ids of the leaves, depth-first.
    pub fn leaf_variants(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.root.collect_leaves(&mut out);
        out
    }

    /// Emits `fn <name>(f: &ShapeFeatures) -> VariantId` as nested `if`s; `variant_path` maps an
    /// id to the Rust path of its `VariantId` constant.
    pub fn emit(&self, name: &str, variant_path: &dyn Fn(&str) -> String, out: &mut Formatter) {
        self.emit_for(&[(&self.class, &self.precision)], name, variant_path, out)
    }

    /// As [`Tree::emit`], for a tree that the (device class, precision) pairs `pairs` share.
    pub fn emit_for(
        &self,
        pairs: &[(&str, &str)],
        name: &str,
        variant_path: &dyn Fn(&str) -> String,
        out: &mut Formatter,
    ) {
        let named: Vec<String> = pairs.iter().map(|(c, p)| format!("`{c}` in {p}")).collect();
        out.doc(format!("The selector of device class {}: {} leaves.", named.join(", "), self.root.leaves()));
        out.open(format!("pub fn {name}(f: &ShapeFeatures) -> VariantId {{"));
        let mut leaf = 0;
        emit_node(&self.root, variant_path, out, &mut leaf);
        out.close("}");
    }
}

/// A node of a tree laid out in an array, node 0 the root ([`Tree::flatten`]): what the generated
/// static tables that `explain` walks hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FlatNode {
    /// `feature <= threshold` goes to node `le`, else to node `gt`.
    Split {
        /// A name from [`ShapeFeatures::NAMES`].
        feature: String,
        /// The integer threshold.
        threshold: u64,
        /// The index of the subtree for `feature <= threshold`.
        le: usize,
        /// The index of the subtree for `feature > threshold`.
        gt: usize,
    },
    /// A leaf: the variant and the leaf's number (depth-first, `le` before `gt`, as
    /// [`Decision::leaf`]).
    Leaf {
        /// The variant.
        variant: String,
        /// The leaf's number.
        leaf: usize,
    },
}

/// Walks a flattened tree ([`Tree::flatten`]) for one shape: the leaf's variant and number, and the
/// splits on the way (what [`Tree::decide`] gives for the tree).
pub fn decide_flat<'t>(nodes: &'t [FlatNode], f: &ShapeFeatures) -> (&'t str, usize, Vec<Step>) {
    let mut i = 0;
    let mut path = Vec::new();
    loop {
        match &nodes[i] {
            FlatNode::Leaf { variant, leaf } => return (variant, *leaf, path),
            FlatNode::Split { feature, threshold, le, gt } => {
                let value = f.get(feature).expect("features are checked when the tree is parsed");
                let went_le = value <= *threshold;
                path.push(Step { feature: feature.clone(), value, threshold: *threshold, went_le });
                i = if went_le { *le } else { *gt };
            }
        }
    }
}

impl Tree {
    /// The tree as an array in depth-first order (`le` before `gt`), node 0 the root.
    pub fn flatten(&self) -> Vec<FlatNode> {
        fn push(node: &Node, out: &mut Vec<FlatNode>, leaves: &mut usize) -> usize {
            let at = out.len();
            match node {
                Node::Leaf { variant, .. } => {
                    out.push(FlatNode::Leaf { variant: variant.clone(), leaf: *leaves });
                    *leaves += 1;
                }
                Node::Split { feature, threshold, le, gt, .. } => {
                    out.push(FlatNode::Split { feature: feature.clone(), threshold: *threshold, le: 0, gt: 0 });
                    let le_at = push(le, out, leaves);
                    let gt_at = push(gt, out, leaves);
                    out[at] = FlatNode::Split { feature: feature.clone(), threshold: *threshold, le: le_at, gt: gt_at };
                }
            }
            at
        }
        let mut out = Vec::new();
        push(&self.root, &mut out, &mut 0);
        out
    }

    /// Emits `pub static <name>: [TreeNode; n]`, the tree as the generated static table
    /// (`TreeNode::Split { feature, threshold, le, gt }`, `TreeNode::Leaf { variant, leaf }`);
    /// `variant_path` maps a leaf's variant to the Rust path of its `VariantId` constant.
    pub fn emit_table(&self, name: &str, variant_path: &dyn Fn(&str) -> String, out: &mut Formatter) {
        let nodes = self.flatten();
        out.open(format!("pub static {name}: [TreeNode; {}] = [", nodes.len()));
        for node in &nodes {
            match node {
                FlatNode::Split { feature, threshold, le, gt } => out.line(format!(
                    "TreeNode::Split {{ feature: {feature:?}, threshold: {threshold}, le: {le}, gt: {gt} }},"
                )),
                FlatNode::Leaf { variant, leaf } => {
                    out.line(format!("TreeNode::Leaf {{ variant: {}, leaf: {leaf} }},", variant_path(variant)))
                }
            }
        }
        out.close("];");
    }
}

impl Node {
    fn leaves(&self) -> usize {
        match self {
            Node::Leaf { .. } => 1,
            Node::Split { le, gt, .. } => le.leaves() + gt.leaves(),
        }
    }

    fn collect_leaves<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            Node::Leaf { variant, .. } => out.push(variant),
            Node::Split { le, gt, .. } => {
                le.collect_leaves(out);
                gt.collect_leaves(out);
            }
        }
    }
}

fn emit_node(node: &Node, variant_path: &dyn Fn(&str) -> String, out: &mut Formatter, leaf: &mut usize) {
    match node {
        Node::Leaf { variant, shapes, geomean_slowdown, worst_slowdown } => {
            let mut note = format!("leaf {leaf}: {variant}");
            if let Some(s) = shapes {
                note.push_str(&format!(", {s} training shapes"));
            }
            if let Some(g) = geomean_slowdown {
                note.push_str(&format!(", geomean slowdown {g:.3}"));
            }
            if let Some(w) = worst_slowdown {
                note.push_str(&format!(", worst {w:.3}"));
            }
            out.comment(note);
            out.line(variant_path(variant));
            *leaf += 1;
        }
        Node::Split { feature, threshold, shapes, le, gt } => {
            if let Some(s) = shapes {
                out.comment(format!("split on {feature} at {threshold} ({s} training shapes)"));
            }
            // The features are unsigned, so `<= 0` is `== 0`, written so (clippy refuses the former).
            let test = if *threshold == 0 { "==" } else { "<=" };
            out.open(format!("if f.{feature} {test} {threshold} {{"));
            emit_node(le, variant_path, out, leaf);
            out.reopen("} else {");
            emit_node(gt, variant_path, out, leaf);
            out.close("}");
        }
    }
}

type FieldError = (String, String);

/// A precision's name as a tree file gives it: one of [`PRECISIONS`].
pub(crate) fn parse_precision(value: &Value) -> std::result::Result<String, String> {
    match value.as_str() {
        Some(p) if PRECISIONS.contains(&p) => Ok(p.to_string()),
        Some(p) => Err(format!("`{p}` is not one of {PRECISIONS:?}")),
        None => Err("expected a string".into()),
    }
}

fn check_keys(obj: &Map<String, Value>, allowed: &[&str], at: &str) -> std::result::Result<(), FieldError> {
    match obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err((join(at, k), format!("unknown field; expected one of {allowed:?}"))),
        None => Ok(()),
    }
}

fn join(at: &str, key: &str) -> String {
    if at.is_empty() {
        key.to_string()
    } else {
        format!("{at}.{key}")
    }
}

fn parse_node(
    value: &Value,
    at: &str,
    resolve: &dyn Fn(&str) -> Option<String>,
) -> std::result::Result<Node, FieldError> {
    let obj = value.as_object().ok_or_else(|| (at.to_string(), "expected an object".to_string()))?;
    let uint = |key: &str| -> std::result::Result<Option<u64>, FieldError> {
        match obj.get(key) {
            None => Ok(None),
            Some(v) => v.as_u64().map(Some).ok_or_else(|| (join(at, key), "expected an unsigned integer".into())),
        }
    };
    let float = |key: &str| -> std::result::Result<Option<f64>, FieldError> {
        match obj.get(key) {
            None => Ok(None),
            Some(v) => v.as_f64().map(Some).ok_or_else(|| (join(at, key), "expected a number".into())),
        }
    };
    if obj.contains_key("variant") {
        check_keys(obj, &["variant", "shapes", "geomean_slowdown", "worst_slowdown"], at)?;
        let variant = obj["variant"].as_str().ok_or_else(|| (join(at, "variant"), "expected a string".into()))?;
        let Some(variant) = resolve(variant) else {
            return Err((join(at, "variant"), format!("`{variant}` is not in variants/selected.json")));
        };
        return Ok(Node::Leaf {
            variant,
            shapes: uint("shapes")?,
            geomean_slowdown: float("geomean_slowdown")?,
            worst_slowdown: float("worst_slowdown")?,
        });
    }
    check_keys(obj, &["feature", "threshold", "shapes", "le", "gt"], at)?;
    let feature = obj
        .get("feature")
        .and_then(Value::as_str)
        .ok_or_else(|| (join(at, "feature"), "expected a feature name or, for a leaf, `variant`".into()))?;
    if !ShapeFeatures::NAMES.contains(&feature) {
        return Err((join(at, "feature"), format!("`{feature}` is not one of {:?}", ShapeFeatures::NAMES)));
    }
    let threshold = uint("threshold")?.ok_or_else(|| (join(at, "threshold"), "missing".into()))?;
    let child = |key: &str| -> std::result::Result<Box<Node>, FieldError> {
        let v = obj.get(key).ok_or_else(|| (join(at, key), "missing".to_string()))?;
        Ok(Box::new(parse_node(v, &join(at, key), resolve)?))
    };
    Ok(Node::Split {
        feature: feature.to_string(),
        threshold,
        shapes: uint("shapes")?,
        le: child("le")?,
        gt: child("gt")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TREE: &str = r#"{ "class": "cpu", "root": { "feature": "m", "threshold": 16, "shapes": 5,
        "le": { "variant": "a", "shapes": 2, "geomean_slowdown": 1.0, "worst_slowdown": 1.25 },
        "gt": { "feature": "k", "threshold": 100, "le": { "variant": "b" }, "gt": { "variant": "a" } } } }"#;

    fn known() -> Vec<String> {
        vec!["a".into(), "b".into()]
    }

    fn parse(text: &str) -> Result<Tree> {
        Tree::parse(Path::new("selector/cpu.json"), text, &known())
    }

    #[test]
    fn interprets_paths_and_numbers_leaves() {
        let t = parse(TREE).unwrap();
        let d = t.decide(&ShapeFeatures::new(4, 9, 9));
        assert_eq!((d.leaf, d.variant()), (0, "a"));
        let d = t.decide(&ShapeFeatures::new(17, 9, 101));
        assert_eq!((d.leaf, d.variant(), d.path.len()), (2, "a", 2));
        assert!(!d.path[1].went_le);
        assert_eq!(t.leaf_variants(), vec!["a", "b", "a"]);
    }

    #[test]
    fn emits_nested_ifs() {
        let t = parse(TREE).unwrap();
        let mut f = Formatter::new();
        t.emit("select_cpu", &|v| format!("VariantId::{}", v.to_uppercase()), &mut f);
        let expected = "\
/// The selector of device class `cpu` in f32: 3 leaves.
pub fn select_cpu(f: &ShapeFeatures) -> VariantId {
    // split on m at 16 (5 training shapes)
    if f.m <= 16 {
        // leaf 0: a, 2 training shapes, geomean slowdown 1.000, worst 1.250
        VariantId::A
    } else {
        if f.k <= 100 {
            // leaf 1: b
            VariantId::B
        } else {
            // leaf 2: a
            VariantId::A
        }
    }
}
";
        assert_eq!(f.finish(), expected);
    }

    #[test]
    fn a_flattened_tree_decides_as_the_tree() {
        let t = parse(TREE).unwrap();
        let nodes = t.flatten();
        assert_eq!(nodes.len(), 5);
        assert_eq!(
            nodes[0],
            FlatNode::Split { feature: "m".into(), threshold: 16, le: 1, gt: 2 },
            "depth-first, le first"
        );
        assert_eq!(nodes[4], FlatNode::Leaf { variant: "a".into(), leaf: 2 });
        for (m, k) in [(4, 9), (16, 100), (17, 100), (17, 101), (1000, 0)] {
            let f = ShapeFeatures::new(m, 9, k);
            let d = t.decide(&f);
            assert_eq!(decide_flat(&nodes, &f), (d.variant(), d.leaf, d.path.clone()));
        }
        let mut f = Formatter::new();
        t.emit_table("TREE_CPU", &|v| format!("VariantId::{}", v.to_uppercase()), &mut f);
        let code = f.finish();
        assert!(code.starts_with("pub static TREE_CPU: [TreeNode; 5] = [\n"), "{code}");
        assert!(code.contains("    TreeNode::Split { feature: \"k\", threshold: 100, le: 3, gt: 4 },\n"), "{code}");
        assert!(code.contains("    TreeNode::Leaf { variant: VariantId::B, leaf: 1 },\n"), "{code}");
    }

    #[test]
    fn a_split_at_zero_is_emitted_as_equality() {
        let t = parse(&TREE.replace("\"threshold\": 100", "\"threshold\": 0")).unwrap();
        let mut f = Formatter::new();
        t.emit("select_cpu", &|v| v.to_string(), &mut f);
        let code = f.finish();
        assert!(code.contains("if f.k == 0 {") && !code.contains("<= 0"), "{code}");
    }

    #[test]
    fn errors_name_the_field() {
        let bad_leaf = TREE.replace("\"variant\": \"b\"", "\"variant\": \"zzz\"");
        match parse(&bad_leaf).unwrap_err() {
            Error::Invalid { field, .. } => assert_eq!(field, "root.gt.le.variant"),
            e => panic!("{e}"),
        }
        let bad_feature = TREE.replace("\"feature\": \"k\"", "\"feature\": \"q\"");
        match parse(&bad_feature).unwrap_err() {
            Error::Invalid { field, .. } => assert_eq!(field, "root.gt.feature"),
            e => panic!("{e}"),
        }
        let float_threshold = TREE.replace("\"threshold\": 100", "\"threshold\": 100.5");
        match parse(&float_threshold).unwrap_err() {
            Error::Invalid { field, .. } => assert_eq!(field, "root.gt.threshold"),
            e => panic!("{e}"),
        }
        assert!(matches!(parse("{ not json").unwrap_err(), Error::Json { .. }));
        match parse(&TREE.replace("\"class\": \"cpu\",", "\"class\": \"cpu\", \"precision\": \"f8\",")).unwrap_err() {
            Error::Invalid { field, reason, .. } => {
                assert_eq!((field.as_str(), reason.contains("`f8`")), ("precision", true))
            }
            e => panic!("{e}"),
        }
    }

    #[test]
    fn a_tree_names_its_precision_where_it_is_not_f32() {
        let f32_tree = parse(TREE).unwrap();
        assert_eq!((f32_tree.precision.as_str(), f32_tree.name()), ("f32", "cpu".to_string()));
        assert_eq!(f32_tree.path(), Path::new("selector/cpu.json"));
        let text = TREE.replace("\"class\": \"cpu\",", "\"class\": \"cpu\", \"precision\": \"bf16\",");
        let tree = parse(&text).unwrap();
        assert_eq!((tree.precision.as_str(), tree.name()), ("bf16", "cpu.bf16".to_string()));
        assert_eq!(tree.path(), Path::new("selector/cpu.bf16.json"));
        assert_eq!(tree.root, f32_tree.root);
        let written = serde_json::to_string(&tree).unwrap();
        assert!(written.starts_with("{\"class\":\"cpu\",\"precision\":\"bf16\",\"root\""), "{written}");
        assert!(!serde_json::to_string(&f32_tree).unwrap().contains("precision"), "f32 is not written");
    }
}
