//! Training a selector tree for one device class: a linfa-trees classifier over the kernel's shape
//! features, hyper-parameters chosen by k-fold cross-validation on geometric-mean slowdown,
//! converted to the JSON tree of [`fewfit_codegen::tree`] with integer thresholds.
//!
//! Samples are shapes, not problems: the tree sees only the shape and the device's size, so the
//! devices of a class and of one size that measured a shape form one sample, labelled with the selected configuration of least summed log
//! slowdown over them (fewest failures first), or, with soft labels ([`Labels::Soft`]), spread over
//! every selected configuration by how close to the oracle it runs there. Features are `log2(v + 1)` of
//! [`ShapeFeatures::values`], so a threshold falls at the geometric midpoint of two training
//! values, which suits sizes that span orders of magnitude. linfa predicts `le` when
//! `x < split`; the integer threshold is the largest raw `v` with `log2(v + 1) < split`, so the
//! generated `v <= threshold` makes the decision linfa makes for every input, not only the training ones.
//! A leaf naming a panel block sends shapes narrower than both the block and its training shapes
//! to a block narrow enough (`guard_narrow_shapes`): the data cannot tell the tree about them.

use std::collections::{BTreeMap, BTreeSet};

use linfa::prelude::*;
use linfa_trees::{DecisionTree, TreeNode};
use ndarray::{Array1, Array2};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rayon::prelude::*;

use super::dataset::{Matrix, Shape};
use super::error::{Error, Result};
use fewfit_codegen::tree::{Node, Tree};
use fewfit_codegen::{sees_compute_units, Family, ShapeFeatures};

/// In cross-validation a failed pick (the configuration did not run there) counts as this slowdown.
pub const FAIL_PENALTY: f64 = 10.0;

/// How training shapes are weighted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Weighting {
    /// Every shape weighs the same.
    Uniform,
    /// A shape weighs `1 +` the mean log slowdown of picking another selected configuration instead
    /// of its label (summed over its devices), normalised to mean 1: the tree cares where a wrong
    /// pick costs most, and little where every selected configuration is about as fast.
    Regret,
}

/// How a training shape is labelled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Labels {
    /// One row per shape, labelled with its fastest selected configuration; among those within
    /// `tie_tolerance` (a fraction) of the fastest, the one that is near-fastest on the most training
    /// shapes. Near-ties then get one consistent label, so the tree learns regions rather than noise.
    Fastest {
        /// The fraction within which selected configurations count as tied.
        tie_tolerance: f64,
    },
    /// One row per shape and selected configuration, weighted by `ln(cap) − ln(slowdown)` (nothing
    /// at `cap` times the oracle or slower) and normalised to a total of 1 per shape: a
    /// cost-proportionate reduction of the slowdown objective to weighted classification. A leaf
    /// then predicts the configuration of least summed capped log slowdown over its shapes, and
    /// splits separate the regions where configurations run well, not only where each is fastest.
    Soft {
        /// The slowdown at and beyond which a configuration gets no weight (> 1).
        cap: f64,
    },
}

/// Training options; the grid is searched by cross-validation.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainOptions {
    /// Folds of the cross-validation over shapes (fewer when there are fewer shapes).
    pub folds: usize,
    /// Maximum depths to try.
    pub depths: Vec<usize>,
    /// Minimum leaf weights (in mean shapes) to try.
    pub min_leaf: Vec<usize>,
    /// Weightings to try.
    pub weightings: Vec<Weighting>,
    /// Labellings to try.
    pub labels: Vec<Labels>,
    /// The seed of the fold assignment.
    pub seed: u64,
    /// Weights of shapes (1 where missing), as in selection's weighted objective: a shape of
    /// weight w counts w times in the fit, in the leaves' labels and in the cross-validated slowdown.
    pub shape_weights: BTreeMap<Shape, f64>,
    /// Show the cross-validation's progress on stderr.
    pub progress: bool,
    /// Rows the cross-validated slowdown leaves out (they still train every fold's tree): shapes
    /// that only teach the trees, unlike the shapes the selector is judged on.
    pub unscored_rows: BTreeSet<usize>,
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            folds: 5,
            depths: (1..=12).collect(),
            min_leaf: vec![8, 4, 2, 1],
            weightings: vec![Weighting::Uniform, Weighting::Regret],
            labels: vec![
                Labels::Fastest { tie_tolerance: 0.0 },
                Labels::Fastest { tie_tolerance: 0.02 },
                Labels::Fastest { tie_tolerance: 0.05 },
                Labels::Fastest { tie_tolerance: 0.1 },
                Labels::Soft { cap: 1.25 },
                Labels::Soft { cap: 1.5 },
                Labels::Soft { cap: 2.0 },
            ],
            seed: 42,
            shape_weights: BTreeMap::new(),
            progress: false,
            unscored_rows: BTreeSet::new(),
        }
    }
}

/// One point of the cross-validation grid.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CvPoint {
    /// Maximum depth: linfa's tree fitted to the grid's deepest depth is cut here. linfa grows
    /// each node alike whatever the limit, so this is its tree of that depth, except that linfa's
    /// pruning of splits whose sides predict one class, which `Relabel` may tell apart, saw the
    /// deeper tree.
    pub max_depth: usize,
    /// Minimum leaf weight.
    pub min_leaf: usize,
    /// Weighting.
    pub weighting: Weighting,
    /// Labelling.
    pub labels: Labels,
    /// Geometric-mean slowdown of the tree's picks on held-out shapes (failures at [`FAIL_PENALTY`]).
    pub slowdown: f64,
}

/// A trained selector.
#[derive(Clone, Debug, PartialEq)]
pub struct Trained {
    /// The tree, with training counts and leaf slowdowns filled in.
    pub tree: Tree,
    /// The fit of each subtree of one layout and one device size, in increasing `operands_along_k`,
    /// then `compute_units` (one where the rows hold one layout on devices of one size).
    pub fits: Vec<LayoutFit>,
    /// Problem rows left out because none of the selected configurations ran on them.
    pub unlabelled: usize,
}

/// The cross-validated fit of the subtree of one layout on devices of one size.
#[derive(Clone, Debug, PartialEq)]
pub struct LayoutFit {
    /// The layout's `operands_along_k` (1 for NN, 2 for row-major NT).
    pub operands_along_k: u64,
    /// The devices' `compute_units` (0: unknown, or not seen by the tree).
    pub compute_units: u64,
    /// Training shapes of the layout on those devices.
    pub shapes: usize,
    /// The chosen grid point (refitted on all the subtree's training shapes).
    pub chosen: CvPoint,
    /// Every grid point, in the order tried (simplest first).
    pub grid: Vec<CvPoint>,
}

impl LayoutFit {
    /// The fits of a tree's layouts on one line, as its comment quotes them.
    pub fn joined(fits: &[LayoutFit]) -> String {
        fits.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
    }
}

impl std::fmt::Display for LayoutFit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let c = &self.chosen;
        write!(f, "{} shapes with operands_along_k = {}", self.shapes, self.operands_along_k)?;
        if self.compute_units > 0 {
            write!(f, ", compute_units = {}", self.compute_units)?;
        }
        write!(
            f,
            ": depth {}, min leaf {}, {:?} weights, {:?} labels, CV geomean slowdown {:.4}",
            c.max_depth, c.min_leaf, c.weighting, c.labels, c.slowdown
        )
    }
}

/// One training sample: a shape in one layout and the rows (devices) that measured it.
struct Sample {
    /// The features the tree sees: the shape in the kernel's view, and its layout.
    features: ShapeFeatures,
    rows: Vec<usize>,
    /// The rows the sample adds to the fit: (configuration, weight), weights summing to 1.
    targets: Vec<(usize, f64)>,
    /// The sample's weight under [`Weighting::Regret`] (mean 1 over the samples).
    weight: f64,
    /// The shape's weight ([`TrainOptions::shape_weights`]).
    shape_weight: f64,
}

impl Sample {
    /// The weight the sample carries in the fit and in the leaves' labels under a weighting.
    fn fit_weight(&self, weighting: Weighting) -> f64 {
        match weighting {
            Weighting::Uniform => self.shape_weight,
            Weighting::Regret => self.shape_weight * self.weight,
        }
    }
}

/// The feature encoding the tree is trained on.
pub fn encode(value: u64) -> f64 {
    (value as f64 + 1.0).log2()
}

/// The largest raw value `v` with `encode(v) < split` (linfa's `le` test), or `None` when no value
/// goes `le`. Exact for every `v`, since [`encode`] is non-decreasing: found by bisection.
pub fn raw_threshold(split: f64) -> Option<u64> {
    if split.is_nan() || encode(0) >= split {
        return None;
    }
    if encode(u64::MAX) < split {
        return Some(u64::MAX);
    }
    let (mut lo, mut hi) = (0u64, u64::MAX); // encode(lo) < split <= encode(hi)
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if encode(mid) < split {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(lo)
}

/// The encoded feature row of a sample.
fn encoded(features: &ShapeFeatures) -> [f64; ShapeFeatures::COUNT] {
    features.values().map(encode)
}

/// Trains the tree of device class `class` on some problem rows (typically the training split's
/// rows of that class; all classes' rows for `default`), choosing among the `selected`
/// configurations (column indices). Rows of each layout (`operands_along_k`) on devices of each
/// size (`compute_units`, where the tree sees it: [`sees_compute_units`]) train a subtree of their
/// own, and splits on the size, then on the layout, join them at the root: the layouts' and the
/// sizes' fastest variants differ on many shapes, but greedy splits on shape features alone never
/// reach them (a tree grown on NN and NT rows together split on the layout nowhere, and fitted both
/// worse; one grown on a 2-core and a 16-core CPU's rows together fitted the 16-core one 1.14 where
/// its own subtree fits it 1.09). A layout without rows goes to the subtree of the next larger
/// layout that has some (TN's 0 to NN's 1), or of the largest; a size between two trained ones to
/// the nearer by ratio ([`size_threshold`]), one beyond them to the nearest.
pub fn train(
    matrix: &Matrix,
    rows: &[usize],
    selected: &[usize],
    class: &str,
    options: &TrainOptions,
) -> Result<Trained> {
    if selected.is_empty() {
        return Err(Error::Invalid("training needs at least one selected configuration".into()));
    }
    if let Some(&v) = selected.iter().find(|&&v| v >= matrix.configs.len()) {
        return Err(Error::Invalid(format!("selected configuration {v} is not a column of the matrix")));
    }
    if options.folds < 2
        || options.depths.is_empty()
        || options.min_leaf.is_empty()
        || options.weightings.is_empty()
        || options.labels.is_empty()
    {
        return Err(Error::Invalid("cross-validation needs at least 2 folds and a non-empty grid".into()));
    }
    for labels in &options.labels {
        match *labels {
            Labels::Fastest { tie_tolerance: t } if !(t.is_finite() && t >= 0.0) => {
                return Err(Error::Invalid(format!("tie tolerance {t} must be a finite fraction >= 0")));
            }
            Labels::Soft { cap } if !(cap.is_finite() && cap > 1.0) => {
                return Err(Error::Invalid(format!("soft-label cap {cap} must be a finite slowdown > 1")));
            }
            _ => {}
        }
    }
    let mut matrix = failed_where_class_never_ran(matrix);
    if !sees_compute_units(class) {
        // Unknown to the tree, so that it never splits on them.
        matrix.devices.iter_mut().for_each(|d| d.compute_units = None);
    }
    let matrix = &matrix;
    let mut groups: BTreeMap<u64, BTreeMap<u64, Vec<usize>>> = BTreeMap::new();
    for &row in rows {
        if row >= matrix.problems.len() {
            return Err(Error::Invalid(format!("problem row {row} is not in the matrix")));
        }
        let f = matrix.kernel_features(row);
        groups.entry(f.operands_along_k).or_default().entry(f.compute_units).or_default().push(row);
    }
    let mut fits = Vec::new();
    let mut layouts = Vec::new(); // (operands_along_k, the layout's root, its training shapes)
    let mut unlabelled = 0;
    for (&along_k, sizes) in &groups {
        let mut subtrees = Vec::new();
        for (&units, rows) in sizes {
            let covered = |&r: &usize| selected.iter().any(|&v| matrix.time[r][v].is_finite());
            if !rows.iter().any(covered) {
                unlabelled += rows.len(); // no subtree: the size goes to another's
                continue;
            }
            let (root, fit, left_out) = train_group(matrix, rows, (along_k, units), selected, class, options)?;
            subtrees.push((units, root, fit.shapes));
            fits.push(fit);
            unlabelled += left_out;
        }
        if let Some((root, shapes)) = join(subtrees, "compute_units", size_threshold) {
            layouts.push((along_k, root, shapes));
        }
    }
    let (root, _) = join(layouts, "operands_along_k", |le, _| le)
        .ok_or_else(|| Error::Data("no training problem where a selected configuration ran".into()))?;
    let comment = format!("trained by `fewfit train`: {}", LayoutFit::joined(&fits));
    Ok(Trained { tree: Tree { comment, ..Tree::new(class, &matrix.precision, root) }, fits, unlabelled })
}

/// Joins subtrees, each with its value of `feature` and its training shapes, in increasing value,
/// by splits on `feature` at `threshold(value, next value)`: the root and its training shapes, or
/// `None` for no subtree.
fn join(
    subtrees: Vec<(u64, Node, usize)>,
    feature: &str,
    threshold: impl Fn(u64, u64) -> u64,
) -> Option<(Node, usize)> {
    let mut subtrees = subtrees.into_iter().rev();
    let (mut upper, mut root, mut shapes) = subtrees.next()?;
    for (value, le, le_shapes) in subtrees {
        shapes += le_shapes;
        root = Node::Split {
            feature: feature.into(),
            threshold: threshold(value, upper),
            shapes: Some(shapes as u64),
            le: Box::new(le),
            gt: Box::new(root),
        };
        upper = value;
    }
    Some((root, shapes))
}

/// The split between the subtrees of devices of `smaller` and `larger` compute units: their
/// geometric mean, rounded down, so that a size goes to the subtree of the nearer size by ratio
/// (3 to 2's rather than 4's, 12 to 16's rather than 8's) and an unknown one (0) to the smallest.
pub fn size_threshold(smaller: u64, larger: u64) -> u64 {
    (u128::from(smaller) * u128::from(larger)).isqrt() as u64
}

/// Trains the subtree of the rows of one layout on devices of one size, `group` = (operands along
/// K, compute units): cross-validates the option grid, refits the best point on all rows,
/// converts, simplifies and annotates the tree. `matrix` is marked by
/// `failed_where_class_never_ran`: a configuration not measured on a row counts there only if no
/// device of the row's class measured it (as a failure); otherwise its time there is unknown and
/// the row is left out of its costs. Returns the root, the group's fit and the rows left unlabelled.
fn train_group(
    matrix: &Matrix,
    rows: &[usize],
    (along_k, units): (u64, u64),
    selected: &[usize],
    class: &str,
    options: &TrainOptions,
) -> Result<(Node, LayoutFit, usize)> {
    let labelled: Vec<(Labels, Vec<Sample>)> = options
        .labels
        .iter()
        .map(|&l| Ok((l, samples(matrix, rows, selected, l, options)?.0)))
        .collect::<Result<_>>()?;
    let unlabelled = samples(matrix, rows, selected, options.labels[0], options)?.1;
    let samples_at = |labels: Labels| &labelled.iter().find(|(l, _)| *l == labels).expect("labelling in grid").1;
    let mut grid = Vec::new();
    for &labels in &options.labels {
        for &max_depth in &options.depths {
            for &min_leaf in &options.min_leaf {
                for &weighting in &options.weightings {
                    grid.push(CvPoint { max_depth, min_leaf, weighting, labels, slowdown: f64::NAN });
                }
            }
        }
    }
    let folds = fold_of(labelled[0].1.len(), options.folds, options.seed);
    let n_folds = folds.iter().max().map_or(0, |f| f + 1);
    // A tree of depth d is linfa's tree of the grid's deepest depth cut at depth d (see
    // `CvPoint::max_depth`), so each fold fits once per (labels, min leaf, weighting) and scores
    // every depth by cutting. The fits are independent: they run in parallel, each as it would alone.
    let deepest = *options.depths.iter().max().expect("non-empty grid");
    let fits: Vec<CvPoint> = grid.iter().filter(|p| p.max_depth == deepest).copied().collect();
    let bar = super::progress_bar(options.progress, fits.len() as u64, "fits");
    bar.set_message(format!("cross-validating the `{class}` tree"));
    let scored: Vec<(CvPoint, Vec<f64>)> = fits
        .par_iter()
        .map(|deep| -> Result<(CvPoint, Vec<f64>)> {
            let samples = samples_at(deep.labels);
            let mut sums = vec![(0.0, 0.0); options.depths.len()];
            for fold in 0..n_folds {
                let in_fold = |want: bool| -> Vec<&Sample> {
                    samples.iter().zip(&folds).filter(|(_, f)| (**f == fold) == want).map(|(s, _)| s).collect()
                };
                let (fit, held) = (in_fold(false), in_fold(true));
                // One shape makes one fold, with nothing to fit it on: it scores nothing.
                if fit.is_empty() {
                    continue;
                }
                let linfa_tree = fit_linfa(&fit, deep)?;
                for (&max_depth, (log_sum, count)) in options.depths.iter().zip(&mut sums) {
                    let tree = cut(matrix, &linfa_tree, &fit, &CvPoint { max_depth, ..*deep }, class, selected)?;
                    for s in &held {
                        let pick = pick(matrix, &tree, &s.features, selected);
                        for &row in &s.rows {
                            // A pick never measured on this row tells nothing about the tree.
                            if pick.is_some_and(|v| !matrix.recorded[row][v]) || options.unscored_rows.contains(&row) {
                                continue;
                            }
                            let oracle = matrix.row_oracle(row);
                            let t = pick.map_or(f64::INFINITY, |v| matrix.time[row][v]);
                            *log_sum += s.shape_weight * (t / oracle).min(FAIL_PENALTY).ln();
                            *count += s.shape_weight;
                        }
                    }
                }
            }
            bar.inc(1);
            let slowdowns = sums.iter().map(|&(l, c)| if c > 0.0 { (l / c).exp() } else { 1.0 }).collect();
            Ok((*deep, slowdowns))
        })
        .collect::<Result<_>>()?;
    for point in &mut grid {
        let same_fit = |deep: &CvPoint| {
            (deep.labels, deep.min_leaf, deep.weighting) == (point.labels, point.min_leaf, point.weighting)
        };
        let (_, slowdowns) = scored.iter().find(|(deep, _)| same_fit(deep)).expect("every point has its fit");
        let depth = options.depths.iter().position(|&d| d == point.max_depth).expect("depth in grid");
        point.slowdown = slowdowns[depth];
    }
    bar.finish_and_clear();
    let mut chosen = grid[0];
    for p in &grid[1..] {
        if p.slowdown < chosen.slowdown * (1.0 - 1e-9) {
            chosen = *p;
        }
    }
    let samples = samples_at(chosen.labels);
    let all: Vec<&Sample> = samples.iter().collect();
    let deep = CvPoint { max_depth: deepest, ..chosen };
    let mut tree = cut(matrix, &fit_linfa(&all, &deep)?, &all, &chosen, class, selected)?;
    annotate(matrix, &mut tree.root, &all);
    let fit = LayoutFit { operands_along_k: along_k, compute_units: units, shapes: samples.len(), chosen, grid };
    Ok((tree.root, fit, unlabelled))
}

/// The matrix with every configuration that no device of a row's class measured marked as recorded
/// (a failure: its time stays infinite) on that row. Devices of one class are alike enough that a
/// configuration measured on one of them (a newer variant timed on one CPU of a fleet) is unknown,
/// not failed, on the others; one never measured on a class (a CPU kernel on a GPU) is not a choice
/// for it, which is what makes the `default` tree's picks portable.
fn failed_where_class_never_ran(matrix: &Matrix) -> Matrix {
    let class_of = |row: usize| matrix.devices[matrix.problems[row].device].class.as_str();
    let mut measured_on: BTreeMap<&str, Vec<bool>> = BTreeMap::new();
    for (row, recorded) in matrix.recorded.iter().enumerate() {
        let seen = measured_on.entry(class_of(row)).or_insert_with(|| vec![false; matrix.configs.len()]);
        seen.iter_mut().zip(recorded).for_each(|(s, &r)| *s |= r);
    }
    let mut marked = matrix.clone();
    for (row, recorded) in marked.recorded.iter_mut().enumerate() {
        let seen = &measured_on[class_of(row)];
        recorded.iter_mut().zip(seen).for_each(|(r, &s)| *r |= !s);
    }
    marked
}

/// The configuration a tree picks for a problem's features, as a column index (`None` when the
/// leaf names a configuration that is not among `selected`).
pub fn pick(matrix: &Matrix, tree: &Tree, features: &ShapeFeatures, selected: &[usize]) -> Option<usize> {
    let id = tree.variant(features);
    selected.iter().copied().find(|&v| matrix.configs[v].id() == id)
}

/// A shape in one layout on devices of one size: (shape, operands_along_k, compute_units), the key
/// of a training sample.
type ShapeInLayout = (Shape, u64, u64);

/// Groups rows by shape and layout and labels each group (with near-ties within `tolerance` resolved towards
/// the configuration near-fastest on most shapes); returns the samples and the count of rows that
/// could not be labelled.
fn samples(
    matrix: &Matrix,
    rows: &[usize],
    selected: &[usize],
    labels: Labels,
    options: &TrainOptions,
) -> Result<(Vec<Sample>, usize)> {
    let tolerance = match labels {
        Labels::Fastest { tie_tolerance } => tie_tolerance,
        Labels::Soft { .. } => 0.0,
    };
    // Rows of one shape in one layout (one set of features) on the class's devices.
    let mut by_shape: BTreeMap<ShapeInLayout, Vec<usize>> = BTreeMap::new();
    let mut unlabelled = 0;
    for &row in rows {
        let Some(times) = matrix.time.get(row) else {
            return Err(Error::Invalid(format!("problem row {row} is not in the matrix")));
        };
        let covered = selected.iter().any(|&v| times.get(v).is_some_and(|t| t.is_finite()));
        if covered {
            let features = matrix.kernel_features(row);
            let key = (matrix.problems[row].shape, features.operands_along_k, features.compute_units);
            by_shape.entry(key).or_default().push(row);
        } else {
            unlabelled += 1;
        }
    }
    if by_shape.is_empty() {
        return Err(Error::Data("no training problem where a selected configuration ran".into()));
    }
    let log_slowdown = |row: usize, v: usize| -> f64 {
        let oracle = matrix.row_oracle(row);
        (matrix.time[row][v] / oracle).ln()
    };
    // (failures, mean log slowdown over the shape's rows where it ran; infinite where it ran on
    // none), counting only the rows where it was measured: an unmeasured time is unknown, not failed.
    let cost = |rows: &[usize], v: usize| -> (usize, f64) {
        let measured = || rows.iter().copied().filter(|&r| matrix.recorded[r][v]);
        let fails = measured().filter(|&r| !matrix.time[r][v].is_finite()).count();
        let ran: Vec<f64> = measured().filter(|&r| matrix.time[r][v].is_finite()).map(|r| log_slowdown(r, v)).collect();
        let mean = if ran.is_empty() { f64::INFINITY } else { ran.iter().sum::<f64>() / ran.len() as f64 };
        (fails, mean)
    };
    let near_fastest: Vec<(ShapeInLayout, Vec<usize>, Vec<usize>)> = by_shape
        .into_iter()
        .map(|(shape, rows)| {
            let costs: Vec<(usize, f64)> = selected.iter().map(|&v| cost(&rows, v)).collect();
            let best = costs.iter().copied().fold((usize::MAX, f64::INFINITY), |b, c| {
                if c.0 < b.0 || (c.0 == b.0 && c.1 < b.1) {
                    c
                } else {
                    b
                }
            });
            let slack = (1.0 + tolerance).ln();
            let near = (0..selected.len())
                .filter(|&i| costs[i].0 == best.0 && costs[i].1 <= best.1 + slack)
                .map(|i| selected[i])
                .collect();
            (shape, rows, near)
        })
        .collect();
    let mut coverage: BTreeMap<usize, usize> = BTreeMap::new();
    for (_, _, near) in &near_fastest {
        near.iter().for_each(|&v| *coverage.entry(v).or_default() += 1);
    }
    let mut samples: Vec<Sample> = near_fastest
        .into_iter()
        .map(|((shape, ..), rows, near)| {
            let mut label = near[0];
            for &v in &near[1..] {
                let (c, b) = (coverage[&v], coverage[&label]);
                if c > b || (c == b && cost(&rows, v).1 < cost(&rows, label).1) {
                    label = v;
                }
            }
            let mut regret = 0.0;
            for &r in &rows {
                let others: Vec<f64> = selected
                    .iter()
                    .filter(|&&v| v != label && matrix.time[r][v].is_finite() && matrix.time[r][label].is_finite())
                    .map(|&v| (matrix.time[r][v] / matrix.time[r][label]).ln().max(0.0))
                    .collect();
                if !others.is_empty() {
                    regret += others.iter().sum::<f64>() / others.len() as f64;
                }
            }
            let targets = targets(matrix, &rows, selected, label, labels);
            let shape_weight = options.shape_weights.get(&shape).copied().unwrap_or(1.0);
            let features = matrix.kernel_features(rows[0]);
            Sample { features, rows, targets, weight: 1.0 + regret, shape_weight }
        })
        .collect();
    let mean = samples.iter().map(|s| s.weight).sum::<f64>() / samples.len() as f64;
    samples.iter_mut().for_each(|s| s.weight /= mean);
    Ok((samples, unlabelled))
}

/// The rows a shape measured on `rows` adds to the fit (see [`Labels`]): its label alone, or the
/// soft weights of the selected configurations (the label alone where all are at the cap or worse),
/// each judged on the rows where it was measured.
fn targets(matrix: &Matrix, rows: &[usize], selected: &[usize], label: usize, labels: Labels) -> Vec<(usize, f64)> {
    let Labels::Soft { cap } = labels else {
        return vec![(label, 1.0)];
    };
    let oracles: Vec<f64> = rows.iter().map(|&r| matrix.row_oracle(r)).collect();
    let gains: Vec<(usize, f64)> = selected
        .iter()
        .map(|&v| {
            let capped: Vec<f64> = rows
                .iter()
                .zip(&oracles)
                .filter(|(&r, _)| matrix.recorded[r][v])
                .map(|(&r, oracle)| (matrix.time[r][v] / oracle).min(cap).ln())
                .collect();
            let mean = if capped.is_empty() { cap.ln() } else { capped.iter().sum::<f64>() / capped.len() as f64 };
            (v, cap.ln() - mean)
        })
        .filter(|&(_, gain)| gain > 0.0)
        .collect();
    let total: f64 = gains.iter().map(|&(_, gain)| gain).sum();
    if total > 0.0 {
        gains.into_iter().map(|(v, gain)| (v, gain / total)).collect()
    } else {
        vec![(label, 1.0)]
    }
}

/// Assigns shapes to folds at random (seeded), as evenly as possible.
fn fold_of(n: usize, folds: usize, seed: u64) -> Vec<usize> {
    let folds = folds.min(n).max(1);
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut StdRng::seed_from_u64(seed));
    let mut fold = vec![0; n];
    for (i, &s) in order.iter().enumerate() {
        fold[s] = i % folds;
    }
    fold
}

/// Converts linfa's tree, fitted on `samples`, cut at `point.max_depth` (see [`convert`]), with
/// its panel blocks kept from shapes narrower than they are ([`guard_narrow_shapes`]).
fn cut(
    matrix: &Matrix,
    linfa_tree: &DecisionTree<f64, usize>,
    samples: &[&Sample],
    point: &CvPoint,
    class: &str,
    selected: &[usize],
) -> Result<Tree> {
    let leaf = Relabel { matrix, selected, weighting: point.weighting };
    let root = simplify(convert(matrix, linfa_tree.root_node(), samples, &leaf, point.max_depth)?);
    let root = guard_narrow_shapes(root, &mut Vec::new(), samples, &leaf);
    Ok(Tree::new(class, &matrix.precision, root))
}

/// Fits linfa's classifier (labels are column indices) on the samples' targets.
fn fit_linfa(samples: &[&Sample], point: &CvPoint) -> Result<DecisionTree<f64, usize>> {
    let fit_rows: Vec<(&Sample, usize, f64)> =
        samples.iter().flat_map(|s| s.targets.iter().map(move |&(label, share)| (*s, label, share))).collect();
    let mut x = Array2::<f64>::zeros((fit_rows.len(), ShapeFeatures::NAMES.len()));
    for (i, (s, _, _)) in fit_rows.iter().enumerate() {
        for (j, f) in encoded(&s.features).into_iter().enumerate() {
            x[(i, j)] = f;
        }
    }
    let y: Array1<usize> = fit_rows.iter().map(|&(_, label, _)| label).collect();
    let w: Array1<f32> = fit_rows.iter().map(|&(s, _, share)| (s.fit_weight(point.weighting) * share) as f32).collect();
    let dataset = linfa::Dataset::new(x, y).with_weights(w).with_feature_names(ShapeFeatures::NAMES.to_vec());
    DecisionTree::params()
        .max_depth(Some(point.max_depth))
        .min_weight_leaf(point.min_leaf as f32)
        .min_weight_split(2.0 * point.min_leaf as f32)
        .fit(&dataset)
        .map_err(|e| Error::Fit(e.to_string()))
}

/// How [`convert`] labels a leaf: the selected configuration of least weighted mean log slowdown
/// (failures at [`FAIL_PENALTY`]) over the leaf's training rows where it was measured, the first in
/// `selected` on a tie. That is the objective the tree is judged on, where linfa's leaf names the
/// class of most weight (on a tie, by a fixed hash of the label: vendor/linfa-trees/PATCHED.md).
struct Relabel<'a> {
    matrix: &'a Matrix,
    selected: &'a [usize],
    weighting: Weighting,
}

impl Relabel<'_> {
    /// The label of a leaf holding `samples` (`None` when it holds none).
    fn label(&self, samples: &[&Sample]) -> Option<usize> {
        let cost = |v: usize| -> f64 {
            let (mut log_sum, mut weight) = (0.0, 0.0);
            for s in samples {
                let w = s.fit_weight(self.weighting);
                for &r in s.rows.iter().filter(|&&r| self.matrix.recorded[r][v]) {
                    log_sum += w * (self.matrix.time[r][v] / self.matrix.row_oracle(r)).min(FAIL_PENALTY).ln();
                    weight += w;
                }
            }
            if weight > 0.0 {
                log_sum / weight
            } else {
                f64::INFINITY
            }
        };
        let costs: Vec<(usize, f64)> = self.selected.iter().map(|&v| (v, cost(v))).collect();
        (!samples.is_empty()).then(|| costs.iter().fold(costs[0], |b, &c| if c.1 < b.1 { c } else { b }).0)
    }
}

/// Converts linfa's node, fitted on `samples`, into a selector node with raw integer thresholds.
///
/// Of two splits that divide the node's shapes identically (common: `m`, `mn` and `max_mn` often
/// agree on the training shapes) linfa keeps one by the rounding of its impurity sums (upstream in
/// hash-map order, which changed the tree from run to run; vendor/linfa-trees/PATCHED.md). Here a
/// split is kept as the partition of the node's shapes it makes and re-expressed canonically, as
/// exact sums would choose: the first feature (in [`ShapeFeatures::NAMES`] order) that separates
/// the same partition, either way round, the threshold at the middle of the gap between the two
/// sides (in encoded units). Leaves are labelled by [`Relabel`]. Training shapes meet the same
/// others in their leaf as in linfa's tree. Nodes `max_depth` below the root become leaves: the tree
/// linfa fits with that depth limit.
fn convert(
    matrix: &Matrix,
    node: &TreeNode<f64, usize>,
    samples: &[&Sample],
    leaf: &Relabel,
    max_depth: usize,
) -> Result<Node> {
    if node.is_leaf() || max_depth == 0 {
        let label = leaf
            .label(samples)
            .or(node.prediction())
            .ok_or_else(|| Error::Fit("a cut node holds no training shape".into()))?;
        let config = matrix
            .configs
            .get(label)
            .ok_or_else(|| Error::Fit(format!("leaf label {label} is not a configuration")))?;
        return Ok(Node::Leaf { variant: config.id(), shapes: None, geomean_slowdown: None, worst_slowdown: None });
    }
    let (feature, split, _) = node.split();
    let children = node.children();
    let (Some(below), Some(above)) = (children[0].as_deref(), children[1].as_deref()) else {
        return Err(Error::Fit("an internal node lacks a child".into()));
    };
    let rows: Vec<[f64; ShapeFeatures::COUNT]> = samples.iter().map(|s| encoded(&s.features)).collect();
    let goes_below: Vec<bool> = rows.iter().map(|x| x[feature] < split).collect();
    let (f, split, flipped) = canonical_split(&rows, &goes_below).unwrap_or((feature, split, false));
    let name = ShapeFeatures::NAMES.get(f).ok_or_else(|| Error::Fit(format!("split on unknown feature {f}")))?;
    let threshold =
        raw_threshold(split).ok_or_else(|| Error::Fit(format!("split {name} < {split} admits no value")))?;
    let side = |below_side: bool| -> Vec<&Sample> {
        samples.iter().zip(&goes_below).filter(|(_, &b)| b == below_side).map(|(s, _)| *s).collect()
    };
    let child = |node, below_side| convert(matrix, node, &side(below_side), leaf, max_depth - 1);
    let (below, above) = (child(below, true)?, child(above, false)?);
    let (le, gt) = if flipped { (above, below) } else { (below, above) };
    Ok(Node::Split { feature: name.to_string(), threshold, shapes: None, le: Box::new(le), gt: Box::new(gt) })
}

/// The canonical split (see [`convert`]) that puts exactly the rows marked in `goes_below` on one
/// side: (feature, encoded split value, whether the marked rows lie above it). `None` when the
/// marking is not a split of any feature (it always is for linfa's own split on its own rows).
fn canonical_split(rows: &[[f64; ShapeFeatures::COUNT]], goes_below: &[bool]) -> Option<(usize, f64, bool)> {
    (0..ShapeFeatures::COUNT).find_map(|f| {
        let range = |marked: bool| {
            rows.iter()
                .zip(goes_below)
                .filter(|(_, &b)| b == marked)
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (x, _)| (lo.min(x[f]), hi.max(x[f])))
        };
        let ((below_lo, below_hi), (above_lo, above_hi)) = (range(true), range(false));
        [(false, below_hi, above_lo), (true, above_hi, below_lo)]
            .into_iter()
            .find(|&(_, lower_hi, upper_lo)| lower_hi < upper_lo && (upper_lo - lower_hi).is_finite())
            .map(|(flipped, lower_hi, upper_lo)| (f, (lower_hi + upper_lo) / 2.0, flipped))
    })
}

/// Merges sibling leaves that name the same variant, bottom-up.
pub fn simplify(node: Node) -> Node {
    match node {
        Node::Leaf { .. } => node,
        Node::Split { feature, threshold, shapes, le, gt } => {
            let (le, gt) = (simplify(*le), simplify(*gt));
            match (&le, &gt) {
                (Node::Leaf { variant: a, .. }, Node::Leaf { variant: b, .. }) if a == b => {
                    Node::Leaf { variant: a.clone(), shapes: None, geomean_slowdown: None, worst_slowdown: None }
                }
                _ => Node::Split { feature, threshold, shapes, le: Box::new(le), gt: Box::new(gt) },
            }
        }
    }
}

/// The rows of C (the kernel's M) that a work-item of a panel block computes, MV vectors of VW;
/// `None` for a configuration of another family. On a C of fewer rows every block of it runs the
/// kernel's edge path, which loads A element by element (kernels/panel.cl): on PoCL (AVX-512, the
/// 336 architecture shapes of `pocl-zen4-arch`) such blocks ran 5.4 times slower than the fastest
/// variant (geometric mean), blocks that fit 1.5 times, and the fastest was one of them on 3
/// shapes of 336.
fn block_rows(matrix: &Matrix, column: usize) -> Option<u64> {
    let variant = matrix.configs[column].variant().filter(|v| v.family == Family::Panel)?;
    Some(u64::from(variant.get("MV")) * u64::from(variant.get("VW")))
}

/// Keeps a leaf's panel block from the shapes below its training shapes that are narrower than
/// the block ([`block_rows`]): where a leaf admits values of `m` smaller than both its block's
/// rows and every training shape's `m`, which it would meet only beyond its data (a family of
/// networks whose layers have fewer output features than any trained on), those shapes go by a
/// split on `m` to the configuration of least cost on the leaf's training shapes ([`Relabel`])
/// among those narrow enough, guarded in turn; the leaf keeps its label for its training shapes.
/// `path` holds the splits above `node` (feature index, threshold, whether `le` was taken);
/// `samples` are the training shapes that reach it.
fn guard_narrow_shapes(node: Node, path: &mut Vec<(usize, u64, bool)>, samples: &[&Sample], relabel: &Relabel) -> Node {
    match node {
        Node::Split { feature, threshold, shapes, le, gt } => {
            let f = ShapeFeatures::NAMES.iter().position(|n| *n == feature).expect("trees split on named features");
            let (l, g) = split_samples(samples, f, threshold);
            path.push((f, threshold, true));
            let le = Box::new(guard_narrow_shapes(*le, path, &l, relabel));
            path.pop();
            path.push((f, threshold, false));
            let gt = Box::new(guard_narrow_shapes(*gt, path, &g, relabel));
            path.pop();
            Node::Split { feature, threshold, shapes, le, gt }
        }
        Node::Leaf { .. } => {
            let trained_from = samples.iter().map(|s| s.features.m).min().unwrap_or(u64::MAX);
            narrow_guard(node, path, trained_from, samples, relabel)
        }
    }
}

/// [`guard_narrow_shapes`] on one leaf, whose training shapes have `m` of `trained_from` or more.
/// The guard is added only where a shape reaches it: one of the leaf's training shapes narrowed to
/// the guard's threshold or to m = 1 that takes every split of `path` (a split on a ratio such as
/// `m_per_n_1024` can leave no narrow shape in the leaf).
fn narrow_guard(
    leaf: Node,
    path: &mut Vec<(usize, u64, bool)>,
    trained_from: u64,
    samples: &[&Sample],
    relabel: &Relabel,
) -> Node {
    let Node::Leaf { variant, .. } = &leaf else {
        return leaf;
    };
    let matrix = relabel.matrix;
    let column = relabel.selected.iter().copied().find(|&v| matrix.configs[v].id() == *variant);
    let Some(rows) = column.and_then(|v| block_rows(matrix, v)) else {
        return leaf;
    };
    let threshold = rows.min(trained_from).saturating_sub(1);
    let reached = samples.iter().any(|s| {
        [threshold, 1].into_iter().filter(|&m| m >= 1 && m <= threshold).any(|m| {
            let f = s.features;
            let narrowed = ShapeFeatures::new(m, f.n, f.k)
                .with_operands_along_k(f.operands_along_k)
                .with_compute_units(f.compute_units)
                .values();
            path.iter().all(|&(i, t, le)| (narrowed[i] <= t) == le)
        })
    });
    if !reached {
        return leaf;
    }
    let narrow: Vec<usize> =
        relabel.selected.iter().copied().filter(|&v| block_rows(matrix, v).is_none_or(|r| r <= threshold)).collect();
    if narrow.is_empty() {
        return leaf;
    }
    let Some(label) = (Relabel { selected: &narrow, ..*relabel }).label(samples) else {
        return leaf;
    };
    let below =
        Node::Leaf { variant: matrix.configs[label].id(), shapes: None, geomean_slowdown: None, worst_slowdown: None };
    let m = ShapeFeatures::NAMES.iter().position(|n| *n == "m").expect("m is a feature");
    path.push((m, threshold, true));
    let below = narrow_guard(below, path, u64::MAX, samples, relabel);
    path.pop();
    Node::Split { feature: "m".into(), threshold, shapes: None, le: Box::new(below), gt: Box::new(leaf) }
}

/// Fills in training shape counts, and each leaf's geomean and worst slowdown over the problems
/// (rows) of its shapes.
fn annotate(matrix: &Matrix, node: &mut Node, samples: &[&Sample]) {
    match node {
        Node::Leaf { variant, shapes, geomean_slowdown, worst_slowdown } => {
            *shapes = Some(samples.len() as u64);
            let column = matrix.configs.iter().position(|c| c.id() == *variant);
            let rows: Vec<usize> = samples.iter().flat_map(|s| s.rows.iter().copied()).collect();
            let stats =
                super::select::Stats::of(matrix, &rows, |r| column.map_or(f64::INFINITY, |v| matrix.time[r][v]));
            if stats.problems > stats.failed {
                *geomean_slowdown = Some(stats.geomean);
                *worst_slowdown = stats.worst.map(|(_, w)| w);
            }
        }
        Node::Split { feature, threshold, shapes, le, gt } => {
            *shapes = Some(samples.len() as u64);
            let f = ShapeFeatures::NAMES.iter().position(|n| n == feature).unwrap_or(0);
            let (l, g) = split_samples(samples, f, *threshold);
            annotate(matrix, le, &l);
            annotate(matrix, gt, &g);
        }
    }
}

/// The samples a split on feature `f` (an index into [`ShapeFeatures::NAMES`]) at `threshold` sends
/// to `le`, then those it sends to `gt`.
fn split_samples<'s>(samples: &[&'s Sample], f: usize, threshold: u64) -> (Vec<&'s Sample>, Vec<&'s Sample>) {
    samples.iter().partition(|s| s.features.values()[f] <= threshold)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::tests::toy;
    use rand::Rng;

    #[test]
    fn thresholds_are_exact() {
        for v in [0u64, 1, 2, 15, 16, 17, 100, 383, 4096, 1 << 40, (1 << 53) + 7] {
            for w in [v + 1, v + 2, 2 * v + 1, v + 1000] {
                let split = (encode(v) + encode(w)) / 2.0; // linfa's midpoint
                if encode(v) >= split {
                    continue; // v and w encode alike: no split can separate them
                }
                let t = raw_threshold(split).unwrap();
                assert!(encode(t) < split && encode(t + 1) >= split, "{v} {w} {t}");
                assert!(v <= t && t < w, "{v} {w} {t}");
            }
        }
        assert_eq!(raw_threshold((encode(16) + encode(17)) / 2.0), Some(16));
        assert_eq!(raw_threshold(0.0), None);
        assert_eq!(raw_threshold(f64::NAN), None);
        assert_eq!(raw_threshold(100.0), Some(u64::MAX));
    }

    /// 40 shapes: config 0 wins when the shape's m is at most 20, config 1 above.
    fn separable() -> Matrix {
        let problems: Vec<_> = (1..=40u64).map(|m| (0, m, 64, 64)).collect();
        let time = (1..=40u64).map(|m| if m <= 20 { vec![1.0, 2.0, 5.0] } else { vec![2.0, 1.0, 5.0] }).collect();
        toy(&[("d", "cpu")], &problems, time)
    }

    #[test]
    fn the_layout_is_a_feature() {
        // The same 40 shapes timed in NN on one device and in NT on another of the class: config 0
        // wins every NN shape, config 1 every NT one. A tree of shapes alone would be half wrong.
        let shapes: Vec<(usize, u64, u64, u64)> = (1..=20u64).map(|m| (0, m * 7, 64, 64)).collect();
        let problems: Vec<_> = shapes
            .iter()
            .chain(&shapes.iter().map(|&(_, m, n, k)| (1, m, n, k)).collect::<Vec<_>>())
            .copied()
            .collect();
        let time = problems.iter().map(|p| if p.0 == 0 { vec![1.0, 2.0] } else { vec![2.0, 1.0] }).collect();
        let mut m = toy(&[("d", "gpu"), ("d", "gpu")], &problems, time);
        m.devices[1].layout = Some("NT".into());
        let rows: Vec<usize> = (0..m.problems.len()).collect();
        let trained = train(&m, &rows, &[0, 1], "gpu", &TrainOptions::default()).unwrap();
        // One subtree per layout, each a leaf here, joined by a split on the layout.
        let fits: Vec<(u64, usize, f64)> =
            trained.fits.iter().map(|f| (f.operands_along_k, f.shapes, f.chosen.slowdown)).collect();
        assert_eq!(fits, [(1, 20, 1.0), (2, 20, 1.0)]);
        match &trained.tree.root {
            Node::Split { feature, threshold: 1, shapes: Some(40), le, gt } if feature == "operands_along_k" => {
                assert!(matches!(&**le, Node::Leaf { variant, .. } if *variant == m.configs[0].id()));
                assert!(matches!(&**gt, Node::Leaf { variant, .. } if *variant == m.configs[1].id()));
            }
            root => panic!("{root:?}"),
        }
        for &r in &rows {
            assert_eq!(pick(&m, &trained.tree, &m.kernel_features(r), &[0, 1]), Some(m.problems[r].device));
        }
        // A layout no row trained (row-major TN: none along K) takes the next larger one's subtree.
        let tn = m.kernel_features(0).with_operands_along_k(0);
        assert_eq!(pick(&m, &trained.tree, &tn, &[0, 1]), Some(0));
        // Rows of one layout alone make no layout split.
        let nn_rows: Vec<usize> = (0..20).collect();
        let nn = train(&m, &nn_rows, &[0, 1], "gpu", &TrainOptions::default()).unwrap();
        assert!(matches!(&nn.tree.root, Node::Leaf { .. }), "{:?}", nn.tree.root);
    }

    #[test]
    fn size_thresholds_fall_at_the_geometric_mean() {
        assert_eq!(size_threshold(2, 4), 2);
        assert_eq!(size_threshold(2, 16), 5);
        assert_eq!(size_threshold(8, 16), 11);
        assert_eq!(size_threshold(0, 16), 0);
        assert_eq!(size_threshold(u64::MAX - 1, u64::MAX), u64::MAX - 1);
        for (a, b) in [(1u64, 2u64), (3, 4), (16, 132), (100, 101)] {
            let t = size_threshold(a, b);
            assert!(a <= t && t < b, "{a} {b} {t}");
        }
    }

    #[test]
    fn the_device_size_is_a_feature_except_for_default() {
        // The same 20 shapes on a CPU of 2 compute units and one of 16: config 0 wins every shape on
        // the small one, config 1 every shape on the large one.
        let shapes: Vec<(usize, u64, u64, u64)> = (1..=20u64).map(|m| (0, m * 7, 64, 64)).collect();
        let problems: Vec<_> = shapes.iter().copied().chain(shapes.iter().map(|&(_, m, n, k)| (1, m, n, k))).collect();
        let time = problems.iter().map(|p| if p.0 == 0 { vec![1.0, 2.0] } else { vec![2.0, 1.0] }).collect();
        let mut m = toy(&[("small", "cpu"), ("large", "cpu")], &problems, time);
        m.devices[0].compute_units = Some(2);
        m.devices[1].compute_units = Some(16);
        let rows: Vec<usize> = (0..m.problems.len()).collect();
        let cpu = train(&m, &rows, &[0, 1], "cpu", &TrainOptions::default()).unwrap();
        // One subtree per size, each a leaf here, joined by a split between the sizes.
        let fits: Vec<(u64, usize)> = cpu.fits.iter().map(|f| (f.compute_units, f.shapes)).collect();
        assert_eq!(fits, [(2, 20), (16, 20)]);
        match &cpu.tree.root {
            Node::Split { feature, threshold: 5, shapes: Some(40), le, gt } if feature == "compute_units" => {
                assert!(matches!(&**le, Node::Leaf { variant, .. } if *variant == m.configs[0].id()));
                assert!(matches!(&**gt, Node::Leaf { variant, .. } if *variant == m.configs[1].id()));
            }
            root => panic!("{root:?}"),
        }
        for &r in &rows {
            assert_eq!(pick(&m, &cpu.tree, &m.kernel_features(r), &[0, 1]), Some(m.problems[r].device));
        }
        // Sizes never trained go to the nearer by ratio; an unknown one to the smallest.
        let shape = m.kernel_features(0);
        for (units, want) in [(0, 0), (1, 0), (5, 0), (6, 1), (64, 1)] {
            assert_eq!(pick(&m, &cpu.tree, &shape.with_compute_units(units), &[0, 1]), Some(want), "{units}");
        }
        // `default` sees no device size: one sample per shape, and no split on it anywhere.
        let default = train(&m, &rows, &[0, 1], "default", &TrainOptions::default()).unwrap();
        assert_eq!(default.fits[0].shapes, 20);
        let json = serde_json::to_string(&default.tree).unwrap();
        assert!(!json.contains("compute_units"), "{json}");
    }

    #[test]
    fn one_shape_trains_a_leaf() {
        let m = separable();
        let trained = train(&m, &[7], &[0, 1], "cpu", &TrainOptions::default()).unwrap();
        assert!(matches!(&trained.tree.root, Node::Leaf { variant, .. } if *variant == m.configs[0].id()));
    }

    #[test]
    fn reproduces_a_separable_labelling_exactly() {
        let m = separable();
        let rows: Vec<usize> = (0..40).collect();
        let trained = train(&m, &rows, &[0, 1], "cpu", &TrainOptions::default()).unwrap();
        // Held-out shapes next to the boundary may fall on the wrong side of a fold's threshold.
        assert!(trained.fits[0].chosen.slowdown < 1.05, "{:?}", trained.fits[0].chosen);
        // The kernel sees the row-major m as its n.
        match &trained.tree.root {
            Node::Split { feature, threshold, shapes, le, gt } => {
                assert_eq!((feature.as_str(), *threshold, *shapes), ("n", 20, Some(40)));
                assert!(matches!(&**le, Node::Leaf { variant, shapes: Some(20), .. } if *variant == m.configs[0].id()));
                assert!(
                    matches!(&**gt, Node::Leaf { variant, geomean_slowdown: Some(g), .. } if *variant == m.configs[1].id() && *g == 1.0)
                );
            }
            leaf => panic!("{leaf:?}"),
        }
        for &r in &rows {
            let want = if m.problems[r].shape.m <= 20 { 0 } else { 1 };
            assert_eq!(pick(&m, &trained.tree, &m.kernel_features(r), &[0, 1]), Some(want));
        }
        // The JSON round trip keeps the tree.
        let ids: Vec<String> = m.configs.iter().map(|c| c.id()).collect();
        let json = serde_json::to_string(&trained.tree).unwrap();
        assert_eq!(Tree::parse(std::path::Path::new("t.json"), &json, &ids).unwrap(), trained.tree);
    }

    #[test]
    fn soft_labels_choose_what_is_good_everywhere_over_what_is_fastest_somewhere() {
        // Config 0 is the fastest on odd m by 1 % but 3x slower on even m; config 1 is within 1 % of
        // the fastest everywhere. Hard labels alternate; soft labels weigh config 1 on every shape.
        let problems: Vec<_> = (1..=40u64).map(|m| (0, m, 64, 64)).collect();
        let time = (1..=40u64).map(|m| if m % 2 == 1 { vec![1.0, 1.01] } else { vec![3.0, 1.0] }).collect();
        let m = toy(&[("d", "cpu")], &problems, time);
        let rows: Vec<usize> = (0..40).collect();
        let options = TrainOptions { labels: vec![Labels::Soft { cap: 2.0 }], ..TrainOptions::default() };
        let trained = train(&m, &rows, &[0, 1], "cpu", &options).unwrap();
        for &r in &rows {
            assert_eq!(pick(&m, &trained.tree, &m.kernel_features(r), &[0, 1]), Some(1), "{:?}", trained.tree);
        }
        assert!(trained.fits[0].chosen.slowdown < 1.0051, "{:?}", trained.fits[0].chosen);
        // A cap of 1 or less gives no weight to anything: refused.
        let bad = TrainOptions { labels: vec![Labels::Soft { cap: 1.0 }], ..TrainOptions::default() };
        assert!(matches!(train(&m, &rows, &[0, 1], "cpu", &bad), Err(Error::Invalid(_))));
    }

    #[test]
    fn unscored_rows_train_but_leave_the_cross_validated_slowdown() {
        // On m > 30 an unselected config 2 runs 100x faster than both selected ones, so any pick
        // there costs the failure penalty: scored, those rows dominate the slowdown; unscored, the
        // slowdown is that of the m <= 30 rows alone (at most 1.1), and the tree is the same.
        let problems: Vec<_> = (1..=40u64).map(|m| (0, m, 64, 64)).collect();
        let time = (1..=40u64).map(|m| if m <= 30 { vec![1.0, 1.1, 5.0] } else { vec![1.5, 1.0, 0.01] }).collect();
        let m = toy(&[("d", "cpu")], &problems, time);
        let rows: Vec<usize> = (0..40).collect();
        let options = TrainOptions { depths: vec![1, 2], min_leaf: vec![1], ..TrainOptions::default() };
        let scored = train(&m, &rows, &[0, 1], "cpu", &options).unwrap();
        assert!(scored.fits[0].chosen.slowdown > 1.5, "{:?}", scored.fits[0].chosen);
        let unscored_rows = (30..40).collect();
        let unscored = train(&m, &rows, &[0, 1], "cpu", &TrainOptions { unscored_rows, ..options }).unwrap();
        assert!(unscored.fits[0].chosen.slowdown <= 1.1 + 1e-9, "{:?}", unscored.fits[0].chosen);
        assert_eq!(unscored.tree.root, scored.tree.root);
    }

    #[test]
    fn shape_weights_move_the_choice() {
        // One leaf for all 40 shapes: config 0 is 1.5x slower on m > 30, config 1 1.1x slower on
        // m <= 30. Unweighted, config 1 costs less (30 ln 1.1 < 10 ln 1.5); with the m <= 30
        // shapes weighing 10 each, config 0 does.
        let problems: Vec<_> = (1..=40u64).map(|m| (0, m, 64, 64)).collect();
        let time = (1..=40u64).map(|m| if m <= 30 { vec![1.0, 1.1] } else { vec![1.5, 1.0] }).collect();
        let m = toy(&[("d", "cpu")], &problems, time);
        let rows: Vec<usize> = (0..40).collect();
        let one_leaf = TrainOptions { depths: vec![1], min_leaf: vec![1000], ..TrainOptions::default() };
        let leaf = |options: &TrainOptions| match train(&m, &rows, &[0, 1], "cpu", options).unwrap().tree.root {
            Node::Leaf { variant, .. } => variant,
            split => panic!("{split:?}"),
        };
        assert_eq!(leaf(&one_leaf), m.configs[1].id());
        let shape_weights = m.problems.iter().filter(|p| p.shape.m <= 30).map(|p| (p.shape, 10.0)).collect();
        assert_eq!(leaf(&TrainOptions { shape_weights, ..one_leaf }), m.configs[0].id());
    }

    #[test]
    fn unmeasured_configurations_are_unknown_not_failed() {
        // Two devices of one class on the same 20 shapes. Config 1 was never measured on device a
        // (NaN) and runs 2x faster than config 0 on device b; config 0 is the only one timed on a.
        // Counted as failures on a, config 1 would lose every shape; judged where it was measured,
        // it wins them all, by every labelling. A config that failed (INF) still loses.
        let problems: Vec<_> = (0..2).flat_map(|d| (1..=20u64).map(move |m| (d, m, 64, 64))).collect();
        let time = |unmeasured: f64| -> Vec<Vec<f64>> {
            (0..40).map(|row| if row < 20 { vec![1.0, unmeasured] } else { vec![2.0, 1.0] }).collect()
        };
        let rows: Vec<usize> = (0..40).collect();
        for labels in [Labels::Fastest { tie_tolerance: 0.0 }, Labels::Soft { cap: 1.5 }] {
            let options = TrainOptions { labels: vec![labels], ..TrainOptions::default() };
            let m = toy(&[("a", "cpu"), ("b", "cpu")], &problems, time(f64::NAN));
            let trained = train(&m, &rows, &[0, 1], "cpu", &options).unwrap();
            for &r in &rows {
                assert_eq!(pick(&m, &trained.tree, &m.kernel_features(r), &[0, 1]), Some(1), "{labels:?}");
            }
            // Cross-validation counts only the rows where the pick was measured: device b's.
            assert_eq!(trained.fits[0].chosen.slowdown, 1.0, "{labels:?}");
            let failed = toy(&[("a", "cpu"), ("b", "cpu")], &problems, time(f64::INFINITY));
            let trained = train(&failed, &rows, &[0, 1], "cpu", &options).unwrap();
            assert_eq!(pick(&failed, &trained.tree, &failed.kernel_features(0), &[0, 1]), Some(0), "{labels:?}");
            // Never measured on device a's class, config 1 is no choice there: a portable tree
            // over both classes counts it as failed on a.
            let other_class = toy(&[("a", "gpu"), ("b", "cpu")], &problems, time(f64::NAN));
            let trained = train(&other_class, &rows, &[0, 1], "default", &options).unwrap();
            assert_eq!(
                pick(&other_class, &trained.tree, &other_class.kernel_features(0), &[0, 1]),
                Some(0),
                "{labels:?}"
            );
        }
    }

    /// The leaf a shape reaches in linfa's tree, as the directions taken.
    fn linfa_path(node: &TreeNode<f64, usize>, x: &[f64; ShapeFeatures::COUNT]) -> Vec<bool> {
        let mut path = vec![];
        let mut node = node;
        while node.prediction().is_none() {
            let (f, split, _) = node.split();
            path.push(x[f] < split);
            node = node.children()[if x[f] < split { 0 } else { 1 }].as_deref().unwrap();
        }
        path
    }

    /// The leaf a shape reaches in a selector tree, as the directions taken.
    fn selector_path(node: &Node, features: &ShapeFeatures) -> Vec<bool> {
        let mut path = vec![];
        let mut node = node;
        while let Node::Split { feature, threshold, le, gt, .. } = node {
            let below = features.get(feature).unwrap() <= *threshold;
            path.push(below);
            node = if below { le } else { gt };
        }
        path
    }

    /// Numbers the groups of equal keys in order of first appearance.
    fn grouping<K: Ord>(keys: Vec<K>) -> Vec<usize> {
        let mut ids = BTreeMap::new();
        keys.into_iter()
            .map(|k| {
                let next = ids.len();
                *ids.entry(k).or_insert(next)
            })
            .collect()
    }

    fn random_samples(seed: u64, count: usize, classes: usize) -> Vec<Sample> {
        let mut rng = StdRng::seed_from_u64(seed);
        let d = |rng: &mut StdRng| 1u64 << rng.gen_range(0..13) | rng.gen_range(0..64);
        (0..count)
            .map(|_| {
                let shape = Shape { m: d(&mut rng), n: d(&mut rng), k: d(&mut rng) };
                Sample {
                    features: shape.kernel_features(),
                    rows: vec![],
                    targets: vec![(rng.gen_range(0..classes), 1.0)],
                    weight: 1.0,
                    shape_weight: 1.0,
                }
            })
            .collect()
    }

    fn deep_point() -> CvPoint {
        CvPoint {
            max_depth: 8,
            min_leaf: 1,
            weighting: Weighting::Uniform,
            labels: Labels::Fastest { tie_tolerance: 0.0 },
            slowdown: 1.0,
        }
    }

    #[test]
    fn converted_tree_keeps_linfas_leaves_for_the_training_shapes_at_every_cut() {
        let samples = random_samples(3, 200, 4);
        let refs: Vec<&Sample> = samples.iter().collect();
        let model = fit_linfa(&refs, &deep_point()).unwrap();
        let m = toy(&[("d", "cpu")], &[(0, 1, 1, 1)], vec![vec![1.0; 4]]);
        let relabel = Relabel { matrix: &m, selected: &[0, 1, 2, 3], weighting: Weighting::Uniform };
        // Splits may move to another feature or flip, but every training shape meets the same others
        // in its leaf as on linfa's path cut at that depth, and the thresholds are integers that the
        // generated code compares exactly.
        let mut leaves = Vec::new();
        for max_depth in 0..=deep_point().max_depth {
            let root = convert(&m, model.root_node(), &refs, &relabel, max_depth).unwrap();
            let cut_path = |s: &Sample| {
                let mut path = linfa_path(model.root_node(), &encoded(&s.features));
                path.truncate(max_depth);
                path
            };
            let linfa = grouping(samples.iter().map(cut_path).collect());
            let ours = grouping(samples.iter().map(|s| selector_path(&root, &s.features)).collect());
            assert_eq!(linfa, ours, "cut at depth {max_depth}");
            leaves.push(linfa.iter().max().unwrap() + 1);
        }
        assert_eq!(leaves[0], 1);
        assert!(leaves.windows(2).all(|w| w[0] < w[1]), "every cut deepens the tree: {leaves:?}");
    }

    #[test]
    fn training_is_reproducible() {
        // Many features split these shapes alike (m, mn, mnk, max_mn... all grow with m alone), so
        // linfa's choice among them depends on the rounding of its sums; the canonical choice does not.
        let problems: Vec<_> = (1..=60u64).map(|m| (0, m * 3, 64, 64)).collect();
        let time = (1..=60u64)
            .map(|m| match m % 7 {
                0 => vec![1.0, 1.2, 1.1],
                _ if m <= 20 => vec![1.0, 2.0, 1.5],
                _ if m <= 40 => vec![2.0, 1.0, 1.5],
                _ => vec![2.0, 1.5, 1.0],
            })
            .collect();
        let m = toy(&[("d", "cpu")], &problems, time);
        let rows: Vec<usize> = (0..60).collect();
        let first = train(&m, &rows, &[0, 1, 2], "cpu", &TrainOptions::default()).unwrap();
        for _ in 0..4 {
            assert_eq!(train(&m, &rows, &[0, 1, 2], "cpu", &TrainOptions::default()).unwrap(), first);
        }
    }

    #[test]
    fn linfa_fits_do_not_depend_on_hash_order() {
        // Eight classes with fractional weights: upstream linfa-trees summed a node's class weights
        // in the order of a hash map seeded anew for each map, so near-equal splits fell either way
        // from fit to fit in one process (vendor/linfa-trees/PATCHED.md).
        let mut rng = StdRng::seed_from_u64(12);
        let mut samples = random_samples(11, 2000, 8);
        for s in &mut samples {
            s.shape_weight = rng.gen_range(0.5..2.0);
        }
        let refs: Vec<&Sample> = samples.iter().collect();
        let splits = |tree: DecisionTree<f64, usize>| -> Vec<(usize, f64)> {
            let split = |n: &TreeNode<f64, usize>| {
                let (feature, value, _) = n.split();
                (feature, value)
            };
            tree.iter_nodes().filter(|n| !n.is_leaf()).map(split).collect()
        };
        let first = splits(fit_linfa(&refs, &deep_point()).unwrap());
        for _ in 0..8 {
            assert_eq!(splits(fit_linfa(&refs, &deep_point()).unwrap()), first);
        }
    }

    /// Panel blocks of 64, 32, 16 and 8 rows (MV x VW), in that order.
    fn panel_blocks() -> Vec<crate::dataset::Config> {
        let block = |kc, lm, ln, mv, nr, vw| {
            let p = [("KC", kc), ("LM", lm), ("LN", ln), ("MV", mv), ("NR", nr), ("VW", vw)];
            let v = fewfit_codegen::Variant::new(Family::Panel, &p).with_neutral_defaults();
            v.validate().unwrap();
            crate::dataset::Config::of(&v)
        };
        vec![
            block(256, 1, 16, 4, 4, 16),
            block(256, 1, 16, 2, 4, 16),
            block(512, 1, 8, 1, 12, 16),
            block(256, 2, 4, 1, 4, 8),
        ]
    }

    #[test]
    fn panel_blocks_are_kept_from_shapes_narrower_than_their_data() {
        // Training shapes of the kernel's m 64-456 (row-major n), where the 64-row block is the
        // fastest, the 16-row one 1.2x, the 32-row one 1.3x and the 8-row one 1.5x slower. Below
        // m = 64, where no shape trained, the tree names the 16-row block (the least slowdown on the
        // leaf's shapes of those narrow enough), below 16 the 8-row one; trained shapes keep theirs.
        let problems: Vec<_> = (1..=40u64).map(|i| (0, 8 * i, 64 + 8 * (i % 8) * (i % 8), 64)).collect();
        let time = vec![vec![1.0, 1.3, 1.2, 1.5]; 40];
        let mut m = toy(&[("d", "cpu")], &problems, time);
        m.configs = panel_blocks();
        let rows: Vec<usize> = (0..40).collect();
        let trained = train(&m, &rows, &[0, 1, 2, 3], "cpu", &TrainOptions::default()).unwrap();
        for &r in &rows {
            assert_eq!(pick(&m, &trained.tree, &m.kernel_features(r), &[0, 1, 2, 3]), Some(0));
        }
        assert_eq!(trained.fits[0].chosen.slowdown, 1.0);
        for (kernel_m, want) in [(1, 3), (15, 3), (16, 2), (63, 2), (64, 0), (4096, 0)] {
            let shape = Shape { m: 100, n: kernel_m, k: 64 }.kernel_features();
            assert_eq!(pick(&m, &trained.tree, &shape, &[0, 1, 2, 3]), Some(want), "m = {kernel_m}");
        }
        // The guards' leaves train no shape; the JSON round trip keeps them.
        let ids: Vec<String> = m.configs.iter().map(|c| c.id()).collect();
        let json = serde_json::to_string(&trained.tree).unwrap();
        assert_eq!(Tree::parse(std::path::Path::new("t.json"), &json, &ids).unwrap(), trained.tree);

        // A shape of m = 32 trained the 64-row block (it was the fastest there): only narrower
        // shapes are guarded. Without a narrower block, none are.
        let mut measured = m.clone();
        measured.problems[0].shape.n = 32;
        let trained = train(&measured, &rows, &[0, 1, 2, 3], "cpu", &TrainOptions::default()).unwrap();
        for (kernel_m, want) in [(31, 2), (32, 0)] {
            let shape = Shape { m: 100, n: kernel_m, k: 64 }.kernel_features();
            assert_eq!(pick(&m, &trained.tree, &shape, &[0, 1, 2, 3]), Some(want), "m = {kernel_m}");
        }
        let alone = train(&m, &rows, &[0], "cpu", &TrainOptions::default()).unwrap();
        assert!(matches!(&alone.tree.root, Node::Leaf { .. }), "{:?}", alone.tree.root);
    }

    #[test]
    fn leaves_name_the_configuration_of_least_slowdown() {
        // Config 0 is the fastest on 3 of 4 shapes by 1 %, and 5x slower on the fourth; config 1 is
        // never more than 1 % off. A one-leaf tree names config 1, whichever class has more weight.
        let problems: Vec<_> = (1..=40u64).map(|m| (0, m, 64, 64)).collect();
        let time = (1..=40u64).map(|m| if m % 4 == 0 { vec![5.0, 1.0] } else { vec![1.0, 1.01] }).collect();
        let m = toy(&[("d", "cpu")], &problems, time);
        let rows: Vec<usize> = (0..40).collect();
        let options = TrainOptions { depths: vec![1], min_leaf: vec![40], ..TrainOptions::default() };
        let trained = train(&m, &rows, &[0, 1], "cpu", &options).unwrap();
        assert!(matches!(&trained.tree.root, Node::Leaf { variant, .. } if *variant == m.configs[1].id()));
    }

    #[test]
    fn simplify_merges_equal_siblings() {
        let leaf =
            |v: &str| Node::Leaf { variant: v.into(), shapes: None, geomean_slowdown: None, worst_slowdown: None };
        let split = |le, gt| Node::Split {
            feature: "m".into(),
            threshold: 4,
            shapes: None,
            le: Box::new(le),
            gt: Box::new(gt),
        };
        assert_eq!(simplify(split(split(leaf("a"), leaf("a")), leaf("a"))), leaf("a"));
        let kept = split(leaf("a"), split(leaf("b"), leaf("b")));
        assert_eq!(simplify(kept), split(leaf("a"), leaf("b")));
    }

    #[test]
    fn bad_input_is_an_error() {
        let m = separable();
        assert!(matches!(train(&m, &[0], &[], "cpu", &TrainOptions::default()), Err(Error::Invalid(_))));
        assert!(matches!(train(&m, &[0], &[9], "cpu", &TrainOptions::default()), Err(Error::Invalid(_))));
        assert!(matches!(train(&m, &[99], &[0], "cpu", &TrainOptions::default()), Err(Error::Invalid(_))));
        assert!(matches!(
            train(&m, &[0], &[2], "cpu", &TrainOptions { folds: 1, ..TrainOptions::default() }),
            Err(Error::Invalid(_))
        ));
    }
}
