//! The release recipe (`fewfit regenerate --recipe FILE`): one TOML file that says how the
//! shipped set and trees are made, so that one command regenerates a release.
//!
//! It names every file it reads with its sha256 (a changed or missing file stops the run before
//! anything is computed or written), the datasets of `regenerate` by role and its settings (f32's),
//! then each other precision's datasets or the precision whose trees it takes, then the steps
//! that follow selection and training, in order:
//!
//! ```toml
//! [regenerate]                      # `fewfit regenerate`'s flags, paths relative to this file
//! data = ["data/a-f32.jsonl.gz"]    # select the set and train the trees (their f32 records)
//! train_only = []                   # train the trees only
//! select_only = []                  # select the set only
//! holdout = []                      # held-out shapes, for the report
//! class_limits = { cpu = 4 }
//! shape_weights = "shapes/weights.txt"
//! # k, per_class, method, seed, test_fraction, fleet, max_depth, min_leaf: as the flags
//!
//! [precision.f16]                   # f16's part of the set and its trees, from the f16 records
//! data = ["data/a-f16.jsonl.gz"]    # of its datasets, with [regenerate]'s settings (each
//! train_only = []                   # precision selects at most `k` variants, `per_class` per
//! select_only = []                  # class...); the shipped set is the union of the parts
//! holdout = []
//!
//! [precision.tf32]                  # data for some classes only: the others take `same_as`'s
//! data = ["data/b-tf32.jsonl.gz"]
//! classes = ["nvidia-gpu"]
//! same_as = "f32"
//!
//! [precision.bf16]                  # no data: every class's bf16 tree is its f32 tree
//! same_as = "f32"
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
//! precision = "f32"                 # whose records train it, whose trees get it (default f32)
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
//! Every precision of [`PRECISIONS`] but f32 and f64 needs a section (f64 without one runs the f32
//! trees, [`fewfit_codegen::implied_precision`]); `same_as` names f32 or a precision with a section
//! of its own. A twin replaces the member in the set and in every precision's trees. A graft's
//! tree is trained as `fewfit train` trains it, over the set as the steps before it left it, with
//! the recipe's shape weights and tree grid. The trees of the classes a precision trains none for
//! are its `same_as` precision's as the steps left them. The written files' comments say what each
//! step did and name the recipe (by its file name) and the step.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use sha2::{Digest, Sha256};

use super::error::{Error, Result};
use super::regenerate::{
    load_matrix, regenerate_files, source, train_over_set, union, DataFiles, RegenerateOptions, Settings,
};
use super::train::LayoutFit;
use fewfit_codegen::graft::leaf_names;
use fewfit_codegen::tree::Node;
use fewfit_codegen::{SelectedSet, Tree, Variant, CLASSES, PRECISIONS};

/// The recipe file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RecipeFile {
    regenerate: RegenerateTable,
    #[serde(default)]
    precision: BTreeMap<String, PrecisionTable>,
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

/// `[precision.NAME]`: the datasets of a precision other than f32, by role, the classes whose
/// trees they train, and the precision whose trees the other classes take.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PrecisionTable {
    #[serde(default)]
    data: Vec<String>,
    #[serde(default)]
    train_only: Vec<String>,
    #[serde(default)]
    select_only: Vec<String>,
    #[serde(default)]
    holdout: Vec<String>,
    classes: Option<Vec<String>>,
    same_as: Option<String>,
}

fn f32_name() -> String {
    "f32".into()
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
        /// The precision whose records train it and whose trees get it.
        #[serde(default = "f32_name")]
        precision: String,
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
        /// The precision whose records train it and whose trees get it.
        #[serde(default = "f32_name")]
        precision: String,
    },
}

/// How a precision other than f32 gets its part of the set and its trees (`[precision.NAME]`).
#[derive(Clone, Debug, PartialEq)]
pub struct PrecisionPlan {
    /// The precision, one of [`PRECISIONS`].
    pub precision: String,
    /// Its datasets, by role (none: it selects no variant and trains no tree).
    pub files: DataFiles,
    /// The classes whose trees its datasets train, in the order of [`CLASSES`].
    pub classes: Vec<String>,
    /// The precision whose trees serve the other classes.
    pub same_as: Option<String>,
}

/// A loaded recipe, its paths resolved against its folder.
#[derive(Clone, Debug)]
pub struct Recipe {
    /// The recipe's file name, as the written files' comments name it.
    pub label: String,
    /// `regenerate`'s datasets, whose f32 records make f32's part of the set and trees.
    pub files: DataFiles,
    /// The other precisions' sections, in the order of [`PRECISIONS`].
    pub precisions: Vec<PrecisionPlan>,
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
    /// The trees of the selector files: for f32 and each precision with a section, in the order
    /// of [`PRECISIONS`], one per class of [`CLASSES`], in that order.
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
        let mut precisions = Vec::new();
        for (name, table) in &file.precision {
            let at = |reason: String| bad(format!("[precision.{name}]: {reason}"));
            if name == "f32" {
                return Err(at("f32's datasets and settings are [regenerate]'s".into()));
            }
            if !PRECISIONS.contains(&name.as_str()) {
                return Err(at(format!("`{name}` is not one of {:?}", &PRECISIONS[1..])));
            }
            let every_class = || CLASSES.iter().map(|c| c.to_string()).collect::<Vec<_>>();
            let classes = match (&table.classes, table.data.is_empty()) {
                (Some(classes), false) => classes.clone(),
                (None, false) => every_class(),
                (Some(_), true) => return Err(at("classes: without data, it trains no class's tree".into())),
                (None, true) => Vec::new(),
            };
            if table.data.is_empty()
                && [&table.train_only, &table.select_only, &table.holdout].iter().any(|l| !l.is_empty())
            {
                return Err(at("train_only, select_only and holdout need `data`: name its datasets".into()));
            }
            if let Some(c) = classes.iter().find(|c| !CLASSES.contains(&c.as_str())) {
                return Err(at(format!("classes: `{c}` is not one of {CLASSES:?}")));
            }
            let classes: Vec<String> = every_class().into_iter().filter(|c| classes.contains(c)).collect();
            match (&table.same_as, classes.len() == CLASSES.len()) {
                (None, false) => {
                    return Err(at(format!(
                        "same_as: name the precision whose trees serve the classes without {name} data ({})",
                        every_class().into_iter().filter(|c| !classes.contains(c)).collect::<Vec<_>>().join(", ")
                    )))
                }
                (Some(_), true) => return Err(at("same_as: its data trains every class's tree".into())),
                _ => {}
            }
            if let Some(same_as) = &table.same_as {
                if same_as == name || (same_as != "f32" && !file.precision.contains_key(same_as)) {
                    return Err(at(format!(
                        "same_as: `{same_as}` is neither f32 nor another precision with a section of its own"
                    )));
                }
            }
            for list in [&table.data, &table.train_only, &table.select_only, &table.holdout] {
                referenced.extend(list.iter().map(String::as_str));
            }
            precisions.push(PrecisionPlan {
                precision: name.clone(),
                files: DataFiles {
                    data: resolve(&table.data),
                    train_only: resolve(&table.train_only),
                    select_only: resolve(&table.select_only),
                    holdout: resolve(&table.holdout),
                },
                classes,
                same_as: table.same_as.clone(),
            });
        }
        precisions.sort_by_key(|p| PRECISIONS.iter().position(|q| *q == p.precision));
        // Each precision's `same_as` chain ends at f32 or at a precision that trains the class.
        for plan in &precisions {
            let mut seen = vec![plan.precision.as_str()];
            let mut next = plan.same_as.as_deref();
            while let Some(p) = next.filter(|&p| p != "f32") {
                if seen.contains(&p) {
                    return Err(bad(format!(
                        "[precision.{}]: same_as goes round in a circle ({} -> {p})",
                        plan.precision,
                        seen.join(" -> ")
                    )));
                }
                seen.push(p);
                next = precisions.iter().find(|q| q.precision == p).and_then(|q| q.same_as.as_deref());
            }
        }
        let missing: Vec<&str> = PRECISIONS
            .into_iter()
            .filter(|&p| p != "f32" && fewfit_codegen::implied_precision(p).is_none())
            .filter(|&p| !precisions.iter().any(|q| q.precision == p))
            .collect();
        if !missing.is_empty() {
            return Err(bad(format!(
                "no [precision.{}]: every precision needs its datasets or the precision whose trees it takes \
                 (`same_as = \"f32\"`)",
                missing.join("], [precision.")
            )));
        }
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
                Step::GraftLayout { class, data, into, precision, .. }
                | Step::GraftComputeUnits { class, data, into, precision, .. } => {
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
                    if precision != "f32" {
                        let trained = precisions.iter().find(|p| &p.precision == precision).map(|p| &p.classes);
                        if let Some(c) = into.iter().find(|c| !trained.is_some_and(|t| t.contains(c))) {
                            return Err(at(format!(
                                "into: the recipe trains no {precision} tree of `{c}` to graft into (its \
                                 [precision.{precision}] data trains a class's own)"
                            )));
                        }
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
            precisions,
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

    /// Verifies the files, regenerates f32's part of the set and trees, then each other precision's
    /// that has datasets (printing `regenerate`'s reports), joins the parts into the set
    /// ([`union`]), makes the steps in order, and gives the classes that a precision trains no
    /// tree for their `same_as` precision's; the result is checked as the build reads it. Nothing
    /// is written.
    pub fn run(&self) -> Result<Release> {
        self.verify()?;
        let options = self.settings.options()?;
        let regenerated = regenerate_files(&self.files, "f32", options.clone())?;
        print!("{}", regenerated.report(&self.files));
        let mut sets = vec![regenerated.regenerated.set];
        let mut trees = regenerated.regenerated.trees;
        for plan in self.precisions.iter().filter(|p| !p.files.data.is_empty()) {
            // The limits of the classes it trains: the others' devices may have no records of it.
            let mut options = RegenerateOptions { classes: Some(plan.classes.clone()), ..options.clone() };
            options.select.class_limits.retain(|class, _| plan.classes.contains(class));
            let regenerated = regenerate_files(&plan.files, &plan.precision, options)?;
            print!("{}: {}", plan.precision, regenerated.report(&plan.files));
            sets.push(regenerated.regenerated.set);
            trees.extend(regenerated.regenerated.trees);
        }
        let mut release = Release { set: union(&sets), trees };
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
                            renamed.push(format!("{} {leaves}", tree.name()));
                        }
                    }
                    println!(
                        "step {number}: {} -> {} ({set}, {name}); leaves renamed: {}",
                        twin.old_id,
                        twin.new_id,
                        list(&renamed)
                    );
                }
                Step::GraftLayout { class, into, precision, .. }
                | Step::GraftComputeUnits { class, into, precision, .. } => {
                    let (root, fits) = self.train_subtree(&release.set, class, data, precision)?;
                    let trained = format!("one trained on {} ({}; {tag})", source(data), LayoutFit::joined(&fits));
                    for tree_class in into {
                        let tree = release.tree_mut(tree_class, precision)?;
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
                    let which = if precision == "f32" { String::new() } else { format!(" in {precision}") };
                    println!(
                        "step {number}: {what} trained on {}, grafted into {}{which}",
                        source(data),
                        into.join(", ")
                    );
                    for fit in &fits {
                        println!("  {fit}");
                    }
                }
            }
        }
        release.trees = self.every_tree(&release.trees);
        release.check()?;
        Ok(release)
    }

    /// The trees of the selector files from the trees trained (f32's, and those of the classes
    /// each precision's data trains): for f32 and each precision with a section, in the order of
    /// [`PRECISIONS`], each class's, in the order of [`CLASSES`], the class's tree trained in that
    /// precision or else its tree in the precision's `same_as` (followed until one was trained).
    fn every_tree(&self, trained: &[Tree]) -> Vec<Tree> {
        let find = |class: &str, precision: &str| trained.iter().find(|t| t.class == class && t.precision == precision);
        let mut trees = Vec::new();
        for precision in PRECISIONS {
            let plan = self.precisions.iter().find(|p| p.precision == precision);
            if precision != "f32" && plan.is_none() {
                continue;
            }
            for class in CLASSES {
                let mut from = precision;
                let tree = loop {
                    if let Some(tree) = find(class, from) {
                        break tree;
                    }
                    let plan = self.precisions.iter().find(|p| p.precision == from).expect("f32 trains every class");
                    from = plan.same_as.as_deref().expect("checked when loaded: a class without data has a same_as");
                };
                trees.push(Tree { precision: precision.to_string(), ..tree.clone() });
            }
        }
        trees
    }

    /// The tree of `class` trained on the records of `precision` of the datasets over the set as
    /// it stands, its leaves named as the set's trees name them, with its fits.
    fn train_subtree(
        &self,
        set: &SelectedSet,
        class: &str,
        data: &[PathBuf],
        precision: &str,
    ) -> Result<(Node, Vec<LayoutFit>)> {
        let matrix = load_matrix(data, precision)?;
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
    fn tree_mut(&mut self, class: &str, precision: &str) -> Result<&mut Tree> {
        self.trees
            .iter_mut()
            .find(|t| t.class == class && t.precision == precision)
            .ok_or_else(|| Error::Invalid(format!("no tree of class `{class}` in {precision} to graft into")))
    }

    /// The files to write, relative to the crate root, with their text, as `fewfit regenerate`
    /// writes them ([`fewfit_codegen::shipped_files`]: leaves by short name, a tree equal to an
    /// earlier class's written as a reference to it).
    pub fn files(&self) -> Result<Vec<(PathBuf, String)>> {
        Ok(fewfit_codegen::shipped_files(&self.set, &self.trees)?)
    }

    /// Checks the files as the build reads them: the set parses and holds valid variants of
    /// distinct ids and names, every (class, precision) pair has a tree, one file each, and the
    /// selector files read back to these trees.
    pub fn check(&self) -> Result<()> {
        let files = self.files()?;
        let mut paths: Vec<&PathBuf> = files[1..].iter().map(|(p, _)| p).collect();
        paths.sort();
        if paths.windows(2).any(|w| w[0] == w[1]) {
            return Err(Error::Invalid(format!("two trees of one class and precision: {paths:?}")));
        }
        fewfit_codegen::check_pairs(&self.trees)?;
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

    /// The sections of the precisions that take f32's trees.
    const SAME_AS_F32: &str = "[precision.f16]\nsame_as = \"f32\"\n[precision.bf16]\nsame_as = \"f32\"\n\
                               [precision.tf32]\nsame_as = \"f32\"\n";

    /// The recipe `body` with [`SAME_AS_F32`] after it.
    fn recipe(body: &str) -> Result<Recipe> {
        Recipe::parse(Path::new("variants/recipe.toml"), &format!("{body}\n{SAME_AS_F32}"))
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
            format!(
                "[regenerate]\ndata = [\"a.jsonl\", \"b.jsonl\"]\n[sha256]\n\"a.jsonl\" = \"{a}\"\n\"b.jsonl\" = \"{HASH}\"\n\
                 {SAME_AS_F32}"
            )
        };
        let e = Recipe::parse(&path, &body(&hash)).unwrap().verify().unwrap_err().to_string();
        assert!(e.contains("1 of the recipe's 2 files") && e.contains("b.jsonl"), "{e}");
        let e = Recipe::parse(&path, &body(HASH)).unwrap().verify().unwrap_err().to_string();
        assert!(
            e.contains("2 of the recipe's 2 files") && e.contains(&format!("sha256 {hash}, the recipe says {HASH}")),
            "{e}"
        );
    }

    /// A recipe of one dataset `a` and these precision sections (and steps), every file listed.
    fn with_sections(sections: &str) -> Result<Recipe> {
        let mut files: Vec<&str> = vec!["a"];
        for line in sections.lines().filter(|l| l.starts_with("data") || l.starts_with("holdout")) {
            files.extend(line.split('"').skip(1).step_by(2));
        }
        files.sort_unstable();
        files.dedup();
        let sha256: String = files.iter().map(|f| format!("\"{f}\" = \"{HASH}\"\n")).collect();
        Recipe::parse(
            Path::new("recipe.toml"),
            &format!("[regenerate]\ndata = [\"a\"]\n{sections}\n[sha256]\n{sha256}"),
        )
    }

    #[test]
    fn each_precision_has_its_datasets_or_takes_another_precisions_trees() {
        let r = with_sections(
            "[precision.f16]\ndata = [\"h\"]\nholdout = [\"hu\"]\n[precision.tf32]\ndata = [\"t\"]\n\
             classes = [\"nvidia-gpu\"]\nsame_as = \"f32\"\n[precision.bf16]\nsame_as = \"f16\"\n",
        )
        .unwrap();
        let names: Vec<&str> = r.precisions.iter().map(|p| p.precision.as_str()).collect();
        assert_eq!(names, ["f16", "bf16", "tf32"], "in the order of PRECISIONS");
        assert_eq!(r.precisions[0].files.data, [PathBuf::from("h")]);
        assert_eq!(r.precisions[0].files.holdout, [PathBuf::from("hu")]);
        assert_eq!((r.precisions[0].classes.len(), r.precisions[0].same_as.as_deref()), (4, None));
        assert!(r.precisions[1].classes.is_empty() && r.precisions[1].files.data.is_empty());
        assert_eq!(
            (r.precisions[2].classes.clone(), r.precisions[2].same_as.as_deref()),
            (vec!["nvidia-gpu".into()], Some("f32"))
        );
        assert_eq!(r.checksums.len(), 4);
        // f64 may have a section of its own.
        let f64_too = with_sections(&format!("{SAME_AS_F32}[precision.f64]\nsame_as = \"f32\"\n")).unwrap();
        assert_eq!(f64_too.precisions.len(), 4);

        let e = |sections: &str| with_sections(sections).unwrap_err().to_string();
        assert!(
            e("[precision.f16]\nsame_as = \"f32\"\n")
                .contains("no [precision.bf16], [precision.tf32]: every precision"),
            "{}",
            e("[precision.f16]\nsame_as = \"f32\"\n")
        );
        let bad = |section: &str| e(&format!("{SAME_AS_F32}{section}"));
        assert!(bad("[precision.f32]\nsame_as = \"f16\"\n").contains("[precision.f32]: f32's datasets"));
        assert!(bad("[precision.fp8]\nsame_as = \"f32\"\n").contains("`fp8` is not one of"));
        let sections = |f16: &str| {
            e(&format!(
                "[precision.f16]\n{f16}\n[precision.bf16]\nsame_as = \"f32\"\n[precision.tf32]\nsame_as = \"f32\"\n"
            ))
        };
        assert!(sections("classes = [\"cpu\"]\nsame_as = \"f32\"").contains("without data, it trains no class's tree"));
        assert!(sections("holdout = [\"hu\"]\nsame_as = \"f32\"").contains("need `data`"));
        assert!(sections("").contains("same_as: name the precision whose trees serve the classes without f16 data (cpu, nvidia-gpu, gpu, default)"));
        assert!(sections("data = [\"h\"]\nclasses = [\"gpu\"]").contains("(cpu, nvidia-gpu, default)"));
        assert!(sections("data = [\"h\"]\nsame_as = \"f32\"").contains("its data trains every class's tree"));
        assert!(sections("data = [\"h\"]\nclasses = [\"tpu\"]\nsame_as = \"f32\"").contains("`tpu` is not one of"));
        assert!(sections("same_as = \"f16\"").contains("neither f32 nor another precision"));
        assert!(sections("same_as = \"f64\"").contains("neither f32 nor another precision"));
        let circle = e("[precision.f16]\nsame_as = \"bf16\"\n[precision.bf16]\nsame_as = \"f16\"\n[precision.tf32]\nsame_as = \"f32\"\n");
        assert!(circle.contains("same_as goes round in a circle (f16 -> bf16 -> f16)"), "{circle}");
        // A graft into a precision's trees needs them trained by its section's data.
        let graft = |into: &str| {
            with_sections(&format!(
                "[precision.f16]\ndata = [\"h\"]\nclasses = [\"nvidia-gpu\"]\nsame_as = \"f32\"\n\
                 [precision.bf16]\nsame_as = \"f32\"\n[precision.tf32]\nsame_as = \"f32\"\n[[step]]\n\
                 do = \"graft-layout\"\nlayout = \"NT\"\nclass = \"nvidia-gpu\"\ndata = [\"h\"]\n\
                 into = [\"{into}\"]\nprecision = \"f16\"\n"
            ))
        };
        match &graft("nvidia-gpu").unwrap().steps[0].0 {
            Step::GraftLayout { precision, .. } => assert_eq!(precision, "f16"),
            step => panic!("{step:?}"),
        }
        let e = graft("gpu").unwrap_err().to_string();
        assert!(e.contains("[[step]] 1: into: the recipe trains no f16 tree of `gpu`"), "{e}");
    }

    #[test]
    fn the_committed_recipe_loads_and_its_files_match_their_checksums() {
        let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../variants/recipe.toml"));
        let r = Recipe::load(path).unwrap();
        let names: Vec<(&str, Option<&str>)> =
            r.precisions.iter().map(|p| (p.precision.as_str(), p.same_as.as_deref())).collect();
        assert_eq!(names, [("f16", Some("f32")), ("bf16", Some("f32")), ("tf32", Some("f32"))]);
        r.verify().unwrap();
    }

    #[test]
    fn layouts_map_to_their_subtrees() {
        assert_eq!(["TN", "NN", "NT", "TT"].map(operands_along_k), [Some(0), Some(1), Some(2), None]);
    }
}
