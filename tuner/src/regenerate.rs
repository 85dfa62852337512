//! Regeneration of what the crate ships: from the records of one precision, select its part of the
//! set on a training split of the shapes, train one tree per device class over it, and evaluate
//! the result on the held-out shapes; the shipped set is the union of the precisions' parts
//! ([`union`]). The caller writes the files (`variants/selected.json`, `selector/*.json`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::dataset::{Dataset, Matrix, Shape};
use super::error::{Error, Result};
use super::evaluate::{evaluate, Evaluation, Shipped};
use super::select::{self, split_shapes, FleetWeights, Objective, SelectOptions, SelectedSet as Selection, Stats};
use super::train::{train, LayoutFit, TrainOptions, Trained};
use fewfit_codegen::{trains, SelectedSet, SelectedVariant, Tree, CLASSES, PRECISIONS};

/// How to regenerate.
#[derive(Clone, Debug, Default)]
pub struct RegenerateOptions {
    /// Set selection (method, budgets, seed).
    pub select: SelectOptions,
    /// Tree training (cross-validation grid).
    pub train: TrainOptions,
    /// Without a held-out dataset: the fraction of the shapes held out from selection and
    /// training, for the report.
    pub test_fraction: f64,
    /// Where the data came from, written into the files' comments.
    pub source: String,
    /// Rows of the matrix that train the trees but take no part in selecting the set or in the
    /// report: shapes measured on the shipped set only (trees need the set measured, selection
    /// the whole pool, where an unmeasured variant would count as failed). The trees'
    /// cross-validation scores those of them whose shape is one that selects the set (in another
    /// layout, say), and no others.
    pub tree_only_rows: BTreeSet<usize>,
    /// Rows of the matrix that take part in selecting the set but train no tree: a device whose
    /// records should shape the set, not the trees (the `default` tree, blind to a device's size,
    /// would learn a larger CPU's labels for every device), or one whose tree is trained apart.
    pub select_only_rows: BTreeSet<usize>,
    /// The classes whose trees are trained, in the order of [`CLASSES`] (`None`: every class); a
    /// precision whose records come from some device classes only (TF32: NVIDIA GPUs) trains
    /// theirs and takes another precision's trees for the others.
    pub classes: Option<Vec<String>>,
}

impl RegenerateOptions {
    /// The classes whose trees are trained ([`RegenerateOptions::classes`]).
    pub fn trained_classes(&self) -> Vec<&str> {
        match &self.classes {
            None => CLASSES.to_vec(),
            Some(classes) => CLASSES.into_iter().filter(|c| classes.iter().any(|k| k == c)).collect(),
        }
    }
}

/// What regeneration produced.
#[derive(Clone, Debug)]
pub struct Regenerated {
    /// The set selected for the matrix's precision (the members record it).
    pub set: SelectedSet,
    /// One tree per trained class ([`RegenerateOptions::trained_classes`]), in the order of
    /// [`CLASSES`], in the matrix's precision.
    pub trees: Vec<Tree>,
    /// The rows of the matrix that trained the trees (those of the training split not in
    /// [`RegenerateOptions::select_only_rows`]; selection used those not in
    /// [`RegenerateOptions::tree_only_rows`]).
    pub train_rows: Vec<usize>,
    /// Best-in-set slowdown of the selection on the rows it was selected on.
    pub train_best_in_set: Stats,
    /// The shipped set and trees evaluated on the held-out shapes (of the held-out matrix if one
    /// was given, else of the split's test rows).
    pub test: Evaluation,
}

/// The tree-only rows that the trees' cross-validation leaves unscored: those whose shape selects
/// the set nowhere. The shapes that select the set are what the selector is judged on, on every
/// device and in every layout (the set swept in row-major NT on them is tree-only data: no other
/// variant ran there); the other tree-only shapes only teach the trees.
fn unscored_rows(matrix: &Matrix, select_rows: &[usize], tree_only_rows: &BTreeSet<usize>) -> BTreeSet<usize> {
    let judged: BTreeSet<Shape> = select_rows.iter().map(|&r| matrix.problems[r].shape).collect();
    tree_only_rows.iter().copied().filter(|&r| !judged.contains(&matrix.problems[r].shape)).collect()
}

/// Selects, trains and evaluates. With a `holdout` matrix (shapes never used in training), every
/// row of `matrix` trains and the result is evaluated on `holdout`; without one, a seeded split of
/// the shapes holds `options.test_fraction` of them out. Every class trained
/// ([`RegenerateOptions::trained_classes`]) needs rows that train it ([`trains`]: a sweep on a
/// device of that class; any GPU's for `gpu`, any device's for `default`). The set and the trees
/// are the matrix's precision's.
/// Only fewfit's own kernels can ship: an imported configuration in the selection is an error.
pub fn regenerate(matrix: &Matrix, holdout: Option<&Matrix>, options: &RegenerateOptions) -> Result<Regenerated> {
    let (split_rows, test_rows) = match holdout {
        Some(_) => ((0..matrix.problems.len()).collect::<Vec<usize>>(), Vec::new()),
        None => {
            let split = split_shapes(matrix, options.test_fraction, options.select.seed)?;
            (split.train, split.test)
        }
    };
    let tree_only = |r: &usize| options.tree_only_rows.contains(r);
    let select_rows: Vec<usize> = split_rows.iter().copied().filter(|r| !tree_only(r)).collect();
    let train_rows: Vec<usize> = split_rows.iter().copied().filter(|r| !options.select_only_rows.contains(r)).collect();
    let test_rows: Vec<usize> = test_rows.into_iter().filter(|r| !tree_only(r)).collect();
    let classes = options.trained_classes();
    for &class in &classes {
        if !select_rows.iter().any(|&r| trains(class, class_of(matrix, r)))
            || !train_rows.iter().any(|&r| trains(class, class_of(matrix, r)))
        {
            return Err(Error::Invalid(format!(
                "no {} training data for device class `{class}`: sweep a device of that class and pass its dataset",
                matrix.precision
            )));
        }
    }
    let own: Vec<usize> = (0..matrix.configs.len()).filter(|&c| matrix.configs[c].variant().is_some()).collect();
    let own_matrix = matrix.columns(&own);
    let selection = select::select(&own_matrix, Some(&select_rows), &options.select)?;
    let set = shipped_set(&own_matrix, &selection, &select_rows, &options.select, &options.source)?;
    let unscored_rows = unscored_rows(matrix, &select_rows, &options.tree_only_rows);
    let train_options = TrainOptions { unscored_rows, ..options.train.clone() };
    let mut trees = Vec::new();
    for class in classes {
        let rows: Vec<usize> = train_rows.iter().copied().filter(|&r| trains(class, class_of(matrix, r))).collect();
        // The configurations the classes of these rows use (all of the set for `default`).
        let columns: Vec<usize> = if class == "default" {
            selection.configs.clone()
        } else {
            let used: BTreeSet<usize> =
                rows.iter().flat_map(|&r| selection.configs_for(&own_matrix, r)).copied().collect();
            used.into_iter().collect()
        };
        let mut trained = train(&own_matrix, &rows, &columns, class, &train_options)?;
        trained.tree.comment = format!(
            "Trained by `fewfit regenerate` on {} training problems of {} (cross-validated per layout: {}).",
            rows.len(),
            options.source,
            LayoutFit::joined(&trained.fits)
        );
        trees.push(trained.tree);
    }
    let shipped = Shipped { configs: set.ids(), trees: trees.clone() };
    let test = match holdout {
        Some(h) => evaluate(h, None, &shipped)?,
        None => evaluate(&own_matrix, Some(&test_rows), &shipped)?,
    };
    let train_best_in_set = selection.stats(&own_matrix, &select_rows);
    Ok(Regenerated { set, trees, train_rows, train_best_in_set, test })
}

fn class_of(matrix: &Matrix, row: usize) -> &str {
    &matrix.devices[matrix.problems[row].device].class
}

/// A selection as `variants/selected.json`: each variant with the number of `rows` (training
/// problems) on which it is the best of its class's subset; `source` names the data.
pub fn shipped_set(
    matrix: &Matrix,
    selection: &Selection,
    rows: &[usize],
    options: &SelectOptions,
    source: &str,
) -> Result<SelectedSet> {
    let mut wins: BTreeMap<usize, u64> = BTreeMap::new();
    for &row in rows {
        let best = selection
            .configs_for(matrix, row)
            .iter()
            .copied()
            .filter(|&c| matrix.time[row][c].is_finite())
            .min_by(|&a, &b| matrix.time[row][a].total_cmp(&matrix.time[row][b]));
        if let Some(c) = best {
            *wins.entry(c).or_default() += 1;
        }
    }
    let mut variants = Vec::new();
    for &c in &selection.configs {
        let config = &matrix.configs[c];
        let variant = config.variant().ok_or_else(|| {
            Error::Invalid(format!("`{}` is not one of fewfit's variants and cannot ship", config.id()))
        })?;
        variants.push(SelectedVariant {
            id: variant.id(),
            variant,
            precisions: vec![matrix.precision.clone()],
            shapes_won: Some(wins.get(&c).copied().unwrap_or(0)),
        });
    }
    let classes: Vec<String> =
        selection.per_class.iter().map(|(class, configs)| format!("{class} uses {}", configs.len())).collect();
    Ok(SelectedSet {
        comment: format!(
            "Selected by `fewfit` ({} method, at most {} variants, {}) from {}; {}.",
            options.method.name(),
            options.max_configs,
            options.max_per_class.map_or("no per-class limit".into(), |k| format!("at most {k} per device class"))
                + &options
                    .class_limits
                    .iter()
                    .map(|(class, k)| format!(", at most {k} for {class}"))
                    .collect::<String>(),
            source,
            classes.join(", ")
        ),
        variants,
    })
}

/// The shipped set of several precisions' sets ([`regenerate`]'s, each recording its precision),
/// in the order given: the first one's members, then each later one's not in it yet (by id); a
/// member keeps its place and gains the precisions of the later sets that hold it, and the shapes
/// it won there. The comment is the first set's, then each later one's after its precisions'
/// names.
pub fn union(sets: &[SelectedSet]) -> SelectedSet {
    let mut union = SelectedSet { comment: String::new(), variants: Vec::new() };
    for set in sets {
        if union.comment.is_empty() {
            union.comment = set.comment.clone();
        } else {
            let names: BTreeSet<&String> = set.variants.iter().flat_map(|v| &v.precisions).collect();
            let names: Vec<&str> = names.into_iter().map(String::as_str).collect();
            union.comment += &format!(" For {}: {}", names.join(", "), set.comment);
        }
        for member in &set.variants {
            match union.variants.iter_mut().find(|v| v.id == member.id) {
                Some(v) => {
                    v.precisions.extend(member.precisions.iter().cloned());
                    v.precisions.sort_by_key(|p| PRECISIONS.iter().position(|q| q == p));
                    v.precisions.dedup();
                    v.shapes_won = match (v.shapes_won, member.shapes_won) {
                        (Some(a), Some(b)) => Some(a + b),
                        (a, b) => a.or(b),
                    };
                }
                None => union.variants.push(member.clone()),
            }
        }
    }
    union
}

/// The trees of a release from f32 records alone: the f32 trees, then, for every precision that
/// needs a selector file of its own, the same trees as its ([`fewfit_codegen::implied_precision`]:
/// f64 takes f32's without one); written, each is a reference to its f32 tree.
pub fn with_f32_trees_for_every_precision(f32_trees: &[Tree]) -> Vec<Tree> {
    let mut trees = f32_trees.to_vec();
    for precision in PRECISIONS.into_iter().filter(|&p| p != "f32" && fewfit_codegen::implied_precision(p).is_none()) {
        trees.extend(f32_trees.iter().map(|t| Tree { precision: precision.to_string(), ..t.clone() }));
    }
    trees
}

/// The datasets of a regeneration, by role (`fewfit regenerate`'s `--data`, `--train-only`,
/// `--select-only` and `--holdout`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DataFiles {
    /// Datasets that select the set and train the trees.
    pub data: Vec<PathBuf>,
    /// Datasets that train the trees only ([`RegenerateOptions::tree_only_rows`]).
    pub train_only: Vec<PathBuf>,
    /// Datasets that select the set only ([`RegenerateOptions::select_only_rows`]).
    pub select_only: Vec<PathBuf>,
    /// Datasets of held-out shapes, for the report; none: a split of `data` is held out.
    pub holdout: Vec<PathBuf>,
}

impl DataFiles {
    /// The datasets that select or train: `data`, `train_only`, then `select_only`, the order in
    /// which the written files' comments name them.
    pub fn training(&self) -> Vec<PathBuf> {
        [self.data.clone(), self.train_only.clone(), self.select_only.clone()].concat()
    }
}

/// The settings of a regeneration that are not datasets (`fewfit regenerate`'s other flags).
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// At most this many variants in the set.
    pub k: usize,
    /// At most this many variants used per device class.
    pub per_class: usize,
    /// Lower limits for some classes.
    pub class_limits: BTreeMap<String, usize>,
    /// The selection method's name (greedy, kmeans, tree, exhaustive).
    pub method: String,
    /// The seed of the split and the methods.
    pub seed: u64,
    /// Without held-out datasets: the fraction of shapes held out.
    pub test_fraction: f64,
    /// A file of `M N K WEIGHT` lines weighing shapes in selection and training.
    pub shape_weights: Option<PathBuf>,
    /// A file of `COUNT DEVICE NAME` lines: select by fleet rate.
    pub fleet: Option<PathBuf>,
    /// The trees' depths tried, from 1 to this (none: the default grid's).
    pub max_depth: Option<usize>,
    /// The trees' minimum leaf weights tried (none: the default grid's).
    pub min_leaf: Option<Vec<usize>>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            k: fewfit_codegen::MAX_SELECTED,
            per_class: 8,
            class_limits: BTreeMap::new(),
            method: "greedy".into(),
            seed: 42,
            test_fraction: 0.2,
            shape_weights: None,
            fleet: None,
            max_depth: None,
            min_leaf: None,
        }
    }
}

impl Settings {
    /// The options of selection and training (without the rows and the source, which
    /// [`regenerate_files`] fills in).
    pub fn options(&self) -> Result<RegenerateOptions> {
        let objective = objective(self.shape_weights.as_deref(), self.fleet.as_deref())?;
        let train = self.train_options(&objective);
        Ok(RegenerateOptions {
            select: SelectOptions {
                method: self.method.parse()?,
                max_configs: self.k,
                max_per_class: Some(self.per_class),
                class_limits: self.class_limits.clone(),
                objective,
                seed: self.seed,
            },
            train,
            test_fraction: self.test_fraction,
            ..Default::default()
        })
    }

    /// The options of a tree trained apart from selection (`fewfit train`, a recipe's grafts):
    /// the grid and the shape weights of these settings.
    pub fn tree_options(&self) -> Result<TrainOptions> {
        Ok(self.train_options(&objective(self.shape_weights.as_deref(), self.fleet.as_deref())?))
    }

    fn train_options(&self, objective: &Objective) -> TrainOptions {
        let defaults = TrainOptions::default();
        TrainOptions {
            shape_weights: match objective {
                Objective::Geomean => Default::default(),
                Objective::WeightedGeomean(weights) => weights.clone(),
                Objective::Fleet(weights) => weights.shape.clone(),
            },
            depths: self.max_depth.map_or(defaults.depths.clone(), |max| (1..=max).collect()),
            min_leaf: self.min_leaf.clone().unwrap_or(defaults.min_leaf.clone()),
            progress: true,
            ..defaults
        }
    }
}

/// The selection objective: the fleet rate if a fleet file is given, else the geometric mean;
/// shapes weighted by a shape-weights file if one is given.
pub fn objective(shape_weights: Option<&Path>, fleet: Option<&Path>) -> Result<Objective> {
    let shape = shape_weights.map(super::sweep::read_shape_weights).transpose()?;
    Ok(match (fleet, shape) {
        (Some(path), shape) => Objective::Fleet(FleetWeights {
            device: FleetWeights::read_devices(path)?,
            shape: shape.unwrap_or_default(),
        }),
        (None, Some(shape)) => Objective::WeightedGeomean(shape),
        (None, None) => Objective::Geomean,
    })
}

/// The matrix of the records of `precision` of some datasets, without the problems where nothing
/// ran and the configurations that ran nowhere; says on stderr how many records it read.
pub fn load_matrix(files: &[PathBuf], precision: &str) -> Result<Matrix> {
    let (set, report) = Dataset::load(files)?;
    let matrix = set.matrix(precision).prune();
    eprintln!("data: {} records, {} problems in {precision} ({report})", set.records.len(), matrix.problems.len());
    Ok(matrix)
}

/// The datasets' file names, for the comments of generated files.
pub fn source(files: &[PathBuf]) -> String {
    let names: Vec<String> = files
        .iter()
        .map(|p| p.file_name().map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into_owned()))
        .collect();
    names.join(", ")
}

/// A regeneration from files: what it produced, and what it read.
#[derive(Clone, Debug)]
pub struct FromFiles {
    /// The set, the trees and their evaluation.
    pub regenerated: Regenerated,
    /// The matrix of every dataset that selects or trains.
    pub matrix: Matrix,
    /// The matrix of the held-out datasets, if any.
    pub holdout: Option<Matrix>,
    /// The options it ran with, rows and source included.
    pub options: RegenerateOptions,
}

/// Loads the datasets' records of `precision`, tells their rows' roles apart and [`regenerate`]s:
/// a problem (device, shape) of a `train_only` file that no `data` or `select_only` file holds
/// trains the trees only; one of a `select_only` file that no `data` or `train_only` file holds
/// selects only. `options` gives selection and training (see [`Settings::options`]); the rows and
/// the source (the datasets' names, for the comments) are set here.
pub fn regenerate_files(files: &DataFiles, precision: &str, mut options: RegenerateOptions) -> Result<FromFiles> {
    let every_file = files.training();
    let matrix = load_matrix(&every_file, precision)?;
    // The rows of `matrix` whose (device, shape) problem one of `part` holds.
    let rows_of = |part: &[PathBuf]| -> Result<BTreeSet<usize>> {
        let part = load_matrix(part, precision)?;
        let problems: BTreeSet<_> = part.problems.iter().map(|p| (&part.devices[p.device], p.shape)).collect();
        Ok((0..matrix.problems.len())
            .filter(|&r| {
                let p = &matrix.problems[r];
                problems.contains(&(&matrix.devices[p.device], p.shape))
            })
            .collect())
    };
    options.tree_only_rows = if files.train_only.is_empty() {
        Default::default()
    } else {
        let selecting_rows = rows_of(&[files.data.clone(), files.select_only.clone()].concat())?;
        (0..matrix.problems.len()).filter(|r| !selecting_rows.contains(r)).collect()
    };
    options.select_only_rows = if files.select_only.is_empty() {
        Default::default()
    } else {
        let training_rows = rows_of(&[files.data.clone(), files.train_only.clone()].concat())?;
        rows_of(&files.select_only)?.into_iter().filter(|r| !training_rows.contains(r)).collect()
    };
    options.source = source(&every_file);
    let holdout = if files.holdout.is_empty() { None } else { Some(load_matrix(&files.holdout, precision)?) };
    let regenerated = regenerate(&matrix, holdout.as_ref(), &options)?;
    Ok(FromFiles { regenerated, matrix, holdout, options })
}

impl FromFiles {
    /// How the selection did on its training problems and the set and trees on the held-out
    /// ones, as `fewfit regenerate` prints it.
    pub fn report(&self, files: &DataFiles) -> String {
        let out = &self.regenerated;
        let (which, test_matrix) = match &self.holdout {
            Some(h) => (source(&files.holdout), h),
            None => (format!("{} of the shapes, held out", self.options.test_fraction), &self.matrix),
        };
        format!(
            "{} training problems ({} of them for the trees only); best in set on the others: {}\n\
             shipped set and trees on {which}:\n{}",
            out.train_rows.len(),
            self.options.tree_only_rows.len(),
            out.train_best_in_set.describe(&self.matrix),
            out.test.describe(test_matrix)
        )
    }
}

/// Trains the tree of device class `class` over a shipped set on every row of `matrix` that
/// trains it (`fewfit train`): the set's variants are found in the matrix by their parameter id;
/// the tree's leaves name them as the matrix does.
pub fn train_over_set(matrix: &Matrix, set: &SelectedSet, class: &str, options: &TrainOptions) -> Result<Trained> {
    let columns: Vec<usize> = set
        .variants
        .iter()
        .filter_map(|v| {
            let id = v.variant.id();
            matrix.configs.iter().position(|c| c.id() == id)
        })
        .collect();
    let rows = matrix.problems_training(class);
    if rows.is_empty() {
        return Err(Error::Invalid(format!("no data for device class `{class}` in the datasets")));
    }
    train(matrix, &rows, &columns, class, options)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::tests::toy;

    #[test]
    fn tree_only_rows_are_scored_where_their_shape_selects_the_set() {
        // Device 0 selects on shapes 1 and 2; device 1 (another layout's sweep, tree-only) measured
        // shapes 1 and 3. Its shape-1 row is judged, its shape-3 row only teaches the trees.
        let problems = [(0, 1, 8, 8), (0, 2, 8, 8), (1, 1, 8, 8), (1, 3, 8, 8)];
        let m = toy(&[("a", "cpu"), ("a-nt", "cpu")], &problems, vec![vec![1.0]; 4]);
        let tree_only: BTreeSet<usize> = [2, 3].into();
        assert_eq!(unscored_rows(&m, &[0, 1], &tree_only), [3].into());
        assert_eq!(unscored_rows(&m, &[1], &tree_only), [2, 3].into());
        assert!(unscored_rows(&m, &[0, 1], &BTreeSet::new()).is_empty());
    }
}
