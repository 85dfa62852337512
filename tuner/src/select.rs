//! Choosing a few configurations that fit most problems ("portability tuning", Lawson et al.,
//! *A few fit most*), a shape train/test split, and a per-method comparison report.
//!
//! A *problem* is a row of [`Matrix`] (a device and a shape); its *oracle* is its fastest time over
//! all configurations. A set S of configurations is scored by one of two objectives:
//! - [`Objective::Geomean`] (the paper's eq. 1): the geometric mean over problems of
//!   `min_{v∈S} time(p, v) / oracle(p)`, a slowdown ≥ 1, lower is better.
//! - [`Objective::WeightedGeomean`]: the same with a weight per shape, `exp(Σ w(i)·ln s(i) / Σ w(i))`,
//!   for shapes a workload calls more often than others (decode steps against prefill, say).
//! - [`Objective::Fleet`] (eq. 2): the fleet rate `Σ_d w(d) / Σ_{i on d} w(i)·min_{v∈S} time(d, i)`,
//!   tasks per ms of a fleet holding w(d) devices like d whose task runs shape i w(i) times.
//!   It is scored as the slowdown `oracle rate / set rate` ≥ 1, so both objectives minimise.
//!
//! A problem that no configuration of S ran (all INFINITY) is *uncovered*. Scores compare
//! lexicographically: fewer uncovered problems first, then the slowdown over the covered ones, so
//! every method first makes sure each problem has some valid configuration. A problem with no
//! finite oracle is dropped before scoring.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;
use std::str::FromStr;

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

use super::dataset::{Matrix, Shape};
use super::error::{Error, Result};
use super::sweep::content_lines;
use fewfit_codegen::ShapeFeatures;

/// The most subsets [`Method::Exhaustive`] scores before refusing.
pub const EXHAUSTIVE_MAX_SUBSETS: u128 = 2_000_000;

/// k-means restarts (from different k-means++ seeds drawn from the one seed); the lowest inertia wins.
const KMEANS_RESTARTS: usize = 8;
/// The most Lloyd iterations of one k-means run.
const KMEANS_MAX_ITERATIONS: usize = 300;

/// A strict improvement must beat the incumbent by this relative margin (guards swap loops
/// against rounding noise).
const IMPROVEMENT: f64 = 1e-12;

/// How a set of configurations is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Method {
    /// Forward selection (add the configuration that improves the score most), then local search:
    /// swap one member for a non-member while that improves the score.
    Greedy,
    /// The paper's clustering: k-means (k = budget, k-means++ seeding, fixed seed, several restarts)
    /// over problems, each problem being its vector of normalised performance `oracle / time` per
    /// configuration (0 where invalid); each centroid contributes its highest-performing configuration.
    KMeans,
    /// The paper's decision-tree clustering: a regression tree on the kernel's shape features
    /// predicting the same normalised-performance vectors, grown best-first (largest squared-error
    /// reduction) to at most budget leaves; each leaf contributes the configuration with the
    /// highest mean normalised performance over its problems.
    Tree,
    /// Every subset of the budget's size; an error when there are more than
    /// [`EXHAUSTIVE_MAX_SUBSETS`]. The check on the heuristics.
    Exhaustive,
}

impl Method {
    /// Every method, in a stable order.
    pub const ALL: [Method; 4] = [Method::Greedy, Method::KMeans, Method::Tree, Method::Exhaustive];

    /// The method's command-line name.
    pub fn name(&self) -> &'static str {
        match self {
            Method::Greedy => "greedy",
            Method::KMeans => "kmeans",
            Method::Tree => "tree",
            Method::Exhaustive => "exhaustive",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Method {
    type Err = Error;

    fn from_str(s: &str) -> Result<Method> {
        Method::ALL.into_iter().find(|m| m.name() == s).ok_or_else(|| {
            Error::Invalid(format!("unknown selection method `{s}`; expected greedy, kmeans, tree or exhaustive"))
        })
    }
}

/// Weights of the fleet objective. Missing entries weigh 1.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FleetWeights {
    /// How many devices of each name (`DeviceRecord::name`) the fleet holds.
    pub device: BTreeMap<String, f64>,
    /// How many times a task runs each shape.
    pub shape: BTreeMap<Shape, f64>,
}

impl FleetWeights {
    /// Reads the fleet's devices from a file of `COUNT DEVICE NAME` lines (the count, then the
    /// device's name as the datasets record it, spaces included; `#` starts a comment). Devices it
    /// leaves out count 1.
    pub fn read_devices(path: &Path) -> Result<BTreeMap<String, f64>> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.into(), source })?;
        let mut devices = BTreeMap::new();
        for (number, line) in content_lines(&text) {
            let parse_error =
                |reason: String| Error::Parse { path: path.into(), reason: format!("line {number}: {reason}") };
            let (count, name) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
            let count: f64 =
                count.parse().ok().filter(|c: &f64| c.is_finite() && *c >= 0.0).ok_or_else(|| {
                    parse_error(format!("expected `COUNT DEVICE NAME` with a count >= 0, got `{line}`"))
                })?;
            let name = name.trim();
            if name.is_empty() {
                return Err(parse_error(format!("`{line}` names no device")));
            }
            if devices.insert(name.to_string(), count).is_some() {
                return Err(parse_error(format!("device `{name}` is counted twice")));
            }
        }
        if devices.is_empty() {
            return Err(Error::Parse { path: path.into(), reason: "no `COUNT DEVICE NAME` line".into() });
        }
        Ok(devices)
    }
}

/// What a selection minimises (see the module documentation).
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Objective {
    /// Geometric-mean slowdown against the oracle.
    #[default]
    Geomean,
    /// Weighted geometric-mean slowdown; shapes missing from the map weigh 1.
    WeightedGeomean(BTreeMap<Shape, f64>),
    /// Oracle fleet rate over the set's fleet rate.
    Fleet(FleetWeights),
}

/// The score of a set on some problems. Lower is better, comparing `uncovered` first.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Score {
    /// Problems that no configuration of the set ran.
    pub uncovered: usize,
    /// The objective over the covered problems as a slowdown ≥ 1 (infinite when none is covered).
    pub slowdown: f64,
}

impl Score {
    /// Whether `self` is strictly better than `other`.
    pub fn better_than(&self, other: &Score) -> bool {
        self.uncovered < other.uncovered
            || (self.uncovered == other.uncovered && self.slowdown < other.slowdown * (1.0 - IMPROVEMENT))
    }
}

/// What to select.
#[derive(Clone, Debug, PartialEq)]
pub struct SelectOptions {
    /// The method.
    pub method: Method,
    /// The most configurations in the shipped set (12 in fewfit).
    pub max_configs: usize,
    /// The most configurations any one device class may use (8 in fewfit); `None` for no limit.
    pub max_per_class: Option<usize>,
    /// Lower limits for named device classes (class → most configurations it may use), so that a
    /// class keeps the slots of the total that its own problems would otherwise give up to another.
    pub class_limits: BTreeMap<String, usize>,
    /// The objective.
    pub objective: Objective,
    /// The seed of the randomised methods (k-means).
    pub seed: u64,
}

impl Default for SelectOptions {
    fn default() -> Self {
        SelectOptions {
            method: Method::Greedy,
            max_configs: 12,
            max_per_class: Some(8),
            class_limits: BTreeMap::new(),
            objective: Objective::Geomean,
            seed: 42,
        }
    }
}

/// A selected set of configurations.
#[derive(Clone, Debug, PartialEq)]
pub struct SelectedSet {
    /// Column indices into [`Matrix::configs`], sorted.
    pub configs: Vec<usize>,
    /// The subset each device class uses (sorted column indices); each class's selector tree
    /// picks among these. Every class of the selection's problems is present.
    pub per_class: BTreeMap<String, Vec<usize>>,
    /// The score on the problems it was selected on.
    pub score: Score,
}

impl SelectedSet {
    /// The configurations a problem's device class may use: its class's subset, or the whole set
    /// for a class the selection did not see.
    pub fn configs_for(&self, matrix: &Matrix, row: usize) -> &[usize] {
        let class = &matrix.devices[matrix.problems[row].device].class;
        self.per_class.get(class).map_or(&self.configs[..], |v| &v[..])
    }

    /// Slowdown statistics of the best-in-set time against the oracle on some rows (each row
    /// using its class's subset).
    pub fn stats(&self, matrix: &Matrix, rows: &[usize]) -> Stats {
        Stats::of(matrix, rows, |row| best_of(matrix, row, self.configs_for(matrix, row)))
    }
}

/// Slowdown statistics of some choice of time per problem against the oracle.
#[derive(Clone, Debug, PartialEq)]
pub struct Stats {
    /// Problems counted (those with a finite oracle).
    pub problems: usize,
    /// Problems where the choice did not run (INFINITY): failures.
    pub failed: usize,
    /// Geometric-mean slowdown over the problems that did not fail (1 when there are none).
    pub geomean: f64,
    /// The worst non-failed problem (row index) and its slowdown.
    pub worst: Option<(usize, f64)>,
}

impl Stats {
    /// Statistics of `time(row)` against the oracle over `rows`; rows with no finite oracle are skipped.
    pub fn of(matrix: &Matrix, rows: &[usize], time: impl Fn(usize) -> f64) -> Stats {
        let mut stats = Stats { problems: 0, failed: 0, geomean: 1.0, worst: None };
        let mut log_sum = 0.0;
        for &row in rows {
            let oracle = matrix.row_oracle(row);
            if !oracle.is_finite() {
                continue;
            }
            stats.problems += 1;
            let t = time(row);
            if !t.is_finite() {
                stats.failed += 1;
                continue;
            }
            let s = t / oracle;
            log_sum += s.ln();
            if stats.worst.is_none_or(|(_, w)| s > w) {
                stats.worst = Some((row, s));
            }
        }
        let ok = stats.problems - stats.failed;
        if ok > 0 {
            stats.geomean = (log_sum / ok as f64).exp();
        }
        stats
    }

    /// The statistics as one line, naming the worst problem by shape and device.
    pub fn describe(&self, matrix: &Matrix) -> String {
        let mut s = format!("geomean {:.3}", self.geomean);
        match self.worst {
            Some((row, w)) => {
                let p = &matrix.problems[row];
                s.push_str(&format!(", worst {w:.3} ({} on {})", p.shape, matrix.devices[p.device].label()));
            }
            None => s.push_str(", worst -"),
        }
        if self.failed > 0 {
            s.push_str(&format!(", {} of {} failed", self.failed, self.problems));
        }
        s
    }
}

/// Chooses at most `options.max_configs` configurations on some rows of the matrix (all rows for
/// `None`, the training split's rows typically).
///
/// The per-class limit: when `max_per_class` is below `max_configs` or `class_limits` names a class,
/// the method runs on each device class's problems alone with the class's budget (its
/// `class_limits` entry, at most `max_per_class`), and the union is kept if it fits. If it does
/// not, configurations are removed from the union one at a time, each time the one whose removal
/// costs least, where a candidate union is scored by letting each class pick its best subset of its
/// budget from it (greedy with swaps). Selecting per class first keeps each class as good as the
/// method makes it alone; the elimination trades between classes only when the total budget binds.
/// The final per-class subsets of an eliminated union come from greedy.
pub fn select(matrix: &Matrix, rows: Option<&[usize]>, options: &SelectOptions) -> Result<SelectedSet> {
    if options.max_configs == 0 {
        return Err(Error::Invalid("the number of configurations to select must be at least 1".into()));
    }
    if options.max_per_class == Some(0) {
        return Err(Error::Invalid("the per-class limit must be at least 1".into()));
    }
    if let Some((class, _)) = options.class_limits.iter().find(|(_, &limit)| limit == 0) {
        return Err(Error::Invalid(format!("the limit of device class `{class}` must be at least 1")));
    }
    let all = Problems::new(matrix, rows, &options.objective)?;
    let pool: Vec<usize> = (0..matrix.configs.len()).collect();
    let mut classes: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for &row in &all.rows {
        classes.entry(matrix.devices[matrix.problems[row].device].class.clone()).or_default().push(row);
    }
    if let Some(class) = options.class_limits.keys().find(|&c| !classes.contains_key(c)) {
        let known: Vec<&str> = classes.keys().map(String::as_str).collect();
        return Err(Error::Invalid(format!(
            "a limit names device class `{class}`, which the data does not hold (it holds {})",
            known.join(", ")
        )));
    }
    let default_budget = options.max_per_class.map_or(options.max_configs, |m| m.min(options.max_configs));
    if default_budget == options.max_configs && options.class_limits.is_empty() {
        let set = run_method(&all, &pool, options.max_configs, options)?;
        let per_class = classes.keys().map(|c| (c.clone(), set.clone())).collect();
        return Ok(finish(&all, set, per_class));
    }
    let budget = |class: &str| options.class_limits.get(class).map_or(default_budget, |&l| l.min(default_budget));
    let class_problems: Vec<(String, Problems)> = classes
        .iter()
        .map(|(c, r)| Ok((c.clone(), Problems::new(matrix, Some(r), &options.objective)?)))
        .collect::<Result<_>>()?;
    let mut per_class = BTreeMap::new();
    for (class, problems) in &class_problems {
        per_class.insert(class.clone(), run_method(problems, &pool, budget(class), options)?);
    }
    let union: BTreeSet<usize> = per_class.values().flatten().copied().collect();
    if union.len() <= options.max_configs {
        return Ok(finish(&all, union.into_iter().collect(), per_class));
    }
    let mut union: Vec<usize> = union.into_iter().collect();
    let assign = |set: &[usize]| -> BTreeMap<String, Vec<usize>> {
        class_problems.iter().map(|(c, p)| (c.clone(), greedy(p, set, budget(c)))).collect()
    };
    while union.len() > options.max_configs {
        let mut best: Option<(usize, Score)> = None;
        for i in 0..union.len() {
            let mut rest = union.clone();
            rest.remove(i);
            let score = all.score_assigned(&assign(&rest));
            if best.is_none_or(|(_, b)| score.better_than(&b)) {
                best = Some((i, score));
            }
        }
        let (i, _) = best.ok_or_else(|| Error::Data("nothing to remove from the selection".into()))?;
        union.remove(i);
    }
    let per_class = assign(&union);
    Ok(finish(&all, union, per_class))
}

fn finish(all: &Problems, mut set: Vec<usize>, mut per_class: BTreeMap<String, Vec<usize>>) -> SelectedSet {
    set.sort_unstable();
    set.dedup();
    for v in per_class.values_mut() {
        v.sort_unstable();
        v.dedup();
    }
    let score = all.score_assigned(&per_class);
    SelectedSet { configs: set, per_class, score }
}

fn run_method(problems: &Problems, pool: &[usize], budget: usize, options: &SelectOptions) -> Result<Vec<usize>> {
    Ok(match options.method {
        Method::Greedy => greedy(problems, pool, budget),
        Method::KMeans => kmeans(problems, pool, budget, options.seed),
        Method::Tree => tree_clusters(problems, pool, budget),
        Method::Exhaustive => exhaustive(problems, pool, budget)?,
    })
}

/// The problems a selection is scored on, with what scoring needs precomputed.
struct Problems<'a> {
    matrix: &'a Matrix,
    /// Rows with a finite oracle.
    rows: Vec<usize>,
    /// Their oracle times.
    oracle: Vec<f64>,
    /// For the (weighted) geometric mean: per row, its shape's weight (all 1 for [`Objective::Geomean`]).
    weight: Vec<f64>,
    /// For the fleet objective: per row, its device's index in `fleet_devices`, and its shape weight.
    fleet: Option<Fleet>,
}

/// A weight from a map of weights: 1 when missing, an error unless finite and non-negative.
fn weight_of<K: Ord>(weights: &BTreeMap<K, f64>, key: &K) -> Result<f64> {
    match weights.get(key).copied() {
        None => Ok(1.0),
        Some(v) if v.is_finite() && v >= 0.0 => Ok(v),
        Some(v) => Err(Error::Invalid(format!("weight {v} must be finite and non-negative"))),
    }
}

struct Fleet {
    device_of: Vec<usize>,
    device_weight: Vec<f64>,
    shape_weight: Vec<f64>,
}

impl<'a> Problems<'a> {
    fn new(matrix: &'a Matrix, rows: Option<&[usize]>, objective: &Objective) -> Result<Problems<'a>> {
        let candidates: Vec<usize> = match rows {
            Some(r) => r.to_vec(),
            None => (0..matrix.problems.len()).collect(),
        };
        if let Some(&bad) =
            candidates.iter().find(|&&r| r >= matrix.problems.len() || matrix.time[r].len() != matrix.configs.len())
        {
            return Err(Error::Invalid(format!("problem row {bad} is not a full row of the matrix")));
        }
        let rows: Vec<usize> = candidates.into_iter().filter(|&r| matrix.row_oracle(r).is_finite()).collect();
        if rows.is_empty() {
            return Err(Error::Data("no problem has a valid measurement".into()));
        }
        let oracle = rows.iter().map(|&r| matrix.row_oracle(r)).collect();
        let weight = match objective {
            Objective::WeightedGeomean(w) => {
                rows.iter().map(|&r| weight_of(w, &matrix.problems[r].shape)).collect::<Result<_>>()?
            }
            _ => vec![1.0; rows.len()],
        };
        let fleet = match objective {
            Objective::Geomean | Objective::WeightedGeomean(_) => None,
            Objective::Fleet(w) => {
                if let Some(name) = w.device.keys().find(|name| !matrix.devices.iter().any(|d| &d.name == *name)) {
                    let known: BTreeSet<&str> = matrix.devices.iter().map(|d| d.name.as_str()).collect();
                    return Err(Error::Invalid(format!(
                        "fleet device `{name}` has no records in the data (its devices: {})",
                        known.into_iter().collect::<Vec<_>>().join(", ")
                    )));
                }
                let devices: Vec<usize> =
                    rows.iter().map(|&r| matrix.problems[r].device).collect::<BTreeSet<_>>().into_iter().collect();
                Some(Fleet {
                    device_of: rows
                        .iter()
                        .map(|&r| devices.binary_search(&matrix.problems[r].device).unwrap_or(0))
                        .collect(),
                    device_weight: devices
                        .iter()
                        .map(|&d| weight_of(&w.device, &matrix.devices[d].name))
                        .collect::<Result<_>>()?,
                    shape_weight: rows
                        .iter()
                        .map(|&r| weight_of(&w.shape, &matrix.problems[r].shape))
                        .collect::<Result<_>>()?,
                })
            }
        };
        Ok(Problems { matrix, rows, oracle, weight, fleet })
    }

    fn time(&self, i: usize, config: usize) -> f64 {
        self.matrix.time[self.rows[i]][config]
    }

    /// The best time of each problem over a set.
    fn best(&self, set: &[usize]) -> Vec<f64> {
        (0..self.rows.len()).map(|i| set.iter().map(|&v| self.time(i, v)).fold(f64::INFINITY, f64::min)).collect()
    }

    /// The score of per-problem best times.
    fn score_best(&self, best: &[f64]) -> Score {
        let uncovered = best.iter().filter(|t| !t.is_finite()).count();
        if uncovered == self.rows.len() {
            return Score { uncovered, slowdown: f64::INFINITY };
        }
        let slowdown = match &self.fleet {
            None => {
                let (mut sum, mut weights) = (0.0, 0.0);
                for ((t, o), w) in best.iter().zip(&self.oracle).zip(&self.weight) {
                    if t.is_finite() {
                        sum += w * (t / o).ln();
                        weights += w;
                    }
                }
                if weights > 0.0 {
                    (sum / weights).exp()
                } else {
                    1.0
                }
            }
            Some(f) => {
                let mut set_time = vec![0.0; f.device_weight.len()];
                let mut oracle_time = vec![0.0; f.device_weight.len()];
                for (i, t) in best.iter().enumerate() {
                    if t.is_finite() {
                        set_time[f.device_of[i]] += f.shape_weight[i] * t;
                        oracle_time[f.device_of[i]] += f.shape_weight[i] * self.oracle[i];
                    }
                }
                let rate = |times: &[f64]| -> f64 {
                    times.iter().zip(&f.device_weight).filter(|(t, _)| **t > 0.0).map(|(t, w)| w / t).sum()
                };
                let (set_rate, oracle_rate) = (rate(&set_time), rate(&oracle_time));
                if set_rate > 0.0 {
                    oracle_rate / set_rate
                } else {
                    1.0
                }
            }
        };
        Score { uncovered, slowdown }
    }

    fn score(&self, set: &[usize]) -> Score {
        self.score_best(&self.best(set))
    }

    /// The score when each problem uses its class's subset.
    fn score_assigned(&self, per_class: &BTreeMap<String, Vec<usize>>) -> Score {
        let best: Vec<f64> = self
            .rows
            .iter()
            .map(|&r| {
                let class = &self.matrix.devices[self.matrix.problems[r].device].class;
                per_class.get(class).map_or(f64::INFINITY, |set| best_of(self.matrix, r, set))
            })
            .collect();
        self.score_best(&best)
    }

    /// Normalised performance `oracle / time` of problem i (0 where invalid), over the pool.
    fn performance(&self, i: usize, pool: &[usize]) -> Vec<f64> {
        pool.iter()
            .map(|&v| {
                let t = self.time(i, v);
                if t.is_finite() {
                    self.oracle[i] / t
                } else {
                    0.0
                }
            })
            .collect()
    }
}

fn best_of(matrix: &Matrix, row: usize, set: &[usize]) -> f64 {
    set.iter().filter_map(|&v| matrix.time[row].get(v)).copied().fold(f64::INFINITY, f64::min)
}

/// Forward selection then best-improvement swaps, all ties to the lowest index: deterministic.
fn greedy(p: &Problems, pool: &[usize], budget: usize) -> Vec<usize> {
    let mut set: Vec<usize> = Vec::new();
    let mut best = vec![f64::INFINITY; p.rows.len()];
    let mut current = p.score_best(&best);
    while set.len() < budget {
        let mut choice: Option<(usize, Score)> = None;
        for &v in pool.iter().filter(|v| !set.contains(v)) {
            let trial: Vec<f64> = best.iter().enumerate().map(|(i, b)| b.min(p.time(i, v))).collect();
            let score = p.score_best(&trial);
            if score.better_than(choice.as_ref().map_or(&current, |(_, s)| s)) {
                choice = Some((v, score));
            }
        }
        let Some((v, score)) = choice else { break };
        set.push(v);
        best.iter_mut().enumerate().for_each(|(i, b)| *b = b.min(p.time(i, v)));
        current = score;
    }
    loop {
        let mut improved = false;
        for slot in 0..set.len() {
            let others: Vec<usize> = set.iter().enumerate().filter(|(j, _)| *j != slot).map(|(_, &v)| v).collect();
            let without = p.best(&others);
            let mut choice: Option<(usize, Score)> = None;
            for &v in pool.iter().filter(|v| !set.contains(v)) {
                let trial: Vec<f64> = without.iter().enumerate().map(|(i, b)| b.min(p.time(i, v))).collect();
                let score = p.score_best(&trial);
                if score.better_than(choice.as_ref().map_or(&current, |(_, s)| s)) {
                    choice = Some((v, score));
                }
            }
            if let Some((v, score)) = choice {
                set[slot] = v;
                current = score;
                improved = true;
            }
        }
        if !improved {
            break;
        }
    }
    set
}

/// The best subset of size min(budget, pool) by enumeration (scores never worsen as a set grows,
/// so the largest size suffices).
fn exhaustive(p: &Problems, pool: &[usize], budget: usize) -> Result<Vec<usize>> {
    let k = budget.min(pool.len());
    let n = pool.len();
    let mut count: u128 = 1;
    for i in 0..k {
        count = count * (n - i) as u128 / (i + 1) as u128;
        if count > EXHAUSTIVE_MAX_SUBSETS {
            return Err(Error::Invalid(format!(
                "exhaustive selection of {k} of {n} configurations needs more than {EXHAUSTIVE_MAX_SUBSETS} subsets; use greedy"
            )));
        }
    }
    let mut index: Vec<usize> = (0..k).collect();
    let mut best: Option<(Vec<usize>, Score)> = None;
    loop {
        let set: Vec<usize> = index.iter().map(|&i| pool[i]).collect();
        let score = p.score(&set);
        if best.as_ref().is_none_or(|(_, b)| score.better_than(b)) {
            best = Some((set, score));
        }
        // The next combination in lexicographic order.
        let Some(i) = (0..k).rev().find(|&i| index[i] < n - k + i) else { break };
        index[i] += 1;
        for j in i + 1..k {
            index[j] = index[j - 1] + 1;
        }
    }
    Ok(best.map(|(s, _)| s).unwrap_or_default())
}

fn squared_distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
}

/// The pool member with the highest value in a performance vector (lowest index on ties).
fn argmax(pool: &[usize], values: &[f64]) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (&v, &x) in pool.iter().zip(values) {
        if best.is_none_or(|(_, b)| x > b) {
            best = Some((v, x));
        }
    }
    best.map(|(v, _)| v)
}

/// k-means over problems' normalised-performance vectors; each centroid's best configuration.
fn kmeans(p: &Problems, pool: &[usize], budget: usize, seed: u64) -> Vec<usize> {
    let points: Vec<Vec<f64>> = (0..p.rows.len()).map(|i| p.performance(i, pool)).collect();
    let k = budget.min(points.len());
    let mut rng = StdRng::seed_from_u64(seed);
    let mut best: Option<(f64, Vec<Vec<f64>>)> = None;
    for _ in 0..KMEANS_RESTARTS {
        let (inertia, centroids) = kmeans_run(&points, k, &mut rng);
        if best.as_ref().is_none_or(|(b, _)| inertia < *b) {
            best = Some((inertia, centroids));
        }
    }
    let mut set: Vec<usize> = best.map(|(_, c)| c).unwrap_or_default().iter().filter_map(|c| argmax(pool, c)).collect();
    set.sort_unstable();
    set.dedup();
    set
}

/// One k-means++-seeded Lloyd run: (inertia, centroids).
fn kmeans_run(points: &[Vec<f64>], k: usize, rng: &mut StdRng) -> (f64, Vec<Vec<f64>>) {
    let mut centroids: Vec<Vec<f64>> = Vec::with_capacity(k);
    centroids.push(points[rng.gen_range(0..points.len())].clone());
    let mut d2: Vec<f64> = points.iter().map(|x| squared_distance(x, &centroids[0])).collect();
    while centroids.len() < k {
        let total: f64 = d2.iter().sum();
        let next = if total > 0.0 {
            let mut target = rng.gen::<f64>() * total;
            let mut pick = points.len() - 1;
            for (i, d) in d2.iter().enumerate() {
                if target < *d {
                    pick = i;
                    break;
                }
                target -= d;
            }
            pick
        } else {
            // Every point coincides with a centroid: fewer distinct points than k.
            break;
        };
        centroids.push(points[next].clone());
        for (d, x) in d2.iter_mut().zip(points) {
            *d = d.min(squared_distance(x, &centroids[centroids.len() - 1]));
        }
    }
    let mut assignment = vec![usize::MAX; points.len()];
    for _ in 0..KMEANS_MAX_ITERATIONS {
        let mut changed = false;
        for (x, a) in points.iter().zip(assignment.iter_mut()) {
            let nearest = nearest(x, &centroids);
            if nearest != *a {
                *a = nearest;
                changed = true;
            }
        }
        if !changed {
            break;
        }
        for (c, centroid) in centroids.iter_mut().enumerate() {
            let members: Vec<&Vec<f64>> =
                points.iter().zip(&assignment).filter(|(_, &a)| a == c).map(|(x, _)| x).collect();
            if members.is_empty() {
                continue; // an empty cluster keeps its centroid
            }
            for (j, value) in centroid.iter_mut().enumerate() {
                *value = members.iter().map(|x| x[j]).sum::<f64>() / members.len() as f64;
            }
        }
    }
    let inertia = points.iter().zip(&assignment).map(|(x, &a)| squared_distance(x, &centroids[a])).sum();
    (inertia, centroids)
}

fn nearest(x: &[f64], centroids: &[Vec<f64>]) -> usize {
    let mut best = (0, f64::INFINITY);
    for (c, centroid) in centroids.iter().enumerate() {
        let d = squared_distance(x, centroid);
        if d < best.1 {
            best = (c, d);
        }
    }
    best.0
}

/// The best split of a set of problems for the regression tree: (squared-error reduction,
/// feature, threshold, left members, right members).
type RegressionSplit = (f64, usize, u64, Vec<usize>, Vec<usize>);

/// Regression-tree clustering grown best-first to at most `budget` leaves.
fn tree_clusters(p: &Problems, pool: &[usize], budget: usize) -> Vec<usize> {
    let targets: Vec<Vec<f64>> = (0..p.rows.len()).map(|i| p.performance(i, pool)).collect();
    let features: Vec<[u64; ShapeFeatures::COUNT]> =
        p.rows.iter().map(|&r| p.matrix.kernel_features(r).values()).collect();
    let mut leaves: Vec<(Vec<usize>, Option<RegressionSplit>)> = Vec::new();
    let all: Vec<usize> = (0..targets.len()).collect();
    let split = best_regression_split(&all, &features, &targets);
    leaves.push((all, split));
    while leaves.len() < budget {
        let Some(at) = (0..leaves.len()).filter(|&i| leaves[i].1.is_some()).max_by(|&a, &b| {
            let gain = |i: usize| leaves[i].1.as_ref().map_or(0.0, |s| s.0);
            gain(a).total_cmp(&gain(b)).then(b.cmp(&a))
        }) else {
            break;
        };
        let (_, split) = leaves.swap_remove(at);
        let Some((_, _, _, left, right)) = split else { break };
        for side in [left, right] {
            let split = best_regression_split(&side, &features, &targets);
            leaves.push((side, split));
        }
    }
    let mut set: Vec<usize> = leaves
        .iter()
        .filter_map(|(members, _)| {
            let mean: Vec<f64> = (0..pool.len())
                .map(|j| members.iter().map(|&i| targets[i][j]).sum::<f64>() / members.len() as f64)
                .collect();
            argmax(pool, &mean)
        })
        .collect();
    set.sort_unstable();
    set.dedup();
    set
}

fn best_regression_split(
    members: &[usize],
    features: &[[u64; ShapeFeatures::COUNT]],
    targets: &[Vec<f64>],
) -> Option<RegressionSplit> {
    let n = members.len();
    let dims = targets.first().map_or(0, Vec::len);
    if n < 2 || dims == 0 {
        return None;
    }
    let mut total = vec![0.0; dims];
    for &i in members {
        total.iter_mut().zip(&targets[i]).for_each(|(t, x)| *t += x);
    }
    let norm2 = |v: &[f64]| -> f64 { v.iter().map(|x| x * x).sum() };
    let base = norm2(&total) / n as f64;
    let mut best: Option<(f64, usize, u64)> = None;
    for (f, _) in ShapeFeatures::NAMES.iter().enumerate() {
        let mut order = members.to_vec();
        order.sort_by_key(|&i| (features[i][f], i));
        let mut left = vec![0.0; dims];
        for pos in 0..n - 1 {
            let i = order[pos];
            left.iter_mut().zip(&targets[i]).for_each(|(l, x)| *l += x);
            let (value, next) = (features[i][f], features[order[pos + 1]][f]);
            if value == next {
                continue;
            }
            let right: Vec<f64> = total.iter().zip(&left).map(|(t, l)| t - l).collect();
            let (nl, nr) = ((pos + 1) as f64, (n - pos - 1) as f64);
            let gain = norm2(&left) / nl + norm2(&right) / nr - base;
            if gain > 1e-12 && best.is_none_or(|(g, _, _)| gain > g) {
                best = Some((gain, f, value));
            }
        }
    }
    let (gain, f, threshold) = best?;
    let (left, right) = members.iter().partition(|&&i| features[i][f] <= threshold);
    Some((gain, f, threshold, left, right))
}

/// A train/test split of shapes: every problem of a shape (on every device) falls on one side.
#[derive(Clone, Debug, PartialEq)]
pub struct Split {
    /// Rows of training problems.
    pub train: Vec<usize>,
    /// Rows of test problems.
    pub test: Vec<usize>,
    /// The held-out shapes, sorted.
    pub test_shapes: Vec<Shape>,
}

/// Splits the matrix's distinct shapes at random (seeded): `test_fraction` of them (rounded,
/// at least one on each side) go to the test side.
pub fn split_shapes(matrix: &Matrix, test_fraction: f64, seed: u64) -> Result<Split> {
    if !(test_fraction > 0.0 && test_fraction < 1.0) {
        return Err(Error::Invalid(format!("test fraction {test_fraction} must lie strictly between 0 and 1")));
    }
    let mut shapes: Vec<Shape> = matrix.problems.iter().map(|p| p.shape).collect::<BTreeSet<_>>().into_iter().collect();
    if shapes.len() < 2 {
        return Err(Error::Data(format!("{} distinct shape(s); a split needs at least 2", shapes.len())));
    }
    shapes.shuffle(&mut StdRng::seed_from_u64(seed));
    let n_test = ((shapes.len() as f64 * test_fraction).round() as usize).clamp(1, shapes.len() - 1);
    let mut test_shapes = shapes[..n_test].to_vec();
    test_shapes.sort();
    let (test, train) =
        (0..matrix.problems.len()).partition(|&r| test_shapes.binary_search(&matrix.problems[r].shape).is_ok());
    Ok(Split { train, test, test_shapes })
}

/// One method's selection and how it does on both sides of a split.
#[derive(Clone, Debug, PartialEq)]
pub struct MethodReport {
    /// The method.
    pub method: Method,
    /// What it selected on the training rows.
    pub selected: SelectedSet,
    /// Best-in-set slowdown on the training rows.
    pub train: Stats,
    /// Best-in-set slowdown on the test rows.
    pub test: Stats,
}

/// The comparison of methods on one split.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// One report per method, in the order asked.
    pub methods: Vec<MethodReport>,
    /// The single configuration with the best training score (the baseline).
    pub best_single: usize,
    /// Its training statistics.
    pub best_single_train: Stats,
    /// Its test statistics.
    pub best_single_test: Stats,
}

/// Runs each method on the split's training rows (other options as given) and reports train and
/// test slowdowns against the best single configuration.
pub fn compare(matrix: &Matrix, split: &Split, methods: &[Method], options: &SelectOptions) -> Result<Comparison> {
    let mut reports = Vec::new();
    for &method in methods {
        let selected = select(matrix, Some(&split.train), &SelectOptions { method, ..options.clone() })?;
        let (train, test) = (selected.stats(matrix, &split.train), selected.stats(matrix, &split.test));
        reports.push(MethodReport { method, selected, train, test });
    }
    let train = Problems::new(matrix, Some(&split.train), &options.objective)?;
    let pool: Vec<usize> = (0..matrix.configs.len()).collect();
    let best_single = exhaustive(&train, &pool, 1)?
        .first()
        .copied()
        .ok_or_else(|| Error::Data("the matrix has no configuration".into()))?;
    Ok(Comparison {
        methods: reports,
        best_single,
        best_single_train: Stats::of(matrix, &split.train, |r| matrix.time[r][best_single]),
        best_single_test: Stats::of(matrix, &split.test, |r| matrix.time[r][best_single]),
    })
}

impl Comparison {
    /// A plain-text table: one line per method and the single-configuration baseline.
    pub fn describe(&self, matrix: &Matrix) -> String {
        let mut out = String::new();
        for r in &self.methods {
            out.push_str(&format!(
                "{:<11} {:>2} configs  train: {}\n{:<26}test:  {}\n",
                r.method.name(),
                r.selected.configs.len(),
                r.train.describe(matrix),
                "",
                r.test.describe(matrix)
            ));
        }
        out.push_str(&format!(
            "{:<11} {:>2} config   train: {}\n{:<26}test:  {}\n{:<26}({})\n",
            "single",
            1,
            self.best_single_train.describe(matrix),
            "",
            self.best_single_test.describe(matrix),
            "",
            matrix.configs[self.best_single].id()
        ));
        out
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::dataset::{Config, DeviceRecord, Problem};

    /// A matrix of toy devices `(name, class)`, problems `(device, m, n, k)` and times (`INF`: a
    /// failure; NaN: not measured).
    pub(crate) fn toy(devices: &[(&str, &str)], problems: &[(usize, u64, u64, u64)], time: Vec<Vec<f64>>) -> Matrix {
        let width = time.first().map_or(0, Vec::len);
        let recorded = time.iter().map(|row| row.iter().map(|t| !t.is_nan()).collect()).collect();
        let time =
            time.into_iter().map(|row| row.into_iter().map(|t| if t.is_nan() { INF } else { t }).collect()).collect();
        Matrix {
            precision: "f32".into(),
            devices: devices
                .iter()
                .map(|(n, c)| DeviceRecord {
                    name: n.to_string(),
                    vendor: "v".into(),
                    driver: "1".into(),
                    class: c.to_string(),
                    machine: None,
                    layout: None,
                    compute_units: None,
                })
                .collect(),
            problems: problems.iter().map(|&(device, m, n, k)| Problem { device, shape: Shape { m, n, k } }).collect(),
            configs: (0..width)
                .map(|i| Config { kernel: "toy".into(), params: [("A".to_string(), i as i64)].into() })
                .collect(),
            time,
            recorded,
        }
    }

    const INF: f64 = f64::INFINITY;

    fn options(method: Method, max_configs: usize) -> SelectOptions {
        SelectOptions { method, max_configs, max_per_class: None, ..SelectOptions::default() }
    }

    /// Config 0 is decent everywhere (the best single), 1 and 2 are perfect on half each, 3 is
    /// a distraction: forward selection builds {0, 1}, and the swap phase finds {1, 2}.
    fn swap_case() -> Matrix {
        let t = vec![
            vec![1.2, 1.0, 3.0, 4.0],
            vec![1.2, 1.0, 3.0, 4.0],
            vec![1.2, 1.0, 3.0, 1.1],
            vec![1.2, 3.0, 1.0, 4.0],
            vec![1.2, 3.0, 1.0, 4.0],
            vec![1.2, 3.0, 1.0, 1.1],
        ];
        let problems: Vec<_> = (0..6).map(|i| (0, 8 << i, 8, 8)).collect();
        toy(&[("d", "cpu")], &problems, t)
    }

    #[test]
    fn greedy_matches_exhaustive_thanks_to_swaps() {
        let m = swap_case();
        let g = select(&m, None, &options(Method::Greedy, 2)).unwrap();
        let e = select(&m, None, &options(Method::Exhaustive, 2)).unwrap();
        assert_eq!(g.configs, vec![1, 2]);
        assert_eq!(g.configs, e.configs);
        assert_eq!(g.score, e.score);
        assert_eq!(g.score.uncovered, 0);
        assert!((g.score.slowdown - 1.0).abs() < 1e-12, "{}", g.score.slowdown);
        let one = select(&m, None, &options(Method::Exhaustive, 1)).unwrap();
        assert_eq!(one.configs, vec![0]);
    }

    #[test]
    fn exhaustive_refuses_too_many_subsets() {
        let m = toy(&[("d", "cpu")], &[(0, 1, 1, 1)], vec![vec![1.0; 200]]);
        assert!(matches!(select(&m, None, &options(Method::Exhaustive, 6)), Err(Error::Invalid(_))));
        assert!(matches!(select(&m, None, &options(Method::Greedy, 0)), Err(Error::Invalid(_))));
    }

    #[test]
    fn coverage_comes_first_and_dead_rows_are_dropped() {
        // Row 2 has no valid config at all: dropped. Config 0 is fast but invalid on row 1.
        let t = vec![vec![1.0, 2.0, INF], vec![INF, 2.0, 9.0], vec![INF, INF, INF]];
        let m = toy(&[("d", "cpu")], &[(0, 1, 1, 1), (0, 2, 1, 1), (0, 3, 1, 1)], t);
        let s = select(&m, None, &options(Method::Greedy, 1)).unwrap();
        assert_eq!(s.configs, vec![1]);
        assert_eq!(s.score.uncovered, 0);
        assert!((s.score.slowdown - 2.0f64.sqrt()).abs() < 1e-12);
        assert!(matches!(select(&m, Some(&[2]), &options(Method::Greedy, 1)), Err(Error::Data(_))));
    }

    /// Two well-separated groups of problems: small shapes want config 0, large ones config 2.
    fn two_groups() -> Matrix {
        let mut problems = Vec::new();
        let mut t = Vec::new();
        for i in 0..5u64 {
            problems.push((0, 16 + i, 16, 16));
            t.push(vec![1.0, 1.5 + 0.1 * i as f64, 5.0, 4.0]);
            problems.push((0, 4096 + i, 4096, 4096));
            t.push(vec![6.0, 2.5, 1.0 + 0.01 * i as f64, 3.0]);
        }
        toy(&[("d", "cpu")], &problems, t)
    }

    #[test]
    fn kmeans_is_deterministic_and_finds_the_clusters() {
        let m = two_groups();
        let a = select(&m, None, &options(Method::KMeans, 2)).unwrap();
        let b = select(&m, None, &options(Method::KMeans, 2)).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.configs, vec![0, 2]);
    }

    #[test]
    fn tree_clustering_splits_by_shape() {
        let m = two_groups();
        let s = select(&m, None, &options(Method::Tree, 2)).unwrap();
        assert_eq!(s.configs, vec![0, 2]);
        assert!((s.score.slowdown - 1.0).abs() < 1e-12);
        let one = select(&m, None, &options(Method::Tree, 1)).unwrap();
        assert_eq!(one.configs.len(), 1);
    }

    #[test]
    fn per_class_limit_trades_between_classes() {
        // Class a wants {0, 1}, class b wants {2, 3}; at most 3 in total, 2 per class. Removing 3
        // from the union costs least (class b falls back to 1, 1.5x on one problem).
        let t = vec![
            vec![1.0, 9.0, 9.0, 9.0],
            vec![9.0, 1.0, 9.0, 9.0],
            vec![3.0, 9.0, 1.0, 9.0],
            vec![9.0, 1.5, 9.0, 1.0],
        ];
        let m = toy(&[("x", "a"), ("y", "b")], &[(0, 1, 1, 1), (0, 2, 1, 1), (1, 1, 1, 1), (1, 2, 1, 1)], t);
        let opts = SelectOptions { max_configs: 3, max_per_class: Some(2), ..options(Method::Greedy, 3) };
        let s = select(&m, None, &opts).unwrap();
        assert_eq!(s.configs, vec![0, 1, 2]);
        assert_eq!(s.per_class["a"], vec![0, 1]);
        assert_eq!(s.per_class["b"], vec![1, 2]);
        let expected = (1.5f64).powf(0.25);
        assert!((s.score.slowdown - expected).abs() < 1e-12, "{:?}", s);
        let loose = select(&m, None, &SelectOptions { max_configs: 4, ..opts.clone() }).unwrap();
        assert_eq!(loose.per_class["b"], vec![2, 3]);
        // Class a limited to 1 keeps config 0 alone (2 of its problems at 9x and 1x: 3x geomean),
        // and class b gets both of its own.
        let limits = BTreeMap::from([("a".to_string(), 1)]);
        let limited = select(&m, None, &SelectOptions { class_limits: limits, ..opts.clone() }).unwrap();
        assert_eq!(limited.per_class["a"].len(), 1);
        assert_eq!(limited.per_class["b"], vec![2, 3]);
        assert_eq!(limited.configs.len(), 3);
        let zero = BTreeMap::from([("b".to_string(), 0)]);
        assert!(matches!(
            select(&m, None, &SelectOptions { class_limits: zero, ..opts.clone() }),
            Err(Error::Invalid(_))
        ));
        let unknown = BTreeMap::from([("c".to_string(), 1)]);
        assert!(matches!(select(&m, None, &SelectOptions { class_limits: unknown, ..opts }), Err(Error::Invalid(_))));
    }

    #[test]
    fn weighted_geomean_by_hand_and_it_moves_the_choice() {
        // Config 0 is perfect on shapes 1 and 2, 4x slower on shape 3; config 1 is 2x slower on
        // 1 and 2, perfect on 3. Unweighted, one config: 0 (geomean 4^(1/3) < 2^(2/3)).
        let t = vec![vec![1.0, 2.0], vec![1.0, 2.0], vec![4.0, 1.0]];
        let m = toy(&[("x", "a")], &[(0, 1, 1, 1), (0, 2, 1, 1), (0, 3, 1, 1)], t);
        let plain = select(&m, None, &options(Method::Greedy, 1)).unwrap();
        assert_eq!(plain.configs, vec![0]);
        assert!((plain.score.slowdown - 4f64.powf(1.0 / 3.0)).abs() < 1e-12);
        // Shape 3 weighs 3, shape 2 nothing: config 0 scores 4^(3/4), config 1 2^(1/4).
        let weights: BTreeMap<Shape, f64> =
            [(Shape { m: 3, n: 1, k: 1 }, 3.0), (Shape { m: 2, n: 1, k: 1 }, 0.0)].into();
        let opts = SelectOptions { objective: Objective::WeightedGeomean(weights), ..options(Method::Greedy, 1) };
        let weighted = select(&m, None, &opts).unwrap();
        assert_eq!(weighted.configs, vec![1]);
        assert!((weighted.score.slowdown - 2f64.powf(0.25)).abs() < 1e-12, "{:?}", weighted.score);
        let bad = Objective::WeightedGeomean([(Shape { m: 3, n: 1, k: 1 }, -1.0)].into());
        assert!(matches!(Problems::new(&m, None, &bad), Err(Error::Invalid(_))));
    }

    #[test]
    fn fleet_rate_by_hand() {
        // Device x (weight 3): shapes s1 (w 1), s2 (w 2). Device y (weight 1): s1.
        let t = vec![vec![1.0, 2.0], vec![4.0, 2.0], vec![3.0, 1.0]];
        let m = toy(&[("x", "a"), ("y", "a")], &[(0, 1, 1, 1), (0, 2, 1, 1), (1, 1, 1, 1)], t);
        let w =
            FleetWeights { device: [("x".to_string(), 3.0)].into(), shape: [(Shape { m: 2, n: 1, k: 1 }, 2.0)].into() };
        let p = Problems::new(&m, None, &Objective::Fleet(w)).unwrap();
        // Config 0: x takes 1 + 2·4 = 9, y 3: rate 3/9 + 1/3 = 2/3. Oracle: x 1 + 2·2 = 5, y 1: 3/5 + 1.
        let s = p.score(&[0]);
        assert!((s.slowdown - (1.6 / (2.0 / 3.0))).abs() < 1e-12, "{s:?}");
        assert!((p.score(&[0, 1]).slowdown - 1.0).abs() < 1e-12);
    }

    #[test]
    fn fleet_devices_are_read_and_checked() {
        let dir = tempfile::tempdir().unwrap();
        let write = |text: &str| {
            let path = dir.path().join("fleet.txt");
            std::fs::write(&path, text).unwrap();
            path
        };
        let devices =
            FleetWeights::read_devices(&write("# lab\n100 NVIDIA H200\n\n2.5  pthread-AMD EPYC  # VMs\n")).unwrap();
        assert_eq!(devices, [("NVIDIA H200".to_string(), 100.0), ("pthread-AMD EPYC".to_string(), 2.5)].into());
        for bad in ["NVIDIA H200\n", "-1 x\n", "3\n", "1 x\n2 x\n", "# nothing\n"] {
            assert!(matches!(FleetWeights::read_devices(&write(bad)), Err(Error::Parse { .. })), "{bad:?}");
        }
        // A device the data does not hold is an error, not a weight that silently counts nothing.
        let m = toy(&[("x", "a")], &[(0, 1, 1, 1)], vec![vec![1.0]]);
        let typo = Objective::Fleet(FleetWeights { device: [("X".to_string(), 3.0)].into(), shape: BTreeMap::new() });
        assert!(matches!(Problems::new(&m, None, &typo), Err(Error::Invalid(e)) if e.contains("`X`")));
    }

    #[test]
    fn shape_split_is_seeded_and_disjoint() {
        let problems: Vec<_> = (0..20u64).flat_map(|i| [(0, i + 1, 4, 4), (1, i + 1, 4, 4)]).collect();
        let m = toy(&[("x", "a"), ("y", "b")], &problems, vec![vec![1.0]; 40]);
        let a = split_shapes(&m, 0.2, 7).unwrap();
        assert_eq!(a, split_shapes(&m, 0.2, 7).unwrap());
        assert_eq!(a.test_shapes.len(), 4);
        assert_eq!((a.train.len(), a.test.len()), (32, 8));
        assert!(a.train.iter().all(|r| !a.test_shapes.contains(&m.problems[*r].shape)));
        assert!(split_shapes(&m, 1.0, 7).is_err());
        let c = compare(&m, &a, &[Method::Greedy], &options(Method::Greedy, 1)).unwrap();
        assert_eq!(c.best_single, 0);
        assert!(c.describe(&m).contains("greedy"));
    }
}
