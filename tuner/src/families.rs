//! Holding out whole architecture families: the shape lists of `variants/shapes/arch/`
//! (`FAMILY-LAYOUT.txt`, which `scripts/arch_shapes.py` writes from `variants/architectures.toml`)
//! say which family a problem belongs to. Leaving a family out selects the set and trains the
//! trees as `fewfit regenerate` does on every other problem, then judges them on the family's, as
//! a network of a kind never trained on would meet them (`fewfit evaluate --families`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::dataset::{Matrix, Shape};
use super::error::{Error, Result};
use super::regenerate::{regenerate, RegenerateOptions, Regenerated};
use super::sweep::read_shapes;
use fewfit_codegen::{trains, CLASSES};

/// The layouts a family's shape list may be of, which its name ends with (`decoder-NT.txt`).
const LAYOUTS: [&str; 4] = ["NN", "NT", "TN", "TT"];

/// The GEMMs of architecture families: per family, its shapes in each layout.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Families {
    /// Per family name, the (layout, shape) pairs of its shape lists; NN is written `"NN"`.
    pub shapes: BTreeMap<String, BTreeSet<(String, Shape)>>,
}

impl Families {
    /// Reads a folder of shape lists named `FAMILY-LAYOUT.txt` (LAYOUT one of NN, NT, TN, TT), such
    /// as `variants/shapes/arch`: a file of another name is an error, and so is a folder without
    /// any list.
    pub fn load(dir: &Path) -> Result<Families> {
        let entries = std::fs::read_dir(dir).map_err(|source| Error::Io { path: dir.into(), source })?;
        let mut families = Families::default();
        for entry in entries {
            let path = entry.map_err(|source| Error::Io { path: dir.into(), source })?.path();
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let parsed = name
                .strip_suffix(".txt")
                .and_then(|stem| stem.rsplit_once('-'))
                .filter(|(family, layout)| !family.is_empty() && LAYOUTS.contains(layout));
            let Some((family, layout)) = parsed else {
                return Err(Error::Parse {
                    path,
                    reason: "not a family's shape list: expected FAMILY-LAYOUT.txt, LAYOUT one of NN, NT, TN, TT"
                        .into(),
                });
            };
            let shapes = read_shapes(&path)?.into_iter().map(|s| (layout.to_string(), s));
            families.shapes.entry(family.to_string()).or_default().extend(shapes);
        }
        if families.shapes.is_empty() {
            return Err(Error::Invalid(format!("{}: no FAMILY-LAYOUT.txt shape lists", dir.display())));
        }
        Ok(families)
    }

    /// The rows of `matrix` that leaving `family` out holds out: the problems whose shape, in
    /// their records' layout (NN where they name none), is in the family's lists and in no other
    /// family's. A shape two families share stays in training, as a new network that shares a
    /// layer with a known one benefits from it; problems of no family always train. A family
    /// without lists is an error.
    pub fn held_out_rows(&self, matrix: &Matrix, family: &str) -> Result<Vec<usize>> {
        let own = self.shapes.get(family).ok_or_else(|| {
            let known: Vec<&str> = self.shapes.keys().map(String::as_str).collect();
            Error::Invalid(format!("unknown family `{family}` (the lists name {})", known.join(", ")))
        })?;
        let shared =
            |key: &(String, Shape)| self.shapes.iter().any(|(name, shapes)| name != family && shapes.contains(key));
        Ok((0..matrix.problems.len())
            .filter(|&row| {
                let problem = &matrix.problems[row];
                let layout = matrix.devices[problem.device].layout.clone().unwrap_or_else(|| "NN".into());
                let key = (layout, problem.shape);
                own.contains(&key) && !shared(&key)
            })
            .collect())
    }
}

/// One family left out: the set and the trees made without its problems, judged on them.
#[derive(Clone, Debug)]
pub struct FamilyHoldout {
    /// The family.
    pub family: String,
    /// The problems that selected the set and trained the trees.
    pub training: Matrix,
    /// The family's held-out problems ([`Families::held_out_rows`]), which the evaluation's rows
    /// index.
    pub held_out: Matrix,
    /// The set, the trees, and their evaluation on the held-out problems.
    pub regenerated: Regenerated,
}

impl FamilyHoldout {
    /// The report: the problems on each side, the set's best on the training problems, and the
    /// set and trees on the family's: the tree's geometric mean and worst slowdown against the
    /// oracle and the best in set's geometric mean, in total and per device.
    pub fn describe(&self) -> String {
        let out = &self.regenerated;
        format!(
            "family {} left out: {} problems of its own held out, {} training problems; best in set on those: {}\n\
             set and trees on the family:\n{}",
            self.family,
            out.test.outcomes.len(),
            out.train_rows.len(),
            out.train_best_in_set.describe(&self.training),
            out.test.describe(&self.held_out)
        )
    }
}

/// The matrix of some rows of another, with its devices and configurations.
fn rows(matrix: &Matrix, keep: &[usize]) -> Matrix {
    Matrix {
        precision: matrix.precision.clone(),
        devices: matrix.devices.clone(),
        problems: keep.iter().map(|&r| matrix.problems[r].clone()).collect(),
        configs: matrix.configs.clone(),
        time: keep.iter().map(|&r| matrix.time[r].clone()).collect(),
        recorded: keep.iter().map(|&r| matrix.recorded[r].clone()).collect(),
    }
}

/// Leaves `family` out: selects the set and trains the trees ([`regenerate`] with `options`'
/// selection and training settings) on every problem of `matrix` but the family's held-out ones
/// ([`Families::held_out_rows`]), and evaluates them there. The trees trained are those of the
/// classes that the training problems' devices train ([`trains`]); `options`' row sets and
/// classes are replaced. A family with no problem of its own in the matrix is an error, as is one
/// that leaves none to train on.
pub fn leave_family_out(
    matrix: &Matrix,
    families: &Families,
    family: &str,
    options: &RegenerateOptions,
) -> Result<FamilyHoldout> {
    let held: BTreeSet<usize> = families.held_out_rows(matrix, family)?.into_iter().collect();
    if held.is_empty() {
        return Err(Error::Data(format!(
            "no problem of family `{family}` alone in the data: sweep its shape lists, each in its layout"
        )));
    }
    let training_rows: Vec<usize> = (0..matrix.problems.len()).filter(|r| !held.contains(r)).collect();
    let training = rows(matrix, &training_rows).prune();
    let held_out = rows(matrix, &held.into_iter().collect::<Vec<_>>());
    let classes: Vec<String> = CLASSES
        .into_iter()
        .filter(|&class| training.problems.iter().any(|p| trains(class, &training.devices[p.device].class)))
        .map(String::from)
        .collect();
    if classes.is_empty() {
        return Err(Error::Data(format!("leaving family `{family}` out leaves no problem to train on")));
    }
    let options = RegenerateOptions {
        tree_only_rows: BTreeSet::new(),
        select_only_rows: BTreeSet::new(),
        classes: Some(classes),
        ..options.clone()
    };
    let regenerated = regenerate(&training, Some(&held_out), &options)?;
    Ok(FamilyHoldout { family: family.to_string(), training, held_out, regenerated })
}

/// Every family left out in turn.
#[derive(Clone, Debug)]
pub struct LeaveOneOut {
    /// The families with problems of their own in the data, in name order.
    pub holdouts: Vec<FamilyHoldout>,
    /// The families without, which were not left out.
    pub without_data: Vec<String>,
}

impl LeaveOneOut {
    /// One line per family and device: its held-out problems, the tree's geometric-mean and worst
    /// slowdown against the oracle, the best in set's geometric mean, the picks that failed or
    /// were not measured; then a line of all its devices where it has several, and a line naming
    /// the families without data.
    pub fn table(&self) -> String {
        let mut out = String::from("family\tdevice\tproblems\ttree\tbest in set\tworst\tfailed\tnot measured\n");
        for holdout in &self.holdouts {
            let test = &holdout.regenerated.test;
            for d in &test.devices {
                out.push_str(&format!(
                    "{}\t{}\t{}\t{:.3}\t{:.3}\t{}\t{}\t{}\n",
                    holdout.family,
                    holdout.held_out.devices[d.device].label(),
                    d.problems,
                    d.geomean,
                    d.best_in_set_geomean,
                    d.worst.map_or("-".into(), |(shape, w)| format!("{w:.3} at {shape}")),
                    d.failed,
                    d.unmeasured
                ));
            }
            if test.devices.len() > 1 {
                out.push_str(&format!(
                    "{}\tall\t{}\t{:.3}\t{:.3}\t{}\t{}\t{}\n",
                    holdout.family,
                    test.outcomes.len(),
                    test.tree.geomean,
                    test.best_in_set.geomean,
                    test.tree.worst.map_or("-".into(), |(row, w)| {
                        let p = &holdout.held_out.problems[row];
                        format!("{w:.3} at {} on {}", p.shape, holdout.held_out.devices[p.device].label())
                    }),
                    test.tree.failed,
                    test.unmeasured
                ));
            }
        }
        if !self.without_data.is_empty() {
            out.push_str(&format!("no problem of their own in the data: {}\n", self.without_data.join(", ")));
        }
        out
    }
}

/// Leaves each family out in turn ([`leave_family_out`]), skipping those with no problem of their
/// own in the matrix; an error if no family has one.
pub fn leave_each_family_out(matrix: &Matrix, families: &Families, options: &RegenerateOptions) -> Result<LeaveOneOut> {
    let mut result = LeaveOneOut { holdouts: Vec::new(), without_data: Vec::new() };
    for family in families.shapes.keys() {
        if families.held_out_rows(matrix, family)?.is_empty() {
            result.without_data.push(family.clone());
        } else {
            result.holdouts.push(leave_family_out(matrix, families, family, options)?);
        }
    }
    if result.holdouts.is_empty() {
        return Err(Error::Data(format!(
            "no problem of any family's own shapes in the data ({}): sweep their shape lists",
            result.without_data.join(", ")
        )));
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::{Config, DeviceRecord, Problem};
    use crate::select::SelectOptions;
    use crate::train::TrainOptions;
    use fewfit_codegen::{Family, Variant};

    /// Two of fewfit's direct variants (only fewfit's own variants can ship, so selection keeps to them).
    fn configs() -> Vec<Config> {
        let direct = |kdimd: u32| {
            let v = Variant::new(
                Family::Direct,
                &[("KDIMD", kdimd), ("NDIMD", 8), ("UKD", 8), ("VWD", 4), ("WPTM", 2), ("WPTN", 1)],
            )
            .with_neutral_defaults();
            v.validate().unwrap();
            Config::of(&v)
        };
        vec![direct(32), direct(64)]
    }

    fn device(layout: Option<&str>) -> DeviceRecord {
        DeviceRecord {
            name: "d".into(),
            vendor: "v".into(),
            driver: "1".into(),
            class: "cpu".into(),
            machine: None,
            layout: layout.map(String::from),
            compute_units: Some(4),
        }
    }

    /// Devices `d` (NN) and `d [NT]`; problems (device, m) with n = k = 64, their times per variant.
    fn matrix(problems: &[(usize, u64, [f64; 2])]) -> Matrix {
        Matrix {
            precision: "f32".into(),
            devices: vec![device(None), device(Some("NT"))],
            problems: problems
                .iter()
                .map(|&(device, m, _)| Problem { device, shape: Shape { m, n: 64, k: 64 } })
                .collect(),
            configs: configs(),
            time: problems.iter().map(|(_, _, t)| t.to_vec()).collect(),
            recorded: vec![vec![true; 2]; problems.len()],
        }
    }

    /// Families from `(family, layout, [m])`: shapes m x 64 x 64.
    fn families(lists: &[(&str, &str, &[u64])]) -> Families {
        let mut families = Families::default();
        for (family, layout, ms) in lists {
            let shapes = ms.iter().map(|&m| (layout.to_string(), Shape { m, n: 64, k: 64 }));
            families.shapes.entry(family.to_string()).or_default().extend(shapes);
        }
        families
    }

    /// Selection of one variant, a small tree grid.
    fn options() -> RegenerateOptions {
        RegenerateOptions {
            select: SelectOptions { max_configs: 1, ..Default::default() },
            train: TrainOptions { depths: vec![1, 2], min_leaf: vec![1], ..Default::default() },
            source: "test".into(),
            ..Default::default()
        }
    }

    #[test]
    fn lists_load_by_family_and_layout() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("mobile-cnn-NN.txt"), "# header\n1 64 64  # a\n2 64 64\n").unwrap();
        std::fs::write(dir.path().join("mobile-cnn-TN.txt"), "3 64 64\n").unwrap();
        std::fs::write(dir.path().join("decoder-NT.txt"), "1 64 64\n").unwrap();
        let loaded = Families::load(dir.path()).unwrap();
        let want = families(&[("mobile-cnn", "NN", &[1, 2]), ("mobile-cnn", "TN", &[3]), ("decoder", "NT", &[1])]);
        assert_eq!(loaded, want);

        std::fs::write(dir.path().join("decoder-XX.txt"), "1 64 64\n").unwrap();
        assert!(matches!(Families::load(dir.path()), Err(Error::Parse { .. })));
        let empty = tempfile::tempdir().unwrap();
        assert!(matches!(Families::load(empty.path()), Err(Error::Invalid(_))));
    }

    #[test]
    fn a_family_holds_out_its_own_shapes_in_their_layout() {
        // Shape 1 is family a's in NN and b's in NT; shape 2 both families' in NN; shape 3 a's alone.
        let f = families(&[("a", "NN", &[1, 2, 3]), ("b", "NT", &[1]), ("b", "NN", &[2])]);
        let m = matrix(&[
            (0, 1, [1.0, 1.0]),
            (0, 2, [1.0, 1.0]),
            (0, 3, [1.0, 1.0]),
            (0, 4, [1.0, 1.0]),
            (1, 1, [1.0, 1.0]),
            (1, 3, [1.0, 1.0]),
        ]);
        assert_eq!(f.held_out_rows(&m, "a").unwrap(), [0, 2]);
        assert_eq!(f.held_out_rows(&m, "b").unwrap(), [4]);
        assert!(matches!(f.held_out_rows(&m, "c"), Err(Error::Invalid(_))));
    }

    #[test]
    fn a_left_out_family_is_judged_by_a_set_chosen_without_it() {
        // Variant 0 is fastest on family a's shapes (m 1-3), variant 1 on b's (m 4-6) and on the
        // shape of no family (m 7), which always trains.
        let f = families(&[("a", "NN", &[1, 2, 3]), ("b", "NN", &[4, 5, 6]), ("c", "NT", &[1])]);
        let m = matrix(&[
            (0, 1, [1.0, 2.0]),
            (0, 2, [1.0, 2.0]),
            (0, 3, [1.0, 4.0]),
            (0, 4, [3.0, 1.0]),
            (0, 5, [3.0, 1.0]),
            (0, 6, [3.0, 1.0]),
            (0, 7, [5.0, 1.0]),
        ]);
        let a = leave_family_out(&m, &f, "a", &options()).unwrap();
        assert_eq!((a.regenerated.train_rows.len(), a.held_out.problems.len()), (4, 3));
        // Trained on b's shapes, the set is variant 1: 2, 2 and 4 times the oracle on a's.
        let test = &a.regenerated.test;
        assert!((test.tree.geomean - 16f64.powf(1.0 / 3.0)).abs() < 1e-12);
        assert!((test.best_in_set.geomean - test.tree.geomean).abs() < 1e-12);
        assert_eq!(test.devices[0].worst, Some((Shape { m: 3, n: 64, k: 64 }, 4.0)));
        assert!(a.describe().contains("family a left out: 3 problems of its own held out, 4 training problems"));

        let b = leave_family_out(&m, &f, "b", &options()).unwrap();
        assert!((b.regenerated.test.tree.geomean - 3.0).abs() < 1e-12, "the set is variant 0, chosen on a's and 7");

        assert!(matches!(leave_family_out(&m, &f, "c", &options()), Err(Error::Data(_))));
        let only_a = matrix(&[(0, 1, [1.0, 2.0])]);
        assert!(matches!(leave_family_out(&only_a, &f, "a", &options()), Err(Error::Data(_))));
    }

    #[test]
    fn each_family_is_left_out_in_turn() {
        // Two shapes on each side of each split: the trees' cross-validation needs two.
        let f = families(&[("a", "NN", &[1, 2]), ("b", "NN", &[3, 4]), ("b", "NT", &[3, 4]), ("c", "TN", &[1])]);
        let m = matrix(&[
            (0, 1, [1.0, 2.0]),
            (0, 2, [1.0, 2.0]),
            (0, 3, [2.0, 1.0]),
            (0, 4, [2.0, 1.0]),
            (1, 3, [4.0, 1.0]),
            (1, 4, [4.0, 1.0]),
        ]);
        let all = leave_each_family_out(&m, &f, &options()).unwrap();
        let names: Vec<&str> = all.holdouts.iter().map(|h| h.family.as_str()).collect();
        assert_eq!((names, all.without_data.clone()), (vec!["a", "b"], vec!["c".to_string()]));
        let table = all.table();
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 6, "{table}");
        assert_eq!(lines[1], "a\td\t2\t2.000\t2.000\t2.000 at 1x64x64\t0\t0");
        assert_eq!(lines[2], "b\td\t2\t2.000\t2.000\t2.000 at 3x64x64\t0\t0");
        assert_eq!(lines[3], "b\td [NT]\t2\t4.000\t4.000\t4.000 at 3x64x64\t0\t0");
        assert_eq!(lines[4], "b\tall\t4\t2.828\t2.828\t4.000 at 3x64x64 on d [NT]\t0\t0");
        assert_eq!(lines[5], "no problem of their own in the data: c");

        let none = families(&[("c", "TN", &[1])]);
        assert!(matches!(leave_each_family_out(&m, &none, &options()), Err(Error::Data(_))));
    }
}
