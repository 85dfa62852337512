//! The release recipe (`fewfit regenerate --recipe FILE`): one TOML file that says how the
//! shipped set and trees are made, so that one command regenerates a release.
//!
//! It names every file it reads with its sha256 (a changed or missing file stops the run before
//! anything is computed or written), the datasets of `regenerate` by role and its settings, then
//! the steps that follow selection and training, in order:
//!
//! ```toml
//! [regenerate]                      # `fewfit regenerate`'s flags, paths relative to this file
//! data = ["data/a-f32.jsonl.gz"]    # select the set and train the trees
//! train_only = []                   # train the trees only
//! select_only = []                  # select the set only
//! holdout = []                      # held-out shapes, for the report
//! class_limits = { cpu = 4 }
//! shape_weights = "shapes/weights.txt"
//! # k, per_class, method, seed, test_fraction, fleet, max_depth, min_leaf: as the flags
//!
//! [[step]]                          # a member replaced by its twin, in the set and every leaf
//! do = "twin"
//! variant = "xgemm_db1_..."         # the member's parameter id (Variant::id)
//! set = "RP=3"
//!
//! [[step]]                          # a layout's subtree trained apart and put in its place
//! do = "graft-layout"
//! layout = "NT"                     # NN, NT or TN
//! class = "nvidia-gpu"              # whose rows of `data` train it (as `fewfit train --class`)
//! data = ["data/b-nt-f32.jsonl.gz"]
//! into = ["nvidia-gpu", "gpu"]      # the trees that get it
//!
//! [[step]]                          # a subtree for devices of more than `above` compute units
//! do = "graft-compute-units"
//! above = 2
//! class = "cpu"
//! data = ["data/c-f32.jsonl.gz"]
//! into = ["cpu"]
//!
//! [sha256]                          # every file named above, and no other
//! "data/a-f32.jsonl.gz" = "…"
//! ```
//!
//! A graft's tree is trained as `fewfit train` trains it, over the set as the steps before it
//! left it, with the recipe's shape weights and tree grid. The written files' comments say what
//! each step did and name the recipe (by its file name) and the step.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use sha2::{Digest, Sha256};

use super::error::{Error, Result};
use super::regenerate::{load_matrix, regenerate_files, source, train_over_set, DataFiles, Settings};
use super::train::LayoutFit;
use fewfit_codegen::graft::leaf_names;
use fewfit_codegen::tree::Node;
use fewfit_codegen::{SelectedSet, Tree, Variant, CLASSES};

/// The recipe file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RecipeFile {
    regenerate: RegenerateTable,
    #[serde(default)]
    step: Vec<Step>,
    sha256: BTreeMap<String, String>,
}

/// `[regenerate]`: the datasets and the flags of `fewfit regenerate`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RegenerateTable {
    data: Vec<String>,
    #[serde(default)]
    train_only: Vec<String>,
    #[serde(default)]
    select_only: Vec<String>,
    #[serde(default)]
    holdout: Vec<String>,
    k: Option<usize>,
    per_class: Option<usize>,
    #[serde(default)]
    class_limits: BTreeMap<String, usize>,
    method: Option<String>,
    seed: Option<u64>,
    test_fraction: Option<f64>,
    shape_weights: Option<String>,
    fleet: Option<String>,
    max_depth: Option<usize>,
    min_leaf: Option<Vec<usize>>,
}

/// One step after selection and training. Paths are relative to the recipe's folder.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "do", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Step {
    /// The member whose parameter id is `variant` replaced by its twin, the same variant with
    /// `set` (`NAME=VALUE`), in the set and in every tree's leaves.
    Twin {
        /// The member's parameter id.
        variant: String,
        /// The changed parameter, `NAME=VALUE`.
        set: String,
    },
    /// A tree trained on the rows of device class `class` of `data` (one layout's records) put
    /// in place of the `layout` subtree of the trees of the classes `into`.
    GraftLayout {
        /// `NN`, `NT` or `TN`.
        layout: String,
        /// The class whose rows train it (`gpu`: every GPU's, as `fewfit train --class`).
        class: String,
        /// The datasets that train it.
        data: Vec<String>,
        /// The classes whose trees get it.
        into: Vec<String>,
    },
    /// A tree trained on the rows of device class `class` of `data` (records of larger devices)
    /// put behind a split that sends the devices of more than `above` compute units to it, in
    /// the trees of the classes `into`; smaller devices keep the tree they had.
    GraftComputeUnits {
        /// The split's threshold.
        above: u64,
        /// The class whose rows train it.
        class: String,
        /// The datasets that train it.
        data: Vec<String>,
        /// The classes whose trees get it.
        into: Vec<String>,
    },
}

/// A loaded recipe, its paths resolved against its folder.
#[derive(Clone, Debug)]
pub struct Recipe {
    /// The recipe's file name, as the written files' comments name it.
    pub label: String,
    /// `regenerate`'s datasets.
    pub files: DataFiles,
    /// `regenerate`'s other settings.
    pub settings: Settings,
    /// The steps, in order, with their datasets resolved.
    pub steps: Vec<(Step, Vec<PathBuf>)>,
    /// Every file the recipe reads, with its sha256 (lowercase hex).
    pub checksums: BTreeMap<PathBuf, String>,
}

/// What a recipe produced, not yet written.
#[derive(Clone, Debug)]
pub struct Release {
    /// `variants/selected.json`.
    pub set: SelectedSet,
    /// `selector/CLASS.json`, one per class of [`CLASSES`], in that order.
    pub trees: Vec<Tree>,
}

/// The `operands_along_k` of a layout's rows (`DeviceRecord::operands_along_k`): the subtree a
/// layout graft replaces. TT shares NN's subtree, so it is refused.
pub fn operands_along_k(layout: &str) -> Option<u64> {
    match layout {
        "TN" => Some(0),
        "NN" => Some(1),
        "NT" => Some(2),
        _ => None,
    }
}

/// Parses `NAME=VALUE` (a parameter and its value).
pub fn parse_assignment(text: &str) -> std::result::Result<(String, u32), String> {
    let (name, value) = text.split_once('=').ok_or_else(|| format!("`{text}`: expected NAME=VALUE"))?;
    let value = value.parse().map_err(|_| format!("`{text}`: the value must be a non-negative integer"))?;
    Ok((name.to_string(), value))
}

/// The sha256 of a file's bytes, in lowercase hex.
pub fn sha256_file(path: &Path) -> Result<String> {
    let mut file = std::fs::File::open(path).map_err(|source| Error::Io { path: path.into(), source })?;
    let mut hasher = Sha256::new();
    std::io::copy(&mut file, &mut hasher).map_err(|source| Error::Io { path: path.into(), source })?;
    Ok(hasher.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

impl Recipe {
    /// Reads and checks a recipe: its fields, its steps' arguments, and that `[sha256]` names
    /// every file it reads and no other. The files themselves are read by [`Recipe::verify`].
    pub fn load(path: &Path) -> Result<Recipe> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.into(), source })?;
        Recipe::parse(path, &text)
    }

    /// [`Recipe::load`] on the recipe's text; `path` places its relative paths and names it.
    pub fn parse(path: &Path, text: &str) -> Result<Recipe> {
        let bad = |reason: String| Error::Parse { path: path.into(), reason };
        let file: RecipeFile = toml::from_str(text).map_err(|e| bad(e.to_string().trim_end().to_string()))?;
        let base = path.parent().unwrap_or(Path::new(""));
        let resolve = |names: &[String]| -> Vec<PathBuf> { names.iter().map(|n| base.join(n)).collect() };
        let r = &file.regenerate;
        if r.data.is_empty() {
            return Err(bad("[regenerate] data: name at least one dataset".into()));
        }
        let mut referenced: BTreeSet<&str> = BTreeSet::new();
        for list in [&r.data, &r.train_only, &r.select_only, &r.holdout] {
            referenced.extend(list.iter().map(String::as_str));
        }
        referenced.extend(r.shape_weights.iter().chain(&r.fleet).map(String::as_str));
        let mut steps = Vec::new();
        for (i, step) in file.step.iter().enumerate() {
            let at = |reason: String| bad(format!("[[step]] {}: {reason}", i + 1));
            match step {
                Step::Twin { variant, set } => {
                    if Variant::from_id(variant).is_none() {
                        return Err(at(format!("`{variant}` is not a variant's parameter id")));
                    }
                    parse_assignment(set).map_err(at)?;
                    steps.push((step.clone(), Vec::new()));
                }
                Step::GraftLayout { class, data, into, .. } | Step::GraftComputeUnits { class, data, into, .. } => {
                    if let Step::GraftLayout { layout, .. } = step {
                        if operands_along_k(layout).is_none() {
                            return Err(at(format!("layout `{layout}`: expected NN, NT or TN")));
                        }
                    }
                    if !CLASSES.contains(&class.as_str()) {
                        return Err(at(format!("class `{class}` is not one of {CLASSES:?}")));
                    }
                    if data.is_empty() {
                        return Err(at("data: name the datasets that train the subtree".into()));
                    }
                    if into.is_empty() {
                        return Err(at("into: name the classes whose trees get the subtree".into()));
                    }
                    if let Some(c) = into.iter().find(|c| !CLASSES.contains(&c.as_str())) {
                        return Err(at(format!("into: `{c}` is not one of {CLASSES:?}")));
                    }
                    referenced.extend(data.iter().map(String::as_str));
                    steps.push((step.clone(), resolve(data)));
                }
            }
        }
        let unlisted: Vec<&str> = referenced.iter().copied().filter(|f| !file.sha256.contains_key(*f)).collect();
        if !unlisted.is_empty() {
            return Err(bad(format!(
                "[sha256] lacks {}: every file the recipe reads needs its checksum",
                unlisted.join(", ")
            )));
        }
        let unused: Vec<&str> = file.sha256.keys().map(String::as_str).filter(|f| !referenced.contains(f)).collect();
        if !unused.is_empty() {
            return Err(bad(format!("[sha256] lists {}, which the recipe does not read", unused.join(", "))));
        }
        let mut checksums = BTreeMap::new();
        for (name, hash) in &file.sha256 {
            if hash.len() != 64 || !hash.chars().all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c)) {
                return Err(bad(format!("[sha256] `{name}`: expected 64 lowercase hex digits, got `{hash}`")));
            }
            checksums.insert(base.join(name), hash.clone());
        }
        let defaults = Settings::default();
        Ok(Recipe {
            label: path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned()),
            files: DataFiles {
                data: resolve(&r.data),
                train_only: resolve(&r.train_only),
                select_only: resolve(&r.select_only),
                holdout: resolve(&r.holdout),
            },
            settings: Settings {
                k: r.k.unwrap_or(defaults.k),
                per_class: r.per_class.unwrap_or(defaults.per_class),
                class_limits: r.class_limits.clone(),
                method: r.method.clone().unwrap_or(defaults.method),
                seed: r.seed.unwrap_or(defaults.seed),
                test_fraction: r.test_fraction.unwrap_or(defaults.test_fraction),
                shape_weights: r.shape_weights.as_ref().map(|n| base.join(n)),
                fleet: r.fleet.as_ref().map(|n| base.join(n)),
                max_depth: r.max_depth,
                min_leaf: r.min_leaf.clone(),
            },
            steps,
            checksums,
        })
    }

    /// Checks every file's sha256 against the recipe's; all mismatches and missing files are
    /// named in one error.
    pub fn verify(&self) -> Result<()> {
        let mut wrong = Vec::new();
        for (path, expected) in &self.checksums {
            match sha256_file(path) {
                Ok(actual) if &actual == expected => {}
                Ok(actual) => wrong.push(format!("{}: sha256 {actual}, the recipe says {expected}", path.display())),
                Err(e) => wrong.push(e.to_string()),
            }
        }
        if wrong.is_empty() {
            return Ok(());
        }
        Err(Error::Invalid(format!(
            "{} of the recipe's {} files differ from what it was written for, so nothing was regenerated \
             (restore them, or update [sha256] if the change is meant):\n  {}",
            wrong.len(),
            self.checksums.len(),
            wrong.join("\n  ")
        )))
    }

    /// Verifies the files, regenerates (printing `regenerate`'s report), then makes the steps in
    /// order; the result is checked as the build reads it. Nothing is written.
    pub fn run(&self) -> Result<Release> {
        self.verify()?;
        let options = self.settings.options()?;
        let regenerated = regenerate_files(&self.files, options)?;
        print!("{}", regenerated.report(&self.files));
        let mut release = Release { set: regenerated.regenerated.set, trees: regenerated.regenerated.trees };
        for (i, (step, data)) in self.steps.iter().enumerate() {
            let number = i + 1;
            let tag = format!("{}, step {number}", self.label);
            match step {
                Step::Twin { variant, set } => {
                    let (param, value) = parse_assignment(set).map_err(Error::Invalid)?;
                    let twin = release.set.substitute_twin(variant, &param, value)?;
                    // The short name of the twin and the value it changed: its id is in the set's
                    // file, the member's in the recipe.
                    let was = Variant::from_id(&twin.old_id).map_or(0, |v| v.get(&param));
                    let name = release.set.variants[twin.index].name();
                    let note = format!(" Then {name} in place of its twin with {param} = {was} ({tag}).");
                    release.set.comment += &note;
                    let mut renamed = Vec::new();
                    for tree in &mut release.trees {
                        let leaves = tree.rename_leaves(&twin.old_name, &twin.new_name);
                        if leaves > 0 {
                            tree.comment += &note;
                            renamed.push(format!("{} {leaves}", tree.class));
                        }
                    }
                    println!(
                        "step {number}: {} -> {} ({set}, {name}); leaves renamed: {}",
                        twin.old_id,
                        twin.new_id,
                        list(&renamed)
                    );
                }
                Step::GraftLayout { class, into, .. } | Step::GraftComputeUnits { class, into, .. } => {
                    let (root, fits) = self.train_subtree(&release.set, class, data)?;
                    let trained = format!("one trained on {} ({}; {tag})", source(data), LayoutFit::joined(&fits));
                    for tree_class in into {
                        let tree = release.tree_mut(tree_class)?;
                        match step {
                            Step::GraftLayout { layout, .. } => {
                                let along_k = operands_along_k(layout).expect("checked when loaded");
                                tree.graft_layout(along_k, root.clone())?;
                                tree.comment += &format!(" Then its {layout} subtree replaced by {trained}.");
                            }
                            Step::GraftComputeUnits { above, .. } => {
                                tree.graft_above("compute_units", *above, root.clone());
                                tree.comment +=
                                    &format!(" Then the devices of more than {above} compute units sent to {trained}.");
                            }
                            Step::Twin { .. } => unreachable!(),
                        }
                    }
                    let what = match step {
                        Step::GraftLayout { layout, .. } => format!("{layout} subtree"),
                        _ => "subtree for larger devices".into(),
                    };
                    println!("step {number}: {what} trained on {}, grafted into {}", source(data), into.join(", "));
                    for fit in &fits {
                        println!("  {fit}");
                    }
                }
            }
        }
        release.check()?;
        Ok(release)
    }

    /// The tree of `class` trained on the datasets over the set as it stands, its leaves named
    /// as the set's trees name them, with its fits.
    fn train_subtree(&self, set: &SelectedSet, class: &str, data: &[PathBuf]) -> Result<(Node, Vec<LayoutFit>)> {
        let matrix = load_matrix(data)?;
        let trained = train_over_set(&matrix, set, class, &self.settings.tree_options()?)?;
        let mut root = trained.tree.root;
        name_leaves_as_set(&mut root, set)?;
        Ok((root, trained.fits))
    }
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "none".into()
    } else {
        items.join(", ")
    }
}

/// Renames leaves that name a member by its parameter id to the name the set's trees give it
/// ([`leaf_names`]); a leaf that names no member is an error.
fn name_leaves_as_set(node: &mut Node, set: &SelectedSet) -> Result<()> {
    match node {
        Node::Leaf { variant, .. } => {
            let names = leaf_names(set);
            let index = set
                .variants
                .iter()
                .position(|v| v.variant.id() == *variant)
                .or_else(|| names.iter().position(|n| n == variant));
            match index {
                Some(i) => {
                    *variant = names[i].clone();
                    Ok(())
                }
                None => Err(Error::Invalid(format!("the trained subtree picks `{variant}`, which is not in the set"))),
            }
        }
        Node::Split { le, gt, .. } => {
            name_leaves_as_set(le, set)?;
            name_leaves_as_set(gt, set)
        }
    }
}

impl Release {
    fn tree_mut(&mut self, class: &str) -> Result<&mut Tree> {
        self.trees
            .iter_mut()
            .find(|t| t.class == class)
            .ok_or_else(|| Error::Invalid(format!("no tree of class `{class}` to graft into")))
    }

    /// The files to write, relative to the crate root, with their text, as `fewfit regenerate`
    /// writes them ([`fewfit_codegen::shipped_files`]: leaves by short name, a tree equal to an
    /// earlier class's written as a reference to it).
    pub fn files(&self) -> Result<Vec<(PathBuf, String)>> {
        Ok(fewfit_codegen::shipped_files(&self.set, &self.trees)?)
    }

    /// Checks the files as the build reads them: the set parses and holds valid variants of
    /// distinct ids and names, the selector files read back to these trees, one per class.
    pub fn check(&self) -> Result<()> {
        let classes: Vec<&str> = self.trees.iter().map(|t| t.class.as_str()).collect();
        if classes != CLASSES {
            return Err(Error::Invalid(format!("trees of classes {classes:?}, expected {CLASSES:?}")));
        }
        let files = self.files()?;
        let (set_path, set_text) = &files[0];
        let set = SelectedSet::parse(set_path, set_text)?;
        let trees = fewfit_codegen::parse_tree_files(&files[1..], &set)?;
        if set != self.set || trees != self.trees {
            return Err(Error::Invalid("the written set and trees do not read back to what was made".into()));
        }
        Ok(())
    }

    /// Writes the files under `root`; returns their paths.
    pub fn write(&self, root: &Path) -> Result<Vec<PathBuf>> {
        let files = self.files()?;
        let mut written = Vec::new();
        for (rel, text) in files {
            let path = root.join(rel);
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|source| Error::Io { path: dir.into(), source })?;
            }
            std::fs::write(&path, text).map_err(|source| Error::Io { path: path.clone(), source })?;
            written.push(path);
        }
        Ok(written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HASH: &str = "0000000000000000000000000000000000000000000000000000000000000000";

    fn recipe(body: &str) -> Result<Recipe> {
        Recipe::parse(Path::new("variants/recipe.toml"), body)
    }

    fn error(body: &str) -> String {
        recipe(body).unwrap_err().to_string()
    }

    #[test]
    fn paths_resolve_against_the_recipes_folder() {
        let r = recipe(&format!(
            r#"
[regenerate]
data = ["data/a.jsonl"]
holdout = ["data/h.jsonl"]
class_limits = {{ cpu = 4 }}
shape_weights = "shapes/w.txt"
per_class = 6

[[step]]
do = "twin"
variant = "direct_kdimd32_ksplit1_ndimd8_rbr0_ukd8_ukk0_vwd4_wptm2_wptn1"
set = "UKK=1"

[[step]]
do = "graft-layout"
layout = "NT"
class = "nvidia-gpu"
data = ["data/nt.jsonl"]
into = ["nvidia-gpu", "gpu"]

[[step]]
do = "graft-compute-units"
above = 2
class = "cpu"
data = ["data/big.jsonl"]
into = ["cpu"]

[sha256]
"data/a.jsonl" = "{HASH}"
"data/h.jsonl" = "{HASH}"
"shapes/w.txt" = "{HASH}"
"data/nt.jsonl" = "{HASH}"
"data/big.jsonl" = "{HASH}"
"#
        ))
        .unwrap();
        assert_eq!(r.label, "recipe.toml");
        assert_eq!(r.files.data, vec![PathBuf::from("variants/data/a.jsonl")]);
        assert_eq!(r.files.holdout, vec![PathBuf::from("variants/data/h.jsonl")]);
        assert_eq!(r.settings.shape_weights, Some(PathBuf::from("variants/shapes/w.txt")));
        assert_eq!((r.settings.per_class, r.settings.k, r.settings.class_limits["cpu"]), (6, 12, 4));
        assert_eq!(r.steps.len(), 3);
        assert_eq!(r.steps[1].1, vec![PathBuf::from("variants/data/nt.jsonl")]);
        assert!(matches!(r.steps[2].0, Step::GraftComputeUnits { above: 2, .. }));
        assert_eq!(r.checksums.len(), 5);
        assert!(r.checksums.contains_key(Path::new("variants/shapes/w.txt")));
    }

    #[test]
    fn every_file_read_needs_a_checksum_and_every_checksum_a_file() {
        let e = error(&format!("[regenerate]\ndata = [\"a\", \"b\"]\n[sha256]\na = \"{HASH}\"\n"));
        assert!(e.contains("[sha256] lacks b"), "{e}");
        let e = error(&format!("[regenerate]\ndata = [\"a\"]\n[sha256]\na = \"{HASH}\"\nold = \"{HASH}\"\n"));
        assert!(e.contains("[sha256] lists old"), "{e}");
        let e = error("[regenerate]\ndata = [\"a\"]\n[sha256]\na = \"ABC\"\n");
        assert!(e.contains("64 lowercase hex"), "{e}");
    }

    #[test]
    fn bad_steps_are_refused_when_loaded() {
        let with_step =
            |step: &str| error(&format!("[regenerate]\ndata = [\"a\"]\n[[step]]\n{step}\n[sha256]\na = \"{HASH}\"\n"));
        let e = with_step("do = \"twin\"\nvariant = \"nothing\"\nset = \"RP=3\"");
        assert!(e.contains("[[step]] 1: `nothing` is not a variant's parameter id"), "{e}");
        let e = with_step("do = \"twin\"\nvariant = \"xgemm_rp0\"\nset = \"RP\"");
        assert!(e.contains("expected NAME=VALUE"), "{e}");
        let e = with_step("do = \"graft-layout\"\nlayout = \"TT\"\nclass = \"gpu\"\ndata = [\"a\"]\ninto = [\"gpu\"]");
        assert!(e.contains("expected NN, NT or TN"), "{e}");
        let e = with_step("do = \"graft-layout\"\nlayout = \"NT\"\nclass = \"gpu\"\ndata = [\"a\"]\ninto = [\"tpu\"]");
        assert!(e.contains("`tpu` is not one of"), "{e}");
        let e = with_step("do = \"prune\"");
        assert!(e.contains("prune"), "{e}");
        let e = with_step("do = \"twin\"\nvariant = \"xgemm_rp0\"\nset = \"RP=1\"\nwhy = \"faster\"");
        assert!(e.contains("why"), "{e}");
    }

    #[test]
    fn a_changed_or_missing_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.jsonl"), "x").unwrap();
        let hash = sha256_file(&dir.path().join("a.jsonl")).unwrap();
        // sha256("x")
        assert_eq!(hash, "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881");
        let path = dir.path().join("recipe.toml");
        let body = |a: &str| {
            format!("[regenerate]\ndata = [\"a.jsonl\", \"b.jsonl\"]\n[sha256]\n\"a.jsonl\" = \"{a}\"\n\"b.jsonl\" = \"{HASH}\"\n")
        };
        let e = Recipe::parse(&path, &body(&hash)).unwrap().verify().unwrap_err().to_string();
        assert!(e.contains("1 of the recipe's 2 files") && e.contains("b.jsonl"), "{e}");
        let e = Recipe::parse(&path, &body(HASH)).unwrap().verify().unwrap_err().to_string();
        assert!(
            e.contains("2 of the recipe's 2 files") && e.contains(&format!("sha256 {hash}, the recipe says {HASH}")),
            "{e}"
        );
    }

    #[test]
    fn layouts_map_to_their_subtrees() {
        assert_eq!(["TN", "NN", "NT", "TT"].map(operands_along_k), [Some(0), Some(1), Some(2), None]);
    }
}
